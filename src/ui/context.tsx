import React, { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { BudgetDimension, ResumePayload } from '../engine/index.js';
import type { ConsoleState, ConsoleStore } from './store.js';

/**
 * What the console may ask of whoever runs it. The console never reaches into the
 * engine: it answers yields and passes command-bar lines through these callbacks.
 */
export interface ConsoleController {
  /**
   * Answers the pending yield (tool approval or pause) that the console shows, named by
   * the `seq` of the event that raised it; an answer to any other yield is ignored.
   */
  answer: (payload: ResumePayload, pendingSeq: number) => void;
  /** Runs one command-bar line; returns the line to show. */
  command: (line: string) => Promise<{ ok: boolean; message: string }>;
  /** Leaves the console. */
  quit: () => void;
  /** Raises a spent budget dimension by its configured increment. */
  extend?: (dimension: BudgetDimension) => Promise<{ ok: boolean; message: string }>;
  /** Answers the gate (resume confirmation). */
  confirm?: () => void;
  /** Replay only: the event index shown, and moving it. */
  replay?: { step: (delta: number) => void; jump: (to: 'start' | 'end') => void };
}

const StoreContext = createContext<ConsoleStore | null>(null);
const ControllerContext = createContext<ConsoleController | null>(null);

export function ConsoleProvider({ store, controller, children }: { store: ConsoleStore; controller: ConsoleController; children: ReactNode }) {
  return (
    <StoreContext.Provider value={store}>
      <ControllerContext.Provider value={controller}>{children}</ControllerContext.Provider>
    </StoreContext.Provider>
  );
}

/** Selects from the console store; select primitives or stable references only. */
export function useConsole<T>(selector: (state: ConsoleState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useConsole needs a ConsoleProvider');
  return useStore(store, selector);
}

export function useController(): ConsoleController {
  const controller = useContext(ControllerContext);
  if (!controller) throw new Error('useController needs a ConsoleProvider');
  return controller;
}
