/**
 * Success criteria the operator types in `/goal` (docs/design.md, "The acceptance matrix"):
 *
 *     /goal redirect <objective> [--criterion <text> [--check <command> | --signal <observed.x.y> [==|>=|<=] <number>]]...
 *     /goal add-criterion <text> [--check <command> | --signal <observed.x.y> [==|>=|<=] <number>]
 *
 * A redirect with criteria replaces the matrix with them; without any it keeps the matrix.
 * `add-criterion` appends one row. Only these revisions, typed by the operator, change the
 * matrix frozen at start. Pure.
 */
import { DEFAULT_CRITERION_TIMEOUT, type AcceptanceCriterion, type CriterionOp } from './acceptance.js';
import type { GoalRevision } from './events.js';
import { metricNames, type ParserName } from './parsers/index.js';
import { isBlank } from './blank.js';

/** What a typed revision says: the objective or criterion text, and the criteria it gives (`undefined`: none typed). */
export type ParsedRevision = { ok: true; head: string; criteria?: AcceptanceCriterion[] } | { ok: false; message: string };

const CRITERION_FLAG = /(?:^|\s)--criterion(?=\s|$)/;
const SIGNAL = /^(observed\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)\s*(==|>=|<=)?\s*(-?\d+(?:\.\d+)?)$/;
const SIGNAL_FORM = '--signal observed.<name>.<metric> [==|>=|<=] <number>';

/** One typed criterion: `<text>`, `<text> --check <command>` or `<text> --signal <signal> [op] <number>`. */
export function parseCriterion(segment: string): { ok: true; criterion: AcceptanceCriterion } | { ok: false; message: string } {
  const match = /^([\s\S]*?)(?:^|\s)--(check|signal)(?:\s+([\s\S]*))?$/.exec(segment.trim());
  const text = (match ? match[1]! : segment).trim();
  if (isBlank(text)) return { ok: false, message: `a criterion needs text before its check, found ${JSON.stringify(segment.trim())}` };
  if (!match) return { ok: true, criterion: { text } };
  const rest = (match[3] ?? '').trim();
  if (match[2] === 'check') {
    if (isBlank(rest)) return { ok: false, message: `--check needs a command, e.g. --check npm test (criterion "${text}")` };
    return { ok: true, criterion: { text, check: { command: rest, timeout: DEFAULT_CRITERION_TIMEOUT, expect_exit: 0 } } };
  }
  const signal = SIGNAL.exec(rest);
  if (!signal) return { ok: false, message: `expected ${SIGNAL_FORM} (criterion "${text}"), found ${JSON.stringify(rest)}` };
  return { ok: true, criterion: { text, check: { signal: signal[1]!, op: (signal[2] ?? '==') as CriterionOp, target: Number(signal[3]) } } };
}

/**
 * Reads the text of a `/goal` revision: for `redirect`, the objective and any `--criterion`
 * that follows; for `add-criterion`, one criterion with its check; the other directives
 * take their text as it is.
 */
export function parseRevisionText(directive: GoalRevision['directive'], text: string): ParsedRevision {
  if (directive === 'add-criterion') {
    const one = parseCriterion(text);
    return one.ok ? { ok: true, head: one.criterion.text, criteria: [one.criterion] } : one;
  }
  if (directive !== 'redirect' || !CRITERION_FLAG.test(text)) return { ok: true, head: text.trim() };
  const [head = '', ...segments] = text.split(CRITERION_FLAG);
  if (isBlank(head)) return { ok: false, message: '/goal redirect needs the new objective before --criterion' };
  const criteria: AcceptanceCriterion[] = [];
  for (const segment of segments) {
    const one = parseCriterion(segment);
    if (!one.ok) return one;
    criteria.push(one.criterion);
  }
  return { ok: true, head: head.trim(), criteria };
}

/**
 * The matrix after a revision: `redirect` with typed criteria replaces it, without keeps it;
 * `add-criterion` appends; `modify` and `add-constraint` keep it.
 * @returns the new matrix, or why the text cannot be read
 */
export function reviseCriteria(criteria: readonly AcceptanceCriterion[], directive: GoalRevision['directive'], text: string): { ok: true; criteria: AcceptanceCriterion[] } | { ok: false; message: string } {
  const parsed = parseRevisionText(directive, text);
  if (!parsed.ok) return parsed;
  if (directive === 'add-criterion') return { ok: true, criteria: [...criteria, ...(parsed.criteria ?? [])] };
  if (directive === 'redirect' && parsed.criteria) return { ok: true, criteria: parsed.criteria };
  return { ok: true, criteria: [...criteria] };
}

/**
 * Why a signal check names no metric an observer gives (`null` when every one does):
 * a misspelt signal would stay `BLOCKED` and the goal unmet.
 */
export function unknownSignal(criteria: readonly AcceptanceCriterion[], observers: ReadonlyArray<{ name: string; parser: ParserName; pattern?: string }>): string | null {
  const metrics = observers.flatMap((o) => {
    try {
      return metricNames(o.parser, { prefix: o.name, ...(o.pattern ? { pattern: o.pattern } : {}) }).map((m) => `observed.${m}`);
    } catch {
      return [];
    }
  });
  for (const c of criteria) {
    if (!c.check || !('signal' in c.check) || metrics.includes(c.check.signal)) continue;
    const known = metrics.length > 0 ? `one of ${metrics.join(', ')}` : 'a metric of an observe entry (there is none)';
    return `criterion "${c.text}": expected ${known}, found "${c.check.signal}"`;
  }
  return null;
}
