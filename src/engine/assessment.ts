/**
 * Progress as the model sees it (docs/design.md, "Progress as the model sees it"): with
 * `progress.assess: true`, at each checkpoint the agent is asked to assess each success
 * criterion (met, partly, not) with a one-line reason. The answer is hostile input: it is
 * parsed here into a value or recorded as unparsed with the raw head, never thrown. It is
 * shown beside the harness's own measurement, labelled as reported, and never used as
 * progress (stagnation and the goal's decisions do not read it).
 */
import type { AcceptanceRowView } from './memory.js';
import { memoryItem } from './memory.js';
import type { VerifyCommandResult } from './events.js';
import type { CheckpointRecord } from './types.js';

/** What the model says of one criterion. */
export type Verdict = 'met' | 'partly' | 'not';
export const VERDICTS: readonly Verdict[] = ['met', 'partly', 'not'];

/** The model's assessment of one criterion, parsed. */
export interface AssessedCriterion {
  /** 0-based index in the criteria asked about. */
  index: number;
  verdict: Verdict;
  /** One line, at most {@link REASON_CHARS} characters. */
  reason: string;
}

/** What the harness measured of one criterion, to show beside the model's verdict. */
export interface HarnessView {
  /** `met`/`not` when a check said so, `unknown` when none measured it. */
  verdict: 'met' | 'not' | 'unknown';
  /** Where it comes from, in a few words (`acceptance row: DONE`, `verify: npm test exit 1`). */
  basis: string;
}

/** Characters of a reason kept. */
export const REASON_CHARS = 200;
/** Characters of an unparsed answer kept in the event (its head). */
export const RAW_HEAD_CHARS = 400;

/** The parsed answer, or why it could not be parsed with the head of what was sent. */
export type ParsedAssessment = { ok: true; items: AssessedCriterion[] } | { ok: false; reason: string; raw_head: string };

/**
 * The request put to the model: each criterion numbered from 1, and the exact JSON shape
 * of the answer. Used by every agent that can be asked (the scripted agent ignores it).
 */
export function assessmentPrompt(criteria: readonly string[]): string {
  const list = criteria.map((c, i) => `${i + 1}. ${c}`).join('\n');
  return [
    'loopdeck asks for your assessment of the goal\'s success criteria (this is not a turn: call no tool).',
    'For each criterion say whether it is met, partly met or not met, with a one-line reason.',
    'Answer with JSON only, in this shape:',
    '{"criteria": [{"criterion": 1, "verdict": "met" | "partly" | "not", "reason": "one line"}]}',
    'The criteria:',
    list,
  ].join('\n');
}

function headOf(raw: unknown): string {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else {
    try {
      text = JSON.stringify(raw) ?? String(raw);
    } catch {
      text = String(raw);
    }
  }
  return text.length <= RAW_HEAD_CHARS ? text : `${text.slice(0, RAW_HEAD_CHARS)}…`;
}

/** A value of the answer as JSON, short, for a reason. */
function shown(value: unknown, max: number): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  return memoryItem(text ?? String(value), max);
}

/** The answer as a value: an object as is; a string parsed as JSON (inside a ```json fence too). */
function valueOf(raw: unknown): { value: unknown } | { error: string } {
  if (typeof raw !== 'string') return { value: raw };
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(raw);
  try {
    return { value: JSON.parse(fenced ? fenced[1]! : raw) };
  } catch (error) {
    return { error: `not JSON (${(error as Error).message})` };
  }
}

/** The index of `criterion` (a 1-based number, or the criterion's exact text), or why not. */
function indexOf(criterion: unknown, criteria: readonly string[]): number | string {
  if (typeof criterion === 'number' && Number.isInteger(criterion) && criterion >= 1 && criterion <= criteria.length) return criterion - 1;
  if (typeof criterion === 'string') {
    const at = criteria.findIndex((c) => c.trim() === criterion.trim());
    if (at >= 0) return at;
    if (/^\d+$/.test(criterion.trim())) return indexOf(Number(criterion.trim()), criteria);
  }
  return `unknown criterion ${shown(criterion, 60)} (expected 1 to ${criteria.length} or a criterion's text)`;
}

/** One entry of the answer, or why it is not of the asked shape. */
function entryOf(entry: unknown, at: number, criteria: readonly string[]): AssessedCriterion | string {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return `criteria[${at}]: expected an object`;
  const { criterion, verdict, reason } = entry as Record<string, unknown>;
  const index = indexOf(criterion, criteria);
  if (typeof index === 'string') return `criteria[${at}]: ${index}`;
  if (typeof verdict !== 'string' || !VERDICTS.includes(verdict as Verdict)) {
    return `criteria[${at}].verdict: expected met, partly or not, found ${shown(verdict, 40)}`;
  }
  if (typeof reason !== 'string') return `criteria[${at}].reason: expected a string`;
  return { index, verdict: verdict as Verdict, reason: memoryItem(reason, REASON_CHARS) };
}

/**
 * Parses the model's answer against `criteria`. Accepts `{"criteria": [...]}` or the bare
 * list, as an object or as JSON text; each entry `{criterion, verdict, reason}` where
 * `criterion` is the 1-based number or the exact text. Criteria the answer leaves out are
 * not assessed. Anything else (not JSON, wrong shape, an unknown or repeated criterion, a
 * verdict other than met/partly/not) is `ok: false` with the reason and the raw head.
 * Never throws.
 */
export function parseAssessment(raw: unknown, criteria: readonly string[]): ParsedAssessment {
  const fail = (reason: string): ParsedAssessment => ({ ok: false, reason, raw_head: headOf(raw) });
  const parsed = valueOf(raw);
  if ('error' in parsed) return fail(parsed.error);
  const value = parsed.value;
  const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null ? (value as Record<string, unknown>).criteria : undefined;
  if (!Array.isArray(list)) return fail('expected {"criteria": [...]} or a list of {criterion, verdict, reason}');
  const items: AssessedCriterion[] = [];
  for (const [at, entry] of list.entries()) {
    const item = entryOf(entry, at, criteria);
    if (typeof item === 'string') return fail(item);
    if (items.some((i) => i.index === item.index)) return fail(`criteria[${at}]: criterion ${item.index + 1} is assessed twice`);
    items.push(item);
  }
  return { ok: true, items };
}

/** What the harness itself knows of the criteria, as {@link harnessViews} reads it. */
export interface HarnessSources {
  /** The acceptance rows, when the run has them (matched to the criteria by position). */
  acceptance?: readonly AcceptanceRowView[] | null;
  /** The last verifier verdict, if any. */
  verify?: { passed: boolean; commands: readonly VerifyCommandResult[] } | null;
  /** The checkpoint just recorded. */
  checkpoint: Pick<CheckpointRecord, 'signals'>;
}

/**
 * The harness's own measurement of each criterion: its acceptance row when its check ran
 * (`DONE` is met, `IN_PROGRESS` or a checked `PENDING` not, `BLOCKED` unknown); else the goal's last verify verdict (it checks the
 * goal as a whole); else a tracked signal that should decrease and is above 0 (failing
 * tests) says not met; else unknown.
 */
export function harnessViews(criteria: readonly string[], sources: HarnessSources): HarnessView[] {
  return criteria.map((_, i) => {
    const row = sources.acceptance?.[i];
    // Only a row whose check ran says something: a criterion without a check, one never
    // checked and one whose check could not run leave the verdict to the other sources.
    if (row?.status === 'DONE') return { verdict: 'met', basis: 'acceptance row: DONE' };
    if (row?.status === 'IN_PROGRESS' || (row?.status === 'PENDING' && row.checked === true)) return { verdict: 'not', basis: `acceptance row: ${row.status}` };
    if (row?.status === 'BLOCKED') return { verdict: 'unknown', basis: 'acceptance row: BLOCKED (its check could not run)' };
    const verify = sources.verify;
    if (verify) {
      const failed = verify.commands.find((c) => !c.passed);
      if (verify.passed) return { verdict: 'met', basis: 'verify passed' };
      return { verdict: 'not', basis: `verify: ${failed ? `${memoryItem(failed.command, 60)} exit ${failed.exit_code ?? 'none'}` : 'failed'}` };
    }
    const open = sources.checkpoint.signals.find((s) => s.direction === 'decrease' && s.after !== null && s.after > 0);
    if (open) return { verdict: 'not', basis: `${open.signal.replace(/^observed\./, '')} = ${open.after}` };
    return { verdict: 'unknown', basis: 'no check measured it' };
  });
}

/** The model says met where the harness's check says not: shown highlighted, never acted on. */
export function disagrees(reported: Verdict | undefined, harness: HarnessView | undefined): boolean {
  return reported === 'met' && harness?.verdict === 'not';
}
