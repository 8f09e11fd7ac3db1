import { freezeMatrix, hasCheckable } from '../acceptance.js';
import { protectBaseline, type ProtectBaseline } from '../constraints.js';
import { nextStep } from '../decide.js';
import { describeError, InvariantError, RunInterrupted, SessionStateError } from '../errors.js';
import { SCHEMA_VERSION } from '../events.js';
import { resolvePattern } from '../patterns.js';
import type { Goal } from '../types.js';
import { snapshotWorkspace } from './checkpoint-step.js';
import type { RunContext } from './context.js';
import { abortRun } from './finish.js';
import { recover } from './recover.js';
import { reapSurvivors } from './survivors.js';
import type { Gen, LoopOutcome } from './types.js';
import { warnBudget } from './verify-step.js';

/** Where a run begins: a new goal, or the log of an earlier process. */
export type RunEntry = { kind: 'start'; goal: Goal } | { kind: 'resume' };

/**
 * The runner (docs/design.md, "The runner"): asks {@link nextStep} for the next step of the
 * folded state, performs it (its events folded as they are recorded), and asks again,
 * until a step returns the outcome. An error no step expected (the engine's, or an agent
 * that cannot do what the pattern needs) is told to `on_error` and ends the run through
 * the circuit breaker (`aborted`).
 */
export async function* runLoop(ctx: RunContext, entry: RunEntry): Gen<LoopOutcome> {
  try {
    if (entry.kind === 'start') begin(ctx, entry.goal, await startingTree(ctx));
    else await reapSurvivors(ctx, () => recover(ctx));
    for (;;) {
      if (ctx.halted) throw new RunInterrupted();
      // Entering REFLECTING records the workspace's git state, once per step.
      if (ctx.state.machine.state === 'REFLECTING') await snapshotWorkspace(ctx);
      let read: number | undefined;
      const now = () => (read ??= ctx.clock());
      const step = nextStep(ctx.state, ctx.decisions, now, ctx.intents);
      if (step.kind === 'start_step' || step.kind === 'budget_exceeded') warnBudget(ctx, now());
      const done = yield* ctx.perform(step);
      if (done) return done;
    }
  } catch (error) {
    // Quit: the run stops where it is, nothing more is written.
    if (error instanceof RunInterrupted) throw error;
    const message = describeError(error);
    await ctx.hook('on_error', { source: 'engine', error: message });
    return await abortRun(ctx, `engine error: ${message}`);
  }
}

/** The working tree the `protect` constraints are checked against, when one has such a check. */
async function startingTree(ctx: RunContext): Promise<ProtectBaseline | undefined> {
  const protects = ctx.options.policy.goal.constraints.some((c) => typeof c !== 'string' && c.protect !== undefined);
  return protects ? await protectBaseline(ctx.options.workspace) : undefined;
}

/** `session.start` with the settings the log must carry, then PLANNING. */
function begin(ctx: RunContext, goal: Goal, baseline: ProtectBaseline | undefined): void {
  const { policy, workspace, policyDigest } = ctx.options;
  const chosen = resolvePattern(policy.pattern, policy.task);
  // The acceptance matrix is frozen here: only the operator's /goal revisions change it.
  const acceptance = freezeMatrix(goal.success_criteria, policy.goal.success_criteria);
  ctx.emit('session.start', {
    schemaVersion: SCHEMA_VERSION,
    goal,
    pattern: chosen.pattern,
    pattern_reason: chosen.why,
    budget: policy.budget.limits,
    workspace,
    checkpoint_every: policy.checkpoint.every_iterations,
    stagnation_threshold: policy.stagnation.checkpoints_without_observed_progress,
    builtin_gates: policy.approval.builtin_gates === 'off' ? 'off' : 'on',
    ...(policyDigest ? { policy_sha256: policyDigest } : {}),
    ...(baseline ? { protect_baseline: baseline } : {}),
    ...(hasCheckable(acceptance) ? { acceptance } : {}),
  });
  ctx.go('PLANNING');
}
