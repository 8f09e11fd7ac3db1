import type { Agent } from '../agents/agent.js';
import type { ApprovalInbox } from '../bridge/inbox.js';
import type { LoopEvent } from '../events.js';
import type { HookRegistry } from '../hooks.js';
import type { Decider } from '../events.js';
import type { DoneReason } from '../machine.js';
import type { EnginePolicy } from '../policy.js';
import type { PauseReason } from '../reasons.js';
import type { Redactor } from '../redact.js';
import type { runTool } from '../tools.js';
import type { ToolCall } from '../types.js';
import type { RunWait } from './wait-guard.js';

/** A point where the run hands control back and waits for `next(payload)`. */
export type LoopYield =
  /** `interrupted`: approved before a restart and without a result: it may have run (docs/design.md, "Resume points"). */
  | { kind: 'tool'; call: ToolCall; reason?: string; interrupted?: true }
  /** `reason`: the text the `session.pause` event carries; `cause`: the same reason as a value. */
  | { kind: 'pause'; reason: string; cause: PauseReason; prompt: string };

/**
 * Answer to a `tool` yield. A denial's note goes back to the agent. `always` stores a rule
 * for the rest of the run; it must be one the approval prompt offers for this call
 * (`offeredRules`, approval/always-allow.ts: the exact call, or a read-only wider rule).
 * `by` is who decided, as `tool.decision` records it: absent or `operator` for a person's
 * answer, `policy` for one no person gave (a headless run's policy, an approval timeout).
 */
export type ToolAnswer = { decision: 'approve'; note?: string; always?: string; by?: Decider } | { decision: 'deny'; note?: string; by?: Decider };
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

/**
 * A part of the run that may hand control to the operator. `T` is what it returns: for a
 * step, {@link Done}.
 */
export type Gen<T = void> = AsyncGenerator<LoopYield, T, ResumePayload | undefined>;

/**
 * What a performed step returns: the outcome when it ended the run (its `session.complete`
 * is recorded), `undefined` when the run goes on. Ending a run is this value, never a throw.
 */
export type Done = LoopOutcome | undefined;

/** Everything a session needs besides the agent. */
export interface SessionOptions {
  /** Session id, used in every event envelope and the run directory. */
  id: string;
  agent: Agent;
  /**
   * The contract: a loaded loop.yaml, or an object validated by `definePolicy`. On resume,
   * the policy the run started with: the reloads its log records are applied to it.
   */
  policy: EnginePolicy;
  /** Absolute path of the directory tools and observers run in. */
  workspace: string;
  /** Epoch milliseconds; injected so tests can simulate time. */
  clock?: () => number;
  hooks?: HookRegistry;
  /**
   * Builds the hook registry of a policy (approval gate, guards, command hooks); used instead
   * of `hooks` when given, and again when a reload of approval rules or hooks is confirmed.
   * Without it, such a reload is refused (the hooks cannot be rebuilt).
   */
  hooksFor?: (policy: EnginePolicy) => HookRegistry;
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
  /** What the run waits on now (the agent, a tool), for the console; `null` when the wait is over. Not recorded. */
  onWait?: (wait: RunWait | null) => void;
  /**
   * Fresh laps: a new agent for lap `n` (1-based), with no memory of earlier laps.
   * Required when `laps.enabled`; without laps the session uses `agent`.
   */
  agentFactory?: (lap: number) => Agent;
  /** The run directory, where an abort writes `failure-report.json` (outside the workspace). */
  runDir?: string;
  /**
   * Where a CLI agent's pre-tool hook asks about its calls (the run's socket feeds it):
   * taken during the agent's turns and decided like loopdeck's own calls
   * (docs/design.md, "Approvals of CLI agents"). Absent: no bridged approvals.
   */
  approvals?: ApprovalInbox;
  /** Runs a tool call; default: the built-in workspace tools (`runTool`, tools.ts). */
  runTool?: typeof runTool;
  /** Events of an earlier process of this session, for `Session.resume`. */
  prior?: readonly LoopEvent[];
  /**
   * sha256 (hex) of the run's saved `policy.json`, recorded in `session.start` so that
   * `resume` refuses a policy changed since the run began.
   */
  policyDigest?: string;
}
