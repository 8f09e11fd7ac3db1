/**
 * The engine's public surface: what the console (src/ui), the command line (src/program.ts,
 * src/launch.ts), the operator hook policies (src/hooks) and the benchmarks build on. Each
 * name is listed on purpose; internals (the event reducer, fold drafts, budget arithmetic,
 * checkpoint evaluation, the shell parser) stay in their modules and are imported from there
 * by the engine itself and by the tests of those modules. Design: docs/design.md.
 */

// Running a loop: a session is an async generator of yields; `drive` answers them.
export { Session, type SessionOptions, type LoopRun, type LoopOutcome, type LoopYield, type ToolAnswer, type PauseAnswer, type ResumePayload } from './session.js';
export { drive, headlessAnswerer, type Answerer, type HeadlessPolicy } from './drive.js';

// loop.yaml: validated once by one zod schema.
export { loadPolicy, parsePolicy, definePolicy, LOOP_SCHEMA, DEFAULT_CONFIG_FILE, MAX_CONFIG_BYTES, type LoopPolicy, type EnginePolicy, type LoadPolicyOptions } from './policy.js';
// Live reload of loop.yaml (`Session.reload`, `Session.answerReload`): the diff a `policy.reloaded` carries.
export type { PolicyChange, ReloadEffect } from './reload.js';
export type { ReloadRequest } from './run/reload-step.js';

// Agents.
export { ScriptedAgent, transcriptSchema } from './agents/scripted.js';
export type { Agent, AgentContext, AgentMessage, AssessAnswer, AssessContext, PlanContext, ReconcileContext } from './agents/agent.js';

// Tools: the built-in workspace tools, or your own runner in their place (`SessionOptions.runTool`).
export { runTool, TOOL_NAMES, type ToolContext, type ToolOutcome } from './tools.js';
export { estimateTokens, estimateRequestTokens } from './agents/context.js';

// The event log and its fold: the same fold feeds the live store, replay and resume.
export { SCHEMA_VERSION, EVENT_TYPES, assertNever, type LoopEvent, type EventType, type EventDataMap, type EventOf } from './events.js';
export { fold, INITIAL_STATE, activeSeconds, type SessionState, type PendingYield, type ToolRecord, type Alert, type RevisionRecord } from './fold.js';
export { EventLog, readLog, parseLog, foldLog, type ReadLogResult } from './log.js';
export { LOOP_STATES, DONE_REASONS, type LoopState, type DoneReason } from './machine.js';

// Shapes the console shows.
export type {
  Goal,
  GoalStatus,
  SubGoal,
  ToolCall,
  ToolResult,
  AgentTurn,
  BudgetLimits,
  BudgetUsage,
  CheckpointRecord,
  SignalDiff,
  EvidenceStatus,
  TargetTestsRecord,
} from './types.js';
export { BUDGET_DIMENSIONS, BUDGET_COMMAND_NAMES, type BudgetDimension } from './types.js';
export { newGoal, parseGoalCommand, GOAL_SUBCOMMANDS, type GoalCommand } from './goal.js';
export { formatDuration, parseDuration } from './duration.js';
// The acceptance matrix (docs/design.md, "The acceptance matrix"): the rows `SessionState.acceptance` holds.
export {
  ACCEPTANCE_FILE,
  describeRow,
  type AcceptanceCriterion,
  type AcceptanceDocument,
  type AcceptanceEvidence,
  type AcceptanceRow,
  type AcceptanceStatus,
  type CriterionCheck,
  type CriterionOp,
  type CriterionSpec,
} from './acceptance.js';
export type { AcceptanceState } from './acceptance-fold.js';
export { buildMemory, renderMemory, MEMORY_MAX_CHARS, type ExecutionMemory, type FailedAttempt, type AcceptanceRowView } from './memory.js';
export { parseAssessment, harnessViews, disagrees, type AssessedCriterion, type HarnessView, type Verdict } from './assessment.js';

// The hook registry that operator hook policies subscribe to.
export { HookRegistry, HOOK_TOPICS, type HookTopic, type HookPayloads, type HookDecision } from './hooks.js';

// Errors, split by who is at fault.
export {
  LoopdeckError,
  ConfigError,
  ConfigErrors,
  IllegalTransitionError,
  SessionStateError,
  ResumeError,
  InvariantError,
  UsageError,
  ToolError,
  AgentError,
  LogError,
  describeError,
} from './errors.js';
