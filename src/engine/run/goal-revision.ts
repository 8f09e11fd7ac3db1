import { hasCheckable } from '../acceptance.js';
import { reviseCriteria, unknownSignal } from '../criteria-command.js';
import { describeError, SessionStateError, UsageError } from '../errors.js';
import type { GoalRevision } from '../events.js';
import { fallbackReconciliation, reviseGoal, type GoalDirective } from '../goal.js';
import type { RunContext } from './context.js';

/**
 * Records a goal revision with the agent's reconciliation (or a plain fallback when the
 * agent gives none, a malformed one, or fails); the next agent turn sees the revised goal.
 * A revision that changes the success criteria records the new acceptance matrix with it
 * (criteria-command.ts): the operator's revisions are the only way it changes.
 * @throws SessionStateError when no run is live
 * @throws UsageError when the typed criteria cannot be read or a signal names no observer's metric (nothing is recorded)
 */
export async function recordRevision(ctx: Pick<RunContext, 'state' | 'agent' | 'agentContext' | 'emit' | 'options'>, directive: GoalDirective, text: string): Promise<void> {
  const goal = ctx.state.goal;
  if (!goal || ctx.state.done) throw new SessionStateError('the goal can only be revised during a run', ctx.state.machine.state);
  const matrix = reviseCriteria(ctx.state.acceptance.criteria, directive, text);
  if (!matrix.ok) throw new UsageError(matrix.message);
  const unknown = unknownSignal(matrix.criteria, ctx.options.policy.observe);
  if (unknown) throw new UsageError(unknown);
  const next = reviseGoal(goal, directive, text);
  let reconciliation = fallbackReconciliation(directive);
  if (ctx.agent.reconcile) {
    try {
      const answer = await ctx.agent.reconcile({ ...ctx.agentContext(), goal: next, previous: goal, directive, text });
      reconciliation = validReconciliation(answer) ?? { ...reconciliation, still_valid: 'the agent gave no usable reconciliation' };
    } catch (error) {
      reconciliation = { ...reconciliation, still_valid: `the agent could not reconcile: ${describeError(error)}` };
    }
  }
  ctx.emit('goal.revised', { revision: { directive, text, reconciliation }, goal: next, ...(hasCheckable(matrix.criteria) ? { acceptance: matrix.criteria } : {}) });
}

/** The agent's reconciliation when it has every field with the right type, else `null`. */
function validReconciliation(value: unknown): GoalRevision['reconciliation'] | null {
  if (value === null || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  const text = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : null);
  const still = text('still_valid');
  const discard = text('discard');
  const work = text('new_work');
  if (still === null || discard === null || work === null || typeof v.full_restart !== 'boolean') return null;
  return { still_valid: still, discard, new_work: work, full_restart: v.full_restart };
}
