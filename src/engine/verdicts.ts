/**
 * Verdicts whose pause or stop is not recorded yet (docs/design.md, "Resume points"). A
 * checkpoint's stagnation, its `UNKNOWN` alert and its violated constraints, a repeated
 * call and a spent budget each decide a pause or an end; the verdict is recorded first
 * (`checkpoint.recorded`, `constraint.violated`, `repetition.detected`, `budget.warn`
 * exceeded) and its pause or end after it. A log cut between the two holds the verdict as a
 * committed fact: the fold keeps it here ({@link foldVerdicts}) until its pause or the end
 * is recorded, and {@link verdictStep} turns it into that pause or end again on resume.
 */
import { UNKNOWN_ALERT_IN_ROW } from './checkpoint-unknown.js';
import { describeFinding } from './constraints.js';
import type { LoopEvent } from './events.js';
import type { LoopState } from './machine.js';
import type { ConstraintFindingRecord } from './fold.js';
import type { PauseKind } from './reasons.js';
import type { BudgetDimension, CheckpointRecord } from './types.js';

/** What follows a detection (`on_detect`, `on_unknown`, `goal.on_violation`). */
export type DetectAction = 'alert' | 'pause' | 'stop';

/**
 * One verdict waiting for its pause or end. `action` is the one the detection event
 * recorded; `null` when only the checkpoint is recorded and its detection event is not
 * (the policy's action applies, and the event is recorded first).
 */
export type PendingVerdict =
  | { kind: 'constraint'; iteration: number; action: 'pause' | 'stop'; lines: string[] }
  | { kind: 'unknown'; iteration: number; action: DetectAction | null; record: CheckpointRecord }
  | { kind: 'stagnation'; iteration: number; action: DetectAction | null; counter: number; threshold: number }
  | { kind: 'repetition'; summary: string }
  | { kind: 'budget'; dimension: BudgetDimension; used: number; limit: number };

/** The pause kind each verdict pauses with (an `UNKNOWN` alert pauses as stagnation does). */
const PAUSED_AS: Record<PendingVerdict['kind'], PauseKind> = {
  constraint: 'constraint',
  unknown: 'stagnation',
  stagnation: 'stagnation',
  repetition: 'repetition',
  budget: 'budget_exceeded',
};

/**
 * The verdicts still waiting after `e`, from the state before it (pure; a new array
 * whenever it changes, the same one when it does not). A checkpoint replaces the list with its own verdicts (its violated
 * constraints, then stagnation or the `UNKNOWN` alert, from its record); a detection event sets the recorded action
 * (`alert` drops the verdict: nothing waits); a pause drops the verdicts it answers; the
 * end drops all; a transition that moves the run on ({@link MOVES_ON}) drops what is left.
 * @param pauseKind the decoded kind of a `session.pause`'s reason (the fold decodes it once)
 */
export function foldVerdicts(state: VerdictSource, e: LoopEvent, pauseKind?: PauseKind): PendingVerdict[] {
  const verdicts = state.verdicts;
  switch (e.type) {
    case 'checkpoint.recorded':
      return fromCheckpoint(e.data.checkpoint, state.constraintFindings);
    case 'checkpoint.unknown':
      return detected(verdicts, 'unknown', e.data.action);
    case 'stagnation.detected':
      return detected(verdicts, 'stagnation', e.data.action);
    case 'repetition.detected':
      return [...verdicts.filter((v) => v.kind !== 'repetition'), { kind: 'repetition', summary: `repetition: ${e.data.rule ?? `repeated tool call ${e.data.count}× (${e.data.hash})`}` }];
    case 'budget.warn':
      if (!e.data.exceeded) return verdicts as PendingVerdict[];
      return [...verdicts.filter((v) => v.kind !== 'budget'), { kind: 'budget', dimension: e.data.dimension, used: e.data.used, limit: e.data.limit }];
    case 'session.pause':
      return verdicts.filter((v) => PAUSED_AS[v.kind] !== pauseKind);
    case 'session.complete':
      return [];
    case 'state.transition':
      return verdicts.length > 0 && MOVES_ON.has(e.data.to) && e.data.from !== 'IDLE' ? [] : (verdicts as PendingVerdict[]);
    default:
      return verdicts as PendingVerdict[];
  }
}

/**
 * Transitions past every verdict: a new step or plan, a call dispatched. Into a pause, back
 * from one, to REFLECTING (a stop ends the step first) and to DONE, the verdicts stay.
 */
const MOVES_ON: ReadonlySet<LoopState> = new Set<LoopState>(['EXECUTING', 'PLANNING', 'AWAITING_TOOL']);

/** What the fold reads to keep the verdicts: those waiting and the constraint findings recorded. */
export interface VerdictSource {
  verdicts: readonly PendingVerdict[];
  constraintFindings: ReadonlyArray<ConstraintFindingRecord>;
}

/**
 * The verdicts of a checkpoint, in the order they are acted on: its violated constraints
 * (their findings are recorded before it), then its stagnation or its `UNKNOWN` alert.
 */
function fromCheckpoint(record: CheckpointRecord, findings: VerdictSource['constraintFindings']): PendingVerdict[] {
  const out: PendingVerdict[] = [];
  const violated = findings.flatMap((f) => (f.outcome === 'violated' && f.iteration === record.iteration ? [f] : []));
  const action = violated[0]?.action;
  if (action && action !== 'alert') out.push({ kind: 'constraint', iteration: record.iteration, action, lines: violated.map((f) => describeFinding(f)) });
  if (record.stagnation_detected) out.push({ kind: 'stagnation', iteration: record.iteration, action: null, counter: record.counter, threshold: record.threshold });
  else if (record.status === 'UNKNOWN' && (record.unknown_in_row ?? 0) >= UNKNOWN_ALERT_IN_ROW) out.push({ kind: 'unknown', iteration: record.iteration, action: null, record });
  return out;
}

function detected(verdicts: readonly PendingVerdict[], kind: 'unknown' | 'stagnation', action: DetectAction): PendingVerdict[] {
  if (action === 'alert') return verdicts.filter((v) => v.kind !== kind);
  return verdicts.map((v) => (v.kind === kind ? { ...v, action } : v));
}

/** The summary a stagnation verdict pauses or ends with (the same text the live run uses). */
export function stagnationSummary(counter: number, threshold: number): string {
  return `STAGNATION_DETECTED: ${counter}/${threshold} checkpoints without observed progress`;
}

/** The policy's actions a verdict whose detection event is not recorded takes (absent: `pause`, the schema's default). */
export interface DetectPolicy {
  stagnation: DetectAction;
  unknown: DetectAction;
  repetition: DetectAction;
}
