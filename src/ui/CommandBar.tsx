import React, { useEffect, useMemo } from 'react';
import { Box, Text } from 'ink';
import { useConsole, useConsoleOptions, useConsoleStore } from './context.js';
import { fitKeyLine, footerHints } from './keymap.js';
import { Line } from './Line.js';
import { LineView } from './LineView.js';
import type { Notice } from './store.js';
import { clipEnd, sanitize, wrapWords } from './text.js';
import { theme } from './theme.js';

/** The command bar's prompt, before the typed text. */
export const BAR_PREFIX = '› ';

/** Rows of the completion list at most. */
export const MAX_COMPLETIONS = 6;


/** Rows a notice may take at most: a longer answer (an error list) says where to read it whole. */
export const MAX_NOTICE_ROWS = 5;

/**
 * The notice's rows in `width` cells: its mark (`✓ `, `✗ `, none when muted) and text,
 * wrapped at spaces, never cut while it fits {@link MAX_NOTICE_ROWS} rows (past that the
 * last row ends in `…`). No notice: one blank row.
 */
export function noticeRows(notice: Notice | null, width: number): string[] {
  if (!notice) return [''];
  const mark = notice.working || notice.info ? '' : notice.ok ? '✓ ' : '✗ ';
  const rows = wrapWords(mark + sanitize(notice.text, { oneLine: true }), Math.max(10, width));
  if (rows.length <= MAX_NOTICE_ROWS) return rows;
  const kept = rows.slice(0, MAX_NOTICE_ROWS);
  kept[MAX_NOTICE_ROWS - 1] = `${clipEnd(kept[MAX_NOTICE_ROWS - 1]!, Math.max(1, width - 1))}…`;
  return kept;
}

/** The first `max` of a notice's `rows`, the last one kept ending in `…` when some are left out. */
function cutRows(rows: string[], max: number, width: number): string[] {
  if (rows.length <= max) return rows;
  if (max === 0) return [];
  const kept = rows.slice(0, max);
  kept[max - 1] = `${clipEnd(kept[max - 1]!, Math.max(1, width - 1))}…`;
  return kept;
}

/**
 * What the footer says of the run before its keys, in the forms {@link fitKeyLine} picks
 * from, longest first: that the run finished and how, or, after one Ctrl+C, that it is
 * pausing (or paused) and that a second Ctrl+C quits. The short forms keep the words that
 * matter in a narrow terminal: `Pausing; ^C quits.` at 20 columns.
 */
export function footerLead(done: string | null, interrupt: 'pausing' | 'paused' | null): string[] {
  if (done !== null) return [`Run finished: ${done}. `, `Finished: ${done}. `, `${done}. `];
  if (interrupt === 'paused') return ['Paused; Ctrl+C again quits. ', 'Paused; ^C quits. ', '^C quits. '];
  if (interrupt === 'pausing') return ['Pausing at the next safe point; Ctrl+C again quits. ', 'Pausing; Ctrl+C again quits. ', 'Pausing; ^C quits. ', '^C quits. '];
  return [''];
}

/** Help or an opened event covers the console: the footer then keeps no blank row for a notice that is not there. */
function covered(s: { overlay: string | null }): boolean {
  return s.overlay === 'help' || s.overlay === 'event';
}

/**
 * Rows of the footer in `width` cells: `rows`, what it takes (the notice, wrapped; the
 * completion list; the bar or key line), and `least`, what the fixed top gives its own rows
 * up for in a small terminal: the bar or the key line, and while the bar is open, the answer
 * above it (an answer that keeps the bar open, an error, is about the text still in it; with
 * the bar closed the answer takes the key line's row instead). The notice is wrapped once
 * per notice and width, not on every change of the store.
 */
export function useFooterRows(width: number): { rows: number; least: number } {
  const list = useConsole((s) => (s.input === 'bar' ? Math.min(MAX_COMPLETIONS, s.completions.length) : 0));
  const notice = useConsole((s) => s.notice);
  const busy = useConsole((s) => s.busy);
  const hidden = useConsole((s) => covered(s) && s.notice === null);
  const open = useConsole((s) => s.input === 'bar');
  const said = useMemo(() => noticeRows(notice, width).length, [notice, width]);
  const noticeRowCount = busy ? 1 : hidden ? 0 : said;
  return { rows: 1 + noticeRowCount + list, least: open && notice !== null && !busy ? 1 + said : 1 };
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
export const CommandBar = React.memo(function CommandBar({ width, rows = Infinity }: { width: number; rows?: number }) {
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
  // Under the bar's own row, the completion list first, then the notice, in the rows left.
  const room = Math.max(0, rows - 1);
  const listRows = open ? Math.min(MAX_COMPLETIONS, room) : 0;
  // A window of the list that keeps the highlighted row in view.
  const first = Math.max(0, Math.min(highlight - listRows + 1, completions.length - listRows));
  const list = listRows === 0 ? [] : completions.slice(first, first + listRows);
  const alert = useConsole((s) => s.session.alerts.length > s.acknowledged);
  useNoticeExpiry();
  const overlay = useConsole((s) => s.overlay);
  const noting = useConsole((s) => s.input === 'note');
  // The footer's hints, from the key map: the keys that work in the view shown.
  const quitArmed = useConsole((s) => s.quitArmed);
  const { hints, kept, short } = footerHints({ overlay, input: noting ? 'note' : null, replaying, alert, quitArmed });
  const lead = footerLead(done, interrupted && !done ? (paused ? 'paused' : 'pausing') : null);
  const noticeRoom = Math.max(0, room - list.length);
  const said = busy || (notice === null && covered({ overlay })) ? [] : cutRows(noticeRows(notice, width), noticeRoom, width);
  const colour = !notice || notice.working || notice.info ? theme.muted : notice.ok ? theme.ok : theme.danger;
  // One row for the whole footer: the answer to a command, while it shows, takes it from the
  // key line (the keys are in help, and a prompt shows its own).
  const squeezed = !open && room === 0 && (busy || notice !== null) ? (busy ? `running ${sanitize(line.text, { oneLine: true })} …` : cutRows(noticeRows(notice, width), 1, width)[0]!) : null;
  return (
    <Box flexDirection="column" flexShrink={0} height={1 + (busy ? Math.min(1, noticeRoom) : said.length) + list.length}>
      {busy && noticeRoom > 0 ? (
        <Box height={1}>
          <Line width={width} color={theme.muted}>running {sanitize(line.text, { oneLine: true })} …</Line>
        </Box>
      ) : busy ? null : (
        said.map((row, i) => (
          <Box key={`n${i}`} height={1}>
            {row === '' ? (
              <Text> </Text>
            ) : (
              <Line width={width} color={colour}>
                {row}
              </Line>
            )}
          </Box>
        ))
      )}
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
        ) : squeezed !== null ? (
          <Line width={width} color={colour}>
            {squeezed}
          </Line>
        ) : (
          <Line width={width} color={theme.muted}>
            {fitKeyLine(lead, hints, kept, width, short)}
          </Line>
        )}
      </Box>
    </Box>
  );
});
