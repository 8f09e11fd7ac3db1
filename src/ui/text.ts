/**
 * Terminal cell widths, for the places the console lays text out itself (wrapping tool
 * arguments, eliding a long command, counting rows, scrolling the command line). They
 * measure with `string-width`, the function Ink measures and truncates with, one grapheme
 * cluster at a time (a family emoji, a flag, a letter with its combining marks is one
 * cluster and is never split), so a row the console cuts is as wide as Ink thinks it is.
 *
 * Terminals disagree with each other, and with any width table, on joined emoji: one
 * draws a family (👨‍👩‍👧) as one wide cell pair, another as each of its members (8
 * cells), and the frame then outgrows what Ink measured and leaves a copy in the
 * scrollback on every redraw. {@link sanitize} here splits such sequences into their parts
 * (drops the joiners, skin-tone modifiers and tag characters), which every terminal draws
 * at the width measured or narrower. See "Console input" in docs/design.md.
 */
import { sanitize as sanitizeText } from '../text/sanitize.js';
import { cellWidthOf, unitsAreClusters, unitWidth } from './unit-clusters.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The grapheme clusters of `text`, in order (what a person sees as one character). Text
 * whose units are clusters by themselves is split into its units without the segmenter
 * (the same result, src/ui/unit-clusters.ts).
 */
export function graphemes(text: string): string[] {
  if (unitsAreClusters(text)) return text.split('');
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** Cells a string takes, as Ink measures it (string-width; the same number, src/ui/unit-clusters.ts). */
export function cellWidth(text: string): number {
  return cellWidthOf(text);
}

/** A zero-width joiner between two pictographs (with their presentation selector or modifier). */
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}[\u{1F3FB}-\u{1F3FF}\uFE0F]?)\u200D(?=\p{Extended_Pictographic})/gu;
/** A skin-tone modifier on a pictograph (a lone modifier is a swatch and stays). */
const SKIN_TONE = /(?<=\p{Extended_Pictographic}\uFE0F?)[\u{1F3FB}-\u{1F3FF}]/gu;
/** Tag characters (the subdivision flags: 🏴 followed by tags). */
const TAGS = /[\u{E0020}-\u{E007F}]/gu;

/**
 * Joined emoji split into their parts: the pictographs of a ZWJ sequence side by side, a
 * skin-toned hand as the plain hand, a subdivision flag as the black flag. Everything else
 * (CJK, accents, combining marks, national flags) is left as it is.
 */
export function splitJoinedEmoji(text: string): string {
  return text.replace(EMOJI_JOINER, '').replace(SKIN_TONE, '').replace(TAGS, '');
}

/**
 * Untrusted text made safe for the console's frame: {@link sanitizeText} (no control
 * character reaches the terminal) and {@link splitJoinedEmoji} (no character the
 * terminal may draw wider than Ink measured).
 */
export function sanitize(text: string, options: { oneLine?: boolean } = {}): string {
  return splitJoinedEmoji(sanitizeText(text, options));
}

/** The longest start of `text` that fits in `width` cells (whole clusters only). */
export function clipEnd(text: string, width: number): string {
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
  for (const { segment: g } of segmenter.segment(text)) {
    const w = cellWidth(g);
    if (used + w > width) break;
    out += g;
    used += w;
  }
  return out;
}

/** The longest end of `text` that fits in `width` cells (whole clusters only). */
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
  return out;
}

/** `text` cut to `width` cells, with `…` where it was cut. */
export function truncateCells(text: string, width: number): string {
  if (cellWidth(text) <= width) return text;
  return width <= 0 ? '' : `${clipEnd(text, width - 1)}…`;
}

/** Splits text into rows of at most `width` cells: at line breaks, then hard at the width (never inside a cluster). */
export function wrapCells(text: string, width: number): string[] {
  const rows: string[] = [];
  const limit = Math.max(1, width);
  for (const line of text.split('\n')) {
    let row = '';
    let used = 0;
    for (const g of graphemes(line)) {
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
