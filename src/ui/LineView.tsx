import React from 'react';
import { Text } from 'ink';
import type { LineState } from './line-editor.js';
import { Line } from './Line.js';
import { cellWidth, graphemes, screenForm } from './text.js';
import { theme } from './theme.js';

/**
 * The first cluster shown when the text is wider than `width` (it scrolls to keep the
 * cursor in view): walks back from the cursor while the shown part fits, so the cost
 * follows the bar's width, not the text's length (a 60,000-character paste stays instant).
 */
function firstShown(prefix: string, chars: readonly string[], cursor: number, width: number): number {
  // The caret's cells (an escaped invisible character takes several), the … drawn before
  // the text once it scrolls and the … where the row is cut after the caret.
  const room = Math.max(4, width - cellWidth(prefix) - 2 - Math.max(1, cellWidth(chars[cursor] ?? ' ')));
  let start = cursor;
  while (start > 0 && cellWidth(chars.slice(start - 1, cursor).join('')) <= room) start--;
  return start;
}

/**
 * The clusters of the text as the field draws them, each in its screen form as every panel
 * draws text (src/ui/screen-form.ts): a joined emoji as its parts, an invisible character
 * escaped (`\u{200b}`), an emoji without its presentation selector. The text itself keeps
 * what was typed (and is submitted as typed); only its display changes, so the caret counts
 * the cells of what is drawn.
 */
function drawn(text: string): string[] {
  return graphemes(text).map((cluster) => (cluster.length > 1 || cluster.charCodeAt(0) > 0x7e ? screenForm(cluster) : cluster));
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
  // marks aside; the row is cut at the edge with `…` (by the console, not by Ink).
  const after = chars.slice(state.cursor + 1, state.cursor + 1 + 2 * width).join('');
  return (
    <Line width={width}>
      <Text color={theme.accent}>{prefix}</Text>
      {start > 0 ? <Text color={theme.muted}>…</Text> : null}
      {before}
      <Text inverse>{at}</Text>
      {after}
    </Line>
  );
}
