import type { BudgetDimension } from '../../engine/types.js';
import type { OperatorCommand } from '../../engine/operator-command.js';
import type { ResumePayload } from '../../engine/session.js';
import type { ConsoleData } from '../store.js';
import type { ViewActions, ViewState } from '../view.js';
import type { NoticeAbout, NoticeWhile } from '../store.js';

/**
 * The shape shared by the console's key reducers: one small pure function per key scope
 * takes what the console shows and the command a key resolved to, and returns the view
 * slices' named actions to take and the effects to perform, in order. They never call the
 * controller, read the clock or touch the store: the key runner (use-console-keys.ts)
 * calls the actions on the store and performs the effects, as a state machine's runner
 * performs the effects its pure transition returns.
 */

/** What the layout tells the key reducers. */
export interface KeyLayout {
  /** The body shows one view at a time (timeline or a panel) rather than both. */
  single: boolean;
  /** Rows of the timeline, for page up/down. */
  page: number;
  /** The body's size, where overlays scroll. */
  width: number;
  body: number;
  /** The arguments view (`v`): rows it shows and its width in cells. */
  args?: { shown: number; width: number };
}

/** What a key reducer reads: the console's data (session fold, held events, view); the layout comes apart. */
export type KeyInput = Pick<ConsoleData, 'session' | 'events' | 'shown' | 'replay' | 'gate'> & Partial<Pick<ConsoleData, 'following'>> & ViewState;

/**
 * A view slice's action as data: its name and its arguments, e.g. `['openBar', '/']` or
 * `['select', 12]`. The runner calls the store's action of that name with them.
 */
export type ViewAction = { [K in keyof ViewActions]: [K, ...Parameters<ViewActions[K]>] }[keyof ViewActions];

/** Something the runner does for a reducer, in the order listed. */
export type Effect =
  /** Answer the yield raised by the event `seq` (ignored if it is no longer pending). */
  | { kind: 'answer'; payload: ResumePayload; seq: number }
  /**
   * Show a line to the operator (`ok: false` in the warning colour; `info`: muted, no tick);
   * `about` names the panel whose state it describes, `while` the state of the run it is true in.
   */
  | { kind: 'notice'; ok: boolean; text: string; info?: boolean; about?: NoticeAbout; while?: NoticeWhile }
  /** Take away the notice shown if it is `about` that panel (it described a place the operator has since left). */
  | { kind: 'clear-notice'; about: NoticeAbout }
  /** Raise the spent `dimension` by its configured increment, then continue the pause `seq`. */
  | { kind: 'extend'; dimension: BudgetDimension; seq: number }
  /** Carry out an operator command from the command bar, then {@link commandDone}. */
  | { kind: 'operator'; command: OperatorCommand }
  | { kind: 'confirm' }
  /** Answer the reload of loop.yaml recorded at `seq` whose changes wait for a key: apply them, or keep the policy in force. */
  | { kind: 'answer-reload'; seq: number; accept: boolean }
  | { kind: 'quit' }
  | { kind: 'request-pause' }
  /** Suspend the console (Ctrl+Z): the terminal is given back until the shell continues it. */
  | { kind: 'suspend' }
  | { kind: 'replay-step'; delta: number }
  | { kind: 'replay-jump'; to: 'start' | 'end' };

/** A reducer's answer: the view actions to take, then the effects to perform, each in order. */
export interface Reduction {
  actions: ViewAction[];
  effects: Effect[];
}

/** A reduction that takes the view `actions` and then performs `effects`. */
export function act(actions: ViewAction[], ...effects: Effect[]): Reduction {
  return { actions, effects };
}

/** A reduction that only performs `effects` (or nothing). */
export function only(...effects: Effect[]): Reduction {
  return { actions: [], effects };
}

/** Calls each of `actions` on the store's state, in order (`state` holds the view slices' actions). */
export function dispatch(state: ViewActions, actions: readonly ViewAction[]): void {
  for (const [name, ...args] of actions) (state[name] as (...values: unknown[]) => void)(...args);
}
