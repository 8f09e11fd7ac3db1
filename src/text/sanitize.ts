// Text that came from an agent, a tool, a file, a hook or a server is data. Printed as it
// is, its control characters are commands to the terminal: an escape sequence can set
// the clipboard (OSC 52), the window title (OSC 0/2), clear the screen and draw fake
// output (CSI 2J), `\r` and `\b` overwrite what was printed, and bidirectional controls
// reorder it ("Trojan Source"). Everything below turns such text into plain, visible text.

/**
 * Code points that must never reach a terminal raw, as inclusive ranges:
 * - C0 controls U+0000–U+001F (ESC starts CSI, OSC, DCS, APC, PM and SOS; `\r`, `\b`,
 *   BEL, VT, FF, SI/SO move the cursor or change the character set); `\n` and `\t` are
 *   let through by {@link sanitize} only;
 * - DEL U+007F and the C1 controls U+0080–U+009F (8-bit CSI U+009B, OSC U+009D, DCS
 *   U+0090, ST U+009C, NEL U+0085, RI U+008D…), which a terminal may act on like their
 *   ESC forms;
 * - bidirectional formatting controls: ALM U+061C, LRM/RLM U+200E–U+200F, LRE…RLO
 *   U+202A–U+202E, LRI…PDI U+2066–U+2069;
 * - LINE and PARAGRAPH SEPARATOR U+2028–U+2029, line breaks to some renderers.
 */
export const UNSAFE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x061c, 0x061c],
  [0x200e, 0x200f],
  [0x2028, 0x202e],
  [0x2066, 0x2069],
];

/** Is this code point one of {@link UNSAFE_RANGES}? */
export function isUnsafeCodePoint(code: number): boolean {
  return UNSAFE_RANGES.some(([from, to]) => code >= from && code <= to);
}

const hex = (code: number) => code.toString(16).padStart(4, '0');

/** Matches one unsafe code point (global: use with `replace`). */
export const UNSAFE_PATTERN = new RegExp(`[${UNSAFE_RANGES.map(([from, to]) => `\\u${hex(from)}-\\u${hex(to)}`).join('')}]`, 'g');

/**
 * Makes untrusted text safe to print, in the console or on stdout/stderr: every C0
 * control is shown as `^X` (ESC as `^[`, so no escape sequence is left, whatever kind),
 * and DEL, every C1 control, every bidi control, U+2028/U+2029 and every invisible code
 * point outside an emoji ({@link INVISIBLE}) as `\u{..}`, with the nonspacing marks that
 * follow any of these or a backslash escape ({@link MARKS_AFTER_ESCAPE}). What the
 * operator reads is what was sent, and nothing of it acts on the terminal.
 * `\n` and `\t` are kept (a tab only moves the cursor right; tab stops cannot be changed
 * without an escape sequence); with `oneLine` they become spaces and runs of spaces
 * collapse, so text cannot start a line of its own that looks like loopdeck's.
 * Idempotent: sanitized text comes out unchanged.
 */
export function sanitize(text: string, options: { oneLine?: boolean } = {}): string {
  const nonAscii = NON_ASCII.test(text);
  const safe = text.replace(nonAscii ? UNSAFE_WITH_MARKS : UNSAFE_PATTERN, (match: string) => {
    const ch = match[0]!;
    const marks = match.length > 1 ? escapeEach(match.slice(1)) : '';
    if (ch === '\n' || ch === '\t') return (options.oneLine ? ' ' : ch) + marks;
    const code = ch.codePointAt(0)!;
    return (code < 0x20 ? `^${String.fromCharCode(code + 0x40)}` : escapeEach(ch)) + marks;
  });
  const out = nonAscii ? safe.replace(INVISIBLE_WITH_MARKS, escapeInvisible).replace(MARKS_AFTER_ESCAPE, escapeEach) : safe;
  return options.oneLine ? out.replace(/ {2,}/g, ' ').trim() : out;
}

/**
 * Nonspacing and enclosing marks, which a terminal draws on the cell before them: after a
 * character shown escaped (`\u{200b}`, `^[`) that cell is the escape's last, so they are
 * shown escaped too (`cafe\u{200b}\u{301}`, never an accent on the `}`).
 */
export const MARK_CLASS = '\\p{Mn}\\p{Me}';
const MARKS_AFTER = `[${MARK_CLASS}]*`;
const UNSAFE_WITH_MARKS = new RegExp(`${UNSAFE_PATTERN.source}${MARKS_AFTER}`, 'gu');

/**
 * Marks right after a backslash escape written in the text itself (JSON's `\u0007` and `\n`
 * in a quoted value, `\x1b`, an escape {@link sanitize} made): drawn on the escape's last
 * character, so shown escaped too (`"ok\u0007\u{301}"`, never an accent on the `7`).
 */
const MARKS_AFTER_ESCAPE = new RegExp(`(?<=\\\\(?:u[0-9a-fA-F]{4}|u\\{[0-9a-fA-F]{1,6}\\}|x[0-9a-fA-F]{2}|[nrtbfv0"'\\\\/]))[${MARK_CLASS}]+`, 'gu');

/** Each code point of `text` as `\u{…}`. */
function escapeEach(text: string): string {
  return Array.from(text, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`).join('');
}

/**
 * A file name or path as it is printed within a line: {@link sanitize}'s form, with tab and
 * newline shown as `^I` and `^J` too. In a name they are characters, not layout: a file
 * named `nl` newline `.yaml` shows as `nl^J.yaml`, one name on one line, never `nl` and a
 * line `.yaml` that looks like loopdeck's own.
 */
export function shownName(name: string): string {
  return sanitize(oneLineText(name));
}

const TAB_OR_NEWLINE_WITH_MARKS = new RegExp(`[\\t\\n]${MARKS_AFTER}`, 'gu');

/**
 * `text` with each tab and newline written `^I`, `^J` (and the marks after it escaped, as
 * after any character shown as `^X`): text that must stay on its one line, whatever the
 * names and paths it quotes hold. Nothing else changes.
 */
export function oneLineText(text: string): string {
  return text.replace(TAB_OR_NEWLINE_WITH_MARKS, (match) => `^${String.fromCharCode(match.charCodeAt(0) + 0x40)}${escapeEach(match.slice(1))}`);
}

/** Matches text with a character outside ASCII (only such text can hold a mark or an invisible code point). */
export const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The class (regex source, for the `u` flag) of the code points a terminal draws as
 * nothing: Default_Ignorable_Code_Point (zero-width space,
 * joiner and non-joiner, word joiner, soft hyphen, Hangul fillers, variation selectors,
 * tags, ...) and the other format characters (Cf: Arabic number signs, interlinear
 * annotation, ...). Printed raw they hide words in what the operator reads (`rm` joined to
 * the word before it by zero-width spaces); {@link sanitize} shows them as `\u{200b}`,
 * except where they are part of an emoji ({@link partOfEmoji}).
 */
export const INVISIBLE_CLASS = '\\p{Default_Ignorable_Code_Point}\\p{Cf}';
const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, 'gu');
/** {@link INVISIBLE} with the marks that follow it (drawn on the cell before them: see `MARKS_AFTER`). */
const INVISIBLE_WITH_MARKS = new RegExp(`[${INVISIBLE_CLASS}]${MARKS_AFTER}`, 'gu');
/** A zero-width joiner between two pictographs (👩‍💻, with their presentation selector or skin tone): part of one emoji. Its source, compiled by each user with the flags it needs (`uy` here, `gu` in the screen form). */
export const EMOJI_JOINER_SOURCE = '(?<=\\p{Extended_Pictographic}[\\u{1F3FB}-\\u{1F3FF}\\uFE0F]?)\\u200D(?=\\p{Extended_Pictographic})';
const EMOJI_JOINER_AT = new RegExp(EMOJI_JOINER_SOURCE, 'uy');
/** A presentation selector on a character that has an emoji form (❤️, ☺︎). */
const PRESENTATION_AT = /(?<=\p{Emoji})[\uFE0E\uFE0F]/uy;
/** A tag of a subdivision flag (🏴 and tag letters up to the cancel tag). */
const FLAG_TAG_AT = /(?<=\u{1F3F4}[\u{E0020}-\u{E007E}]*)[\u{E0020}-\u{E007F}]/uy;

/** Whether the invisible code point at `offset` of `text` is part of an emoji: a joiner between pictographs, a presentation selector, a flag's tag. */
function partOfEmoji(text: string, offset: number): boolean {
  return [EMOJI_JOINER_AT, PRESENTATION_AT, FLAG_TAG_AT].some((pattern) => {
    pattern.lastIndex = offset;
    return pattern.test(text);
  });
}

/** An invisible code point and the marks after it: shown escaped, all of them, unless the code point is part of an emoji. */
function escapeInvisible(match: string, offset: number, text: string): string {
  return partOfEmoji(text, offset) ? match : escapeEach(match);
}

/**
 * `text` with every invisible code point ({@link INVISIBLE}) outside an emoji replaced by
 * `escape(ch)`: the characters {@link sanitize} shows as `\u{200b}`, for a writer with an
 * escape of its own (JSON's `\u200b`).
 */
export function replaceInvisible(text: string, escape: (ch: string) => string): string {
  return NON_ASCII.test(text) ? text.replace(INVISIBLE, (ch: string, offset: number, whole: string) => (partOfEmoji(whole, offset) ? ch : escape(ch))) : text;
}

/** Cuts text to `width` characters, marking the cut with `…`. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}
