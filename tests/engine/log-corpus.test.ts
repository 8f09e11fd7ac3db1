// The frozen corpus of event logs written by earlier versions (tests/fixtures/logs/, made by
// freeze.ts there): every reader change must still fold each log to the state stored
// beside it (a later fold may add facts, never change one). A failure here means old runs
// no longer replay or resume as they did.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DONE_REASONS } from '../../src/engine/machine.js';
import { stateAsJson } from '../../src/engine/fold.js';
import { foldLog, parseLog, readLog } from '../../src/engine/log.js';
import { LogError } from '../../src/engine/errors.js';
import { toJson } from '../../src/text/json.js';

const dir = path.resolve(import.meta.dirname, '../fixtures/logs');
const logs = readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort();

describe('the frozen log corpus', () => {
  it.each(logs)('%s folds to its stored final state', (name) => {
    const file = path.join(dir, name);
    const { state, warnings } = foldLog(readFileSync(file, 'utf8'), file);
    expect(warnings).toEqual([]);
    const expected = JSON.parse(readFileSync(file.replace(/\.jsonl$/, '.state.json'), 'utf8'));
    // Every fact the frozen state had folds to the same value; facts the fold learned later may be added.
    expect(JSON.parse(toJson(stateAsJson(state)))).toMatchObject(expected);
  });

  it('covers every way a run ends and every kind of pause the headless run can reach', () => {
    const ends = new Set<string>();
    const pauses = new Set<string>();
    for (const name of logs) {
      for (const event of readLog(path.join(dir, name)).events) {
        if (event.type === 'session.complete') ends.add(event.data.reason);
        if (event.type === 'session.pause') pauses.add(event.data.reason.replace(/:.*/, ''));
      }
    }
    expect([...ends].sort()).toEqual([...DONE_REASONS].sort());
    expect([...pauses].sort()).toEqual(['budget_exceeded', 'operator', 'repetition', 'stagnation']);
  });
});

describe('a log of an unknown schema version', () => {
  const file = path.join(dir, 'denied.jsonl');
  const withVersion = (version: unknown) =>
    readFileSync(file, 'utf8').replace('"schemaVersion":1,', version === undefined ? '' : `"schemaVersion":${JSON.stringify(version)},`);

  it.each([99, 2, 0, '1', null, undefined])('is refused with the file and the version named (schemaVersion %s)', (version) => {
    const text = withVersion(version);
    expect(text).not.toBe(readFileSync(file, 'utf8'));
    const shown = version === undefined ? 'no schemaVersion' : `schemaVersion ${JSON.stringify(version)}`;
    for (const read of [() => parseLog(text, 'runs/x/events.jsonl'), () => foldLog(text, 'runs/x/events.jsonl')]) {
      expect(read).toThrow(LogError);
      expect(read).toThrow(`runs/x/events.jsonl:1: session.start has ${shown}; this loopdeck reads event logs of schema version 1`);
    }
  });
});
