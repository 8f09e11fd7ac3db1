/**
 * One line a person can read saying which rule produced a checkpoint's verdict
 * (docs/design.md, "Checkpoints and stagnation"): the baseline rule, the signal that moved
 * the declared way, or why none did, and where the stagnation counter stands.
 */
import type { CheckpointRecord, SignalDiff } from './types.js';
import { counted } from '../text/count.js';

/** How one signal moved, e.g. `observed.failing_target_tests 3 → 2 (decrease wanted)`. */
function describeMove(diff: SignalDiff): string {
  const wanted = `${diff.direction} wanted`;
  switch (diff.move) {
    case 'wanted':
      return `${diff.signal} ${diff.before} → ${diff.after} (${wanted})`;
    case 'regressed':
      // Over frozen target tests a count can stay put while a target test broke or was lost.
      if (diff.before === diff.after) return `${diff.signal} stayed at ${diff.after} but a target test broke or was lost (a regression)`;
      return `${diff.signal} ${diff.before} → ${diff.after}, the wrong way (${wanted})`;
    case 'flat':
      return `${diff.signal} stayed at ${diff.after}`;
    case 'missing':
      return `${diff.signal} not measured`;
    case 'baseline':
      return `${diff.signal} first measured at ${diff.after}`;
  }
}

/** The signals that moved `move`, described and joined. */
function movedBy(record: CheckpointRecord, move: SignalDiff['move']): string {
  return record.signals.filter((s) => s.move === move).map(describeMove).join(', ');
}

/** Claims the agent made by the baseline checkpoint (all reported fields). */
function baselineClaims(record: CheckpointRecord): number {
  const r = record.reported;
  return r ? r.new_evidence.length + r.eliminated_hypotheses.length + r.remaining_hypotheses.length : 0;
}

/**
 * The rule behind `record.status` in one line, e.g.
 * `no observed progress: observed.failing_target_tests stayed at 3; counter 2/2 reached the threshold: STAGNATION_DETECTED; claims never reset the counter`.
 * Where the sources disagree it names the decision (docs/design.md, "When the sources
 * disagree"): a missing signal beside one that moved the wanted way, a regression beside
 * one that improved, claims at the baseline. A `BASELINE` after checkpoints that measured
 * nothing (`UNKNOWN`) is the first measured checkpoint, and says so, not the first one.
 */
export function explainCheckpoint(record: CheckpointRecord): string {
  const counter = `counter ${record.counter}/${record.threshold}`;
  const stagnation = record.stagnation_detected ? ` reached the threshold: STAGNATION_DETECTED` : '';
  const claims = record.claimed_progress && record.status !== 'BASELINE' ? '; claims never reset the counter' : '';
  const moves = record.signals.map(describeMove);
  const listed = moves.length > 0 ? moves.join(', ') : 'no observed signal is declared';
  switch (record.status) {
    case 'BASELINE': {
      const n = baselineClaims(record);
      const starting = n > 0 ? `, and its ${counted(n, 'claim')} ${n === 1 ? 'is' : 'are'} the starting point, not progress` : '';
      const first = record.baseline
        ? 'taken at the run start, before the first turn: what the next checkpoint is compared with'
        : record.index > 0
          ? `the first measured checkpoint: ${record.index === 1 ? 'the checkpoint' : `the ${record.index}`} before it measured nothing, so no measured value came before to compare with`
          : 'the first checkpoint has nothing to compare';
      return `baseline rule: ${first}${starting} (${listed}); ${counter}`;
    }
    case 'PROGRESS_OBSERVED': {
      const missing = movedBy(record, 'missing');
      const unknown = missing ? `; ${missing} (unknown: counts neither way)` : '';
      return `observed progress rule: ${movedBy(record, 'wanted')} moved the declared way${unknown}; ${counter} (reset)`;
    }
    case 'NO_OBSERVED_PROGRESS': {
      const improved = movedBy(record, 'wanted');
      const regressed = movedBy(record, 'regressed');
      if (improved && regressed) {
        return `mixed, a regression cancels progress: ${improved} moved the declared way but ${regressed}; ${counter}${stagnation}${claims}`;
      }
      return `no observed progress: ${listed}; ${counter}${stagnation}${claims}`;
    }
    case 'UNKNOWN':
      return `unknown rule: no tracked signal could be measured (${record.unknown_why ?? listed}); ${counter} (kept: unknown is not "no progress")`;
    default:
      return `${String(record.status)}: ${listed}; ${counter}${stagnation}${claims}`;
  }
}
