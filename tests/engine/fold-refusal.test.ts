// An event the fold refuses leaves the state exactly as it was: replay shows the run up to
// before it, and every reader (the fold on trial, the index that folds again from a
// snapshot) shows the same state. Checked for the class: every event of every corpus log,
// with each field of its data (and of the records in it and the first record of each list)
// deleted or replaced by a value of another type, folded onto the state before it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { stateAsJson, type SessionState } from '../../src/engine/fold.js';
import { refusals } from '../support/damaged-fields.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/logs');
const LOGS = readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort();

const asText = (s: SessionState) => JSON.stringify(stateAsJson(s));

describe('an event the fold refuses', () => {
  it.each(LOGS)('%s: leaves the state as it was before it, whatever field of its data is damaged', (name) => {
    const events = readFileSync(path.join(DIR, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoopEvent);
    const changed: string[] = [];
    let refused = 0;
    for (const { event: e, path: field, value, state, draft } of refusals(events, 1)) {
      refused += 1;
      if (asText(draft) !== asText(state)) changed.push(`seq ${e.seq} (${e.type}) ${field}=${JSON.stringify(value) ?? '(deleted)'}`);
    }
    expect(changed).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  });
});
