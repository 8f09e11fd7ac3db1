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
// never mutates the cached characters (it puts them into its grid as they are).
//
// Ink 6.8 is the last Ink for Node 20 (PITFALLS.md), so the shape patched here is fixed;
// should it change, `installed` says so and tests/ui/ink-output-cache.test.ts fails.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A styled character as @alcalzone/ansi-tokenize makes it (opaque here). */
type StyledChar = { value: string };

/** The methods of Ink's `OutputCaches` replaced here. */
interface OutputCaches {
  getStyledChars(line: string): StyledChar[];
  getStringWidth(text: string): number;
  getWidestLine(text: string): number;
}

interface OutputClass {
  new (options: { width: number; height: number }): { caches: OutputCaches };
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
function install(Output: OutputClass): boolean {
  const probe = new Output({ width: 0, height: 0 });
  const caches = Object.getPrototypeOf(probe.caches) as OutputCaches | null;
  if (
    !caches ||
    typeof caches.getStyledChars !== 'function' ||
    typeof caches.getStringWidth !== 'function' ||
    typeof caches.getWidestLine !== 'function'
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
  return true;
}

const require = createRequire(import.meta.url);
const outputModule = pathToFileURL(path.join(path.dirname(require.resolve('ink')), 'output.js')).href;
const { default: Output } = (await import(outputModule)) as { default: OutputClass };

/** Whether Ink's text pass now keeps its caches across frames (false: Ink's shape was not the one expected, and it runs as shipped). */
export const installed: boolean = install(Output);
