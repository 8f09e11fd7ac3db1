import { UNSAFE_PATTERN } from '../text/sanitize.js';
import { withoutSequences } from './control-sequences.js';
import type { ConsoleCommand } from './keymap.js';
import { graphemes } from './text.js';

/**
 * A one-line text editor as a pure reducer: the command bar and the deny note use it.
 * Keys arrive already resolved through the key map: a bound key is a command, anything
 * else is text. History and completion live in the command bar on top of it.
 */
export interface LineState {
  text: string;
  /**
   * Cursor position in grapheme clusters (what a person sees as one character: a flag, a
   * joined emoji, a letter with its accents), 0..their count. The caret never lands
   * inside one, so an edit never splits it.
   */
  cursor: number;
}

export const EMPTY_LINE: LineState = { text: '', cursor: 0 };

/** A line with the cursor at its end. */
export function lineOf(text: string): LineState {
  return { text, cursor: graphemes(text).length };
}

/**
 * Text as typed or pasted, made fit for one line: escape sequences are dropped whole (a
 * pasted colour or title is no text), a final line break is dropped, other line breaks and
 * tabs become spaces (a multi-line paste is inserted, never submitted) and other control
 * characters and bidi controls are dropped, so nothing typed (or pasted from an agent's
 * output) reaches the terminal as an escape sequence or reorders the line.
 */
export function cleanInput(input: string): string {
  // Escape sequences go whole (bracketed-paste markers, colours, a title), not just their ESC.
  return withoutSequences(input)
    .replace(/(?:\r\n|\r|\n)+$/, '')
    .replace(/\r\n|\r|\n|\t/g, ' ')
    .replace(UNSAFE_PATTERN, '');
}

/**
 * The most characters (grapheme clusters) a line holds. Each edit reads the whole line, so
 * a line of a pasted log (hundreds of KiB) would make every key after it take seconds; a
 * goal, a command or a note is far shorter.
 */
export const MAX_LINE_CHARS = 10_000;

/**
 * Inserts text at the cursor, as much of it as the line has room for ({@link MAX_LINE_CHARS});
 * `cut` counts the characters left out (absent when none were).
 */
export function insert(state: LineState, input: string): LineState & { cut?: number } {
  const cleaned = cleanInput(input);
  if (!cleaned) return state;
  const chars = graphemes(state.text);
  const room = Math.max(0, MAX_LINE_CHARS - chars.length);
  // A cluster is seldom more than a few code units: only the start of a long paste is split.
  const sliced = cleaned.length > (room + 1) * 32;
  const pasted = graphemes(sliced ? cleaned.slice(0, (room + 1) * 32) : cleaned);
  const fits = !sliced && pasted.length <= room;
  const text = fits ? cleaned : pasted.slice(0, room).join('');
  const cut = fits ? 0 : graphemes(cleaned).length - Math.min(room, pasted.length);
  if (!text) return cut > 0 ? { ...state, cut } : state;
  const before = chars.slice(0, state.cursor).join('') + text;
  // Counted again over the joined text: what was typed may join the cluster before it (an accent after its letter).
  const line = { text: before + chars.slice(state.cursor).join(''), cursor: graphemes(before).length };
  return cut > 0 ? { ...line, cut } : line;
}

/** Applies an editing command; commands it does not know leave the line as it is. */
export function edit(state: LineState, command: ConsoleCommand): LineState {
  const chars = graphemes(state.text);
  const { cursor } = state;
  switch (command) {
    case 'cursor-left':
      return { ...state, cursor: Math.max(0, cursor - 1) };
    case 'cursor-right':
      return { ...state, cursor: Math.min(chars.length, cursor + 1) };
    case 'cursor-home':
      return { ...state, cursor: 0 };
    case 'cursor-end':
      return { ...state, cursor: chars.length };
    case 'delete-back':
      if (cursor === 0) return state;
      chars.splice(cursor - 1, 1);
      return { text: chars.join(''), cursor: cursor - 1 };
    case 'delete-forward':
      if (cursor >= chars.length) return state;
      chars.splice(cursor, 1);
      return { text: chars.join(''), cursor };
    case 'delete-word': {
      const start = wordStart(chars, cursor);
      chars.splice(start, cursor - start);
      return { text: chars.join(''), cursor: start };
    }
    case 'delete-to-end':
      return { text: chars.slice(0, cursor).join(''), cursor };
    case 'word-left':
      return { ...state, cursor: wordStart(chars, cursor) };
    case 'word-right': {
      let end = cursor;
      while (end < chars.length && chars[end] === ' ') end++;
      while (end < chars.length && chars[end] !== ' ') end++;
      return { ...state, cursor: end };
    }
    case 'clear-line':
      return EMPTY_LINE;
    default:
      return state;
  }
}

/** Where the word before `cursor` starts (spaces before the cursor skipped first), as Ctrl+W and Alt+B read it. */
function wordStart(chars: readonly string[], cursor: number): number {
  let start = cursor;
  while (start > 0 && chars[start - 1] === ' ') start--;
  while (start > 0 && chars[start - 1] !== ' ') start--;
  return start;
}

/**
 * Command history: `↑` walks back from the line being typed, `↓` walks forward and
 * finally restores the draft that was there before.
 */
export interface HistoryState {
  entries: readonly string[];
  /** Index into `entries` being shown, or `null` while editing the draft. */
  index: number | null;
  draft: string;
}

export const EMPTY_HISTORY: HistoryState = { entries: [], index: null, draft: '' };

/** Adds a run line to the history (not a repeat of the newest entry) and leaves browsing. */
export function remember(history: HistoryState, line: string): HistoryState {
  const entries = line.trim() === '' || history.entries.at(-1) === line ? history.entries : [...history.entries, line];
  return { entries, index: null, draft: '' };
}

/** Moves through the history; returns the new history and the line to show. */
export function browse(history: HistoryState, current: string, direction: 'previous' | 'next'): { history: HistoryState; text: string } {
  const { entries, index } = history;
  if (direction === 'previous') {
    if (entries.length === 0 || index === 0) return { history, text: current };
    const next = index === null ? entries.length - 1 : index - 1;
    return { history: { entries, index: next, draft: index === null ? current : history.draft }, text: entries[next]! };
  }
  if (index === null) return { history, text: current };
  if (index === entries.length - 1) return { history: { entries, index: null, draft: '' }, text: history.draft };
  return { history: { ...history, index: index + 1 }, text: entries[index + 1]! };
}
