import { createHash } from 'node:crypto';
import type { Agent, AgentContext } from './agents/agent.js';
import type { AgentEventDraft } from './agents/transcripts/record.js';
import { readHandover } from './handover.js';
import { costOf, newWarnings } from './budget.js';
import { afterBudget, afterDetection, afterPlan, afterStep, startOfStep, type DecisionPolicy, type Step } from './decide.js';
import { failureNote } from './patterns/plan-and-execute.js';
import { pauseReasonText, stopReasonAt, type Finish, type PauseReason } from './reasons.js';
import { evaluateCheckpoint, type ProgressPolicy } from './checkpoint.js';
import { AgentError, describeError, InvariantError, ResumeError, SessionStateError, ToolError } from './errors.js';
import { assertEventType, SCHEMA_VERSION, type EventDataMap, type EventType, type GoalRevision, type LoopEvent } from './events.js';
import { activeSeconds, draftOf, fold, INITIAL_STATE, reduce, type SessionState } from './fold.js';
import { fallbackReconciliation, reviseGoal, type GoalDirective } from './goal.js';
import { BUDGET_NAMES_LIST, incrementError, parseOperatorCommand, performOperatorCommand, type CommandResult } from './operator-command.js';
import { HookRegistry, type HookPayloads, type HookTopic } from './hooks.js';
import { transition, type DoneReason, type LoopState } from './machine.js';
import { observe } from './observe.js';
import { resolvePattern, type Pattern } from './patterns.js';
import { createRedactor, type Redactor } from './redact.js';
import { repetitionSettings, type LoopPolicy } from './policy.js';
import { harnessFiles, runTool } from './tools.js';
import { BUDGET_COMMAND_NAMES, BUDGET_DIMENSIONS, type AgentTurn, type BudgetDimension, type Goal, type ToolCall, type ToolResult } from './types.js';
import { runVerify } from './verify.js';
import { recordAbort, stashSummary } from './abort.js';
import { gitSnapshot, isGitWorkTree, type GitSnapshot } from './git-progress.js';
import { offeredRules } from './approval/always-allow.js';
import {
  detectionEventData,
  INITIAL_REPETITION,
  observeCall,
  recordResult,
  resultHash,
  type RepetitionOptions,
  type RepetitionState,
} from './repetition.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** A point where the session hands control back and waits for `next(payload)`. */
export type LoopYield =
  | { kind: 'tool'; call: ToolCall; reason?: string }
  /** `reason`: the text the `session.pause` event carries; `cause`: the same reason as a value. */
  | { kind: 'pause'; reason: string; cause: PauseReason; prompt: string };

/**
 * Answer to a `tool` yield. A denial's note goes back to the agent. `always` stores a rule
 * for the rest of the run; it must be one the approval prompt offers for this call
 * (`offeredRules`, approval/always-allow.ts: the exact call, or a read-only wider rule).
 */
export type ToolAnswer = { decision: 'approve'; note?: string; always?: string } | { decision: 'deny'; note?: string };
/** Answer to a `pause` yield. */
export type PauseAnswer = { action: 'continue'; note?: string } | { action: 'stop'; note?: string };
export type ResumePayload = ToolAnswer | PauseAnswer;

/** How a run ended. */
export interface LoopOutcome {
  reason: DoneReason;
  summary: string;
  /** For `exhausted` and some stops: which limit (`max_laps`, `replan_cap`, `max_attempts`, ...). */
  detail?: string;
}

/** The async generator of a run, whose `next(payload)` rejects bad payloads without side effects. */
export type LoopRun = AsyncGenerator<LoopYield, LoopOutcome, ResumePayload | undefined>;

/** Everything a session needs besides the agent. */
export interface SessionOptions {
  /** Session id, used in every event envelope and the run directory. */
  id: string;
  agent: Agent;
  policy: LoopPolicy;
  /** Absolute path of the directory tools and observers run in. */
  workspace: string;
  /** Epoch milliseconds; injected so tests can simulate time. */
  clock?: () => number;
  hooks?: HookRegistry;
  /** Called with each event after it is folded (the log first, then the console). */
  sinks?: Array<(event: LoopEvent) => void>;
  /** Flushes the log to disk; called before effects that must not repeat (approvals, checkpoints). */
  sync?: () => void;
  /**
   * Applied to every event's data before it is folded or written: the single point where
   * secrets are removed. Default: known key formats and the values of secret-named
   * environment variables of this process.
   */
  redact?: Redactor;
  /** Streamed agent text as it arrives (not recorded: the turn's response is). */
  onAgentText?: (chunk: string) => void;
  /**
   * Fresh laps: a new agent for lap `n` (1-based), with no memory of earlier laps.
   * Required when `laps.enabled`; without laps the session uses `agent`.
   */
  agentFactory?: (lap: number) => Agent;
  /** The run directory, where an abort writes `failure-report.json` (outside the workspace). */
  runDir?: string;
  /** Runs a tool call; default: the built-in workspace tools ({@link runTool}). */
  runTool?: typeof runTool;
  /** Events of an earlier process of this session, for {@link Session.resume}. */
  prior?: readonly LoopEvent[];
  /**
   * sha256 (hex) of the run's saved `policy.json`, recorded in `session.start` so that
   * `resume` refuses a policy changed since the run began.
   */
  policyDigest?: string;
}

/** Thrown inside the loop to end it with an outcome already recorded. */
class Stop {
  constructor(readonly outcome: LoopOutcome) {}
}

function isToolAnswer(p: unknown): p is ToolAnswer {
  const v = p as Partial<ToolAnswer> | undefined;
  const always = (v as { always?: unknown } | undefined)?.always;
  return (
    !!v &&
    (v.decision === 'approve' || v.decision === 'deny') &&
    (v.note === undefined || typeof v.note === 'string') &&
    (always === undefined || (v.decision === 'approve' && typeof always === 'string' && always.length > 0))
  );
}

function isPauseAnswer(p: unknown): p is PauseAnswer {
  const v = p as Partial<PauseAnswer> | undefined;
  return !!v && (v.action === 'continue' || v.action === 'stop') && (v.note === undefined || typeof v.note === 'string');
}

type Gen<T = void> = AsyncGenerator<LoopYield, T, ResumePayload | undefined>;

/**
 * One run of an agent towards a goal over the state machine of docs/design.md, with the
 * pattern of the policy (ReAct, Plan-and-Execute or Reflexion). Every step is written as
 * an event and the session's own state is the fold of its events, so what the console,
 * replay and crash-resume see is exactly what the engine acted on.
 *
 * The loop is re-entrant by state: each phase (PLANNING, EXECUTING, REFLECTING) reads
 * where the run stands from the fold and moves it on, so a run resumed from its log
 * continues at the same place.
 */
export class Session {
  /** A private draft, reduced in place event by event; {@link snapshot} hands out copies. */
  private state: SessionState = draftOf(INITIAL_STATE);
  private frozen: SessionState | null = null;
  /** Running request hash and size: what was hashed and counted so far (O(new) per turn). */
  private request = { count: 0, hash: '', chars: 0 };
  private readonly clock: () => number;
  private readonly hooks: HookRegistry;
  private readonly sinks: Array<(event: LoopEvent) => void>;
  private readonly abort = new AbortController();
  private awaiting: LoopYield | null = null;
  private pauseRequested: string | null = null;
  private stopRequested: 'stop' | 'abort' | null = null;
  private agent: Agent;
  private repetition: RepetitionState = INITIAL_REPETITION;
  private readonly repetitionOptions: RepetitionOptions;
  /** Call id whose repetition check already ran (so a resumed pause does not fire again). */
  private repetitionChecked: string | null = null;
  private readonly recent: LoopEvent[] = [];
  private git: boolean | null = null;
  private lastSnapshot: GitSnapshot | null = null;
  private snapshotStep = -1;
  private live = false;
  private pattern: Pattern;
  private readonly redact: Redactor;
  /** The tool calls of the last turn as the agent sent them (the folded state holds them redacted). */
  private turnCalls: ToolCall[] = [];
  /** The settings the decisions read ({@link DecisionPolicy}). */
  private get decisions(): DecisionPolicy {
    const { policy } = this.options;
    return {
      pattern: this.pattern,
      checkpointEvery: policy.checkpoint.every_iterations,
      maxReplans: policy.patterns.plan_and_execute.max_replans,
      maxAttempts: policy.patterns.reflexion.max_attempts,
      laps: policy.laps,
      budget: policy.budget,
    };
  }

  constructor(private readonly options: SessionOptions) {
    this.clock = options.clock ?? Date.now;
    this.hooks = options.hooks ?? new HookRegistry();
    this.sinks = options.sinks ?? [];
    this.redact = options.redact ?? createRedactor();
    this.agent = options.agent;
    this.repetitionOptions = repetitionSettings(options.policy.repetition, options.policy.file);
    this.pattern = resolvePattern(options.policy.pattern, options.policy.task).pattern;
    if (options.prior && options.prior.length > 0) {
      this.state = draftOf(fold(options.prior));
      if (this.state.pattern) this.pattern = this.state.pattern as Pattern;
      for (const event of options.prior) this.trackRepetition(event);
      this.recent.push(...options.prior.slice(-10));
    }
  }

  /** The fold of every event so far. */
  get snapshot(): SessionState {
    return (this.frozen ??= draftOf(this.state));
  }

  /** Adds a consumer of events (after the ones given at construction). @returns unsubscribe */
  subscribe(sink: (event: LoopEvent) => void): () => void {
    this.sinks.push(sink);
    return () => {
      const index = this.sinks.indexOf(sink);
      if (index >= 0) this.sinks.splice(index, 1);
    };
  }

  /**
   * Starts the run. Legal only once, from a fresh IDLE.
   * @throws SessionStateError when the session has already run
   */
  run(goal: Goal): LoopRun {
    if (this.state.machine.started || this.live) {
      throw new SessionStateError('run() is legal only from a fresh IDLE', this.state.machine.state);
    }
    return this.wrap(this.loop({ kind: 'start', goal }));
  }

  /**
   * Continues a run from the events of an earlier process (crash-resume). Recorded agent
   * turns are handed to the agent's `restore` and never asked for again; a tool call
   * without a recorded result is asked about again before it re-runs.
   * @throws SessionStateError from a fresh IDLE (nothing to resume), from DONE, or when already running
   */
  resume(): LoopRun {
    if (!this.state.machine.started) throw new SessionStateError('resume() needs a run to continue; use run()', this.state.machine.state);
    if (this.state.done) throw new SessionStateError(`the run is over (${this.state.done.reason})`, this.state.machine.state);
    if (this.live) throw new SessionStateError('the run is already going', this.state.machine.state);
    const prior = this.options.prior ?? [];
    const lapStart = prior.findLastIndex((e) => e.type === 'lap.start');
    if (this.state.lap > 0) this.agent = this.lapAgent(this.state.lap);
    const turns = prior.slice(lapStart + 1).flatMap((e) => (e.type === 'model.call' ? [e.data.response] : []));
    this.agent.restore?.(turns);
    return this.wrap(this.loop({ kind: 'resume' }));
  }

  private wrap(inner: Gen<LoopOutcome>): LoopRun {
    this.live = true;
    let started = false;
    const wrapper = {
      next: async (...args: [] | [ResumePayload | undefined]) => {
        if (!started) {
          started = true;
          return inner.next();
        }
        const pending = this.awaiting;
        const payload = args[0];
        if (pending?.kind === 'tool' && !isToolAnswer(payload)) {
          throw new ResumeError(`a tool yield needs { decision: "approve" | "deny", note? }, got ${JSON.stringify(payload)}`);
        }
        if (pending?.kind === 'tool' && (payload as ToolAnswer).decision === 'approve') {
          // "Always allow" never widens: only a rule the prompt offers for this call is stored.
          const always = (payload as { always?: string }).always;
          const offered = offeredRules(pending.call);
          if (always !== undefined && !offered.includes(always)) {
            throw new ResumeError(`"always" must be a rule offered for this call (${offered.map((r) => JSON.stringify(r)).join(', ') || 'none'}), got ${JSON.stringify(always)}`);
          }
        }
        if (pending?.kind === 'pause' && !isPauseAnswer(payload)) {
          throw new ResumeError(`a pause yield needs { action: "continue" | "stop", note? }, got ${JSON.stringify(payload)}`);
        }
        return inner.next(payload);
      },
      return: (value: LoopOutcome) => {
        this.abort.abort();
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
    if (this.state.machine.started && !this.state.done) this.emit('agent.notice', { text });
  }

  /**
   * Asks the run to pause at the next safe point (the start of the next step): the
   * console's first Ctrl+C. Has no effect once the run is over.
   */
  requestPause(reason = 'the operator asked to pause'): void {
    if (!this.state.done) this.pauseRequested = reason;
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
    const goal = this.state.goal;
    if (!goal) return { ok: false, message: 'no goal yet: the run has not started' };
    return {
      ok: true,
      message: `${goal.status} · ${goal.objective} · ${goal.success_criteria.length} criteria · ${goal.constraints.length} constraints · revision ${goal.revision}`,
    };
  }

  /** The operator revises the goal (`/goal <directive> <text>`); not ok before the run starts or once it is over. */
  async reviseGoal(directive: GoalDirective, text: string): Promise<CommandResult> {
    if (!this.state.goal) return { ok: false, message: 'no goal yet: the run has not started' };
    if (this.state.done) return { ok: false, message: `the run is over (${this.state.done.reason}); the goal can no longer be revised` };
    await this.revise(directive, text);
    return { ok: true, message: `goal revised (${directive}): revision ${this.state.goal!.revision}` };
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
    if (this.state.done) return { ok: false, message: 'the run is over' };
    const shown = BUDGET_COMMAND_NAMES[dimension];
    const current = this.state.limits[dimension];
    if (current === null) return { ok: false, message: `${shown} is unlimited` };
    // A sum that overflows to Infinity would be logged as null, which means unlimited.
    if (!Number.isFinite(current + by)) return { ok: false, message: `the ${shown} limit cannot grow past ${Number.MAX_VALUE}` };
    this.emit('budget.extended', { dimension, limit: current + by, by });
    return { ok: true, message: `${shown} limit raised to ${current + by}` };
  }

  /**
   * The operator stops the run: at the next safe point, or with `abort` at once (running
   * tools are killed, a waiting tool call never runs, the workspace is stashed and a
   * failure report written). Not ok once the run is over.
   */
  stop({ abort }: { abort: boolean }): CommandResult {
    if (this.state.done) return { ok: false, message: 'the run is over' };
    if (!abort) {
      this.stopRequested = 'stop';
      return { ok: true, message: 'stopping at the next safe point (answer any open prompt first)' };
    }
    this.stopRequested = 'abort';
    this.abort.abort();
    return { ok: true, message: 'aborting: running tools are killed, a waiting tool call never runs, the workspace will be stashed and a failure report written' };
  }

  /**
   * Records a goal revision with the agent's reconciliation (or a plain fallback when the
   * agent gives none or a malformed one); the next agent turn sees the revised goal.
   * @throws SessionStateError when no run is live
   */
  async revise(directive: GoalDirective, text: string): Promise<void> {
    const goal = this.state.goal;
    if (!goal || this.state.done) throw new SessionStateError('the goal can only be revised during a run', this.state.machine.state);
    const next = reviseGoal(goal, directive, text);
    let reconciliation = fallbackReconciliation(directive);
    if (this.agent.reconcile) {
      try {
        const answer = await this.agent.reconcile({ ...this.agentContext(), goal: next, previous: goal, directive, text });
        reconciliation = validReconciliation(answer) ?? { ...reconciliation, still_valid: 'the agent gave no usable reconciliation' };
      } catch (error) {
        reconciliation = { ...reconciliation, still_valid: `the agent could not reconcile: ${describeError(error)}` };
      }
    }
    this.emit('goal.revised', { revision: { directive, text, reconciliation }, goal: next });
  }

  // ---------------------------------------------------------------- events

  private emit<T extends EventType>(type: T, data: EventDataMap[T]): LoopEvent {
    assertEventType(type);
    const event = { seq: this.state.lastSeq + 1, at: this.clock(), session: this.options.id, type, data: this.redact(data) } as LoopEvent;
    reduce(this.state, event);
    this.frozen = null;
    this.recent.push(event);
    if (this.recent.length > 10) this.recent.shift();
    this.trackRepetition(event);
    for (const sink of this.sinks) sink(event);
    return event;
  }

  private go(to: LoopState): void {
    const from = this.state.machine.state;
    transition(this.state.machine, to, this.state.lastSeq + 1);
    this.emit('state.transition', { from, to });
  }

  private async hook<T extends HookTopic>(topic: T, payload: HookPayloads[T]) {
    const outcome = await this.hooks.call(topic, payload);
    for (const failure of outcome.failures) {
      this.emit('hook.error', failure);
      if (topic !== 'on_error') await this.hook('on_error', { source: `hook ${failure.hook} (${topic})`, error: failure.error });
    }
    return outcome;
  }

  private agentContext(): AgentContext {
    return { turn: this.state.turn + 1, goal: this.state.goal!, history: this.state.history, signal: this.abort.signal };
  }

  // ---------------------------------------------------------------- the loop

  private async *loop(entry: { kind: 'start'; goal: Goal } | { kind: 'resume' }): Gen<LoopOutcome> {
    try {
      if (entry.kind === 'start') {
        const { policy } = this.options;
        const chosen = resolvePattern(policy.pattern, policy.task);
        this.emit('session.start', {
          schemaVersion: SCHEMA_VERSION,
          goal: entry.goal,
          pattern: chosen.pattern,
          pattern_reason: chosen.why,
          budget: policy.budget.limits,
          workspace: this.options.workspace,
          checkpoint_every: policy.checkpoint.every_iterations,
          stagnation_threshold: policy.stagnation.checkpoints_without_observed_progress,
          builtin_gates: policy.approval.builtin_gates === 'off' ? 'off' : 'on',
          ...(this.options.policyDigest ? { policy_sha256: this.options.policyDigest } : {}),
        });
        this.go('PLANNING');
      } else {
        yield* this.recover();
      }
      for (;;) {
        if (this.state.done) return this.state.done;
        switch (this.state.machine.state) {
          case 'PLANNING':
            yield* this.plan();
            break;
          case 'EXECUTING':
            if (this.state.stepOpen) {
              yield* this.continueStep(this.state.step);
              break;
            }
            yield* this.checkBudget();
            yield* this.step();
            break;
          case 'REFLECTING':
            yield* this.reflect();
            break;
          default:
            throw new InvariantError(`the loop cannot continue from ${this.state.machine.state}`);
        }
      }
    } catch (error) {
      if (error instanceof Stop) return error.outcome;
      const message = describeError(error);
      await this.hook('on_error', { source: 'engine', error: message });
      return await this.abortRun(`engine error: ${message}`);
    } finally {
      this.live = false;
    }
  }

  /** Continues a run read from its log at the place it stopped. */
  private async *recover(): Gen {
    const s = this.state;
    const id = s.toolOrder[s.toolOrder.length - 1];
    const last = id === undefined ? undefined : s.tools[id];
    const reask = s.machine.state === 'AWAITING_TOOL' && last && last.result === null && last.error === null ? last.call.id : undefined;
    if (s.machine.state !== 'IDLE') {
      this.emit('session.resume', { action: 'continue', from: s.machine.state, note: 'continued from the log', ...(reask ? { reask } : {}) });
    }
    switch (s.machine.state) {
      case 'IDLE': {
        const pending = s.pending;
        if (pending?.kind !== 'pause') throw new InvariantError('the log ends IDLE without a pause to answer');
        yield* this.answerPause(pending.cause, pending.prompt, pending.from);
        return;
      }
      case 'AWAITING_TOOL': {
        const id = s.toolOrder[s.toolOrder.length - 1];
        const record = id === undefined ? undefined : s.tools[id];
        if (!record) throw new InvariantError('the log is AWAITING_TOOL without a tool call');
        if (reask) yield* this.decideAndRun(record.call, true, 'issued before a restart without a recorded result; approve to run it again');
        this.go('REFLECTING');
        return;
      }
      case 'EXECUTING':
      case 'PLANNING':
      case 'REFLECTING':
        return;
      case 'DONE':
        throw new SessionStateError('the run is over', 'DONE');
    }
  }

  /** PLANNING: draft, let `after_plan` edit, and commit a plan for the pattern. */
  private async *plan(): Gen {
    const goal = this.state.goal!;
    const attempt = this.state.plans + 1;
    const kind = this.state.plans === 0 ? 'initial' : this.pattern === 'reflexion' ? 'attempt' : 'replan';
    await this.hook('before_plan', { goal });
    let steps: string[];
    let reason: string | undefined;
    switch (this.pattern) {
      case 'react':
        steps = [`${goal.objective} (ReAct: reason, act and observe until the verifier passes)`];
        break;
      case 'plan-and-execute': {
        const failed = kind === 'replan' ? failureNote(this.state) : undefined;
        reason = failed;
        if (!this.agent.plan) throw new AgentError(`${this.agent.name} cannot plan; Plan-and-Execute needs an agent that plans`);
        steps = await this.agent.plan({ ...this.agentContext(), kind: kind === 'initial' ? 'initial' : 'replan', ...(failed ? { reason: failed } : {}) });
        break;
      }
      case 'reflexion':
        steps = [`attempt ${attempt}/${this.options.policy.patterns.reflexion.max_attempts}: ${goal.objective}`];
        if (kind === 'attempt') reason = `retry with ${this.state.reflections.length} reflection(s)`;
        break;
    }
    this.emit('plan.draft', { steps: [...steps] });
    const payload = { goal, steps };
    const after = await this.hook('after_plan', payload);
    if (after.decision?.type === 'pause') yield* this.pause({ kind: 'hook' }, after.decision.prompt);
    const none = afterPlan(payload.steps);
    if (none) yield* this.perform(none);
    this.emit('plan.commit', { steps: [...payload.steps], kind, ...(reason ? { reason } : {}) });
    this.go('EXECUTING');
    if (this.options.policy.laps.enabled && this.state.lap === 0) await this.startLap(1);
  }

  private async *pause(cause: PauseReason, prompt: string): Gen {
    const from = this.state.machine.state;
    const reason = pauseReasonText(cause);
    this.go('IDLE');
    this.emit('session.pause', { reason, prompt, from });
    await this.hook('on_pause', { reason, prompt });
    this.options.sync?.();
    yield* this.answerPause(cause, prompt, from);
  }

  private async *answerPause(cause: PauseReason, prompt: string, from: LoopState): Gen {
    const reason = pauseReasonText(cause);
    this.awaiting = { kind: 'pause', reason, cause, prompt };
    const answer = (yield this.awaiting) as PauseAnswer;
    this.awaiting = null;
    if (this.stopRequested === 'abort') throw new Stop(await this.abortRun('the operator aborted the run (/stop --abort)'));
    if (answer.action === 'stop') {
      const done: DoneReason = stopReasonAt(cause);
      const note = answer.note ? `: ${answer.note}` : '';
      throw new Stop(await this.finish(done, `stopped at a pause (${reason})${note}`));
    }
    this.emit('session.resume', { action: 'continue', from, ...(answer.note ? { note: answer.note } : {}) });
    this.go(from);
  }

  /** The safe point at the start of every step: operator requests, then the budget (docs/design.md, "Budget"). */
  private async *checkBudget(): Gen {
    for (;;) {
      const now = this.clock();
      const step = startOfStep(this.state, this.decisions, now, { pause: this.pauseRequested, stop: this.stopRequested });
      if (step.kind === 'start_step' || step.kind === 'budget_exceeded') this.warnBudget(now);
      if (step.kind === 'start_step') return;
      if (step.kind === 'pause' && step.reason.kind === 'operator') this.pauseRequested = null;
      if (step.kind !== 'budget_exceeded') {
        yield* this.perform(step);
        continue;
      }
      await this.hook('on_budget_exceeded', { dimension: step.dimension, used: step.used, limit: step.limit });
      this.emit('budget.warn', { dimension: step.dimension, used: step.used, limit: step.limit, exceeded: true });
      let next = afterBudget(this.state, this.decisions, step, null);
      if (next.kind === 'verify') {
        const passed = await this.verify('check');
        // A lap that meets the goal wins over a budget that ran out in it.
        if (passed) this.emit('lap.end', { lap: this.state.lap, outcome: 'done', note: `the ${step.dimension} budget ran out, but the goal is met` });
        next = afterBudget(this.state, this.decisions, step, passed);
      }
      yield* this.perform(next);
    }
  }

  /** `budget.warn` once per dimension when it crosses the warn fraction (below its limit). */
  private warnBudget(now: number): void {
    const usage = { ...this.state.usage, wall_clock_seconds: activeSeconds(this.state, now) };
    const limits = this.state.limits;
    for (const dimension of newWarnings(usage, limits, this.options.policy.budget.warn_fraction, this.state.warned)) {
      if (usage[dimension] < limits[dimension]!) {
        this.emit('budget.warn', { dimension, used: usage[dimension], limit: limits[dimension]!, exceeded: false });
      }
    }
  }

  /** Performs a decided step that moves the loop on (the ones a phase does not handle itself). */
  private async *perform(step: Step): Gen {
    switch (step.kind) {
      case 'pause':
        return yield* this.pause(step.reason, step.prompt);
      case 'finish':
        throw new Stop(await this.end(step.finish));
      case 'execute':
        return this.go('EXECUTING');
      case 'replan':
        return this.go('PLANNING');
      case 'checkpoint':
        return yield* this.checkpoint(step.iteration);
      case 'verify':
        return void (await this.verify(step.trigger));
      case 'reflect': {
        if (!this.agent.reflect) throw new AgentError(`${this.agent.name} cannot reflect; Reflexion needs an agent that reflects`);
        const text = await this.agent.reflect({ ...this.agentContext(), attempt: step.attempt, failure: step.failure });
        return void this.emit('reflection.recorded', { attempt: step.attempt, text });
      }
      case 'end_lap':
        return void this.emit('lap.end', { lap: step.lap, outcome: step.outcome, ...(step.outcome === 'not_done' ? { note: 'the verifier failed' } : {}) });
      case 'start_lap':
        return this.startLap(step.lap);
      default:
        throw new InvariantError(`the runner cannot perform "${step.kind}" here`);
    }
  }

  private end(finish: Finish): Promise<LoopOutcome> {
    return finish.abort ? this.abortRun(finish.summary) : this.finish(finish.reason, finish.summary, finish.limit);
  }

  /** EXECUTING: one step — a queued tool call of the last turn, or a new agent turn. */
  private async *step(): Gen {
    const step = this.state.step + 1;
    const queued = this.state.queued[0];
    const turn = queued ? this.state.turn : this.state.turn + 1;
    const before = await this.hook('before_step', { step, turn });
    const title = queued ? `tool call ${queued.name} (same turn)` : this.stepTitle();
    if (before.decision?.type === 'skip') {
      this.emit('step.start', { step, turn: this.state.turn, title });
      this.emit('step.end', { step, outcome: 'skipped' });
      await this.hook('after_step', { step, outcome: 'skipped' });
      this.go('REFLECTING');
      return;
    }
    if (before.decision?.type === 'pause') yield* this.pause({ kind: 'hook' }, before.decision.prompt);
    this.emit('step.start', { step, turn, title });
    yield* this.continueStep(step);
  }

  private stepTitle(): string {
    if (this.pattern === 'plan-and-execute') {
      const index = Math.min(this.state.planDone, this.state.plan.length - 1);
      return `plan step ${index + 1}/${this.state.plan.length}: ${this.state.plan[index] ?? ''}`;
    }
    return this.state.plan[0] ?? 'step';
  }

  /** The rest of an open step: the agent's turn (unless recorded), then its tool call. */
  private async *continueStep(step: number): Gen {
    if (!this.state.stepHasTurn) {
      let response: AgentTurn;
      try {
        const onEvent = (d: AgentEventDraft) => void this.emit(d.type, d.data as never); // a CLI agent's own calls, messages, usage
        response = await this.agent.nextTurn({ ...this.agentContext(), onEvent, ...(this.options.onAgentText ? { onText: this.options.onAgentText } : {}) });
      } catch (error) {
        this.emit('step.end', { step, outcome: 'error', thought: describeError(error) });
        await this.hook('after_step', { step, outcome: 'error' });
        this.go('REFLECTING');
        if (!(error instanceof AgentError)) throw error;
        await this.hook('on_error', { source: 'agent', error: error.message });
        if (this.state.lap > 0) {
          this.emit('lap.end', { lap: this.state.lap, outcome: 'error', note: error.message });
          return;
        }
        throw new Stop(await this.finish('aborted', `the agent failed: ${error.message}`));
      }
      const turn = this.state.turn + 1;
      // Chained: the last request's hash and size plus what is new since (O(new), not O(history)).
      const history = this.state.history;
      if (history.length < this.request.count) this.request = { count: 0, hash: '', chars: 0 };
      const added = JSON.stringify(history.slice(this.request.count));
      const goal = JSON.stringify(this.state.goal);
      const requestHash = createHash('sha256')
        .update(JSON.stringify({ previous: this.request.hash, turn, goal }))
        .update(added)
        .digest('hex')
        .slice(0, 16);
      const historyChars = this.request.chars + added.length;
      this.request = { count: history.length, hash: requestHash, chars: historyChars };
      const cost = costOf(response.usage, this.options.policy.pricing);
      const requestChars = goal.length + historyChars;
      // The log gets the turn redacted; the calls run as the agent sent them.
      this.turnCalls = structuredClone(response.tool_calls);
      this.emit('model.call', {
        turn,
        request_hash: requestHash,
        response,
        usage: response.usage,
        cost_usd: cost,
        request_chars: requestChars,
        long_session_chars: requestChars + this.state.earlierLapsChars,
      });
    }
    const call = this.unredacted(this.state.queued[0]);
    if (!call) {
      const thought = this.state.thought ?? undefined;
      this.emit('step.end', { step, outcome: 'ok', ...(thought ? { thought } : {}) });
      await this.hook('after_step', { step, outcome: 'ok' });
      this.go('REFLECTING');
      return;
    }
    if (this.repetitionChecked !== call.id) {
      this.repetitionChecked = call.id;
      yield* this.checkRepetition(call);
    }
    const payload = { call: structuredClone(call), granted: this.state.granted };
    const gate = await this.hook('before_tool_call', payload);
    if (gate.decision?.type === 'deny') {
      const error = `cancelled before dispatch: ${gate.decision.reason}`;
      this.emit('tool.error', { call_id: call.id, name: call.name, error });
      await this.hook('on_error', { source: `tool ${call.name}`, error });
      this.go('REFLECTING');
      return;
    }
    const ask = gate.decision?.type === 'pause';
    const reason = gate.decision?.type === 'pause' ? gate.decision.prompt : undefined;
    this.emit('tool.call', { call: payload.call });
    this.emit('step.end', { step, outcome: 'awaiting_tool', ask, ...(reason ? { reason } : {}) });
    await this.hook('after_step', { step, outcome: 'awaiting_tool' });
    this.go('AWAITING_TOOL');
    yield* this.decideAndRun(payload.call, ask, reason);
    this.go('REFLECTING');
  }

  /**
   * The queued call as the agent sent it: events (and so the folded state) carry tool calls
   * redacted, but approval, hooks and the tool must see what the agent asked for, or a
   * secret-looking word in the arguments would be run as `[REDACTED]`. A call recorded
   * before a restart is known only as logged.
   */
  private unredacted(queued: ToolCall | undefined): ToolCall | undefined {
    if (!queued) return undefined;
    const raw = this.turnCalls[this.turnCalls.length - this.state.queued.length];
    return raw && raw.id === queued.id && raw.name === queued.name ? structuredClone(raw) : queued;
  }

  /** AWAITING_TOOL: the decision (the operator's when asked, else the policy's), then the tool. */
  private async *decideAndRun(call: ToolCall, ask: boolean, reason?: string): Gen {
    let answer: ToolAnswer = { decision: 'approve' };
    if (ask) {
      this.awaiting = { kind: 'tool', call, ...(reason ? { reason } : {}) };
      answer = (yield this.awaiting) as ToolAnswer;
      this.awaiting = null;
    }
    // Aborted while the call waited for its answer: it never runs, whatever the answer.
    const aborting = this.stopRequested === 'abort';
    if (aborting) answer = { decision: 'deny', note: 'the operator aborted the run (/stop --abort)' };
    const by = ask ? 'operator' : 'policy';
    const always = answer.decision === 'approve' && answer.always ? { always: answer.always } : {};
    this.emit('tool.decision', { call_id: call.id, decision: answer.decision, by, ...(answer.note ? { note: answer.note } : {}), ...always });
    this.options.sync?.();
    let result: ToolResult | null = null;
    let error: string | null = null;
    if (answer.decision === 'deny') {
      const why = answer.note ? `: ${answer.note}` : '';
      result = { call_id: call.id, name: call.name, status: 'denied', output: `denied by the ${by}${why}`, exit_code: null, duration_ms: 0 };
      this.emit('tool.result', { result });
      if (aborting) {
        await this.hook('after_tool_call', { call, result, error });
        throw new Stop(await this.abortRun('the operator aborted the run (/stop --abort)'));
      }
    } else {
      const started = this.clock();
      try {
        const outcome = await (this.options.runTool ?? runTool)(call, {
          workspace: this.options.workspace,
          shellTimeoutSeconds: this.options.policy.tools.shell_timeout,
          outputLimit: this.options.policy.tools.output_limit_bytes,
          signal: this.abort.signal,
          harness: harnessFiles({ runDir: this.options.runDir, policy: this.options.policy }),
        });
        result = { call_id: call.id, name: call.name, ...outcome, duration_ms: Math.max(0, this.clock() - started) };
        this.emit('tool.result', { result });
      } catch (thrown) {
        if (!(thrown instanceof ToolError)) throw thrown;
        error = thrown.message;
        this.emit('tool.error', { call_id: call.id, name: call.name, error });
        await this.hook('on_error', { source: `tool ${call.name}`, error });
      }
    }
    await this.hook('after_tool_call', { call, result, error });
  }

  /** REFLECTING: what the decisions say after a step, performed until the loop leaves REFLECTING. */
  private async *reflect(): Gen {
    await this.snapshotWorkspace();
    while (this.state.machine.state === 'REFLECTING' && !this.state.done) {
      yield* this.perform(afterStep(this.state, this.decisions));
    }
  }

  /** Runs the verify commands; records `verify.result`. @returns whether all passed */
  private async verify(trigger: 'claim' | 'check'): Promise<boolean> {
    const verdict = await runVerify(this.options.policy.verify, this.options.workspace, this.abort.signal);
    this.emit('verify.result', { passed: verdict.passed, commands: verdict.commands, trigger });
    return verdict.passed;
  }

  private async *checkpoint(turn: number): Gen {
    const { policy } = this.options;
    const observation = await observe(policy.observe, this.options.workspace);
    const progress: ProgressPolicy = {
      observed: policy.progress.observed,
      reported: policy.progress.reported.track,
      threshold: policy.stagnation.checkpoints_without_observed_progress,
    };
    const { record } = evaluateCheckpoint(
      this.state.evaluator,
      {
        iteration: turn,
        observed: observation.metrics,
        tests: observation.tests,
        reported: this.state.reportSinceCheckpoint,
        ...(observation.errors.length > 0 ? { observer_errors: observation.errors } : {}),
      },
      progress,
    );
    this.emit('checkpoint.recorded', { checkpoint: record });
    this.options.sync?.();
    if (!record.stagnation_detected) return;
    const action = policy.stagnation.on_detect;
    this.emit('stagnation.detected', { counter: record.counter, threshold: record.threshold, iteration: turn, action });
    const summary = `STAGNATION_DETECTED: ${record.counter}/${record.threshold} checkpoints without observed progress`;
    const next = afterDetection('stagnation', action, summary);
    if (next) yield* this.perform(next);
  }

  private async finish(reason: DoneReason, summary: string, detail?: string): Promise<LoopOutcome> {
    // A run stopped mid-step ends that step first: EXECUTING and AWAITING_TOOL reach DONE through REFLECTING.
    const state = this.state.machine.state;
    if (state === 'EXECUTING' || state === 'AWAITING_TOOL') this.go('REFLECTING');
    this.go('DONE');
    this.emit('session.complete', { reason, summary, ...(detail ? { detail } : {}) });
    this.options.sync?.();
    await this.hook('on_complete', { reason });
    // The outcome is printed as the final line: redacted like the event (a server's error may echo a key).
    return this.redact({ reason, summary, ...(detail ? { detail } : {}) });
  }

  // ---------------------------------------------------------------- guards and laps

  /** Feeds the repetition guard from the event stream (live and when folding a log). */
  private trackRepetition(event: LoopEvent): void {
    if (event.type === 'tool.call') {
      this.repetition = observeCall(this.repetition, { call: event.data.call }, this.repetitionOptions).state;
    } else if (event.type === 'tool.result') {
      this.repetition = recordResult(this.repetition, event.data.result.call_id, resultHash(event.data.result));
    } else if (event.type === 'repetition.detected') {
      this.repetitionChecked = event.data.calls[event.data.calls.length - 1]?.id ?? null;
    }
  }

  /**
   * The repetition guard, before a call is dispatched: the same call (tool and canonical
   * arguments) too often in the window, or a short cycle, raises `repetition.detected`
   * and the configured action. Continuing keeps the guard armed.
   */
  private async *checkRepetition(call: ToolCall): Gen {
    const { detection } = observeCall(this.repetition, { call }, this.repetitionOptions);
    if (!detection) return;
    const action = this.options.policy.repetition.on_detect;
    this.emit('repetition.detected', detectionEventData(detection));
    const what = detection.kind === 'cycle' ? `a cycle of ${detection.period} calls repeated` : `the same ${call.name} call`;
    const summary = `repetition: ${what} ${detection.count}× in the last ${this.repetitionOptions.window} calls`;
    const next = afterDetection('repetition', action, summary);
    if (next) yield* this.perform(next);
  }

  /** Records the workspace's git state once per step ("no file changed in N steps"). */
  private async snapshotWorkspace(): Promise<void> {
    if (this.snapshotStep === this.state.step) return;
    this.snapshotStep = this.state.step;
    this.git ??= await isGitWorkTree(this.options.workspace);
    if (!this.git) {
      // Said once: outside git, workspace progress is unknown, never "none".
      if (!this.sawNonGitSnapshot) this.emit('workspace.snapshot', { head: null, tree: null, new_commits: null, git: false });
      this.sawNonGitSnapshot = true;
      return;
    }
    try {
      const snapshot = await gitSnapshot(this.options.workspace, this.lastSnapshot);
      if (!snapshot) return;
      this.lastSnapshot = snapshot;
      this.emit('workspace.snapshot', { head: snapshot.head, tree: snapshot.tree, new_commits: snapshot.new_commits, git: true });
    } catch (error) {
      await this.hook('on_error', { source: 'workspace snapshot', error: describeError(error) });
    }
  }

  private sawNonGitSnapshot = false;

  private lapAgent(lap: number): Agent {
    if (!this.options.agentFactory) throw new AgentError('fresh laps need an agent factory: each lap starts a new agent');
    return this.options.agentFactory(lap);
  }

  /** Starts lap `n` with a new agent, an empty history and the progress file's content. */
  private async startLap(lap: number): Promise<void> {
    const { laps } = this.options.policy;
    this.agent = this.lapAgent(lap);
    const handover = await readHandover(this.options.workspace, laps.progress_file);
    this.emit('lap.start', { lap, max_laps: laps.max_laps, handover });
  }

  /**
   * The circuit breaker: kill running tool processes, park the workspace folder (only it,
   * never `.loopdeck/`) with `git stash push --include-untracked` unless `on_abort.stash` is
   * false, write a failure report outside the workspace unless `on_abort.report` is false,
   * and end the run `aborted`. Never pops or applies the stash.
   */
  private async abortRun(reason: string): Promise<LoopOutcome> {
    this.abort.abort();
    const { on_abort, laps } = this.options.policy;
    if (this.options.runDir) {
      try {
        const { report, path: file } = await recordAbort({
          reason,
          now: this.clock(),
          session: this.options.id,
          workspace: this.options.workspace,
          goal: this.state.goal!,
          budget: { limits: this.state.limits, usage: this.state.usage },
          events: this.recent,
          runDir: this.options.runDir,
          progressFile: path.resolve(this.options.workspace, laps.progress_file),
          stash: on_abort.stash,
          report: on_abort.report,
          redact: this.redact,
        });
        this.emit('abort.recorded', { report: file ?? 'not written (on_abort.report: false)', stash: stashSummary(report.stash), restore: report.restore });
      } catch (error) {
        await this.hook('on_error', { source: 'abort', error: describeError(error) });
      }
    }
    return this.finish('aborted', reason);
  }
}

function validReconciliation(value: unknown): GoalRevision['reconciliation'] | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const text = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : null);
  const still = text('still_valid');
  const discard = text('discard');
  const work = text('new_work');
  if (still === null || discard === null || work === null || typeof v.full_restart !== 'boolean') return null;
  return { still_valid: still, discard, new_work: work, full_restart: v.full_restart };
}
