// Why the fold refused an event is said in the log's terms: the field of the event line the
// fold could not read, by its path, and what it holds; never the runtime's own words
// ("Cannot read properties of undefined"). Checked for the class: every event of every
// corpus log, with each field of its data (and of the objects in it) deleted or replaced by
// a value of another type, up to three levels down and in the first record of a list.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../../src/engine/errors.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { draftOf, INITIAL_STATE, reduce, stateAsJson } from '../../src/engine/fold.js';
import { foldLog, parseLog } from '../../src/engine/log.js';
import { describeField, EventDataError } from '../../src/engine/event-data.js';
import { refusalReason } from '../../src/engine/refusal.js';
import { refusals } from '../support/damaged-fields.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/logs');
const LOGS = readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort();
const read = (name: string) => readFileSync(path.join(DIR, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoopEvent);

/** True when `reason` names `field` or a field inside it, then says what it holds. */
function namesField(reason: string, field: string): boolean {
  if (!reason.startsWith(field)) return false;
  const rest = reason.slice(field.length);
  return /^(\.[\w.[\]]+|\[\d+\][\w.[\]]*)? is /.test(rest);
}

describe('why the fold refused an event', () => {
  it.each(LOGS)('%s: names the damaged field of the event line, whatever field is damaged', (name) => {
    const events = readFileSync(path.join(DIR, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoopEvent);
    const unnamed: string[] = [];
    let named = 0;
    for (const { event: e, path: field, damaged, state, error } of refusals(events, 2)) {
      // Refused for a broken state machine (an illegal transition, an invariant), worded by loopdeck: no field to name.
      if (!(error instanceof TypeError || error instanceof RangeError || error instanceof EventDataError)) continue;
      const before = JSON.stringify(stateAsJson(state));
      const reason = refusalReason(state, damaged, error);
      expect(JSON.stringify(stateAsJson(state))).toBe(before);
      if (namesField(reason, field)) named += 1;
      else unnamed.push(`seq ${e.seq} (${e.type}) ${field}: ${reason}`);
    }
    expect(unnamed).toEqual([]);
    expect(named).toBeGreaterThan(0);
  });

  it('says what the field holds: missing, null, a number, a text, a list, an object', () => {
    expect([undefined, null, 7, true, 'abc', 'y'.repeat(60), [], [1, 2], {}].map(describeField)).toEqual([
      'missing',
      'null',
      'the number 7',
      'true',
      'the text "abc"',
      `the text "${'y'.repeat(39)}…"`,
      'an empty list',
      'a list of 2',
      'an object',
    ]);
  });

  it('keeps loopdeck\'s own words for an event that breaks the state machine', () => {
    const state = draftOf(INITIAL_STATE);
    const error = new IllegalTransitionError('IDLE', 'DONE', 4);
    expect(refusalReason(state, { seq: 4, at: 0, session: 's', type: 'state.transition', data: { from: 'IDLE', to: 'DONE' } } as LoopEvent, error)).toBe('illegal transition IDLE -> DONE at seq 4');
  });

  it('gives the runtime\'s words when the search for the field runs out of time (an event of millions of fields)', () => {
    const events = read('demo.jsonl');
    const at = events.findIndex((e) => e.type === 'checkpoint.recorded');
    const state = draftOf(INITIAL_STATE);
    for (const e of events.slice(0, at)) reduce(state, e);
    const damaged = { ...events[at]!, data: {} } as LoopEvent;
    let error: unknown;
    try {
      reduce(draftOf(state), damaged);
    } catch (thrown) {
      error = thrown;
    }
    expect(refusalReason(state, damaged, error)).toBe('data.checkpoint is missing');
    expect(refusalReason(state, damaged, error, 0)).toBe((error as Error).message);
    expect((error as Error).message).toMatch(/^Cannot read properties of undefined/);
  });

  it('is what replay prints for a checkpoint whose data was emptied, in every reader', () => {
    const lines = readFileSync(path.join(DIR, LOGS.find((f) => readFileSync(path.join(DIR, f), 'utf8').includes('"checkpoint.recorded"'))!), 'utf8').trim().split('\n');
    const at = lines.findIndex((l) => l.includes('"checkpoint.recorded"'));
    const e = JSON.parse(lines[at]!) as LoopEvent;
    lines[at] = JSON.stringify({ ...e, data: {} });
    const text = `${lines.join('\n')}\n`;
    const folded = foldLog(text, 'events.jsonl').warnings.at(-1);
    expect(folded).toBe(`events.jsonl: stopped showing the run at seq ${e.seq} (checkpoint.recorded): it does not follow from the events before it (a damaged line, legible but wrong) (data.checkpoint is missing)`);
    expect(parseLog(text, 'events.jsonl').warnings.at(-1)).toBe(folded);
  });
});
