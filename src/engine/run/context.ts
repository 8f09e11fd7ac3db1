import type { Agent, AgentContext } from '../agents/agent.js';
import type { DecisionPolicy, Intents, Step } from '../decide.js';
import type { EventDataMap, EventType, LoopEvent } from '../events.js';
import type { SessionState } from '../fold.js';
import type { GitSnapshot } from '../git-progress.js';
import type { HookOutcome, HookPayloads, HookTopic } from '../hooks.js';
import type { LoopState } from '../machine.js';
import type { Pattern } from '../patterns.js';
import type { Redactor } from '../redact.js';
import type { RepetitionOptions, RepetitionState } from '../repetition.js';
import type { Goal, ToolCall } from '../types.js';
import type { Done, Gen, LoopYield, SessionOptions } from './types.js';

/**
 * What the run remembers besides the fold: caches and guards that are not decisions
 * (a decision reads only the folded state).
 */
export interface RunMemory {
  /** Running request hash and size: what was hashed and counted so far (O(new) per turn). */
  request: { count: number; hash: string; chars: number };
  /** The tool calls of the last turn as the agent sent them (the folded state holds them redacted). */
  turnCalls: ToolCall[];
  /** The repetition guard's window, fed from the event stream. */
  repetition: RepetitionState;
  /** Call id whose repetition check already ran (so a resumed pause does not fire again). */
  repetitionChecked: string | null;
  /** Whether the workspace is a git work tree (`null`: not asked yet). */
  git: boolean | null;
  lastSnapshot: GitSnapshot | null;
  /** The step whose workspace snapshot is taken. */
  snapshotStep: number;
  /** Outside git the snapshot is said once. */
  sawNonGitSnapshot: boolean;
  /** The step `lastSnapshot` was taken after (`null`: none yet), so a failed snapshot is never mistaken for a fresh one. */
  lastSnapshotStep: number | null;
  /** `progress.assess` with an agent that cannot be asked: said once per process. */
  assessNoticed?: boolean;
  /** The goal the request hash last read (`of`), as JSON text and as that text quoted (a JSON string). */
  goalText?: { of: Goal | null; goal: string; quoted: string };
}

/**
 * The run as the step executors (engine/run/*.ts) see it: the folded state to read, the
 * one way to change it (`emit`, which records, redacts and folds an event), hooks, the
 * agent and the settings. Executors never hold state of their own.
 */
export interface RunContext {
  readonly options: SessionOptions;
  /** The fold of every event so far (a live draft: read it, never write it). */
  readonly state: SessionState;
  readonly pattern: Pattern;
  /** The settings the decisions read. */
  readonly decisions: DecisionPolicy;
  readonly repetitionOptions: RepetitionOptions;
  /** The agent of the current lap (or of the run). */
  agent: Agent;
  /** Operator requests that are not events (`/stop`, a pause asked for). */
  readonly intents: Intents;
  /** The yield the run waits on, which the next answer is checked against. */
  awaiting: LoopYield | null;
  /**
   * This process continued the run from its log and has not recorded a `session.resume` yet:
   * the next one is marked `restart` (see {@link resumeData}).
   */
  restarted: boolean;
  readonly memory: RunMemory;
  /** The last ten events (for the failure report). */
  readonly recent: readonly LoopEvent[];
  readonly redact: Redactor;
  /** Aborted by `/stop --abort` and when the run is torn down: kills running tools. */
  readonly signal: AbortSignal;
  /** Dispatches a `pause` event when the operator asks to pause (waits that may end early listen). */
  readonly pauseRequests: EventTarget;
  abortTools(cause: 'quit' | 'abort'): void;
  /** Whether the run was quit: it writes nothing more (`RunInterrupted`). */
  readonly halted: boolean;
  /** Epoch milliseconds. */
  clock(): number;
  /** Records an event: redacted, folded, handed to every sink. */
  emit<T extends EventType>(type: T, data: EventDataMap[T]): LoopEvent;
  /** Moves the state machine (checked) and records `state.transition`. */
  go(to: LoopState): void;
  /** Calls a hook topic; records each failing subscriber as `hook.error` and `on_error`. */
  hook<T extends HookTopic>(topic: T, payload: HookPayloads[T]): Promise<HookOutcome>;
  /** What the agent sees for its next turn. */
  agentContext(): AgentContext;
  /** Performs a decided step (the runner's dispatcher), for a step decided inside another. */
  perform(step: Step): Gen<Done>;
}
