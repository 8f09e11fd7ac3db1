import type { BudgetDimension } from '../../engine/types.js';
import type { OperatorCommand } from '../../engine/operator-command.js';
import type { ResumePayload } from '../../engine/session.js';
import type { ConsoleState } from '../store.js';
import type { ViewState } from '../view.js';

/**
 * The shape shared by the console's key reducers: one small pure function per key scope
 * takes what the console shows and the command a key resolved to, and returns the next
 * view and the effects to perform, in order. They never call the controller, read the
 * clock or touch the store: the key runner (use-console-keys.ts) sets the view and
 * performs the effects, as a state machine's runner performs the effects its pure
 * transition returns.
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
}

/** What a key reducer reads: the console's state (session fold, held events, view) and the layout. */
export type KeyInput = Pick<ConsoleState, 'session' | 'events' | 'shown' | 'replay' | 'gate' | 'view'>;

/** Something the runner does for a reducer, in the order listed. */
export type Effect =
  /** Answer the yield raised by the event `seq` (ignored if it is no longer pending). */
  | { kind: 'answer'; payload: ResumePayload; seq: number }
  /** Show a line to the operator (`ok: false` in the warning colour). */
  | { kind: 'notice'; ok: boolean; text: string }
  /** Raise the spent `dimension` by its configured increment, then continue the pause `seq`. */
  | { kind: 'extend'; dimension: BudgetDimension; seq: number }
  /** Carry out an operator command from the command bar, then {@link commandDone}. */
  | { kind: 'operator'; command: OperatorCommand }
  | { kind: 'confirm' }
  | { kind: 'quit' }
  | { kind: 'request-pause' }
  | { kind: 'replay-step'; delta: number }
  | { kind: 'replay-jump'; to: 'start' | 'end' };

/** A reducer's answer: the next view (the same object when nothing changed) and the effects. */
export interface Reduction {
  view: ViewState;
  effects: Effect[];
}

/** A reduction that changes the view by `patch` and performs `effects`. */
export function change(input: KeyInput, patch: Partial<ViewState>, ...effects: Effect[]): Reduction {
  return { view: { ...input.view, ...patch }, effects };
}

/** A reduction that only performs `effects` (or nothing). */
export function only(input: KeyInput, ...effects: Effect[]): Reduction {
  return { view: input.view, effects };
}
