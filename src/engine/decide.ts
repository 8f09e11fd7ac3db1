import { budgetUsage, type PendingYield, type SessionState } from './fold.js';
import type { DoneReason } from './machine.js';
import { exceededDimension } from './budget.js';
import { lapStep } from './patterns/laps.js';
import { planAndExecuteStep } from './patterns/plan-and-execute.js';
import { reactStep } from './patterns/react.js';
import { reflexionStep } from './patterns/reflexion.js';
import { pauseReasonLabel, stopReasonAt, type Finish, type PauseReason } from './reasons.js';
import type { BudgetDimension, ToolCall } from './types.js';
import { assertNever } from './events.js';
import { checkpointDue, currentLapEnd, endOfTurn } from './end-of-turn.js';
export { afterBudget } from './end-of-turn.js';
import type { HookDecision } from './hooks.js';
import { afterUnknown } from './checkpoint-unknown.js';
import { stagnationSummary, type DetectAction, type DetectPolicy, type PendingVerdict } from './verdicts.js';

/**
 * What the runner does next, as a value (docs/design.md, "Deciding the next step"). The
 * runner performs the step, appends the events it produces, folds them and asks again.
 */
export type Step =
  /** The run is over: nothing to do. */
  | { kind: 'finished'; reason: DoneReason }
  /** Ask the operator: a tool call waits for approval or a pause for its answer. */
  | { kind: 'ask_operator'; pending: PendingYield }
  /** PLANNING: have the pattern draft and commit a plan. */
  | { kind: 'plan'; plan: 'initial' | 'replan' | 'attempt' }
  /** EXECUTING with no open step: start one (hooks, `step.start`). */
  | { kind: 'start_step' }
  /** An open step without its agent turn: ask the agent. */
  | { kind: 'ask_agent' }
  /** An open step with a call of its turn not yet dispatched: run the tool (after the gates). */
  | { kind: 'run_tool'; call: ToolCall }
  /** An open step whose turn called no tool: end it. */
  | { kind: 'end_step' }
  /** A step whose end is recorded (its result, or `step.end`) and the run not yet REFLECTING (a resumed log): on to REFLECTING. */
  | { kind: 'end_tool' }
  /** Run the observers and record the baseline checkpoint, once, as the run starts (before the plan and the first turn). */
  | { kind: 'baseline' }
  /** Run the observers and record a checkpoint for this iteration. */
  | { kind: 'checkpoint'; iteration: number }
  /** Run the verify commands: after a claim, or to check a finished plan. */
  | { kind: 'verify'; trigger: 'claim' | 'check' }
  /** Reflexion: have the agent write the lesson of a failed attempt. */
  | { kind: 'reflect'; attempt: number; failure: string }
  /** Back to EXECUTING for the next step. */
  | { kind: 'execute' }
  /** Back to PLANNING (a replan or a new attempt). */
  | { kind: 'replan' }
  /** Fresh laps: record how this lap ended. */
  | { kind: 'end_lap'; lap: number; outcome: 'done' | 'not_done' }
  /** Fresh laps: start lap `lap` with a new agent. */
  | { kind: 'start_lap'; lap: number }
  /**
   * A budget limit is reached (the runner fires `on_budget_exceeded` and records it);
   * `recorded`: its `budget.warn` is in the log already (a resumed run), only what follows it is done.
   */
  | { kind: 'budget_exceeded'; dimension: BudgetDimension; used: number; limit: number; recorded?: true }
  /** A checkpoint's verdict whose detection event a crash left out: record it (`stagnation.detected`, `checkpoint.unknown`) with `action`. */
  | { kind: 'record_verdict'; verdict: 'stagnation' | 'unknown'; action: DetectAction }
  /** Pause and wait for the operator. */
  | { kind: 'pause'; reason: PauseReason; prompt: string }
  /** End the run. */
  | { kind: 'finish'; finish: Finish };

export type StepKind = Step['kind'];

/** The settings of loop.yaml the decisions read (a slice of `LoopPolicy`). */
export interface DecisionPolicy {
  pattern: 'react' | 'plan-and-execute' | 'reflexion';
  checkpointEvery: number;
  maxReplans: number;
  maxAttempts: number;
  laps: { enabled: boolean; max_laps: number; max_consecutive_failures: number };
  budget: { on_exhausted: 'pause' | 'abort'; increments: Record<BudgetDimension, number> };
  /** The detections' actions, for a verdict whose detection event is not recorded (absent: `pause`, the default). */
  detect?: DetectPolicy;
}

/**
 * Operator requests that are not events: a pause asked for (first Ctrl+C) and `/stop`
 * or `/stop --abort`. They act at the next safe point, the start of a step.
 */
export interface Intents {
  pause: string | null;
  stop: 'stop' | 'abort' | null;
  /** Why a `stop` was asked for when not by the operator's `/stop` (e.g. `stdout was closed`): the run's summary says it. */
  stopWhy?: string | null;
}

export const NO_INTENTS: Intents = { pause: null, stop: null };

/**
 * The time in epoch ms, or a reader of it: a reader is called once, and only when the
 * decision needs the time (the wall-clock budget at the start of a step), so a simulated
 * clock advances only there.
 */
export type Now = number | (() => number);

/**
 * The next step of a run, from its folded state alone: pure, no I/O, no clock of its own
 * (`now` is given for the wall-clock budget).
 *
 * An abort the operator asked for (`/stop --abort`) ends the run in any state but a
 * pending question. Order at the start of a step (EXECUTING, no open step): an abort, then a stop, then a
 * pause the operator asked for, then the budget in the order turns, tool calls, wall
 * clock, tokens, cost ({@link afterBudget}: the verifier first). Order after a step
 * (REFLECTING): the end of the turn ({@link endOfTurn}: a claim, a lap's end or a finished
 * plan is verified and a pass wins; then the budget), a lap's end, the checkpoint when
 * due, calls of the same turn still queued, then the pattern (or the lap) decides. Before
 * the first plan is drafted the baseline checkpoint is taken ({@link baselineDue}).
 */
export function nextStep(state: SessionState, policy: DecisionPolicy, now: Now, intents: Intents = NO_INTENTS): Step {
  if (state.done) return { kind: 'finished', reason: state.done.reason };
  if (state.abort) return { kind: 'finish', finish: { reason: 'aborted', summary: ABORTED_BEFORE_RESTART } };
  const machine = state.machine.state;
  if (machine === 'DONE') return endBeforeRestart(state, policy);
  if (state.pending) return { kind: 'ask_operator', pending: state.pending };
  // `/stop --abort` does not wait for a safe point: whatever was under way was killed when it was asked.
  if (intents.stop === 'abort' && state.machine.started) return { kind: 'finish', finish: { reason: 'aborted', summary: ABORTED_BY_OPERATOR, abort: true } };
  const verdict = verdictStep(state, policy);
  if (verdict) return verdict;
  switch (machine) {
    case 'IDLE':
      return { kind: 'plan', plan: 'initial' };
    case 'PLANNING':
      if (state.planCommitted) return { kind: 'execute' };
      if (baselineDue(state)) return { kind: 'baseline' };
      return { kind: 'plan', plan: state.plans === 0 ? 'initial' : policy.pattern === 'reflexion' ? 'attempt' : 'replan' };
    case 'EXECUTING':
      if (policy.laps.enabled && state.lap === 0) return { kind: 'start_lap', lap: 1 };
      if (state.stepOpen) return openStep(state);
      return state.stepEnded ? { kind: 'end_tool' } : startOfStep(state, policy, now, intents);
    case 'AWAITING_TOOL':
      return { kind: 'end_tool' };
    case 'REFLECTING':
      return afterStep(state, policy, now, intents);
    default:
      return assertNever(machine);
  }
}

/**
 * Whether the baseline checkpoint is still to be taken: the run is planning its first plan
 * and nothing has been drafted, started or checkpointed yet. A log cut before the baseline
 * takes it on resume; a log that has it (or any checkpoint, or a turn: an older log's run
 * that began without one) never takes it.
 */
export function baselineDue(state: Pick<SessionState, 'checkpoints' | 'turn' | 'step' | 'plans' | 'planDraft'>): boolean {
  return state.checkpoints.length === 0 && state.turn === 0 && state.step === 0 && state.plans === 0 && state.planDraft === null;
}

const ABORTED_BEFORE_RESTART = 'aborted before a restart: the workspace was parked and the report written as abort.recorded says';

/**
 * A log that ends DONE without its `session.complete` (a crash between the two): the end
 * was decided, so nothing runs again. The decision is made again from the state the run
 * left for DONE; its effects (a stash) are not repeated. An end that cannot be derived from
 * the log (an operator's `/stop`) ends `stopped`, saying so.
 */
function endBeforeRestart(state: SessionState, policy: DecisionPolicy): Step {
  const from = state.lastTransition?.to === 'DONE' ? state.lastTransition.from : null;
  if (from !== null && from !== 'DONE' && from !== 'IDLE') {
    const again = nextStep({ ...state, pending: null, machine: { ...state.machine, state: from } }, policy, state.lastAt ?? 0);
    if (again.kind === 'finish') return { kind: 'finish', finish: { ...again.finish, abort: false } };
  }
  if (from === 'IDLE' && state.pending?.kind === 'pause') {
    const summary = `stopped at a pause (${pauseReasonLabel(state.pending.reason)}), before a restart`;
    return { kind: 'finish', finish: { reason: stopReasonAt(state.pending.cause), summary } };
  }
  return { kind: 'finish', finish: { reason: 'stopped', summary: 'the run had ended before a restart; its reason was not recorded' } };
}

/**
 * The pause or end of the first verdict that waits for one (docs/design.md, "Resume
 * points"): a log cut between a verdict and its pause, or a restart at the pause of an
 * earlier verdict of the same checkpoint, acts on it now, as the live run did. A verdict
 * whose detection event is missing records it first; `null` when none waits.
 */
export function verdictStep(state: Pick<SessionState, 'verdicts'>, policy: DecisionPolicy): Step | null {
  for (const verdict of state.verdicts) {
    const step = stepOfVerdict(verdict, policy);
    if (step) return step;
  }
  return null;
}

function stepOfVerdict(v: PendingVerdict, policy: DecisionPolicy): Step | null {
  switch (v.kind) {
    case 'constraint':
      return afterDetection('constraint', v.action, v.lines.join('; '));
    case 'stagnation':
      if (v.action === null) return { kind: 'record_verdict', verdict: 'stagnation', action: policy.detect?.stagnation ?? 'pause' };
      return afterDetection('stagnation', v.action, stagnationSummary(v.counter, v.threshold));
    case 'unknown':
      if (v.action === null) return { kind: 'record_verdict', verdict: 'unknown', action: policy.detect?.unknown ?? 'pause' };
      return afterUnknown(v.record, v.action)?.step ?? null;
    case 'repetition':
      return afterDetection('repetition', policy.detect?.repetition ?? 'pause', v.summary);
    case 'budget':
      return { kind: 'budget_exceeded', dimension: v.dimension, used: v.used, limit: v.limit, recorded: true };
    default:
      return assertNever(v);
  }
}

/** The rest of an open step: its agent turn, then each call of that turn, then its end. */
export function openStep(state: SessionState): Step {
  if (!state.stepHasTurn) return { kind: 'ask_agent' };
  const call = state.queued[0];
  return call ? { kind: 'run_tool', call } : { kind: 'end_step' };
}

const ABORTED_BY_OPERATOR = 'the operator aborted the run (/stop --abort)';

/** The safe point at the start of a step: operator requests, then the budget. */
export function startOfStep(state: SessionState, policy: DecisionPolicy, now: Now, intents: Intents): Step {
  const at = typeof now === 'function' ? now() : now;
  if (intents.stop === 'abort') return { kind: 'finish', finish: { reason: 'aborted', summary: ABORTED_BY_OPERATOR, abort: true } };
  if (intents.stop === 'stop') return { kind: 'finish', finish: { reason: 'stopped', summary: intents.stopWhy ?? 'stopped by the operator (/stop)' } };
  if (intents.pause !== null) return { kind: 'pause', reason: { kind: 'operator' }, prompt: `${intents.pause}. Continue, or stop?` };
  const usage = budgetUsage(state, at);
  const dimension = exceededDimension(usage, state.limits);
  if (!dimension) return { kind: 'start_step' };
  return { kind: 'budget_exceeded', dimension, used: usage[dimension], limit: state.limits[dimension]! };
}

/**
 * REFLECTING: first the end of the turn ({@link endOfTurn}: the verifier before any other
 * verdict, a pass wins, then the budget when a checkpoint is due); then a lap's end, the
 * checkpoint when due, queued calls, then the lap or the pattern.
 */
export function afterStep(state: SessionState, policy: DecisionPolicy, now: Now = 0, intents: Intents = NO_INTENTS): Step {
  const end = endOfTurn(state, policy, now, intents);
  if (end) return end;
  if (currentLapEnd(state)) return lapStep(state, policy);
  if (checkpointDue(state, policy)) return { kind: 'checkpoint', iteration: state.turn };
  if (state.queued.length > 0) return { kind: 'execute' };
  if (state.lap > 0) return lapStep(state, policy);
  switch (policy.pattern) {
    case 'react':
      return reactStep(state);
    case 'plan-and-execute':
      return planAndExecuteStep(state, policy);
    case 'reflexion':
      return reflexionStep(state, policy);
    default:
      return assertNever(policy.pattern);
  }
}

/**
 * What follows a stagnation or repetition detection (`on_detect`) or a violated constraint
 * (`goal.on_violation`): `alert` goes on (`null`), `pause` asks the operator, `stop` ends
 * the run. A stagnation stop is the circuit breaker (abort: stash and report); a
 * repetition or constraint stop ends the run `stopped` (the workspace is left as it is).
 */
export function afterDetection(kind: 'stagnation' | 'repetition' | 'constraint', action: 'alert' | 'pause' | 'stop', summary: string): Step | null {
  if (action === 'alert') return null;
  if (action === 'stop') {
    return { kind: 'finish', finish: kind === 'stagnation' ? { reason: 'aborted', summary, abort: true } : { reason: 'stopped', summary } };
  }
  const ask = kind === 'repetition' ? 'Continue (the call runs), redirect the goal, or stop?' : 'Continue, redirect the goal (/goal redirect <text>), or stop?';
  return { kind: 'pause', reason: { kind }, prompt: `${summary}. ${ask}` };
}

/**
 * A hook's decision at `before_step` or `after_plan`: its `pause` pauses the run (a `hook`
 * pause, with the hook's prompt); any other decision is the caller's (`null`).
 */
export function hookPause(decision: HookDecision | null): Step | null {
  return decision?.type === 'pause' ? { kind: 'pause', reason: { kind: 'hook' }, prompt: decision.prompt } : null;
}

/** After `after_plan`: a plan with no steps ends the run `no_plan`; otherwise it is committed (`null`). */
export function afterPlan(steps: readonly string[]): Step | null {
  return steps.length === 0 ? { kind: 'finish', finish: { reason: 'no_plan', summary: 'the plan has no steps' } } : null;
}

/** Whether the verifier already ran after the current step (of the current lap). */
export function verifiedThisStep(state: SessionState): boolean {
  const v = state.lastVerify;
  return v !== null && v.step === state.step && v.lap === state.lap;
}

