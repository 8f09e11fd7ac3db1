/**
 * How the approval prompt fits a long call into its rows (pure, cell-measured): the key
 * line is laid out first, the arguments show their head and their tail around an elision
 * mark (the end of a command, where `… && curl … | sh` hides, stays visible), and the
 * rules `a`/`A` would store take one row each, elided in the middle. `v` opens the
 * arguments in full in a scrollable view. See "Console input" in docs/design.md.
 */
import type { ToolCall } from '../engine/types.js';
import { argsText } from './ToolPanel.js';
import { clipEnd, clipStart, cellWidth, graphemes, sanitize, wrapCells } from './text.js';

/** The call's arguments as the prompt shows them (sanitized, tabs as two spaces). */
export function argsTextOf(call: Pick<ToolCall, 'name' | 'args'>, width: number): string {
  return sanitize(argsText(call.name, call.args, width)).replace(/\t/g, '  ');
}

/** The call's arguments in rows of at most `width` cells. */
export function argsRows(call: Pick<ToolCall, 'name' | 'args'>, width: number): string[] {
  return wrapCells(argsTextOf(call, width), width);
}

/** `text` in one row of `width` cells: whole if it fits, else its start and its end around ` … `. */
export function elideMiddle(text: string, width: number): string {
  if (cellWidth(text) <= width) return text;
  if (width <= 3) return clipStart(text, width);
  const head = Math.floor((width - 3) / 2);
  return `${clipEnd(text, head)} … ${clipStart(text, width - 3 - head)}`;
}

/** Rows of the arguments the prompt shows, and which of them is the elision mark (-1: none). */
export interface Elided {
  rows: string[];
  mark: number;
}

/**
 * At most `room` rows of `text` wrapped to `width` cells: all of them when they fit, else
 * the first rows, a mark saying how much is left out, and the last rows, which end where
 * the text ends (a long last line is shown by its end, after `…`). With one row, only the end.
 */
export function headAndTail(text: string, room: number, width: number): Elided {
  const rows = wrapCells(text, width);
  if (rows.length <= room) return { rows, mark: -1 };
  const tailCount = room >= 7 ? 2 : 1;
  const headCount = Math.max(0, room - tailCount - 1);
  const head = rows.slice(0, headCount);
  const lastLine = text.slice(text.lastIndexOf('\n') + 1);
  const tail = cellWidth(lastLine) <= width ? rows.slice(-tailCount) : wrapCells(`…${clipStart(lastLine, width * tailCount - 1)}`, width).slice(-tailCount);
  const shown = graphemes([...head, ...tail].join('')).length;
  const hidden = Math.max(1, graphemes(text.replace(/\n/g, '')).length - shown);
  if (room < 2) return { rows: tail.slice(-1), mark: -1 };
  const mark = `⋯ ${hidden.toLocaleString('en-US')} more character${hidden === 1 ? '' : 's'} · v shows all`;
  return { rows: [...head, mark, ...tail], mark: head.length };
}
