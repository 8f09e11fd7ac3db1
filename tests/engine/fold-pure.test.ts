// `fold(events, state)` continues from a state someone holds (the console's store, a
// snapshot of the replay index) and must never change it: the draft it folds into shares
// the state's arrays and records until an event changes one, and copies that one first.
// Checked on every real log of the frozen corpus, split at every event: the first part is
// folded and deeply frozen (any change in place then throws), the rest folded onto it
// must give the state of the whole log folded at once.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { draftOf, fold, INITIAL_STATE, reduce, type SessionState } from '../../src/engine/fold.js';
import { readLog } from '../../src/engine/log.js';

const dir = path.resolve(import.meta.dirname, '../fixtures/logs');
const logs = readdirSync(dir).filter((name) => name.endsWith('.jsonl')).sort();

/** `value` and everything it reaches, frozen. */
function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value;
  seen.add(value);
  for (const inner of Object.values(value)) deepFreeze(inner, seen);
  return Object.freeze(value);
}

/** The events of a corpus log, parsed afresh (freezing a state freezes the events it holds). */
const eventsOf = (name: string): LoopEvent[] => readLog(path.join(dir, name)).events;

describe('fold(events, state) leaves the state it continues from as it was', () => {
  it.each(logs)('%s, split at every event', (name) => {
    const whole = fold(eventsOf(name));
    const count = eventsOf(name).length;
    for (let at = 1; at < count; at++) {
      const events = eventsOf(name);
      const held = deepFreeze(fold(events.slice(0, at)));
      let continued: SessionState | undefined;
      expect(() => (continued = fold(events.slice(at), held)), `split at seq ${at}`).not.toThrow();
      expect(continued, `split at seq ${at}`).toEqual(whole);
    }
  });

  it('the corpus folds with every kind of change in place the fold makes', () => {
    const types = new Set(logs.flatMap((name) => eventsOf(name).map((e) => e.type)));
    // The events that change a list or a record in place (own() in fold.ts); the others are
    // checked by the types: those lists and records are read-only outside own().
    for (const type of ['model.call', 'tool.call', 'tool.decision', 'tool.result', 'checkpoint.recorded', 'budget.warn', 'goal.revised', 'reflection.recorded', 'stagnation.detected', 'repetition.detected', 'session.pause', 'lap.start']) {
      expect(types, type).toContain(type);
    }
  });

  it('a draft of a frozen state takes any event in place, and the state stays frozen and unchanged', () => {
    for (const name of logs) {
      const events = eventsOf(name);
      const half = Math.floor(events.length / 2);
      const held = deepFreeze(fold(events.slice(0, half)));
      const draft = draftOf(held);
      expect(() => {
        for (const e of events.slice(half)) reduce(draft, e);
      }, name).not.toThrow();
      expect(draft, name).toEqual(fold(eventsOf(name)));
    }
  });

  it('folding from the initial state never changes it', () => {
    const before = JSON.stringify(INITIAL_STATE);
    for (const name of logs) fold(eventsOf(name));
    expect(JSON.stringify(INITIAL_STATE)).toBe(before);
  });
});
