// The window a one-line field shows of a text wider than itself (src/ui/line-viewport.ts):
// swept over texts (ASCII, CJK, emoji, mixed), field widths and every caret move the
// field knows (left, right, Home, End, typing, Backspace, Ctrl+W), both directions. After
// every step: the caret is on a character shown (or the blank cell after the last one),
// never under a `…`; what is shown fits the field; the window moved only if the caret went
// past one of its edges or the text changed; no cells are left empty on the right (but the
// one kept for the caret) while text is hidden on the left.
import { describe, expect, test } from 'vitest';
import { edit, insert, lineOf, type LineState } from '../../src/ui/line-editor.js';
import { lineWindow, LineViewport, type LineWindow } from '../../src/ui/line-viewport.js';
import type { ConsoleCommand } from '../../src/ui/keymap.js';
import { cellWidth, graphemes } from '../../src/ui/text.js';

/** The field's view of a line: the window and the cells of its clusters. */
const widthsOf = new Map<string, number[]>();
function view(viewport: LineViewport, line: LineState, room: number): { shown: LineWindow; widths: number[] } {
  let widths = widthsOf.get(line.text);
  if (!widths) widthsOf.set(line.text, (widths = graphemes(line.text).map(cellWidth)));
  const cells = widths;
  return { shown: viewport.window((i) => cells[i]!, cells.length, line.cursor, room), widths: cells };
}

const sum = (widths: number[], from: number, to: number) => widths.slice(from, to).reduce((a, b) => a + b, 0);

/** Checks what must hold of any window; returns a description of the first thing that does not. */
function broken(shown: LineWindow, widths: number[], cursor: number, room: number): string | null {
  const count = widths.length;
  const { first, end, before, after, caret } = shown;
  if (!(first >= 0 && first <= end && end <= count)) return `window ${first}..${end} outside 0..${count}`;
  if (before !== first > 0) return `before mark ${before} with first ${first}`;
  if (after !== end < count) return `after mark ${after} with end ${end} of ${count}`;
  if (cursor < first) return `caret ${cursor} left of the window ${first}..${end}`;
  if (cursor < count ? cursor >= end : end !== count) return `caret ${cursor} right of the window ${first}..${end}`;
  const cells = (before ? 1 : 0) + sum(widths, first, end) + (after ? 1 : 0) + (cursor === count ? 1 : 0);
  if (cells > room) return `${cells} cells drawn in a field of ${room}`;
  if (caret !== (before ? 1 : 0) + sum(widths, first, cursor)) return `caret column ${caret}, the caret's cluster is at ${(before ? 1 : 0) + sum(widths, first, cursor)}`;
  if (before && caret === 0) return 'caret under the … before';
  if (after && caret >= cells - 1) return 'caret under the … after';
  // Nothing hidden on the right: the left shows all that fits (the last cell kept for the caret).
  if (!after && before && (first - 1 === 0 ? 0 : 1) + sum(widths, first - 1, count) + 1 <= room) return `cells left empty: cluster ${first - 1} would fit`;
  return null;
}

const TEXTS: Record<string, string> = {
  ascii: `goal add-constraint ${'abcdefghij'.repeat(10)}`,
  cjk: `goal add-constraint 名前を保つ${'漢字テスト한국어'.repeat(6)} end`,
  emoji: `${'🚀x'.repeat(20)}名${'y'.repeat(30)}`,
  mixed: `/goal redirect a${'名'.repeat(3)}b${'ab名前'.repeat(12)}🇯🇵 é${'z'.repeat(40)}`,
  short: '/goal status',
};
const ROOMS = [4, 5, 6, 7, 9, 12, 17, 38, 40, 76, 78];

/** Key presses the sweep makes: `moves` then back, with edits in between. */
function script(count: number): ConsoleCommand[] {
  const keys: ConsoleCommand[] = ['cursor-end'];
  for (let i = 0; i < count + 2; i++) keys.push('cursor-left');
  for (let i = 0; i < count + 2; i++) keys.push('cursor-right');
  keys.push('cursor-home');
  for (let i = 0; i < Math.min(count, 30); i++) keys.push('cursor-right');
  keys.push('cursor-end', 'delete-back', 'delete-back', 'delete-word', 'cursor-left', 'cursor-left', 'delete-back', 'cursor-home', 'cursor-end');
  for (let i = 0; i < 12; i++) keys.push('cursor-left');
  keys.push('delete-word', 'delete-back');
  return keys;
}

describe('the window of a field', () => {
  test.each(Object.entries(TEXTS))('%s text, every room, every move: the caret on a character shown, the window still unless the caret passed an edge', (_, text) => {
    for (const room of ROOMS) {
      const viewport = new LineViewport();
      let line = lineOf('');
      let last: { shown: LineWindow; text: string } | null = null;
      const step = (next: LineState, what: string) => {
        line = next;
        const { shown, widths } = view(viewport, line, room);
        const where = () => `${what}, room ${room}, caret ${line.cursor} of ${widths.length}, text ${JSON.stringify(line.text)}`;
        const problem = broken(shown, widths, line.cursor, room);
        if (problem) expect.fail(`${problem}: ${where()}`);
        // The same line asked for again (another part of the frame) gets the same window.
        const again = view(viewport, line, room).shown;
        if (JSON.stringify(again) !== JSON.stringify(shown)) expect(again, where()).toEqual(shown);
        if (last && last.text === line.text) {
          const inside = line.cursor >= last.shown.first && (line.cursor < last.shown.end || (line.cursor === widths.length && last.shown.end === widths.length));
          // Inside the window: it holds still. Past an edge: it moves only as far as the caret went
          // (a `…` would stand in for one narrow character only: that character shows instead).
          const want = inside ? last.shown.first : line.cursor < last.shown.first ? (line.cursor === 1 && widths[0]! <= 1 ? 0 : line.cursor) : null;
          if (want !== null && shown.first !== want) expect.fail(`window at ${shown.first}, want ${want} (was ${last.shown.first}..${last.shown.end}): ${where()}`);
          if (want === null && !(shown.first > last.shown.first)) expect.fail(`past the right edge, the window did not move right: ${where()}`);
        }
        last = { shown, text: line.text };
      };
      // Typed one character at a time.
      for (const char of graphemes(text)) step(insert(line, char), `typing ${JSON.stringify(char)}`);
      for (const key of script(graphemes(text).length)) step(edit(line, key), key);
    }
  });

  test('80 columns, the bar (78 cells after "› "): End, then Left: the caret stays on the last letter, then walks left without scrolling', () => {
    const text = `goal add-constraint ${'abcdefghij'.repeat(10)}`;
    const viewport = new LineViewport();
    const at = (cursor: number) => view(viewport, { text, cursor }, 78).shown;
    const count = text.length;
    // End: `…`, 76 letters, the caret's blank cell.
    expect(at(count)).toEqual({ first: count - 76, end: count, before: true, after: false, caret: 77 });
    // One Left: on the last letter, the window where it was.
    expect(at(count - 1)).toEqual({ first: count - 76, end: count, before: true, after: false, caret: 76 });
    expect(at(count - 2)).toEqual({ first: count - 76, end: count, before: true, after: false, caret: 75 });
    // At the left edge (just after the `…`), one more Left scrolls by one: a `…` on the right now.
    expect(at(count - 76)).toMatchObject({ first: count - 76, caret: 1 });
    expect(at(count - 77)).toEqual({ first: count - 77, end: count - 1, before: true, after: true, caret: 1 });
  });

  test('Home then Right: the window starts at the text and scrolls only once the caret reaches the `…` on the right', () => {
    const text = 'x'.repeat(30);
    const viewport = new LineViewport();
    const at = (cursor: number) => view(viewport, { text, cursor }, 10).shown;
    expect(at(30).first).toBe(22);
    // Home: the start, nine letters and a `…`.
    expect(at(0)).toEqual({ first: 0, end: 9, before: false, after: true, caret: 0 });
    for (let cursor = 1; cursor < 9; cursor++) expect(at(cursor)).toEqual({ first: 0, end: 9, before: false, after: true, caret: cursor });
    // Onto the `…`: the window scrolls to end just after the caret (a `…` on the left too now).
    expect(at(9)).toEqual({ first: 2, end: 10, before: true, after: true, caret: 8 });
  });

  test('wide characters: a 2-cell character is never cut, and the caret on it is on its first cell', () => {
    const widths = Array.from({ length: 20 }, () => 2);
    for (let cursor = 0; cursor <= 20; cursor++) {
      const shown = lineWindow((i) => widths[i]!, 20, cursor, 9, 0);
      expect(broken(shown, widths, cursor, 9), `caret ${cursor}`).toBeNull();
    }
  });

  test('the cost follows the field, not the text: a 60,000-character line asks for the widths of the clusters near the window only', () => {
    const asked = new Set<number>();
    const width = (i: number) => {
      asked.add(i);
      return 1;
    };
    const viewport = new LineViewport();
    viewport.window(width, 60_000, 60_000, 78);
    viewport.window(width, 60_000, 30_000, 78);
    expect(asked.size).toBeLessThan(400);
  });

  test('Home in the command bar (the caret just after the "/"): the "/" shows, not a "…" in its place', () => {
    const text = `/goal add-constraint ${'x'.repeat(100)}`;
    const viewport = new LineViewport();
    const at = (cursor: number) => view(viewport, { text, cursor }, 38).shown;
    expect(at(text.length).first).toBeGreaterThan(1);
    expect(at(1)).toEqual({ first: 0, end: 37, before: false, after: true, caret: 1 });
  });

  test('a field too narrow for a character and two `…` shows the caret\'s character alone', () => {
    expect(lineWindow(() => 2, 10, 5, 3, 0)).toEqual({ first: 5, end: 6, before: false, after: false, caret: 0 });
  });
});
