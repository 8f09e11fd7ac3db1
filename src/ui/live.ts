import type { Answerer } from '../engine/drive.js';
import { formatDuration } from '../engine/duration.js';
import { describeError } from '../engine/errors.js';
import { safeTimeout, type SafeTimer } from '../engine/timer.js';
import type { BudgetDimension } from '../engine/types.js';
import type { ResumePayload, Session } from '../engine/session.js';
import type { ConsoleController } from './context.js';
import type { ConsoleStore } from './store.js';

/** What the live console needs from a session: its commands and the yield it waits on. */
export type LiveSession = Pick<Session, 'goalStatus' | 'reviseGoal' | 'extendBudget' | 'stop' | 'requestPause' | 'snapshot'> & Partial<Pick<Session, 'reload' | 'answerReload' | 'policy'>>;

export interface LiveConsoleOptions {
  session: LiveSession;
  store: ConsoleStore;
  /** `approval.timeout` in seconds; `null`: an approval may wait forever. */
  approvalTimeoutSeconds: number | null;
  /** `budget.increments` per dimension, for `e` at a budget pause. */
  increments: Record<BudgetDimension, number>;
  onQuit: () => void;
  /** The clock for the countdown shown in the prompt (epoch ms). */
  now?: () => number;
}

/**
 * The controller the console calls and the answerer the run is driven with, joined: a
 * yield waits for the operator's answer, named by the `seq` of the event that raised it
 * (an answer naming any other yield is ignored). An approval left unanswered for
 * `approval.timeout` is denied, never approved.
 */
export function createLiveConsole(options: LiveConsoleOptions): { controller: ConsoleController; answerer: Answerer; dispose: () => void } {
  const { session, store, approvalTimeoutSeconds } = options;
  const now = options.now ?? Date.now;
  let waiting: { seq: number; resolve: (payload: ResumePayload) => void; timer: SafeTimer | null } | null = null;

  const settle = (payload: ResumePayload, seq: number): void => {
    if (!waiting || waiting.seq !== seq) return;
    const { resolve, timer } = waiting;
    timer?.cancel();
    waiting = null;
    store.getState().setApprovalDeadline(null);
    resolve(payload);
  };

  const controller: ConsoleController = {
    answer: settle,
    goalStatus: () => session.goalStatus(),
    reviseGoal: (directive, text) => session.reviseGoal(directive, text).catch((error: unknown) => ({ ok: false, message: describeError(error) })),
    extendBudget: (dimension, by) => session.extendBudget(dimension, by),
    stop: (options) => session.stop(options),
    quit: options.onQuit,
    requestPause: () => session.requestPause(),
    ...(session.reload ? { reload: () => session.reload!() } : {}),
    ...(session.answerReload ? { answerReload: (seq: number, accept: boolean) => session.answerReload!(seq, accept) } : {}),
    // The increments of the policy in force: a reload may have changed them.
    extend: async (dimension) => session.extendBudget(dimension, session.policy?.budget.increments[dimension] ?? options.increments[dimension]),
  };

  const answerer: Answerer = (y) =>
    new Promise<ResumePayload>((resolve) => {
      const seq = session.snapshot.pending?.seq ?? -1;
      let timer: SafeTimer | null = null;
      const timeout = session.policy ? session.policy.approval.timeout : approvalTimeoutSeconds;
      if (y.kind === 'tool' && timeout !== null) {
        const ms = timeout * 1000;
        store.getState().setApprovalDeadline(now() + ms);
        timer = safeTimeout(() => settle({ decision: 'deny', by: 'policy', note: `no answer within ${formatDuration(timeout)}` }, seq), ms);
      }
      waiting = { seq, resolve, timer };
    });

  const dispose = () => {
    waiting?.timer?.cancel();
    waiting = null;
  };
  return { controller, answerer, dispose };
}
