import React, { useEffect } from 'react';
import { Box, Text } from 'ink';
import { useConsole, useConsoleOptions, useConsoleStore } from './context.js';
import { bindingsFor, fitKeyLine, keyHints } from './keymap.js';
import { Line } from './Line.js';
import { LineView } from './LineView.js';
import { sanitize } from './text.js';
import { theme } from './theme.js';

/** The command bar's prompt, before the typed text. */
export const BAR_PREFIX = '› ';

/** Rows of the completion list at most. */
export const MAX_COMPLETIONS = 6;

/** The footer hints a narrow terminal still shows: help (which lists every key) and quit. */
const ALWAYS_SHOWN = keyHints(
  'global',
  bindingsFor('global')
    .map((row) => row.command)
    .filter((command) => command !== 'help' && command !== 'quit'),
);

/** Rows the footer takes: the notice, the completion list, the bar or key line. */
export function useFooterRows(): number {
  const list = useConsole((s) => (s.input === 'bar' ? Math.min(MAX_COMPLETIONS, s.completions.length) : 0));
  return 2 + list;
}

/** The answer to a command goes after `noticeMs` unless another replaced it; work in progress stays. */
function useNoticeExpiry(): void {
  const store = useConsoleStore();
  const notice = useConsole((s) => s.notice);
  const { noticeMs } = useConsoleOptions();
  useEffect(() => {
    if (!notice || notice.working) return;
    const timer = setTimeout(() => {
      if (store.getState().notice === notice) store.getState().setNotice(null);
    }, noticeMs);
    return () => clearTimeout(timer);
  }, [notice, noticeMs, store]);
}

/**
 * The footer: the answer to the last command, then the command bar when open (with its
 * completion list above it), else the keys that apply now, from the key map.
 * While the bar is open it owns the keyboard: typing never reaches a hotkey (the terminal's
 * cursor is placed at its caret by `use-caret.ts`).
 */
export const CommandBar = React.memo(function CommandBar({ width }: { width: number }) {
  const notice = useConsole((s) => s.notice);
  const open = useConsole((s) => s.input === 'bar');
  const line = useConsole((s) => s.line);
  const completions = useConsole((s) => s.completions);
  const highlight = useConsole((s) => s.highlight);
  const busy = useConsole((s) => s.busy);
  const done = useConsole((s) => s.session.done?.reason ?? null);
  const replaying = useConsole((s) => s.replay !== null);
  const interrupted = useConsole((s) => s.interrupted);
  const paused = useConsole((s) => s.session.pending?.kind === 'pause');
  // A window of the list that keeps the highlighted row in view.
  const first = Math.max(0, Math.min(highlight - MAX_COMPLETIONS + 1, completions.length - MAX_COMPLETIONS));
  const list = completions.slice(first, first + MAX_COMPLETIONS);
  const alert = useConsole((s) => s.session.alerts.length > s.acknowledged);
  useNoticeExpiry();
  // The footer's hints, from the key map; `x` only while there is an alert to acknowledge.
  const hints = [...(replaying ? keyHints('replay') : []), ...keyHints('dashboard', alert ? [] : ['acknowledge-alert']), ...keyHints('global')];
  const lead =
    (done ? `Run finished: ${done}. ` : '') +
    (interrupted && !done ? (paused ? 'Paused; Ctrl+C again quits. ' : 'Pausing at the next safe point; Ctrl+C again quits. ') : '');
  return (
    <Box flexDirection="column" flexShrink={0} height={2 + (open ? list.length : 0)}>
      <Box height={1}>
        {busy ? (
          <Line width={width} color={theme.muted}>running {sanitize(line.text, { oneLine: true })} …</Line>
        ) : notice?.working || notice?.info ? (
          <Line width={width} color={theme.muted}>
            {sanitize(notice.text, { oneLine: true })}
          </Line>
        ) : notice ? (
          <Line width={width} color={notice.ok ? theme.ok : theme.danger}>
            {notice.ok ? '✓ ' : '✗ '}
            {sanitize(notice.text, { oneLine: true })}
          </Line>
        ) : (
          <Text> </Text>
        )}
      </Box>
      {open
        ? list.map((item, i) => (
            <Box key={item} height={1}>
              <Line width={width} inverse={first + i === highlight} color={first + i === highlight ? theme.accent : theme.muted}>
                {first + i === highlight ? '▸ ' : '  '}
                {sanitize(item, { oneLine: true })}
                {i === list.length - 1 && completions.length > first + list.length ? `   (+${completions.length - first - list.length} more, ↓)` : ''}
              </Line>
            </Box>
          ))
        : null}
      <Box height={1}>
        {open ? (
          <LineView prefix={BAR_PREFIX} state={line} width={width} />
        ) : (
          <Line width={width} color={theme.muted}>
            {fitKeyLine(lead, hints, ALWAYS_SHOWN, width)}
          </Line>
        )}
      </Box>
    </Box>
  );
});
