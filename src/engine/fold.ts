import type { AgentMessage } from './agents/agent.js';
import { describeRow, type AcceptanceRow } from './acceptance.js';
import { checkedAcceptance, NO_ACCEPTANCE, reportedAcceptance, reviseAcceptance, startAcceptance, type AcceptanceState } from './acceptance-fold.js';
import { ZERO_USAGE } from './budget.js';
import { INITIAL_EVALUATOR, type EvaluatorState } from './checkpoint.js';
import { advanceTargets, targetsNotPassing } from './target-tests.js';
import { EVENT_TYPES, eventTypeIndex, type EventOf, type EventType, type GoalRevision, type LoopEvent, type VerifyCommandResult } from './events.js';
import { describeFinding, type ProtectBaseline } from './constraints.js';
import { MAX_CYCLE_PERIOD } from './repetition.js';
import { clearAll, clearAtCall, clearAtCheckpoint, repetitionWatch, watchAlert, type AlertWatch, type Cleared, type NewWatch } from './alert-clearing.js';
import { DONE_REASONS, doneReason, INITIAL_MACHINE, LOOP_STATES, transition, type DoneReason, type LoopState, type MachineState } from './machine.js';
import { InvariantError } from './errors.js';
import { lapNote } from './lap-handover.js';
import { appendReport } from './reported.js';
import { callLine, noteFailure, type FailedAttempt } from './memory.js';
import { unreportedOf } from './unmeasured-usage.js';
import { parsePauseReason, type PauseReason } from './reasons.js';
import type { PolicyChange } from './reload.js';
import { foldVerdicts, type PendingVerdict } from './verdicts.js';
import type {
  AgentTurn,
  BudgetDimension,
  BudgetLimits,
  BudgetUsage,
  CheckpointRecord,
  Goal,
  ReportedClaims,
  ReportedClaimsView,
  TokenUsage,
  ToolCall,
  ToolResult,
} from './types.js';
import { BUDGET_DIMENSIONS } from './types.js';
import { budgetLimits, checkCall, checkGoal, checkRows, count, describeField, EventDataError, isCall, oneOf, reportedCount, text, unreportedList, whole } from './event-data.js';
import { raisedLimit } from './budget-units.js';
import { counted } from '../text/count.js';

/** One tool call and what became of it. */
export interface ToolRecord {
  call: ToolCall;
  seq: number;
  decision: { decision: 'approve' | 'deny'; by: 'operator' | 'policy'; note?: string } | null;
  result: ToolResult | null;
  error: string | null;
  /** `agent`: a CLI agent ran the call itself (no decision by loopdeck). */
  by?: 'agent';
  /** Refused before it was made (a call no tool can run, or one a hook cancelled): never run, never decided; `error` says why. */
  refused?: true;
}

/** A yield the session is waiting on. */
export type PendingYield =
  /** `interrupted`: a call approved before a restart whose result is not recorded: it may have run, in part or in full. */
  | { kind: 'tool'; call: ToolCall; seq: number; reason?: string; interrupted?: true }
  | { kind: 'pause'; reason: string; cause: PauseReason; prompt: string; from: LoopState; seq: number };

/** An alert the operator must see (stagnation, repetition, checkpoints that measured nothing, a constraint violated or not checkable). */
export interface Alert {
  seq: number;
  kind: 'stagnation' | 'repetition' | 'unknown' | 'constraint';
  message: string;
  /** A repetition alert: the call it is about (the one the guard stopped before it was made, or the last of a CLI agent's). */
  call?: ToolCall;
  /**
   * Its condition has cleared: at the event `seq`, and why (`alert-clearing.ts`). Set once:
   * only a new detection (a new alert) raises the condition again.
   */
  cleared?: { seq: number; why: string };
}

/** A finding of a constraint check as folded: the event's data with its `seq`. */
export type ConstraintFindingRecord =
  | ({ seq: number; outcome: 'violated' } & EventOf<'constraint.violated'>['data'])
  | ({ seq: number; outcome: 'error' } & EventOf<'constraint.unchecked'>['data']);

/** A revision of the goal as recorded. */
export interface RevisionRecord extends GoalRevision {
  seq: number;
}

/**
 * Everything the console and the engine know about a session, derived only from its
 * events. Replay, resume and the live console all use {@link fold} to build it.
 */
export interface SessionState {
  session: string | null;
  schemaVersion: number | null;
  machine: MachineState;
  lastTransition: { from: LoopState; to: LoopState; seq: number } | null;
  pattern: string | null;
  workspace: string | null;
  /** Whether the built-in approval gate and destructive-command guard run (`null` before `session.start`). */
  builtinGates: 'on' | 'off' | null;
  goal: Goal | null;
  revisions: readonly RevisionRecord[];
  plan: readonly string[];
  /** Plans committed: 1 + replans (Plan-and-Execute) or the attempt number (Reflexion). */
  plans: number;
  /** Steps completed since the last plan commit (Plan-and-Execute: the cursor in `plan`). */
  planDone: number;
  /** The last completed step failed (tool failed, denied, errored or the turn errored). */
  lastStepFailed: boolean;
  /** A step has started and not completed. */
  stepOpen: boolean;
  /** The open step already has its agent turn recorded. */
  stepHasTurn: boolean;
  /**
   * The last step's end is recorded (`step.end`, a tool's result or error) and no state
   * transition followed it yet: a log cut there goes on to REFLECTING, not to a new step.
   */
  stepEnded: boolean;
  /** A `plan.commit` is recorded and no state transition followed it yet: a log cut there goes on to EXECUTING. */
  planCommitted: boolean;
  /** The steps of a `plan.draft` not yet committed (a pause of `after_plan` keeps it): a log cut there commits it, never drafts again. */
  planDraft: string[] | null;
  /**
   * `after_plan` has decided on the uncommitted draft and its decision is recorded (its
   * `session.pause`): a resume commits the draft without running the hook again.
   */
  planReviewed: boolean;
  /** Verdicts recorded whose pause or end is not recorded yet, in the order they are acted on (`verdicts.ts`). */
  verdicts: PendingVerdict[];
  /** Reflexion: lessons so far, oldest first. */
  reflections: ReadonlyArray<{ attempt: number; text: string }>;
  /** Steps started. */
  step: number;
  /** Agent turns (model calls): the iteration count. */
  turn: number;
  checkpointEvery: number;
  limits: BudgetLimits;
  usage: Readonly<BudgetUsage>;
  warned: readonly BudgetDimension[];
  /** Agent turns that failed (no `model.call`): spent for `max_iterations` ({@link budgetUsage}), not in `usage.turns`. */
  failedTurns: number;
  /** Turns a CLI agent's parsed messages counted in the open step (a failed step with some is not a failed turn too). */
  stepAgentTurns: number;
  /** The dimension whose limit paused the run, until it resumes. */
  exhausted: BudgetDimension | null;
  /** Milliseconds of active time before `activeSince` (waiting at a yield does not count). */
  activeMs: number;
  /** Epoch ms when the current active stretch began; `null` while waiting at a yield. */
  activeSince: number | null;
  startedAt: number | null;
  /**
   * Milliseconds no loopdeck process ran the session: from the last event before each
   * `session.resume` to the resume (a quit, or a crash, and the resume later).
   */
  offlineMs: number;
  lastAt: number | null;
  /** `at` of the event before the last one. */
  lastAtBefore: number | null;
  evaluator: EvaluatorState;
  checkpoints: readonly CheckpointRecord[];
  alerts: readonly Alert[];
  /** The alerts whose condition the fold watches until it clears (`alert-clearing.ts`). */
  alertWatch: readonly AlertWatch[];
  pending: PendingYield | null;
  /**
   * Every tool call's record, by call id, calls refused before they were made included (their
   * `error` says why; no decision, no result). A map and not a record: a call id read from a log
   * is a new string each time, and a record of thousands of them looks each one up slowly.
   */
  tools: ReadonlyMap<string, ToolRecord>;
  /** The id of every tool call, in the order called (an id called again is listed again): the keys of `tools`, which `LogIndex` keeps by this order. */
  toolOrder: readonly string[];
  /**
   * Budget dimensions some turn did not report (`tokens`, `cost_usd`: a CLI agent's run, a
   * server that sent no usage, a failed turn): their usage counts only what was reported
   * and is a lower bound, shown as unknown.
   */
  unreported: BudgetDimension[];
  /** Approval rules the operator granted for the rest of the run. */
  granted: string[];
  /** Tool calls of the last turn not yet dispatched (or cancelled), in order. */
  queued: ToolCall[];
  /** The agent's claims since the last checkpoint: evidence and eliminations accumulate, remaining is the latest. */
  reportSinceCheckpoint: ReportedClaimsView;
  /** What was tried and failed since the last checkpoint (failed and denied calls, failed verify commands), for the execution memory. */
  failedSinceCheckpoint: FailedAttempt[];
  /** The agent's last assessment of the criteria (`progress.assessed`): reported, never progress. */
  assessment: ({ seq: number } & EventOf<'progress.assessed'>['data']) | null;
  /** The last turn's thought. */
  thought: string | null;
  /** The last turn's `final` claim, until the next turn. */
  finalClaim: string | null;
  /** What the agent has been told this lap: tool results and harness notes, oldest first. */
  history: readonly AgentMessage[];
  /** Fresh laps: the current lap (0 when laps are off) and the cap. */
  lap: number;
  maxLaps: number | null;
  /**
   * The hand-over file the current lap started from, as `lap.start` carried it (untrusted:
   * the agent wrote it); `''` when there was none yet; `null` before the first lap.
   */
  lapProgress: string | null;
  /** Laps in a row that ended in an error. */
  lapFailures: number;
  /** How the last lap ended (`lap.end`), until the next lap starts. */
  lapEnd: { lap: number; outcome: 'done' | 'not_done' | 'error'; note?: string } | null;
  /**
   * Steps in a row whose step left the workspace's files unchanged; `unknown` outside git
   * and after the first snapshot (there is nothing to compare it with yet).
   */
  unchangedSteps: number | 'unknown';
  /** Commits made this lap; `unknown` outside git. */
  lapCommits: number | 'unknown';
  lastTree: string | null;
  /** Whether the workspace is a git repo: `null` until the first snapshot. */
  workspaceGit: boolean | null;
  /** Size of the last request (this lap's context) and of the same request in one long session, in characters. */
  requestChars: number;
  longSessionChars: number;
  /** Characters of agent history in laps before the current one. */
  earlierLapsChars: number;
  /** Compactions of the agent's conversation (`context.compacted`), oldest first. */
  compactions: ReadonlyArray<{ seq: number; turn: number; before_tokens: number; after_tokens: number; dropped_turns: number; elided_count: number }>;
  /** Where an abort parked the workspace and wrote its report. */
  abort: { report: string; stash: string; restore: string } | null;
  /** The agent's latest claim that the goal is met, until a verifier judges it. */
  /**
   * The last verifier verdict: `step` and `lap` when it ran (so a decision knows whether the
   * current step was judged), and `claim`, the claim it judged (`trigger: claim`).
   */
  /** `not_done`: checkable success criteria not `DONE` when the verdict was taken (absent when none kept it from passing). */
  lastVerify: { seq: number; passed: boolean; trigger: 'claim' | 'check'; commands: VerifyCommandResult[]; step: number; lap: number; claim: string | null; not_done?: number } | null;
  hookErrors: number;
  /**
   * Checked constraints found violated or not checkable at the last checkpoint
   * (`constraint.violated`, `constraint.unchecked`, recorded before its
   * `checkpoint.recorded`), in the order checked; a later checkpoint's replace them, since
   * each check compares with the run's start.
   */
  constraintFindings: ConstraintFindingRecord[];
  /** The working tree as the run started, for `protect` constraints (`session.start`); `null` when none was recorded. */
  protectBaseline: ProtectBaseline | null;
  /**
   * The policy changes in force, in the order `policy.reloaded` applied them (docs/design.md,
   * "Live reload"): the run's starting policy with these applied (`applyChanges`, reload.ts)
   * is the policy in force after the last event folded.
   */
  policyChanges: Array<{ seq: number; path: string; to?: unknown }>;
  /** The reload whose changes wait for the operator's key (`seq` of its `policy.reloaded`), until answered or replaced by a newer reload. */
  reloadPending: { seq: number; file: string; inside: boolean; changes: PolicyChange[] } | null;
  /** The acceptance matrix: frozen criteria, rows as last checked (docs/design.md, "The acceptance matrix"). */
  acceptance: AcceptanceState;
  done: { reason: DoneReason; summary: string; detail?: string } | null;
  eventCount: number;
  lastSeq: number;
}

/** Claims of no report, fresh (the fold adds to them in place). */
function noClaims(): ReportedClaims {
  return { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] };
}

/** The state before any event. */
export const INITIAL_STATE: SessionState = {
  session: null,
  schemaVersion: null,
  machine: INITIAL_MACHINE,
  lastTransition: null,
  pattern: null,
  workspace: null,
  builtinGates: null,
  goal: null,
  revisions: [],
  plan: [],
  plans: 0,
  planDone: 0,
  lastStepFailed: false,
  stepOpen: false,
  stepHasTurn: false,
  stepEnded: false,
  planCommitted: false,
  planDraft: null,
  planReviewed: false,
  verdicts: [],
  reflections: [],
  step: 0,
  turn: 0,
  checkpointEvery: 0,
  limits: { turns: null, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null },
  usage: ZERO_USAGE,
  warned: [],
  failedTurns: 0,
  stepAgentTurns: 0,
  exhausted: null,
  activeMs: 0,
  activeSince: null,
  startedAt: null,
  offlineMs: 0,
  lastAt: null,
  lastAtBefore: null,
  evaluator: INITIAL_EVALUATOR,
  checkpoints: [],
  alerts: [],
  alertWatch: [],
  pending: null,
  tools: new Map(),
  toolOrder: [],
  unreported: [],
  granted: [],
  queued: [],
  reportSinceCheckpoint: noClaims(),
  failedSinceCheckpoint: [],
  assessment: null,
  finalClaim: null,
  thought: null,
  history: [],
  lap: 0,
  maxLaps: null,
  lapProgress: null,
  lapFailures: 0,
  lapEnd: null,
  unchangedSteps: 'unknown',
  lapCommits: 'unknown',
  lastTree: null,
  workspaceGit: null,
  requestChars: 0,
  longSessionChars: 0,
  earlierLapsChars: 0,
  compactions: [],
  abort: null,
  lastVerify: null,
  hookErrors: 0,
  constraintFindings: [],
  protectBaseline: null,
  policyChanges: [],
  reloadPending: null,
  acceptance: NO_ACCEPTANCE,
  done: null,
  eventCount: 0,
  lastSeq: -1,
};

/** Why a call is asked about again when it was approved before a restart and has no result. */
export const INTERRUPTED_REASON = 'interrupted mid-run when loopdeck stopped: it was approved and started, and no result was recorded; it may already have had effects; approve only to run it again';

/**
 * What the budget counts as used as of `now` (epoch ms): `usage` with the failed turns
 * added to the turns and the wall clock counted up to `now`.
 */
export function budgetUsage(state: Pick<SessionState, 'usage' | 'failedTurns' | 'activeMs' | 'activeSince'>, now: number): BudgetUsage {
  return { ...state.usage, turns: state.usage.turns + state.failedTurns, wall_clock_seconds: activeSeconds(state, now) };
}

/** Wall-clock seconds of active time as of `now` (epoch ms). */
export function activeSeconds(state: Pick<SessionState, 'activeMs' | 'activeSince'>, now: number): number {
  const running = state.activeSince === null ? 0 : Math.max(0, now - state.activeSince);
  return (state.activeMs + running) / 1000;
}

function pauseClock(s: SessionState, at: number): void {
  if (s.activeSince !== null) s.activeMs += Math.max(0, at - s.activeSince);
  s.activeSince = null;
  own(s, 'usage', s.usage).wall_clock_seconds = s.activeMs / 1000;
}

/** Records dimensions some turn did not report (docs/design.md, "Budget"): their totals are lower bounds. */
function noteUnreported(s: SessionState, dimensions: readonly BudgetDimension[]): void {
  for (const d of dimensions) if (!s.unreported.includes(d)) s.unreported = [...s.unreported, d];
}

function completeStep(s: SessionState, failed: boolean): void {
  if (!s.stepOpen) return;
  s.stepOpen = false;
  s.stepEnded = true;
  s.planDone += 1;
  s.lastStepFailed = failed;
}

function toolMessage(record: ToolRecord): AgentMessage {
  const { call, result, error } = record;
  if (error !== null) return { role: 'tool', call_id: call.id, name: call.name, status: 'error', content: error };
  return { role: 'tool', call_id: call.id, name: call.name, status: result!.status, content: result!.output };
}

/**
 * A constraint check's finding (docs/design.md, "Goals"): kept for the goal panel until the
 * next checkpoint, an alert, and for a violation a harness note telling the agent which
 * constraint it broke.
 */
function foldConstraint(s: SessionState, e: EventOf<'constraint.violated'> | EventOf<'constraint.unchecked'>): void {
  const finding: ConstraintFindingRecord =
    e.type === 'constraint.violated' ? { seq: e.seq, outcome: 'violated', ...e.data } : { seq: e.seq, outcome: 'error', ...e.data };
  const line = describeFinding(finding);
  // The findings of a checkpoint are recorded before its `checkpoint.recorded`: a new iteration's replace the last one's.
  s.constraintFindings = [...s.constraintFindings.filter((f) => f.iteration === finding.iteration), finding];
  raiseAlert(s, { seq: e.seq, kind: 'constraint', message: line }, { kind: 'constraint', index: finding.index, text: finding.text });
  if (finding.outcome === 'violated') {
    own(s, 'history', s.history).push({ role: 'harness', content: `You broke a constraint of the goal. ${line}. Undo what breaks it: the constraint still holds.` });
  }
}

/**
 * Applies one event to a private draft. Never called on a state someone else holds.
 *
 * The event's reducer runs first, the counts every event moves (`eventCount`, `lastSeq`,
 * `lastAt`, `lastAtBefore`, `verdicts`) after it: an event a reducer refuses (it throws
 * before its first change) leaves the state as it was, with nothing to put back. While a
 * reducer runs, `s.lastAt` is still the time of the event before this one.
 * @throws IllegalTransitionError, InvariantError or the TypeError of data a reducer cannot read
 */
export function reduce(s: SessionState, e: LoopEvent): void {
  const verdicts = foldVerdicts(s, e, e.type === 'session.pause' ? parsePauseReason(e.data.reason).kind : undefined);
  (reducerOf(e.type) as Reducer<EventType>)(s, e as never);
  s.eventCount += 1;
  s.lastSeq = e.seq;
  s.lastAtBefore = s.lastAt;
  s.lastAt = e.at;
  s.verdicts = verdicts;
}

/**
 * The machine after the transition `e` records. A target that is no state of the machine is
 * damaged data, named as such; a known state the machine cannot go to is an illegal
 * transition. The state's name is checked only when the transition fails (the common path
 * costs nothing more).
 * @throws EventDataError, IllegalTransitionError
 */
function transitionTo(machine: MachineState, e: EventOf<'state.transition'>): MachineState {
  try {
    return transition(machine, e.data.to, e.seq);
  } catch (error) {
    oneOf(e.data.to, 'data.to', LOOP_STATES);
    throw error;
  }
}

/** What one event of type `T` does to a draft state (after {@link reduce} has counted it). */
type Reducer<T extends EventType> = (s: SessionState, e: EventOf<T>) => void;

/**
 * One reducer per event type, read as a table. A table and not one `switch`: each reducer
 * is compiled on its own once it is hot, so a long fold runs compiled code after a few
 * hundred events instead of waiting for one large function to be compiled.
 */
const REDUCERS: { readonly [T in EventType]: Reducer<T> } = {
  'session.start': (s, e) => {
    // A run starts once (a second start would replace its goal, limits and clock).
    if (s.session !== null) throw new InvariantError(`a second session.start: the run ${s.session} started before it`);
    // What the event holds is read first: data that cannot be read changes nothing.
    checkGoal(e.data.goal, 'data.goal');
    const acceptance = startAcceptance(e.data.acceptance, e.data.goal.success_criteria);
    const limits = budgetLimits(e.data.budget, 'data.budget');
    s.session = e.session;
    s.schemaVersion = e.data.schemaVersion;
    s.pattern = e.data.pattern;
    s.workspace = e.data.workspace;
    s.builtinGates = e.data.builtin_gates ?? 'on';
    s.goal = e.data.goal;
    s.limits = limits;
    s.checkpointEvery = e.data.checkpoint_every;
    s.protectBaseline = e.data.protect_baseline ?? null;
    s.acceptance = acceptance;
    s.startedAt = e.at;
    s.activeSince = e.at;
  },
  'session.resume': (s, e) => foldResume(s, e),
  'session.pause': (s, e) => {
    pauseClock(s, e.at);
    const cause = parsePauseReason(e.data.reason);
    s.pending = { kind: 'pause', reason: e.data.reason, cause, prompt: e.data.prompt, from: e.data.from, seq: e.seq };
    if (cause.kind === 'budget_exceeded') s.exhausted = cause.dimension;
    if (cause.kind === 'hook' && s.planDraft !== null) s.planReviewed = true; // only after_plan pauses with a draft open
  },
  'session.complete': (s, e) => {
    // A run ends once: a second end would replace the first.
    if (s.done !== null) throw new InvariantError(`a second session.complete: the run ended before it (${s.done.reason})`);
    oneOf(e.data.reason, 'data.reason', DONE_REASONS);
    text(e.data.summary, 'data.summary', 'the summary of the end');
    pauseClock(s, e.at);
    s.done = { reason: doneReason(e.data.reason, e.data.summary, s.abort !== null), summary: e.data.summary, ...(e.data.detail ? { detail: e.data.detail } : {}) };
    s.pending = null;
    if (s.goal) s.goal = { ...s.goal, status: e.data.reason === 'goal_met' ? 'achieved' : s.goal.status };
    if (e.data.reason === 'goal_met' && s.alertWatch.length > 0) clearAlerts(s, e.seq, clearAll(s.alertWatch, 'the goal was met'));
  },
  'state.transition': (s, e) => {
    // Checked first: a transition the machine refuses changes nothing.
    const machine = transitionTo(s.machine, e);
    s.stepEnded = false;
    s.planCommitted = false;
    if (e.data.to !== 'IDLE' && e.data.from !== 'IDLE') {
      s.planDraft = null;
      s.planReviewed = false;
    }
    s.machine = machine;
    s.lastTransition = { from: e.data.from, to: e.data.to, seq: e.seq };
  },
  'plan.draft': (s, e) => {
    s.planDraft = [...e.data.steps];
    s.planReviewed = false;
  },
  'plan.commit': (s, e) => {
    const plan = [...e.data.steps];
    s.planDraft = null;
    s.planReviewed = false;
    s.plan = plan;
    s.plans += 1;
    s.planCommitted = true;
    s.planDone = 0;
    s.lastStepFailed = false;
  },
  'step.start': (s, e) => {
    s.step = whole(e.data.step, 'data.step', 'the number of the step', 1);
    s.stepOpen = true;
    // A step that starts with calls of the last turn still queued is served by that turn.
    s.stepHasTurn = s.queued.length > 0;
    s.stepAgentTurns = 0;
  },
  'step.end': (s, e) => {
    oneOf(e.data.outcome, 'data.outcome', STEP_OUTCOMES);
    if (e.data.outcome === 'awaiting_tool') {
      const id = s.toolOrder[s.toolOrder.length - 1];
      const record = id === undefined ? undefined : s.tools.get(id);
      if (record && e.data.ask !== false) {
        s.pending = { kind: 'tool', call: record.call, seq: e.seq, ...(e.data.reason ? { reason: e.data.reason } : {}) };
        pauseClock(s, e.at);
      }
      return;
    }
    // A turn the agent failed (no `model.call` in the step) is a turn spent all the same.
    // A CLI agent whose parsed messages counted its turns already spent none more.
    if (e.data.outcome === 'error' && s.stepOpen && !s.stepHasTurn && s.stepAgentTurns === 0) s.failedTurns += 1;
    completeStep(s, e.data.outcome === 'error');
  },
  'model.call': (s, e) => {
    // What the event holds is read first: data that cannot be read changes nothing.
    const { response } = e.data;
    // A CLI agent's parsed messages were each counted as a turn already.
    const counted = !(response.agent_run && count(response.agent_run.messages, 'data.response.agent_run.messages', "the agent's messages that started a turn") > 0);
    const calls = response.tool_calls;
    for (let i = 0; i < calls.length; i++) if (!isCall(calls[i])) checkCall(calls[i], `data.response.tool_calls[${i}]`);
    const unreported = unreportedOf(response);
    const tokens = tokensOf(e.data.usage);
    const cost = count(e.data.cost_usd, 'data.cost_usd', 'the cost of the turn in USD');
    const turn = whole(e.data.turn, 'data.turn', 'the number of the turn', 1);
    const queued = [...response.tool_calls];
    const report = response.report ? reportOf(response.report) : null;
    s.turn = turn;
    s.stepHasTurn = true;
    if (counted) own(s, 'usage', s.usage).turns += 1;
    noteUnreported(s, unreported);
    own(s, 'usage', s.usage).tokens += tokens;
    own(s, 'usage', s.usage).cost_usd += cost;
    s.queued = queued;
    s.finalClaim = response.final ?? null;
    s.thought = response.thought ?? null;
    s.requestChars = e.data.request_chars ?? 0;
    s.longSessionChars = e.data.long_session_chars ?? 0;
    if (report) appendReport(own(s, 'reportSinceCheckpoint', s.reportSinceCheckpoint), report);
  },
  'tool.call': (s, e) => {
    checkCall(e.data.call, 'data.call');
    own(s, 'tools', s.tools).set(e.data.call.id, toolRecord(e));
    s.queued = withoutCall(s.queued, e.data.call.id);
    own(s, 'toolOrder', s.toolOrder).push(e.data.call.id);
    own(s, 'usage', s.usage).tool_calls += 1;
    if (s.alertWatch.length > 0) clearAlerts(s, e.seq, clearAtCall(s.alertWatch, e.data.call));
  },
  'tool.ask': (s, e) => {
    // The prompt shows the call in loopdeck's terms; the agent's own call stays as parsed.
    s.pending = { kind: 'tool', call: e.data.call, seq: e.seq, ...(e.data.reason ? { reason: e.data.reason } : {}) };
    pauseClock(s, e.at);
  },
  'tool.decision': (s, e) => {
    oneOf(e.data.decision, 'data.decision', TOOL_DECISIONS);
    const record = s.tools.get(e.data.call_id);
    const { decision, by, note } = e.data;
    if (record) own(s, 'tools', s.tools).set(e.data.call_id, recordWith(record, note ? { decision, by, note } : { decision, by }, record.result, record.error));
    if (e.data.always && !s.granted.includes(e.data.always)) s.granted = [...s.granted, e.data.always];
    if (s.pending?.kind === 'tool') {
      s.pending = null;
      s.activeSince = e.at;
    }
  },
  'tool.result': (s, e) => {
    const record = s.tools.get(e.data.result.call_id);
    if (!record) return;
    // What the event holds is read first: a result that cannot be read changes nothing.
    const failed = e.data.result.status !== 'ok';
    if (typeof e.data.result.output !== 'string') throw new TypeError(`tool.result ${e.data.result.call_id}: its output is not text`);
    const next = recordWith(record, record.decision, e.data.result, record.error);
    own(s, 'tools', s.tools).set(record.call.id, next);
    // The agent ran it and saw its result itself: not loopdeck's step, not history to send back.
    if (e.data.by === 'agent') return;
    own(s, 'history', s.history).push(toolMessage(next));
    completeStep(s, failed);
    noteFailedCall(s, next);
  },
  'tool.error': (s, e) => {
    const cancelled = s.queued.find((c) => c.id === e.data.call_id);
    s.queued = s.queued.filter((c) => c.id !== e.data.call_id);
    completeStep(s, true);
    const record = s.tools.get(e.data.call_id);
    if (!record) {
      own(s, 'history', s.history).push({ role: 'tool', call_id: e.data.call_id, name: e.data.name, status: 'error', content: e.data.error });
      // Never dispatched (refused before approval, or a hook cancelled it before `tool.call`):
      // a denied call for the memory, and a call of the record, so the operator sees what was
      // refused and why. It was never made, so it counts for no budget.
      const what = cancelled ? callLine(cancelled) : e.data.name;
      s.failedSinceCheckpoint = noteFailure(s.failedSinceCheckpoint, { kind: 'denied', what, why: e.data.error, turn: s.turn });
      if (cancelled) {
        own(s, 'tools', s.tools).set(cancelled.id, { call: cancelled, seq: e.seq, decision: null, result: null, error: e.data.error, refused: true });
        own(s, 'toolOrder', s.toolOrder).push(cancelled.id);
      }
      return;
    }
    const next = recordWith(record, record.decision, record.result, e.data.error);
    own(s, 'tools', s.tools).set(record.call.id, next);
    own(s, 'history', s.history).push(toolMessage(next));
    noteFailedCall(s, next);
  },
  'budget.warn': (s, e) => {
    if (!s.warned.includes(e.data.dimension)) own(s, 'warned', s.warned).push(e.data.dimension);
  },
  'checkpoint.recorded': (s, e) => {
    foldCheckpoint(s, e.data.checkpoint);
    if (s.alertWatch.length > 0) clearAlerts(s, e.seq, clearAtCheckpoint(s.alertWatch, e.data.checkpoint, s.constraintFindings));
  },
  'stagnation.detected': (s, e) => {
    const message = `STAGNATION_DETECTED: ${e.data.counter}/${e.data.threshold} checkpoints without observed progress (turn ${e.data.iteration})`;
    raiseAlert(s, { seq: e.seq, kind: 'stagnation', message }, { kind: 'stagnation' });
  },
  'checkpoint.unknown': (s, e) => {
    const message = `UNKNOWN: ${counted(e.data.in_row, 'checkpoint')} in a row measured nothing (turn ${e.data.iteration}): ${e.data.why}`;
    raiseAlert(s, { seq: e.seq, kind: 'unknown', message }, { kind: 'unknown' });
  },
  'repetition.detected': (s, e) => foldRepetition(s, e),
  'goal.revised': (s, e) => {
    checkGoal(e.data.goal, 'data.goal');
    const acceptance = reviseAcceptance(s.acceptance, e.data.acceptance, e.data.goal.success_criteria);
    const note = `The operator revised the goal (${e.data.revision.directive}: ${e.data.revision.text}).`;
    s.goal = e.data.goal;
    s.acceptance = acceptance;
    own(s, 'revisions', s.revisions).push({ ...e.data.revision, seq: e.seq });
    own(s, 'history', s.history).push({ role: 'harness', content: note });
  },
  'reflection.recorded': (s, e) => {
    own(s, 'reflections', s.reflections).push({ attempt: e.data.attempt, text: e.data.text });
    own(s, 'history', s.history).push({ role: 'harness', content: `Reflection after attempt ${e.data.attempt}: ${e.data.text}` });
  },
  'verify.result': (s, e) => foldVerify(s, e),
  'hook.error': (s) => {
    s.hookErrors += 1;
  },
  'budget.extended': (s, e) => {
    const dimension = oneOf(e.data.dimension, 'data.dimension', BUDGET_DIMENSIONS);
    const by = count(e.data.by, 'data.by', `the amount added to the limit of ${dimension}`);
    if (by === 0) throw new EventDataError(`data.by is the number 0; it holds the amount added to the limit of ${dimension}: a number more than 0`);
    const limit = count(e.data.limit, 'data.limit', `the new limit of ${dimension}`);
    // The limit is the one before raised by `by` (as it was recorded): one damaged number of the two is named.
    const current = s.limits[dimension];
    if (current === null) throw new EventDataError(`data.dimension is the text ${JSON.stringify(dimension)}; the budget has no limit of ${dimension} to raise`);
    const raised = raisedLimit(dimension, current, by);
    if (limit !== raised) throw new EventDataError(`data.limit is the number ${limit}; it holds the limit of ${dimension} (${current}) raised by data.by (${by}): ${raised}`);
    s.limits = { ...s.limits, [dimension]: limit };
  },
  'lap.start': (s, e) => {
    // What the event holds is read first: data that cannot be read changes nothing.
    whole(e.data.lap, 'data.lap', 'the number of the lap', 1);
    whole(e.data.max_laps, 'data.max_laps', 'the most laps of the run', 1);
    const note = lapNote(e.data.lap, e.data.max_laps, e.data.handover, e.data.progress, e.data.memory);
    s.lap = e.data.lap;
    s.maxLaps = e.data.max_laps;
    s.lapProgress = e.data.handover ? e.data.handover.excerpt : (e.data.progress ?? '');
    s.earlierLapsChars += JSON.stringify(s.history).length;
    s.history = [{ role: 'harness', content: note }];
    s.queued = [];
    s.finalClaim = null;
    s.lapCommits = s.lastTree === null && s.unchangedSteps === 'unknown' ? 'unknown' : 0;
  },
  'lap.end': (s, e) => {
    oneOf(e.data.outcome, 'data.outcome', LAP_OUTCOMES);
    whole(e.data.lap, 'data.lap', 'the number of the lap', 1);
    s.lapFailures = e.data.outcome === 'error' ? s.lapFailures + 1 : 0;
    s.lapEnd = { lap: e.data.lap, outcome: e.data.outcome, ...(e.data.note ? { note: e.data.note } : {}) };
  },
  'workspace.snapshot': (s, e) => foldSnapshot(s, e.data),
  'agent.message': (s, e) => {
    if (e.data.starts_turn) own(s, 'usage', s.usage).turns += 1;
    if (e.data.starts_turn && s.stepOpen) s.stepAgentTurns += 1;
  },
  'agent.usage': (s, e) => {
    // A count the agent did not report is `null` (and named in `unreported`): it adds nothing.
    const input = reportedCount(e.data.input_tokens, 'data.input_tokens', 'input tokens') ?? 0;
    const output = reportedCount(e.data.output_tokens, 'data.output_tokens', 'output tokens') ?? 0;
    const cost = reportedCount(e.data.cost_usd, 'data.cost_usd', 'the cost in USD') ?? 0;
    const unreported = unreportedList(e.data.unreported, 'data.unreported');
    own(s, 'usage', s.usage).tokens += input + output;
    own(s, 'usage', s.usage).cost_usd += cost;
    noteUnreported(s, unreported);
  },
  'agent.notice': () => undefined,
  'context.compacted': (s, e) => {
    const { turn, before_tokens, after_tokens, dropped_turns, elided_count } = e.data;
    own(s, 'compactions', s.compactions).push({ seq: e.seq, turn, before_tokens, after_tokens, dropped_turns, elided_count });
  },
  'constraint.violated': (s, e) => foldConstraint(s, e),
  'constraint.unchecked': (s, e) => foldConstraint(s, e),
  'progress.assessed': (s, e) => foldAssessment(s, e),
  'acceptance.checked': (s, e) => {
    checkRows(e.data.rows, 'data.rows');
    s.acceptance = checkedAcceptance(s.acceptance, e.data.rows, { seq: e.seq, iteration: e.data.iteration, trigger: e.data.trigger });
  },
  'abort.recorded': (s, e) => {
    s.abort = { report: e.data.report, stash: e.data.stash, restore: e.data.restore };
  },
  'policy.reloaded': (s, e) => foldReload(s, e),
  // Child processes: what resume needs of them it reads from the log itself (run/survivors.ts).
  'process.start': () => undefined,
  'process.reaped': () => undefined,
};

/** {@link REDUCERS} in the order of {@link EVENT_TYPES}, found by {@link eventTypeIndex} (cheaper than a lookup by the type among forty names). */
const REDUCER_LIST: ReadonlyArray<Reducer<never>> = EVENT_TYPES.map((type) => REDUCERS[type] as Reducer<never>);

/** The reducer of an event type. @throws InvariantError for a type that has none (not an event type) */
function reducerOf(type: EventType): Reducer<never> {
  const reducer = REDUCER_LIST[eventTypeIndex(type)];
  if (reducer === undefined) throw new InvariantError(`unknown event type "${type}"`);
  return reducer;
}

/**
 * A verifier verdict: the last verdict (with how many acceptance rows kept it from passing),
 * a refuted claim told to the agent, and each failed command kept for the execution memory.
 */
function foldVerify(s: SessionState, e: EventOf<'verify.result'>): void {
  // What the event holds is read first: data that cannot be read changes nothing.
  const failed = e.data.commands.filter((c) => !c.passed);
  const open = e.data.acceptance?.met === false ? { not_done: e.data.acceptance.not_done.length } : {};
  const refuted = !e.data.passed && e.data.trigger === 'claim' ? refutation(e.data, s.acceptance.rows) : null;
  const claim = e.data.trigger === 'claim' ? s.finalClaim : null;
  if (e.data.trigger === 'claim') s.finalClaim = null;
  s.lastVerify = { seq: e.seq, passed: e.data.passed, trigger: e.data.trigger, commands: e.data.commands, step: s.step, lap: s.lap, claim, ...open };
  if (refuted !== null) own(s, 'history', s.history).push({ role: 'harness', content: refuted });
  for (const c of failed) {
    s.failedSinceCheckpoint = noteFailure(s.failedSinceCheckpoint, { kind: 'verify', what: c.command, why: `exit ${c.exit_code ?? 'none'}`, turn: s.turn });
  }
}

/** The outcomes a `step.end` records. */
const STEP_OUTCOMES = ['awaiting_tool', 'ok', 'skipped', 'error'] as const satisfies ReadonlyArray<EventOf<'step.end'>['data']['outcome']>;
/** The outcomes a `lap.end` records. */
const LAP_OUTCOMES = ['done', 'not_done', 'error'] as const satisfies ReadonlyArray<EventOf<'lap.end'>['data']['outcome']>;
/** The answers a `tool.decision` records. */
const TOOL_DECISIONS = ['approve', 'deny'] as const satisfies ReadonlyArray<EventOf<'tool.decision'>['data']['decision']>;

/** The tokens of a model call's `data.usage` (input and output), each a count ({@link count}). @throws EventDataError */
function tokensOf(usage: TokenUsage): number {
  return count(usage.input_tokens, 'data.usage.input_tokens', 'the input tokens of the call') + count(usage.output_tokens, 'data.usage.output_tokens', 'the output tokens of the call');
}

/** A turn's report with its lists read into arrays (a list that cannot be read throws here, before the fold changes anything). */
function reportOf(report: Partial<ReportedClaims>): Partial<ReportedClaims> {
  const out: Partial<ReportedClaims> = {};
  if (report.new_evidence) out.new_evidence = [...report.new_evidence];
  if (report.eliminated_hypotheses) out.eliminated_hypotheses = [...report.eliminated_hypotheses];
  if (report.remaining_hypotheses) out.remaining_hypotheses = [...report.remaining_hypotheses];
  return out;
}

/** The agent's own assessment: a model call but not a turn (tokens and cost only), kept as reported. */
function foldAssessment(s: SessionState, e: EventOf<'progress.assessed'>): void {
  const tokens = tokensOf(e.data.usage);
  const cost = count(e.data.cost_usd, 'data.cost_usd', 'the cost of the assessment in USD');
  const unreported = unreportedList(e.data.unreported, 'data.unreported');
  own(s, 'usage', s.usage).tokens += tokens;
  own(s, 'usage', s.usage).cost_usd += cost;
  noteUnreported(s, unreported);
  s.assessment = { seq: e.seq, ...e.data };
}

/** How a change of a reload may have taken effect. */
const RELOAD_EFFECTS = ['applied', 'awaiting_key', 'declined', 'needs_new_run', 'goal_only'] as const satisfies readonly PolicyChange['effect'][];

/**
 * A reload's `data.diff`, checked: a list of changes, each with a text `path` and a known
 * `effect`; a budget limit's `to` a count or `null` (the limit removed: loopdeck writes
 * `null`, never leaves it out), the checkpoint interval's a whole number of 1 or more. What
 * resume applies to the policy is what the fold takes: nothing else.
 * @throws EventDataError naming the first change or field that is not
 */
function reloadDiff(value: unknown): PolicyChange[] {
  if (!Array.isArray(value)) throw new EventDataError(`data.diff is ${describeField(value)}; it holds the list of changes the reload found`);
  value.forEach((change: unknown, i) => {
    const at = `data.diff[${i}]`;
    if (change === null || typeof change !== 'object' || Array.isArray(change)) throw new EventDataError(`${at} is ${describeField(change)}; it holds one change: path, effect, from, to`);
    const c = change as Record<string, unknown>;
    const path = text(c.path, `${at}.path`, 'the path of the setting changed');
    oneOf(c.effect, `${at}.effect`, RELOAD_EFFECTS);
    const limit = LIMIT_PATH.exec(path)?.[1];
    if (limit !== undefined && c.to !== null) count(c.to, `${at}.to`, `the new limit of ${limit} (null: none)`);
    if (path === 'checkpoint.every_iterations' && !(Number.isInteger(c.to) && (c.to as number) >= 1)) {
      throw new EventDataError(`${at}.to is ${describeField(c.to)}; it holds the new checkpoint interval: a whole number of iterations, 1 or more`);
    }
  });
  return value as PolicyChange[];
}

/** The path of a budget limit in a reload's changes; its dimension the first group. */
const LIMIT_PATH = /^budget\.limits\.(turns|tool_calls|wall_clock_seconds|tokens|cost_usd)$/;

/**
 * A reload of loop.yaml: its applied changes join the policy in force, and those the fold
 * keeps itself take effect (a budget limit, the checkpoint interval, the built-in gates); a
 * limit that changed may warn again. Changes waiting for a key are held until answered; a
 * newer reload replaces them.
 */
function foldReload(s: SessionState, e: EventOf<'policy.reloaded'>): void {
  const diff = reloadDiff(e.data.diff);
  const applied = diff.filter((c) => c.effect === 'applied');
  if (applied.length > 0) s.policyChanges = [...s.policyChanges, ...applied.map((c) => ({ seq: e.seq, path: c.path, ...('to' in c ? { to: c.to } : {}) }))];
  for (const change of applied) {
    const limit = LIMIT_PATH.exec(change.path)?.[1] as BudgetDimension | undefined;
    if (limit) {
      s.limits = { ...s.limits, [limit]: typeof change.to === 'number' ? change.to : null };
      s.warned = s.warned.filter((d) => d !== limit);
    }
    if (change.path === 'checkpoint.every_iterations' && typeof change.to === 'number') s.checkpointEvery = change.to;
    if (change.path === 'approval.builtin_gates' && (change.to === 'on' || change.to === 'off')) s.builtinGates = change.to;
  }
  // A refused file changes nothing, not even what waits for a key; an answer to another reload neither.
  if (e.data.errors !== undefined && e.data.trigger !== 'key') return;
  if (e.data.trigger === 'key' && s.reloadPending?.seq !== e.data.answers) return;
  const held = diff.filter((c) => c.effect === 'awaiting_key');
  s.reloadPending = held.length > 0 ? { seq: e.seq, file: e.data.file, inside: e.data.inside_workspace === true, changes: held } : null;
}

/** The first line of `text` that is not blank, or `''` (the output is not split: it may be long). */
function firstLine(text: string): string {
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const line = end < 0 ? text.slice(start) : text.slice(start, end);
    if (line.trim() !== '') return line;
    if (end < 0) break;
    start = end + 1;
  }
  return '';
}

/** `queued` without the calls of id `id`: a new list, as `filter` makes it, without a callback to allocate per event. */
function withoutCall(queued: readonly ToolCall[], id: string): ToolCall[] {
  const kept: ToolCall[] = [];
  for (let i = 0; i < queued.length; i++) if (queued[i]!.id !== id) kept.push(queued[i]!);
  return kept;
}

/**
 * A copy of a call's record with its decision, result and error as given, built field by
 * field: every record then has one of two layouts (with or without `by`). A spread of the
 * record (`{ ...record, result }`) took twice as long over a log's tool calls (the fold of
 * the bench's 100,000 parsed events went from about 26 ms to 14 ms).
 */
function recordWith(record: ToolRecord, decision: ToolRecord['decision'], result: ToolRecord['result'], error: ToolRecord['error']): ToolRecord {
  const next: ToolRecord = { call: record.call, seq: record.seq, decision, result, error };
  if (record.by) next.by = record.by;
  return next;
}

/** The record of a call just dispatched (`tool.call`): no decision, result or error yet. */
function toolRecord(e: EventOf<'tool.call'>): ToolRecord {
  const record: ToolRecord = { call: e.data.call, seq: e.seq, decision: null, result: null, error: null };
  if (e.data.by) record.by = e.data.by;
  return record;
}

/** A call that failed, errored or was denied, for the execution memory (`memory.ts`). */
function noteFailedCall(s: SessionState, record: ToolRecord): void {
  const status = record.error !== null ? 'error' : record.result?.status;
  if (status === undefined || status === 'ok') return;
  const why = record.error ?? `${status}${record.result!.exit_code !== null ? ` (exit ${record.result!.exit_code})` : ''}: ${firstLine(record.result!.output)}`;
  s.failedSinceCheckpoint = noteFailure(s.failedSinceCheckpoint, { kind: status === 'denied' ? 'denied' : 'tool', what: callLine(record.call), why, turn: s.turn });
}

/**
 * What the agent is told when its claim that the goal is met is refuted: the verify
 * commands that failed, and the acceptance rows that are not done (the verdict's own list,
 * with the row's evidence when the matrix has it).
 */
function refutation(data: EventOf<'verify.result'>['data'], rows: readonly AcceptanceRow[]): string {
  const failed = data.commands.filter((c) => !c.passed).map((c) => `${c.command} (exit ${c.exit_code})`);
  const parts = failed.length > 0 ? [`${failed.join(', ')} failed`] : [];
  for (const t of data.targets ?? []) {
    if (t.unmeasured !== undefined) parts.push(`the target tests of observer "${t.observer}" could not be measured (${t.unmeasured})`);
    else if (t.not_passing_count > 0) parts.push(`${targetsNotPassing(t)} (every test that ran when the run began must pass: a deleted, renamed or skipped test is not a fixed one)`);
  }
  const open = data.acceptance?.met === false ? data.acceptance.not_done : [];
  if (open.length > 0) {
    const lines = open.map((r) => {
      const row = rows.find((x) => x.index === r.index && x.text === r.text);
      return row ? describeRow(row) : `#${r.index + 1} "${r.text}": ${r.status}${r.why ? ` (${r.why})` : ''}`;
    });
    parts.push(`these success criteria are not done: ${lines.join('; ')}`);
  }
  return `Your claim that the goal is met was refuted: ${parts.join('; ') || 'the verifier did not pass'}.`;
}

/** Adds an alert and watches its condition until it clears (`watch`; `null`: only a met goal clears it). */
function raiseAlert(s: SessionState, alert: Alert, watch: NewWatch): void {
  const alerts = own(s, 'alerts', s.alerts);
  alerts.push(alert);
  s.alertWatch = watchAlert(s.alertWatch, watch, alerts.length - 1);
}

/** Marks the alerts an event cleared (at `seq`) and keeps the watches left. */
function clearAlerts(s: SessionState, seq: number, result: Cleared): void {
  s.alertWatch = result.watches;
  if (result.cleared.length === 0) return;
  const alerts = own(s, 'alerts', s.alerts);
  for (const { alerts: indices, why } of result.cleared) {
    for (const i of indices) if (alerts[i] && !alerts[i].cleared) alerts[i] = { ...alerts[i], cleared: { seq, why } };
  }
}

/**
 * A repetition detection: an alert about the call it names, watched by the guard's rule
 * over the calls recorded from here on (the window starts with the calls recorded before it).
 */
function foldRepetition(s: SessionState, e: EventOf<'repetition.detected'>): void {
  const call = e.data.calls[e.data.calls.length - 1];
  const alert: Alert = { seq: e.seq, kind: 'repetition', message: e.data.rule ?? `repeated tool call ${e.data.count}× (${e.data.hash})`, ...(call ? { call } : {}) };
  const settings = e.data.settings;
  const keep = settings ? Math.max(settings.window, settings.threshold * MAX_CYCLE_PERIOD) : 0;
  raiseAlert(s, alert, repetitionWatch(e.data, recordedCalls(s, keep, settings?.exempt_tools ?? [])));
}

/** The last `n` calls recorded that are not of `exempt` tools, oldest first. */
function recordedCalls(s: SessionState, n: number, exempt: readonly string[]): ToolCall[] {
  const calls: ToolCall[] = [];
  for (let i = s.toolOrder.length - 1; i >= 0 && calls.length < n; i--) {
    const call = s.tools.get(s.toolOrder[i]!)?.call;
    if (call && !exempt.includes(call.name)) calls.push(call);
  }
  return calls.reverse();
}

/** A recorded checkpoint: the list, the goal's progress note, and the evaluator's state as the evaluator left it. */
function foldCheckpoint(s: SessionState, checkpoint: CheckpointRecord): void {
  // What the record holds is read first: a record that cannot be read changes nothing.
  // Progress notes are what the harness measured, never what the agent claimed.
  const moved = checkpoint.signals.map((g) => `${g.signal.replace(/^observed\./, '')} ${g.before ?? '—'} → ${g.after ?? 'missing'}`).join(', ');
  const at = checkpoint.baseline ? 'run start' : `iteration ${checkpoint.iteration}`;
  const goal = s.goal ? { ...s.goal, notes: [...s.goal.notes, `${at}: ${checkpoint.status}${moved ? ` (${moved})` : ''}`] } : s.goal;
  const acceptance = reportedAcceptance(s.acceptance, checkpoint.reported);
  const last = { ...s.evaluator.last };
  for (const signal of checkpoint.signals) if (signal.after !== null) last[signal.signal] = signal.after;
  const evaluator = {
    count: s.evaluator.count + 1,
    counter: checkpoint.counter,
    last,
    targets: advanceTargets(s.evaluator.targets, checkpoint),
    ...(checkpoint.unknown_in_row ? { unknownInRow: checkpoint.unknown_in_row } : {}),
  };
  own(s, 'checkpoints', s.checkpoints).push(checkpoint);
  s.goal = goal;
  s.acceptance = acceptance;
  s.reportSinceCheckpoint = noClaims();
  s.failedSinceCheckpoint = [];
  s.constraintFindings = s.constraintFindings.filter((f) => f.iteration === checkpoint.iteration);
  s.evaluator = evaluator;
}

/** A workspace snapshot: whether it is a git work tree, steps without a change, commits of the lap. */
function foldSnapshot(s: SessionState, snap: EventOf<'workspace.snapshot'>['data']): void {
  s.workspaceGit = snap.git;
  if (!snap.git || snap.tree === null) {
    s.unchangedSteps = 'unknown';
    s.lapCommits = 'unknown';
    s.lastTree = null;
    return;
  }
  // The first snapshot has nothing to compare with: whether that step changed files is unknown.
  if (s.lastTree === null) s.unchangedSteps = 'unknown';
  else s.unchangedSteps = s.lastTree !== snap.tree ? 0 : s.unchangedSteps === 'unknown' ? 1 : s.unchangedSteps + 1;
  s.lapCommits = (s.lapCommits === 'unknown' ? 0 : s.lapCommits) + (snap.new_commits ?? 0);
  s.lastTree = snap.tree;
}

/** A restart: the clock stopped at the last event before it, and the call to ask about again, if any. */
function foldResume(s: SessionState, e: EventOf<'session.resume'>): void {
  // A restart: no process ran the run since the event before it. The answer to a pause the
  // same process asked is not one (it waited for the operator). A log written before
  // `restart` was recorded: a resume that answers no pause is a restart.
  const restart = e.data.restart ?? s.pending?.kind !== 'pause';
  // `s.lastAt` is still the time of the event before this one ({@link reduce}).
  const before = s.lastAt;
  if (restart && before !== null) s.offlineMs += Math.max(0, e.at - before);
  // A restart (no pause to answer) stops the clock at the last event before it.
  if (s.pending?.kind !== 'pause' && s.activeSince !== null && before !== null) pauseClock(s, before);
  s.activeSince = e.at;
  s.exhausted = null;
  const reask = e.data.reask === undefined ? undefined : s.tools.get(e.data.reask);
  if (reask) {
    const interrupted = reask.decision?.decision === 'approve';
    const reason = interrupted ? INTERRUPTED_REASON : 'issued before a restart, with no recorded result';
    s.pending = { kind: 'tool', call: reask.call, seq: e.seq, reason, ...(interrupted ? { interrupted: true as const } : {}) };
    pauseClock(s, e.at);
  } else if (s.pending?.kind === 'pause' || (s.pending?.kind === 'tool' && s.tools.get(s.pending.call.id)?.by === 'agent')) {
    // A CLI agent's hook that waited died with the run: nobody is there to answer.
    s.pending = null;
  }
}

/** The fields of a state that {@link reduce} changes in place, with the mutable types {@link own} gives them: its arrays and records, and the claims since the last checkpoint (their lists too). */
interface Owned {
  revisions: RevisionRecord[];
  plan: string[];
  reflections: Array<{ attempt: number; text: string }>;
  usage: BudgetUsage;
  warned: BudgetDimension[];
  checkpoints: CheckpointRecord[];
  alerts: Alert[];
  tools: Map<string, ToolRecord>;
  toolOrder: string[];
  history: AgentMessage[];
  compactions: SessionState['compactions'][number][];
  reportSinceCheckpoint: ReportedClaims;
}
type InPlace = keyof Owned;
const IN_PLACE: readonly InPlace[] = ['revisions', 'plan', 'reflections', 'usage', 'warned', 'checkpoints', 'alerts', 'tools', 'toolOrder', 'history', 'compactions', 'reportSinceCheckpoint'];

function copyOf<K extends InPlace>(key: K, value: SessionState[K]): Owned[K] {
  if (key === 'reportSinceCheckpoint') {
    const claims = value as SessionState['reportSinceCheckpoint'];
    return { ...claims, new_evidence: [...claims.new_evidence], eliminated_hypotheses: [...claims.eliminated_hypotheses], remaining_hypotheses: [...claims.remaining_hypotheses] } as Owned[K];
  }
  if (value instanceof Map) return new Map(value) as Owned[K];
  return (Array.isArray(value) ? [...value] : { ...value }) as Owned[K];
}

/**
 * While {@link fold} runs, the state it started from: its draft shares the arrays and
 * records of this state until an event changes one ({@link own} copies it then). `null`
 * otherwise: a {@link draftOf} draft has its own copy of every one.
 */
let sharedWith: SessionState | null = null;

/**
 * `value`, the draft's `s[key]`, as the draft's own to change in place: copied first while
 * it is still the one of the state {@link fold} started from. Every change in place goes
 * through here; the fields' types are read-only everywhere else. The caller reads the
 * field (`own(s, 'history', s.history)`): a read by a key given here would be one lookup
 * site for every field, which the engine then serves slowly, on every event.
 */
function own<K extends InPlace>(s: SessionState, key: K, value: SessionState[K]): Owned[K] {
  if (sharedWith === null || value !== sharedWith[key]) return value as Owned[K];
  const copy = copyOf(key, value);
  (s as unknown as Owned)[key] = copy;
  return copy;
}

/**
 * The state as `replay --headless` prints it: as it is, but `tools` an object of the call
 * records by call id (a map has no JSON form of its own).
 */
export function stateAsJson(state: SessionState): Omit<SessionState, 'tools'> & { tools: Record<string, ToolRecord> } {
  return { ...state, tools: Object.fromEntries(state.tools) };
}

/** A copy of `state` that {@link reduce} may change without touching `state`: every array and record is copied. */
export function draftOf(state: SessionState): SessionState {
  const draft = { ...state };
  for (const key of IN_PLACE) (draft as unknown as Owned)[key] = copyOf(key, state[key]) as never;
  return draft;
}

/**
 * Folds events into a session state: `fold(events)` from scratch, or `fold(events, state)`
 * to continue. Pure for its callers: the input state is never modified. Same events in,
 * same state out; no clock, no randomness. The arrays and records the events leave alone
 * are shared with the input state (neither may be changed in place: use {@link draftOf}).
 *
 * @throws IllegalTransitionError when a `state.transition` is not legal
 */
export function fold(events: readonly LoopEvent[], state: SessionState = INITIAL_STATE): SessionState {
  if (events.length === 0) return state;
  // A plain copy whose arrays and records are copied when first changed ({@link own}): the
  // fields a run of events leaves alone keep their identity, so the console's panels that
  // select them are not drawn again, and a batch of events copies only what it changes.
  const draft = { ...state };
  sharedWith = state;
  try {
    for (const event of events) reduce(draft, event);
  } finally {
    sharedWith = null;
  }
  return draft;
}
