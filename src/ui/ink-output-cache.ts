// Ink's text pass keeps its caches across frames.
//
// Ink 6 turns the laid-out tree into text in `Output.get` (ink/build/output.js): every
// line written is tokenised into styled characters and every character measured with
// `string-width`. Its caches (`OutputCaches`: styled characters per line, width per text)
// belong to one `Output`, and Ink makes a new `Output` for every frame, so each frame pays
// again for lines that have not changed; at 120x40 that was most of a frame's ~15 ms
// (bench/README.md, "What it took"). Here the three cache methods of `OutputCaches` are
// replaced by ones that share their entries across frames: widths of texts, and the styled
// characters of the lines drawn most recently (least recently drawn let go first, so memory
// stays at a few frames' worth). The results are the same functions of the same input; Ink
// never mutates the cached characters (it puts them into its grid as they are). `get`
// itself is replaced by the same pass that reuses the text of a row whose cells are those
// of the frame before ({@link fastGet}).
//
// Ink 6.8 is the last Ink for Node 20 (PITFALLS.md), so the shape patched here is fixed;
// should it change, `installed` says so and tests/ui/ink-output-cache.test.tsx fails. That
// test also checks, frame by frame, that the text is the one Ink's own `get` makes.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A styled character as @alcalzone/ansi-tokenize makes it (opaque here). */
type StyledChar = { type: 'char'; value: string; fullWidth: boolean; styles: unknown[] };

/** The methods of Ink's `OutputCaches` replaced here. */
interface OutputCaches {
  getStyledChars(line: string): StyledChar[];
  getStringWidth(text: string): number;
  getWidestLine(text: string): number;
}

/** One of the operations Ink's `Output` records while the tree is drawn into it. */
type Operation =
  | { type: 'write'; x: number; y: number; text: string; transformers: Array<(line: string, index: number) => string> }
  | { type: 'clip'; clip: { x1?: number; x2?: number; y1?: number; y2?: number } }
  | { type: 'unclip' };

/** What `Output.get` reads of its instance. */
interface OutputState {
  width: number;
  height: number;
  operations: Operation[];
  caches: OutputCaches;
}

interface OutputClass {
  new (options: { width: number; height: number }): OutputState;
  prototype: { get(this: OutputState): { output: string; height: number } };
}

/** What Ink's text pass uses of @alcalzone/ansi-tokenize. */
interface AnsiTokenize {
  styledCharsToString(chars: StyledChar[]): string;
}

/** Widths kept across frames; past this many distinct texts the map starts afresh. */
const MAX_WIDTHS = 20_000;
/**
 * Characters of styled lines kept across frames, least recently drawn let go first:
 * about six frames of 120x40, some 3 MB (a styled character is an object of ~100 bytes).
 */
const MAX_STYLED = 30_000;

/** Styled characters by line, in the order last drawn (a Map keeps insertion order). */
const styled = new Map<string, StyledChar[]>();
let styledChars = 0;
const widths = new Map<string, number>();
const widest = new Map<string, number>();

function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_WIDTHS) map.clear();
  map.set(key, value);
  return value;
}

/** Keeps `chars` as the line drawn last, and lets go of the least recently drawn lines past {@link MAX_STYLED}. */
function keepStyled(line: string, chars: StyledChar[]): void {
  styled.set(line, chars);
  styledChars += chars.length;
  for (const [old, oldChars] of styled) {
    if (styledChars <= MAX_STYLED) break;
    styled.delete(old);
    styledChars -= oldChars.length;
  }
}

/**
 * Replaces the cache methods of Ink's `OutputCaches` with frame-spanning ones.
 * @returns whether Ink's `Output` had the expected shape (false: nothing was changed)
 */
function install(Output: OutputClass, tokenize: AnsiTokenize): boolean {
  const probe = new Output({ width: 0, height: 0 });
  const caches = Object.getPrototypeOf(probe.caches) as OutputCaches | null;
  if (
    !caches ||
    typeof caches.getStyledChars !== 'function' ||
    typeof caches.getStringWidth !== 'function' ||
    typeof caches.getWidestLine !== 'function' ||
    typeof Output.prototype.get !== 'function' ||
    typeof tokenize.styledCharsToString !== 'function'
  ) {
    return false;
  }
  const original = caches.getStyledChars;
  const stringWidth = caches.getStringWidth;
  const widestLine = caches.getWidestLine;
  caches.getStyledChars = function (this: OutputCaches, line: string): StyledChar[] {
    let chars = styled.get(line);
    if (chars !== undefined) {
      styled.delete(line); // drawn again: to the end of the order
      styled.set(line, chars);
      return chars;
    }
    chars = original.call(this, line);
    keepStyled(line, chars);
    return chars;
  };
  caches.getStringWidth = function (this: OutputCaches, text: string): number {
    return widths.get(text) ?? remember(widths, text, stringWidth.call(this, text));
  };
  caches.getWidestLine = function (this: OutputCaches, text: string): number {
    return widest.get(text) ?? remember(widest, text, widestLine.call(this, text));
  };
  const get = Output.prototype.get;
  Output.prototype.get = function (this: OutputState) {
    return fastGet.call(this, get, tokenize);
  };
  return true;
}

/** The empty cell every row starts with (Ink makes a new one per cell and frame; none is ever changed). */
const BLANK: StyledChar = { type: 'char', value: ' ', fullWidth: false, styles: [] };

/** The rows of the last frame drawn: their cells, and the text made of them. */
let lastRows: Array<{ cells: StyledChar[]; text: string }> = [];

function sameCells(a: readonly StyledChar[], b: readonly StyledChar[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Ink's `Output.get` (ink 6.8, build/output.js), the same text from the same operations,
 * doing less: every row starts with one shared empty cell, and a row whose cells are the
 * very ones of the same row in the frame before (unchanged lines give the same cached
 * cells) reuses that row's text instead of making it again. A frame that clips a box
 * sideways is left to Ink's own `get` (the console clips rows only).
 */
function fastGet(this: OutputState, original: (this: OutputState) => { output: string; height: number }, tokenize: AnsiTokenize): { output: string; height: number } {
  const clipsSideways = this.operations.some((op) => op.type === 'clip' && typeof op.clip.x1 === 'number' && typeof op.clip.x2 === 'number');
  if (clipsSideways) return original.call(this);
  const output: StyledChar[][] = [];
  for (let y = 0; y < this.height; y++) output.push(new Array<StyledChar>(this.width).fill(BLANK));
  const clips: Array<{ y1?: number; y2?: number }> = [];
  for (const operation of this.operations) {
    if (operation.type === 'clip') clips.push(operation.clip);
    if (operation.type === 'unclip') clips.pop();
    if (operation.type !== 'write' || !operation.text) continue;
    const { text, transformers } = operation;
    let { y } = operation;
    const { x } = operation;
    let lines = text.split('\n');
    const clip = clips.at(-1);
    if (clip && typeof clip.y1 === 'number' && typeof clip.y2 === 'number') {
      if (y + lines.length < clip.y1 || y > clip.y2) continue;
      const from = y < clip.y1 ? clip.y1 - y : 0;
      const to = y + lines.length > clip.y2 ? clip.y2 - y : lines.length;
      lines = lines.slice(from, to);
      if (y < clip.y1) y = clip.y1;
    }
    let offsetY = 0;
    for (let [index, line] of lines.entries()) {
      const row = output[y + offsetY];
      // As in Ink: a line past the rows is skipped without moving down.
      if (!row) continue;
      for (const transformer of transformers) line = transformer(line, index);
      let offsetX = x;
      for (const character of this.caches.getStyledChars(line)) {
        row[offsetX] = character;
        const width = Math.max(1, this.caches.getStringWidth(character.value));
        for (let i = 1; i < width; i++) row[offsetX + i] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
        offsetX += width;
      }
      offsetY++;
    }
  }
  const rows = output.map((row, y) => {
    const cells = row.filter((cell) => cell !== undefined);
    const last = lastRows[y];
    return last && sameCells(last.cells, cells) ? last : { cells, text: tokenize.styledCharsToString(cells).trimEnd() };
  });
  lastRows = rows;
  return { output: rows.map((row) => row.text).join('\n'), height: output.length };
}

const require = createRequire(import.meta.url);
const inkDir = path.dirname(require.resolve('ink'));
const { default: Output } = (await import(pathToFileURL(path.join(inkDir, 'output.js')).href)) as { default: OutputClass };
// @alcalzone/ansi-tokenize as Ink resolves it (a dependency of Ink's, not of loopdeck's).
const tokenizeDir = path.dirname(createRequire(path.join(inkDir, 'output.js')).resolve('@alcalzone/ansi-tokenize/package.json'));
const tokenize = (await import(pathToFileURL(path.join(tokenizeDir, 'build', 'index.js')).href)) as AnsiTokenize;

/** Whether Ink's text pass now keeps its caches across frames (false: Ink's shape was not the one expected, and it runs as shipped). */
export const installed: boolean = install(Output, tokenize);
