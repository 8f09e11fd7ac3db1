import type { LoopEvent } from '../engine/events.js';
import { goalStatusText } from '../engine/goal.js';
import { fold, INITIAL_STATE, type SessionState } from '../engine/fold.js';
import type { ConsoleController } from './context.js';
import { createConsoleStore, type ConsoleStore } from './store.js';

/** Events between cached snapshots: stepping anywhere folds at most this many events. */
export const SNAPSHOT_EVERY = 1000;

/**
 * The state as of any event of a recorded run, fast: the fold of every
 * {@link SNAPSHOT_EVERY}th prefix is cached as it is first reached, and the state at
 * `index` is the nearest snapshot at or before it plus the events after it.
 */
export class ReplayIndex {
  /** `snapshots[i]` is the fold of `events[0 .. i * SNAPSHOT_EVERY)`. */
  private readonly snapshots: SessionState[] = [INITIAL_STATE];

  constructor(readonly events: readonly LoopEvent[]) {}

  /** The fold of `events[0..index]` (inclusive). */
  stateAt(index: number): SessionState {
    const count = Math.max(0, Math.min(this.events.length, index + 1));
    const slot = Math.floor(count / SNAPSHOT_EVERY);
    while (this.snapshots.length <= slot) {
      const i = this.snapshots.length;
      this.snapshots.push(fold(this.events.slice((i - 1) * SNAPSHOT_EVERY, i * SNAPSHOT_EVERY), this.snapshots[i - 1]));
    }
    return fold(this.events.slice(slot * SNAPSHOT_EVERY, count), this.snapshots[slot]);
  }

  /** Snapshots cached so far (for tests). */
  get cached(): number {
    return this.snapshots.length;
  }
}

/**
 * The notice a replay opens with when reading its log found damage: every warning, each
 * without the file name the header already shows (`events.jsonl:11: ...` becomes `line 11: ...`).
 */
export function damageNotice(warnings: readonly string[]): string {
  const short = warnings.map((w) => w.replace(/^.*?\.jsonl:(\d+): /, 'line $1: ').replace(/^.*?\.jsonl: /, ''));
  return `the log is damaged (${warnings.length} problem${warnings.length === 1 ? '' : 's'}, listed again on exit): ${short.join('; ')}`;
}

/**
 * A read-only console over a recorded run: the store starts at the last event; the
 * controller's `replay` moves the event shown; nothing can be answered or changed.
 * `warnings` from reading the log are shown as the opening notice ({@link damageNotice}).
 */
export function createReplay(
  events: readonly LoopEvent[],
  onQuit: () => void,
  warnings: readonly string[] = [],
): { store: ConsoleStore; controller: ConsoleController; index: ReplayIndex } {
  const index = new ReplayIndex(events);
  const last = Math.max(0, events.length - 1);
  const store = createConsoleStore(events, { replay: { index: last, total: events.length }, session: index.stateAt(last) });
  if (warnings.length > 0) store.getState().setNotice({ ok: false, text: damageNotice(warnings) });
  const show = (to: number) => {
    const target = Math.max(0, Math.min(events.length - 1, to));
    if (target === store.getState().replay?.index) return;
    store.getState().showReplay(target, index.stateAt(target));
  };
  const readOnly = () => ({ ok: false, message: 'this is a replay: nothing can be changed' });
  const controller: ConsoleController = {
    answer: () => undefined,
    // Reading is allowed: the goal as of the event shown.
    goalStatus: () => {
      const goal = store.getState().session.goal;
      return goal ? { ok: true, message: goalStatusText(goal) } : { ok: false, message: 'no goal yet at this event' };
    },
    reviseGoal: async () => readOnly(),
    extendBudget: readOnly,
    stop: readOnly,
    quit: onQuit,
    replay: {
      step: (delta) => show((store.getState().replay?.index ?? last) + delta),
      jump: (to) => show(to === 'start' ? 0 : events.length - 1),
    },
  };
  return { store, controller, index };
}
