import { evaluateCheckpoint, type ProgressPolicy } from '../checkpoint.js';
import type { CheckpointRecord } from '../types.js';
import { afterUnknown, unmeasuredSignals } from '../checkpoint-unknown.js';
import { afterDetection } from '../decide.js';
import { describeError } from '../errors.js';
import { gitSnapshot, isGitWorkTree } from '../git-progress.js';
import { observe } from '../observe.js';
import { constraintStep } from './constraint-step.js';
import type { RunContext } from './context.js';
import type { Done, Gen } from './types.js';

/**
 * The checkpoint of `iteration`: the observers run, the evaluator compares with the last
 * checkpoint (`checkpoint.recorded`, flushed), and at the stagnation threshold
 * `stagnation.detected` with `stagnation.on_detect` performed.
 * @returns the outcome when the detection ended the run
 */
export async function* checkpointStep(ctx: RunContext, iteration: number): Gen<Done> {
  const { policy } = ctx.options;
  const record = await recordCheckpoint(ctx, iteration);
  const broke = yield* constraintStep(ctx, iteration);
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
 * The checkpoint of `iteration`, without what follows it: the observers run, the evaluator
 * compares with the last checkpoint, and `checkpoint.recorded` is appended and flushed.
 * @returns the record
 */
export async function recordCheckpoint(ctx: Pick<RunContext, 'options' | 'state' | 'emit'>, iteration: number): Promise<CheckpointRecord> {
  const { policy, workspace } = ctx.options;
  const observation = await observe(policy.observe, workspace);
  const progress: ProgressPolicy = {
    observed: policy.progress.observed,
    reported: policy.progress.reported.track,
    threshold: policy.stagnation.checkpoints_without_observed_progress,
  };
  const { record } = evaluateCheckpoint(
    ctx.state.evaluator,
    {
      iteration,
      observed: observation.metrics,
      tests: observation.tests,
      ...(observation.skipped.length > 0 ? { skipped_tests: observation.skipped } : {}),
      reported: ctx.state.reportSinceCheckpoint,
      ...(observation.errors.length > 0 ? { observer_errors: observation.errors } : {}),
      unmeasured: unmeasuredSignals(progress.observed.map((s) => s.signal), policy.observe, observation),
    },
    progress,
  );
  ctx.emit('checkpoint.recorded', { checkpoint: record });
  ctx.options.sync?.();
  return record;
}

/**
 * At the stagnation threshold, appends `stagnation.detected` (with `stagnation.on_detect`)
 * and returns the detection's summary; `null` below it.
 */
export function recordStagnation(ctx: Pick<RunContext, 'options' | 'emit'>, record: CheckpointRecord, iteration: number): string | null {
  if (!record.stagnation_detected) return null;
  const action = ctx.options.policy.stagnation.on_detect;
  ctx.emit('stagnation.detected', { counter: record.counter, threshold: record.threshold, iteration, action });
  return `STAGNATION_DETECTED: ${record.counter}/${record.threshold} checkpoints without observed progress`;
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
