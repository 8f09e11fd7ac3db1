import { hookPause } from '../decide.js';
import type { RunContext } from './context.js';
import type { Done, Gen } from './types.js';

/**
 * EXECUTING with no open step: `before_step` (which may skip the step or pause first),
 * then `step.start`. A step is a queued tool call of the last turn, or a new agent turn.
 * @returns the outcome when the run was stopped at the hook's pause
 */
export async function* startStep(ctx: RunContext): Gen<Done> {
  const step = ctx.state.step + 1;
  const queued = ctx.state.queued[0];
  const turn = queued ? ctx.state.turn : ctx.state.turn + 1;
  const before = await ctx.hook('before_step', { step, turn });
  const title = queued ? `tool call ${queued.name} (same turn)` : stepTitle(ctx);
  if (before.decision?.type === 'skip') {
    ctx.emit('step.start', { step, turn: ctx.state.turn, title });
    ctx.emit('step.end', { step, outcome: 'skipped' });
    await ctx.hook('after_step', { step, outcome: 'skipped' });
    ctx.go('REFLECTING');
    return undefined;
  }
  const paused = hookPause(before.decision);
  if (paused) {
    const done = yield* ctx.perform(paused);
    if (done) return done;
  }
  ctx.emit('step.start', { step, turn, title });
  return undefined;
}

/** An open step whose turn called no tool: `step.end` (with the turn's thought), REFLECTING. */
export async function endStep(ctx: RunContext): Promise<Done> {
  const step = ctx.state.step;
  const thought = ctx.state.thought ?? undefined;
  ctx.emit('step.end', { step, outcome: 'ok', ...(thought ? { thought } : {}) });
  await ctx.hook('after_step', { step, outcome: 'ok' });
  ctx.go('REFLECTING');
  return undefined;
}

function stepTitle(ctx: RunContext): string {
  const { plan, planDone } = ctx.state;
  if (ctx.pattern === 'plan-and-execute') {
    const index = Math.min(planDone, plan.length - 1);
    return `plan step ${index + 1}/${plan.length}: ${plan[index] ?? ''}`;
  }
  return plan[0] ?? 'step';
}
