import { evaluateCheckpoint, type ProgressPolicy } from '../checkpoint.js';
import type { CheckpointRecord } from '../types.js';
import { afterUnknown, unmeasuredSignals } from '../checkpoint-unknown.js';
import { afterDetection } from '../decide.js';
import { mergeReport } from '../reported.js';
import { describeError, InvariantError } from '../errors.js';
import { gitSnapshot, isGitWorkTree } from '../git-progress.js';
import { observe, type Observation } from '../observe.js';
import { checkAcceptance } from './acceptance-step.js';
import { assessStep, withMemory } from './memory-step.js';
import { checkConstraintsAt } from './constraint-step.js';
import type { RunContext } from './context.js';
import type { Done, Gen } from './types.js';
import { stagnationSummary, type DetectAction } from '../verdicts.js';

/**
 * The checkpoint of `iteration`: the observers run, the evaluator compares with the last
 * checkpoint, the constraints are checked (their findings recorded), the checkpoint is
 * recorded (`checkpoint.recorded`, flushed); then `goal.on_violation`, and at the
 * stagnation threshold `stagnation.detected` with `stagnation.on_detect` performed.
 * @returns the outcome when the detection ended the run
 */
export async function* checkpointStep(ctx: RunContext, iteration: number): Gen<Done> {
  const { policy } = ctx.options;
  let violated: Awaited<ReturnType<typeof checkConstraintsAt>> = null;
  const { record, observation } = await recordCheckpoint(ctx, iteration, async () => {
    violated = await checkConstraintsAt(ctx, iteration);
  });
  await checkAcceptance(ctx, { iteration, trigger: 'checkpoint', observation, report: record.reported });
  await assessStep(ctx, record);
  const broke = violated ? yield* ctx.perform(violated) : undefined;
  if (broke) return broke;
  if (record.status === 'UNKNOWN') {
    const next = afterUnknown(record, policy.stagnation.on_unknown);
    if (!next) return undefined;
    ctx.emit('checkpoint.unknown', { iteration, in_row: record.unknown_in_row ?? 1, why: record.unknown_why ?? '', action: policy.stagnation.on_unknown });
    return next.step ? yield* ctx.perform(next.step) : undefined;
  }
  const summary = recordStagnation(ctx, record, iteration);
  const next = summary ? afterDetection('stagnation', policy.stagnation.on_detect, summary) : null;
  return next ? yield* ctx.perform(next) : undefined;
}

/**
 * The baseline checkpoint (docs/design.md, "Checkpoints and stagnation"), taken once when
 * the run starts: the observers run in the workspace as the agent finds it and
 * `checkpoint.recorded` (`baseline: true`, iteration 0, `BASELINE`, or `UNKNOWN` when
 * nothing tracked could be measured: a missing number is never 0) is appended and
 * flushed. Nothing else a checkpoint does follows it: no constraint check (they compare
 * with the start), no acceptance check, no assessment, no verdict (its counter is 0 and
 * it does not start the `UNKNOWN` row).
 */
export async function baselineStep(ctx: Pick<RunContext, 'options' | 'state' | 'emit'>): Promise<void> {
  await recordCheckpoint(ctx, 0, undefined, true);
}

/**
 * The checkpoint of `iteration`, without what follows it: the observers run, the evaluator
 * compares with the last checkpoint, `beforeRecord` runs (the constraint checks, whose
 * findings precede their checkpoint), and `checkpoint.recorded`, with the execution memory,
 * is appended and flushed. `baseline`: the run's baseline ({@link baselineStep}).
 * @returns the record and the observation it was measured from
 */
export async function recordCheckpoint(
  ctx: Pick<RunContext, 'options' | 'state' | 'emit'>,
  iteration: number,
  beforeRecord?: () => Promise<void>,
  baseline = false,
): Promise<{ record: CheckpointRecord; observation: Observation }> {
  const { policy, workspace } = ctx.options;
  const observation = await observe(policy.observe, workspace);
  const progress: ProgressPolicy = {
    observed: policy.progress.observed,
    reported: policy.progress.reported.track,
    threshold: policy.stagnation.checkpoints_without_observed_progress,
  };
  const { record: measured } = evaluateCheckpoint(
    ctx.state.evaluator,
    {
      iteration,
      ...(baseline ? { baseline: true as const } : {}),
      observed: observation.metrics,
      tests: observation.tests,
      ...(observation.skipped.length > 0 ? { skipped_tests: observation.skipped } : {}),
      // A copy: the record is the checkpoint's own, whatever later folds do.
      reported: mergeReport(ctx.state.reportSinceCheckpoint, {}),
      ...(observation.errors.length > 0 ? { observer_errors: observation.errors } : {}),
      unmeasured: unmeasuredSignals(progress.observed.map((s) => s.signal), policy.observe, observation),
    },
    progress,
  );
  await beforeRecord?.();
  const record = withMemory(ctx.state, measured);
  ctx.emit('checkpoint.recorded', { checkpoint: record });
  ctx.options.sync?.();
  return { record, observation };
}

/**
 * At the stagnation threshold, appends `stagnation.detected` (with `stagnation.on_detect`)
 * and returns the detection's summary; `null` below it.
 */
export function recordStagnation(ctx: Pick<RunContext, 'options' | 'emit'>, record: CheckpointRecord, iteration: number): string | null {
  if (!record.stagnation_detected) return null;
  const action = ctx.options.policy.stagnation.on_detect;
  ctx.emit('stagnation.detected', { counter: record.counter, threshold: record.threshold, iteration, action });
  return stagnationSummary(record.counter, record.threshold);
}

/**
 * The detection event of the last checkpoint's verdict, when a crash cut the log between
 * `checkpoint.recorded` and it (docs/design.md, "Resume points"): `stagnation.detected` or
 * `checkpoint.unknown` as the live run records them, with `action`. What follows it (the
 * pause or the end) is decided next from the fold.
 */
export function recordVerdict(ctx: Pick<RunContext, 'state' | 'emit'>, verdict: 'stagnation' | 'unknown', action: DetectAction): void {
  const record = ctx.state.checkpoints[ctx.state.checkpoints.length - 1];
  if (!record) throw new InvariantError(`a ${verdict} verdict without a recorded checkpoint`);
  const iteration = record.iteration;
  if (verdict === 'stagnation') ctx.emit('stagnation.detected', { counter: record.counter, threshold: record.threshold, iteration, action });
  else ctx.emit('checkpoint.unknown', { iteration, in_row: record.unknown_in_row ?? 1, why: record.unknown_why ?? '', action });
}

/**
 * Records the workspace's git state once per step ("no file changed in N steps"). Outside
 * git this is said once: workspace progress is then unknown, never "none". A failing
 * snapshot is told to `on_error`; the run goes on.
 */
export async function snapshotWorkspace(ctx: Pick<RunContext, 'state' | 'memory' | 'options' | 'emit' | 'hook'>): Promise<void> {
  const memory = ctx.memory;
  if (memory.snapshotStep === ctx.state.step) return;
  memory.snapshotStep = ctx.state.step;
  memory.git ??= await isGitWorkTree(ctx.options.workspace);
  if (!memory.git) {
    if (!memory.sawNonGitSnapshot) ctx.emit('workspace.snapshot', { head: null, tree: null, new_commits: null, git: false });
    memory.sawNonGitSnapshot = true;
    return;
  }
  try {
    const snapshot = await gitSnapshot(ctx.options.workspace, memory.lastSnapshot);
    if (!snapshot) return;
    memory.lastSnapshot = snapshot;
    memory.lastSnapshotStep = ctx.state.step;
    ctx.emit('workspace.snapshot', { head: snapshot.head, tree: snapshot.tree, new_commits: snapshot.new_commits, git: true });
  } catch (error) {
    await ctx.hook('on_error', { source: 'workspace snapshot', error: describeError(error) });
  }
}
