/**
 * Helpers shared by the transcript parsers: reading one JSON line, bounded text, and
 * turning cumulative usage counters into deltas exactly once.
 */
import type { ReportedUsage, TranscriptEntry } from './types.js';

/** Most characters of one text kept in an entry (a tool's output, a message); head and tail survive. */
export const MAX_ENTRY_CHARS = 32_000;

/** A JSON object of a record, or `null`. */
export type JsonRecord = Record<string, unknown>;

/** Longest excerpt of an unreadable line quoted in its notice. */
const NOTICE_EXCERPT = 200;

/**
 * The object on one line, or a `notice` entry saying why there is none (not JSON, not an
 * object). An empty line gives neither.
 */
export function readJsonLine(line: string, format: string): { record: JsonRecord } | { notice: TranscriptEntry } | null {
  const text = line.trim();
  if (text === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { notice: notice(`${format}: a line that is not JSON, kept as text: ${excerpt(text)}`) };
  }
  if (!isRecord(value)) return { notice: notice(`${format}: a line that is not a JSON object, kept as text: ${excerpt(text)}`) };
  return { record: value };
}

/** A `notice` entry. */
export function notice(text: string): TranscriptEntry {
  return { kind: 'notice', text };
}

/** The first characters of a line for a notice. */
export function excerpt(text: string): string {
  return text.length > NOTICE_EXCERPT ? `${text.slice(0, NOTICE_EXCERPT)}…` : text;
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a string, else `fallback`. */
export function str(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : fallback;
}

/** `value` when it is a finite number >= 0, else `null` (a missing number is not zero). */
export function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** An object argument list: a record as is, anything else wrapped as `{ value }`. */
export function argsOf(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isRecord(parsed)) return parsed;
    } catch {
      // a plain string argument: kept as it is below
    }
  }
  return value === undefined ? {} : { value };
}

/** `text` cut to {@link MAX_ENTRY_CHARS}, keeping its head and tail around a marker. */
export function bounded(text: string): string {
  if (text.length <= MAX_ENTRY_CHARS) return text;
  const half = Math.floor(MAX_ENTRY_CHARS / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

/**
 * Text of a content value as the CLIs write it: a string, or an array of blocks of which
 * the `text` ones are joined (others named by type).
 */
export function contentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return value === undefined || value === null ? '' : JSON.stringify(value);
  return value
    .map((block) => {
      if (typeof block === 'string') return block;
      if (isRecord(block) && typeof block.text === 'string') return block.text;
      return isRecord(block) ? `[${str(block.type, 'block')}]` : '';
    })
    .join('\n');
}

/** Totals counted so far for a transcript, to turn a cumulative report into a delta. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** Nothing counted yet. */
export function emptyTotals(): UsageTotals {
  return { input_tokens: 0, output_tokens: 0, cost_usd: 0 };
}

/**
 * Adds an incremental usage report (one model response's own usage) to `totals` and
 * returns it as a `usage` entry (`null` when nothing was reported).
 */
export function addIncrement(totals: UsageTotals, usage: ReportedUsage): TranscriptEntry | null {
  if (usage.input_tokens === null && usage.output_tokens === null && usage.cost_usd === null) return null;
  totals.input_tokens += usage.input_tokens ?? 0;
  totals.output_tokens += usage.output_tokens ?? 0;
  totals.cost_usd += usage.cost_usd ?? 0;
  return { kind: 'usage', usage };
}

/**
 * A cumulative report (totals since the agent's session began) as the delta over what was
 * already counted, so nothing is counted twice: each reported field minus its counted total,
 * never below 0 (a total below what was counted adds nothing and gives a notice).
 * Unreported fields stay `null`.
 */
export function addCumulative(totals: UsageTotals, usage: ReportedUsage, format: string): TranscriptEntry[] {
  const delta: ReportedUsage = { input_tokens: null, output_tokens: null, cost_usd: null };
  const out: TranscriptEntry[] = [];
  for (const key of ['input_tokens', 'output_tokens', 'cost_usd'] as const) {
    const total = usage[key];
    if (total === null) continue;
    if (total < totals[key]) out.push(notice(`${format}: the reported total ${key} ${total} is below the ${totals[key]} already counted; nothing added`));
    delta[key] = Math.max(0, total - totals[key]);
    totals[key] = Math.max(totals[key], total);
  }
  if (delta.input_tokens !== null || delta.output_tokens !== null || delta.cost_usd !== null) out.unshift({ kind: 'usage', usage: delta });
  return out;
}
