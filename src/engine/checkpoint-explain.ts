/**
 * One line a person can read saying which rule produced a checkpoint's verdict
 * (docs/design.md, "Checkpoints and stagnation"): the baseline rule, the signal that moved
 * the declared way, or why none did, and where the stagnation counter stands.
 */
import type { CheckpointRecord, SignalDiff } from './types.js';

/** How one signal moved, e.g. `observed.failing_target_tests 3 → 2 (decrease wanted)`. */
function describeMove(diff: SignalDiff): string {
  const wanted = `${diff.direction} wanted`;
  switch (diff.move) {
    case 'wanted':
      return `${diff.signal} ${diff.before} → ${diff.after} (${wanted})`;
    case 'regressed':
      return `${diff.signal} ${diff.before} → ${diff.after}, the wrong way (${wanted})`;
    case 'flat':
      return `${diff.signal} stayed at ${diff.after}`;
    case 'missing':
      return `${diff.signal} not measured`;
    case 'baseline':
      return `${diff.signal} first measured at ${diff.after}`;
  }
}

/**
 * The rule behind `record.status` in one line, e.g.
 * `no observed progress: observed.failing_target_tests stayed at 3; counter 2/2 reached the threshold: STAGNATION_DETECTED; claims never reset the counter`.
 */
export function explainCheckpoint(record: CheckpointRecord): string {
  const counter = `counter ${record.counter}/${record.threshold}`;
  const stagnation = record.stagnation_detected ? ` reached the threshold: STAGNATION_DETECTED` : '';
  const claims = record.claimed_progress && record.status !== 'BASELINE' ? '; claims never reset the counter' : '';
  const moves = record.signals.map(describeMove);
  const listed = moves.length > 0 ? moves.join(', ') : 'no observed signal is declared';
  switch (record.status) {
    case 'BASELINE':
      return `baseline rule: the first checkpoint has nothing to compare (${listed}); ${counter}`;
    case 'PROGRESS_OBSERVED': {
      const moved = record.signals.filter((s) => s.move === 'wanted').map(describeMove).join(', ');
      return `observed progress rule: ${moved} moved the declared way; ${counter} (reset)`;
    }
    case 'NO_OBSERVED_PROGRESS':
      return `no observed progress: ${listed}; ${counter}${stagnation}${claims}`;
    case 'UNKNOWN':
      return `unknown rule: no tracked signal could be measured (${record.unknown_why ?? listed}); ${counter} (kept: unknown is not "no progress")`;
    default:
      return `${String(record.status)}: ${listed}; ${counter}${stagnation}${claims}`;
  }
}
