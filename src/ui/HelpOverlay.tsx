import React, { useMemo } from 'react';
import { Box, Text } from 'ink';
import { BAR_COMMANDS } from './commands.js';
import { useConsole } from './context.js';
import { bindingsFor, keyLabel, keysText, SCOPE_TITLES } from './keymap.js';
import { Line } from './Line.js';
import { cellWidth, wrapWords } from './text.js';
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

/** Cells of the key column when help is wide enough for keys and their descriptions side by side. */
const KEY_COLUMN = 22;
/** The narrowest a description may be beside the key column; narrower help puts each description under its keys. */
const MIN_TEXT = 30;

/** One row of help as drawn at a width: a section title's, or a row of a key's or command's entry. */
export interface HelpLine {
  kind: 'title' | 'entry';
  /** An entry's keys, on its first row only (`''` on the rows of its description after that). */
  keys: string;
  /** The part of the title or description on this row (`''` on a key row of its own). */
  text: string;
  /** The cell `text` starts at, for an entry. */
  at: number;
}

/**
 * {@link helpRows} as rows of at most `width` cells, nothing cut: titles and descriptions
 * wrap at spaces. Keys and descriptions sit side by side (keys in a column of
 * {@link KEY_COLUMN} cells) where a description has {@link MIN_TEXT} cells beside it, else
 * each description goes on the rows under its keys, indented. Help scrolls by these rows.
 */
export function helpLines(width: number): HelpLine[] {
  const lines: HelpLine[] = [];
  const beside = width - 2 - KEY_COLUMN - 1 >= MIN_TEXT;
  for (const row of helpRows()) {
    if (row.kind !== 'key') {
      for (const text of wrapWords(row.text, width)) lines.push({ kind: 'title', keys: '', text, at: 0 });
      continue;
    }
    const keys = row.keys ?? '';
    if (beside && cellWidth(keys) <= KEY_COLUMN) {
      const at = 2 + KEY_COLUMN + 1;
      wrapWords(row.text, width - at).forEach((text, i) => lines.push({ kind: 'entry', keys: i === 0 ? keys : '', text, at }));
      continue;
    }
    const at = Math.min(4, Math.max(0, width - 1));
    for (const k of wrapWords(keys, width - 2)) lines.push({ kind: 'entry', keys: k, text: '', at });
    for (const text of wrapWords(row.text, width - at)) lines.push({ kind: 'entry', keys: '', text, at });
  }
  return lines;
}

/** The keys that close help, from the key map: `esc, ? or q`. */
const CLOSE_KEYS = keysText('help', 'close');

/** The help overlay: `?` opens it, the keys of {@link CLOSE_KEYS} close it, ↑/↓ scroll. */
export const HelpOverlay = React.memo(function HelpOverlay({ height, width }: { height: number; width: number }) {
  const scroll = useConsole((s) => s.scroll);
  const lines = useMemo(() => helpLines(width), [width]);
  if (height <= 0) return null;
  // Within `height` whatever it is: the title, then the footer, then as many rows as are left.
  const footer = height >= 2;
  const room = Math.max(0, height - 1 - (footer ? 1 : 0));
  const start = Math.max(0, Math.min(scroll, lines.length - room));
  return (
    <Box flexDirection="column" height={height} overflowY="hidden" flexShrink={0}>
      <Line width={width}>
        <Text color={theme.border}>── </Text>
        <Text bold>Help</Text>
        <Text color={theme.muted}> · keys and commands · ↑/↓ scroll · {CLOSE_KEYS} closes</Text>
      </Line>
      {lines.slice(start, start + room).map((line, i) =>
        line.kind === 'title' ? (
          <Line key={i} width={width} bold color={theme.accent}>
            {line.text}
          </Line>
        ) : (
          <Line key={i} width={width}>
            {line.keys === '' ? ' '.repeat(line.at) : '  '}
            <Text bold>{line.keys}</Text>
            {line.keys !== '' && line.text !== '' ? ' '.repeat(Math.max(1, line.at - 2 - cellWidth(line.keys))) : ''}
            {line.text}
          </Line>
        ),
      )}
      {footer ? (
        <Line width={width} color={theme.muted}>
          {start + room < lines.length ? `… ${lines.length - start - room} more (↓)` : 'end of help'}
        </Line>
      ) : null}
    </Box>
  );
});
