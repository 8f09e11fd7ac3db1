import { checkConstraints, describeFinding, hasChecks } from '../constraints.js';
import { afterDetection, type Step } from '../decide.js';
import type { RunContext } from './context.js';

/**
 * The constraint checks of the checkpoint of `iteration` (docs/design.md, "Goals"): every
 * `protect` and `command` check of `goal.constraints` runs; a violation is
 * `constraint.violated` (the fold tells the agent which constraint it broke), a check that
 * could not be evaluated is `constraint.unchecked`. They are recorded before the
 * checkpoint's `checkpoint.recorded`, so a recorded checkpoint holds its findings (a log cut
 * among them checks again and records only what is missing). Plain-text constraints cost
 * nothing.
 * @returns what `goal.on_violation` decides (`pause` by default) once the checkpoint is recorded, `null` for nothing
 */
export async function checkConstraintsAt(ctx: RunContext, iteration: number): Promise<Step | null> {
  const { policy, workspace } = ctx.options;
  if (!hasChecks(policy.goal.constraints)) return null;
  const action = policy.goal.on_violation ?? 'pause';
  // The snapshot taken on entering REFLECTING after this very step is the tree to compare.
  const fresh = ctx.memory.lastSnapshotStep === ctx.state.step ? ctx.memory.lastSnapshot?.tree : undefined;
  const findings = await checkConstraints(policy.goal.constraints, workspace, ctx.state.protectBaseline ?? undefined, {
    signal: ctx.signal,
    ...(fresh ? { current: fresh } : {}),
  });
  const recorded = new Set(ctx.state.constraintFindings.filter((f) => f.iteration === iteration).map((f) => f.index));
  const lines: string[] = [];
  for (const f of findings) {
    if (f.outcome === 'violated') lines.push(describeFinding(f));
    if (recorded.has(f.index)) continue;
    if (f.outcome === 'violated') {
      const { outcome: _outcome, ...data } = f;
      ctx.emit('constraint.violated', { iteration, ...data, action });
    } else if (f.outcome === 'error') {
      ctx.emit('constraint.unchecked', { iteration, index: f.index, text: f.text, check: f.check, error: f.error });
    }
  }
  return lines.length === 0 ? null : afterDetection('constraint', action, lines.join('; '));
}
