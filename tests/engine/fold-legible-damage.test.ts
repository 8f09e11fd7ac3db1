// A line damaged into another legible value (a state no machine has, data emptied or
// nulled) passes the reader's checks; the fold cannot take it. Replay then shows the run up
// to before it, with a warning naming its seq, never an error instead of the run: in one
// piece (foldLog), from the file (foldLogFile, replay --headless) and through the lazy index
// (LogIndex, the replay console). The state is exactly the fold of the events before it,
// and resume's reader (parseLog) keeps those events and calls the log unresumable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold, type SessionState } from '../../src/engine/fold.js';
import { LogIndex } from '../../src/engine/log-index.js';
import { foldLog, foldLogFile, parseLog } from '../../src/engine/log.js';
import { toJson } from '../../src/text/json.js';
import { seededRandom } from '../support/random.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/logs');

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-legible-damage-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The events of a fixture log. */
function fixture(name: string): LoopEvent[] {
  return parseLog(fs.readFileSync(path.join(FIXTURES, name), 'utf8'), name).events;
}

/** The index of the first event the fold cannot take (the length when it takes them all), found by folding from scratch. */
function firstRefused(events: readonly LoopEvent[]): number {
  for (let j = 0; j < events.length; j++) {
    try {
      fold(events.slice(0, j + 1));
    } catch {
      return j;
    }
  }
  return events.length;
}

const comparable = (state: SessionState) => ({ ...state, tools: [...state.tools] });

/** The ways a line's data can be damaged and still be read as an event. */
const DAMAGE: Record<string, (e: LoopEvent) => LoopEvent> = {
  'data emptied': (e) => ({ ...e, data: {} }) as unknown as LoopEvent,
  'every field null': (e) => ({ ...e, data: Object.fromEntries(Object.keys(e.data).map((k) => [k, null])) }) as unknown as LoopEvent,
  'a state no machine has': (e) => (e.type === 'state.transition' ? ({ ...e, data: { ...e.data, to: `b${e.data.to}` } } as unknown as LoopEvent) : e),
};

describe('a line damaged into another legible value', () => {
  const names = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl'));
  // Every fixture, a bounded sample of its events (all of them in a short log), each damage.
  it.each(names)('%s: replay shows the run up to the event the fold cannot take, with a warning, in one piece, from the file and through the index', (name) => {
    const events = fixture(name);
    const random = seededRandom(name.length * 7919);
    const picks = events.length <= 40 ? events.map((_, i) => i) : Array.from({ length: 40 }, () => Math.floor(random() * events.length));
    let stopped = 0;
    for (const i of picks) {
      for (const [how, damage] of Object.entries(DAMAGE)) {
        if (events[i]!.type === 'session.start') continue; // its schema version is checked first: a LogError, named as such
        const damaged = events.map((e, j) => (j === i ? damage(e) : e));
        const k = firstRefused(damaged);
        const want = comparable(fold(damaged.slice(0, k)));
        const text = damaged.map((e) => toJson(e)).join('\n') + '\n';
        const file = path.join(dir, `${name}-${i}.jsonl`);
        fs.writeFileSync(file, text);
        const what = `${name}, event ${i} (${events[i]!.type}), ${how}`;
        const refusal = damaged[k]?.seq === 0 ? 'cannot start the run' : 'does not follow from the events before it';
        const stop = k < damaged.length ? `${file}: stopped showing the run at seq ${damaged[k]!.seq} (${damaged[k]!.type}): it ${refusal}` : null;

        // Resume's reader keeps the events before it and refuses to go on from them.
        const parsed = parseLog(text, file);
        expect(parsed.events.length, what).toBe(k);
        expect(parsed.unresumable, what).toEqual(stop === null ? undefined : expect.stringContaining(`seq ${damaged[k]!.seq} (${damaged[k]!.type}) ${refusal}`));

        const whole = foldLog(text, file);
        expect(comparable(whole.state), what).toEqual(want);
        const fromFile = foldLogFile(file);
        expect(comparable(fromFile.state), what).toEqual(want);
        const index = LogIndex.read(file, { every: 16 });
        try {
          expect(comparable(index.state), what).toEqual(want);
          if (k > 0) expect(comparable(index.stateAt(k - 1)), what).toEqual(want);
          expect((index.warnings ?? []).some((w) => stop !== null && w.startsWith(stop)), what).toBe(stop !== null);
        } finally {
          index.close();
        }
        for (const warnings of [whole.warnings, fromFile.warnings]) {
          expect(warnings.filter((w) => w.includes('stopped showing the run')).length, what).toBe(stop === null ? 0 : 1);
          if (stop !== null) expect(warnings.at(-1), what).toMatch(new RegExp(`^${stop.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        }
        if (stop !== null) stopped += 1;
      }
    }
    expect(stopped, `${name}: damage the fold cannot take`).toBeGreaterThan(0);
  });
});
