import React from 'react';
import { Text } from 'ink';
import type { LineState } from './line-editor.js';
import { cellWidth } from './text.js';
import { theme } from './theme.js';

/** The first character shown when the text is wider than `width` (it scrolls to keep the cursor in view). */
function firstShown(prefix: string, state: LineState, width: number): number {
  const chars = [...state.text];
  let start = 0;
  const room = Math.max(4, width - cellWidth(prefix) - 1);
  while (start < state.cursor && cellWidth(chars.slice(start, state.cursor).join('')) > room) start++;
  return start;
}

/** The column (0-based, in cells) where {@link LineView} draws its cursor. */
export function caretColumn(prefix: string, state: LineState, width: number): number {
  const start = firstShown(prefix, state, width);
  return cellWidth(prefix) + (start > 0 ? 1 : 0) + cellWidth([...state.text].slice(start, state.cursor).join(''));
}

/**
 * One line of input with its cursor drawn as an inverse cell. When the text is wider than
 * `width`, it scrolls so the cursor stays in view.
 */
export function LineView({ prefix, state, width }: { prefix: string; state: LineState; width: number }) {
  const chars = [...state.text];
  const start = firstShown(prefix, state, width);
  const before = chars.slice(start, state.cursor).join('');
  const at = chars[state.cursor] ?? ' ';
  const after = chars.slice(state.cursor + 1).join('');
  return (
    <Text wrap="truncate-end">
      <Text color={theme.accent}>{prefix}</Text>
      {start > 0 ? <Text color={theme.muted}>…</Text> : null}
      {before}
      <Text inverse>{at}</Text>
      {after}
    </Text>
  );
}
