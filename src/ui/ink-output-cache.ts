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
// never mutates the cached characters (it puts them into its grid as they are). A line not
// seen before is tokenised unit by unit where its units are grapheme clusters by
// themselves (src/ui/tokenize-units.ts: the library's tokens without its segmenter). `get`
// itself is replaced by the same pass that takes a row's text from the frames before when
// the same lines were written into it ({@link fastGet}).
//
// Ink 6.8 is the last Ink for Node 20 (docs/stack.md), so the shape patched here is fixed;
// should it change, `installed` says so and tests/ui/ink-output-cache.test.tsx fails. That
// test also checks, frame by frame, that the text is the one Ink's own `get` makes.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { unitTokenizer, type AnsiTokenizeParts, type Token } from './tokenize-units.js';

/** An escape code as @alcalzone/ansi-tokenize keeps it in a character's styles. */
type AnsiCode = { type: 'ansi'; code: string; endCode: string };
/** A styled character as @alcalzone/ansi-tokenize makes it. */
type StyledChar = { type: 'char'; value: string; fullWidth: boolean; styles: AnsiCode[] };

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

/** What Ink's text pass uses of @alcalzone/ansi-tokenize (build/index.js), and what is used here besides. */
interface AnsiTokenize {
  styledCharsToString(chars: StyledChar[]): string;
  styledCharsFromTokens(tokens: Token[]): StyledChar[];
  ansiCodesToString(codes: readonly AnsiCode[]): string;
  diffAnsiCodes(from: readonly AnsiCode[], to: readonly AnsiCode[]): AnsiCode[];
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
function install(Output: OutputClass, tokenize: AnsiTokenize, parts: AnsiTokenizeParts): boolean {
  const probe = new Output({ width: 0, height: 0 });
  const caches = Object.getPrototypeOf(probe.caches) as OutputCaches | null;
  if (
    !caches ||
    typeof caches.getStyledChars !== 'function' ||
    typeof caches.getStringWidth !== 'function' ||
    typeof caches.getWidestLine !== 'function' ||
    typeof Output.prototype.get !== 'function' ||
    typeof tokenize.styledCharsToString !== 'function' ||
    typeof tokenize.styledCharsFromTokens !== 'function' ||
    typeof tokenize.ansiCodesToString !== 'function' ||
    typeof tokenize.diffAnsiCodes !== 'function' ||
    typeof parts.tokenize !== 'function' ||
    typeof parts.getEndCode !== 'function' ||
    !(parts.ESCAPES instanceof Set) ||
    typeof parts.linkCodePrefix !== 'string'
  ) {
    return false;
  }
  // Ink's `getStyledChars` is `styledCharsFromTokens(tokenize(line))`; the tokens are made
  // unit by unit where the line allows it (src/ui/tokenize-units.ts).
  const tokenizeLine = unitTokenizer(parts);
  const original = (line: string): StyledChar[] => tokenize.styledCharsFromTokens(tokenizeLine(line));
  const stringWidth = caches.getStringWidth;
  const widestLine = caches.getWidestLine;
  caches.getStyledChars = function (this: OutputCaches, line: string): StyledChar[] {
    let chars = styled.get(line);
    if (chars !== undefined) {
      styled.delete(line); // drawn again: to the end of the order
      styled.set(line, chars);
      return chars;
    }
    chars = original(line);
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

/**
 * Texts of rows by what was written into them: the row's width, then each line written
 * into it with its column, in the order written. The cells of a row, and so its text, are
 * a function of exactly that, so a row drawn as it was in a recent frame (unchanged, or
 * moved up or down, or shown again after an overlay closed) takes its text from here. Least
 * recently drawn let go first past {@link MAX_ROWS}.
 */
const rowTexts = new Map<string, string>();
/** Rows whose text is kept: some 25 frames of 120x40. */
const MAX_ROWS = 1_000;

function keepRow(key: string, text: string): void {
  rowTexts.set(key, text);
  if (rowTexts.size > MAX_ROWS) rowTexts.delete(rowTexts.keys().next().value!);
}

/** Whether two cells' styles are the same codes (then no code is written between them). */
function sameStyles(a: readonly AnsiCode[], b: readonly AnsiCode[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.code !== b[i]!.code || a[i]!.endCode !== b[i]!.endCode) return false;
  return true;
}

/**
 * `styledCharsToString` of @alcalzone/ansi-tokenize (0.2.5), the same text: it writes the
 * codes that change the style from one cell to the next (`diffAnsiCodes`), which are none
 * when both cells have the same codes, so that case is told without computing the change.
 */
function cellsToString(cells: readonly StyledChar[], tokenize: AnsiTokenize): string {
  let text = '';
  let previous: readonly AnsiCode[] = [];
  for (let i = 0; i < cells.length; i++) {
    const { styles, value } = cells[i]!;
    if (i === 0) text += tokenize.ansiCodesToString(styles);
    else if (!sameStyles(previous, styles)) text += tokenize.ansiCodesToString(tokenize.diffAnsiCodes(previous, styles));
    text += value;
    previous = styles;
  }
  if (cells.length > 0) text += tokenize.ansiCodesToString(tokenize.diffAnsiCodes(previous, []));
  return text;
}

/**
 * Ink's `Output.get` (ink 6.8, build/output.js), the same text from the same operations,
 * doing less: the lines written are first sorted into the rows they land on; a row written
 * as in a recent frame takes its text from {@link rowTexts}, and only the others are made
 * cell by cell (starting from one shared empty cell). A frame that clips a box sideways is
 * left to Ink's own `get` (the console clips rows only).
 */
function fastGet(this: OutputState, original: (this: OutputState) => { output: string; height: number }, tokenize: AnsiTokenize): { output: string; height: number } {
  const clipsSideways = this.operations.some((op) => op.type === 'clip' && typeof op.clip.x1 === 'number' && typeof op.clip.x2 === 'number');
  if (clipsSideways) return original.call(this);
  // Per row: the lines written into it, as [column, line, column, line, ...] in the order written.
  const writes: Array<Array<number | string>> = [];
  for (let y = 0; y < this.height; y++) writes.push([]);
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
      const row = writes[y + offsetY];
      // As in Ink: a line past the rows is skipped without moving down.
      if (!row) continue;
      for (const transformer of transformers) line = transformer(line, index);
      row.push(x, line);
      offsetY++;
    }
  }
  const texts: string[] = [];
  for (const row of writes) {
    if (row.length === 0) {
      texts.push('');
      continue;
    }
    // The width, then each column and line with the line's length: no two rows share a key.
    let key = String(this.width);
    for (let i = 0; i < row.length; i += 2) key += `|${row[i] as number}:${(row[i + 1] as string).length}:${row[i + 1] as string}`;
    let text = rowTexts.get(key);
    if (text !== undefined) {
      rowTexts.delete(key); // drawn again: to the end of the order
      rowTexts.set(key, text);
    } else {
      text = cellsToString(rowCells.call(this, row), tokenize).trimEnd();
      keepRow(key, text);
    }
    texts.push(text);
  }
  return { output: texts.join('\n'), height: this.height };
}

/** The cells of one row as Ink's `get` fills them: `row` holds the lines written into it, as [column, line, ...]. */
function rowCells(this: OutputState, row: ReadonlyArray<number | string>): StyledChar[] {
  const cells = new Array<StyledChar>(this.width).fill(BLANK);
  for (let i = 0; i < row.length; i += 2) {
    let offsetX = row[i] as number;
    for (const character of this.caches.getStyledChars(row[i + 1] as string)) {
      cells[offsetX] = character;
      const width = Math.max(1, this.caches.getStringWidth(character.value));
      for (let k = 1; k < width; k++) cells[offsetX + k] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
      offsetX += width;
    }
  }
  return cells.filter((cell) => cell !== undefined);
}

const require = createRequire(import.meta.url);
const inkDir = path.dirname(require.resolve('ink'));
const { default: Output } = (await import(pathToFileURL(path.join(inkDir, 'output.js')).href)) as { default: OutputClass };
// @alcalzone/ansi-tokenize as Ink resolves it (a dependency of Ink's, not of loopdeck's).
const tokenizeDir = path.dirname(createRequire(path.join(inkDir, 'output.js')).resolve('@alcalzone/ansi-tokenize/package.json'));
const tokenize = (await import(pathToFileURL(path.join(tokenizeDir, 'build', 'index.js')).href)) as AnsiTokenize & { tokenize: AnsiTokenizeParts['tokenize'] };
const ansiCodes = (await import(pathToFileURL(path.join(tokenizeDir, 'build', 'ansiCodes.js')).href)) as Omit<AnsiTokenizeParts, 'tokenize'>;

/** Whether Ink's text pass now keeps its caches across frames (false: Ink's shape was not the one expected, and it runs as shipped). */
export const installed: boolean = install(Output, tokenize, { ...ansiCodes, tokenize: tokenize.tokenize });
