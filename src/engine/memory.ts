/**
 * Execution memory (docs/design.md, "Execution memory"): at each checkpoint a compact
 * account of the run so far, built from the previous checkpoint's memory and what happened
 * since. It is what lets a long run or a new lap go on without its whole history:
 *
 * - what the harness observed: each tracked signal with its values over the last
 *   checkpoints (its trend) and its last move;
 * - what the agent reported: evidence with its reference and whether the harness saw it,
 *   hypotheses eliminated (all so far) and still open (the latest list);
 * - which acceptance rows are done, when the run has any ({@link AcceptanceRowView});
 * - what was tried and failed: failed tool calls, denied calls and failed verify attempts,
 *   each once with how many times it happened.
 *
 * Bounded: every item is cut to {@link MEMORY_ITEM_CHARS} characters and the rendered text
 * to {@link MEMORY_MAX_CHARS}; past that the oldest items go first and `dropped` counts
 * them. Pure: no clock, no disk. Everything the agent wrote is kept as data and shown as
 * reported, never as measured.
 */
import type { CheckpointRecord, CheckpointStatus, EvidenceCheck, SignalDiff, ToolCall } from './types.js';

/** Characters of the rendered memory, at most (the memory message and the hand-over carry it whole). */
export const MEMORY_MAX_CHARS = 4000;
/** Characters of one item (a claim, a hypothesis, a failed attempt), at most. */
export const MEMORY_ITEM_CHARS = 200;
/** Values of each signal kept for its trend (the newest). */
export const MEMORY_TREND_VALUES = 6;
/** Items a list keeps before the size cap is even looked at (the newest). */
const LIST_CAP = 40;
/** Signals shown, at most (loop.yaml names them; a runaway list is still bounded). */
const SIGNAL_CAP = 12;

/** One row of the acceptance matrix as the memory shows it: its criterion and status (`DONE`, `PENDING`, ...). */
export interface AcceptanceRowView {
  text: string;
  status: string;
  /** Whether its check ran and measured something (a row never checked, or without a check, is not). */
  checked?: boolean;
}

/** Something tried that failed, as the fold collects it between checkpoints. */
export interface FailedAttempt {
  /** `tool`: a call that ran and failed or errored; `denied`: a call refused; `verify`: a verify command that failed. */
  kind: 'tool' | 'denied' | 'verify';
  /** What was tried: the tool and its main argument, or the verify command (one line, bounded). */
  what: string;
  /** Why it failed: status and the first line of the output, the denial's note, the exit code (bounded). */
  why: string;
  /** The agent turn it belongs to. */
  turn: number;
  /** Times it happened (the same `kind` and `what`). */
  count: number;
}

/** One tracked signal: its values at the last checkpoints, oldest first (`null`: not measured), and its last move. */
export interface MemorySignal {
  signal: string;
  values: Array<number | null>;
  move: SignalDiff['move'];
}

/** One piece of reported evidence, with the checkpoint's iteration it was reported by. */
export interface MemoryEvidence {
  claim: string;
  ref: string;
  status: EvidenceCheck['status'];
  iteration: number;
}

/** The execution memory of one checkpoint, as `checkpoint.recorded` stores it. */
export interface ExecutionMemory {
  /** The checkpoint's index and turn, and its status. */
  checkpoint: number;
  iteration: number;
  status: CheckpointStatus;
  signals: MemorySignal[];
  evidence: MemoryEvidence[];
  eliminated: string[];
  remaining: string[];
  /** The acceptance rows at this checkpoint; absent when the run has none. */
  acceptance?: AcceptanceRowView[];
  failures: FailedAttempt[];
  /** Items left out so far (oldest first) to keep the memory within its bounds. */
  dropped: number;
}

/** Whitespace that {@link memoryItem} changes: any but single spaces between other characters. */
const UNEVEN_SPACE = /[^\S ]| {2}|^ | $/;

/** One line, cut to `max` characters with an ellipsis. */
export function memoryItem(text: string, max = MEMORY_ITEM_CHARS): string {
  const raw = String(text);
  // Most items are one line already: tested first, they are not copied.
  const one = UNEVEN_SPACE.test(raw) ? raw.replace(/\s+/g, ' ').trim() : raw;
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** The newest `cap` items of `list` and how many were left out. */
function newest<T>(list: readonly T[], cap: number): { kept: T[]; left: number } {
  return { kept: list.slice(-cap), left: Math.max(0, list.length - cap) };
}

/** `list` without repeats (by `key`), the later occurrence kept in its place. */
function lastOccurrences<T>(list: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (let i = list.length - 1; i >= 0; i--) {
    const k = key(list[i]!);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(list[i]!);
  }
  return out.reverse();
}

/**
 * Adds `attempt` to `list` (the fold's failures since the last checkpoint): the same kind
 * and `what` again counts up and moves to the end; the list keeps its newest
 * {@link LIST_CAP} entries. Returns a new list.
 */
export function noteFailure(list: readonly FailedAttempt[], attempt: Omit<FailedAttempt, 'count'> & { count?: number }): FailedAttempt[] {
  const what = memoryItem(attempt.what, 120);
  const why = memoryItem(attempt.why, 160);
  const same = list.find((f) => f.kind === attempt.kind && f.what === what);
  const entry: FailedAttempt = { kind: attempt.kind, what, why, turn: attempt.turn, count: (same?.count ?? 0) + (attempt.count ?? 1) };
  const next: FailedAttempt[] = [];
  for (const f of list) if (f !== same) next.push(f);
  next.push(entry);
  return next.length > LIST_CAP ? next.slice(-LIST_CAP) : next;
}

/** The arguments {@link callLine} shows alone, the first that is a string. */
const MAIN_ARGS = ['command', 'path', 'pattern'] as const;

/** A tool call as one short line: its name and main argument (`command`, `path`), else its arguments as JSON. */
export function callLine(call: Pick<ToolCall, 'name' | 'args'>): string {
  const args = call.args ?? {};
  let main: unknown;
  for (const key of MAIN_ARGS) {
    if (typeof args[key] === 'string') {
      main = args[key];
      break;
    }
  }
  let rest: string;
  try {
    rest = typeof main === 'string' ? main : JSON.stringify(args);
  } catch {
    rest = '(arguments not printable)';
  }
  return `${call.name} ${rest ?? ''}`.trim();
}

/** What a memory is built from: the last memory (or `null`), the new checkpoint, what failed since, the acceptance rows. */
export interface MemoryInput {
  previous: ExecutionMemory | null | undefined;
  record: CheckpointRecord;
  failures: readonly FailedAttempt[];
  /** The acceptance matrix at this checkpoint; `null` or absent: the run has none (nothing is shown). */
  acceptance?: readonly AcceptanceRowView[] | null;
  /** Cap of the rendered text in characters (default {@link MEMORY_MAX_CHARS}). */
  maxChars?: number;
}

function trendOf(previous: ExecutionMemory | null | undefined, diffs: readonly SignalDiff[]): MemorySignal[] {
  return diffs.slice(0, SIGNAL_CAP).map((d) => {
    const signal = memoryItem(d.signal, 80);
    const before = previous?.signals.find((s) => s.signal === signal)?.values ?? [];
    return { signal, values: [...before, d.after].slice(-MEMORY_TREND_VALUES), move: d.move };
  });
}

function mergeFailures(previous: readonly FailedAttempt[], since: readonly FailedAttempt[]): FailedAttempt[] {
  let list: FailedAttempt[] = [...previous];
  for (const f of since) list = noteFailure(list, f);
  return list;
}

/** Items of one list of a checkpoint looked at, at most (the newest): the rest are counted as left out unread. */
const READ_CAP = 4 * LIST_CAP;

/** The memory's lists merged with what is new, before the size cap. */
function merged(input: MemoryInput): { memory: ExecutionMemory; left: number } {
  const { previous } = input;
  const claims = newest(input.record.evidence, READ_CAP);
  const gone = newest(input.record.reported.eliminated_hypotheses, READ_CAP);
  const open = newest(input.record.reported.remaining_hypotheses, READ_CAP);
  const unread = claims.left + gone.left + open.left;
  const record = { ...input.record, evidence: claims.kept, reported: { ...input.record.reported, eliminated_hypotheses: gone.kept, remaining_hypotheses: open.kept } };
  const key = (s: string) => memoryItem(s).toLowerCase();
  const evidence = newest(
    lastOccurrences(
      [...(previous?.evidence ?? []), ...record.evidence.map((e) => ({ claim: memoryItem(e.claim), ref: memoryItem(e.evidence_ref, 120), status: e.status, iteration: record.iteration }))],
      (e) => `${key(e.claim)}\u0000${key(e.ref)}`,
    ),
    LIST_CAP,
  );
  const eliminated = newest(lastOccurrences([...(previous?.eliminated ?? []), ...record.reported.eliminated_hypotheses.map((h) => memoryItem(h))], key), LIST_CAP);
  const ruledOut = new Set(eliminated.kept.map(key));
  const latest = record.reported.remaining_hypotheses.length > 0 ? record.reported.remaining_hypotheses.map((h) => memoryItem(h)) : (previous?.remaining ?? []);
  const remaining = newest(lastOccurrences(latest, key).filter((h) => !ruledOut.has(key(h))), LIST_CAP);
  const failures = newest(mergeFailures(previous?.failures ?? [], input.failures), LIST_CAP);
  const rows = input.acceptance ? newest(input.acceptance.map((r) => ({ text: memoryItem(r.text), status: memoryItem(r.status, 20) })), LIST_CAP) : null;
  const memory: ExecutionMemory = {
    checkpoint: record.index,
    iteration: record.iteration,
    status: record.status,
    signals: trendOf(previous, record.signals),
    evidence: evidence.kept,
    eliminated: eliminated.kept,
    remaining: remaining.kept,
    ...(rows ? { acceptance: rows.kept } : {}),
    failures: failures.kept,
    dropped: previous?.dropped ?? 0,
  };
  return { memory, left: unread + evidence.left + eliminated.left + remaining.left + failures.left + (rows?.left ?? 0) };
}

/** The list the cap shortens next: the longest of the lists that can lose an item (the oldest goes). */
function longestList(m: ExecutionMemory): Array<unknown> | null {
  const lists: Array<unknown[]> = [m.failures, m.evidence, m.eliminated, m.remaining, m.acceptance ?? []];
  const longest = lists.reduce((a, b) => (b.length > a.length ? b : a));
  return longest.length > 0 ? longest : null;
}

/**
 * The memory of the checkpoint `input.record`: the previous memory with what is new since
 * (see the module comment), bounded so that {@link renderMemory} is at most `maxChars`
 * characters; items left out are counted in `dropped` (cumulative over the run).
 */
export function buildMemory(input: MemoryInput): ExecutionMemory {
  const cap = input.maxChars ?? MEMORY_MAX_CHARS;
  const { memory, left } = merged(input);
  let dropped = left;
  for (;;) {
    const size = renderMemory({ ...memory, dropped: memory.dropped + dropped }).length;
    if (size <= cap) break;
    const list = longestList(memory);
    if (!list) break;
    list.shift();
    dropped += 1;
  }
  return { ...memory, dropped: memory.dropped + dropped };
}

const SIGNAL_WORDS: Record<SignalDiff['move'], string> = {
  baseline: 'baseline',
  wanted: 'moved the wanted way',
  flat: 'did not move',
  regressed: 'moved the wrong way',
  missing: 'not measured',
};

const EVIDENCE_WORDS: Record<EvidenceCheck['status'], string> = {
  found_passing: 'the harness saw it passing',
  found_failing: 'the harness saw it failing',
  not_found: 'the harness did not see it',
};

function failureLine(f: FailedAttempt): string {
  const times = f.count > 1 ? ` (${f.count} times, last at turn ${f.turn})` : ` (turn ${f.turn})`;
  if (f.kind === 'denied') return `- denied: ${f.what}: ${f.why}${times}`;
  if (f.kind === 'verify') return `- verify failed: ${f.what}: ${f.why}${times}`;
  return `- ${f.what}: ${f.why}${times}`;
}

/** The lines of the memory under their headings (each section only when it has something). */
export function memoryLines(m: ExecutionMemory): string[] {
  const lines = [`Execution memory of the run so far (checkpoint ${m.checkpoint + 1}, turn ${m.iteration}, ${m.status}); kept by loopdeck, replaced at each checkpoint:`];
  lines.push('Observed by the harness:');
  if (m.signals.length === 0) lines.push('- no tracked signal');
  for (const s of m.signals) lines.push(`- ${s.signal}: ${s.values.map((v) => (v === null ? 'missing' : String(v))).join(' → ')} (${SIGNAL_WORDS[s.move]})`);
  if (m.evidence.length > 0) {
    lines.push('Reported by the agent (claims, not measurements):');
    for (const e of m.evidence) lines.push(`- ${e.claim} [${e.ref}: ${EVIDENCE_WORDS[e.status]}]`);
  }
  if (m.eliminated.length > 0) lines.push(`Hypotheses eliminated: ${m.eliminated.join('; ')}`);
  if (m.remaining.length > 0) lines.push(`Hypotheses still open: ${m.remaining.join('; ')}`);
  if (m.acceptance && m.acceptance.length > 0) {
    const done = m.acceptance.filter((r) => r.status === 'DONE');
    const open = m.acceptance.filter((r) => r.status !== 'DONE');
    lines.push(`Acceptance rows done: ${done.length} of ${m.acceptance.length}`);
    for (const r of done) lines.push(`- done: ${r.text}`);
    for (const r of open) lines.push(`- ${r.status}: ${r.text}`);
  }
  if (m.failures.length > 0) {
    lines.push('Tried and failed (do not repeat without a new reason):');
    for (const f of m.failures) lines.push(failureLine(f));
  }
  if (m.dropped > 0) lines.push(`(${m.dropped} older item(s) left out to keep this memory under ${MEMORY_MAX_CHARS} characters)`);
  return lines;
}

/** The memory as text for the agent: {@link memoryLines} joined. */
export function renderMemory(m: ExecutionMemory): string {
  return memoryLines(m).join('\n');
}
