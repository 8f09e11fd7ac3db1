import type { EventDataMap, GoalRevision } from '../events.js';
import type { AgentTurn, CheckpointRecord, Goal, TokenUsage } from '../types.js';
import type { AgentEventDraft } from './transcripts/record.js';
import type { ModelWait } from './openai-wait.js';

export type { ModelWait } from './openai-wait.js';

/**
 * The agent stopped waiting because the run asked it to (`AgentContext.interrupt`) before
 * anything of the turn was answered: nothing was committed, the turn is asked again later.
 */
export class TurnInterrupted extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** One entry of what the agent has seen, oldest first. */
export type AgentMessage =
  | { role: 'tool'; call_id: string; name: string; status: string; content: string }
  | { role: 'harness'; content: string };

/** What the agent gets for one turn. */
export interface AgentContext {
  /** 1-based turn number of the run. */
  turn: number;
  /** The goal as it stands now (revisions included). */
  goal: Goal;
  /** Tool results and harness notes since the start of the run. */
  history: readonly AgentMessage[];
  /** Streamed text as the agent produces it (for the console); optional. */
  onText?: (chunk: string) => void;
  /**
   * What a CLI agent does as it does it (messages, its own tool calls and results, usage),
   * parsed from its output: the runner appends each as an event at once; optional.
   */
  onEvent?: (draft: AgentEventDraft) => void;
  /** Aborted when the run is stopped (quit, abort) or its wall clock runs out: cancel requests, kill processes. */
  signal?: AbortSignal;
  /**
   * Aborted when the run asks the agent to stop *waiting* (a pause asked for): a wait
   * before a retry ends with {@link TurnInterrupted}; a request in flight goes on.
   */
  interrupt?: AbortSignal;
  /** What a model request is waiting on now (for the console); called when it changes. */
  onWait?: (wait: ModelWait) => void;
  /** The last checkpoint of the run, for the memory an agent keeps when it compacts its conversation. */
  checkpoint?: CheckpointRecord | null;
  /** The goal's revisions so far, oldest first. */
  revisions?: readonly GoalRevision[];
  /**
   * The execution memory of the last checkpoint as text (`renderMemory`, memory.ts), to put
   * in front of the conversation for every request; replaced at each checkpoint, never
   * accumulated. `null` or absent before the first checkpoint.
   */
  memory?: string | null;
  /** Records that the agent compacted its conversation (a `context.compacted` event). */
  onCompacted?: (data: EventDataMap['context.compacted']) => void;
}

/** What the agent is told when asked for a plan. */
export interface PlanContext extends AgentContext {
  /** `initial`, or `replan` after a failed step (Plan-and-Execute). */
  kind: 'initial' | 'replan';
  /** Why a replan is needed (the failed step and its result). */
  reason?: string;
}

/** What the agent is asked at a checkpoint with `progress.assess` (docs/design.md, "Progress as the model sees it"). */
export interface AssessContext extends AgentContext {
  /** The success criteria, in order (the answer numbers them from 1). */
  criteria: readonly string[];
  /** The request in words, with the shape of the answer (`assessmentPrompt`). */
  prompt: string;
}

/** An agent's answer to an assessment: any shape (the engine parses it and records what it cannot), and what asking cost. */
export interface AssessAnswer {
  answer: unknown;
  usage: TokenUsage;
  /** The server reported no usage: tokens and cost of the request are unknown. */
  usage_unreported?: boolean;
}

/** What the agent is told when asked to reconcile a goal revision. */
export interface ReconcileContext extends AgentContext {
  previous: Goal;
  directive: string;
  text: string;
}

/**
 * Anything that answers turns: a scripted transcript, a model behind an API, a CLI agent.
 * `nextTurn` is called once per turn; every method throws `AgentError` when it cannot answer.
 * The optional methods serve the loop patterns; without them the engine uses a plain fallback.
 */
export interface Agent {
  readonly name: string;
  nextTurn(context: AgentContext): Promise<AgentTurn>;
  /** Plan-and-Execute: the steps of a plan (may be empty: the run ends `no_plan`). */
  plan?(context: PlanContext): Promise<string[]>;
  /** Reflexion: a lesson from a failed attempt, carried into the next one. */
  reflect?(context: AgentContext & { attempt: number; failure: string }): Promise<string>;
  /** A goal revision's reconciliation; any shape: the engine validates it and falls back. */
  reconcile?(context: ReconcileContext): Promise<unknown>;
  /**
   * `progress.assess`: the agent's own assessment of each criterion. A model call that is
   * not a turn; absent when the agent cannot be asked (a CLI agent).
   * @throws AgentError when the request fails
   */
  assess?(context: AssessContext): Promise<AssessAnswer>;
  /** Crash-resume: how many assessments the log already holds (`progress.assessed`), so none is answered twice. */
  restoreAssessments?(answered: number): void;
  /**
   * Crash-resume: the turns already recorded, so none is asked for again; `asked`, the
   * plans (Plan-and-Execute's `plan.draft`) and reflections (`reflection.recorded`) the log
   * holds, none of which is asked for again either.
   */
  restore?(turns: readonly AgentTurn[], asked?: { plans: number; reflections: number }): void;
  /**
   * CLI agents whose pre-tool hook asks loopdeck (docs/design.md, "Approvals of CLI
   * agents"): the call the hook reports, by the agent's own id (`null` when the hook gives
   * none), name and arguments, as the id of its `tool.call` and the events to append (none
   * when its parsed output already recorded it). `null` when no turn of this agent runs.
   */
  claimCall?(agentId: string | null, name: string, args: Record<string, unknown>): { id: string; events: AgentEventDraft[] } | null;
}
