import { pauseReasonLabel, pauseReasonText, stopReasonAt, type PauseReason } from '../reasons.js';
import type { LoopState } from '../machine.js';
import type { ToolCall } from '../types.js';
import type { RunContext } from './context.js';
import { abortRun, finishRun } from './finish.js';
import { resumeData } from './recover.js';
import type { Done, Gen, PauseAnswer, ToolAnswer } from './types.js';

/** The text of an abort the operator asked for (`/stop --abort`). */
export const OPERATOR_ABORT = 'the operator aborted the run (/stop --abort)';

/**
 * Pauses: IDLE, `session.pause`, `on_pause`, the log flushed; then waits for the operator
 * ({@link answerPause}).
 * @returns the outcome when the operator stops the run there
 */
export async function* pause(ctx: RunContext, cause: PauseReason, prompt: string): Gen<Done> {
  const from = ctx.state.machine.state;
  const reason = pauseReasonText(cause);
  ctx.go('IDLE');
  ctx.emit('session.pause', { reason, prompt, from });
  await ctx.hook('on_pause', { reason, prompt });
  ctx.options.sync?.();
  return yield* answerPause(ctx, cause, prompt, from);
}

/**
 * Waits for the answer to a recorded pause. An abort asked for meanwhile wins; a stop ends
 * the run (`exhausted` at a spent budget, else `stopped`); a continue goes back to `from`.
 * Any pause answers the operator's request to pause made before or during it.
 */
export async function* answerPause(ctx: RunContext, cause: PauseReason, prompt: string, from: LoopState): Gen<Done> {
  const reason = pauseReasonText(cause);
  ctx.awaiting = { kind: 'pause', reason, cause, prompt };
  const answer = (yield ctx.awaiting) as PauseAnswer;
  ctx.awaiting = null;
  // This pause answers a pause the operator asked for before it or while it waited (a
  // Ctrl+C at a stagnation pause): a continue goes on, not into another pause at once.
  ctx.intents.pause = null;
  if (ctx.intents.stop === 'abort') return abortRun(ctx, OPERATOR_ABORT);
  if (answer.action === 'stop') {
    const note = answer.note ? `: ${answer.note}` : '';
    return finishRun(ctx, stopReasonAt(cause), `stopped at a pause (${pauseReasonLabel(reason)})${note}`);
  }
  ctx.emit('session.resume', resumeData(ctx, { action: 'continue', from, ...(answer.note ? { note: answer.note } : {}) }));
  ctx.go(from);
  return undefined;
}

/**
 * The answer for a tool call in AWAITING_TOOL: the operator's when `ask`, else the policy's
 * approval. An abort asked for while the call waited denies it, whatever the answer.
 */
export async function* approval(ctx: RunContext, call: ToolCall, ask: boolean, reason?: string, interrupted?: boolean): Gen<{ answer: ToolAnswer; aborting: boolean }> {
  let answer: ToolAnswer = { decision: 'approve' };
  if (ask) {
    ctx.awaiting = { kind: 'tool', call, ...(reason ? { reason } : {}), ...(interrupted ? { interrupted: true as const } : {}) };
    answer = (yield ctx.awaiting) as ToolAnswer;
    ctx.awaiting = null;
  }
  const aborting = ctx.intents.stop === 'abort';
  if (aborting) answer = { decision: 'deny', note: OPERATOR_ABORT };
  return { answer, aborting };
}
