import { createStore, type StoreApi } from 'zustand/vanilla';
import { fold, INITIAL_STATE, type LoopEvent, type SessionState } from '../engine/index.js';

/** How many recent events the console keeps for its event list. */
export const RECENT_EVENTS = 200;

/** What the console renders: the fold of the events, and a few recent events to list. */
export interface ConsoleState {
  session: SessionState;
  recent: LoopEvent[];
  /** The answer to the operator's last command-bar line. */
  notice: { ok: boolean; text: string } | null;
  /** A question to confirm before anything runs (resuming a run), or `null`. */
  gate: string | null;
  /** Folds events into the state in one update. */
  apply: (events: readonly LoopEvent[]) => void;
  setNotice: (notice: ConsoleState['notice']) => void;
  setGate: (gate: string | null) => void;
}

export type ConsoleStore = StoreApi<ConsoleState>;

/**
 * A vanilla store fed by the same {@link fold} that replay uses. Each console (and each
 * test) builds its own and passes it through React context.
 */
export function createConsoleStore(events: readonly LoopEvent[] = []): ConsoleStore {
  return createStore<ConsoleState>()((set) => ({
    session: fold(events, INITIAL_STATE),
    recent: events.slice(-RECENT_EVENTS),
    notice: null,
    gate: null,
    apply: (batch) =>
      set((s) => ({
        session: fold(batch, s.session),
        recent: [...s.recent, ...batch].slice(-RECENT_EVENTS),
      })),
    setNotice: (notice) => set({ notice }),
    setGate: (gate) => set({ gate }),
  }));
}

/**
 * Feeds a store from an event stream, one store update per `intervalMs` at most, so a
 * burst of events costs one React render per frame rather than one per event.
 * @returns `push` for each event and `flush` to apply what is pending now
 */
export function batchInto(store: ConsoleStore, intervalMs = 16): { push: (event: LoopEvent) => void; flush: () => void } {
  let pending: LoopEvent[] = [];
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    store.getState().apply(batch);
  };
  return {
    push(event) {
      pending.push(event);
      timer ??= setTimeout(flush, intervalMs);
    },
    flush,
  };
}
