import type { ModelWait } from '../agents/agent.js';
import { activeSeconds } from '../fold.js';
import { safeTimeout, type SafeTimer } from '../timer.js';
import type { BudgetDimension } from '../types.js';
import type { RunContext } from './context.js';

/**
 * What the run is waiting on now, for the console (not recorded: the events that follow
 * are): the agent's answer (with what its model request reports), or a tool. `since` is
 * the time of day (`Date.now()`), which the console counts from.
 */
export type RunWait =
  | { kind: 'model'; agent: string; since: number; model?: ModelWait }
  | { kind: 'tool'; name: string; call_id: string; since: number; limit_ms: number | null };

/** The reason a guarded wait's signal carries when the wall-clock budget ran out during it. */
export const BUDGET_ABORT = 'budget';

/**
 * One wait of the run on the agent or a tool, guarded (docs/design.md, "Nothing waits
 * forever"). `signal` aborts when the run is quit or aborted (the run's own signal, its
 * reason kept) and when the wall-clock budget runs out during the wait (reason
 * {@link BUDGET_ABORT}); `interrupt` aborts on either, and also when the operator asks to
 * pause (waits that may end early, such as the wait before a retry, listen to it).
 */
export interface WaitGuard {
  readonly signal: AbortSignal;
  readonly interrupt: AbortSignal;
  /** Why the guard ended the wait: the budget, a pause asked for, or `null`. */
  readonly cause: 'budget' | 'pause' | null;
  /** Stops the timer and the listeners; call when the wait is over. */
  dispose(): void;
}

/** The wall-clock budget, when it is spent at `now` (epoch ms): what a `budget_exceeded` step needs. */
export function wallClockSpent(ctx: Pick<RunContext, 'state'>, now: number): { dimension: BudgetDimension; used: number; limit: number } | null {
  const limit = ctx.state.limits.wall_clock_seconds;
  if (limit === null || limit === undefined) return null;
  const used = activeSeconds(ctx.state, now);
  return used >= limit ? { dimension: 'wall_clock_seconds', used, limit } : null;
}

/**
 * Guards a wait starting at `now` (the run's clock, epoch ms: read once by the caller, so
 * a simulated clock advances as it did before). The timer is armed for what is left of the
 * wall-clock budget and reads the clock again when it fires (a clock that ran slower
 * re-arms it).
 *
 * `controller` is the one whose signal is the guard's `signal`: a caller with other
 * reasons to end the same wait (the agent's watch, `watchAgent` in agent-watch.ts) passes the
 * controller it aborts too, so the wait listens to one signal, aborted by whichever comes
 * first, with that one's reason. `interrupt` is made when it is first read (a wait that
 * never reads it costs no signal), already aborted with the guard's first reason when the
 * guard ended before that.
 */
export function guardWait(
  ctx: Pick<RunContext, 'state' | 'signal' | 'clock' | 'pauseRequests'>,
  now: number,
  controller: AbortController = new AbortController(),
): WaitGuard {
  let interrupt: AbortController | null = null;
  /** The reason of the guard's first end: `interrupt` aborts with it. */
  let ended: { reason: unknown } | null = null;
  let cause: WaitGuard['cause'] = null;
  let timer: SafeTimer | null = null;
  const end = (why: 'budget' | 'pause' | null, reason: unknown) => {
    if (why !== null) cause ??= why;
    if (why !== 'pause' && !controller.signal.aborted) controller.abort(reason);
    ended ??= { reason };
    if (interrupt && !interrupt.signal.aborted) interrupt.abort(reason);
  };
  const arm = (at: number) => {
    const limit = ctx.state.limits.wall_clock_seconds;
    if (limit === null || limit === undefined) return;
    const left = (limit - activeSeconds(ctx.state, at)) * 1000;
    if (left <= 0) return end('budget', BUDGET_ABORT);
    timer = safeTimeout(() => arm(ctx.clock()), left);
  };
  const onRunAbort = () => end(null, ctx.signal.reason);
  const onPause = () => end('pause', 'pause');
  ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  ctx.pauseRequests.addEventListener('pause', onPause);
  if (ctx.signal.aborted) onRunAbort();
  arm(now);
  return {
    signal: controller.signal,
    get interrupt() {
      if (interrupt === null) {
        interrupt = new AbortController();
        if (ended) interrupt.abort(ended.reason);
      }
      return interrupt.signal;
    },
    get cause() {
      return cause;
    },
    dispose() {
      timer?.cancel();
      ctx.signal.removeEventListener('abort', onRunAbort);
      ctx.pauseRequests.removeEventListener('pause', onPause);
    },
  };
}
