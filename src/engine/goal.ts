import { criterionText, type CriterionSpec } from './acceptance.js';
import { constraintText, type ConstraintSpec } from './constraints.js';
import { parseRevisionText } from './criteria-command.js';
import { UsageError } from './errors.js';
import type { GoalRevision } from './events.js';
import type { Goal } from './types.js';
import { isBlank } from './blank.js';

/** Subcommands of `/goal`, in the order help lists them. */
export const GOAL_SUBCOMMANDS = ['status', 'add-constraint', 'redirect', 'modify', 'add-criterion'] as const;
export type GoalDirective = GoalRevision['directive'];

/** A parsed `/goal` command line, or why it is not one. */
export type GoalCommand =
  | { kind: 'status' }
  | { kind: 'revise'; directive: GoalDirective; text: string }
  | { kind: 'error'; message: string };

/**
 * A new goal as started: active, no notes, revision 0. Constraints and criteria are kept as
 * their texts; their checks stay in the policy (`goal.constraints`, constraints.ts) and, for
 * criteria, in the acceptance matrix the run freezes at start (acceptance.ts).
 */
export function newGoal(
  objective: string,
  criteria: readonly CriterionSpec[] = [],
  specs: readonly ConstraintSpec[] = [],
  options: { priority?: 'high' | 'normal' | 'low'; sub_goals?: Array<{ objective: string; success_criteria: string[] }> } = {},
): Goal {
  const constraints = specs.map(constraintText);
  const success_criteria = criteria.map(criterionText);
  const sub_goals = (options.sub_goals ?? []).map((g, i) => ({ id: `g${i + 1}`, parent: 'goal', objective: g.objective, success_criteria: g.success_criteria, status: 'active' as const }));
  return {
    objective,
    success_criteria,
    constraints,
    ...(options.priority && options.priority !== 'normal' ? { priority: options.priority } : {}),
    ...(sub_goals.length > 0 ? { sub_goals } : {}),
    status: 'active',
    notes: [],
    revision: 0,
  };
}

/**
 * Parses one command-bar line starting with `/goal`. Subcommands are matched before any
 * free text, so `add-constraint x` never becomes the objective.
 */
export function parseGoalCommand(line: string): GoalCommand {
  const match = /^\/goal(?:\s+(\S+))?(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!match) return { kind: 'error', message: 'expected a command like /goal status' };
  const [, sub, rest = ''] = match;
  const valid = GOAL_SUBCOMMANDS.join(', ');
  if (!sub) return { kind: 'error', message: `/goal needs a subcommand: ${valid}` };
  if (!(GOAL_SUBCOMMANDS as readonly string[]).includes(sub)) {
    return { kind: 'error', message: `unknown /goal subcommand "${sub}"; valid: ${valid}` };
  }
  const text = rest.trim();
  if (sub === 'status') {
    return text ? { kind: 'error', message: '/goal status takes no text' } : { kind: 'status' };
  }
  if (isBlank(text)) return { kind: 'error', message: `/goal ${sub} needs text${text ? ' (only invisible characters were typed)' : ''}, e.g. /goal ${sub} keep the public API` };
  const parsed = parseRevisionText(sub as GoalDirective, text);
  if (!parsed.ok) return { kind: 'error', message: parsed.message };
  return { kind: 'revise', directive: sub as GoalDirective, text };
}

/**
 * Applies one revision (docs/design.md, "Goals"). Pure.
 * - `add-constraint` / `add-criterion` append (a criterion's `--check`/`--signal` goes to the
 *   acceptance matrix, its text here); the objective and status are unchanged.
 * - `redirect` replaces the objective, and the criteria with those typed after it
 *   (`--criterion <text>`, criteria-command.ts) or keeps them when none are; status `revised`.
 * - `modify` replaces the objective and keeps the criteria; status `revised`.
 * @throws UsageError when the text's criteria cannot be read (parseGoalCommand refuses such a line first)
 */
export function reviseGoal(goal: Goal, directive: GoalDirective, text: string): Goal {
  const next: Goal = { ...goal, revision: goal.revision + 1 };
  const parsed = parseRevisionText(directive, text);
  if (!parsed.ok) throw new UsageError(parsed.message);
  switch (directive) {
    case 'add-constraint':
      return { ...next, constraints: [...goal.constraints, text] };
    case 'add-criterion':
      return { ...next, success_criteria: [...goal.success_criteria, parsed.head] };
    case 'redirect': {
      const criteria = parsed.criteria ? parsed.criteria.map((c) => c.text) : goal.success_criteria;
      return { ...next, objective: parsed.head, success_criteria: criteria, status: 'revised' };
    }
    case 'modify':
      return { ...next, objective: text, status: 'revised' };
  }
}

/**
 * The reconciliation used when the agent cannot assess a revision itself: says so
 * plainly, and asks for a full restart only when the objective was replaced.
 */
export function fallbackReconciliation(directive: GoalDirective): GoalRevision['reconciliation'] {
  const replaced = directive === 'redirect';
  return {
    still_valid: 'not assessed by the agent',
    discard: replaced ? 'work aimed only at the previous objective' : 'nothing known',
    new_work: 'the next turn works towards the revised goal',
    full_restart: replaced,
  };
}

/** The goal as the agent reads it: objective, numbered criteria, constraints, last notes. */
export function renderGoalForAgent(goal: Goal): string {
  const lines = [`Objective: ${goal.objective}${goal.priority && goal.priority !== 'normal' ? ` (priority: ${goal.priority})` : ''}`];
  if (goal.success_criteria.length > 0) {
    lines.push('Success criteria (all must be met):', ...goal.success_criteria.map((c, i) => `  ${i + 1}. ${c}`));
  }
  if (goal.constraints.length > 0) {
    lines.push('Constraints (must not be violated):', ...goal.constraints.map((c) => `  - ${c}`));
  }
  if (goal.sub_goals && goal.sub_goals.length > 0) {
    lines.push('Sub-goals (parts of the objective):', ...goal.sub_goals.map((g) => `  ${g.id}. ${g.objective} [${g.status}]`));
  }
  const notes = goal.notes.slice(-3);
  if (notes.length > 0) lines.push('Recent progress notes:', ...notes.map((n) => `  - ${n}`));
  return lines.join('\n');
}

/**
 * The answer to `/goal status`, one line: status, revision, how many criteria and
 * constraints, then the objective last, so that a line cut at the terminal's width cuts
 * the objective (shown in full in the goal panel) and never the counts.
 * E.g. `active · revision 0 · 1 criterion · 2 constraints · Make the greeting friendlier`.
 */
export function goalStatusText(goal: Goal): string {
  const criteria = goal.success_criteria.length;
  const constraints = goal.constraints.length;
  return `${goal.status} · revision ${goal.revision} · ${criteria} ${criteria === 1 ? 'criterion' : 'criteria'} · ${constraints} ${constraints === 1 ? 'constraint' : 'constraints'} · ${goal.objective}`;
}
