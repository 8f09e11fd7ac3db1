/**
 * The end of a turn (docs/design.md, "The end of a turn"): which verdict wins when a turn
 * ends with a claim, a lap ends, a finished plan waits for its check, or the budget runs
 * out. The same order for ReAct, Plan-and-Execute, Reflexion and fresh laps:
 *
 * 1. the verifier, unless its last verdict was taken in this step of this lap (nothing ran
 *    since, so the workspace cannot have changed: the verdict is reused);
 * 2. a passing verdict wins: the goal is met, whatever else holds (a lap whose agent
 *    failed, a spent budget, a stagnation or repetition count);
 * 3. then the budget (`budget.on_exhausted`);
 * 4. then stagnation (the checkpoint due at this turn) and repetition (before the next
 *    call), which the caller asks after this.
 *
 * Pure: decisions from the folded state, as values.
 */
import { exceededDimension } from './budget.js';
import { budgetName, formatBudgetAmounts, raiseAmounts, spentText } from './budget-units.js';
import { verifiedThisStep, type DecisionPolicy, type Intents, type Now, type Step } from './decide.js';
import { activeSeconds, type SessionState } from './fold.js';
import type { BudgetDimension } from './types.js';

/** A spent budget dimension with what was used of it. */
export interface SpentBudget {
  dimension: BudgetDimension;
  used: number;
  limit: number;
}

/** What ended the turn and asks for a verdict: a claim, a lap's end, or a finished plan. */
export type TurnEnd = 'claim' | 'lap' | 'plan';

/**
 * The end-of-turn verdict after a step (REFLECTING), before the checkpoint and the pattern:
 * a claim, a lap's end (`not_done` or `error`, whatever the agent's exit) or a finished
 * plan goes to the verifier; a passing verdict ends the run `goal_met` (a lap first records
 * `done`); when a checkpoint is due, a spent budget is decided before it. An abort the
 * operator asked for skips the verifier (the start of the next step aborts).
 * @param now the time in epoch ms, read only when a checkpoint is due and the wall clock is bounded
 * @returns the step to take, or `null` when the checkpoint, the lap or the pattern decides
 */
export function endOfTurn(state: SessionState, policy: DecisionPolicy, now: Now, intents: Intents): Step | null {
  if (intents.stop === 'abort') return null;
  const lapEnd = currentLapEnd(state);
  if (lapEnd?.outcome === 'done') return null;
  if (!lapEnd && state.queued.length > 0) return null;
  const ended = turnEnd(state, policy);
  if (ended && needsVerdict(state)) return { kind: 'verify', trigger: ended === 'claim' ? 'claim' : 'check' };
  if (verifiedThisStep(state) && state.lastVerify?.passed) return goalMet(state, policy);
  if (lapEnd || !checkpointDue(state, policy)) return null;
  const spent = spentBudget(state, now);
  return spent ? { kind: 'budget_exceeded', ...spent } : null;
}

/**
 * What follows a budget limit once it is recorded (`budget_exceeded`), in every pattern and
 * in laps: the verifier (unless it ran in this step), a pass wins (`goal_met`), then
 * `budget.on_exhausted`: a pause asking to raise the limit, or the circuit breaker.
 */
export function afterBudget(state: SessionState, policy: DecisionPolicy, exceeded: SpentBudget): Step {
  if (needsVerdict(state)) return { kind: 'verify', trigger: state.finalClaim !== null ? 'claim' : 'check' };
  const { dimension, used, limit } = exceeded;
  const name = budgetName(dimension);
  const by = policy.budget.increments[dimension];
  if (state.lastVerify?.passed) {
    const summary = state.lap > 0 ? `the verifier passed in lap ${state.lap}` : `the verifier passed when the ${name} budget ran out (${spentText(dimension, used, limit)})`;
    return { kind: 'finish', finish: { reason: 'goal_met', summary } };
  }
  if (policy.budget.on_exhausted === 'abort') {
    return { kind: 'finish', finish: { reason: 'aborted', summary: `the ${name} budget is spent (${spentText(dimension, used, limit)})`, abort: true } };
  }
  // The amounts in the dimension's unit (dollars with the digits the increment needs too); the raise as `/budget` and `e` will name it.
  const [spentUsed, spentLimit] = formatBudgetAmounts(dimension, [used, limit, by]);
  const raise = raiseAmounts(dimension, limit, by).added;
  return {
    kind: 'pause',
    reason: { kind: 'budget_exceeded', dimension },
    prompt: `The ${name} budget is spent (${spentUsed} of ${spentLimit}). Raise it (/budget ${name} +${raise}) and continue, or stop.`,
  };
}

/**
 * The first budget dimension at or past its limit, in the order turns, tool calls, wall
 * clock, tokens, cost; `null` below every limit. `now` is read only when the wall clock is bounded.
 */
export function spentBudget(state: SessionState, now: Now): SpentBudget | null {
  const bounded = state.limits.wall_clock_seconds !== null;
  const seconds = bounded ? activeSeconds(state, typeof now === 'function' ? now() : now) : 0;
  const usage = { ...state.usage, wall_clock_seconds: seconds };
  const dimension = exceededDimension(usage, state.limits);
  return dimension ? { dimension, used: usage[dimension], limit: state.limits[dimension]! } : null;
}

/**
 * Whether the verifier must run: no verdict was taken in this step of this lap, or a claim
 * made after it waits. A verdict of this step is reused: nothing has run since, so the
 * workspace is as it was judged. (A verdict of an earlier step is never reused: the git
 * tree leaves out ignored files such as build output, and a verify command may read more
 * than the workspace.)
 */
function needsVerdict(state: SessionState): boolean {
  return !verifiedThisStep(state) || state.finalClaim !== null;
}

/** What the goal met looks like in this run: a lap ends `done` first; then the run ends with the claim it judged. */
function goalMet(state: SessionState, policy: DecisionPolicy): Step {
  const verdict = state.lastVerify!;
  if (state.lap > 0) {
    const lapEnd = currentLapEnd(state);
    if (!lapEnd) return { kind: 'end_lap', lap: state.lap, outcome: 'done' };
    const why = lapEnd.outcome === 'error' ? ` (the lap ended in an error: ${lapEnd.note ?? 'no detail'})` : '';
    return { kind: 'finish', finish: { reason: 'goal_met', summary: verdict.claim || `the verifier passed after lap ${state.lap}${why}` } };
  }
  if (policy.pattern === 'plan-and-execute' && verdict.trigger === 'check' && planFinished(state)) {
    return { kind: 'finish', finish: { reason: 'goal_met', summary: `all ${state.plan.length} plan steps done and the verifier passed` } };
  }
  return { kind: 'finish', finish: { reason: 'goal_met', summary: verdict.claim ?? 'the verifier passed' } };
}

function turnEnd(state: SessionState, policy: DecisionPolicy): TurnEnd | null {
  if (state.finalClaim !== null) return 'claim';
  if (currentLapEnd(state)) return 'lap';
  if (state.lap === 0 && policy.pattern === 'plan-and-execute' && !state.lastStepFailed && planFinished(state)) return 'plan';
  return null;
}

/** The end of the current lap when it is recorded (`lap.end`), else `null`. */
export function currentLapEnd(state: SessionState): SessionState['lapEnd'] {
  return state.lap > 0 && state.lapEnd !== null && state.lapEnd.lap === state.lap ? state.lapEnd : null;
}

/** Whether the checkpoint of this turn is due and not yet recorded (never while calls of the turn are queued). */
export function checkpointDue(state: SessionState, policy: DecisionPolicy): boolean {
  const turn = state.turn;
  const last = state.checkpoints[state.checkpoints.length - 1];
  return state.queued.length === 0 && turn > 0 && turn % policy.checkpointEvery === 0 && last?.iteration !== turn;
}

function planFinished(state: SessionState): boolean {
  return state.plan.length > 0 && state.planDone >= state.plan.length;
}
