import { createHash } from 'node:crypto';
import type { AgentEventDraft } from '../agents/transcripts/record.js';
import { TurnInterrupted, type ModelWait } from '../agents/agent.js';
import type { Step } from '../decide.js';
import type { AgentTurn } from '../types.js';
import { costOf } from '../budget.js';
import { cloneData } from '../clone.js';
import { AgentError, describeError } from '../errors.js';
import type { RunContext } from './context.js';
import { finishRun } from './finish.js';
import type { Done, Gen } from './types.js';
import { awaitTurn } from './bridged-call.js';
import { budgetExceededStep } from './verify-step.js';
import { guardWait, wallClockSpent, type WaitGuard } from './wait-guard.js';
import { spentAnything, unreportedOf } from '../unmeasured-usage.js';
import { agentStopped, stoppedBy, watchAgent } from './agent-watch.js';

/**
 * The agent's turn of an open step, recorded as `model.call` (redacted; the calls run as
 * the agent sent them). An {@link AgentError} ends the step `error`: in a lap it ends the
 * lap, otherwise the run (`aborted`). Any other error is the engine's and propagates.
 *
 * The wait is guarded ({@link guardWait}): when the wall-clock budget runs out during it,
 * the request is cancelled and the budget step follows, as it would at the start of a
 * step; when the agent stops waiting for a pause asked for ({@link TurnInterrupted}), the
 * run pauses. Either way the step stays open with no turn: it is asked again afterwards.
 * A request cut short by `/stop --abort` ends the step and leaves the end of the run to
 * the abort (stash, report); one cut short by a quit writes nothing (`RunInterrupted`).
 * A CLI agent's parsed output is appended as it arrives and watched ({@link watchAgent}):
 * past a budget limit, at a repetition or a stagnation verdict its process group is stopped
 * and {@link agentStopped} ends the step and the lap and pauses; an agent run as a process
 * that the wall-clock budget killed ends the same way (a new lap follows, not the same one).
 * @returns the outcome when the agent's failure (or the budget) ended the run
 */
export async function* askAgent(ctx: RunContext, step: number): Gen<Done> {
  // The time of the event just recorded (the step's start, a resume): the wait begins now,
  // and a simulated clock is not advanced by a read of its own.
  const now = ctx.state.lastAt ?? ctx.clock();
  const spent = wallClockSpent(ctx, now);
  if (spent) return yield* budgetExceededStep(ctx, spent);
  // One signal for the agent: aborted by the guard (quit, abort, wall clock) or by the watch (a limit), whichever is first.
  const controller = new AbortController();
  const guard = guardWait(ctx, now, controller);
  const { onAgentText: onText, onWait } = ctx.options;
  const since = Date.now();
  const agent = ctx.agent.name;
  onWait?.({ kind: 'model', agent, since });
  // A CLI agent's own messages, tool calls and usage, appended as they arrive and checked against the limits.
  const watch = watchAgent(ctx, controller);
  let response: AgentTurn;
  try {
    // Calls the agent's pre-tool hook asks about are decided while the turn runs, and watched as its output is.
    response = yield* awaitTurn(ctx, ctx.agent.nextTurn({
      ...ctx.agentContext(),
      onEvent: (d: AgentEventDraft) => watch.onEvent(d),
      signal: controller.signal,
      // Read when the agent reads it: a turn that never does costs no signal.
      get interrupt() {
        return guard.interrupt;
      },
      ...(onText ? { onText } : {}),
      ...(onWait ? { onWait: (model: ModelWait) => onWait({ kind: 'model', agent, since, model }) } : {}),
    }), watch);
    await watch.settle();
  } catch (error) {
    await watch.settle();
    const stop = stoppedBy(ctx, watch, guard.cause);
    if (stop) {
      recordSpent(ctx, error);
      return yield* agentStopped(ctx, step, stop);
    }
    const interrupted = guardedEnd(ctx, guard.cause, error);
    if (interrupted) return yield* ctx.perform(interrupted);
    return agentFailed(ctx, step, error);
  } finally {
    guard.dispose();
    onWait?.(null);
  }
  if (watch.stop && !ctx.signal.aborted) {
    // The process ended by itself as it was being stopped: the stop stands, and what its run did not report is unknown.
    recordUnreported(ctx, unreportedOf(response));
    return yield* agentStopped(ctx, step, watch.stop);
  }
  const turn = ctx.state.turn + 1;
  const { hash, chars: requestChars } = requestDigest(ctx, turn);
  const cost = costOf(response.usage, ctx.options.policy.pricing);
  ctx.memory.turnCalls = cloneData(response.tool_calls);
  ctx.emit('model.call', {
    turn,
    request_hash: hash,
    response,
    usage: response.usage,
    cost_usd: cost,
    request_chars: requestChars,
    long_session_chars: requestChars + ctx.state.earlierLapsChars,
  });
  return undefined;
}

/** The step that follows a turn the guard cut short: the budget's, or the pause asked for; `null` for any other failure. */
function guardedEnd(ctx: RunContext, cause: WaitGuard['cause'], error: unknown): Step | null {
  if (ctx.signal.aborted) return null;
  const spent = cause === 'budget' ? wallClockSpent(ctx, ctx.clock()) : null;
  if (spent) return { kind: 'budget_exceeded', ...spent };
  if (error instanceof TurnInterrupted) {
    const reason = ctx.intents.pause ?? 'the operator asked to pause';
    return { kind: 'pause', reason: { kind: 'operator' }, prompt: `${reason}. Continue, or stop?` };
  }
  return null;
}

/**
 * Usage a failed turn spent (docs/design.md, "Budget"): the tokens were used, so they are
 * recorded as `agent.usage` and counted; what nothing reported is marked unknown.
 */
function recordSpent(ctx: RunContext, error: unknown): void {
  const spent = error instanceof AgentError ? error.spent : undefined;
  if (!spent || !spentAnything(spent)) return;
  const { usage, unreported } = spent;
  ctx.emit('agent.usage', {
    turn: ctx.state.turn + 1,
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cost_usd: costOf(usage, ctx.options.policy.pricing),
    ...(unreported.length > 0 ? { unreported } : {}),
  });
}

/** Marks usage dimensions a turn that is not recorded left unknown. */
function recordUnreported(ctx: RunContext, unreported: Array<'tokens' | 'cost_usd'>): void {
  if (unreported.length === 0) return;
  ctx.emit('agent.usage', { turn: ctx.state.turn + 1, input_tokens: null, output_tokens: null, cost_usd: null, unreported });
}

/**
 * The hash and size (characters of the goal and the history) of the request of `turn`,
 * chained: the last request's hash and size plus what is new in the history since
 * (O(new), not O(history)).
 */
function requestDigest(ctx: RunContext, turn: number): { hash: string; chars: number } {
  const history = ctx.state.history;
  const memory = ctx.memory;
  if (history.length < memory.request.count) memory.request = { count: 0, hash: '', chars: 0 };
  const added = JSON.stringify(history.slice(memory.request.count));
  const { goal, quoted } = goalText(ctx);
  const hash = createHash('sha256')
    // JSON.stringify({ previous, turn, goal }), the goal's text quoted once per goal.
    .update(`{"previous":${JSON.stringify(memory.request.hash)},"turn":${JSON.stringify(turn)},"goal":${quoted}}`)
    .update(added)
    .digest('hex')
    .slice(0, 16);
  const historyChars = memory.request.chars + added.length;
  memory.request = { count: history.length, hash, chars: historyChars };
  return { hash, chars: goal.length + historyChars };
}

/**
 * The goal as JSON text, and that text as a JSON string: computed again only when the
 * goal is another object (the fold replaces it, never changes it in place).
 */
function goalText(ctx: RunContext): { goal: string; quoted: string } {
  const goal = ctx.state.goal;
  const memory = ctx.memory;
  if (memory.goalText === undefined || memory.goalText.of !== goal) {
    const text = JSON.stringify(goal);
    memory.goalText = { of: goal, goal: text, quoted: JSON.stringify(text) };
  }
  return memory.goalText;
}

async function agentFailed(ctx: RunContext, step: number, error: unknown): Promise<Done> {
  recordSpent(ctx, error);
  ctx.emit('step.end', { step, outcome: 'error', thought: describeError(error) });
  await ctx.hook('after_step', { step, outcome: 'error' });
  ctx.go('REFLECTING');
  // `/stop --abort` cut the request short: the runner's next step is the circuit breaker.
  if (ctx.intents.stop === 'abort') return undefined;
  if (!(error instanceof AgentError)) throw error;
  await ctx.hook('on_error', { source: 'agent', error: error.message });
  if (ctx.state.lap > 0) {
    ctx.emit('lap.end', { lap: ctx.state.lap, outcome: 'error', note: error.message });
    return undefined;
  }
  // Nothing is parked and no report written: `failed`, not the circuit breaker's `aborted`.
  return finishRun(ctx, 'failed', `the agent failed: ${error.message}`);
}
