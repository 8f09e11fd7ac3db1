/**
 * Limits applied to a CLI agent while it works (docs/design.md, "Stopping a CLI agent"):
 * every event parsed from its output is recorded and then checked against the budget and the
 * repetition guard, and checkpoints are taken as its turns go by; the first record past a
 * limit (or a stagnation verdict) stops the agent's process group (through the signal its
 * run listens to: SIGTERM, SIGKILL after the grace period) and says why, and
 * {@link agentStopped} then ends the step (and the lap) and pauses as any budget,
 * repetition or stagnation pause does.
 */
import { budgetName, spentText } from '../budget-units.js';
import { CommandAgent } from '../agents/command.js';
import type { AgentEventDraft } from '../agents/transcripts/record.js';
import { afterDetection, type Step } from '../decide.js';
import { budgetUsage } from '../fold.js';
import { detectionEventData, observeCall } from '../repetition.js';
import { BUDGET_DIMENSIONS, type BudgetDimension } from '../types.js';
import type { RunContext } from './context.js';
import { recordCheckpoint, recordStagnation } from './checkpoint-step.js';
import type { Done, Gen } from './types.js';
import { wallClockSpent } from './wait-guard.js';

/** Why loopdeck stopped the agent's process while it worked. */
export type AgentStop =
  | { kind: 'budget'; dimension: BudgetDimension; used: number; limit: number }
  | { kind: 'repetition' | 'stagnation'; action: 'pause' | 'stop'; summary: string };

/** The reason the watch's signal aborts with (the process runner records the kill as `abort`). */
export const AGENT_STOP_ABORT = 'limit';

/** The watch over one run of the agent. */
export interface AgentWatch {
  /**
   * Aborts (reason {@link AGENT_STOP_ABORT}) when a limit stops the agent; the signal of the
   * controller given to {@link watchAgent}, which others may abort first (the wait's guard).
   */
  readonly signal: AbortSignal;
  /** Why the agent was stopped; `null` while it is within every limit. */
  readonly stop: AgentStop | null;
  /** Records one event the agent's output produced, then checks the limits after it. */
  onEvent(draft: AgentEventDraft): void;
  /**
   * Waits for a checkpoint taken while the agent worked to be recorded (call once the agent's
   * turn is over, before anything else is recorded).
   * @throws what the checkpoint threw (an engine error, or `RunInterrupted` after a quit)
   */
  settle(): Promise<void>;
}

/**
 * Counted dimensions allow exactly their limit (`max_tool_calls: 1` lets one call run): the
 * agent is stopped at the record that goes past it. Tokens and cost are spent when they
 * reach the limit.
 */
const COUNTED: ReadonlySet<BudgetDimension> = new Set(['turns', 'tool_calls']);

/**
 * The budget dimension a record just took past its limit, in the budget's order, or `null`.
 * The wall clock is the wait guard's (it aborts the wait itself).
 */
export function crossedLimit(ctx: Pick<RunContext, 'state'>, now: number): Extract<AgentStop, { kind: 'budget' }> | null {
  const usage = budgetUsage(ctx.state, now);
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = ctx.state.limits[dimension];
    if (limit === null || dimension === 'wall_clock_seconds') continue;
    const used = usage[dimension];
    if (COUNTED.has(dimension) ? used > limit : used >= limit) return { kind: 'budget', dimension, used, limit };
  }
  return null;
}

/**
 * Watches one run of the agent; a stop aborts `controller` (shared with the wait's guard
 * in `askAgent`: the agent listens to one signal). A tool call is put to the repetition guard before it is
 * recorded (as loopdeck's own calls are): a detection is recorded as `repetition.detected`;
 * with `on_detect: alert` the agent goes on, otherwise it is stopped. Events that arrive
 * after the stop (until the process is gone) are still recorded: they happened.
 */
export function watchAgent(
  ctx: Pick<RunContext, 'state' | 'memory' | 'repetitionOptions' | 'options' | 'emit' | 'clock'>,
  controller: AbortController = new AbortController(),
): AgentWatch {
  let stop: AgentStop | null = null;
  const stopWith = (why: AgentStop) => {
    stop = why;
    // A signal already aborted (by the wait's guard) keeps its reason.
    controller.abort(AGENT_STOP_ABORT);
  };
  const checkpoints = midTurnCheckpoints(ctx, () => stop !== null, stopWith);
  return {
    signal: controller.signal,
    get stop() {
      return stop;
    },
    onEvent(draft) {
      const detection = draft.type === 'tool.call' ? observeCall(ctx.memory.repetition, { call: draft.data.call }, ctx.repetitionOptions).detection : null;
      ctx.emit(draft.type, draft.data as never);
      if (stop) return;
      if (detection) {
        ctx.emit('repetition.detected', detectionEventData(detection, ctx.repetitionOptions));
        const action = ctx.options.policy.repetition.on_detect;
        if (action !== 'alert') return stopWith({ kind: 'repetition', action, summary: `repetition: ${detection.rule}` });
      }
      const crossed = crossedLimit(ctx, ctx.clock());
      if (crossed) return stopWith(crossed);
      if (draft.type === 'agent.message' && draft.data.starts_turn) checkpoints.due();
    },
    settle: () => checkpoints.settle(),
  };
}

/**
 * Checkpoints while the agent works: one every `checkpoint.every_iterations` of its parsed
 * turns (the run's turn count is the iteration), taken beside the running agent, one at a
 * time (a multiple reached while one is under way is skipped). A stagnation verdict is
 * recorded and, unless `on_detect: alert`, stops the agent. An UNKNOWN verdict and the
 * goal's constraints are left to the checkpoints between turns. Only with signals in
 * `progress.observed`: without one nothing can show progress, and every lap of a CLI that
 * writes many messages would be stopped as stagnant for want of a measure.
 */
function midTurnCheckpoints(ctx: Pick<RunContext, 'state' | 'options' | 'emit'>, stopped: () => boolean, stopWith: (why: AgentStop) => void) {
  let running: Promise<void> | null = null;
  let failure: { error: unknown } | null = null;
  const take = async (iteration: number) => {
    const { record } = await recordCheckpoint(ctx, iteration);
    const summary = recordStagnation(ctx, record, iteration);
    const action = ctx.options.policy.stagnation.on_detect;
    if (summary && action !== 'alert' && !stopped()) stopWith({ kind: 'stagnation', action, summary });
  };
  return {
    due(): void {
      const iteration = ctx.state.usage.turns;
      if (ctx.options.policy.progress.observed.length === 0) return;
      if (running || stopped() || iteration % ctx.options.policy.checkpoint.every_iterations !== 0) return;
      running = take(iteration)
        .catch((error: unknown) => void (failure = { error }))
        .finally(() => (running = null));
    },
    async settle(): Promise<void> {
      if (running) await running;
      if (failure) throw failure.error;
    },
  };
}

/** Whether the agent is a process run once per turn, which a stop kills (so its lap is over). */
export function runsAsProcess(ctx: Pick<RunContext, 'agent'>): boolean {
  return ctx.agent instanceof CommandAgent;
}

/** What a stop says in the step's end and the lap's end. */
export function stopText(stop: AgentStop): string {
  if (stop.kind !== 'budget') return stop.summary;
  return `the ${budgetName(stop.dimension)} budget is spent (${spentText(stop.dimension, stop.used, stop.limit)})`;
}

/**
 * After loopdeck stopped the agent's process: the step ends `error` (the turn did not
 * finish), the lap ends `not_done` with the reason (not a failure of the agent: it does not
 * count toward `max_consecutive_failures`), and the run pauses as it does at a spent budget
 * (the verifier first, then `budget.on_exhausted`) or at a repetition or stagnation
 * (`on_detect`; a stagnation `stop` is the circuit breaker). A
 * continue goes on with a new lap (outside laps, a new turn: a new run of the command).
 * A budget stop says what was used by now: records printed until the process was gone
 * count (they were spent).
 * @returns the outcome when the run ended there
 */
export async function* agentStopped(ctx: RunContext, step: number, stopped: AgentStop): Gen<Done> {
  // What was used by the time the process was gone: records printed until then were spent too.
  const stop = stopped.kind === 'budget' ? { ...stopped, used: budgetUsage(ctx.state, ctx.clock())[stopped.dimension] } : stopped;
  const why = stopText(stop);
  ctx.emit('step.end', { step, outcome: 'error', thought: `${why}: loopdeck stopped the agent's process group` });
  await ctx.hook('after_step', { step, outcome: 'error' });
  ctx.go('REFLECTING');
  const lap = ctx.state.lap;
  if (lap > 0) ctx.emit('lap.end', { lap, outcome: 'not_done', note: `stopped by loopdeck: ${why}` });
  return yield* ctx.perform(stepAfter(stop, lap > 0));
}

function stepAfter(stop: AgentStop, inLap: boolean): Step {
  if (stop.kind === 'budget') return { kind: 'budget_exceeded', dimension: stop.dimension, used: stop.used, limit: stop.limit };
  if (stop.kind === 'stagnation') return afterDetection('stagnation', stop.action, stop.summary)!;
  if (stop.action === 'stop') return afterDetection('repetition', 'stop', stop.summary)!;
  const next = inLap ? 'Continue with a new lap' : 'Continue (the agent runs again)';
  return { kind: 'pause', reason: { kind: 'repetition' }, prompt: `${stop.summary}; the agent's process was stopped. ${next}, redirect the goal, or stop?` };
}

/**
 * Why the agent's turn was cut short by a limit, or `null` (it ended by itself, failed, or
 * the run was quit or aborted): a stop of the watch, or, for an agent run as a process, the
 * wall-clock budget running out during the wait (the guard killed it).
 */
export function stoppedBy(ctx: Pick<RunContext, 'state' | 'signal' | 'agent' | 'clock'>, watch: AgentWatch, cause: 'budget' | 'pause' | null): AgentStop | null {
  if (ctx.signal.aborted) return null;
  if (watch.stop) return watch.stop;
  if (cause !== 'budget' || !runsAsProcess(ctx)) return null;
  const spent = wallClockSpent(ctx, ctx.clock());
  return spent ? { kind: 'budget', ...spent } : null;
}
