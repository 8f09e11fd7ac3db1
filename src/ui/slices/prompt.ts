import type { StateCreator } from 'zustand/vanilla';
import { EMPTY_LINE } from '../line-editor.js';
import type { ConsoleState } from '../store.js';

/** The pending prompt as the operator sees it. */
export interface PromptState {
  /** Show every line of a long tool argument. */
  expandArgs: boolean;
  /** Ctrl+C was pressed once: a pause was asked for; another Ctrl+C quits. */
  interrupted: boolean;
  /** The pending prompt whose keys are armed (its `seq`), after it has been on screen briefly. */
  armed: number | null;
}

/** The prompt slice's actions. */
export interface PromptActions {
  /** Shows every line of a long tool argument, or folds them again. */
  toggleArgs: () => void;
  /** The first Ctrl+C: a pause was asked for. */
  markInterrupted: () => void;
  /** The run goes on: the next Ctrl+C asks for a pause again. */
  clearInterrupted: () => void;
  /** Arms the keys of the prompt raised by the event `seq` (it has been on screen long enough). */
  arm: (seq: number | null) => void;
  /**
   * A new prompt is shown (or the last one went): its argument lines start folded and a
   * deny note being typed for the old one closes.
   */
  promptChanged: () => void;
}

export const INITIAL_PROMPT: PromptState = { expandArgs: false, interrupted: false, armed: null };

/** The prompt slice: how the pending approval or pause is shown and whether its keys answer yet. */
export const createPromptSlice: StateCreator<ConsoleState, [], [], PromptState & PromptActions> = (set) => ({
  ...INITIAL_PROMPT,
  toggleArgs: () => set((s) => ({ expandArgs: !s.expandArgs })),
  markInterrupted: () => set({ interrupted: true }),
  clearInterrupted: () => set({ interrupted: false }),
  arm: (armed) => set({ armed }),
  promptChanged: () =>
    set((s) => {
      if (!s.expandArgs && s.input !== 'note') return s;
      return { expandArgs: false, ...(s.input === 'note' ? { input: null, line: EMPTY_LINE } : {}) };
    }),
});
