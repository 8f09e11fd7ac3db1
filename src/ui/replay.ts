import type { LoopEvent } from '../engine/events.js';
import { goalStatusText } from '../engine/goal.js';
import { fold, INITIAL_STATE, type SessionState } from '../engine/fold.js';
import type { CommandResult } from '../engine/operator-command.js';
import type { ConsoleController } from './context.js';
import { createConsoleStore, LIVE_EVENTS, type ConsoleStore, type ReplayWindow } from './store.js';

/**
 * What a replay reads a recorded run from: an array of events ({@link ReplayIndex}) or a
 * log file read lazily (`LogIndex`, src/engine/log-index.ts). `count` may grow while the
 * file is still being read (`complete` false).
 */
export interface ReplaySource {
  readonly count: number;
  readonly complete: boolean;
  /** Events `from` (inclusive) to `to` (exclusive). */
  read(from: number, to: number): LoopEvent[];
  /** The fold of events `0..index` (inclusive). */
  stateAt(index: number): SessionState;
  /** While the source is read: the last event whose state costs nothing to show (see `LogIndex.atHand`). */
  readonly atHand?: number;
}

/** Events between cached snapshots: stepping anywhere folds at most this many events. */
export const SNAPSHOT_EVERY = 1000;

/**
 * The state as of any event of a recorded run, fast: the fold of every
 * {@link SNAPSHOT_EVERY}th prefix is cached as it is first reached, and the state at
 * `index` is the nearest snapshot at or before it plus the events after it.
 */
export class ReplayIndex implements ReplaySource {
  /** `snapshots[i]` is the fold of `events[0 .. i * SNAPSHOT_EVERY)`. */
  private readonly snapshots: SessionState[] = [INITIAL_STATE];

  constructor(readonly events: readonly LoopEvent[]) {}

  readonly complete = true;

  get count(): number {
    return this.events.length;
  }

  /** A copy of `events[from..to)`. */
  read(from: number, to: number): LoopEvent[] {
    return this.events.slice(Math.max(0, from), to);
  }

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
  return `the log is damaged (${warnings.length} problem${warnings.length === 1 ? '' : 's'}, listed again on exit): ${withoutFile(warnings).join('; ')}`;
}

/** `events.jsonl:11: ...` as `line 11: ...` (the header shows the file). */
function withoutFile(lines: readonly string[]): string[] {
  return lines.map((w) => w.replace(/^.*?\.jsonl:(\d+): /, 'line $1: ').replace(/^.*?\.jsonl: /, ''));
}

/**
 * The notice a replay opens with after reading its log: the damage found
 * ({@link damageNotice}), else the lines a crash tore and a restart continued past (no
 * damage: `notes` of the reader), else none.
 */
export function readingNotice(warnings: readonly string[], notes: readonly string[]): { ok: boolean; text: string } | null {
  if (warnings.length > 0) return { ok: false, text: damageNotice(warnings) };
  if (notes.length > 0) return { ok: true, text: `the run was restarted after loopdeck stopped mid-write (listed again on exit): ${withoutFile(notes).join('; ')}` };
  return null;
}

/** Events a replay's window holds after the cursor, so stepping forward reads nothing. */
const AHEAD = 1000;

/**
 * The window of events a replay holds for `target`: the {@link LIVE_EVENTS} up to it (all
 * before it when the log is shorter) and up to {@link AHEAD} after it. `held` is kept when
 * it still fits; a window the cursor runs off the end of is extended, otherwise read anew.
 */
export function windowFor(source: ReplaySource, held: ReplayWindow, target: number): ReplayWindow {
  const end = held.start + held.events.length;
  const from = Math.max(0, target - LIVE_EVENTS + 1);
  if (target >= held.start && target < end && (held.start === 0 || held.start >= from - AHEAD) && held.start <= from) return held;
  if (target >= end && held.start <= from && from < end) {
    // Moving on past the end (following a log being read, or stepping): extend and trim.
    const more = source.read(end, Math.min(source.count, target + 1 + AHEAD));
    return { start: from, events: held.events.slice(from - held.start).concat(more) };
  }
  return { start: from, events: source.read(from, Math.min(source.count, target + 1 + AHEAD)) };
}

/**
 * A read-only console over a recorded run: the store starts at the last event; the
 * controller's `replay` moves the event shown; nothing can be answered or changed.
 * `warnings` and `notes` from reading the log are shown as the opening notice ({@link readingNotice}).
 * `source` is the events themselves or a log read lazily; the store holds only a window
 * of them around the cursor ({@link windowFor}). While a log is still being read, call
 * `refresh` after each step of reading: the cursor follows the events read until a key
 * moves it (End follows again), from snapshot to snapshot while the log is read.
 */
export function createReplay(
  source: ReplaySource | readonly LoopEvent[],
  onQuit: () => void,
  warnings: readonly string[] = [],
  notes: readonly string[] = [],
): { store: ConsoleStore; controller: ConsoleController; index: ReplaySource; refresh: () => void } {
  const index: ReplaySource = isSource(source) ? source : new ReplayIndex(source);
  const last = () => Math.max(0, index.count - 1);
  const opening = index.complete || index.atHand === undefined ? last() : Math.max(0, index.atHand);
  let held = windowFor(index, { start: 0, events: [] }, opening);
  let following = true;
  let endWindow: ReplayWindow | null = index.complete && opening === last() ? held : null;
  const store = createConsoleStore(held.events, { replay: { index: opening, total: index.count }, session: index.stateAt(opening), windowStart: held.start });
  const notice = readingNotice(warnings, notes);
  if (notice !== null) store.getState().setNotice(notice);
  const show = (to: number, force = false) => {
    const target = Math.max(0, Math.min(index.count - 1, to));
    const now = store.getState().replay;
    if (!force && target === now?.index && now.total === index.count) return;
    // The window at the last event is kept once the whole log is read: End parses nothing again.
    const atEnd = index.complete && target === index.count - 1;
    held = atEnd && endWindow ? endWindow : windowFor(index, held, target);
    if (atEnd) endWindow = held;
    // The state as of an event never changes: a refresh that leaves the cursor where it was folds nothing again.
    const session = target === now?.index ? store.getState().session : index.stateAt(target);
    store.getState().showReplay({ index: target, total: index.count }, session, held);
  };
  const readOnly = (): CommandResult => ({ ok: false, refused: true, message: 'this is a replay: nothing can be changed; only /goal status and /help are answered' });
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
      step: (delta) => {
        following = false;
        show((store.getState().replay?.index ?? last()) + delta);
      },
      jump: (to) => {
        following = to === 'end';
        show(to === 'start' ? 0 : following ? front() : last());
      },
    },
  };
  // Following the reading, the cursor moves from snapshot to snapshot: no state is folded or copied for it.
  const front = () => (index.complete || index.atHand === undefined ? last() : Math.max(0, index.atHand));
  const refresh = () => show(following ? front() : (store.getState().replay?.index ?? last()));
  return { store, controller, index, refresh };
}

function isSource(source: ReplaySource | readonly LoopEvent[]): source is ReplaySource {
  return !Array.isArray(source);
}
