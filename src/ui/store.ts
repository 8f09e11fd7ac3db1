import type { RunWait } from '../engine/run/wait-guard.js';
import { createStore, type StateCreator, type StoreApi } from 'zustand/vanilla';
import type { LoopEvent } from '../engine/events.js';
import { fold, INITIAL_STATE, type SessionState } from '../engine/fold.js';
import { createDashboardSlice } from './slices/dashboard.js';
import { createInputSlice } from './slices/input.js';
import { createOverlaySlice } from './slices/overlay.js';
import { createPromptSlice } from './slices/prompt.js';
import type { ViewActions, ViewState } from './view.js';
import { foldGauge, gaugeAt, type ContextGauge } from './context-gauge.js';
import type { OutlineInfo } from './outline.js';

/** Where a replay stands: the event shown (`index`, 0-based) of `total`. */
export interface ReplayPosition {
  index: number;
  total: number;
}

/**
 * What the console renders: the fold of the events, the events themselves, the status
 * line, and the view (the fields of the four view slices, at the top level).
 */
/**
 * What a notice describes, when it is the state of a place on screen rather than the answer
 * to a command: `tool-panel`, the call the tool call panel shows; `command-line`, the line
 * in the command bar (why it is not a command, or why it failed). Such a notice goes as
 * soon as the operator moves away from that place (the bar closes, or another line is sent).
 */
export type NoticeAbout = 'tool-panel' | 'command-line';

/**
 * A state of the run that a notice is true only while it lasts: `no-tool-call`, the run
 * has made no tool call yet; `running`, the run has not finished. The store takes such a
 * notice away as soon as the fold of the events no longer shows that state (a call arrived,
 * the run finished), whatever the notice's expiry.
 */
/**
 * A confirmation before anything runs: `resume`, resuming a run from its log; `start`,
 * starting a run that the checks of its loop.yaml warned about. `warnings`: every warning
 * of the preparation, each shown whole (as many as fit, then how many more).
 */
export interface Gate {
  kind: 'resume' | 'start';
  warnings: readonly string[];
}

export type NoticeWhile = 'no-tool-call' | 'running';

/** A line to the operator above the footer (see {@link ConsoleData.notice}). */
export interface Notice {
  /** `false`: a warning, in the warning colour with `✗`; `true`: a success with `✓`, unless `info`. */
  ok: boolean;
  text: string;
  /** What the console is doing now (e.g. preparing the run): muted, never expires. */
  working?: boolean;
  /** Information, not the success of an action: muted, without the success tick. */
  info?: boolean;
  /** The place on screen it describes; it goes when the operator leaves that place. */
  about?: NoticeAbout;
  /** The state of the run it describes; it goes when that state ends. */
  while?: NoticeWhile;
}

/** Whether `state` still holds in `session` (a notice `while` it goes when not). */
export function noticeHolds(state: NoticeWhile, session: SessionState): boolean {
  return state === 'no-tool-call' ? session.toolOrder.length === 0 : session.done === null;
}

/** The notice to keep once the session is `session`: `null` when it describes a state that ended. */
function currentNotice(notice: Notice | null, session: SessionState): Notice | null {
  return notice?.while && !noticeHolds(notice.while, session) ? null : notice;
}

export interface ConsoleData extends ViewState {
  /** The fold of the events shown: the only session data the panels read. */
  session: SessionState;
  /**
   * The events held for the timeline and the event overlay: live, the newest
   * {@link LIVE_EVENTS} (the log keeps them all); a replay, a window of the log: the
   * {@link LIVE_EVENTS} up to the cursor at most, and a few after it. A new array per
   * batch. The session fold covers every event, held or not.
   */
  events: readonly LoopEvent[];
  /**
   * How many older events are not held: live, those let go to keep `events` at
   * {@link LIVE_EVENTS}; in a replay, the events of the log before the window.
   */
  dropped: number;
  /** How many of `events` are shown: all of them live; up to the cursor in a replay. */
  shown: number;
  /** Set in a replay: nothing can be answered or changed. */
  replay: ReplayPosition | null;
  /**
   * A console over a session loopdeck does not run (`watch`, `attach`): quitting stops
   * nothing there, so it is not asked for as a live run's quit is.
   */
  following: boolean;
  /**
   * What the launcher knew before the run was prepared: the goal's objective and the run
   * id its outline showed (src/ui/outline.ts), as untrusted text. The header shows them
   * until the fold has a `session.start`, which replaces them (and clears this), so the
   * console's first frame keeps what the outline showed. `null`: nothing known.
   */
  preparing: OutlineInfo | null;
  /** The estimated size of the agent's next request against its context window; `null` when the agent does not measure it. */
  context: ContextGauge | null;
  /**
   * The answer to the operator's last command or key; with `working`, what the console
   * is doing now (e.g. preparing the run), shown muted rather than as a success.
   */
  notice: Notice | null;
  /** What to confirm before anything runs (resuming a run, starting one despite warnings), or `null`. */
  gate: Gate | null;
  /** Epoch ms at which the pending approval is denied unanswered; `null`: no limit. */
  approvalDeadline: number | null;
  /** What the live run waits on now (the model, a tool); `null` when it waits on nothing (or in a replay). */
  wait: RunWait | null;
}

/** The session slice's actions: what the event stream and the replay cursor do. */
export interface SessionActions {
  /** Folds events into the state in one update. */
  apply: (events: readonly LoopEvent[]) => void;
  /**
   * Replay: shows the state as of `position.index` (the fold of the log's events up to it),
   * with `held`, the window of events around it (`start`: the log position of its first).
   */
  showReplay: (position: ReplayPosition, session: SessionState, held: ReplayWindow) => void;
}

/** The events a replay holds: `events` are the log's events from position `start` on. */
export interface ReplayWindow {
  events: readonly LoopEvent[];
  start: number;
}

/** The status slice's actions: the answer line, the resume gate, the approval countdown. */
export interface StatusActions {
  setNotice: (notice: ConsoleState['notice']) => void;
  setGate: (gate: Gate | null) => void;
  setApprovalDeadline: (deadline: number | null) => void;
  /** What the run waits on now (from the session's live wait reports). */
  setWait: (wait: RunWait | null) => void;
}

/**
 * The console store: six slices, each with its data and its named actions (zustand's
 * slices pattern): the session (the fold and the held events), the status line, and the
 * view's overlay, input, dashboard and prompt slices (slices/).
 */
export type ConsoleState = ConsoleData & SessionActions & StatusActions & ViewActions;
export type ConsoleStore = StoreApi<ConsoleState>;

/**
 * Events a live console holds for its timeline: the newest this many. A long run's log
 * can hold millions; the console's memory stays bounded (about 9 MB for these), and the
 * fold behind every panel still sees every event.
 */
export const LIVE_EVENTS = 10_000;

/** `events` cut to the newest `limit`, with how many were cut. */
function newest(events: readonly LoopEvent[], limit: number): { events: readonly LoopEvent[]; cut: number } {
  const cut = Math.max(0, events.length - limit);
  return { events: cut > 0 ? events.slice(cut) : events, cut };
}

/**
 * The held event with sequence number `seq`, or `undefined` when it is not held (let go
 * from a live console, or never seen). Sequence numbers count up by one, so this is an
 * index lookup; a gap falls back to a search.
 */
export function eventBySeq(events: readonly LoopEvent[], seq: number): LoopEvent | undefined {
  const first = events[0];
  if (!first) return undefined;
  const guess = events[seq - first.seq];
  return guess?.seq === seq ? guess : events.find((e) => e.seq === seq);
}

/**
 * A vanilla store fed by the same {@link fold} that replay uses. Each console (and each
 * test) builds its own and passes it through React context.
 */
export function createConsoleStore(
  events: readonly LoopEvent[] = [],
  options: { replay?: ReplayPosition; session?: SessionState; following?: boolean; windowStart?: number; preparing?: OutlineInfo } = {},
): ConsoleStore {
  const replay = options.replay ?? null;
  // A replay's `events` are a window of the log starting at `windowStart` (default: the whole log).
  const start = options.windowStart ?? 0;
  const held = replay ? { events: [...events], cut: start } : newest([...events], LIVE_EVENTS);
  const session: StateCreator<ConsoleState, [], [], Pick<ConsoleData, 'session' | 'events' | 'dropped' | 'shown' | 'replay' | 'following' | 'preparing' | 'context'> & SessionActions> = (set) => ({
    session: options.session ?? fold(replay ? events.slice(0, replay.index - start + 1) : events, INITIAL_STATE),
    events: held.events,
    dropped: held.cut,
    shown: replay ? replay.index - start + 1 : held.events.length,
    replay,
    following: options.following ?? false,
    preparing: options.preparing ?? null,
    context: replay ? gaugeAt(events, replay.index - start) : foldGauge(events),
    apply: (batch) =>
      set((s) => {
        const { events, cut } = newest(s.events.concat(batch), LIVE_EVENTS);
        const session = fold(batch, s.session);
        // The fold's session.start is the source of truth from then on.
        const preparing = session.session === null ? s.preparing : null;
        const notice = currentNotice(s.notice, session);
        return { session, events, dropped: s.dropped + cut, shown: events.length, preparing, context: foldGauge(batch, s.context), notice };
      }),
    showReplay: (position, session, held) =>
      set((s) => ({
        session,
        notice: currentNotice(s.notice, session),
        shown: position.index - held.start + 1,
        replay: s.replay?.index === position.index && s.replay.total === position.total ? s.replay : position,
        events: held.events,
        dropped: held.start,
        context: gaugeAt(held.events, position.index - held.start),
      })),
  });
  return createStore<ConsoleState>()((...a) => ({
    ...session(...a),
    ...statusSlice(...a),
    ...createOverlaySlice(...a),
    ...createInputSlice(...a),
    ...createDashboardSlice(...a),
    ...createPromptSlice(...a),
  }));
}

/** The status slice: the answer line, the resume gate, the approval countdown. */
const statusSlice: StateCreator<ConsoleState, [], [], Pick<ConsoleData, 'notice' | 'gate' | 'approvalDeadline' | 'wait'> & StatusActions> = (set) => ({
  notice: null,
  gate: null,
  approvalDeadline: null,
  wait: null,
  setWait: (wait) => set({ wait }),
  setNotice: (notice) => set({ notice }),
  setGate: (gate) => set({ gate }),
  setApprovalDeadline: (approvalDeadline) => set({ approvalDeadline }),
});

/**
 * Milliseconds between store updates in the live console: Ink writes at most 30 frames a
 * second, and every update costs a React render, a Yoga layout and a text pass, so events
 * are applied ten times a second at most. Keypresses do not wait for it; they update the
 * store at once.
 */
export const LIVE_BATCH_MS = 100;

/**
 * Feeds a store from an event stream, one store update per `intervalMs` at most, so a
 * burst of events costs one React render per frame rather than one per event. `apply`
 * takes each batch (default: the store's own `apply`). When the interval is up, the batch
 * waits for the input already read in that turn of the event loop (it is applied in a
 * `setImmediate`, which Node runs after reading input): a key that came in while the last
 * frame was drawn gets its frame first, rather than waiting behind the batch's.
 * @returns `push` for each event, `flush` to apply what is pending now, `stop` to drop the timer
 */
export function batchInto(
  store: ConsoleStore,
  intervalMs = 16,
  apply: (batch: LoopEvent[]) => void = (batch) => store.getState().apply(batch),
): { push: (event: LoopEvent) => void; flush: () => void; stop: () => void } {
  let pending: LoopEvent[] = [];
  let timer: NodeJS.Timeout | null = null;
  let yielded: NodeJS.Immediate | null = null;
  const stop = () => {
    if (timer) clearTimeout(timer);
    if (yielded) clearImmediate(yielded);
    timer = null;
    yielded = null;
  };
  const flush = () => {
    stop();
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    apply(batch);
  };
  const due = () => {
    timer = null;
    yielded = setImmediate(flush);
  };
  return {
    push(event) {
      pending.push(event);
      if (!timer && !yielded) timer = setTimeout(due, intervalMs);
    },
    flush,
    stop,
  };
}
