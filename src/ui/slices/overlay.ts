import type { StateCreator } from 'zustand/vanilla';
import type { ConsoleState } from '../store.js';

/** What covers the body, and where it is scrolled. */
export interface OverlayState {
  /** An overlay: help, an opened event, the quit confirmation, the pending call's full arguments (`v`). */
  overlay: 'help' | 'event' | 'quit' | 'args' | null;
  /** The event opened in the event overlay (its `seq`). */
  opened: number | null;
  /** Scroll offset of the overlay, in rows. */
  scroll: number;
  /** The quit confirmation's keys answer: it has been on screen briefly (as a prompt's keys arm). */
  quitArmed: boolean;
}

/** The overlay slice's actions. */
export interface OverlayActions {
  /** Opens help at its top. */
  openHelp: () => void;
  /** Opens the event `seq` in the event overlay, at its top. */
  openEvent: (seq: number) => void;
  /** Asks whether to quit while a run is live. */
  askQuit: () => void;
  /** Opens the pending tool call's arguments in full, at their top. */
  openArgs: () => void;
  /** Closes whatever overlay is open. */
  closeOverlay: () => void;
  /** Scrolls the open overlay to row `row` (the key reducer keeps it within the overlay's rows). */
  scrollOverlay: (row: number) => void;
  /** Arms (`true`) or disarms the quit confirmation's keys. */
  armQuit: (armed: boolean) => void;
}

export const INITIAL_OVERLAY: OverlayState = { overlay: null, opened: null, scroll: 0, quitArmed: false };

/** The overlay slice: help, the event overlay and the quit confirmation. */
export const createOverlaySlice: StateCreator<ConsoleState, [], [], OverlayState & OverlayActions> = (set) => ({
  ...INITIAL_OVERLAY,
  openHelp: () => set({ overlay: 'help', scroll: 0 }),
  openEvent: (seq) => set({ overlay: 'event', opened: seq, scroll: 0 }),
  askQuit: () => set({ overlay: 'quit', quitArmed: false }),
  openArgs: () => set({ overlay: 'args', scroll: 0 }),
  closeOverlay: () => set(INITIAL_OVERLAY),
  scrollOverlay: (scroll) => set({ scroll }),
  armQuit: (quitArmed) => set({ quitArmed }),
});
