import React from 'react';
import { Box, Text } from 'ink';
import { BAR_COMMANDS } from './commands.js';
import { useConsole } from './context.js';
import { bindingsFor, keyLabel, keysText, SCOPE_TITLES } from './keymap.js';
import { Line } from './Line.js';
import { theme } from './theme.js';

interface HelpRow {
  kind: 'title' | 'key' | 'blank';
  keys?: string;
  text: string;
}

/** Every key of the key map, by scope, and every command-bar command: help is generated from the same tables the console uses. */
export function helpRows(): HelpRow[] {
  const rows: HelpRow[] = [];
  for (const [scope, title] of SCOPE_TITLES) {
    const bindings = bindingsFor(scope);
    if (bindings.length === 0) continue;
    rows.push({ kind: 'title', text: title });
    for (const b of bindings) rows.push({ kind: 'key', keys: b.keys.map(keyLabel).join(' '), text: b.help });
  }
  rows.push({ kind: 'title', text: 'Command bar commands (Tab completes)' });
  for (const c of BAR_COMMANDS) rows.push({ kind: 'key', keys: c.text.trim(), text: c.help });
  return rows;
}

/** The keys that close help, from the key map: `esc, ? or q`. */
const CLOSE_KEYS = keysText('help', 'close');

/** The help overlay: `?` opens it, the keys of {@link CLOSE_KEYS} close it, ↑/↓ scroll. */
export const HelpOverlay = React.memo(function HelpOverlay({ height, width }: { height: number; width: number }) {
  const scroll = useConsole((s) => s.scroll);
  const rows = helpRows();
  if (height <= 0) return null;
  // Within `height` whatever it is: the title, then the footer, then as many rows as are left.
  const footer = height >= 2;
  const room = Math.max(0, height - 1 - (footer ? 1 : 0));
  const start = Math.max(0, Math.min(scroll, rows.length - room));
  return (
    <Box flexDirection="column" height={height} overflowY="hidden" flexShrink={0}>
      <Line width={width}>
        <Text color={theme.border}>── </Text>
        <Text bold>Help</Text>
        <Text color={theme.muted}> · keys and commands · ↑/↓ scroll · {CLOSE_KEYS} closes</Text>
      </Line>
      {rows.slice(start, start + room).map((row, i) =>
        row.kind === 'title' ? (
          <Line key={i} width={width} bold color={theme.accent}>
            {row.text}
          </Line>
        ) : (
          <Line key={i} width={width}>
            {'  '}
            <Text bold>{(row.keys ?? '').padEnd(22)}</Text> {row.text}
          </Line>
        ),
      )}
      {footer ? (
        <Line width={width} color={theme.muted}>
          {start + room < rows.length ? `… ${rows.length - start - room} more (↓)` : 'end of help'}
        </Line>
      ) : null}
    </Box>
  );
});
