import type { StateCreator } from 'zustand/vanilla';
import { EMPTY_LINE } from '../line-editor.js';
import type { ConsoleState } from '../store.js';

/** The pending prompt as the operator sees it. */
export interface PromptState {
  /** Ctrl+C was pressed once: a pause was asked for; another Ctrl+C quits. */
  interrupted: boolean;
  /** The pending prompt whose keys are armed (its `seq`), after it has been on screen briefly. */
  armed: number | null;
  /** How many times the process continued after being stopped (SIGCONT): each time, prompts arm anew. */
  wakes: number;
}

/** The prompt slice's actions. */
export interface PromptActions {
  /** The first Ctrl+C: a pause was asked for. */
  markInterrupted: () => void;
  /** The run goes on: the next Ctrl+C asks for a pause again. */
  clearInterrupted: () => void;
  /** Arms the keys of the prompt raised by the event `seq` (it has been on screen long enough). */
  arm: (seq: number | null) => void;
  /** The process continued after being stopped: nothing is armed until it has been on screen again briefly. */
  woke: () => void;
  /**
   * A new prompt is shown (or the last one went): the arguments view of the old one and a
   * deny note being typed for it close.
   */
  promptChanged: () => void;
}

export const INITIAL_PROMPT: PromptState = { interrupted: false, armed: null, wakes: 0 };

/** The prompt slice: how the pending approval or pause is shown and whether its keys answer yet. */
export const createPromptSlice: StateCreator<ConsoleState, [], [], PromptState & PromptActions> = (set) => ({
  ...INITIAL_PROMPT,
  markInterrupted: () => set({ interrupted: true }),
  clearInterrupted: () => set({ interrupted: false }),
  arm: (armed) => set({ armed }),
  woke: () => set((s) => ({ wakes: s.wakes + 1, armed: null, quitArmed: false })),
  promptChanged: () =>
    set((s) => {
      if (s.overlay !== 'args' && s.input !== 'note') return s;
      return { ...(s.overlay === 'args' ? { overlay: null, scroll: 0 } : {}), ...(s.input === 'note' ? { input: null, line: EMPTY_LINE } : {}) };
    }),
});
