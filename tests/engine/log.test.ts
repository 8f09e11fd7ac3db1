import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogError } from '../../src/engine/errors.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { EventLog, parseLog, readLog } from '../../src/engine/log.js';

const STATES = ['IDLE', 'PLANNING', 'EXECUTING', 'REFLECTING', 'EXECUTING', 'REFLECTING', 'DONE'] as const;

/** Event `seq` of a made-up run: a chain of state transitions. */
function ev(seq: number): LoopEvent {
  return {
    seq,
    at: 1_700_000_000_000 + seq * 1000,
    session: 'run-1',
    type: 'state.transition',
    data: { from: STATES[seq % 6]!, to: STATES[(seq % 6) + 1]! },
  };
}

let dir: string;
let file: string;
const open: EventLog[] = [];

function newLog(): EventLog {
  const log = new EventLog(file);
  open.push(log);
  return log;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-log-'));
  file = path.join(dir, 'runs', 'run-1', 'events.jsonl');
});
afterEach(() => {
  for (const log of open.splice(0)) log.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('EventLog', () => {
  it('creates the directory and appends one JSON line per event that readLog reads back', () => {
    const log = newLog();
    const events = [0, 1, 2].map(ev);
    for (const e of events) log.append(e);
    log.sync();
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toBe(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    expect(readLog(file)).toEqual({ events, warnings: [] });
  });

  it('appends to an existing log instead of rewriting it', () => {
    const first = newLog();
    first.append(ev(0));
    first.close();
    const second = newLog();
    second.append(ev(1));
    second.close();
    expect(readLog(file).events.map((e) => e.seq)).toEqual([0, 1]);
  });

  it('refuses to append after close', () => {
    const log = newLog();
    log.close();
    const error = thrown(() => log.append(ev(0)));
    expect(error).toBeInstanceOf(LogError);
    expect((error as LogError).message).toBe(`${file}:0: the log is closed`);
  });
});

describe('a torn final line', () => {
  it('is dropped with a warning naming its line', () => {
    const log = newLog();
    for (const seq of [0, 1, 2]) log.append(ev(seq));
    log.close();
    fs.appendFileSync(file, '{"seq":3,"at":17000000030');
    const result = readLog(file);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(result.warnings).toEqual([`${file}:4: dropped an unterminated final line (a torn write)`]);
  });

  it('makes the next EventLog start on a fresh line; the torn line is then a warning, not an error', () => {
    const first = newLog();
    for (const seq of [0, 1, 2]) first.append(ev(seq));
    first.close();
    fs.appendFileSync(file, '{"seq":3,"at":17000000030');

    const second = newLog();
    second.append(ev(3)); // the seq the torn write was meant to have
    second.append(ev(4));
    second.close();

    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines[3]).toBe('{"seq":3,"at":17000000030');
    expect(lines[4]).toBe(JSON.stringify(ev(3)));

    const result = readLog(file);
    expect(result.events).toEqual([0, 1, 2, 3, 4].map(ev));
    expect(result.warnings).toEqual([`${file}:4: dropped a torn line (not a JSON event); seq 3 follows without a gap`]);
  });

  it('does not add a blank line when the log already ends with a newline', () => {
    const first = newLog();
    first.append(ev(0));
    first.close();
    const second = newLog();
    second.append(ev(1));
    second.close();
    expect(fs.readFileSync(file, 'utf8').split('\n')).toEqual([JSON.stringify(ev(0)), JSON.stringify(ev(1)), '']);
  });
});

describe('a bad line in the middle', () => {
  it('followed by a seq gap throws LogError naming the line and the expected/found seq', () => {
    const log = newLog();
    log.append(ev(0));
    log.append(ev(1));
    log.close();
    fs.appendFileSync(file, `{"seq":2,"at":oops}\n${JSON.stringify(ev(3))}\n`);
    const error = thrown(() => readLog(file));
    expect(error).toBeInstanceOf(LogError);
    const e = error as LogError;
    expect(e.file).toBe(file);
    expect(e.line).toBe(3);
    expect(e.message).toBe(`${file}:3: not a JSON event; seq gap: expected seq 2, found 3 at line 4`);
  });

  it('that is valid JSON but not an event is named as such', () => {
    const text = `${JSON.stringify(ev(0))}\n{"hello":"world"}\n${JSON.stringify(ev(2))}\n`;
    expect(() => parseLog(text, 'events.jsonl')).toThrow(
      'events.jsonl:2: not a loopdeck event; seq gap: expected seq 1, found 2 at line 3',
    );
  });

  it('an event of an unknown type is not a loopdeck event', () => {
    const text = `${JSON.stringify(ev(0))}\n${JSON.stringify({ ...ev(1), type: 'made.up' })}\n${JSON.stringify(ev(2))}\n`;
    expect(() => parseLog(text, 'events.jsonl')).toThrow('events.jsonl:2: not a loopdeck event; seq gap: expected seq 1, found 2 at line 3');
  });

  it('two bad lines in a row throw, naming both', () => {
    const text = `${JSON.stringify(ev(0))}\nxx\nyy\n${JSON.stringify(ev(1))}\n`;
    expect(() => parseLog(text, 'events.jsonl')).toThrow('events.jsonl:2: not a JSON event, followed by another bad line 3');
  });
});

describe('seq gaps without a bad line', () => {
  it('a skipped seq is an error naming the line', () => {
    const text = `${JSON.stringify(ev(0))}\n${JSON.stringify(ev(2))}\n`;
    const error = thrown(() => parseLog(text, 'events.jsonl'));
    expect(error).toBeInstanceOf(LogError);
    expect((error as LogError).line).toBe(2);
    expect((error as LogError).message).toBe('events.jsonl:2: seq gap: expected seq 1, found 2 at line 2');
  });

  it('a duplicated seq is an error', () => {
    const text = `${JSON.stringify(ev(0))}\n${JSON.stringify(ev(1))}\n${JSON.stringify(ev(1))}\n`;
    expect(() => parseLog(text, 'events.jsonl')).toThrow('events.jsonl:3: seq gap: expected seq 2, found 1 at line 3');
  });

  it('a log that does not start at seq 0 is an error', () => {
    expect(() => parseLog(`${JSON.stringify(ev(1))}\n`, 'events.jsonl')).toThrow('events.jsonl:1: seq gap: expected seq 0, found 1 at line 1');
  });
});

describe('readLog', () => {
  it('throws LogError naming a missing file', () => {
    const missing = path.join(dir, 'none.jsonl');
    const error = thrown(() => readLog(missing));
    expect(error).toBeInstanceOf(LogError);
    expect((error as LogError).message).toBe(`${missing}:0: cannot read the log (ENOENT)`);
  });

  it('reads an empty log as no events and no warnings', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    expect(readLog(file)).toEqual({ events: [], warnings: [] });
  });
});
