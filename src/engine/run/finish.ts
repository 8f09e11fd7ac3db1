import path from 'node:path';
import { recordAbort, stashSummary } from '../abort.js';
import { describeError } from '../errors.js';
import { budgetUsage } from '../fold.js';
import type { DoneReason } from '../machine.js';
import type { Finish } from '../reasons.js';
import type { RunContext } from './context.js';
import type { LoopOutcome } from './types.js';

type FinishContext = Pick<RunContext, 'state' | 'go' | 'emit' | 'hook' | 'options' | 'redact'>;
type AbortContext = FinishContext & Pick<RunContext, 'abortTools' | 'clock' | 'recent'>;

/**
 * Ends the run: a run stopped mid-step ends that step first (EXECUTING and AWAITING_TOOL
 * reach DONE through REFLECTING), then DONE, `session.complete`, the log flushed, and
 * `on_complete`.
 * @returns the outcome, redacted like the event (a server's error may echo a key)
 */
export async function finishRun(ctx: FinishContext, reason: DoneReason, summary: string, detail?: string): Promise<LoopOutcome> {
  const state = ctx.state.machine.state;
  if (state === 'EXECUTING' || state === 'AWAITING_TOOL') ctx.go('REFLECTING');
  // A log cut between DONE and `session.complete` is already DONE.
  if (state !== 'DONE') ctx.go('DONE');
  ctx.emit('session.complete', { reason, summary, ...(detail ? { detail } : {}) });
  ctx.options.sync?.();
  await ctx.hook('on_complete', { reason });
  return ctx.redact({ reason, summary, ...(detail ? { detail } : {}) });
}

/** Performs a decided end: the circuit breaker for an `abort` finish, else a plain end. */
export function end(ctx: AbortContext, finish: Finish): Promise<LoopOutcome> {
  return finish.abort ? abortRun(ctx, finish.summary) : finishRun(ctx, finish.reason, finish.summary, finish.limit);
}

/**
 * The circuit breaker: kill running tool processes, park the workspace folder (only it,
 * never `.loopdeck/`) with `git stash push --include-untracked` unless `on_abort.stash` is
 * false, write a failure report outside the workspace unless `on_abort.report` is false,
 * and end the run `aborted`. Never pops or applies the stash. A failure to park or report
 * is told to `on_error` and the run still ends.
 */
export async function abortRun(ctx: AbortContext, reason: string): Promise<LoopOutcome> {
  ctx.abortTools('abort');
  const { on_abort, laps } = ctx.options.policy;
  const { runDir, workspace } = ctx.options;
  if (runDir) {
    try {
      const now = ctx.clock();
      const { report, path: file } = await recordAbort({
        reason,
        now,
        session: ctx.options.id,
        workspace,
        goal: ctx.state.goal!,
        // Usage as the budget counts it now: the wall clock up to the abort, failed turns among the turns.
        budget: { limits: ctx.state.limits, usage: budgetUsage(ctx.state, now) },
        events: ctx.recent,
        runDir,
        progressFile: path.resolve(workspace, laps.progress_file),
        stash: on_abort.stash,
        report: on_abort.report,
        redact: ctx.redact,
      });
      ctx.emit('abort.recorded', { report: file ?? 'not written (on_abort.report: false)', stash: stashSummary(report.stash), restore: report.restore });
    } catch (error) {
      await ctx.hook('on_error', { source: 'abort', error: describeError(error) });
    }
  }
  return finishRun(ctx, 'aborted', reason);
}
