// The width a terminal draws text at, for tests: glibc 2.36's wcwidth (Debian 12), the table
// tmux 3.3a draws with, code point by code point, a combining mark on the cell before it.
// tests/fixtures/wcwidth-glibc-2.36.json lists the code points whose width is not 1.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const file = path.resolve(import.meta.dirname, '../fixtures/wcwidth-glibc-2.36.json');
const { ranges } = JSON.parse(readFileSync(file, 'utf8')) as { ranges: Array<[number, number, number]> };

/** glibc's wcwidth of one code point: 0, 1, 2, or -1 where its table does not know it. */
export function wcwidth(code: number): number {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [from, to, width] = ranges[middle]!;
    if (code < from) high = middle - 1;
    else if (code > to) low = middle + 1;
    else return width;
  }
  return 1;
}

/** Cells tmux 3.3a takes for `line` (no escape sequences): the sum of its code points' wcwidth, an unknown one as 1 (as tmux does). */
export function terminalWidth(line: string): number {
  let width = 0;
  for (const char of line) {
    const w = wcwidth(char.codePointAt(0)!);
    width += w < 0 ? 1 : w;
  }
  return width;
}
