/**
 * Checkpoints where nothing tracked could be measured (docs/design.md, "Checkpoints and
 * stagnation"). A missing metric is unknown, never "no progress": a checkpoint whose tracked
 * signals are all missing is `UNKNOWN`, keeps the stagnation counter where it was, and two
 * in a row raise an alert of their own (`stagnation.on_unknown`).
 */
import { metricNames } from './parsers/index.js';
import type { ObserverSpec, Observation } from './observe.js';
import type { Step } from './decide.js';
import type { CheckpointInput, CheckpointRecord, SignalDiff } from './types.js';
import { counted } from '../text/count.js';

/** `UNKNOWN` checkpoints in a row at which `stagnation.on_unknown` is performed. */
export const UNKNOWN_ALERT_IN_ROW = 2;

/**
 * True when no tracked signal has a value at this checkpoint, also when none is tracked
 * (no observer, or no `progress.observed`): nothing measured is not "no progress".
 */
export function nothingMeasured(signals: readonly SignalDiff[]): boolean {
  return signals.every((s) => s.move === 'missing');
}

/**
 * The `UNKNOWN` record of a checkpoint whose tracked signals are all missing: the counter,
 * `observed_progress` (`null`: not known) and stagnation stay as they were; `unknown_why`
 * names each signal and why it has no value.
 * @param measured the record the ordinary rules would give (its counter is ignored)
 * @param counter the counter before this checkpoint
 * @param inRow `UNKNOWN` checkpoints in a row before this one (a baseline's `UNKNOWN` is not counted in the row)
 */
export function unknownRecord(measured: CheckpointRecord, input: CheckpointInput, counter: number, inRow: number): CheckpointRecord {
  return {
    ...measured,
    status: 'UNKNOWN',
    observed_progress: null,
    counter,
    stagnation_detected: false,
    unknown_why: whyUnmeasured(measured.signals, input),
    // The baseline is the reference, not an interval that measured nothing: it does not start the row.
    ...(input.baseline ? {} : { unknown_in_row: inRow + 1 }),
  };
}

/** `observed.tests.failing: <why>; observed.x: <why>`, from `input.unmeasured` or a default. */
export function whyUnmeasured(signals: readonly SignalDiff[], input: CheckpointInput): string {
  if (signals.length === 0) return 'nothing is tracked: no `observe` command, or no `progress.observed` signal';
  return signals
    .filter((s) => s.move === 'missing')
    .map((s) => `${s.signal}: ${input.unmeasured?.[s.signal] ?? 'no number was recorded for it'}`)
    .join('; ');
}

/**
 * Why each tracked signal with no value in `observation` was not measured: the error of
 * the observer that gives its metric (not found, timed out, printed nothing readable), or
 * that the observer ran but did not report that metric, or that no observer gives it.
 * @param signals `observed.<metric>` paths
 */
export function unmeasuredSignals(signals: readonly string[], specs: readonly ObserverSpec[], observation: Observation): Record<string, string> {
  const why: Record<string, string> = {};
  for (const signal of signals) {
    const metric = signal.startsWith('observed.') ? signal.slice('observed.'.length) : signal;
    const value = observation.metrics[metric];
    if (typeof value === 'number' && Number.isFinite(value)) continue;
    const spec = specs.find((s) => metricsOf(s).includes(metric)) ?? specs.find((s) => metric.startsWith(`${s.name}.`));
    if (!spec) {
      why[signal] = 'no observer gives this metric';
      continue;
    }
    const error = observation.failures?.[spec.name];
    why[signal] = error !== undefined ? `observer "${spec.name}" (${spec.command}): ${error}` : `observer "${spec.name}" (${spec.command}) ran but did not report "${metric}"`;
  }
  return why;
}

function metricsOf(spec: ObserverSpec): string[] {
  try {
    return metricNames(spec.parser, { prefix: spec.name, ...(spec.pattern !== undefined ? { pattern: spec.pattern } : {}) });
  } catch {
    // A bad pattern gives no metric names (the observer reports the error itself): matched by prefix instead.
    return [];
  }
}

/**
 * What follows an `UNKNOWN` checkpoint under `stagnation.on_unknown`: `null` while fewer
 * than {@link UNKNOWN_ALERT_IN_ROW} were in a row (nothing is raised); otherwise the alert
 * is raised and `step` is what to perform: none for `alert`, a pause (answered like a
 * stagnation pause: continue, redirect, stop) for `pause`, and for `stop` the end `stopped`.
 * Unlike stagnation, `stop` never aborts: nothing says the work is wrong, only unmeasured.
 */
export function afterUnknown(record: CheckpointRecord, action: 'alert' | 'pause' | 'stop'): { step: Step | null } | null {
  const inRow = record.unknown_in_row ?? 0;
  if (record.status !== 'UNKNOWN' || inRow < UNKNOWN_ALERT_IN_ROW) return null;
  const summary = `UNKNOWN: ${counted(inRow, 'checkpoint')} in a row measured none of the tracked signals (${record.unknown_why ?? 'not measured'})`;
  if (action === 'alert') return { step: null };
  if (action === 'stop') return { step: { kind: 'finish', finish: { reason: 'stopped', summary } } };
  return { step: { kind: 'pause', reason: { kind: 'stagnation' }, prompt: `${summary}. Fix the observers and continue, redirect the goal (/goal redirect <text>), or stop?` } };
}
