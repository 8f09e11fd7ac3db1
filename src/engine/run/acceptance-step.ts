import { deriveRows, hasCheckable, measureCriteria, notDone, writeAcceptanceFile, type AcceptanceRow } from '../acceptance.js';
import { unmeasuredSignals } from '../checkpoint-unknown.js';
import { describeError } from '../errors.js';
import type { EventDataMap } from '../events.js';
import { observe, type Observation } from '../observe.js';
import { verdictMetrics } from '../target-tests.js';
import type { CheckpointInput, ReportedClaimsView } from '../types.js';
import type { RunContext } from './context.js';

type Ctx = Pick<RunContext, 'state' | 'options' | 'signal' | 'emit' | 'hook'>;

/** What one check of the matrix reads: when and why it runs, the observation (if one was taken), the agent's claims. */
export interface AcceptanceCheckInput {
  iteration: number;
  trigger: 'checkpoint' | 'verify';
  /** The observers' measurement at this checkpoint or verdict; without it, the observers the signals need are run ({@link observeForVerdict}). */
  observation?: Observation;
  report: ReportedClaimsView;
}

/**
 * Checks every criterion of the acceptance matrix (docs/design.md, "The acceptance
 * matrix"): command checks run in the workspace, signal checks read the observers'
 * measurement; the statuses are derived by the harness (acceptance.ts) and recorded as
 * `acceptance.checked`, then `acceptance.json` is written. A matrix without a check records
 * nothing; its file is still written at a checkpoint (rows "not checkable", claims as reported).
 * @returns the rows as checked, or `null` when nothing is checkable
 */
export async function checkAcceptance(ctx: Ctx, input: AcceptanceCheckInput): Promise<AcceptanceRow[] | null> {
  const { criteria } = ctx.state.acceptance;
  if (!hasCheckable(criteria)) {
    if (input.trigger === 'checkpoint' && criteria.length > 0) await writeMatrix(ctx, input);
    return null;
  }
  const observation = input.observation ?? (await observeForVerdict(ctx));
  const signals = criteria.flatMap((c) => (c.check && 'signal' in c.check ? [c.check.signal] : []));
  // Test counts are read over the frozen target sets, as a checkpoint's signals are: deleting a failing test meets no criterion.
  const read = observation ? verdictMetrics(ctx.state.evaluator.targets, observationInput(observation)) : null;
  const unmeasured = observation && read ? { ...unmeasuredSignals(signals, ctx.options.policy.observe, observation), ...read.unmeasured } : {};
  const measurements = await measureCriteria(criteria, {
    workspace: ctx.options.workspace,
    ...(read ? { metrics: read.metrics } : {}),
    unmeasured,
    signal: ctx.signal,
  });
  const rows = deriveRows(criteria, measurements, ctx.state.acceptance.rows, ctx.state.acceptance.history, input.report);
  ctx.emit('acceptance.checked', { iteration: input.iteration, trigger: input.trigger, rows });
  ctx.options.sync?.();
  await writeMatrix(ctx, input);
  return rows;
}

/**
 * At a verdict: one observation by the observers it reads, those whose metrics a signal
 * check of the matrix reads and those whose target tests are frozen (`undefined` when it
 * reads none).
 */
export async function observeForVerdict(ctx: Ctx): Promise<Observation | undefined> {
  const names = new Set(ctx.state.acceptance.criteria.flatMap((c) => (c.check && 'signal' in c.check ? [c.check.signal.split('.')[1]!] : [])));
  for (const set of ctx.state.evaluator.targets) names.add(set.observer);
  const observers = ctx.options.policy.observe.filter((o) => names.has(o.name));
  if (observers.length === 0) return undefined;
  return await observe(observers, ctx.options.workspace);
}

/** What an observation gives the target-test functions: its metrics and the tests it named. */
export function observationInput(observation: Observation): Pick<CheckpointInput, 'observed' | 'tests' | 'skipped_tests'> {
  return { observed: observation.metrics, tests: observation.tests, skipped_tests: observation.skipped };
}

/** Writes `acceptance.json` from the folded matrix; a failed write is told to `on_error` (the run goes on). */
async function writeMatrix(ctx: Ctx, input: AcceptanceCheckInput): Promise<void> {
  const runDir = ctx.options.runDir;
  if (!runDir) return;
  const rows = ctx.state.acceptance.rows;
  try {
    await writeAcceptanceFile(runDir, {
      session: ctx.options.id,
      iteration: input.iteration,
      trigger: input.trigger,
      revision: ctx.state.goal?.revision ?? 0,
      met: notDone(rows).length === 0,
      rows,
    });
  } catch (error) {
    await ctx.hook('on_error', { source: 'acceptance.json', error: describeError(error) });
  }
}

/**
 * The acceptance part of a verdict: the matrix checked now, and whether every checkable
 * row is `DONE`, with the rows that are not. `undefined` when nothing is checkable (the
 * verify commands alone decide, as before the matrix existed).
 */
export async function acceptanceVerdict(ctx: Ctx, observation: Observation | undefined): Promise<EventDataMap['verify.result']['acceptance']> {
  const rows = await checkAcceptance(ctx, { iteration: ctx.state.turn, trigger: 'verify', report: ctx.state.reportSinceCheckpoint, ...(observation ? { observation } : {}) });
  if (!rows) return undefined;
  const open = notDone(rows).map((r) => ({ index: r.index, text: r.text, status: r.status, ...(r.why !== undefined ? { why: r.why } : {}) }));
  return { met: open.length === 0, not_done: open };
}
