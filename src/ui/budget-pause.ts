/**
 * A budget pause after its limits changed while it waits (`/budget <dim> +N`, `/reload`).
 * Raised past its use, the pause no longer says the budget is spent and `e` (raise by the
 * increment and continue) is no longer offered: it would raise again; another limit spent
 * beside it is named (`c` pauses again for it). Changed and still spent, the box names the
 * amounts as they are now. Derived from the folded state alone, so a live run and a run
 * resumed from its log agree.
 */
import { budgetName, formatBudget, spentText } from '../engine/budget-units.js';
import { budgetUsage, type SessionState } from '../engine/fold.js';
import { BUDGET_DIMENSIONS, type BudgetDimension } from '../engine/types.js';

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

/**
 * What the pause box says once the limit was raised: `The cost limit is now $0.52 ($0.021
 * used): c continues the run.`; with `others`, the limits spent beside it, for which the
 * run pauses again at once.
 */
export function raisedPauseText(raised: RaisedPause, others: readonly Spent[] = []): string {
  const name = budgetName(raised.dimension);
  const used = formatBudget(raised.dimension, raised.used);
  const now = raised.limit === null ? `The ${name} budget is now unlimited (${used} used)` : `The ${name} limit is now ${formatBudget(raised.dimension, raised.limit)} (${used} used)`;
  if (others.length === 0) return `${now}: c continues the run.`;
  const spent = others.map((o) => `${budgetName(o.dimension)} (${spentText(o.dimension, o.used, o.limit)})`).join(', ');
  return `${now}, but ${others.length === 1 ? 'this limit is' : 'these limits are'} spent too: ${spent}; c pauses again for ${others.length === 1 ? 'it' : 'the first'}.`;
}

/** A dimension at or past its limit: what it used and its limit, in its unit. */
interface Spent {
  dimension: BudgetDimension;
  used: number;
  limit: number;
}

/** The dimensions at or past their limits as of the last event (the clock stands still at a pause), `except` one. */
function spentDimensions(session: PauseInput, except: BudgetDimension | null): Spent[] {
  const usage = budgetUsage(session, session.lastAt ?? 0);
  return BUDGET_DIMENSIONS.flatMap((dimension) => {
    const limit = session.limits[dimension];
    return dimension !== except && limit !== null && usage[dimension] >= limit ? [{ dimension, used: usage[dimension], limit }] : [];
  });
}

/** The first sentence of a budget pause's recorded prompt, which names the amounts as they were when it paused. */
const SPENT_SENTENCE = /^The \S+ budget is spent \([^)]*\)\./;

/**
 * What the pause box says at the budget pause `session` waits at, when it differs from the
 * prompt recorded with the pause: the limit was raised past its use ({@link raisedPauseText},
 * naming any other limit spent), or changed and still spent (a `/reload` that set it
 * lower or not high enough: the amounts as they are now). `null` otherwise (a selector's primitive).
 */
export function raisedPausePrompt(session: PauseInput): string | null {
  const raised = raisedPause(session);
  if (raised) return raisedPauseText(raised, spentDimensions(session, raised.dimension));
  const pending = session.pending;
  if (pending?.kind !== 'pause' || pending.cause.kind !== 'budget_exceeded' || !SPENT_SENTENCE.test(pending.prompt)) return null;
  const [spent] = spentDimensions(session, null).filter((d) => d.dimension === (pending.cause as { dimension: BudgetDimension }).dimension);
  if (!spent) return null;
  const now = pending.prompt.replace(SPENT_SENTENCE, `The ${budgetName(spent.dimension)} budget is spent (${spentText(spent.dimension, spent.used, spent.limit)}).`);
  return now === pending.prompt ? null : now;
}
