import { nothingMeasured, unknownRecord } from './checkpoint-unknown.js';
import type {
  CheckpointInput,
  CheckpointRecord,
  EvidenceCheck,
  ReportedClaims,
  SignalDiff,
  TestOutcome,
} from './types.js';
import { advanceTargets, measureTargets, targetSignal, type TargetState } from './target-tests.js';

/** Field names of `reported` that a policy may track as claims. */
export const REPORTED_FIELDS = ['new_evidence', 'eliminated_hypotheses', 'remaining_hypotheses'] as const;
export type ReportedField = (typeof REPORTED_FIELDS)[number];

/** One observed signal and the direction in which it counts as progress. */
export interface ObservedSignal {
  /** `observed.<metric>`, e.g. `observed.tests.failing`. */
  signal: string;
  direction: 'increase' | 'decrease';
}

/** What counts as progress, and when no progress becomes stagnation. */
export interface ProgressPolicy {
  observed: ObservedSignal[];
  /** Tracked reported fields; any non-empty one makes `claimed_progress` true. */
  reported: ReportedField[];
  /** Checkpoints without observed progress at which STAGNATION_DETECTED is raised. */
  threshold: number;
}

/** What the evaluator carries from one checkpoint to the next. */
export interface EvaluatorState {
  /** Checkpoints evaluated so far. */
  count: number;
  counter: number;
  /** Last observed (non-missing) value of each signal. */
  last: Record<string, number>;
  /** Frozen target tests per observer (`src/engine/target-tests.ts`); kept across observer changes. */
  targets: TargetState[];
  /** `UNKNOWN` checkpoints in a row just before the next one (absent: 0). */
  unknownInRow?: number;
}

export const INITIAL_EVALUATOR: EvaluatorState = { count: 0, counter: 0, last: {}, targets: [] };

/** The metric name of an `observed.*` signal path. */
export function metricOf(signal: string): string {
  return signal.startsWith('observed.') ? signal.slice('observed.'.length) : signal;
}

/** Reads a metric; anything that is not a finite number is *missing* (`null`), never 0. */
function readMetric(input: CheckpointInput, signal: string): number | null {
  const value = input.observed[metricOf(signal)];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function compare(signal: ObservedSignal, before: number | undefined, after: number | null, baseline: boolean): SignalDiff {
  const base = { signal: signal.signal, direction: signal.direction, before: before ?? null, after };
  if (after === null) return { ...base, move: 'missing' };
  if (baseline || before === undefined) return { ...base, move: 'baseline' };
  if (after === before) return { ...base, move: 'flat' };
  const wanted = signal.direction === 'increase' ? after > before : after < before;
  return { ...base, move: wanted ? 'wanted' : 'regressed' };
}

/**
 * Marks each evidence claim by what the harness saw: `found_passing` or `found_failing`
 * when a test of that exact name was observed, else `not_found`.
 */
export function checkEvidence(reported: ReportedClaims, tests: readonly TestOutcome[] | undefined): EvidenceCheck[] {
  const byName = new Map((tests ?? []).map((t) => [t.name, t.ok]));
  return reported.new_evidence.map((claim) => {
    const ok = byName.get(claim.evidence_ref);
    const status = ok === undefined ? 'not_found' : ok ? 'found_passing' : 'found_failing';
    return { ...claim, status };
  });
}

/**
 * Evaluates one checkpoint against the previous ones (docs/design.md, "Checkpoints and stagnation").
 *
 * - The first checkpoint is `BASELINE` with counter 0. In a run it is the baseline taken
 *   when the run starts (`input.baseline`, iteration 0), so the first interval checkpoint
 *   is compared with the workspace as it was before the agent's first turn.
 * - Each observed signal is compared with its last observed value; a move in the declared
 *   direction makes `PROGRESS_OBSERVED` and resets the counter, unless another signal
 *   moved the wrong way (a regression cancels progress); otherwise `NO_OBSERVED_PROGRESS`
 *   increments it. A missing metric counts neither way: another signal's move decides.
 * - When an observer names its tests, its `failing`/`passing`/`total` signals are read over
 *   the target set frozen at its first such checkpoint (`target-tests.ts`): added tests do
 *   not count, and a target test lost or broken marks the signal regressed.
 * - When every tracked signal is missing the checkpoint is `UNKNOWN`: the counter neither
 *   resets nor advances, and the baseline waits for the first checkpoint that measures one.
 *   A baseline that measured nothing is `UNKNOWN` too, but does not count in the row of
 *   `UNKNOWN` checkpoints that raises `checkpoint.unknown`.
 * - `claimed_progress` (a tracked reported field is non-empty) never touches the counter;
 *   it is false at the baseline, whose claims are the starting point (nothing to compare).
 * - `stagnation_detected` when the counter is at or above the threshold.
 *
 * Pure: returns the record and the next evaluator state.
 */
export function evaluateCheckpoint(
  previous: EvaluatorState,
  input: CheckpointInput,
  policy: ProgressPolicy,
): { record: CheckpointRecord; state: EvaluatorState } {
  const tracked = policy.observed.map((s) => s.signal);
  const baseline = previous.count === 0 || (tracked.length > 0 && tracked.every((signal) => previous.last[signal] === undefined));
  const last = { ...previous.last };
  const targets = measureTargets(previous.targets, input, previous.count);
  const signals = policy.observed.map((signal) => {
    const target = targetSignal(targets, metricOf(signal.signal));
    const after = target ? target.value : readMetric(input, signal.signal);
    const diff = compare(signal, previous.last[signal.signal], after, baseline);
    if (after !== null) last[signal.signal] = after;
    const lost = target?.regressed === true && (diff.move === 'wanted' || diff.move === 'flat');
    return lost ? { ...diff, move: 'regressed' as const } : diff;
  });
  // Sources that disagree (docs/design.md, "When the sources disagree"): a regression cancels progress.
  const observedProgress = baseline ? null : signals.some((s) => s.move === 'wanted') && !signals.some((s) => s.move === 'regressed');
  const counter = baseline || observedProgress ? 0 : previous.counter + 1;
  const record: CheckpointRecord = {
    ...input,
    index: previous.count,
    status: baseline ? 'BASELINE' : observedProgress ? 'PROGRESS_OBSERVED' : 'NO_OBSERVED_PROGRESS',
    observed_progress: observedProgress,
    claimed_progress: !baseline && policy.reported.some((field) => input.reported[field].length > 0),
    counter,
    threshold: policy.threshold,
    stagnation_detected: counter >= policy.threshold,
    signals,
    evidence: checkEvidence(input.reported, input.tests),
    ...(targets.length > 0 ? { target_tests: targets } : {}),
  };
  if (nothingMeasured(signals)) {
    const unknown = unknownRecord(record, input, previous.counter, previous.unknownInRow ?? 0);
    const state = { count: previous.count + 1, counter: previous.counter, last, targets: advanceTargets(previous.targets, unknown), unknownInRow: unknown.unknown_in_row ?? 0 };
    return { record: unknown, state };
  }
  return { record, state: { count: previous.count + 1, counter, last, targets: advanceTargets(previous.targets, record) } };
}

/** Evaluates a sequence of checkpoints in order. */
export function evaluateAll(inputs: readonly CheckpointInput[], policy: ProgressPolicy): CheckpointRecord[] {
  let state = INITIAL_EVALUATOR;
  return inputs.map((input) => {
    const { record, state: next } = evaluateCheckpoint(state, input, policy);
    state = next;
    return record;
  });
}
