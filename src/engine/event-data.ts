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

/**
 * `value`, the field at `path`, as a list of texts (`data.goal.success_criteria`).
 * @throws EventDataError naming the field, or the first item that is not text
 */
export function texts(value: unknown, path: string, what: string): string[] {
  if (!Array.isArray(value)) throw new EventDataError(`${path} is ${describeField(value)}; it holds ${what}: a list of texts`);
  const at = value.findIndex((item) => typeof item !== 'string');
  if (at >= 0) throw new EventDataError(`${path}[${at}] is ${describeField(value[at])}; it holds one of ${what}: a text`);
  return value as string[];
}

/**
 * `value`, the field at `path`, as text.
 * @throws EventDataError for anything else, a missing field included
 */
export function text(value: unknown, path: string, what: string): string {
  if (typeof value === 'string') return value;
  throw new EventDataError(`${path} is ${describeField(value)}; it holds ${what}: a text`);
}

/** The budget dimensions a usage record may name as not reported. */
const USAGE_DIMENSIONS = ['tokens', 'cost_usd'] as const;

/**
 * `value`, the optional field at `path` naming the usage a turn did not report
 * (`data.unreported`): absent is none, else a list of `tokens` and `cost_usd`.
 * @throws EventDataError for anything else
 */
export function unreportedList(value: unknown, path: string): Array<(typeof USAGE_DIMENSIONS)[number]> {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new EventDataError(`${path} is ${describeField(value)}; it holds the usage not reported: a list of ${USAGE_DIMENSIONS.join(', ')}`);
  value.forEach((item, i) => oneOf(item, `${path}[${i}]`, USAGE_DIMENSIONS));
  return value as Array<(typeof USAGE_DIMENSIONS)[number]>;
}

/**
 * The goal an event carries at `path` (`data.goal` of `session.start`, `goal.revised`): its
 * objective a text, its success criteria, constraints and notes lists of texts.
 * @throws EventDataError naming the first field that is not
 */
export function checkGoal(value: unknown, path: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new EventDataError(`${path} is ${describeField(value)}; it holds the goal: objective, success_criteria, constraints, notes`);
  const goal = value as Record<string, unknown>;
  text(goal.objective, `${path}.objective`, 'the objective');
  texts(goal.success_criteria, `${path}.success_criteria`, 'the success criteria');
  texts(goal.constraints, `${path}.constraints`, 'the constraints');
  texts(goal.notes, `${path}.notes`, 'the progress notes');
}

/** True for a tool call {@link checkCall} takes: the test alone, for a caller that would build the path of each call it checks. */
export function isCall(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' && typeof (value as { name?: unknown }).name === 'string' && !Array.isArray(value);
}

/**
 * A tool call an event carries at `path` (`data.call` of `tool.call`, an item of a turn's
 * `tool_calls`): an object with a text `id` and `name`.
 * @throws EventDataError naming the first field that is not
 */
export function checkCall(value: unknown, path: string): void {
  if (isCall(value)) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new EventDataError(`${path} is ${describeField(value)}; it holds a tool call: id, name, args`);
  const call = value as Record<string, unknown>;
  text(call.id, `${path}.id`, "the call's id");
  text(call.name, `${path}.name`, "the tool's name");
}

/**
 * `value`, the field at `path`, as a whole count (a turn, a step, a lap, an index): an
 * integer of `least` or more.
 * @throws EventDataError for anything else, a missing field included
 */
export function whole(value: unknown, path: string, what: string, least = 0): number {
  if (Number.isInteger(value) && (value as number) >= least) return value as number;
  throw new EventDataError(`${path} is ${describeField(value)}; it holds ${what}: a whole number, ${least} or more`);
}

/** The statuses of a row of the acceptance matrix. */
const ROW_STATUSES = ['PENDING', 'IN_PROGRESS', 'DONE', 'BLOCKED', 'NOT_CHECKABLE'] as const;

/**
 * The rows of the acceptance matrix an `acceptance.checked` carries at `path`: a list of
 * rows, each with a whole `index`, a text `text` and a known `status`.
 * @throws EventDataError naming the first field that is not
 */
export function checkRows(value: unknown, path: string): void {
  if (!Array.isArray(value)) throw new EventDataError(`${path} is ${describeField(value)}; it holds the rows of the acceptance matrix: a list`);
  value.forEach((row: unknown, i) => {
    const at = `${path}[${i}]`;
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new EventDataError(`${at} is ${describeField(row)}; it holds one row: index, text, status`);
    const r = row as Record<string, unknown>;
    whole(r.index, `${at}.index`, "the criterion's index");
    text(r.text, `${at}.text`, "the criterion's text");
    oneOf(r.status, `${at}.status`, ROW_STATUSES);
  });
}

