import { createHash } from 'node:crypto';
import type { Agent } from './agents/agent.js';
import { costOf, exceededDimension, newWarnings } from './budget.js';
import { evaluateCheckpoint, type ProgressPolicy } from './checkpoint.js';
import { AgentError, describeError, ResumeError, SessionStateError, ToolError } from './errors.js';
import { SCHEMA_VERSION, type EventDataMap, type EventType, type LoopEvent } from './events.js';
import { activeSeconds, fold, INITIAL_STATE, type SessionState } from './fold.js';
import { fallbackReconciliation, parseGoalCommand, reviseGoal, type GoalDirective } from './goal.js';
import { HookRegistry, type HookPayloads, type HookTopic } from './hooks.js';
import type { DoneReason, LoopState } from './machine.js';
import { transition } from './machine.js';
import { observe } from './observe.js';
import type { LoopPolicy } from './policy.js';
import { runTool } from './tools.js';
import type { BudgetDimension, Goal, ToolCall, ToolResult } from './types.js';
import { runVerify } from './verify.js';

/** A point where the session hands control back and waits for `next(payload)`. */
export type LoopYield =
  | { kind: 'tool'; call: ToolCall }
  | { kind: 'pause'; reason: string; prompt: string };

/** Answer to a `tool` yield. A denial's note goes back to the agent. */
export type ToolAnswer = { decision: 'approve'; note?: string } | { decision: 'deny'; note?: string };
/** Answer to a `pause` yield. */
export type PauseAnswer = { action: 'continue'; note?: string } | { action: 'stop'; note?: string };
export type ResumePayload = ToolAnswer | PauseAnswer;

/** How a run ended. */
export interface LoopOutcome {
  reason: DoneReason;
  summary: string;
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
  /** Called with each event after it is written and folded (e.g. the log and the console). */
  sinks?: Array<(event: LoopEvent) => void>;
  /** Called for events whose effects must not repeat (approvals, checkpoints): flush to disk. */
  sync?: () => void;
}

class Stop {
  constructor(readonly outcome: LoopOutcome) {}
}

function isToolAnswer(p: unknown): p is ToolAnswer {
  const v = p as Partial<ToolAnswer> | undefined;
  return !!v && (v.decision === 'approve' || v.decision === 'deny') && (v.note === undefined || typeof v.note === 'string');
}

function isPauseAnswer(p: unknown): p is PauseAnswer {
  const v = p as Partial<PauseAnswer> | undefined;
  return !!v && (v.action === 'continue' || v.action === 'stop') && (v.note === undefined || typeof v.note === 'string');
}

/**
 * One run of an agent towards a goal: the ReAct loop over the state machine of
 * DESIGN.md, writing every step as an event. The session's own state is the fold of
 * its events, so what the console and replay show is what the engine acted on.
 *
 * ReAct (Yao et al., 2022, "ReAct: Synergizing Reasoning and Acting in Language Models"):
 * one open-ended plan step that repeats (reason, act, observe) until the verifier passes
 * or a limit ends the run.
 */
export class Session {
  private state: SessionState = INITIAL_STATE;
  private readonly clock: () => number;
  private readonly hooks: HookRegistry;
  private readonly sinks: Array<(event: LoopEvent) => void>;
  private readonly abort = new AbortController();
  private awaiting: LoopYield | null = null;

  constructor(private readonly options: SessionOptions) {
    this.clock = options.clock ?? Date.now;
    this.hooks = options.hooks ?? new HookRegistry();
    this.sinks = options.sinks ?? [];
  }

  /** The fold of every event so far. */
  get snapshot(): SessionState {
    return this.state;
  }

  /** Adds a consumer of events (after the ones given at construction). */
  subscribe(sink: (event: LoopEvent) => void): () => void {
    this.sinks.push(sink);
    return () => this.sinks.splice(this.sinks.indexOf(sink), 1);
  }

  /**
   * Starts the run. Legal only once, from a fresh IDLE.
   * @throws SessionStateError when the session has already run
   */
  run(goal: Goal): LoopRun {
    if (this.state.machine.started) throw new SessionStateError('run() is legal only from a fresh IDLE', this.state.machine.state);
    const inner = this.loop(goal);
    let started = false;
    const wrapper: LoopRun = {
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
        if (pending?.kind === 'pause' && !isPauseAnswer(payload)) {
          throw new ResumeError(`a pause yield needs { action: "continue" | "stop", note? }, got ${JSON.stringify(payload)}`);
        }
        return inner.next(payload);
      },
      return: (value) => {
        this.abort.abort();
        return inner.return(value as LoopOutcome);
      },
      throw: (error) => inner.throw(error),
      [Symbol.asyncIterator]() {
        return wrapper;
      },
    } as LoopRun;
    return wrapper;
  }

  /**
   * Applies an operator's command-bar line. Only the operator calls this: text from the
   * agent or a tool never reaches it.
   * @returns a line to show the operator
   * @throws SessionStateError when the run is not live
   */
  command(line: string): { ok: boolean; message: string } {
    const trimmed = line.trim();
    if (trimmed.startsWith('/goal')) return this.goalCommand(trimmed);
    const budget = /^\/budget(?:\s+(\S+)\s+\+(\d+(?:\.\d+)?))?\s*$/.exec(trimmed);
    if (trimmed.startsWith('/budget')) {
      if (!budget || !budget[1]) return { ok: false, message: 'usage: /budget <turns|tool_calls|wall_clock_seconds|tokens|cost_usd> +N' };
      return this.extendBudget(budget[1], Number(budget[2]));
    }
    return { ok: false, message: `unknown command "${trimmed.split(/\s/)[0]}"; try /goal status, /goal add-constraint <text>, /goal redirect <text>, /budget <dimension> +N` };
  }

  private goalCommand(line: string): { ok: boolean; message: string } {
    const parsed = parseGoalCommand(line);
    const goal = this.state.goal;
    if (parsed.kind === 'error') return { ok: false, message: parsed.message };
    if (!goal) return { ok: false, message: 'no goal yet: the run has not started' };
    if (parsed.kind === 'status') {
      return {
        ok: true,
        message: `${goal.status} · ${goal.objective} · ${goal.success_criteria.length} criteria · ${goal.constraints.length} constraints · revision ${goal.revision}`,
      };
    }
    if (this.state.done) return { ok: false, message: `the run is over (${this.state.done.reason}); the goal can no longer be revised` };
    this.revise(parsed.directive, parsed.text);
    return { ok: true, message: `goal revised (${parsed.directive}): revision ${this.state.goal!.revision}` };
  }

  /** Records a goal revision; the next agent turn sees the revised goal. */
  revise(directive: GoalDirective, text: string): void {
    const goal = this.state.goal;
    if (!goal || this.state.done) throw new SessionStateError('the goal can only be revised during a run', this.state.machine.state);
    const next = reviseGoal(goal, directive, text);
    this.emit('goal.revised', { revision: { directive, text, reconciliation: fallbackReconciliation(directive) }, goal: next });
  }

  private extendBudget(dimension: string, by: number): { ok: boolean; message: string } {
    const dims = Object.keys(this.state.limits);
    if (!dims.includes(dimension)) return { ok: false, message: `unknown budget dimension "${dimension}"; valid: ${dims.join(', ')}` };
    if (!(by > 0)) return { ok: false, message: 'the increment must be a positive number' };
    const dim = dimension as BudgetDimension;
    const current = this.state.limits[dim];
    if (current === null) return { ok: false, message: `${dimension} is unlimited` };
    this.emit('budget.extended', { dimension: dim, limit: current + by, by });
    return { ok: true, message: `${dimension} limit raised to ${current + by}` };
  }

  // ---------------------------------------------------------------- events

  private emit<T extends EventType>(type: T, data: EventDataMap[T]): LoopEvent {
    const event = { seq: this.state.lastSeq + 1, at: this.clock(), session: this.options.id, type, data } as LoopEvent;
    this.state = fold([event], this.state);
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

  // ---------------------------------------------------------------- the loop

  private async *loop(goal: Goal): AsyncGenerator<LoopYield, LoopOutcome, ResumePayload | undefined> {
    const { policy } = this.options;
    this.emit('session.start', {
      schemaVersion: SCHEMA_VERSION,
      goal,
      pattern: policy.pattern,
      budget: policy.budget.limits,
      workspace: this.options.workspace,
      checkpoint_every: policy.checkpoint.every_iterations,
      stagnation_threshold: policy.stagnation.checkpoints_without_observed_progress,
    });
    try {
      this.go('PLANNING');
      await this.hook('before_plan', { goal });
      const steps = [`${goal.objective} (ReAct: reason, act and observe until the verifier passes)`];
      this.emit('plan.draft', { steps: [...steps] });
      const planPayload = { goal, steps };
      await this.hook('after_plan', planPayload);
      if (planPayload.steps.length === 0) return await this.finish('no_plan', 'the plan has no steps');
      this.emit('plan.commit', { steps: [...planPayload.steps] });
      this.go('EXECUTING');
      for (;;) {
        yield* this.checkBudget();
        const outcome = yield* this.step();
        if (outcome) return outcome;
      }
    } catch (error) {
      if (error instanceof Stop) return error.outcome;
      const message = describeError(error);
      await this.hook('on_error', { source: 'engine', error: message });
      return await this.finish('aborted', `stopped by an error: ${message}`);
    }
  }

  private async *pause(reason: string, prompt: string): AsyncGenerator<LoopYield, void, ResumePayload | undefined> {
    const from = this.state.machine.state;
    this.go('IDLE');
    this.emit('session.pause', { reason, prompt, from });
    await this.hook('on_pause', { reason, prompt });
    this.options.sync?.();
    this.awaiting = { kind: 'pause', reason, prompt };
    const answer = (yield this.awaiting) as PauseAnswer;
    this.awaiting = null;
    if (answer.action === 'stop') {
      const reasonDone: DoneReason = reason.startsWith('budget_exceeded:') ? 'exhausted' : 'stopped';
      throw new Stop(await this.finish(reasonDone, `stopped by the operator at a pause (${reason})`));
    }
    this.emit('session.resume', { action: 'continue', from, ...(answer.note ? { note: answer.note } : {}) });
    this.go(from);
  }

  /** Budget check at the start of every step (DESIGN.md, "Budget envelope"). */
  private async *checkBudget(): AsyncGenerator<LoopYield, void, ResumePayload | undefined> {
    const { warn_fraction } = this.options.policy.budget;
    for (;;) {
      const usage = { ...this.state.usage, wall_clock_seconds: activeSeconds(this.state, this.clock()) };
      const limits = this.state.limits;
      for (const dimension of newWarnings(usage, limits, warn_fraction, this.state.warned)) {
        const exceeded = usage[dimension] >= limits[dimension]!;
        if (!exceeded) this.emit('budget.warn', { dimension, used: usage[dimension], limit: limits[dimension]!, exceeded });
      }
      const dimension = exceededDimension(usage, limits);
      if (!dimension) return;
      const limit = limits[dimension]!;
      await this.hook('on_budget_exceeded', { dimension, used: usage[dimension], limit });
      this.emit('budget.warn', { dimension, used: usage[dimension], limit, exceeded: true });
      yield* this.pause(
        `budget_exceeded:${dimension}`,
        `The ${dimension} budget is spent (${round(usage[dimension])} of ${limit}). Raise it with /budget ${dimension} +N and continue, or stop.`,
      );
    }
  }

  /** One step: a queued tool call of the last turn, or a new agent turn. Returns an outcome when the run ends. */
  private async *step(): AsyncGenerator<LoopYield, LoopOutcome | null, ResumePayload | undefined> {
    const step = this.state.step + 1;
    const before = await this.hook('before_step', { step, turn: this.state.turn + 1 });
    let call = this.state.queued[0];
    if (!call) {
      if (before.decision?.type === 'skip') {
        this.emit('step.start', { step, turn: this.state.turn, title: 'skipped by a hook' });
        this.emit('step.end', { step, outcome: 'skipped' });
        await this.hook('after_step', { step, outcome: 'skipped' });
        this.go('REFLECTING');
        this.go('EXECUTING');
        return null;
      }
      const turn = this.state.turn + 1;
      this.emit('step.start', { step, turn, title: `turn ${turn}` });
      let response;
      try {
        response = await this.options.agent.nextTurn({ turn, goal: this.state.goal!, history: this.state.history });
      } catch (error) {
        this.emit('step.end', { step, outcome: 'error', thought: describeError(error) });
        await this.hook('after_step', { step, outcome: 'error' });
        this.go('REFLECTING');
        if (error instanceof AgentError) {
          await this.hook('on_error', { source: 'agent', error: error.message });
          return await this.finish('aborted', `the agent failed: ${error.message}`);
        }
        throw error;
      }
      const requestHash = createHash('sha256')
        .update(JSON.stringify({ turn, goal: this.state.goal, history: this.state.history }))
        .digest('hex')
        .slice(0, 16);
      this.emit('model.call', { turn, request_hash: requestHash, response, usage: response.usage, cost_usd: costOf(response.usage, this.options.policy.pricing) });
      call = this.state.queued[0];
      if (!call) {
        this.emit('step.end', { step, outcome: 'ok', ...(response.thought ? { thought: response.thought } : {}) });
        await this.hook('after_step', { step, outcome: 'ok' });
        this.go('REFLECTING');
        return yield* this.reflect();
      }
    } else {
      this.emit('step.start', { step, turn: this.state.turn, title: `tool call ${call.name} (queued)` });
    }
    yield* this.toolStep(step, call);
    return yield* this.reflect();
  }

  private async *toolStep(step: number, original: ToolCall): AsyncGenerator<LoopYield, void, ResumePayload | undefined> {
    const payload = { call: structuredClone(original) };
    const gate = await this.hook('before_tool_call', payload);
    if (gate.decision?.type === 'deny') {
      const error = `cancelled before dispatch: ${gate.decision.reason}`;
      this.emit('tool.error', { call_id: original.id, name: original.name, error });
      await this.hook('on_error', { source: `tool ${original.name}`, error });
      this.go('REFLECTING');
      return;
    }
    const call = payload.call;
    this.emit('tool.call', { call });
    this.emit('step.end', { step, outcome: 'awaiting_tool' });
    await this.hook('after_step', { step, outcome: 'awaiting_tool' });
    this.go('AWAITING_TOOL');
    let answer: ToolAnswer = { decision: 'approve' };
    let by: 'operator' | 'policy' = 'policy';
    if (this.options.policy.approval.ask.includes(call.name)) {
      this.awaiting = { kind: 'tool', call };
      answer = (yield this.awaiting) as ToolAnswer;
      this.awaiting = null;
      by = 'operator';
    }
    this.emit('tool.decision', { call_id: call.id, decision: answer.decision, by, ...(answer.note ? { note: answer.note } : {}) });
    this.options.sync?.();
    let result: ToolResult | null = null;
    let error: string | null = null;
    if (answer.decision === 'deny') {
      const why = answer.note ? `: ${answer.note}` : '';
      result = { call_id: call.id, name: call.name, status: 'denied', output: `denied by the ${by}${why}`, exit_code: null, duration_ms: 0 };
      this.emit('tool.result', { result });
    } else {
      const started = this.clock();
      try {
        const outcome = await runTool(call, {
          workspace: this.options.workspace,
          shellTimeoutSeconds: this.options.policy.tools.shell_timeout,
          outputLimit: this.options.policy.tools.output_limit_bytes,
          signal: this.abort.signal,
        });
        result = { call_id: call.id, name: call.name, ...outcome, duration_ms: this.clock() - started };
        this.emit('tool.result', { result });
      } catch (thrown) {
        if (!(thrown instanceof ToolError)) throw thrown;
        error = thrown.message;
        this.emit('tool.error', { call_id: call.id, name: call.name, error });
        await this.hook('on_error', { source: `tool ${call.name}`, error });
      }
    }
    await this.hook('after_tool_call', { call, result, error });
    this.go('REFLECTING');
  }

  /** In REFLECTING: checkpoint when due, judge a claim of completion, then the next step. */
  private async *reflect(): AsyncGenerator<LoopYield, LoopOutcome | null, ResumePayload | undefined> {
    const { policy } = this.options;
    const turn = this.state.turn;
    const lastCheckpoint = this.state.checkpoints[this.state.checkpoints.length - 1];
    if (this.state.queued.length === 0 && turn > 0 && turn % policy.checkpoint.every_iterations === 0 && lastCheckpoint?.iteration !== turn) {
      yield* this.checkpoint(turn);
    }
    if (this.state.finalClaim !== null && this.state.queued.length === 0) {
      const verdict = await runVerify(policy.verify, this.options.workspace, this.abort.signal);
      this.emit('verify.result', { passed: verdict.passed, commands: verdict.commands, trigger: 'claim' });
      if (verdict.passed) return await this.finish('goal_met', this.state.finalClaim ?? 'the verifier passed');
    }
    this.go('EXECUTING');
    return null;
  }

  private async *checkpoint(turn: number): AsyncGenerator<LoopYield, void, ResumePayload | undefined> {
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
    if (action === 'stop') throw new Stop(await this.finish('stopped', summary));
    if (action === 'pause') {
      yield* this.pause('stagnation', `${summary}. Continue, redirect the goal (/goal redirect <text>), or stop?`);
    }
  }

  private async finish(reason: DoneReason, summary: string): Promise<LoopOutcome> {
    this.go('DONE');
    this.emit('session.complete', { reason, summary });
    this.options.sync?.();
    await this.hook('on_complete', { reason });
    return { reason, summary };
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
