/**
 * A budget pause after the spent limit was raised (`/budget <dim> +N` at the pause): the
 * limit is then above what was used, so the pause no longer says the budget is spent and
 * `e` (raise by the increment and continue) is no longer offered: it would raise again.
 * Derived from the folded state alone, so a live run and a run resumed from its log agree.
 */
import { budgetName, formatBudget } from '../engine/budget-units.js';
import { budgetUsage, type SessionState } from '../engine/fold.js';
import type { BudgetDimension } from '../engine/types.js';

/** What the raise depends on. */
type PauseInput = Pick<SessionState, 'pending' | 'limits' | 'usage' | 'failedTurns' | 'activeMs' | 'activeSince' | 'lastAt'>;

/** The spent dimension of a budget pause whose limit now lies above its use: the limit (`null`: unlimited) and the use in its unit. */
export interface RaisedPause {
  dimension: BudgetDimension;
  /** What the budget counts as used (turns include failed turns; seconds of active time). */
  used: number;
  limit: number | null;
}

/**
 * The budget pause `session` waits at, when the limit of the dimension that paused it is
 * now above that dimension's use (or lifted); `null` for any other pause, no pause, or a
 * limit still spent. The clock stands still at a pause, so the wall clock's use is the
 * active time recorded (read as of the last event, never the current time).
 */
export function raisedPause(session: PauseInput): RaisedPause | null {
  const pending = session.pending;
  if (pending?.kind !== 'pause' || pending.cause.kind !== 'budget_exceeded') return null;
  const dimension = pending.cause.dimension;
  const used = budgetUsage(session, session.lastAt ?? 0)[dimension];
  const limit = session.limits[dimension];
  return limit === null || limit > used ? { dimension, used, limit } : null;
}

/** What the pause box says once the limit was raised: `The cost limit is now $0.52 ($0.021 used): c continues the run.` */
export function raisedPauseText(raised: RaisedPause): string {
  const name = budgetName(raised.dimension);
  const used = formatBudget(raised.dimension, raised.used);
  if (raised.limit === null) return `The ${name} budget is now unlimited (${used} used): c continues the run.`;
  return `The ${name} limit is now ${formatBudget(raised.dimension, raised.limit)} (${used} used): c continues the run.`;
}

/** {@link raisedPauseText} of the pause `session` waits at, or `null` (a selector's primitive). */
export function raisedPausePrompt(session: PauseInput): string | null {
  const raised = raisedPause(session);
  return raised ? raisedPauseText(raised) : null;
}
