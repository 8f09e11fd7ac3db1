import { budgetName } from '../budget-units.js';
import { newWarnings } from '../budget.js';
import { afterBudget } from '../decide.js';
import { budgetUsage } from '../fold.js';
import type { BudgetDimension } from '../types.js';
import { runVerify } from '../verify.js';
import { targetsHold, targetVerdicts } from '../target-tests.js';
import { acceptanceVerdict, observationInput, observeForVerdict } from './acceptance-step.js';
import type { RunContext } from './context.js';
import type { Done, Gen } from './types.js';

/**
 * Runs the verify commands, measures the frozen target tests and checks the acceptance
 * matrix (one observation for both), and records `verify.result`: the goal passes only when
 * every verify command passes, every checkable criterion is `DONE` (docs/design.md, "The
 * acceptance matrix") and every target test passes ("Target tests": a verify command that
 * passes while the harness measures a target test failing, deleted or skipped is no pass).
 * @returns whether it passed
 */
export async function verifyStep(ctx: Pick<RunContext, 'state' | 'options' | 'signal' | 'emit' | 'hook'>, trigger: 'claim' | 'check'): Promise<boolean> {
  const verdict = await runVerify(ctx.options.policy.verify, ctx.options.workspace, ctx.signal);
  const observation = await observeForVerdict(ctx);
  const observers = ctx.options.policy.observe.map((o) => o.name);
  const targets = observation ? targetVerdicts(ctx.state.evaluator.targets, observationInput(observation), observers, observation.failures) : [];
  const acceptance = await acceptanceVerdict(ctx, observation);
  const passed = verdict.passed && (acceptance?.met ?? true) && targetsHold(targets);
  ctx.emit('verify.result', { passed, commands: verdict.commands, trigger, ...(acceptance ? { acceptance } : {}), ...(targets.length > 0 ? { targets } : {}) });
  return passed;
}

/**
 * A budget limit reached (at the start of a step, or at the end of a turn with a checkpoint
 * due): `on_budget_exceeded`, `budget.warn` (exceeded), then what {@link afterBudget}
 * decides: the verifier first in every pattern (a verdict of this step is reused; work
 * that meets the goal wins over the budget that ran out in it, and a lap then ends
 * `done`), then the pause or the end. A limit whose `budget.warn` is `recorded` (a log cut
 * before its pause) goes straight to what follows it.
 * @returns the outcome when the run ended here
 */
export async function* budgetExceededStep(ctx: RunContext, exceeded: { dimension: BudgetDimension; used: number; limit: number; recorded?: true }): Gen<Done> {
  const { dimension, used, limit } = exceeded;
  if (!exceeded.recorded) {
    await ctx.hook('on_budget_exceeded', { dimension, used, limit });
    ctx.emit('budget.warn', { dimension, used, limit, exceeded: true });
  }
  let next = afterBudget(ctx.state, ctx.decisions, exceeded);
  if (next.kind === 'verify') {
    await verifyStep(ctx, next.trigger);
    next = afterBudget(ctx.state, ctx.decisions, exceeded);
  }
  const lap = ctx.state.lap;
  if (lap > 0 && next.kind === 'finish' && next.finish.reason === 'goal_met' && ctx.state.lapEnd?.lap !== lap) {
    ctx.emit('lap.end', { lap, outcome: 'done', note: `the ${budgetName(dimension)} budget ran out, but the goal is met` });
  }
  return yield* ctx.perform(next);
}

/** `budget.warn` once per dimension when it crosses the warn fraction (below its limit); `now` in epoch ms. */
export function warnBudget(ctx: Pick<RunContext, 'state' | 'options' | 'emit'>, now: number): void {
  const usage = budgetUsage(ctx.state, now);
  const limits = ctx.state.limits;
  for (const dimension of newWarnings(usage, limits, ctx.options.policy.budget.warn_fraction, ctx.state.warned)) {
    if (usage[dimension] < limits[dimension]!) {
      ctx.emit('budget.warn', { dimension, used: usage[dimension], limit: limits[dimension]!, exceeded: false });
    }
  }
}
