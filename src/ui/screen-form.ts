// How untrusted text becomes text on the screen: the one place that decides it.
//
// Ink lays a frame out with string-width, which measures a grapheme cluster as one piece
// (its first visible character, its spacing marks, an emoji sequence as two cells) and
// counts invisible characters as nothing. Terminals draw code point by code point (glibc's
// wcwidth in tmux 3.3a, screen, xterm, VTE): each character at its own width, combining
// marks on the cell before. Where the two disagree, a row is drawn wider or narrower than
// Ink laid it out: a wider row wraps, the frame grows taller than Ink thinks and every
// redraw leaves a copy of it in the scrollback; a narrower one shifts the box borders and
// the command bar's caret. Where a character is invisible, what the operator reads (and
// approves) is not what runs.
//
// So every cluster of untrusted text is put in a form whose width string-width and such a
// terminal agree on, and in which nothing is invisible:
// - joined emoji are split into their parts (ZWJ sequences side by side, skin tones on a
//   pictograph and subdivision-flag tags after it): terminals disagree on those; what
//   joined them (the joiner, the skin tone, the tags) is shown as `\u{…}`, so two names
//   that differ only there never look the same (`👍🏽.txt` is not `👍.txt`);
// - a presentation selector (U+FE0E/U+FE0F) on an emoji is dropped: ❤️ ✔️ ☺️ are measured 2
//   and drawn 1 by wcwidth terminals, 2 by others; without it every terminal draws 1;
// - a keycap (1️⃣ #️⃣) keeps its base, the enclosing keycap mark is shown escaped;
// - invisible code points are shown as `\u{…}`: Default_Ignorable (soft hyphen, zero-width
//   space/joiner/non-joiner, word joiner, Hangul fillers U+115F U+1160 U+3164 U+FFA0,
//   variation selectors, tags), format characters (Cf: Arabic number signs, interlinear
//   annotation), lone surrogates and unassigned code points;
// - code points whose width terminals draw differently by the Unicode version they know
//   (assigned or re-measured in Unicode 15–17, see RECENT) are shown as `\u{…}`;
// - any other cluster string-width measures differently from the sum of its code points'
//   widths is put in its compatibility form when that agrees (Thai and Lao SARA AM, U+0E33
//   U+0EB3, as NIKHAHIT + SARA AA), else its parts that disagree are shown as `\u{…}`
//   (the virama of an Indic conjunct, which string-width measures as one letter; a skin tone
//   after a letter; a spacing Prepend letter; a lone Hangul vowel or final jamo; a lone
//   combining mark that would take a cell in Ink's grid and none on screen).
// CJK, accents and other combining marks, Indic spacing marks (string-width counts them),
// national flags and single emoji stay as they are.
import stringWidth from 'string-width';
import { segmentClusters, unitsAreClusters } from './unit-clusters.js';
import { EMOJI_JOINER_SOURCE } from '../text/sanitize.js';


/** A zero-width joiner between two pictographs (with their presentation selector or modifier). */
const EMOJI_JOINER = new RegExp(EMOJI_JOINER_SOURCE, 'gu');
/** A skin-tone modifier on a pictograph (a lone modifier is a swatch and stays). */
const SKIN_TONE = /(?<=\p{Extended_Pictographic}\uFE0F?)[\u{1F3FB}-\u{1F3FF}]/gu;
/** A subdivision flag: the black flag, tag letters, the cancel tag. */
const SUBDIVISION_FLAG = /\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}/gu;

/**
 * Joined emoji split into their parts, what joined them shown as `\u{…}`: the pictographs
 * of a ZWJ sequence side by side with `\u{200d}` between them, a skin-toned hand as the
 * plain hand and its tone (`👍\u{1f3fd}`), a subdivision flag as the black flag and its
 * tags. Everything else (CJK, accents, combining marks, national flags) is left as it is;
 * tag characters outside a flag are left for {@link screenForm} to show escaped.
 */
export function splitJoinedEmoji(text: string): string {
  return text
    .replace(EMOJI_JOINER, escapeCodePoint)
    .replace(SKIN_TONE, escapeCodePoint)
    .replace(SUBDIVISION_FLAG, (flag) => `\u{1F3F4}${Array.from(flag.slice(2), escapeCodePoint).join('')}`);
}

/**
 * Code points whose width a terminal draws by the Unicode version its table knows, as
 * inclusive ranges: those string-width measures 0 or 2 that were assigned in Unicode 15.0
 * to 17 (a terminal with an older table, e.g. glibc 2.36 under tmux 3.3a, draws them one
 * cell), and those whose East Asian Width changed in Unicode 16 (trigrams, tetragrams,
 * counting rods: now wide; circled numbers on black squares: now ambiguous), and the Ahom
 * medial ra U+1171E (a spacing mark since Unicode 16, a combining one before). Taken from
 * the code points where string-width 8.3 and glibc 2.36's wcwidth disagree.
 */
export const RECENT: ReadonlyArray<readonly [number, number]> = [
  [0x0897, 0x0897], [0x0ece, 0x0ece], [0x1acf, 0x1add], [0x1ae0, 0x1aeb], [0x2630, 0x2637], [0x268a, 0x268f],
  [0x2ffc, 0x2fff], [0x31e4, 0x31e5], [0x31ef, 0x31ef], [0x3248, 0x324f],
  [0x10d69, 0x10d6d], [0x10efa, 0x10eff], [0x11241, 0x11241], [0x113bb, 0x113c0], [0x113ce, 0x113ce],
  [0x113d0, 0x113d0], [0x113d2, 0x113d2], [0x113e1, 0x113e2], [0x1171e, 0x1171e], [0x11b60, 0x11b60], [0x11b62, 0x11b64],
  [0x11b66, 0x11b66], [0x11f00, 0x11f01], [0x11f36, 0x11f3a], [0x11f40, 0x11f40], [0x11f42, 0x11f42],
  [0x11f5a, 0x11f5a], [0x13440, 0x13440], [0x13447, 0x13455], [0x1611e, 0x16129], [0x1612d, 0x1612f],
  [0x16ff2, 0x16ff6], [0x187f8, 0x187ff], [0x18cff, 0x18cff], [0x18d09, 0x18d1e], [0x18d80, 0x18df2],
  [0x1b132, 0x1b132], [0x1b155, 0x1b155], [0x1d300, 0x1d356], [0x1d360, 0x1d376], [0x1e08f, 0x1e08f],
  [0x1e4ec, 0x1e4ef], [0x1e5ee, 0x1e5ef], [0x1e6e3, 0x1e6e3], [0x1e6e6, 0x1e6e6], [0x1e6ee, 0x1e6ef],
  [0x1e6f5, 0x1e6f5], [0x1f6d8, 0x1f6d8], [0x1f6dc, 0x1f6dc], [0x1fa75, 0x1fa77], [0x1fa87, 0x1fa8a],
  [0x1fa8e, 0x1fa8f], [0x1faad, 0x1faaf], [0x1fabb, 0x1fabf], [0x1fac6, 0x1fac6], [0x1fac8, 0x1fac8],
  [0x1facd, 0x1facf], [0x1fada, 0x1fadc], [0x1fadf, 0x1fadf], [0x1fae8, 0x1faea], [0x1faef, 0x1faef],
  [0x1faf7, 0x1faf8], [0x2b739, 0x2b73f], [0x2cea2, 0x2cead], [0x2ebf0, 0x2ee5d], [0x31350, 0x33479],
];

function isRecent(code: number): boolean {
  // Ranges are sorted: a binary search.
  let low = 0;
  let high = RECENT.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [from, to] = RECENT[middle]!;
    if (code < from) high = middle - 1;
    else if (code > to) low = middle + 1;
    else return true;
  }
  return false;
}

/** Invisible or unknown to a terminal: Default_Ignorable, format, surrogate, unassigned. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}\p{Cn}]/u;
/** Drawn on the cell before it by every terminal: nonspacing and enclosing marks. */
const MARK = /[\p{Mn}\p{Me}]/u;
/** Has an emoji form (the base a presentation selector may follow). */
const EMOJI = /\p{Emoji}/u;
/** A keycap: 0–9, # or * with the enclosing keycap mark. */
const KEYCAP = /^[\d#*]\u20E3$/u;

/** `\u{…}`: how a code point that must not be drawn as it is shows (as the control-character sanitizer shows bidi controls). */
export function escapeCodePoint(char: string): string {
  return `\\u{${char.codePointAt(0)!.toString(16)}}`;
}

/** Shown escaped wherever it is: invisible, or drawn at a width that depends on the terminal. */
function mustEscape(char: string): boolean {
  return INVISIBLE.test(char) || isRecent(char.codePointAt(0)!);
}

/**
 * Cells a wcwidth terminal gives one code point: none for a nonspacing or enclosing mark
 * or a Hangul vowel or final jamo (which join the cell before), else its width as
 * string-width measures it alone (East Asian Width: 2 wide and fullwidth, else 1).
 */
export function drawnWidth(char: string): number {
  const code = char.codePointAt(0)!;
  if (MARK.test(char) || (code >= 0x1160 && code <= 0x11ff) || (code >= 0xd7b0 && code <= 0xd7ff)) return 0;
  return stringWidth(char);
}

/**
 * Whether string-width and a terminal agree on `cluster` (one grapheme cluster): the same
 * width, and not a cluster of no width (Ink's grid gives every cluster at least one cell).
 */
function agrees(cluster: string): boolean {
  const measured = stringWidth(cluster);
  if (measured === 0) return false;
  let drawn = 0;
  for (const char of cluster) drawn += drawnWidth(char);
  return measured === drawn;
}

const clustersOf = segmentClusters;
const allAgree = (text: string) => clustersOf(text).every(agrees);

/** One cluster (already split from joined emoji, no control character) in its screen form. */
function formOf(cluster: string): string {
  if (cluster === '\n' || cluster === '\t') return cluster;
  const chars = [...cluster];
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    // A presentation selector on an emoji: the emoji drawn at its own width everywhere.
    if ((char === '\uFE0F' || char === '\uFE0E') && i > 0 && EMOJI.test(chars[i - 1]!)) continue;
    out += mustEscape(char) ? escapeCodePoint(char) : char;
  }
  if (KEYCAP.test(out)) return `${out[0]}${escapeCodePoint('\u20E3')}`;
  if (allAgree(out)) return out;
  // Each piece on its own from here (the escapes above split the cluster).
  return clustersOf(out).map(fitted).join('');
}

/**
 * A cluster with nothing to escape, made to agree: its compatibility form; else the fewest
 * of its code points escaped, tried in order: one nonspacing mark, then all of them (the
 * viramas of an Indic conjunct, which string-width measures as one letter and a terminal
 * draws letter by letter), then one other code point (a skin tone after a letter, the
 * second of two regional indicators that make no flag, a Prepend letter), then every part
 * that takes a cell, then all.
 */
function fitted(cluster: string): string {
  if (agrees(cluster)) return cluster;
  const compatible = cluster.normalize('NFKD');
  if (compatible !== cluster && ![...compatible].some(mustEscape) && allAgree(compatible)) return compatible;
  const chars = [...cluster];
  const escaping = (escape: (char: string, i: number) => boolean) => chars.map((char, i) => (escape(char, i) ? escapeCodePoint(char) : char)).join('');
  const marks = new Set([...chars.keys()].filter((i) => i > 0 && MARK.test(chars[i]!)));
  const others = [...chars.keys()].filter((i) => i > 0 && !marks.has(i)).concat(0);
  // One code point at a time only in a cluster of ordinary length (hostile text may stack
  // thousands of marks on one letter: trying each would take quadratic time).
  const oneByOne = chars.length <= MAX_SEARCHED;
  const candidates = function* () {
    if (oneByOne) for (const i of marks) yield escaping((_, j) => j === i);
    yield escaping((_, j) => marks.has(j));
    if (oneByOne) for (const i of others) yield escaping((_, j) => j === i);
    yield escaping((_, j) => j > 0 && !marks.has(j));
  };
  for (const candidate of candidates()) if (allAgree(candidate)) return candidate;
  return escaping(() => true);
}

const PRINTABLE_ASCII = /^[\x20-\x7e\n\t]*$/;

/** Per UTF-16 unit: 0 not yet asked, 1 drawn as measured on its own, 2 needs the cluster path. */
const plainUnits = new Uint8Array(0x10000);

function isPlainUnit(code: number): boolean {
  let kind = plainUnits[code]!;
  if (kind === 0) {
    const char = String.fromCharCode(code);
    const plain = unitsAreClusters(char) && !mustEscape(char) && agrees(char);
    kind = plainUnits[code] = plain ? 1 : 2;
  }
  return kind === 1;
}

/** Code points of a cluster up to which each is tried alone, and UTF-16 units up to which a cluster's form is kept. */
const MAX_SEARCHED = 32;

/** Distinct clusters whose screen form {@link screenForm} keeps; past this many the kept ones are let go. */
const MAX_KEPT = 5_000;
const kept = new Map<string, string>();

function keptFormOf(cluster: string): string {
  const known = kept.get(cluster);
  if (known !== undefined) return known;
  const form = formOf(cluster);
  if (cluster.length <= MAX_SEARCHED) {
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(cluster, form);
  }
  return form;
}

/**
 * `text` (with no control character but `\n` and `\t`: run the control-character
 * sanitizer first) in the form every terminal draws at the width string-width measures,
 * with nothing invisible: see the top of this file. Idempotent. Text made of characters
 * that are drawn as measured on their own (ASCII, Latin, box drawing, CJK) comes back
 * unchanged without being segmented.
 */
export function screenForm(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text;
  let plain = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 0x20 && code <= 0x7e) || code === 0x0a || code === 0x09) continue;
    if (!isPlainUnit(code)) {
      plain = false;
      break;
    }
  }
  if (plain) return text;
  // A frame draws the same texts again and again: the form of a short one is kept.
  const known = keptTexts.get(text);
  if (known !== undefined) return known;
  let out = '';
  for (const cluster of clustersOf(splitJoinedEmoji(text))) out += keptFormOf(cluster);
  if (text.length <= MAX_KEPT_TEXT) {
    if (keptTexts.size >= MAX_KEPT) keptTexts.clear();
    keptTexts.set(text, out);
  }
  return out;
}

/** Texts up to this many UTF-16 units have their screen form kept (at most {@link MAX_KEPT} of them). */
const MAX_KEPT_TEXT = 2_000;
const keptTexts = new Map<string, string>();
