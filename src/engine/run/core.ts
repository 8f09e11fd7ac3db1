import type { Agent, AgentContext } from '../agents/agent.js';
import type { DecisionPolicy, Intents, Step } from '../decide.js';
import { assertEventType, type EventDataMap, type EventType, type LoopEvent } from '../events.js';
import { RunInterrupted } from '../errors.js';
import { agentCheckpoint, checkpointMemory } from '../handover.js';
import { draftOf, fold, INITIAL_STATE, reduce, type SessionState } from '../fold.js';
import { HookRegistry, type HookOutcome, type HookPayloads, type HookTopic } from '../hooks.js';
import { transition, type LoopState } from '../machine.js';
import { resolvePattern, type Pattern } from '../patterns.js';
import { repetitionSettings } from '../policy.js';
import { createRedactor, type Redactor } from '../redact.js';
import { INITIAL_REPETITION, observeCall, recordResult, resultHash, type RepetitionOptions } from '../repetition.js';
import type { RunContext, RunMemory } from './context.js';
import { performStep } from './perform.js';
import { policyInForce } from './reload-step.js';
import type { Done, Gen, LoopYield, SessionOptions } from './types.js';

/** How many of the last events a failure report carries. */
const RECENT = 10;

/**
 * The {@link RunContext} of one session: its folded state (a private draft, reduced in place
 * event by event), the event writer, the hooks and the agent. `Session` is its public face.
 */
export class RunCore implements RunContext {
  readonly state: SessionState = draftOf(INITIAL_STATE);
  pattern: Pattern;
  agent: Agent;
  readonly intents: Intents = { pause: null, stop: null };
  readonly pauseRequests = new EventTarget();
  awaiting: LoopYield | null = null;
  restarted = false;
  readonly memory: RunMemory = {
    request: { count: 0, hash: '', chars: 0 },
    turnCalls: [],
    repetition: INITIAL_REPETITION,
    repetitionChecked: null,
    git: null,
    lastSnapshot: null,
    snapshotStep: -1,
    sawNonGitSnapshot: false,
    lastSnapshotStep: null,
  };
  readonly recent: LoopEvent[] = [];
  readonly redact: Redactor;
  /** The repetition guard's settings of the policy in force (a reload may change them). */
  repetitionOptions: RepetitionOptions;
  /** The hooks of the policy in force (a confirmed reload of approval rules or hooks rebuilds them through `hooksFor`). */
  hooks: HookRegistry;
  /** The settings: `options.policy` is the policy in force, which a reload replaces (run/reload-step.ts). */
  readonly options: SessionOptions;
  readonly sinks: Array<(event: LoopEvent) => void>;
  /** Whether a run generator is going. */
  live = false;
  /** Set once the run was quit: nothing more is written ({@link RunInterrupted}). */
  halted = false;
  /** A copy of the state handed out, until the next event. */
  private frozen: SessionState | null = null;
  private readonly abort = new AbortController();
  private readonly now: () => number;

  constructor(given: SessionOptions) {
    // A resumed run goes on under the policy in force where its log ends, reloads included.
    const options = (this.options = { ...given, policy: policyInForce(given.policy, given.prior) });
    this.now = options.clock ?? Date.now;
    this.hooks = options.hooksFor ? options.hooksFor(options.policy) : (options.hooks ?? new HookRegistry());
    this.sinks = options.sinks ?? [];
    this.redact = options.redact ?? createRedactor();
    this.agent = options.agent;
    this.repetitionOptions = repetitionSettings(options.policy.repetition, options.policy.file ?? 'policy');
    this.pattern = resolvePattern(options.policy.pattern, options.policy.task).pattern;
    if (options.prior && options.prior.length > 0) {
      this.state = draftOf(fold(options.prior));
      this.restarted = true;
      if (this.state.pattern) this.pattern = this.state.pattern as Pattern;
      for (const event of options.prior) this.trackRepetition(event);
      restoreSnapshotMemory(this.memory, options.prior);
      this.recent.push(...options.prior.slice(-RECENT));
    }
  }

  /** The fold of every event so far, as a copy that stays as it is. */
  get snapshot(): SessionState {
    return (this.frozen ??= draftOf(this.state));
  }

  get decisions(): DecisionPolicy {
    const { policy } = this.options;
    return {
      pattern: this.pattern,
      checkpointEvery: policy.checkpoint.every_iterations,
      maxReplans: policy.patterns.plan_and_execute.max_replans,
      maxAttempts: policy.patterns.reflexion.max_attempts,
      laps: policy.laps,
      budget: policy.budget,
      detect: { stagnation: policy.stagnation.on_detect, unknown: policy.stagnation.on_unknown, repetition: policy.repetition.on_detect },
    };
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Kill running tools; `cause` is what their results record (`killed: quit | abort`). */
  abortTools(cause: 'quit' | 'abort'): void {
    this.abort.abort(cause);
  }

  /**
   * Quits the run where it is: the log is sealed (every later {@link emit} or hook call
   * throws {@link RunInterrupted}), and a model request, tool, verify or command agent
   * under way is killed, with nothing of it recorded. The log then reads as if loopdeck
   * had stopped at that instant, and `resume` continues from it.
   */
  halt(): void {
    this.halted = true;
    this.abort.abort('quit');
  }

  clock(): number {
    return this.now();
  }

  /** @throws RunInterrupted once the run was quit ({@link halt}): the log stays as it was. */
  emit<T extends EventType>(type: T, data: EventDataMap[T]): LoopEvent {
    if (this.halted) throw new RunInterrupted();
    assertEventType(type);
    const event = { seq: this.state.lastSeq + 1, at: this.now(), session: this.options.id, type, data: this.redact(data) } as LoopEvent;
    reduce(this.state, event);
    this.frozen = null;
    this.recent.push(event);
    if (this.recent.length > RECENT) this.recent.shift();
    this.trackRepetition(event);
    for (const sink of this.sinks) sink(event);
    return event;
  }

  go(to: LoopState): void {
    const from = this.state.machine.state;
    transition(this.state.machine, to, this.state.lastSeq + 1);
    this.emit('state.transition', { from, to });
  }

  hook<T extends HookTopic>(topic: T, payload: HookPayloads[T]): Promise<HookOutcome> {
    if (this.halted) return Promise.reject(new RunInterrupted());
    // A topic without subscribers has nothing to wait for, and nothing failed.
    if (!this.hooks.has(topic)) return Promise.resolve({ decision: null, failures: [] });
    return this.callHooks(topic, payload);
  }

  private async callHooks<T extends HookTopic>(topic: T, payload: HookPayloads[T]): Promise<HookOutcome> {
    const outcome = await this.hooks.call(topic, payload);
    for (const failure of outcome.failures) {
      this.emit('hook.error', failure);
      if (topic !== 'on_error') await this.hook('on_error', { source: `hook ${failure.hook} (${topic})`, error: failure.error });
    }
    return outcome;
  }

  agentContext(): AgentContext {
    const { revisions } = this.state;
    const last = agentCheckpoint(this.state.checkpoints);
    return {
      turn: this.state.turn + 1,
      goal: this.state.goal!,
      history: this.state.history,
      signal: this.abort.signal,
      checkpoint: last ?? null,
      memory: checkpointMemory(last),
      revisions,
      onCompacted: (data) => void this.emit('context.compacted', data),
    };
  }

  perform(step: Step): Gen<Done> {
    return performStep(this, step);
  }

  /** Feeds the repetition guard from the event stream (live and when folding a log). */
  private trackRepetition(event: LoopEvent): void {
    const memory = this.memory;
    if (event.type === 'tool.call') {
      memory.repetition = observeCall(memory.repetition, { call: event.data.call }, this.repetitionOptions).state;
    } else if (event.type === 'tool.result') {
      memory.repetition = recordResult(memory.repetition, event.data.result.call_id, resultHash(event.data.result));
    } else if (event.type === 'repetition.detected') {
      memory.repetitionChecked = event.data.calls[event.data.calls.length - 1]?.id ?? null;
    }
  }
}

/**
 * The workspace snapshots a resumed log already holds: the step of the last one (so a step
 * is not snapshot twice, which would count it as a second unchanged step), whether the
 * workspace was said to be outside git, and the last head and tree compared with next.
 */
function restoreSnapshotMemory(memory: RunMemory, prior: readonly LoopEvent[]): void {
  let step = 0;
  for (const event of prior) {
    if (event.type === 'step.start') step = event.data.step;
    if (event.type !== 'workspace.snapshot') continue;
    memory.snapshotStep = step;
    if (!event.data.git) memory.sawNonGitSnapshot = true;
    else if (event.data.tree !== null) memory.lastSnapshot = { head: event.data.head, tree: event.data.tree, new_commits: event.data.new_commits ?? 0 };
  }
}
