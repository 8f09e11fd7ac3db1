/**
 * The observed-versus-reported diff of one checkpoint (DESIGN.md, "Checkpoints and
 * stagnation"), as a pure function of two evaluated records, and the reader of checkpoint
 * JSON files that `loopdeck check` evaluates.
 */
import { z } from 'zod';
import type { ReportedField } from './checkpoint.js';
import type {
  CheckpointInput,
  CheckpointRecord,
  CheckpointStatus,
  EvidenceCheck,
  EvidenceClaim,
  SignalDiff,
} from './types.js';
import { MAX_YAML_BYTES, parseYamlWith, readBoundedText } from './yaml-file.js';
import { ConfigError, ConfigErrors } from './errors.js';

/** Items of one reported field that appeared or disappeared since the previous checkpoint. */
export interface ReportedFieldDiff<T> {
  /** In this checkpoint, not in the previous one (every item when there is no previous one). */
  added: T[];
  /** In the previous checkpoint, not in this one. */
  removed: T[];
}

/** The reported fields, each as items added and removed. */
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
  observed_progress: boolean | null;
  claimed_progress: boolean;
  counter: number;
  threshold: number;
  stagnation_detected: boolean;
}

function setDiff<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): ReportedFieldDiff<T> {
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  return { added: after.filter((item) => !had.has(key(item))), removed: before.filter((item) => !has.has(key(item))) };
}

const claimKey = (claim: EvidenceClaim) => JSON.stringify([claim.claim, claim.evidence_ref]);
const same = (item: string) => item;

/**
 * The diff of `current` against `previous` (the checkpoint before it, `null` for the first).
 * Observed signals come from `current.signals` (compared by the evaluator with each signal's
 * last observed value); reported fields are compared item by item with `previous.reported`.
 * Evidence claims are compared by claim and reference together. Pure.
 */
export function diffCheckpoint(previous: CheckpointRecord | null, current: CheckpointRecord): CheckpointDiff {
  const before = previous?.reported ?? { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] };
  const signals = current.signals.map((s) => ({ ...s }));
  return {
    index: current.index,
    iteration: current.iteration,
    signals,
    regressions: signals.filter((s) => s.move === 'regressed').map((s) => s.signal),
    missing: signals.filter((s) => s.move === 'missing').map((s) => s.signal),
    reported: {
      new_evidence: setDiff(before.new_evidence, current.reported.new_evidence, claimKey),
      eliminated_hypotheses: setDiff(before.eliminated_hypotheses, current.reported.eliminated_hypotheses, same),
      remaining_hypotheses: setDiff(before.remaining_hypotheses, current.reported.remaining_hypotheses, same),
    },
    evidence: current.evidence.map((e) => ({ ...e })),
    status: current.status,
    verdict: current.stagnation_detected ? `${current.status} + STAGNATION_DETECTED` : current.status,
    observed_progress: current.observed_progress,
    claimed_progress: current.claimed_progress,
    counter: current.counter,
    threshold: current.threshold,
    stagnation_detected: current.stagnation_detected,
  };
}

// ---------------------------------------------------------------------------------------
// Checkpoint files

const nonEmpty = z.string().min(1);
const strings = z.array(z.string()).default([]);

const reportedSchema = z.object({
  new_evidence: z.array(z.object({ claim: nonEmpty, evidence_ref: nonEmpty })).default([]),
  eliminated_hypotheses: strings,
  remaining_hypotheses: strings,
} satisfies Record<ReportedField, z.ZodType>);

/**
 * The shape of a checkpoint JSON file: `iteration`, `observed` (metric → number, or `null`
 * for missing), optional `tests` and `observer_errors`, and `reported` (each field defaults
 * to empty). Other keys (e.g. the evaluation of a recorded checkpoint) are ignored.
 */
export const CHECKPOINT_INPUT_SCHEMA = z.object({
  iteration: z.int().nonnegative(),
  observed: z.record(z.string(), z.number().nullable()),
  tests: z.array(z.object({ name: z.string(), ok: z.boolean() })).optional(),
  reported: reportedSchema.prefault({}),
  observer_errors: z.array(z.string()).optional(),
});

/**
 * Reads one checkpoint JSON file and checks its shape.
 * @throws ConfigErrors naming the file, the path inside it and `line:column` when the file
 *   cannot be read, is not JSON, or does not have the shape of {@link CHECKPOINT_INPUT_SCHEMA}
 */
export function loadCheckpointFile(file: string): CheckpointInput {
  const source = readBoundedText(file, MAX_YAML_BYTES);
  try {
    JSON.parse(source);
  } catch (error) {
    throw new ConfigErrors([new ConfigError(file, '', `expected JSON, found text it cannot read (${(error as Error).message})`)]);
  }
  return parseYamlWith(CHECKPOINT_INPUT_SCHEMA, source, file);
}
