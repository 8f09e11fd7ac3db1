// Text whose every UTF-16 unit is a grapheme cluster by itself, told without segmenting it.
//
// `string-width` and Ink's text pass (@alcalzone/ansi-tokenize) split every string into
// grapheme clusters with `Intl.Segmenter`, which on Node 20 costs about 1 µs a cluster: a
// 120-cell row with one `·` or `─` in it takes ~90 µs to measure (an ASCII-only row ~1 µs,
// being a fast path of string-width's), and a frame measures each row several times.
// Most text the console draws is printable ASCII plus a few characters such as `─ │ · … ›
// ░ █` and CJK, each of which is a cluster by itself. For such text the clusters are its
// units, so the work per cluster can be done per unit, with each unit's facts (its width)
// asked of the library once and kept.
//
// A unit is a cluster by itself next to any other such unit when it is neither joined to
// the unit before it nor to the one after it (Unicode UAX #29): not Extend, ZWJ,
// SpacingMark or Prepend (told here by asking the segmenter once whether `a<unit>a` is
// three clusters), not CR (CR LF is one cluster), not a Hangul jamo or syllable (those join
// each other), and not half of a surrogate pair (emoji, regional-indicator flags). Pairs
// of the remaining kinds (Other, Control, LF) always break (rule GB999).
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Per UTF-16 unit: 0 not yet asked, 1 a cluster by itself, 2 may join a neighbour. */
const kinds = new Uint8Array(0x10000);
/** Per UTF-16 unit: its width in cells as string-width measures it alone, or -1 when not yet asked. */
const widths = new Int8Array(0x10000).fill(-1);

function isHangul(code: number): boolean {
  return (code >= 0x1100 && code <= 0x11ff) || (code >= 0xa960 && code <= 0xa97f) || (code >= 0xac00 && code <= 0xd7ff);
}

function classify(code: number): 1 | 2 {
  if (code === 0x0d || (code >= 0xd800 && code <= 0xdfff) || isHangul(code)) return 2;
  let clusters = 0;
  for (const _ of segmenter.segment(`a${String.fromCharCode(code)}a`)) clusters += 1;
  return clusters === 3 ? 1 : 2;
}

/**
 * Whether every UTF-16 unit of `text` is a grapheme cluster by itself (then
 * `Intl.Segmenter` would give its units one by one). Printable ASCII, box drawing, most
 * punctuation and symbols, CJK ideographs and control characters are; combining marks,
 * joiners, emoji (surrogate pairs), Hangul jamo and CR are not.
 */
export function unitsAreClusters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) continue;
    let kind = kinds[code]!;
    if (kind === 0) kind = kinds[code] = classify(code);
    if (kind !== 1) return false;
  }
  return true;
}

/** UTF-16 units of the piece of text handed to the segmenter at a time. */
const PIECE = 256;

/**
 * The grapheme clusters of `text`, as `Intl.Segmenter` gives them, one piece at a time.
 * V8 (Node 20) copies the whole input into every segment it hands out, so segmenting a long
 * text at once takes time and memory quadratic in its length (a 35,000-character text of
 * short clusters: seconds and gigabytes). Each piece is about {@link PIECE} units: its
 * clusters but the last are given, and the next piece starts where that last one started
 * (it may go on past the piece's end; a piece never ends inside a surrogate pair). A
 * boundary inside a piece depends only on the text before it back to the start of its
 * cluster and the one character after it (UAX #29; regional
 * indicators pair up from a cluster boundary), so the clusters are those of the whole text,
 * whatever the text: runs of marks, emoji, Thai, Hangul jamo. A cluster longer than a piece
 * (a letter under thousands of marks) is segmented in pieces twice as long until it ends.
 */
export function* clustersOf(text: string): Generator<string> {
  let start = 0;
  let size = PIECE;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    // Never between the two halves of a surrogate pair: the piece's last character is whole.
    const last0 = text.charCodeAt(end - 1);
    if (end < text.length && last0 >= 0xd800 && last0 <= 0xdbff) end += 1;
    if (end === text.length) {
      for (const s of segmenter.segment(text.slice(start))) yield s.segment;
      return;
    }
    // Every cluster of the piece but the last, which may go on after the piece's end.
    let last = '';
    let given = 0;
    for (const s of segmenter.segment(text.slice(start, end))) {
      if (last !== '') {
        yield last;
        given += last.length;
      }
      last = s.segment;
    }
    if (given === 0) {
      size *= 2;
      continue;
    }
    start += given;
    size = PIECE;
  }
}

/** {@link clustersOf} as a list. */
export function segmentClusters(text: string): string[] {
  if (text.length <= PIECE) return Array.from(segmenter.segment(text), (s) => s.segment);
  return Array.from(clustersOf(text));
}

/** The cells the UTF-16 unit `code` takes alone, as string-width measures it (0, 1 or 2). */
export function unitWidth(code: number): number {
  let width = widths[code]!;
  if (width < 0) width = widths[code] = stringWidth(String.fromCharCode(code));
  return width;
}

/** Distinct texts whose width {@link cellWidthOf} keeps; past this many the kept ones are let go. */
const MAX_KEPT = 5_000;
const kept = new Map<string, number>();

/**
 * The cells `text` takes, exactly as `string-width` measures it: for text with no escape
 * sequence whose units are clusters by themselves, the sum of its units' widths (what
 * string-width sums cluster by cluster); otherwise string-width's own answer, kept for the
 * next time the same text is measured.
 */
export function cellWidthOf(text: string): number {
  let width = 0;
  let simple = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) {
      width += 1;
      continue;
    }
    // Escape sequences (ESC, CSI) take no cells: string-width strips them first.
    if (code === 0x1b || code === 0x9b) {
      simple = false;
      break;
    }
    let kind = kinds[code]!;
    if (kind === 0) kind = kinds[code] = classify(code);
    if (kind !== 1) {
      simple = false;
      break;
    }
    width += unitWidth(code);
  }
  if (simple) return width;
  const known = kept.get(text);
  if (known !== undefined) return known;
  if (kept.size >= MAX_KEPT) kept.clear();
  const measured = text.length > PIECE && !text.includes('\u001b') && !text.includes('\u009b') ? clusterWidths(text) : stringWidth(text);
  kept.set(text, measured);
  return measured;
}

/**
 * string-width's answer for a long text with no escape sequence, in linear time: the sum of
 * its clusters' widths (string-width sums them cluster by cluster), each cluster measured
 * by string-width itself; the clusters from {@link clustersOf}, never the whole text at once.
 */
function clusterWidths(text: string): number {
  let width = 0;
  for (const cluster of clustersOf(text)) width += cluster.length === 1 ? unitWidth(cluster.charCodeAt(0)) : clusterWidth(cluster);
  return width;
}

/** Widths of short clusters, as string-width measures them (at most {@link MAX_KEPT} kept). */
const clusterKept = new Map<string, number>();

function clusterWidth(cluster: string): number {
  const known = clusterKept.get(cluster);
  if (known !== undefined) return known;
  const measured = stringWidth(cluster);
  if (cluster.length <= 32) {
    if (clusterKept.size >= MAX_KEPT) clusterKept.clear();
    clusterKept.set(cluster, measured);
  }
  return measured;
}
