// An event the fold refuses leaves the state exactly as it was: replay shows the run up to
// before it, and every reader (the fold on trial, the index that folds again from a
// snapshot) shows the same state. Checked for the class: every event of every corpus log,
// with each field of its data (and of the objects in it) deleted or replaced by a value of
// another type, folded onto the state before it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { draftOf, INITIAL_STATE, reduce, stateAsJson, type SessionState } from '../../src/engine/fold.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/logs');
const LOGS = readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort();

/** Values a damaged field may hold instead of its own (`undefined`: the field deleted). */
const VALUES: unknown[] = [undefined, null, 0, 'x', [], {}];

/** The event's data with one field (at the top or one level down) changed, each way, named. */
function variants(data: Record<string, unknown>, depth = 0, prefix = ''): Array<[string, Record<string, unknown>]> {
  const out: Array<[string, Record<string, unknown>]> = [];
  for (const key of Object.keys(data)) {
    for (const value of VALUES) {
      const copy = { ...data };
      if (value === undefined) delete copy[key];
      else copy[key] = value;
      out.push([`${prefix}${key}=${JSON.stringify(value) ?? '(deleted)'}`, copy]);
    }
    const inner = data[key];
    if (depth === 0 && inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
      for (const [name, sub] of variants(inner as Record<string, unknown>, 1, `${key}.`)) out.push([name, { ...data, [key]: sub }]);
    }
  }
  return out;
}

const asText = (s: SessionState) => JSON.stringify(stateAsJson(s));

describe('an event the fold refuses', () => {
  it.each(LOGS)('%s: leaves the state as it was before it, whatever field of its data is damaged', (name) => {
    const events = readFileSync(path.join(DIR, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoopEvent);
    let state = draftOf(INITIAL_STATE);
    const changed: string[] = [];
    let refused = 0;
    for (const e of events) {
      const before = asText(state);
      for (const [what, data] of variants(e.data as unknown as Record<string, unknown>)) {
        const draft = draftOf(state);
        try {
          reduce(draft, { ...e, data } as LoopEvent);
        } catch {
          refused += 1;
          if (asText(draft) !== before) changed.push(`seq ${e.seq} (${e.type}) ${what}`);
        }
      }
      reduce(state, e);
    }
    expect(changed).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  });
});
