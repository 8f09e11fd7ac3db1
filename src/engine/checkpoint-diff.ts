/**
 * The observed-versus-reported diff of one checkpoint (docs/design.md, "Checkpoints and
 * stagnation"), as a pure function of two evaluated records.
 */
import type {
  CheckpointRecord,
  CheckpointStatus,
  EvidenceCheck,
  EvidenceClaim,
  SignalDiff,
} from './types.js';
import { explainCheckpoint } from './checkpoint-explain.js';

/**
 * Items of one reported field against the earlier checkpoints of the run. A report says what
 * the agent stated since the last checkpoint, not a state: an item it does not repeat is not
 * withdrawn, so there is no "removed"; and an item it said at any earlier checkpoint, the
 * previous one or one before, is said again when it comes back, not new (docs/design.md,
 * "Reported lists are not a state").
 */
export interface ReportedFieldDiff<T> {
  /** In this checkpoint and in no earlier one's same field (every item when there is none). */
  added: T[];
  /** In this checkpoint and in an earlier one's same field too (said again). */
  repeated: T[];
}

/** The reported fields, each as items new and said again. */
export interface ReportedDiff {
  new_evidence: ReportedFieldDiff<EvidenceClaim>;
  eliminated_hypotheses: ReportedFieldDiff<string>;
  remaining_hypotheses: ReportedFieldDiff<string>;
}

/** What one checkpoint shows: observed signals, reported claims, the verdict. */
export interface CheckpointDiff {
  index: number;
  iteration: number;
  /** Each `progress.observed` signal: before → after, wanted direction, move. */
  signals: SignalDiff[];
  /** Signals that moved against their direction (they must stand out). */
  regressions: string[];
  /** Signals with no value at this checkpoint (shown as missing, never as 0). */
  missing: string[];
  reported: ReportedDiff;
  /** Each evidence claim of this checkpoint with whether the harness saw its reference. */
  evidence: EvidenceCheck[];
  status: CheckpointStatus;
  /** `status`, with ` + STAGNATION_DETECTED` when the counter is at the threshold. */
  verdict: string;
  /** The rule that produced the verdict, in one line a person can read ({@link explainCheckpoint}). */
  explanation: string;
  observed_progress: boolean | null;
  claimed_progress: boolean;
  counter: number;
  threshold: number;
  stagnation_detected: boolean;
}

function setDiff<T>(earlier: readonly (readonly T[])[], after: readonly T[], key: (item: T) => string): ReportedFieldDiff<T> {
  const had = new Set(earlier.flatMap((items) => items.map(key)));
  return { added: after.filter((item) => !had.has(key(item))), repeated: after.filter((item) => had.has(key(item))) };
}

const claimKey = (claim: EvidenceClaim) => JSON.stringify([claim.claim, claim.evidence_ref]);
const same = (item: string) => item;

/**
 * The diff of `current` against the checkpoints before it (`earlier`, oldest first; empty
 * for the first). Observed signals come from `current.signals` (compared by the evaluator
 * with each signal's last observed value); reported fields are compared item by item with
 * the same field of every earlier report: an item is new (said at no earlier checkpoint) or
 * said again, never removed (a report is not a state). Evidence claims are compared by
 * claim and reference together. Pure.
 */
export function diffCheckpoint(earlier: readonly CheckpointRecord[], current: CheckpointRecord): CheckpointDiff {
  // A log written before reports were recorded may have none.
  const reports = earlier.flatMap((c) => (c.reported ? [c.reported] : []));
  const signals = current.signals.map((s) => ({ ...s }));
  return {
    index: current.index,
    iteration: current.iteration,
    signals,
    regressions: signals.filter((s) => s.move === 'regressed').map((s) => s.signal),
    missing: signals.filter((s) => s.move === 'missing').map((s) => s.signal),
    reported: {
      new_evidence: setDiff(reports.map((r) => r.new_evidence), current.reported.new_evidence, claimKey),
      eliminated_hypotheses: setDiff(reports.map((r) => r.eliminated_hypotheses), current.reported.eliminated_hypotheses, same),
      remaining_hypotheses: setDiff(reports.map((r) => r.remaining_hypotheses), current.reported.remaining_hypotheses, same),
    },
    evidence: current.evidence.map((e) => ({ ...e })),
    status: current.status,
    verdict: current.stagnation_detected ? `${current.status} + STAGNATION_DETECTED` : current.status,
    explanation: explainCheckpoint(current),
    observed_progress: current.observed_progress,
    claimed_progress: current.claimed_progress,
    counter: current.counter,
    threshold: current.threshold,
    stagnation_detected: current.stagnation_detected,
  };
}
