/**
 * Terminal cell widths, for the places the console lays text out itself (wrapping tool
 * arguments, eliding a long command, counting rows, scrolling the command line). They
 * measure with `string-width`, the function Ink measures and truncates with, one grapheme
 * cluster at a time (a family emoji, a flag, a letter with its combining marks is one
 * cluster and is never split), so a row the console cuts is as wide as Ink thinks it is.
 *
 * Terminals draw some text at another width than string-width measures (joined emoji,
 * emoji with a presentation selector, invisible and filler characters, some spacing
 * clusters): the frame then outgrows what Ink measured and leaves a copy in the scrollback
 * on every redraw. {@link sanitize} here puts untrusted text in a form every terminal draws
 * at the width measured (src/ui/screen-form.ts). See "Width, the cursor, suspend and
 * colour" in docs/design.md.
 */
import { sanitize as sanitizeText } from '../text/sanitize.js';
import { screenForm } from './screen-form.js';
import { cellWidthOf, clustersOf, segmentClusters, unitsAreClusters, unitWidth } from './unit-clusters.js';

export { screenForm, splitJoinedEmoji } from './screen-form.js';

/**
 * The grapheme clusters of `text`, in order (what a person sees as one character). Text
 * whose units are clusters by themselves is split into its units without the segmenter
 * (the same result, src/ui/unit-clusters.ts).
 */
export function graphemes(text: string): string[] {
  if (unitsAreClusters(text)) return text.split('');
  return segmentClusters(text);
}

/** Cells a string takes, as Ink measures it (string-width; the same number, src/ui/unit-clusters.ts). */
export function cellWidth(text: string): number {
  return cellWidthOf(text);
}

/**
 * Spaces other than U+0020 (no-break, em, ideographic, ...): drawn as blanks, but a shell
 * does not split words at them, so `ls<NBSP>-la` is one word that only looks like two.
 */
const OTHER_SPACE = /(?! )\p{Zs}/gu;

/** `text` with every space other than U+0020 escaped (`\u{a0}`), as the sanitizer escapes what is invisible. */
export function withOtherSpaces(text: string): string {
  return text.replace(OTHER_SPACE, (space) => `\\u{${space.codePointAt(0)!.toString(16)}}`);
}

/**
 * Untrusted text made safe for the console's frame: {@link sanitizeText} (no control
 * character reaches the terminal, shown as `^X` or `\u{…}`) then {@link screenForm} (no
 * invisible character, and every cluster drawn at the width Ink measures, in every
 * terminal). The one way text from the agent, a tool, a file or the operator reaches a row.
 */
export function sanitize(text: string, options: { oneLine?: boolean } = {}): string {
  return screenForm(sanitizeText(text, options));
}

/**
 * How the sanitizers show what must not be drawn: `^[` for a C0 control, `\u{200b}` for
 * the rest (src/text/sanitize.ts, src/ui/screen-form.ts). A row or a cut never splits one,
 * so no row starts `[]52;…` or `200b}`.
 */
const ESCAPE_FORM = /\^[@-_]|\\u\{[0-9a-f]{1,6}\}/g;

const mayHoldEscape = (text: string) => text.includes('^') || text.includes('\\');

/** `cut` (an index into `text`) moved out of an escape form it falls inside: to its start (`back`) or its end. */
function outsideEscape(text: string, cut: number, back: boolean): number {
  if (!mayHoldEscape(text)) return cut;
  // An escape form is at most 10 characters (`\u{10ffff}`): look only around the cut.
  const from = Math.max(0, cut - 10);
  for (const m of text.slice(from, cut + 10).matchAll(ESCAPE_FORM)) {
    const start = from + m.index;
    const end = start + m[0].length;
    if (start < cut && cut < end) return back ? start : end;
  }
  return cut;
}

/** The clusters of a line, with each escape form (`^[`, `\u{200b}`) as one piece. */
function pieces(line: string): string[] {
  if (!mayHoldEscape(line)) return graphemes(line);
  const out: string[] = [];
  let last = 0;
  for (const m of line.matchAll(ESCAPE_FORM)) {
    if (m.index > last) out.push(...graphemes(line.slice(last, m.index)));
    out.push(m[0]);
    last = m.index + m[0].length;
  }
  if (last < line.length) out.push(...graphemes(line.slice(last)));
  return out;
}

/** The longest start of `text` that fits in `width` cells (whole clusters and escape forms only). */
export function clipEnd(text: string, width: number): string {
  const start = clipEndRaw(text, width);
  return start.length === text.length ? start : text.slice(0, outsideEscape(text, start.length, true));
}

function clipEndRaw(text: string, width: number): string {
  if (unitsAreClusters(text)) {
    // One unit, one cluster: count cells unit by unit up to the cut, the rest is not looked at.
    let used = 0;
    for (let i = 0; i < text.length; i++) {
      used += unitWidth(text.charCodeAt(i));
      if (used > width) return text.slice(0, i);
    }
    return text;
  }
  let out = '';
  let used = 0;
  // Cluster by cluster, stopping at the cut (a long text is not split to its end).
  for (const g of clustersOf(text)) {
    const w = cellWidth(g);
    if (used + w > width) break;
    out += g;
    used += w;
  }
  return out;
}

/** The longest end of `text` that fits in `width` cells (whole clusters and escape forms only). */
export function clipStart(text: string, width: number): string {
  const clusters = graphemes(text);
  let out = '';
  let used = 0;
  for (let i = clusters.length - 1; i >= 0; i--) {
    const w = cellWidth(clusters[i]!);
    if (used + w > width) break;
    out = clusters[i]! + out;
    used += w;
  }
  return out.length === text.length ? out : text.slice(outsideEscape(text, text.length - out.length, false));
}

/** `text` cut to `width` cells, with `…` where it was cut. */
export function truncateCells(text: string, width: number): string {
  if (cellWidth(text) <= width) return text;
  return width <= 0 ? '' : `${clipEnd(text, width - 1)}…`;
}

/** Splits text into rows of at most `width` cells: at line breaks, then hard at the width (never inside a cluster or an escape form such as `^[`). */
export function wrapCells(text: string, width: number): string[] {
  const rows: string[] = [];
  const limit = Math.max(1, width);
  for (const line of text.split('\n')) {
    let row = '';
    let used = 0;
    for (const g of pieces(line)) {
      const w = cellWidth(g);
      if (used + w > limit && row !== '') {
        rows.push(row);
        row = '';
        used = 0;
      }
      row += g;
      used += w;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * One line in rows of at most `width` cells that join back to the line exactly: rows meant
 * to be shown from the first column with nothing inserted before them, so text copied
 * from the terminal over several rows is the text (a path or a command is not broken by an
 * indent). No row but the last ends in a space (terminals drop trailing blanks on copy):
 * a space where a row would end starts the next row instead.
 */
export function wrapJoinable(line: string, width: number): string[] {
  const limit = Math.max(2, width);
  const rows: string[][] = [];
  let row: string[] = [];
  let used = 0;
  for (const g of pieces(line)) {
    const w = cellWidth(g);
    if (used + w > limit && row.length > 0) {
      // Blanks at the end of the full row move to the start of the next one.
      const carried: string[] = [];
      while (row.length > 1 && row.at(-1) === ' ') carried.unshift(row.pop()!);
      rows.push(row);
      row = carried;
      used = carried.length;
      // A row of blanks only as wide as the limit: it has to end somewhere.
      if (used + w > limit) {
        rows.push(row);
        row = [];
        used = 0;
      }
    }
    row.push(g);
    used += w;
  }
  rows.push(row);
  return rows.map((r) => r.join(''));
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
