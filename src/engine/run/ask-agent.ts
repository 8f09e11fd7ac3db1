import { createHash } from 'node:crypto';
import type { AgentTurn } from '../types.js';
import { costOf } from '../budget.js';
import { AgentError, describeError } from '../errors.js';
import type { RunContext } from './context.js';
import { finishRun } from './finish.js';
import type { Done } from './types.js';

/**
 * The agent's turn of an open step, recorded as `model.call` (redacted; the calls run as
 * the agent sent them). An {@link AgentError} ends the step `error`: in a lap it ends the
 * lap, otherwise the run (`aborted`). Any other error is the engine's and propagates.
 * A request cut short by `/stop --abort` ends the step and leaves the end of the run to
 * the abort (stash, report); one cut short by a quit writes nothing (`RunInterrupted`).
 * @returns the outcome when the agent's failure ended the run
 */
export async function askAgent(ctx: RunContext, step: number): Promise<Done> {
  let response: AgentTurn;
  try {
    const onText = ctx.options.onAgentText;
    response = await ctx.agent.nextTurn({ ...ctx.agentContext(), ...(onText ? { onText } : {}) });
  } catch (error) {
    return agentFailed(ctx, step, error);
  }
  const turn = ctx.state.turn + 1;
  const { hash, chars: requestChars } = requestDigest(ctx, turn);
  const cost = costOf(response.usage, ctx.options.policy.pricing);
  ctx.memory.turnCalls = structuredClone(response.tool_calls);
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
  const goal = JSON.stringify(ctx.state.goal);
  const hash = createHash('sha256')
    .update(JSON.stringify({ previous: memory.request.hash, turn, goal }))
    .update(added)
    .digest('hex')
    .slice(0, 16);
  const historyChars = memory.request.chars + added.length;
  memory.request = { count: history.length, hash, chars: historyChars };
  return { hash, chars: goal.length + historyChars };
}

async function agentFailed(ctx: RunContext, step: number, error: unknown): Promise<Done> {
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
  return finishRun(ctx, 'aborted', `the agent failed: ${error.message}`);
}
