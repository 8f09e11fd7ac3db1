// What the readers make of the frozen corpus and of 3,000 seeded damaged copies of it
// (tests/support/damaged-logs.ts) stays what it was when tests/fixtures/fold-outcomes.json
// was written: `foldLog`'s state and warnings, `parseLog`'s events and warnings, `fold` of
// those events, or the error each throws, as one digest per log. A faster reader must
// catch the same damage and fold the same state, key order included.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fold, stateAsJson } from '../../src/engine/fold.js';
import { foldLog, parseLog } from '../../src/engine/log.js';
import { toJson } from '../../src/text/json.js';
import { corpusLogs, damagedLogs, readerOutcome } from '../support/damaged-logs.js';

const expected = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/fold-outcomes.json'), 'utf8')) as Record<string, string>;
const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

describe('the readers on the corpus and on damaged copies of it', () => {
  const logs = [...corpusLogs(), ...damagedLogs(18, 3000)];

  it('make 3,000 different damaged logs, most of them named as damaged', () => {
    expect(new Set(logs.map((l) => l.text)).size).toBeGreaterThan(2900);
    const warned = logs.filter(({ text }) => {
      try {
        return foldLog(text, 'x').warnings.length > 0;
      } catch {
        return true;
      }
    });
    expect(warned.length).toBeGreaterThan(2500);
  });

  it('the reader that keeps the events and the one that folds while reading give every warning in the same words, and the same verdict on resume', () => {
    const outcome = (read: () => { warnings: string[]; notes: string[]; unresumable?: string }) => {
      try {
        const { warnings, notes, unresumable } = read();
        return JSON.stringify([warnings, notes, unresumable ?? null]);
      } catch (error) {
        return `throws ${(error as Error).message}`;
      }
    };
    const differ = logs.filter(({ text }) => outcome(() => foldLog(text, 'x')) !== outcome(() => parseLog(text, 'x')));
    expect(differ.map((l) => l.name)).toEqual([]);
  });

  it('fold and warn about each exactly as recorded', () => {
    // The states as `replay --headless` prints them (the record of tool calls as an object by call id);
    // notes only where there are some (the digests were first recorded by readers without them).
    const readers = {
      foldLog: (text: string, file: string) => {
        const { notes, ...folded } = foldLog(text, file);
        return { ...folded, ...(notes.length > 0 ? { notes } : {}), state: stateAsJson(folded.state) };
      },
      parseLog,
      fold: (events: never[]) => stateAsJson(fold(events)),
      toJson,
    };
    const changed = logs.filter(({ name, text }) => digest(readerOutcome(text, readers)) !== expected[name]).map((l) => l.name);
    expect(changed).toEqual([]);
    expect(Object.keys(expected).sort()).toEqual(logs.map((l) => l.name).sort());
  });
});
