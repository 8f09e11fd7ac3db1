import { afterPlan, hookPause } from '../decide.js';
import { AgentError } from '../errors.js';
import type { Goal } from '../types.js';
import { failureNote } from '../patterns/plan-and-execute.js';
import { patternMismatch } from '../patterns.js';
import type { RunContext } from './context.js';
import { startLap } from './laps.js';
import type { Done, Gen } from './types.js';
import { counted } from '../../text/count.js';

type PlanKind = 'initial' | 'replan' | 'attempt';

/**
 * PLANNING: draft a plan for the pattern (`plan.draft`; a draft the log holds uncommitted
 * is taken as it is), let `after_plan` edit it or pause, and commit it (`plan.commit`, EXECUTING); with fresh laps the first lap starts here. A
 * plan with no steps ends the run `no_plan`.
 * @throws AgentError when Plan-and-Execute's agent cannot plan
 */
export async function* planStep(ctx: RunContext, kind: PlanKind): Gen<Done> {
  const goal = ctx.state.goal!;
  const recorded = ctx.state.planDraft;
  const reason = reasonFor(ctx, kind);
  let steps: string[];
  if (recorded) {
    // A draft recorded before a restart is not asked for again.
    steps = [...recorded];
  } else {
    await ctx.hook('before_plan', { goal });
    steps = await draft(ctx, goal, kind);
    ctx.emit('plan.draft', { steps: [...steps] });
  }
  const payload = { goal, steps };
  // `after_plan` fires once per draft: a pause it decided before a restart is in the log (the
  // resume asked it again), so the draft as recorded is committed without a second run of the hook.
  const reviewed = recorded !== null && ctx.state.planReviewed;
  const after = reviewed ? { decision: null } : await ctx.hook('after_plan', payload);
  for (const next of [hookPause(after.decision), afterPlan(payload.steps)]) {
    const done = next ? yield* ctx.perform(next) : undefined;
    if (done) return done;
  }
  ctx.emit('plan.commit', { steps: [...payload.steps], kind, ...(reason ? { reason } : {}) });
  ctx.go('EXECUTING');
  if (ctx.options.policy.laps.enabled && ctx.state.lap === 0) await startLap(ctx, 1);
  return undefined;
}

/** Why this plan is drafted, as `plan.commit` says: the failed step of a replan, the reflections of a new attempt. */
function reasonFor(ctx: RunContext, kind: PlanKind): string | undefined {
  if (ctx.pattern === 'plan-and-execute' && kind === 'replan') return failureNote(ctx.state);
  if (ctx.pattern === 'reflexion' && kind === 'attempt') return `retry with ${counted(ctx.state.reflections.length, 'reflection')}`;
  return undefined;
}

/** The pattern's plan: one step for ReAct and each Reflexion attempt, the agent's for Plan-and-Execute. */
async function draft(ctx: RunContext, goal: Goal, kind: PlanKind): Promise<string[]> {
  switch (ctx.pattern) {
    case 'react':
      return [`${goal.objective} (ReAct: reason, act and observe until the verifier passes)`];
    case 'plan-and-execute': {
      const failed = reasonFor(ctx, kind);
      const agent = ctx.agent;
      const mismatch = patternMismatch(agent, 'plan-and-execute');
      if (mismatch !== null || !agent.plan) throw new AgentError(mismatch ?? `${agent.name} cannot plan`);
      return await agent.plan({ ...ctx.agentContext(), kind: kind === 'initial' ? 'initial' : 'replan', ...(failed ? { reason: failed } : {}) });
    }
    case 'reflexion':
      return [`attempt ${ctx.state.plans + 1}/${ctx.options.policy.patterns.reflexion.max_attempts}: ${goal.objective}`];
  }
}
