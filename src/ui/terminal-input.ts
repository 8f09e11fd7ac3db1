import { PassThrough } from 'node:stream';
import { emitKeypressEvents } from 'node:readline';
import { createSequenceSplitter, restOfPasteStart, type Part } from './control-sequences.js';

/**
 * Terminal input decoded into keys the way terminals really send it, on Node's own
 * readline key decoder (`readline.emitKeypressEvents`, the one the Node REPL uses):
 * - every key of a read is its own key, so `goal status⏎` written at once is eleven
 *   characters and an Enter, and Ctrl+W or Backspace inside a fast chunk act where they are;
 * - an escape sequence split across reads (`ESC`, then `[D` 50 ms later over SSH) is put
 *   back together when the rest arrives within `escapeMs`; a lone `ESC` is the Escape key
 *   once that time has passed (as readline and tmux's `escape-time` do);
 * - a read with anything after a line break is a paste its terminal did not bracket: pasted
 *   text, never a line submitted;
 * - bracketed paste (`ESC[200~` … `ESC[201~`, enabled with {@link PASTE_ON}) is one
 *   paste, however many reads it spans, never keys; one whose end marker is late (a network
 *   that stalled in the middle of it) is delivered after a while, and its rest, when it
 *   comes, is pasted text too, never keys that answer a prompt or submit a command;
 * - any other escape sequence (focus reports, unknown keys, mouse reports, replies) is a
 *   named key or nothing, never text; the extended forms of keys (`modifyOtherKeys`,
 *   `CSI u`) are those keys (`./control-sequences.ts`).
 */

/**
 * Where a key came from: the only key of its read, the same key again alone in a read
 * that follows it closely (a held key's auto-repeat), one of several keys of one read, or
 * a paste.
 */
export type KeySource = 'key' | 'repeat' | 'chunk' | 'paste';

/**
 * A key alone in its read that repeats the key before it within this long (ms) is a held
 * key's auto-repeat, not a press. Terminals send no key releases; repeat rates are 10–60
 * per second (15–100 ms apart), while pressing a key again takes longer than this.
 */
export const REPEAT_MS = 150;

/**
 * The longest pause before a held key starts to repeat that terminals and desktops offer
 * (ms): X11's default is 660, the slowest settings of macOS and GNOME about 2 s. A key alone
 * in its read that repeats the key before it after a pause longer than {@link REPEAT_MS}
 * but within this one may be a repeat (the first after the delay, or one of a slow repeat
 * rate) or a second press: it carries `afterSame`, and only the keys after it tell which
 * (`./held-keys.ts`).
 */
export const HOLD_MS = 2500;

/**
 * One keypress: `name` as the key map spells it (`''` for a paste or a key it has no
 * name for), `input` the text it types (`''` for a named key that types nothing).
 * Only a `key` press (alone in its read, not a repeat) may answer a prompt: a held key,
 * keys typed ahead or a paste never do.
 */
export interface Keypress {
  name: string;
  input: string;
  source: KeySource;
  /**
   * For a key alone in its read that repeats the key before it within {@link HOLD_MS}: the
   * pause between them (ms). A `repeat` (under {@link REPEAT_MS}) is a held key's; a `key`
   * after a longer pause may be a held key's repeat or a new press, and an answer to a
   * prompt by it waits to see whether a repeat follows.
   */
  afterSame?: number;
}

/** Turns bracketed paste on: the terminal wraps pasted text in `ESC[200~` … `ESC[201~`. */
export const PASTE_ON = '\u001b[?2004h';
/** Turns bracketed paste off again. */
export const PASTE_OFF = '\u001b[?2004l';

/** How long a lone `ESC` waits for the rest of a sequence before it is the Escape key (ms). */
export const ESCAPE_MS = 150;
/** A bracketed paste's start marker. */
const PASTE_START = '\u001b[200~';
/** A paste whose end marker never comes is delivered after this long without more input (ms). */
const PASTE_IDLE_MS = 1000;
/**
 * After a paste was delivered for want of its end marker, how long what comes next is
 * still taken for the rest of that paste, should its end marker not come first (ms); each
 * read of several characters in that time (more of the paste, not a key typed) starts it
 * again. A network that stalled in the middle of a paste sends the rest later: its text and
 * line breaks must not become keys that answer a prompt or submit the command bar.
 */
export const LATE_PASTE_MS = 3000;

/** A key of a read being decoded, with the bytes it came as. */
interface Typed {
  name: string;
  input: string;
  raw: string;
}

/** A typed key as delivered, from `source`. */
function keyOf({ name, input }: Typed, source: KeySource): Keypress {
  return { name, input, source };
}

/**
 * The keys of a read that came while the rest of a paste may still be coming (see
 * {@link LATE_PASTE_MS}): its text, line breaks and tabs are pasted text (one paste for each
 * run of them), and every other key (Escape, Ctrl+C, an arrow, Backspace) is a key typed
 * ahead (`chunk`), which may edit or pause but never answers a prompt.
 */
function asLatePaste(keys: ReadonlyArray<Keypress | Typed>): Keypress[] {
  const out: Keypress[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') out.push({ name: '', input: text, source: 'paste' });
    text = '';
  };
  for (const k of keys) {
    if ('raw' in k && (k.input !== '' || /^[\r\n\t]+$/.test(k.raw))) {
      text += k.raw;
      continue;
    }
    flush();
    out.push('raw' in k ? keyOf(k, 'chunk') : k);
  }
  flush();
  return out;
}

/**
 * Whether the keys of one read are a paste without paste markers: a line break followed, in
 * the same read, by anything more (text, another line break: `foo⏎bar`, `foo⏎⏎`, a Windows
 * `foo\r\n`). A terminal that does not bracket pastes (or an application that switched it
 * off) writes a pasted text at once; keys typed that fast end at their one Enter
 * (`goal status⏎` submits), and a terminal sends Enter as one `\r`. Such a read is pasted,
 * as the rest of a late paste is: no line of it is submitted.
 */
function unmarkedPaste(keys: ReadonlyArray<Keypress | Typed>): boolean {
  let broken = false;
  for (const k of keys) {
    if (!('raw' in k)) continue;
    if (broken) return true;
    if (/^[\r\n]+$/.test(k.raw)) broken = true;
  }
  return false;
}

/** What readline's decoder reports for a key. */
interface ReadlineKey {
  sequence?: string;
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** readline's key names that the key map spells differently. */
const NAMES: Readonly<Record<string, string>> = {
  return: 'enter',
  enter: 'enter',
  escape: 'escape',
  up: 'up',
  down: 'down',
  left: 'left',
  right: 'right',
  pageup: 'pageup',
  pagedown: 'pagedown',
  home: 'home',
  end: 'end',
  // Terminals send DEL (0x7f) for Backspace, some BS: both delete before the cursor. The
  // Delete key (`ESC[3~`) deletes at it.
  backspace: 'backspace',
  delete: 'delete',
};

/**
 * A decoded key as the key map spells it: `enter`, `escape`, `tab`, `shift+tab`, arrows,
 * `ctrl+w`, a printable character as itself (`A`, `é`, `/`); `''` for a key the map has no
 * name for. `input` is the printable text, `''` for anything sent as a control or escape
 * sequence (which never becomes text).
 */
export function fromReadline(str: string | undefined, key: ReadlineKey): { name: string; input: string } {
  const sequence = key.sequence ?? str ?? '';
  if (key.name === 'tab') return { name: key.shift ? 'shift+tab' : 'tab', input: '' };
  const named = key.name === undefined ? undefined : NAMES[key.name];
  if (named !== undefined) {
    const modifier = key.ctrl ? 'ctrl+' : key.meta && key.name !== 'escape' ? 'meta+' : '';
    return { name: modifier + named, input: '' };
  }
  if (key.ctrl && key.name !== undefined) return { name: `ctrl+${key.name}`, input: '' };
  if (sequence.startsWith('\u001b') || key.meta) {
    // Alt+x arrives as ESC x: a key of its own, never the letter.
    const rest = sequence.slice(1);
    return { name: [...rest].length === 1 && !/^f\d+$/.test(key.name ?? '') ? `meta+${rest}` : '', input: '' };
  }
  // Other C0 and C1 controls type nothing.
  if ([...sequence].length === 1 && /^[\u0000-\u001f\u007f-\u009f]$/.test(sequence)) return { name: '', input: '' };
  return { name: [...sequence].length === 1 ? sequence : '', input: sequence };
}

/**
 * A decoder fed the raw text of each read (`push`), calling `onKeys` with the keys of that
 * read in order; keys finished later by a timer (a lone Escape, an unfinished paste) come in
 * a call of their own. `escapeMs`: how long the rest of a split sequence is waited for;
 * `pasteIdleMs`: how long a paste without its end marker; `latePasteMs`: how long after that
 * what comes is still the paste's rest ({@link LATE_PASTE_MS}; ms, all three). An end marker
 * with no paste open makes the keys before it in its read pasted text. `dispose` stops its timers.
 */
export function createKeyDecoder(
  onKeys: (keys: Keypress[]) => void,
  {
    escapeMs = ESCAPE_MS,
    pasteIdleMs = PASTE_IDLE_MS,
    latePasteMs = LATE_PASTE_MS,
    now = () => performance.now(),
  }: { escapeMs?: number; pasteIdleMs?: number; latePasteMs?: number; now?: () => number } = {},
) {
  const stream = new PassThrough({ encoding: 'utf8' });
  // The splitter waits for the rest of a sequence split across reads (`escapeMs`) and hands
  // readline whole ones: readline need not wait again. It reads only `escapeCodeTimeout`
  // from the interface it is given.
  const splitter = createSequenceSplitter(now);
  let heldTimer: NodeJS.Timeout | undefined;
  emitKeypressEvents(stream, { escapeCodeTimeout: 1 } as never);
  // What a key readline finishes by its own timer (a lone Escape given up on) counts as:
  // a chunk when the read it came in held keys before it.
  let flushedSource: KeySource = 'key';
  // The keys of the read being decoded, each typed one with the bytes it came as (`raw`).
  let collected: Array<Keypress | Typed> | null = null;
  let paste: string[] | null = null;
  let pasteTimer: NodeJS.Timeout | undefined;
  // Until when (ms) a paste the idle timer delivered may still be coming: see LATE_PASTE_MS.
  let lateUntil = -Infinity;
  // The read being decoded held a paste marker: a key in it is not alone in its read.
  let marked = false;

  // The last key delivered and when (ms), to tell a held key's repeats from presses.
  let last: { name: string; input: string; at: number } | null = null;
  const deliver = (keys: Keypress[]): void => {
    if (keys.length === 0) return;
    const at = now();
    const first = keys[0]!;
    const single = keys.length === 1 && first.source === 'key';
    const gap = single && last !== null && last.name === first.name && last.input === first.input ? at - last.at : Infinity;
    const end = keys[keys.length - 1]!;
    last = end.source === 'paste' ? null : { name: end.name, input: end.input, at };
    if (gap < REPEAT_MS) onKeys([{ ...first, source: 'repeat', afterSame: Math.round(gap) }]);
    else if (gap < HOLD_MS) onKeys([{ ...first, afterSame: Math.round(gap) }]);
    else onKeys(keys);
  };
  /** Ends the paste, by its end marker or (`idle`) by the idle timer, and delivers it. */
  const endPaste = (idle: boolean): void => {
    clearTimeout(pasteTimer);
    pasteTimer = undefined;
    lateUntil = idle ? now() + latePasteMs : -Infinity;
    // Ended by its marker this is already so; by the idle timer, the splitter stops reading
    // what comes next as pasted text too, and the rest of an end marker cut there, should it
    // come while the rest of the paste may, ends it.
    splitter.endPaste(lateUntil);
    // A start marker inside a paste is no text.
    const text = (paste?.join('') ?? '').split(PASTE_START).join('');
    paste = null;
    const key: Keypress = { name: '', input: text, source: 'paste' };
    if (collected) collected.push(key);
    else deliver([key]);
  };
  /**
   * An end marker with no paste open ends a paste the idle timer delivered: the keys typed
   * before it in this read are the rest of that paste, and become one paste of their bytes.
   */
  const lateEnd = (): void => {
    lateUntil = -Infinity;
    if (collected === null) return;
    let from = collected.length;
    while (from > 0 && 'raw' in collected[from - 1]!) from--;
    // A start marker whose `ESC` (or `ESC [`) was given up on as a key of its own, or whose
    // rest came after its cut was forgotten, leaves the rest of it at the start: no text.
    const raw = (collected.splice(from) as Typed[]).map((k) => k.raw).join('');
    const text = raw.slice(restOfPasteStart(splitter.lastFlushed, raw).length);
    if (text !== '') collected.push({ name: '', input: text, source: 'paste' });
  };

  stream.on('keypress', (str: string | undefined, key: ReadlineKey) => {
    if (key.name === 'paste-start' || key.name === 'paste-end') marked = true;
    if (key.name === 'paste-start') {
      // A start marker inside a paste is no text, and the text before it stays pasted.
      paste ??= [];
      return;
    }
    if (key.name === 'paste-end') {
      if (paste !== null) endPaste(false);
      else lateEnd();
      return;
    }
    if (paste !== null) {
      // Only keys typed into a paste the splitter no longer reads as one; its text comes as parts of its own.
      paste.push(key.sequence ?? str ?? '');
      return;
    }
    const one = fromReadline(str, key);
    if (collected) collected.push({ ...one, raw: key.sequence ?? str ?? '' });
    else deliver([{ ...one, source: flushedSource }]); // a lone Escape, finished by readline's timer
  });

  /**
   * Decodes the parts of a read that may be read now (whole sequences, pasted text),
   * delivering its keys. `more`: the read held more than these (the start of an escape
   * sequence, held back for its rest), so no key of it is alone in its read.
   */
  const decode = (parts: Part[], more = false): void => {
    if (parts.length === 0) return;
    collected = [];
    marked = false;
    try {
      for (const part of parts) {
        if ('keys' in part) stream.write(part.keys);
        else (paste ??= []).push(part.paste);
      }
    } finally {
      const keys = collected;
      collected = null;
      if (now() < lateUntil) {
        const late = asLatePaste(keys);
        // More of the paste (a read of several characters, not a key typed) keeps the window open.
        if (late.some((k) => k.source === 'paste' && [...k.input].length > 1)) lateUntil = now() + latePasteMs;
        deliver(late);
      }
      else if (unmarkedPaste(keys)) deliver(asLatePaste(keys));
      else {
        const typed = keys.filter((k) => 'raw' in k).length;
        const source: KeySource = typed === 1 && keys.length === 1 && !marked && !more ? 'key' : 'chunk';
        deliver(keys.map((k) => ('raw' in k ? keyOf(k, source) : k)));
      }
    }
  };

  // The sequence held back began in a read with keys before it: the keys it makes, once
  // finished or given up on, are keys of that read too (a chunk), never a key alone.
  let heldAmongKeys = false;

  return {
    /** Decodes one read's text. */
    push(text: string): void {
      const wasAmong = heldAmongKeys;
      const parts = splitter.feed(text);
      const holding = splitter.holding && !splitter.pasting;
      // A read that ends inside a sequence holds more than the keys decoded now, and so does
      // one that finishes a sequence begun among keys.
      heldAmongKeys = holding && (wasAmong || parts.some((part) => 'keys' in part));
      decode(parts, holding || wasAmong);
      if (paste !== null || splitter.pasting) {
        // Inside a paste, what may be the start of its end marker waits for the paste's own
        // idle time: given up on at the escape time it would be a key or, its rest late, text.
        clearTimeout(pasteTimer);
        pasteTimer = setTimeout(() => endPaste(true), pasteIdleMs);
      }
      if (!holding) {
        clearTimeout(heldTimer);
        heldTimer = undefined;
      } else {
        // The rest of a sequence gets `escapeMs` from when the sequence began, however many reads come meanwhile.
        heldTimer ??= setTimeout(() => {
          heldTimer = undefined;
          const among = heldAmongKeys;
          heldAmongKeys = false;
          const rest = splitter.flush();
          // `ESC [` and `ESC O` given up on are Alt+[ and Alt+O (after Escape, with an `ESC`
          // before them): readline would take them for a sequence's start and finish it with
          // the next key typed, however late.
          const alt = /^(\u001b?)\u001b([[O])$/.exec(rest);
          if (alt) {
            const source: KeySource = among || alt[1] !== '' ? 'chunk' : 'key';
            const keys: Keypress[] = [{ name: `meta+${alt[2]}`, input: '', source }];
            deliver(alt[1] === '' ? keys : [{ name: 'escape', input: '', source }, ...keys]);
          }
          else {
            flushedSource = among ? 'chunk' : 'key';
            decode(rest === '' ? [] : [{ keys: rest }], among);
          }
        }, escapeMs);
      }
    },
    dispose(): void {
      clearTimeout(pasteTimer);
      clearTimeout(heldTimer);
      stream.destroy();
    },
  };
}
