import React, { createContext, useContext, useMemo, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { BudgetDimension, ResumePayload } from '../engine/index.js';
import type { CommandResult, OperatorTarget } from '../engine/operator-command.js';
import { KeypressProvider } from './keypress.js';
import { LineViewportContext } from './LineView.js';
import { LineViewport } from './line-viewport.js';
import { ESCAPE_MS } from './terminal-input.js';
import type { ConsoleState, ConsoleStore } from './store.js';

/**
 * What the console may ask of whoever runs it. The console never reaches into the
 * engine: it answers yields, and carries out the operator's commands (the command bar's
 * lines, parsed once by the console with `parseOperatorCommand`) through the typed
 * methods of {@link OperatorTarget}: `goalStatus`, `reviseGoal`, `extendBudget`, `stop`.
 */
export interface ConsoleController extends OperatorTarget {
  /**
   * Answers the pending yield (tool approval or pause) that the console shows, named by
   * the `seq` of the event that raised it; an answer to any other yield is ignored.
   */
  answer: (payload: ResumePayload, pendingSeq: number) => void;
  /** Leaves the console. */
  quit: () => void;
  /** Asks the run to pause at the next safe point (the first Ctrl+C). */
  requestPause?: () => void;
  /** Raises a spent budget dimension by its configured increment. */
  extend?: (dimension: BudgetDimension) => Promise<CommandResult>;
  /** Answers a reload of loop.yaml whose changes wait for a key (`seq` of its event): apply them, or keep the policy in force. */
  answerReload?: (seq: number, accept: boolean) => CommandResult;
  /** Answers the gate (resume confirmation). */
  confirm?: () => void;
  /** Suspends the console (Ctrl+Z): gives the terminal back and stops until `fg`. */
  /**
   * Applies the events the run recorded that the console has not shown yet (its pending
   * batch), so a key that quits or pauses decides on the run as it is, not as it was up to
   * a batch ago (a `q` right after the run started would otherwise quit without asking).
   */
  catchUp?: () => void;
  suspend?: () => void;
  /** Replay only: moves the event shown. */
  replay?: { step: (delta: number) => void; jump: (to: 'start' | 'end') => void };
}

/** Console settings that are not session data. */
export interface ConsoleOptions {
  /** How long a prompt is on screen before its keys answer it (ms). */
  armMs: number;
  /** How long a lone ESC waits for the rest of an escape sequence split across reads (ms). */
  escapeMs: number;
  /** How long the answer to a command stays in the footer before it goes (ms); a notice of work in progress stays. */
  noticeMs: number;
  /** The command that resumes this run, as this loopdeck was started and with the run's folder (`npx loopdeck resume .loopdeck/runs/…`), for the quit confirmation. */
  resumeCommand: string;
}

export const DEFAULT_OPTIONS: ConsoleOptions = { armMs: 200, escapeMs: ESCAPE_MS, noticeMs: 10_000, resumeCommand: 'loopdeck resume' };

const StoreContext = createContext<ConsoleStore | null>(null);
const ControllerContext = createContext<ConsoleController | null>(null);
const OptionsContext = createContext<ConsoleOptions>(DEFAULT_OPTIONS);

export function ConsoleProvider({
  store,
  controller,
  options,
  children,
}: {
  store: ConsoleStore;
  controller: ConsoleController;
  options?: Partial<ConsoleOptions>;
  children: ReactNode;
}) {
  // The focused field's window, kept from frame to frame (src/ui/line-viewport.ts).
  const viewport = useMemo(() => new LineViewport(), [store]);
  return (
    <StoreContext.Provider value={store}>
      <ControllerContext.Provider value={controller}>
        <OptionsContext.Provider value={{ ...DEFAULT_OPTIONS, ...options }}>
          <LineViewportContext.Provider value={viewport}>
            <KeypressProvider escapeMs={options?.escapeMs ?? ESCAPE_MS}>{children}</KeypressProvider>
          </LineViewportContext.Provider>
        </OptionsContext.Provider>
      </ControllerContext.Provider>
    </StoreContext.Provider>
  );
}

/**
 * A view of `store` that holds still while `held(state)` is true: it reads the state as it
 * was when it began to hold and tells its subscribers of no change, and once `held` is
 * false again it tells them and reads the live state. For a part of the screen that is
 * hidden (under an overlay) and stays mounted: it is not rendered again for every batch
 * of events while nobody sees it, and on showing again only what changed is.
 */
export function heldStore(store: ConsoleStore, held: (state: ConsoleState) => boolean): ConsoleStore {
  let holding: ConsoleState | null = null;
  const listeners = new Set<(state: ConsoleState, previous: ConsoleState) => void>();
  let unsubscribe: (() => void) | null = null;
  const changed = (state: ConsoleState, previous: ConsoleState) => {
    if (held(state) && holding !== null) return;
    if (!held(state)) holding = null;
    for (const listener of listeners) listener(state, previous);
  };
  return {
    ...store,
    getState() {
      const live = store.getState();
      if (!held(live)) {
        holding = null;
        return live;
      }
      holding ??= live;
      return holding;
    },
    subscribe(listener) {
      listeners.add(listener);
      unsubscribe ??= store.subscribe(changed);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && unsubscribe) {
          unsubscribe();
          unsubscribe = null;
        }
      };
    },
  };
}

/**
 * Its children read the console store through {@link heldStore}: while `held(state)` is
 * true they see the state as it was when it began to hold and are not rendered again.
 * `held` must be a stable function (defined at module level).
 */
export function HoldStore({ held, children }: { held: (state: ConsoleState) => boolean; children: ReactNode }) {
  const store = useContext(StoreContext);
  if (!store) throw new Error('HoldStore needs a ConsoleProvider');
  const view = useMemo(() => heldStore(store, held), [store, held]);
  return <StoreContext.Provider value={view}>{children}</StoreContext.Provider>;
}

/** Selects from the console store; select primitives or stable references only (or wrap in `useShallow`). */
export function useConsole<T>(selector: (state: ConsoleState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useConsole needs a ConsoleProvider');
  return useStore(store, selector);
}

/** The store itself, for event handlers that read the latest state. */
export function useConsoleStore(): ConsoleStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useConsoleStore needs a ConsoleProvider');
  return store;
}

export function useController(): ConsoleController {
  const controller = useContext(ControllerContext);
  if (!controller) throw new Error('useController needs a ConsoleProvider');
  return controller;
}

export function useConsoleOptions(): ConsoleOptions {
  return useContext(OptionsContext);
}
