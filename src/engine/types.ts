/**
 * Domain types shared by the engine, the fold and the console.
 * Units are in the names: `_seconds`, `_ms`, `_usd`, `tokens`.
 */

/** Lifecycle of a goal (docs/design.md, "Goals"). */
export type GoalStatus = 'active' | 'achieved' | 'failed' | 'revised' | 'abandoned';

/** A part of a goal, worked towards within its parent. */
export interface SubGoal {
  /** `g1`, `g2`, ... in the order given. */
  id: string;
  /** Always the top-level goal (`goal`) here. */
  parent: string;
  objective: string;
  success_criteria: string[];
  status: GoalStatus;
}

/** A structured goal: what to reach, how it is judged, what must not happen. */
export interface Goal {
  objective: string;
  success_criteria: string[];
  constraints: string[];
  /** How the goal ranks against other work (absent in logs written before it existed: normal). */
  priority?: 'high' | 'normal' | 'low';
  /** Parts of the goal (absent in older logs: none). */
  sub_goals?: SubGoal[];
  status: GoalStatus;
  /** Progress notes, oldest first. */
  notes: string[];
  /** Number of revisions applied so far (0 for the goal as started). */
  revision: number;
}

/** The budget dimensions, in the priority order they are checked. */
export const BUDGET_DIMENSIONS = ['turns', 'tool_calls', 'wall_clock_seconds', 'tokens', 'cost_usd'] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];

/**
 * The short name of each dimension in `/budget <name> +N`, as the console labels it
 * (`wall_clock`, `cost`); the full names of loop.yaml are accepted too.
 */
export const BUDGET_COMMAND_NAMES: Readonly<Record<BudgetDimension, string>> = {
  turns: 'turns',
  tool_calls: 'tool_calls',
  wall_clock_seconds: 'wall_clock',
  tokens: 'tokens',
  cost_usd: 'cost',
};

/** Limits per dimension; `null` means unlimited (written out as `unlimited` in loop.yaml). */
export type BudgetLimits = Record<BudgetDimension, number | null>;
/** Cumulative usage per dimension: counts, seconds, tokens, USD. */
export type BudgetUsage = Record<BudgetDimension, number>;

/** Token usage of one model call. */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** Part of `input_tokens` the server read from its prompt cache (priced at the cached-input price). */
  cached_input_tokens?: number;
  /** Part of `output_tokens` spent on reasoning (already counted in `output_tokens`). */
  reasoning_tokens?: number;
}

/** One tool call requested by the agent. `args` is the tool's JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** One piece of evidence the agent claims; `evidence_ref` names what backs it (e.g. a test name). */
export interface EvidenceClaim {
  claim: string;
  evidence_ref: string;
}

/** The agent's structured claims for a turn (docs/design.md, "Checkpoints and stagnation"). */
export interface ReportedClaims {
  new_evidence: EvidenceClaim[];
  eliminated_hypotheses: string[];
  remaining_hypotheses: string[];
}

/** {@link ReportedClaims} as read (a folded state's claims), never changed. */
export type ReportedClaimsView = { readonly [K in keyof ReportedClaims]: ReadonlyArray<ReportedClaims[K][number]> };

/** What the agent answered for one turn. Exactly one of `tool_calls` (non-empty) or `final` drives the step. */
export interface AgentTurn {
  thought?: string;
  /**
   * Reasoning the model reported besides its answer (`reasoning_content`, `<think>`
   * blocks): shown to the operator as reported, never taken as observed.
   */
  reasoning?: string;
  tool_calls: ToolCall[];
  report?: Partial<ReportedClaims>;
  usage: TokenUsage;
  /** The agent claims the goal is met, with this summary. */
  final?: string;
  /**
   * Agents that send a conversation (`openai`): the estimated tokens of the last request of
   * this turn and the window it had to fit (docs/design.md, "Context window and hand-over").
   */
  context?: { tokens: number; window: number };
  /**
   * A CLI agent's run whose output was parsed: `messages` assistant messages were recorded as
   * `agent.message` events (each one a turn, so this call adds a turn only when there were
   * none); `reported` says which of tokens and cost it reported at all (the rest is unknown).
   */
  agent_run?: { format: string; messages: number; reported: { tokens: boolean; cost_usd: boolean } };
  /**
   * Some request of this turn came back without usage (a server that never sends it): the
   * turn's `usage` is a lower bound, and tokens and cost are unknown, not 0.
   */
  usage_unreported?: true;
}

/** How a tool call ended. `denied`: the operator or a policy refused it. */
/**
 * How a tool call ended. `timed_out` and `killed` are calls loopdeck killed (at the time
 * limit; at a quit or an abort), never failures of the command.
 */
export type ToolStatus = 'ok' | 'failed' | 'denied' | 'timed_out' | 'killed';

/** The outcome of one tool call as the agent will see it. */
export interface ToolResult {
  call_id: string;
  name: string;
  status: ToolStatus;
  /** Text returned to the agent (bounded). */
  output: string;
  exit_code: number | null;
  duration_ms: number;
  /** Set when loopdeck killed the command: at its time limit, because the run was quit or aborted, or the wall-clock budget ran out. */
  killed?: 'timeout' | 'quit' | 'abort' | 'budget';
  /** Set when output was left out of `output`; `output_bytes` is how much the command wrote. */
  truncated?: true;
  output_bytes?: number;
  /** Processes that left the command's process group and held its output open: named, then killed. */
  escaped?: { pid: number | null; command: string }[];
}

/** One test the harness saw, from a runner's structured output. */
export interface TestOutcome {
  name: string;
  ok: boolean;
  /** The `observe` entry that reported it; absent in checkpoint files and older logs. */
  observer?: string;
  /**
   * A test file, module or class that failed to load (an import error, pytest's collection
   * error), reported as one failing entry in place of the tests it holds; its `in` names
   * what it stands for. Absent for a test.
   */
  load_error?: true;
  /**
   * Where the test was read from (jest and vitest: its file's path; JUnit: its classname,
   * the dotted path of its module and class), or, for a `load_error`, what it stands for.
   * Absent when the report does not say (node's TAP).
   */
  in?: string;
}

/** A test a runner named but did not run (skip, todo, pending, disabled). */
export interface SkippedTest {
  name: string;
  /** The `observe` entry that reported it. */
  observer: string;
}

/** What a target test is at one checkpoint (docs/design.md, "Checkpoints and stagnation"). */
export type TargetTestStatus = 'passing' | 'failing' | 'skipped' | 'gone';

/**
 * The frozen target tests of one observer at one checkpoint: the counts over the frozen
 * set and which target tests flipped since the observer's last measured checkpoint.
 */
export interface TargetTestsRecord {
  observer: string;
  /** Index of the checkpoint that froze the set. */
  frozen_at: number;
  /** The frozen set by name, only on the checkpoint that froze it. */
  frozen?: { failing: string[]; passing: string[] };
  /** Whether the observer gave a report at this checkpoint; when not, the counts are `null`. */
  measured: boolean;
  /** Target tests not passing (failing, skipped or gone), the value of `observed.<observer>.failing`. */
  failing: number | null;
  /** Target tests passing, the value of `observed.<observer>.passing`. */
  passing: number | null;
  /** Target tests that ran (passing or failing), the value of `observed.<observer>.total`. */
  total: number | null;
  /** Not passing before, passing now: progress. */
  fixed: string[];
  /** Passing before, failing now: a regression. */
  broken: string[];
  /** Ran before (passing or failing), now skipped or gone: a regression, never progress. */
  lost: Array<{ name: string; was: 'passing' | 'failing'; now: 'skipped' | 'gone' }>;
  /** Tests that ran now and are not in the frozen set: shown, never counted (at most 20 names). */
  untracked: { count: number; names: string[] };
}

/**
 * A followed observer's frozen set of target tests as measured for a verdict
 * (`verify.result.targets`): how many of them pass, and those that do not (failing, gone
 * or skipped). A verdict never passes with a target test not passing or a set it could not
 * measure: the harness's own measurement wins over a verify command that says otherwise,
 * and deleting or skipping a test does not fix it.
 */
export interface TargetVerdict {
  observer: string;
  /** Target tests in the set. */
  of: number;
  /** Target tests passing now; `null` when the observer gave no report. */
  passing: number | null;
  /** Target tests not passing now (failing, skipped or gone), the first 20 by name (`NOT_PASSING_SHOWN`). */
  not_passing: Array<{ name: string; now: 'failing' | 'skipped' | 'gone' }>;
  /** How many target tests do not pass now (all of them, whatever `not_passing` lists). */
  not_passing_count: number;
  /** Why the observer gave no report now: the set could not be checked. */
  unmeasured?: string;
}

/** Observed metrics by name (`tests.failing`); `null` is *missing*, never 0. */
export type ObservedMetrics = Record<string, number | null>;

/** A checkpoint as recorded: what the harness observed and what the agent reported. */
export interface CheckpointInput {
  /** The turn it was taken after; 0 for the baseline taken when the run starts. */
  iteration: number;
  /**
   * The baseline checkpoint, taken once when the run starts (after `session.start`, the
   * workspace ready, before the plan and the first agent turn; iteration 0): the reference
   * the first interval checkpoint is compared with. It never counts towards stagnation or
   * the `UNKNOWN` alert's row, and raises no verdict. Absent on interval checkpoints and in
   * logs written before it existed.
   */
  baseline?: true;
  observed: ObservedMetrics;
  /** Per-test outcomes the harness saw, used to mark evidence refs and to follow target tests. */
  tests?: TestOutcome[];
  /** Tests the runners named but skipped (a target test newly skipped is a regression). */
  skipped_tests?: SkippedTest[];
  reported: ReportedClaims;
  /** Observer failures (command could not start, timed out, unparsable output). */
  observer_errors?: string[];
  /**
   * Why each tracked signal that has no value was not measured, by signal
   * (`observed.tests.failing` → `observer "tests" (npm test): command not found (exit 127)`).
   */
  unmeasured?: Record<string, string>;
}

/** Verdict of one checkpoint. `UNKNOWN`: no tracked signal could be measured (never "no progress"). */
export type CheckpointStatus = 'BASELINE' | 'PROGRESS_OBSERVED' | 'NO_OBSERVED_PROGRESS' | 'UNKNOWN';

/** How one observed signal changed since its last observed value. */
export type SignalMove = 'baseline' | 'wanted' | 'flat' | 'regressed' | 'missing';

/** One `progress.observed` signal compared across checkpoints. */
export interface SignalDiff {
  signal: string;
  direction: 'increase' | 'decrease';
  before: number | null;
  after: number | null;
  move: SignalMove;
}

/** Whether the harness saw what an evidence claim points to. */
export type EvidenceStatus = 'found_passing' | 'found_failing' | 'not_found';

/** An evidence claim with the status of its reference in what was observed. */
export interface EvidenceCheck extends EvidenceClaim {
  status: EvidenceStatus;
}

/** A checkpoint with its evaluation (docs/design.md, "Checkpoints and stagnation"). */
import type { ExecutionMemory } from './memory.js';

export interface CheckpointRecord extends CheckpointInput {
  index: number;
  status: CheckpointStatus;
  /** Observed signals moved as wanted; `null` at the baseline. */
  observed_progress: boolean | null;
  /** Any tracked reported field is non-empty. */
  claimed_progress: boolean;
  /** Checkpoints in a row without observed progress. */
  counter: number;
  threshold: number;
  stagnation_detected: boolean;
  signals: SignalDiff[];
  evidence: EvidenceCheck[];
  /** One entry per observer whose tests are followed by name (absent with counts only). */
  target_tests?: TargetTestsRecord[];
  /** `UNKNOWN` only: which signals could not be measured and why, in one line. */
  unknown_why?: string;
  /** `UNKNOWN` checkpoints in a row ending with this one (0 or absent when this one was measured). */
  unknown_in_row?: number;
  /** The execution memory of the run as of this checkpoint (`src/engine/memory.ts`); absent in older logs. */
  memory?: ExecutionMemory;
}
