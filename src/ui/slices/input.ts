import type { StateCreator } from 'zustand/vanilla';
import { EMPTY_HISTORY, EMPTY_LINE, lineOf, remember, type HistoryState, type LineState } from '../line-editor.js';
import type { ConsoleState } from '../store.js';

/** The focused text input (the command bar or the deny note) and its line. */
export interface InputState {
  /** A focused text input: the command bar or the deny note. */
  input: 'bar' | 'note' | null;
  /** The text of the open input (command bar or deny note). */
  line: LineState;
  /** The command bar's completion list (empty: closed) and its highlighted row. */
  completions: readonly string[];
  highlight: number;
  /** Lines run from the command bar. */
  history: HistoryState;
  /** A command-bar line is running: Enter again does nothing. */
  busy: boolean;
}

/** The input slice's actions. */
export interface InputActions {
  /** Opens the command bar with `text` typed, the cursor at its end. */
  openBar: (text: string) => void;
  /** Opens an empty deny note. */
  openNote: () => void;
  /** Closes the open input and its completion list; the line is cleared. */
  closeInput: () => void;
  /** Sets the line being edited. */
  setLine: (line: LineState) => void;
  /** Shows the completion list `list` with row `highlight` highlighted (an empty list closes it). */
  showCompletions: (list: readonly string[], highlight: number) => void;
  /** Closes the completion list. */
  closeCompletions: () => void;
  /** Adds `line` to the command bar's history (see `remember`). */
  remember: (line: string) => void;
  /** Shows a history entry: the browsed history and the line it recalls. */
  recall: (history: HistoryState, text: string) => void;
  /** A command-bar line starts running (`true`) or has answered (`false`). */
  setBusy: (busy: boolean) => void;
}

export const INITIAL_INPUT: InputState = { input: null, line: EMPTY_LINE, completions: [], highlight: 0, history: EMPTY_HISTORY, busy: false };

/** The input slice: the command bar (line, completion, history) and the deny note. */
export const createInputSlice: StateCreator<ConsoleState, [], [], InputState & InputActions> = (set) => ({
  ...INITIAL_INPUT,
  openBar: (text) => set({ input: 'bar', line: lineOf(text), completions: [], highlight: 0 }),
  openNote: () => set({ input: 'note', line: EMPTY_LINE }),
  closeInput: () => set({ input: null, line: EMPTY_LINE, completions: [], highlight: 0 }),
  setLine: (line) => set({ line }),
  showCompletions: (completions, highlight) => set({ completions, highlight }),
  closeCompletions: () => set({ completions: [], highlight: 0 }),
  remember: (line) => set((s) => ({ history: remember(s.history, line) })),
  recall: (history, text) => set({ history, line: lineOf(text) }),
  setBusy: (busy) => set({ busy }),
});
