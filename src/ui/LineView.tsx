import React, { createContext, useContext } from 'react';
import { Text } from 'ink';
import type { LineState } from './line-editor.js';
import { LineViewport, type LineWindow } from './line-viewport.js';
import { Line } from './Line.js';
import { cellWidth, graphemes, screenForm } from './text.js';
import { theme } from './theme.js';

/**
 * The window kept for the console's focused field from one frame to the next (see
 * `line-viewport.ts`). Provided by the console's root; a field drawn on its own (a test)
 * gets a new one each time, and so the window a field just opened shows.
 */
export const LineViewportContext = createContext<LineViewport | null>(null);

/** The console's kept window of its focused field, or a new one outside a console. */
export function useLineViewport(): LineViewport {
  return useContext(LineViewportContext) ?? new LineViewport();
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

/** A field's line as drawn in `width` cells after `prefix`: its clusters and the window shown of them. */
export function fieldWindow(viewport: LineViewport, prefix: string, state: LineState, width: number): { chars: string[]; shown: LineWindow } {
  const chars = drawn(state.text);
  const widths = new Map<number, number>();
  const widthOf = (i: number): number => {
    let cells = widths.get(i);
    if (cells === undefined) widths.set(i, (cells = cellWidth(chars[i]!)));
    return cells;
  };
  return { chars, shown: viewport.window(widthOf, chars.length, state.cursor, Math.max(0, width - cellWidth(prefix))) };
}

/** The column (0-based, in cells, from the field's left edge) where {@link LineView} draws its caret. */
export function caretColumn(viewport: LineViewport, prefix: string, state: LineState, width: number): number {
  return cellWidth(prefix) + fieldWindow(viewport, prefix, state, width).shown.caret;
}

/**
 * One line of input with its caret drawn as an inverse cell. When the text is wider than
 * `width`, a window of it shows, with `…` where text is left out (`line-viewport.ts`): the
 * caret is always on a character shown, never under a `…`.
 */
export function LineView({ prefix, state, width }: { prefix: string; state: LineState; width: number }) {
  const viewport = useLineViewport();
  const { chars, shown } = fieldWindow(viewport, prefix, state, width);
  const before = chars.slice(shown.first, state.cursor).join('');
  const at = chars[state.cursor] ?? ' ';
  const after = chars.slice(state.cursor + 1, shown.end).join('');
  return (
    <Line width={width}>
      <Text color={theme.accent}>{prefix}</Text>
      {shown.before ? <Text color={theme.muted}>…</Text> : null}
      {before}
      <Text inverse>{at}</Text>
      {after}
      {shown.after ? <Text color={theme.muted}>…</Text> : null}
    </Line>
  );
}
