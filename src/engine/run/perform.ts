import type { Step } from '../decide.js';
import { AgentError } from '../errors.js';
import { assertNever } from '../events.js';
import { INTERRUPTED_REASON, type PendingYield } from '../fold.js';
import { patternMismatch } from '../patterns.js';
import { askAgent } from './ask-agent.js';
import { answerPause, pause } from './ask-operator.js';
import { baselineStep, checkpointStep, recordVerdict } from './checkpoint-step.js';
import type { RunContext } from './context.js';
import { end } from './finish.js';
import { startLap } from './laps.js';
import { planStep } from './plan-step.js';
import { decideAndRun, runToolStep } from './run-tool.js';
import { endStep, startStep } from './start-step.js';
import type { Done, Gen } from './types.js';
import { budgetExceededStep, verifyStep } from './verify-step.js';

/** The prompt of a tool call asked about again after a restart. */
export const REASK_REASON = 'issued before a restart without a recorded result; approve to run it again';

/**
 * Performs one decided step: its effects, recorded as events (docs/design.md, "The
 * runner"). Every kind of {@link Step} has its executor here.
 * @returns the outcome when the step ended the run, else `undefined`
 */
export async function* performStep(ctx: RunContext, step: Step): Gen<Done> {
  switch (step.kind) {
    case 'finished':
      return ctx.state.done ?? undefined;
    case 'ask_operator':
      return yield* askOperator(ctx, step.pending);
    case 'plan':
      return yield* planStep(ctx, step.plan);
    case 'start_step':
      return yield* startStep(ctx);
    case 'ask_agent':
      return yield* askAgent(ctx, ctx.state.step);
    case 'run_tool':
      return yield* runToolStep(ctx, ctx.state.step, step.call);
    case 'end_step':
      return endStep(ctx);
    case 'end_tool':
      return void ctx.go('REFLECTING');
    case 'baseline':
      return void (await baselineStep(ctx));
    case 'checkpoint':
      return yield* checkpointStep(ctx, step.iteration);
    case 'verify':
      return void (await verifyStep(ctx, step.trigger));
    case 'reflect':
      return reflect(ctx, step.attempt, step.failure);
    case 'execute':
      return void ctx.go('EXECUTING');
    case 'replan':
      return void ctx.go('PLANNING');
    case 'end_lap':
      return void ctx.emit('lap.end', { lap: step.lap, outcome: step.outcome, ...(step.outcome === 'not_done' ? { note: 'the verifier failed' } : {}) });
    case 'start_lap':
      return void (await startLap(ctx, step.lap));
    case 'budget_exceeded':
      return yield* budgetExceededStep(ctx, step);
    case 'record_verdict':
      return void recordVerdict(ctx, step.verdict, step.action);
    case 'pause':
      // An operator's pause request is answered by this pause.
      if (step.reason.kind === 'operator') ctx.intents.pause = null;
      return yield* pause(ctx, step.reason, step.prompt);
    case 'finish':
      return end(ctx, step.finish);
    default:
      return assertNever(step);
  }
}

/**
 * A yield recorded in the log and not answered (a resumed run): a pause is answered; a tool
 * call issued before a restart without a recorded result is asked about again before it
 * re-runs, then the step goes on to REFLECTING.
 */
async function* askOperator(ctx: RunContext, pending: PendingYield): Gen<Done> {
  if (pending.kind === 'pause') return yield* answerPause(ctx, pending.cause, pending.prompt, pending.from);
  const done = yield* decideAndRun(ctx, pending.call, true, pending.interrupted ? INTERRUPTED_REASON : REASK_REASON, pending.interrupted);
  if (done) return done;
  if (ctx.state.machine.state !== 'REFLECTING') ctx.go('REFLECTING');
  return undefined;
}

/** Reflexion: the agent's lesson of a failed attempt, recorded as `reflection.recorded`. */
async function reflect(ctx: RunContext, attempt: number, failure: string): Promise<Done> {
  const agent = ctx.agent;
  const mismatch = patternMismatch(agent, 'reflexion');
  if (mismatch !== null || !agent.reflect) throw new AgentError(mismatch ?? `${agent.name} cannot reflect`);
  const text = await agent.reflect({ ...ctx.agentContext(), attempt, failure });
  ctx.emit('reflection.recorded', { attempt, text });
  return undefined;
}
