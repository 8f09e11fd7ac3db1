import React from 'react';
import { Text } from 'ink';
import type { LineState } from './line-editor.js';
import { cellWidth, graphemes, splitJoinedEmoji } from './text.js';
import { theme } from './theme.js';

/**
 * The first cluster shown when the text is wider than `width` (it scrolls to keep the
 * cursor in view): walks back from the cursor while the shown part fits, so the cost
 * follows the bar's width, not the text's length (a 60,000-character paste stays instant).
 */
function firstShown(prefix: string, chars: readonly string[], cursor: number, width: number): number {
  // The caret's cell, and the … drawn before the text once it scrolls.
  const room = Math.max(4, width - cellWidth(prefix) - 2);
  let start = cursor;
  while (start > 0 && cellWidth(chars.slice(start - 1, cursor).join('')) <= room) start--;
  return start;
}

/**
 * The clusters of the text as the field draws them: a joined emoji as its parts (a family
 * as its people, a skin-toned hand as the hand), as every panel draws them, since terminals
 * draw those wider than they are measured. The text itself keeps what was typed.
 */
function drawn(text: string): string[] {
  return graphemes(text).map((cluster) => (cluster.length > 1 ? splitJoinedEmoji(cluster) : cluster));
}

/** The column (0-based, in cells) where {@link LineView} draws its cursor. */
export function caretColumn(prefix: string, state: LineState, width: number): number {
  const chars = drawn(state.text);
  const start = firstShown(prefix, chars, state.cursor, width);
  return cellWidth(prefix) + (start > 0 ? 1 : 0) + cellWidth(chars.slice(start, state.cursor).join(''));
}

/**
 * One line of input with its cursor drawn as an inverse cell. When the text is wider than
 * `width`, it scrolls so the cursor stays in view.
 */
export function LineView({ prefix, state, width }: { prefix: string; state: LineState; width: number }) {
  const chars = drawn(state.text);
  const start = firstShown(prefix, chars, state.cursor, width);
  const before = chars.slice(start, state.cursor).join('');
  const at = chars[state.cursor] ?? ' ';
  // Only what can show after the cursor: a character takes at least one cell, zero-width
  // marks aside; Ink cuts the rest at the edge.
  const after = chars.slice(state.cursor + 1, state.cursor + 1 + 2 * width).join('');
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
