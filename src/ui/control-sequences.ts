/**
 * Terminal input split at its escape sequences before Node's readline decodes it into keys.
 *
 * readline's decoder knows the keys of a classic xterm (`ESC [ 1 ; 5 D`, `ESC O H`, F-keys,
 * bracketed paste markers) but reads at most two numbers of a CSI sequence: anything
 * longer comes out as stray characters that a text field would insert. Terminals send such
 * sequences as keys (xterm's `modifyOtherKeys` and tmux's `extended-keys always`:
 * `ESC [ 27 ; 5 ; 99 ~` for Ctrl+C; the `CSI u` form of kitty, foot, WezTerm and
 * tmux: `ESC [ 13 ; 5 u`) and as reports nobody asked this program for (mouse reports left
 * on by a program that crashed, cursor position and device attribute replies, OSC and DCS
 * strings). Here every whole sequence (ECMA-48: CSI, SS3, and the strings OSC, DCS, APC, PM,
 * SOS ended by BEL or ST) is either handed to readline as it came (a sequence readline
 * reads whole), translated to the legacy bytes of the same key (`modifyOtherKeys`,
 * `CSI u`), or left out (anything else: a report is never text).
 *
 * A sequence a read ends inside is held for the next read; the caller gives it up with
 * {@link SequenceSplitter.flush} once the rest has not come in time: a lone `ESC` is the
 * Escape key and `ESC [` is Alt+[, while the start of a report is left out, and its rest
 * too when it comes late (within {@link CUT_MS}). Inside a bracketed paste everything up to its end marker
 * is pasted text as it came, handed on beside what readline reads, never to readline (an
 * unfinished sequence at the end of a paste would take the end marker's `ESC` for its own
 * last byte): the end marker ends the paste wherever it appears, whatever came before it.
 *
 * Written here rather than taken from a library: `ansi-regex` and the like match whole
 * sequences in output text, and input needs a sequence cut by the end of a read told from
 * a sequence that is not one.
 */

const ESC = '\u001b';
const PASTE_START = '\u001b[200~';
const PASTE_END = '\u001b[201~';

/** The CSI sequences readline reads whole: one to three digits at most, and then at most a one-digit modifier (`ESC [ 1 ; 5 D`, `ESC [ 200 ~`), or the Linux console's `ESC [ [ A`. */
const READLINE_CSI = /^\u001b\[(?:\[[\x40-\x7e]|(?:\d{0,2}(?:;\d?)?|\d{3})[\x40-\x7e])$/;
/** xterm's `modifyOtherKeys` form of a key: `ESC [ 27 ; modifiers ; code ~`. */
const MODIFY_OTHER_KEYS = /^\u001b\[27;(\d+);(\d+)~$/;
/** The `CSI u` form (fixterms, kitty): `ESC [ code[:alternates] [; modifiers[:event] [; text]] u`; event 3 is a release. */
const CSI_U = /^\u001b\[(\d+)(?::\d*)*(?:;(\d*)(?::(\d+))?)?(?:;[\d:]*)?u$/;

/**
 * A part of a read as the splitter hands it on, in order: `keys` for readline to decode
 * (whole sequences only, paste markers among them), or `paste`, the text of a bracketed
 * paste between its markers, as it came (sequences too), never to be decoded as keys.
 */
export type Part = { keys: string } | { paste: string };

/** What a splitter makes of input: see {@link createSequenceSplitter}. */
export interface SequenceSplitter {
  /**
   * The parts of a read as they may be decoded now; an escape sequence the read ends inside
   * is held back, and so is what may be the start of a paste's end marker.
   */
  feed(text: string): Part[];
  /**
   * Gives up waiting for the rest of the sequence held back. What may be a key of its own
   * (a lone `ESC` is Escape, `ESC [` is Alt+[) is handed on as it came; the start of a
   * report or of a key's longer form is left out, and so is its rest when it comes within
   * {@link CUT_MS} (a report the network cut must not type its tail). `''` when nothing is held.
   */
  flush(): string;
  /**
   * Ends a paste whose end marker never came (the decoder gave up waiting for it): what
   * follows is read as keys and sequences again, never as pasted text. What was held back as
   * the possible start of the end marker is dropped (it is no text), and the rest of that
   * marker, when a read brings it by `until` (ms), is read as the whole end marker (its tail
   * is never text).
   */
  endPaste(until?: number): void;
  /** Whether a sequence is held back, waiting for the rest. */
  readonly holding: boolean;
  /**
   * Whether a bracketed paste is open. What is held back then is the possible start of its
   * end marker, which waits for the paste's own idle time, never the escape time: it is
   * never a key.
   */
  readonly pasting: boolean;
  /** What the last {@link flush} gave up on (`''` before any): the start of a sequence the network may have cut. */
  readonly lastFlushed: string;
}

/**
 * The rest of a bracketed-paste start marker whose start `flushed` was given up on (a key
 * of its own, or a cut report), when `text` starts with it; else `''`. A paste whose start
 * marker was cut that way reaches the decoder as text; this much of it is no text.
 */
export function restOfPasteStart(flushed: string, text: string): string {
  if (flushed === '' || !PASTE_START.startsWith(flushed)) return '';
  const rest = PASTE_START.slice(flushed.length);
  return text.startsWith(rest) ? rest : '';
}

/** How long after a sequence was given up its rest is still told from typing (ms). */
export const CUT_MS = 1000;

/**
 * A splitter of terminal input at its escape sequences (see the module's comment);
 * `now` is the clock in ms.
 */
export function createSequenceSplitter(now: () => number = () => performance.now()): SequenceSplitter {
  let held = '';
  let lastFlushed = '';
  let pasting = false;
  // A sequence given up on, whose rest is left out when it comes by `until`.
  let cut: { start: string; until: number } | null = null;
  // The start of a paste's end marker, dropped when the paste was ended for want of the
  // rest; that rest, when it comes by `until`, is the end marker.
  let endCut: { start: string; until: number } | null = null;

  /** `text` with the rest of a paste's end marker cut before it read as the whole marker. */
  const afterEndCut = (text: string): string => {
    if (endCut === null || text === '') return text;
    if (now() > endCut.until) {
      endCut = null;
      return text;
    }
    const rest = PASTE_END.slice(endCut.start.length);
    if (text.startsWith(rest)) {
      endCut = null;
      return PASTE_END + text.slice(rest.length);
    }
    if (rest.startsWith(text)) {
      // The rest cut again: wait for the rest of it.
      endCut.start += text;
      return '';
    }
    endCut = null;
    return text;
  };

  /** `text` without the rest of the sequence given up on, if it starts with that rest. */
  const afterCut = (text: string): string => {
    if (cut === null) return text;
    if (now() > cut.until) {
      cut = null;
      return text;
    }
    const whole = cut.start + text;
    const end = sequenceEnd(whole, 0);
    if (end === null) {
      // A control string (an OSC or DCS report) whose read after the cut holds no end (BEL,
      // ST, or the ESC that may start ST): that read is typed, not the rest of a report (a
      // report comes in one or two reads); keys typed after a stray `ESC ]`, an arrow's
      // sequence among them, are not swallowed until the cut expires.
      if (STRING_STARTS.has(whole[1] ?? '') && !text.includes('\u0007') && !text.includes(`${ESC}\\`) && !text.endsWith(ESC)) {
        cut = null;
        return text;
      }
      cut.start = whole;
      return '';
    }
    cut = null;
    // The start of a paste whose marker was cut: what follows the marker is pasted text,
    // never keys (the marker is read again, whole).
    if (whole.slice(0, end) === PASTE_START) return whole;
    return whole.slice(end);
  };

  const feed = (text: string): Part[] => {
    const s = held + afterCut(afterEndCut(text));
    held = '';
    const parts: Part[] = [];
    let keys = '';
    const pasted = (paste: string) => {
      if (keys !== '') parts.push({ keys });
      keys = '';
      if (paste !== '') parts.push({ paste });
    };
    let i = 0;
    while (i < s.length) {
      if (pasting) {
        const end = s.indexOf(PASTE_END, i);
        if (end < 0) {
          // Hold back what may be the start of the end marker.
          const keep = heldMarkerPrefix(s, i);
          pasted(s.slice(i, s.length - keep));
          held = s.slice(s.length - keep);
          return parts;
        }
        pasted(s.slice(i, end));
        keys += PASTE_END;
        i = end + PASTE_END.length;
        pasting = false;
        continue;
      }
      const escape = s.indexOf(ESC, i);
      if (escape < 0) {
        keys += s.slice(i);
        break;
      }
      keys += s.slice(i, escape);
      const end = sequenceEnd(s, escape);
      if (end === null) {
        held = s.slice(escape);
        break;
      }
      const sequence = s.slice(escape, end);
      keys += asReadlineReads(sequence);
      if (sequence === PASTE_START) pasting = true;
      i = end;
    }
    if (keys !== '') parts.push({ keys });
    return parts;
  };

  return {
    feed,
    flush(): string {
      const rest = held;
      held = '';
      lastFlushed = rest;
      if (pasting || isKeyOfItsOwn(rest)) return rest;
      cut = { start: rest, until: now() + CUT_MS };
      return '';
    },
    endPaste(until = -Infinity): void {
      if (!pasting) return;
      pasting = false;
      if (held !== '') endCut = { start: held, until };
      held = '';
    },
    get holding(): boolean {
      return held !== '';
    },
    get pasting(): boolean {
      return pasting;
    },
    get lastFlushed(): string {
      return lastFlushed;
    },
  };
}

/**
 * `text` (pasted, so a paste's own bytes) without its escape sequences, each left out whole
 * as the splitter reads it (CSI, SS3, Alt+key, OSC/DCS/APC/PM/SOS strings; one the text ends
 * inside goes to the end): a pasted `ESC[31m` or `ESC]0;title BEL` is no text, and neither
 * is what follows its `ESC`.
 */
export function withoutSequences(text: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(ESC); at >= 0; at = text.indexOf(ESC, from)) {
    out += text.slice(from, at);
    from = sequenceEnd(text, at) ?? text.length;
  }
  return out + text.slice(from);
}

/**
 * Whether an unfinished sequence may be keys of their own: `ESC` alone (Escape), `ESC` and
 * one character (Alt+[, Alt+O, Alt+P), the same after another `ESC`, or a control string
 * that does not start as a terminal's reply does (`ESC ] 11;` for OSC, `ESC P >|` or a
 * digit or `$`/`+`/`!` for DCS, `ESC _ G` for APC): Alt+] and what was typed after it.
 */
function isKeyOfItsOwn(start: string): boolean {
  const rest = start.startsWith(ESC + ESC) ? start.slice(1) : start;
  if (rest.length <= 2) return true;
  if (rest[1] === '[' || rest[1] === 'O') return false;
  return !/^\u001b(?:\]\d+;|P[\d>$+!]|_G)/.test(rest);
}

/** How many characters at the end of `s` (from `from` on) are a start of {@link PASTE_END}. */
function heldMarkerPrefix(s: string, from: number): number {
  for (let keep = Math.min(PASTE_END.length - 1, s.length - from); keep > 0; keep--) {
    if (PASTE_END.startsWith(s.slice(s.length - keep))) return keep;
  }
  return 0;
}

/** What follows `ESC` to start a control string: OSC, DCS, APC, PM, SOS. */
const STRING_STARTS: ReadonlySet<string> = new Set([']', 'P', '_', '^', 'X']);

const isParameter = (code: number) => code >= 0x30 && code <= 0x3f;
const isIntermediate = (code: number) => code >= 0x20 && code <= 0x2f;
const isFinal = (code: number) => code >= 0x40 && code <= 0x7e;

/**
 * The index just past the escape sequence that starts at `s[at]` (an `ESC`), or `null`
 * when `s` ends before the sequence does. A sequence broken by a byte it may not hold ends
 * before that byte (readline then reads what there is).
 */
function sequenceEnd(s: string, at: number): number | null {
  if (at + 1 >= s.length) return null;
  const next = s[at + 1]!;
  switch (next) {
    case '[':
      return csiEnd(s, at);
    case 'O': {
      // SS3: `ESC O P`, with a modifier digit in some terminals (`ESC O 5 P`).
      let i = at + 2;
      while (i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
      return i < s.length ? i + 1 : null;
    }
    case ESC:
      // ESC before a sequence: Alt with that key (`ESC ESC [ A`).
      return sequenceEnd(s, at + 1);
    default: {
      if (STRING_STARTS.has(next)) return stringEnd(s, at);
      // Alt+key: ESC and one character (a whole code point).
      const code = s.codePointAt(at + 1)!;
      return at + 1 + (code > 0xffff ? 2 : 1);
    }
  }
}

/** The end of the CSI sequence at `s[at]` (`ESC [`), as {@link sequenceEnd}. */
function csiEnd(s: string, at: number): number | null {
  let i = at + 2;
  if (i >= s.length) return null;
  // The Linux console's F1–F5: `ESC [ [ A`.
  if (s[i] === '[') return i + 1 < s.length ? i + 2 : null;
  while (i < s.length && isParameter(s.charCodeAt(i))) i++;
  while (i < s.length && isIntermediate(s.charCodeAt(i))) i++;
  if (i >= s.length) return null;
  if (!isFinal(s.charCodeAt(i))) return i;
  // An X10 mouse report: `ESC [ M` and three bytes of button and position.
  if (i === at + 2 && s[i] === 'M') return i + 4 <= s.length ? i + 4 : null;
  return i + 1;
}

/** The end of the control string at `s[at]` (OSC, DCS, APC, PM, SOS), after its BEL or ST (`ESC \`). */
function stringEnd(s: string, at: number): number | null {
  for (let i = at + 2; i < s.length; i++) {
    if (s[i] === '\u0007') return i + 1;
    if (s[i] === ESC) {
      if (i + 1 >= s.length) return null;
      if (s[i + 1] === '\\') return i + 2;
    }
  }
  return null;
}

/** A whole escape sequence as readline should read it: itself, the legacy bytes of the same key, or nothing. */
function asReadlineReads(sequence: string): string {
  const second = sequence[1];
  if (second === ESC) {
    const inner = asReadlineReads(sequence.slice(1));
    return inner === '' ? '' : ESC + inner;
  }
  // A control string (an OSC or DCS reply, ...): only whole ones get here, ended by BEL or ST.
  if (second !== undefined && STRING_STARTS.has(second)) return '';
  if (second !== '[') return sequence;
  // An X10 mouse report (`ESC [ M` and three bytes).
  if (sequence.startsWith('\u001b[M') && sequence.length > 3) return '';
  // Before readline's forms: `ESC [ 13 ; 5 u` would pass for one of them, and readline has no key ending in `u`.
  const u = CSI_U.exec(sequence);
  // kitty reports a key's release (event 3) only when asked to; it is never a press.
  if (u) return u[3] === '3' ? '' : legacyKey(Number(u[1]), u[2] ? Number(u[2]) : 1);
  const other = MODIFY_OTHER_KEYS.exec(sequence);
  if (other) return legacyKey(Number(other[2]), Number(other[1]));
  return READLINE_CSI.test(sequence) ? sequence : '';
}

/** Modifier bits of `modifyOtherKeys` and `CSI u` (the parameter is 1 + these); caps and num lock are left out. */
const SHIFT = 1;
const ALT = 2;
const CTRL = 4;
const LOCKS = 64 | 128;

/**
 * The bytes a terminal sends for key `code` (a Unicode code point) with `modifiers` (1 +
 * the bits above) when it sends no extended form: Ctrl+letter as its control character,
 * Alt as a leading `ESC`, Enter, Tab, Shift+Tab, Backspace, Escape. `''` for a key that has
 * none (Super, Ctrl with a digit, kitty's own codes for function keys).
 */
function legacyKey(code: number, modifiers: number): string {
  const bits = (Math.max(1, modifiers) - 1) & ~LOCKS;
  if (bits & ~(SHIFT | ALT | CTRL)) return '';
  const alt = bits & ALT ? ESC : '';
  const ctrl = (bits & CTRL) !== 0;
  const shift = (bits & SHIFT) !== 0;
  switch (code) {
    case 13:
      return `${alt}\r`;
    case 9:
      return shift ? `${alt}\u001b[Z` : `${alt}\t`;
    case 8:
    case 127:
      return `${alt}\u007f`;
    case 27:
      return `${alt}${ESC}`;
  }
  // Private use (kitty's function keys), surrogates, other controls and what is not a code point: no legacy form.
  if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0xd800 && code <= 0xdfff) || (code >= 0xe000 && code <= 0xf8ff) || code > 0x10ffff) return '';
  const char = String.fromCodePoint(code);
  if (ctrl) {
    const upper = char.toUpperCase();
    const base = upper.charCodeAt(0);
    // Ctrl+@, Ctrl+A … Ctrl+Z, Ctrl+[ \ ] ^ _ and Ctrl+Space have a control character.
    if (code === 0x20) return `${alt}\u0000`;
    if (upper.length === 1 && base >= 0x40 && base <= 0x5f) return alt + String.fromCharCode(base & 0x1f);
    return '';
  }
  return alt + (shift ? char.toUpperCase() : char);
}
