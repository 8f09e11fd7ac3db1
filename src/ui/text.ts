/**
 * Terminal cell widths, for the few places the console lays text out itself (wrapping
 * tool arguments, counting rows). Ink measures what it draws on its own; this estimate
 * only decides how many rows to reserve, and every panel clips to its rows anyway.
 */

const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}/u;
const ZERO = /[\u0300-\u036f\u200b-\u200f\ufe00-\ufe0f]/u;

/** Cells one character takes: 2 for wide (CJK, most emoji), 0 for combining marks, else 1. */
export function charWidth(ch: string): number {
  if (ZERO.test(ch)) return 0;
  return WIDE.test(ch) ? 2 : 1;
}

/** Cells a string takes. */
export function cellWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += charWidth(ch);
  return width;
}

/** Splits text into rows of at most `width` cells: at line breaks, then hard at the width. */
export function wrapCells(text: string, width: number): string[] {
  const rows: string[] = [];
  const limit = Math.max(1, width);
  for (const line of text.split('\n')) {
    let row = '';
    let used = 0;
    for (const ch of line) {
      const w = charWidth(ch);
      if (used + w > limit) {
        rows.push(row);
        row = '';
        used = 0;
      }
      row += ch;
      used += w;
    }
    rows.push(row);
  }
  return rows;
}

/** Splits prose into rows of at most `width` cells at spaces; a word longer than a row is split. */
export function wrapWords(text: string, width: number): string[] {
  const limit = Math.max(1, width);
  const rows: string[] = [];
  for (const line of text.split('\n')) {
    let row = '';
    for (const word of line.split(' ')) {
      const candidate = row === '' ? word : `${row} ${word}`;
      if (cellWidth(candidate) <= limit) {
        row = candidate;
        continue;
      }
      if (row !== '') rows.push(row);
      const pieces = wrapCells(word, limit);
      row = pieces.pop() ?? '';
      rows.push(...pieces);
    }
    rows.push(row);
  }
  return rows;
}
