/**
 * What an agent keeps when its conversation starts over (a new lap) or is cut down to fit
 * the model's context window: a summary of the last checkpoint and a bounded excerpt of
 * the progress file. Both are plain text built from what the harness recorded; neither
 * reads the clock or the disk (docs/design.md, "Context window and hand-over").
 */
import { renderMemory } from './memory.js';
import type { CheckpointRecord } from './types.js';

/** Lines and characters an elided text keeps: its first and last lines, within a character cap. */
export interface ElideLimits {
  headLines: number;
  tailLines: number;
  /** Characters kept at most (head and tail together), whatever the line count. */
  maxChars: number;
}

/** Characters the note of an elision may add beyond `maxChars`. */
const NOTE_ALLOWANCE = 100;

/** How many lines and characters {@link elideMiddle} left out. */
export interface Elision {
  text: string;
  /** Lines of the original text. */
  lines: number;
  /** Lines left out whole (0 when nothing was). */
  elidedLines: number;
  /** Characters left out (0 when the text was kept whole). */
  elidedChars: number;
}

/**
 * Keeps the first `headLines` and last `tailLines` lines of `text` with a note of what was
 * left out in between; very long lines are cut too, so the result never passes
 * `maxChars` plus the note. A text that already fits is returned unchanged.
 */
export function elideMiddle(text: string, limits: ElideLimits): Elision {
  const lines = text.split('\n');
  // An elided text (head, note, tail) fits the limits it was cut to: cutting is idempotent.
  const fits = lines.length <= limits.headLines + limits.tailLines + 1 && text.length <= limits.maxChars + NOTE_ALLOWANCE;
  if (fits) return { text, lines: lines.length, elidedLines: 0, elidedChars: 0 };
  const half = Math.max(0, Math.floor(limits.maxChars / 2));
  // Few but long lines: the text's first and last characters; else its first and last lines.
  const fewLines = lines.length <= limits.headLines + limits.tailLines;
  let head = fewLines ? text : lines.slice(0, limits.headLines).join('\n');
  let tail = fewLines ? text : lines.slice(lines.length - limits.tailLines).join('\n');
  if (head.length > half) head = head.slice(0, half);
  if (tail.length > half) tail = tail.slice(tail.length - half);
  const elidedChars = Math.max(0, text.length - head.length - tail.length);
  const elidedLines = Math.max(0, lines.length - Math.min(lines.length, limits.headLines + limits.tailLines));
  const what = elidedLines > 0 ? `${elidedLines} of ${lines.length} lines` : `${elidedChars} characters`;
  const note = `[... ${what} elided by loopdeck to fit the context window ...]`;
  return { text: [head, note, tail].filter((part) => part !== '').join('\n'), lines: lines.length, elidedLines, elidedChars };
}

/** Characters of the progress file a lap starts from, at most (first and last lines kept). */
export const PROGRESS_EXCERPT_CHARS = 4000;

/** The progress file as a lap's hand-over shows it: whole when short, else its first and last lines. */
export function progressExcerpt(progress: string): string {
  return elideMiddle(progress, { headLines: 40, tailLines: 40, maxChars: PROGRESS_EXCERPT_CHARS }).text;
}

/** Items of each list of the memory, at most (the newest are kept). */
const MEMORY_ITEMS = 8;
/** Characters of one item (a claim, a hypothesis), at most. */
const MEMORY_ITEM_CHARS = 200;

function item(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= MEMORY_ITEM_CHARS ? one : `${one.slice(0, MEMORY_ITEM_CHARS)}…`;
}

function newest<T>(list: readonly T[]): { shown: T[]; more: number } {
  return { shown: list.slice(-MEMORY_ITEMS), more: Math.max(0, list.length - MEMORY_ITEMS) };
}

/**
 * The last checkpoint the agent is told about: the last one recorded, unless it is the
 * baseline taken as the run started (nothing the agent did is in it: its first turn starts
 * as it did before baselines existed). `undefined` before the first interval checkpoint.
 */
export function agentCheckpoint(checkpoints: readonly CheckpointRecord[]): CheckpointRecord | undefined {
  const last = checkpoints[checkpoints.length - 1];
  return last?.baseline ? undefined : last;
}

/**
 * The execution memory of the last checkpoint, as text for the agent: what the harness
 * observed (each signal and how it moved) and what the agent had reported (evidence with
 * whether the harness saw it, hypotheses eliminated and still open). Bounded: the newest
 * items of each list, each item cut to one short line. `null` when there is no checkpoint
 * yet.
 *
 * This is the one place that decides what survives a fresh lap or a compaction of the
 * conversation; a richer memory replaces this function.
 */
export function checkpointMemory(checkpoint: CheckpointRecord | null | undefined): string | null {
  if (!checkpoint) return null;
  if (checkpoint.memory) return renderMemory(checkpoint.memory);
  const lines = [`Memory of the last checkpoint (turn ${checkpoint.iteration}, ${checkpoint.status}):`];
  const signals = checkpoint.signals.map((s) => `${s.signal} ${s.before ?? '—'} → ${s.after ?? 'missing'} (${s.move})`);
  lines.push(`- observed by the harness: ${signals.length > 0 ? signals.join('; ') : 'no tracked signal'}`);
  const evidence = newest(checkpoint.evidence);
  for (const e of evidence.shown) lines.push(`- you reported: ${item(e.claim)} [${item(e.evidence_ref)}: ${e.status.replace('_', ' ')}]`);
  if (evidence.more > 0) lines.push(`- (${evidence.more} older evidence items not shown)`);
  const eliminated = newest(checkpoint.reported.eliminated_hypotheses);
  if (eliminated.shown.length > 0) lines.push(`- eliminated: ${eliminated.shown.map(item).join('; ')}${eliminated.more ? ` (+${eliminated.more} older)` : ''}`);
  const remaining = newest(checkpoint.reported.remaining_hypotheses);
  if (remaining.shown.length > 0) lines.push(`- still open: ${remaining.shown.map(item).join('; ')}${remaining.more ? ` (+${remaining.more} more)` : ''}`);
  return lines.join('\n');
}
