/**
 * Checked reads of the event data that a budget or a decision rests on.
 *
 * A log is read back by replay and resume, and a line of it may be damaged into another
 * legible value, or edited. Most data a reducer cannot read fails it at once (a missing
 * object, a list that is not one). Numbers and names are different: a missing token count
 * adds up to `NaN`, a count written as text joins into a string, a negative one lowers the
 * total, and an outcome that is none of the known ones falls through to the branch for
 * `ok`. The budget compares that usage with limits read the same way, so a resumed run
 * would go on past its budget. The reducers read these fields through the functions here:
 * anything but what loopdeck writes is refused with an {@link EventDataError} that names
 * the field by its path in the event line, what it holds, and what belongs there. A missing
 * number is not zero.
 */
import { LoopdeckError } from './errors.js';
import { BUDGET_DIMENSIONS, type BudgetLimits } from './types.js';

/** An event whose data the fold will not take: the message names the field (`data.usage.input_tokens`), what it holds and what belongs there. */
export class EventDataError extends LoopdeckError {}

/** What a field holds, in a few words: `missing`, `null`, `the number 7`, `true`, `the text "…"`, `a list of 2`, `an object`. */
export function describeField(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'string':
      return `the text ${JSON.stringify(value.length > 40 ? `${value.slice(0, 39)}…` : value)}`;
    case 'number':
      return `the number ${String(value)}`;
    case 'boolean':
      return String(value);
    default:
      return `a ${typeof value}`;
  }
}

/** True for a finite number of 0 or more. */
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * `value`, the field at `path` (`data.usage.input_tokens`), as a count: a finite number of
 * 0 or more (tokens, USD, seconds, turns). `what` says what it counts, for the error.
 * @throws EventDataError for anything else, a missing field included
 */
export function count(value: unknown, path: string, what: string): number {
  if (isCount(value)) return value;
  throw new EventDataError(`${path} is ${describeField(value)}; it holds ${what}: a number, 0 or more`);
}

/**
 * {@link count} of a field that may be absent or `null` (a count not reported): `null` then.
 * @throws EventDataError for a value that is neither a count nor absent
 */
export function reportedCount(value: unknown, path: string, what: string): number | null {
  return value === undefined || value === null ? null : count(value, path, what);
}

/**
 * `value`, the field at `path`, as one of `allowed` (`data.outcome` of a `step.end`).
 * @throws EventDataError for anything else, a missing field included
 */
export function oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  throw new EventDataError(`${path} is ${describeField(value)}; it holds one of ${allowed.join(', ')}`);
}

/**
 * `value`, the budget limits at `path` (`data.budget` of a `session.start`): every
 * dimension present, a count or `null` (unlimited). A limit that is absent is not
 * "unlimited": the log does not say.
 * @throws EventDataError naming the first dimension that is neither
 */
export function budgetLimits(value: unknown, path: string): BudgetLimits {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new EventDataError(`${path} is ${describeField(value)}; it holds the budget's limits: ${BUDGET_DIMENSIONS.join(', ')}`);
  const limits = value as Record<string, unknown>;
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = limits[dimension];
    if (limit !== null && !isCount(limit)) throw new EventDataError(`${path}.${dimension} is ${describeField(limit)}; it holds the limit of ${dimension}: a number, 0 or more, or null for none`);
  }
  return { ...limits } as unknown as BudgetLimits;
}
