import { IllegalTransitionError } from './errors.js';

/** The loop states of docs/design.md. */
export const LOOP_STATES = ['IDLE', 'PLANNING', 'EXECUTING', 'AWAITING_TOOL', 'REFLECTING', 'DONE'] as const;
export type LoopState = (typeof LOOP_STATES)[number];

/**
 * Why a session reached DONE. `aborted` is only the circuit breaker (the workspace parked
 * with `git stash`, a failure report written: `abort.recorded`); `failed` is a run the agent
 * could not carry on (its request failed for good, or `laps.max_consecutive_failures` laps
 * failed in a row), which parks nothing and writes no report (docs/design.md, "States").
 */
export const DONE_REASONS = ['goal_met', 'no_plan', 'stopped', 'exhausted', 'aborted', 'failed'] as const;
export type DoneReason = (typeof DONE_REASONS)[number];

/**
 * The reason a `session.complete` ends the run with (`recorded`, its `summary`, and whether
 * an `abort.recorded` came before it). Logs written before `failed` existed
 * ended a run the agent could not carry on `aborted` too (its request failed for good, or
 * laps failed in a row), with nothing parked: such an end, told by its summary and by no
 * `abort.recorded` before it, is read as `failed`, so that `aborted` means one outcome
 * only, the circuit breaker's (docs/design.md, "States").
 */
export function doneReason(recorded: DoneReason, summary: string, abortRecorded: boolean): DoneReason {
  if (recorded !== 'aborted' || abortRecorded) return recorded;
  return LEGACY_FAILURE.test(summary) ? 'failed' : recorded;
}

/** The summaries of the ends that logs before `failed` recorded as `aborted`. */
const LEGACY_FAILURE = /^(the agent failed: |\d+ laps in a row failed)/;

/**
 * Where the machine stands: the current state, and while IDLE after a pause,
 * the state it paused from (the only state a resume may return to).
 * `started` is false only for the fresh IDLE before `run()`.
 */
export interface MachineState {
  readonly state: LoopState;
  readonly pausedFrom: LoopState | null;
  readonly started: boolean;
}

/** The fresh IDLE machine of a session that has not run yet. */
export const INITIAL_MACHINE: MachineState = { state: 'IDLE', pausedFrom: null, started: false };

/** Legal targets per state, IDLE excepted ({@link nextMachine} says where IDLE may go). */
const TABLE: Readonly<Record<LoopState, readonly LoopState[]>> = {
  IDLE: ['PLANNING'],
  PLANNING: ['EXECUTING', 'DONE', 'IDLE'],
  EXECUTING: ['AWAITING_TOOL', 'REFLECTING', 'IDLE'],
  AWAITING_TOOL: ['REFLECTING', 'IDLE'],
  REFLECTING: ['EXECUTING', 'PLANNING', 'DONE', 'IDLE'],
  DONE: [],
};

/** True when `from -> to` is a legal change for this machine. */
export function canTransition(machine: MachineState, to: LoopState): boolean {
  return nextMachine(machine, to) !== undefined;
}

/**
 * The one function that changes the loop state (docs/design.md, "States").
 *
 * Pure: returns the next machine. Entering IDLE remembers the state paused from;
 * leaving IDLE on resume clears it.
 *
 * @param seq the `seq` of the event that caused the change, for the error
 * @throws IllegalTransitionError naming `from`, `to` and `seq` when the table forbids it
 */
export function transition(machine: MachineState, to: LoopState, seq: number): MachineState {
  const next = nextMachine(machine, to);
  if (next === undefined) throw new IllegalTransitionError(machine.state, to, seq);
  return next;
}

/**
 * The machine after `machine.state -> to`, or `undefined` when the table forbids it. A fresh
 * IDLE may only go to PLANNING; a paused IDLE may go back to the state it paused from, or
 * to DONE when the operator (or the headless policy) answers the pause with stop.
 */
function nextMachine(machine: MachineState, to: LoopState): MachineState | undefined {
  const { state: from } = machine;
  if (from === 'IDLE') {
    if (!machine.started) return to === 'PLANNING' ? RUNNING.get('PLANNING') : undefined;
    // A pause is answered by resuming where it stopped, or by stopping the run there.
    return machine.pausedFrom !== null && (to === machine.pausedFrom || to === 'DONE') ? RUNNING.get(to) : undefined;
  }
  // `to` may be a string just read from a log: compared with each target, never used as a key.
  for (const next of NEXT[LOOP_STATES.indexOf(from)] ?? []) if (next.state === to) return next;
  return undefined;
}

/**
 * The machines a transition can lead to, made once: the machine is never changed in place,
 * and a long log makes tens of thousands of transitions.
 */
const RUNNING: ReadonlyMap<LoopState, MachineState> = new Map(LOOP_STATES.map((state) => [state, { state, pausedFrom: null, started: true }]));
const PAUSED: ReadonlyMap<LoopState, MachineState> = new Map(LOOP_STATES.map((from) => [from, { state: 'IDLE', pausedFrom: from, started: true }]));

/** {@link TABLE} as the machines each running state may go to (IDLE: paused from it), in the order of {@link LOOP_STATES}. */
const NEXT: ReadonlyArray<readonly MachineState[]> = LOOP_STATES.map((from) => TABLE[from].map((to) => (to === 'IDLE' ? PAUSED.get(from)! : RUNNING.get(to)!)));
