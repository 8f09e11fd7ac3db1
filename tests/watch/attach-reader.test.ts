// The lines of a run's log, followed: events in order, bad lines left out with a notice,
// a log cut short or replaced no longer taken for the run shown.
import { expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RunLogReader, runLogOf } from '../../src/watch/attach.js';

const event = (seq: number) => JSON.stringify({ seq, at: 1, session: 's', type: 'agent.notice', data: { text: `n${seq}` } });

function reader() {
  const events: LoopEvent[] = [];
  const notices: string[] = [];
  const r = new RunLogReader('run/events.jsonl', (e) => events.push(e), (n) => notices.push(n));
  const lines = (...texts: string[]) => r.take(texts.map((text) => ({ kind: 'line' as const, text })));
  return { r, events, notices, lines };
}

it('passes events on in order and leaves out what is not an event, naming the line', () => {
  const { events, notices, lines } = reader();
  lines(event(0), 'not json', '{"seq":1}', event(1), event(1), '', event(2));
  expect(events.map((e) => e.seq)).toEqual([0, 1, 2]);
  expect(notices).toEqual([
    'run/events.jsonl:2: not JSON, left out: not json',
    'run/events.jsonl:3: not a loopdeck event, left out',
    'run/events.jsonl:5: event 1 comes after 1; left out',
  ]);
});

it('stops taking lines once the log was truncated or replaced, and says why', () => {
  const { r, events, notices, lines } = reader();
  lines(event(0));
  r.take([{ kind: 'notice', cause: 'truncated', text: 'run/events.jsonl was truncated (from 90 to 0 bytes); reading it again from its start' }]);
  lines(event(0), event(1));
  expect(events.map((e) => e.seq)).toEqual([0]);
  expect(notices).toEqual([expect.stringMatching(/was truncated .*no longer the run shown: attach again to follow it$/)]);
});

it('takes a log file by any name as the log itself, and a folder (there or still to come) as a run directory', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-attach-'));
  try {
    const copy = path.join(dir, 'copy.jsonl');
    writeFileSync(copy, '');
    expect(runLogOf(copy)).toBe(copy);
    expect(runLogOf(dir)).toBe(path.join(dir, 'events.jsonl'));
    expect(runLogOf(path.join(dir, 'later'))).toBe(path.join(dir, 'later', 'events.jsonl'));
    expect(runLogOf(path.join(dir, 'events.jsonl'))).toBe(path.join(dir, 'events.jsonl'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
