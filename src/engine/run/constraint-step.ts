import { checkConstraints, describeFinding, hasChecks } from '../constraints.js';
import { afterDetection } from '../decide.js';
import type { RunContext } from './context.js';
import type { Done, Gen } from './types.js';

/**
 * The constraint checks of the checkpoint of `iteration` (docs/design.md, "Goals"): every
 * `protect` and `command` check of `goal.constraints` runs; a violation is
 * `constraint.violated` (the fold tells the agent which constraint it broke), a check that
 * could not be evaluated is `constraint.unchecked`; then `goal.on_violation` is performed
 * (`pause` by default). Plain-text constraints cost nothing.
 * @returns the outcome when the violation ended the run
 */
export async function* constraintStep(ctx: RunContext, iteration: number): Gen<Done> {
  const { policy, workspace } = ctx.options;
  if (!hasChecks(policy.goal.constraints)) return undefined;
  const action = policy.goal.on_violation ?? 'pause';
  // The snapshot taken on entering REFLECTING after this very step is the tree to compare.
  const fresh = ctx.memory.lastSnapshotStep === ctx.state.step ? ctx.memory.lastSnapshot?.tree : undefined;
  const findings = await checkConstraints(policy.goal.constraints, workspace, ctx.state.protectBaseline ?? undefined, {
    signal: ctx.signal,
    ...(fresh ? { current: fresh } : {}),
  });
  const lines: string[] = [];
  for (const f of findings) {
    if (f.outcome === 'violated') {
      const { outcome: _outcome, ...data } = f;
      ctx.emit('constraint.violated', { iteration, ...data, action });
      lines.push(describeFinding(f));
    } else if (f.outcome === 'error') {
      ctx.emit('constraint.unchecked', { iteration, index: f.index, text: f.text, check: f.check, error: f.error });
    }
  }
  ctx.options.sync?.();
  if (lines.length === 0) return undefined;
  const next = afterDetection('constraint', action, lines.join('; '));
  return next ? yield* ctx.perform(next) : undefined;
}
