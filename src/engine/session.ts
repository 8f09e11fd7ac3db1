import type { SessionState } from './fold.js';
import { watchChildren, type ChildStart } from './children.js';
import { budgetBoundText, BUDGET_LIMIT_MAX, raiseAmounts } from './budget-units.js';
import { RunInterrupted, SessionStateError, UsageError } from './errors.js';
import type { LoopEvent } from './events.js';
import { goalStatusText, type GoalDirective } from './goal.js';
import { BUDGET_NAMES_LIST, incrementError, parseOperatorCommand, performOperatorCommand, type CommandResult } from './operator-command.js';
import { BUDGET_COMMAND_NAMES, BUDGET_DIMENSIONS, type BudgetDimension, type Goal } from './types.js';
import { checkAnswer } from './run/answers.js';
import { RunCore } from './run/core.js';
import { recordRevision } from './run/goal-revision.js';
import { lapAgent } from './run/laps.js';
import { runLoop, type RunEntry } from './run/runner.js';
import { answerReload, reloadPolicy, type ReloadRequest } from './run/reload-step.js';
import type { EnginePolicy } from './policy.js';
import type { Gen, LoopOutcome, LoopRun, ResumePayload, SessionOptions } from './run/types.js';

export type { LoopOutcome, LoopRun, LoopYield, PauseAnswer, ResumePayload, SessionOptions, ToolAnswer } from './run/types.js';

/**
 * One run of an agent towards a goal over the state machine of docs/design.md, with the
 * pattern of the policy (ReAct, Plan-and-Execute or Reflexion). Every step is written as
 * an event and the session's own state is the fold of its events, so what the console,
 * replay and crash-resume see is exactly what the engine acted on.
 *
 * The run itself is the runner of engine/run/runner.ts, a loop over the pure `nextStep`
 * (decide.ts); a session starts or resumes it, checks the operator's answers before the
 * run sees them, and carries out the operator's commands.
 */
export class Session {
  private readonly core: RunCore;

  constructor(options: SessionOptions) {
    this.core = new RunCore(options);
  }

  /** The fold of every event so far. */
  get snapshot(): SessionState {
    return this.core.snapshot;
  }

  /** The policy in force: the one the run started with, and the reloads applied since (docs/design.md, "Live reload"). */
  get policy(): EnginePolicy {
    return this.core.options.policy;
  }

  /**
   * Reads the run's loop.yaml again (`/reload`, or `--watch-config` seeing it change) and
   * records `policy.reloaded`: live settings apply at once, approval rules and hooks wait
   * for {@link answerReload} (unless `gatesWithoutKey`), `agent`/`workspace` need a new run,
   * goal changes are ignored; an invalid file is refused with its errors and nothing changes.
   * @returns a line for the operator; never throws for a bad file
   */
  reload(request: ReloadRequest = { trigger: 'command' }): CommandResult {
    return reloadPolicy(this.core, request);
  }

  /** The operator's key on a reload whose changes wait (`seq` of its `policy.reloaded`): apply them as shown, or decline them. */
  answerReload(seq: number, accept: boolean): CommandResult {
    return answerReload(this.core, seq, accept);
  }

  /** Adds a consumer of events (after the ones given at construction). @returns unsubscribe */
  subscribe(sink: (event: LoopEvent) => void): () => void {
    const sinks = this.core.sinks;
    sinks.push(sink);
    return () => {
      const index = sinks.indexOf(sink);
      if (index >= 0) sinks.splice(index, 1);
    };
  }

  /**
   * Starts the run. Legal only once, from a fresh IDLE.
   * @throws SessionStateError when the session has already run
   */
  run(goal: Goal): LoopRun {
    const { state, live } = this.core;
    if (state.machine.started || live) {
      throw new SessionStateError('run() is legal only from a fresh IDLE', state.machine.state);
    }
    return this.wrap({ kind: 'start', goal });
  }

  /**
   * Continues a run from the events of an earlier process (crash-resume). Recorded agent
   * turns, plans and reflections are handed to the agent's `restore` and never asked for again; a tool call
   * without a recorded result is asked about again before it re-runs.
   * @throws SessionStateError without a recorded `session.start` (nothing to resume), once the run is over, or when already running
   */
  resume(): LoopRun {
    const core = this.core;
    const state = core.state;
    if (state.session === null) throw new SessionStateError('the log holds no session.start: there is no run to continue; start a new run', state.machine.state);
    if (state.done) throw new SessionStateError(`the run is over (${state.done.reason})`, state.machine.state);
    if (core.live) throw new SessionStateError('the run is already going', state.machine.state);
    const prior = core.options.prior ?? [];
    const lapStart = prior.findLastIndex((e) => e.type === 'lap.start');
    if (state.lap > 0) core.agent = lapAgent(core, state.lap);
    const turns = prior.slice(lapStart + 1).flatMap((e) => (e.type === 'model.call' ? [e.data.response] : []));
    const plans = core.pattern === 'plan-and-execute' ? prior.filter((e) => e.type === 'plan.draft').length : 0;
    core.agent.restore?.(turns, { plans, reflections: prior.filter((e) => e.type === 'reflection.recorded').length });
    core.agent.restoreAssessments?.(prior.filter((e) => e.type === 'progress.assessed').length);
    return this.wrap({ kind: 'resume' });
  }

  /**
   * The run's generator, whose `next(payload)` checks the payload against the open yield
   * first. Every child process the run starts is recorded as `process.start`. `return()`
   * quits the run where it is (`RunCore.halt`): a pending `next()` rejects with
   * `RunInterrupted` and the log ends where the run stood.
   */
  private wrap(entry: RunEntry): LoopRun {
    const core = this.core;
    core.live = true;
    const inner = live(core, entry);
    const record = (child: ChildStart) => {
      if (!core.halted) core.emit('process.start', child);
    };
    let started = false;
    const wrapper = {
      next: async (...args: [] | [ResumePayload | undefined]) => {
        if (core.halted) throw new RunInterrupted();
        if (!started) {
          started = true;
          return watchChildren(record, () => inner.next());
        }
        checkAnswer(core.awaiting, args[0]);
        return watchChildren(record, () => inner.next(args[0]));
      },
      return: (value: LoopOutcome) => {
        core.halt();
        return inner.return(value);
      },
      throw: (error: unknown) => inner.throw(error),
      [Symbol.asyncIterator]() {
        return wrapper;
      },
    };
    return wrapper as unknown as LoopRun;
  }

  // ---------------------------------------------------------------- operator commands

  /** Records a notice from the agent adapter (retries and the like) for the operator. */
  notice(text: string): void {
    const state = this.core.state;
    if (state.machine.started && !state.done && !this.core.halted) this.core.emit('agent.notice', { text });
  }

  /**
   * Asks the run to pause at the next safe point (the start of the next step): the
   * console's first Ctrl+C. Has no effect once the run is over.
   */
  requestPause(reason = 'the operator asked to pause'): void {
    if (this.core.state.done) return;
    this.core.intents.pause = reason;
    this.core.pauseRequests.dispatchEvent(new Event('pause'));
  }

  /**
   * Applies an operator's command-bar line (`/goal ...`, `/budget <dimension> +N`, `/stop`),
   * parsed by {@link parseOperatorCommand}, the grammar the console's command bar uses.
   * Only the operator calls this: text from the agent or a tool never reaches it.
   * @returns a line to show the operator; never throws for bad input
   */
  async command(line: string): Promise<CommandResult> {
    const parsed = parseOperatorCommand(line);
    return parsed.ok ? performOperatorCommand(this, parsed.command) : { ok: false, message: parsed.message };
  }

  /** The goal in one line (status, objective, counts, revision); not ok before the run starts. */
  goalStatus(): CommandResult {
    const goal = this.core.state.goal;
    if (!goal) return { ok: false, message: 'no goal yet: the run has not started' };
    return { ok: true, message: goalStatusText(goal) };
  }

  /** The operator revises the goal (`/goal <directive> <text>`); not ok before the run starts or once it is over. */
  async reviseGoal(directive: GoalDirective, text: string): Promise<CommandResult> {
    const state = this.core.state;
    if (!state.goal) return { ok: false, message: 'no goal yet: the run has not started' };
    if (state.done) return { ok: false, refused: true, message: `the run is over (${state.done.reason}); the goal can no longer be revised` };
    try {
      await this.revise(directive, text);
    } catch (error) {
      // Typed criteria that cannot be read, or a signal no observer gives: nothing was recorded.
      if (error instanceof UsageError) return { ok: false, message: error.message };
      throw error;
    }
    return { ok: true, message: `goal revised (${directive}): revision ${this.core.state.goal?.revision ?? state.goal.revision}` };
  }

  /**
   * Raises a budget limit by `by` in the dimension's unit (a count, seconds, tokens, USD):
   * records `budget.extended`. Not ok for an invalid increment, an unlimited dimension, or
   * a run that is over.
   */
  extendBudget(dimension: BudgetDimension, by: number): CommandResult {
    if (!BUDGET_DIMENSIONS.includes(dimension)) return { ok: false, message: `unknown budget dimension "${String(dimension)}"; valid: ${BUDGET_NAMES_LIST.join(', ')}` };
    const invalid = incrementError(dimension, by);
    if (invalid) return { ok: false, message: invalid };
    const state = this.core.state;
    if (state.done) return { ok: false, refused: true, message: 'the run is over' };
    const shown = BUDGET_COMMAND_NAMES[dimension];
    const current = state.limits[dimension];
    if (current === null) return { ok: false, message: `${shown} is unlimited` };
    // A limit loop.yaml would refuse is no limit either: past the bound of its field.
    const { limit, was, added, made } = raiseAmounts(dimension, current, by);
    if (!(limit <= BUDGET_LIMIT_MAX[dimension])) {
      return { ok: false, message: `the ${shown} limit can be at most ${budgetBoundText(dimension)}; it is ${was}, and +${added} would make it ${made}` };
    }
    this.core.emit('budget.extended', { dimension, limit, by });
    return { ok: true, message: `${shown} limit raised to ${made} (+${added})` };
  }

  /**
   * The operator stops the run: at the next safe point, or with `abort` at once (running
   * tools are killed, a waiting tool call never runs, the workspace is stashed and a
   * failure report written). Not ok once the run is over. `why`: what asked for the stop
   * when it was not the operator's `/stop` (e.g. `stdout was closed`); the run's end says it.
   */
  stop({ abort, why }: { abort: boolean; why?: string }): CommandResult {
    if (this.core.state.done) return { ok: false, refused: true, message: 'the run is over' };
    if (!abort) {
      this.core.intents.stop = 'stop';
      this.core.intents.stopWhy = why ?? null;
      return { ok: true, message: 'stopping at the next safe point (answer any open prompt first)' };
    }
    this.core.intents.stop = 'abort';
    this.core.abortTools('abort');
    return { ok: true, message: 'aborting: running tools are killed, a waiting tool call never runs, the workspace will be stashed and a failure report written' };
  }

  /**
   * Records a goal revision with the agent's reconciliation (or a plain fallback when the
   * agent gives none or a malformed one); the next agent turn sees the revised goal.
   * @throws SessionStateError when no run is live
   */
  revise(directive: GoalDirective, text: string): Promise<void> {
    return recordRevision(this.core, directive, text);
  }
}

/** The runner, marked not live once it ends however it ends. */
async function* live(core: RunCore, entry: RunEntry): Gen<LoopOutcome> {
  try {
    return yield* runLoop(core, entry);
  } finally {
    core.live = false;
  }
}
