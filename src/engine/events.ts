import type { AssessedCriterion, HarnessView } from './assessment.js';
import type { AcceptanceCriterion, AcceptanceRow, AcceptanceStatus } from './acceptance.js';
import type { ConstraintCheck, ProtectBaseline } from './constraints.js';
import { InvariantError } from './errors.js';
import type { Handover } from './lap-handover.js';
import type { DoneReason, LoopState } from './machine.js';
import type { PolicyChange } from './reload.js';
import type { RepetitionRuleSettings } from './repetition.js';
import type {
  AgentTurn,
  BudgetDimension,
  BudgetLimits,
  CheckpointRecord,
  Goal,
  TargetVerdict,
  TokenUsage,
  ToolCall,
  ToolResult,
} from './types.js';

/** Version of the event schema, carried by `session.start`. */
export const SCHEMA_VERSION = 1;

/**
 * Schema versions this reader folds: every version a `session.start` may carry in a log
 * kept under tests/fixtures/logs/ (the frozen corpus proves each still replays).
 */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [1];

/** Who answered a tool call's approval. */
export type Decider = 'operator' | 'policy';

/** One command a verifier ran. */
export interface VerifyCommandResult {
  command: string;
  exit_code: number | null;
  passed: boolean;
  /** Tail of the command's output (bounded). */
  output: string;
}

/** A revision of the goal and what it means for work done (docs/design.md, "Goals"). */
export interface GoalRevision {
  directive: 'add-constraint' | 'redirect' | 'modify' | 'add-criterion';
  text: string;
  reconciliation: {
    still_valid: string;
    discard: string;
    new_work: string;
    full_restart: boolean;
  };
}

/**
 * The `data` of every event type. One entry per type; the envelope adds
 * `seq` (dense from 0), `at` (epoch milliseconds from the injected clock) and `session`.
 */
export interface EventDataMap {
  'session.start': {
    schemaVersion: number;
    goal: Goal;
    pattern: string;
    /** Why this pattern: set in loop.yaml, or what `auto` saw. */
    pattern_reason: string;
    budget: BudgetLimits;
    workspace: string;
    checkpoint_every: number;
    stagnation_threshold: number;
    /**
     * `off` when `approval.builtin_gates: off` removed the approval gate and the
     * destructive-command guard (the console header warns); absent in logs written before the setting.
     */
    builtin_gates?: 'on' | 'off';
    /**
     * sha256 (hex) of the run's `policy.json` as written at start: `resume` refuses a policy
     * file that no longer matches. Absent in logs written before it was recorded.
     */
    policy_sha256?: string;
    /**
     * The working tree as the run started, which `protect` constraints are checked against
     * (constraints.ts); present only when a constraint has a `protect` check.
     */
    protect_baseline?: ProtectBaseline;
    /**
     * The acceptance matrix frozen at start (acceptance.ts): the goal's criteria with their
     * checks; present only when a criterion has a check (absent: every criterion is text).
     */
    acceptance?: AcceptanceCriterion[];
  };
  /**
   * `reask`: after a restart, the tool call issued without a recorded result, asked about
   * again. `restart`: the first resume a process records after it continued the run from
   * its log (the time since the event before it no process ran the run); absent on the
   * answer to a pause the same process asked.
   */
  'session.resume': { action: 'continue'; from: LoopState; note?: string; reask?: string; restart?: true };
  'session.pause': { reason: string; prompt: string; from: LoopState };
  /** `detail` names the limit for `exhausted` (e.g. `max_laps`, `replan_cap`, `max_attempts`, `budget`). */
  'session.complete': { reason: DoneReason; summary: string; detail?: string };
  'state.transition': { from: LoopState; to: LoopState };
  'plan.draft': { steps: string[] };
  /** `kind`: the first plan, a replan (Plan-and-Execute) or a new attempt (Reflexion). */
  'plan.commit': { steps: string[]; kind: 'initial' | 'replan' | 'attempt'; reason?: string };
  'step.start': { step: number; turn: number; title: string };
  /**
   * `ask`: with `awaiting_tool`, whether the operator must approve (false: a policy decides
   * at once); `reason` says which rule asked.
   */
  'step.end': { step: number; outcome: 'awaiting_tool' | 'ok' | 'skipped' | 'error'; thought?: string; ask?: boolean; reason?: string };
  /**
   * `request_chars`: size of what the agent was sent this turn (goal and its lap's history);
   * `long_session_chars`: what the same request would have been with the whole run's history.
   */
  'model.call': { turn: number; request_hash: string; response: AgentTurn; usage: TokenUsage; cost_usd: number; request_chars?: number; long_session_chars?: number };
  /**
   * `by: 'agent'`: a call a CLI agent ran itself (parsed from its output); loopdeck did not
   * dispatch it and asked no one. Absent: a call loopdeck dispatches.
   */
  'tool.call': { call: ToolCall; by?: 'agent' };
  /**
   * A CLI agent's pre-tool hook asks about its call `call_id` (a `tool.call` by the agent):
   * `call` is that call in loopdeck's terms (`shell`, `edit`, ...), which the approval
   * prompt shows and an "always allow" stores; `reason` is why the rules ask. Its
   * `tool.decision` follows (docs/design.md, "Approvals of CLI agents").
   */
  'tool.ask': { call_id: string; call: ToolCall; reason?: string };
  /** `always`: a rule the operator granted for the rest of the run with this approval. */
  'tool.decision': { call_id: string; decision: 'approve' | 'deny'; by: Decider; note?: string; always?: string };
  /** `by: 'agent'`: the result of a call the agent ran itself (see `tool.call`). */
  'tool.result': { result: ToolResult; by?: 'agent' };
  'tool.error': { call_id: string; name: string; error: string };
  'budget.warn': { dimension: BudgetDimension; used: number; limit: number; exceeded: boolean };
  'checkpoint.recorded': { checkpoint: CheckpointRecord };
  'stagnation.detected': { counter: number; threshold: number; iteration: number; action: 'alert' | 'pause' | 'stop' };
  /** `UNKNOWN` checkpoints in a row reached `stagnation.on_unknown`'s count: nothing tracked could be measured; `why` names each signal. */
  'checkpoint.unknown': { iteration: number; in_row: number; why: string; action: 'alert' | 'pause' | 'stop' };
  /**
   * `kind`, `span` (calls covered) and `rule` (the readable line naming the rule that fired)
   * are absent in logs written before they existed; so is `settings`, the guard's settings
   * the detection was made with, by which the fold judges when it has cleared
   * (`alert-clearing.ts`; `exempt_tools` and `ignore_arg_keys` only when not empty).
   */
  'repetition.detected': { hash: string; count: number; calls: ToolCall[]; kind?: 'repeat' | 'cycle'; span?: number; rule?: string; settings?: RepetitionRuleSettings };
  /**
   * `acceptance`: the matrix after the revision, present when a criterion has a check
   * (absent: the goal's criteria, every one text). Only the operator's revisions change it.
   */
  'goal.revised': { revision: GoalRevision; goal: Goal; acceptance?: AcceptanceCriterion[] };
  /**
   * The acceptance matrix as checked at the checkpoint of `iteration` or before a verdict
   * (`trigger: verify`): one row per criterion, its status derived by the harness from its
   * check (acceptance.ts). Recorded only when a criterion has a check.
   */
  'acceptance.checked': { iteration: number; trigger: 'checkpoint' | 'verify'; rows: AcceptanceRow[] };
  /**
   * A checked constraint of `goal.constraints` was found violated at the checkpoint of
   * `iteration` (docs/design.md, "Goals"): `index` in the policy's list, its `text`, the check
   * (`protect`: `paths` that changed since the run started, at most 50, `changed` counting
   * them all; `command`: its `exit_code` and output tail), and `action`, `goal.on_violation`.
   * The agent is told which constraint it broke.
   */
  'constraint.violated': {
    iteration: number;
    index: number;
    text: string;
    check: ConstraintCheck;
    paths?: string[];
    changed?: number;
    exit_code?: number;
    output?: string;
    action: 'alert' | 'pause' | 'stop';
  };
  /**
   * A constraint's check could not be evaluated at the checkpoint of `iteration` (outside
   * git, git failing, a command not found or timed out): `error` says why. Never a pass.
   */
  'constraint.unchecked': { iteration: number; index: number; text: string; check: ConstraintCheck; error: string };
  /**
   * Fresh laps: a new agent with an empty history; `max_laps` from loop.yaml. The hand-over:
   * `handover`, the progress file's path, size, sha256 and a bounded excerpt (lap-handover.ts;
   * untrusted: the agent wrote it); `progress`, the whole content (or `null`), in logs written
   * before `handover`; `memory`, the summary of the last checkpoint (`checkpointMemory`;
   * absent in older logs and before any checkpoint).
   */
  'lap.start': { lap: number; max_laps: number; handover?: Handover; progress?: string | null; memory?: string };
  'lap.end': { lap: number; outcome: 'done' | 'not_done' | 'error'; note?: string };
  /**
   * The workspace's git state after a step: `null` fields when it is not a git repo
   * (progress is then "unknown", never "none").
   */
  'workspace.snapshot': { head: string | null; tree: string | null; new_commits: number | null; git: boolean };
  /**
   * A CLI agent's message (or a part of one), parsed from its output while its turn runs:
   * `starts_turn` marks the first part of a message, which counts as one turn of the budget.
   * `turn`: loopdeck's turn (the agent's run) it belongs to.
   */
  'agent.message': { turn: number; starts_turn: boolean; text: string; reasoning: string };
  /**
   * Usage a CLI agent reported, as a delta (cumulative counters already turned into deltas);
   * `null`: not reported (unknown, never 0).
   */
  /**
   * Usage an agent reported (a CLI agent's message; a failed turn's spent usage). `unreported`:
   * dimensions of the turn nothing reported, so the run's totals are lower bounds there.
   */
  'agent.usage': { turn: number; input_tokens: number | null; output_tokens: number | null; cost_usd: number | null; unreported?: Array<'tokens' | 'cost_usd'> };
  /** Something the agent adapter wants the operator to see (e.g. "retrying after 429"). */
  'agent.notice': { text: string };
  /**
   * The circuit breaker parked the workspace and wrote a failure report outside it (as
   * `on_abort` says). `report`: the report's path, or why none was written; `stash`: one
   * line on the workspace (`stashSummary` in abort.ts).
   */
  'abort.recorded': { report: string; stash: string; restore: string };
  /**
   * `passed`: the goal's verdict, every verify command passing, when the matrix has checks
   * every checkable criterion `DONE`, and every frozen set of target tests measured with
   * every one of its tests passing; `acceptance.not_done` names the rows that kept it from
   * passing (absent in logs written before the matrix, and when nothing is checkable);
   * `targets`, the target sets as measured for it (absent when no set is frozen, and in logs
   * written before it).
   */
  'verify.result': {
    passed: boolean;
    commands: VerifyCommandResult[];
    trigger: 'claim' | 'check';
    acceptance?: { met: boolean; not_done: Array<{ index: number; text: string; status: AcceptanceStatus; why?: string }> };
    targets?: TargetVerdict[];
  };
  'hook.error': { topic: string; hook: string; error: string };
  'budget.extended': { dimension: BudgetDimension; limit: number; by: number };
  /** Reflexion: the lesson written after a failed attempt, carried into the next one. */
  'reflection.recorded': { attempt: number; text: string };
  /**
   * The agent's conversation was compacted before the request of `turn` because that
   * request would have passed `threshold_tokens` (`agent.compact_at` of `window_tokens`).
   * Sizes are estimated tokens of the whole request. `kept_turns`: newest turns kept whole;
   * `dropped_turns`: oldest turns left out by this compaction; `elided`: texts cut to their
   * first and last lines (the first 50; `elided_count` counts them all). docs/design.md,
   * "Context window and hand-over".
   */
  'context.compacted': {
    turn: number;
    before_tokens: number;
    after_tokens: number;
    window_tokens: number;
    threshold_tokens: number;
    kept_turns: number;
    dropped_turns: number;
    elided_count: number;
    elided: Array<{ role: 'tool' | 'user' | 'assistant'; call_id?: string; name?: string; lines: number; elided_chars: number }>;
  };
  /**
   * A child process started (a tool, hook, observer, verify command or command agent):
   * `pgid` is the process group it leads, `tag` the value of `LOOPDECK_PROCESS_TAG` in its
   * environment and every descendant's, `command` its command line (at most 200
   * characters). Written when it starts, so that after a crash `resume` can find what may
   * still run (docs/design.md, "Child processes"). The fold passes over it.
   */
  'process.start': { pid: number; pgid: number; tag: string; command: string };
  /**
   * On resume, before anything else ran: processes of an earlier process of this run that
   * still ran (found by their recorded tag in `/proc/<pid>/environ`, and the other members
   * of a group one of them is in), and were killed. `note` says what happened in one line;
   * `unchecked` is set when the platform cannot list processes (no `/proc`), so survivors
   * could not be looked for.
   */
  'process.reaped': { processes: Array<{ pid: number; pgid: number; command: string }>; note: string; unchecked?: true };
  /**
   * loop.yaml was read again mid-run (docs/design.md, "Live reload"): `trigger` `command`
   * (`/reload`), `watch` (`--watch-config` saw the file change) or `key` (the operator's
   * answer to the reload of `answers`, whose held changes become `applied` or `declined`).
   * `diff`: every difference from the policy in force, each with what became of it; only
   * `applied` ones are in force from here on. `errors`: the file was refused (YAML, schema or
   * read errors, as at start) and nothing changed. `inside_workspace`: the file lies where
   * the agent can write, so every change waited for the operator's key.
   */
  'policy.reloaded': {
    file: string;
    trigger: 'command' | 'watch' | 'key';
    diff: PolicyChange[];
    errors?: string[];
    inside_workspace?: true;
    answers?: number;
  };
  /**
   * `progress.assess`: the agent's own assessment of each success criterion at the
   * checkpoint of `iteration` (docs/design.md, "Progress as the model sees it"), always
   * reported, never progress. `criteria`: the criteria asked about; `harness`: what the
   * harness measured of each at that point. `outcome`: `parsed` (`items`), `unparsed` (the
   * answer was not of the asked shape: `reason`, `raw_head`) or `failed` (the request
   * failed: `reason`). Its usage counts against tokens and cost, not iterations.
   */
  'progress.assessed': {
    iteration: number;
    criteria: string[];
    harness: HarnessView[];
    outcome: 'parsed' | 'unparsed' | 'failed';
    items?: AssessedCriterion[];
    reason?: string;
    raw_head?: string;
    usage: TokenUsage;
    cost_usd: number;
    unreported?: Array<'tokens' | 'cost_usd'>;
  };
}

/** Every event type, in the order of the table above. */
export type EventType = keyof EventDataMap;

export const EVENT_TYPES = [
  'session.start', 'session.resume', 'session.pause', 'session.complete', 'state.transition',
  'plan.draft', 'plan.commit', 'step.start', 'step.end', 'model.call', 'tool.call', 'tool.decision',
  'tool.result', 'tool.error', 'budget.warn', 'checkpoint.recorded', 'stagnation.detected',
  'repetition.detected', 'goal.revised', 'lap.start', 'lap.end', 'verify.result', 'hook.error', 'budget.extended',
  'reflection.recorded', 'workspace.snapshot', 'abort.recorded', 'agent.notice', 'context.compacted', 'agent.message', 'agent.usage',
  'checkpoint.unknown', 'process.start', 'process.reaped', 'constraint.violated', 'constraint.unchecked', 'policy.reloaded', 'progress.assessed',
  'tool.ask', 'acceptance.checked',
] as const satisfies readonly EventType[];

/** The envelope of one event of type `T`. */
export interface EventOf<T extends EventType> {
  seq: number;
  /** Epoch milliseconds from the session's injected clock. */
  at: number;
  session: string;
  type: T;
  data: EventDataMap[T];
}

/** The discriminated union of all events. */
export type LoopEvent = { [T in EventType]: EventOf<T> }[EventType];

/** True when `type` is a known event type. */
export function isEventType(type: string): type is EventType {
  return eventTypeIndex(type) >= 0;
}

/**
 * The known event type equal to `type`, as the one constant string of {@link EVENT_TYPES}
 * (`undefined` for an unknown type). A type parsed from a log line is a fresh string of
 * its own; replaced by this one, every comparison of it with a type (the fold's switch) is
 * a comparison of identity, not of characters.
 */
export function knownEventType(type: string): EventType | undefined {
  return EVENT_TYPES[eventTypeIndex(type)];
}

/**
 * The index in {@link EVENT_TYPES} of the type equal to `type`, or -1. The type is compared
 * with the few known types of its length, which costs less than hashing it for a lookup
 * (and is a comparison of identity for a type that is already the constant string).
 */
export function eventTypeIndex(type: string): number {
  const candidates = BY_LENGTH[type.length];
  if (candidates === undefined) return -1;
  for (let i = 0; i < candidates.length; i++) if (EVENT_TYPES[candidates[i]!] === type) return candidates[i]!;
  return -1;
}

/** The indices in {@link EVENT_TYPES} of the known types of each length (a list for every length up to the longest). */
const BY_LENGTH: ReadonlyArray<readonly number[]> = (() => {
  const lists: number[][] = Array.from({ length: Math.max(...EVENT_TYPES.map((t) => t.length)) + 1 }, () => []);
  EVENT_TYPES.forEach((type, index) => lists[type.length]!.push(index));
  return lists;
})();

/** @throws InvariantError for an unknown event type. */
export function assertEventType(type: string): asserts type is EventType {
  if (!isEventType(type)) throw new InvariantError(`unknown event type "${type}"`);
}

/** For exhaustive switches: fails to compile when a case is missing. */
export function assertNever(value: never): never {
  throw new InvariantError(`unexpected value ${JSON.stringify(value)}`);
}
