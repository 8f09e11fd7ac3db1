/**
 * An event's data with one field damaged at a time: deleted, or given a value of another
 * kind. Used by the tests of what the fold does with an event it refuses.
 */
import type { LoopEvent } from '../../src/engine/events.js';
import { draftOf, INITIAL_STATE, reduce, type SessionState } from '../../src/engine/fold.js';

/** Values a damaged field may hold instead of its own (`undefined`: the field deleted). */
export const DAMAGED_VALUES: readonly unknown[] = [undefined, null, 0, 'x', [], {}];

/** One damaged copy of an event's data: the path of the field in the event line (`data.checkpoint.signals`), the value it was given, and the data. */
export interface DamagedField {
  path: string;
  value: unknown;
  data: Record<string, unknown>;
}

/**
 * Every copy of `data` with one field changed to each of {@link DAMAGED_VALUES}: fields at
 * the top, then (up to `depth` levels down) those of the records in it and of the first
 * record of each list in it (a tool call of a turn, a command of a verdict).
 */
export function damagedFields(data: Record<string, unknown>, depth = 0, prefix = 'data'): DamagedField[] {
  const out: DamagedField[] = [];
  for (const key of Object.keys(data)) {
    for (const value of DAMAGED_VALUES) {
      const copy = { ...data };
      if (value === undefined) delete copy[key];
      else copy[key] = value;
      out.push({ path: `${prefix}.${key}`, value, data: copy });
    }
    if (depth === 0) continue;
    const inner = data[key];
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
      for (const d of damagedFields(inner as Record<string, unknown>, depth - 1, `${prefix}.${key}`)) out.push({ ...d, data: { ...data, [key]: d.data } });
    }
    const head = Array.isArray(inner) ? (inner[0] as unknown) : undefined;
    if (head !== null && typeof head === 'object' && !Array.isArray(head)) {
      for (const d of damagedFields(head as Record<string, unknown>, depth - 1, `${prefix}.${key}[0]`)) out.push({ ...d, data: { ...data, [key]: [d.data, ...(inner as unknown[]).slice(1)] } });
    }
  }
  return out;
}

/** One damaged copy of an event that the fold refused: the state before it, the draft the fold was given, and what it threw. */
export interface Refusal extends DamagedField {
  /** The event as the log holds it. */
  event: LoopEvent;
  /** The event with its damaged data. */
  damaged: LoopEvent;
  /** The state before the event (the fold of the events before it): not to be changed. */
  state: SessionState;
  /** The draft of `state` the damaged event was folded onto. */
  draft: SessionState;
  error: unknown;
}

/**
 * Every damaged copy ({@link damagedFields}, `depth` levels down) of every event of `events`
 * that the fold refuses, folded onto a draft of the state before that event; the events
 * themselves are folded in turn.
 */
export function* refusals(events: readonly LoopEvent[], depth: number): Generator<Refusal> {
  const state = draftOf(INITIAL_STATE);
  for (const event of events) {
    for (const field of damagedFields(event.data as unknown as Record<string, unknown>, depth)) {
      const damaged = { ...event, data: field.data } as LoopEvent;
      const draft = draftOf(state);
      try {
        reduce(draft, damaged);
      } catch (error) {
        yield { ...field, event, damaged, state, draft, error };
      }
    }
    reduce(state, event);
  }
}
