import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogError } from '../../src/engine/errors.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { EventLog, foldLog, parseLog, readLog } from '../../src/engine/log.js';

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

/** Event `seq`: a notice, which folds after any gap (a transition does not when its start is lost). */
function note(seq: number): LoopEvent {
  return { seq, at: 1_700_000_000_000 + seq * 1000, session: 'run-1', type: 'agent.notice', data: { text: `note ${seq}` } };
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
    expect(readLog(file)).toEqual({ events, warnings: [], notes: [] });
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
    expect((error as LogError).message).toBe(`${file}: the log is closed`);
  });
});

describe('a byte order mark', () => {
  it('at the start of the file (an editor saved the log) is not part of the first event: every event is kept, with no warning', () => {
    const text = `\uFEFF${[ev(0), ev(1), ev(2)].map((e) => JSON.stringify(e)).join('\n')}\n`;
    expect(parseLog(text, 'events.jsonl')).toEqual({ events: [ev(0), ev(1), ev(2)], warnings: [], notes: [] });
    expect(foldLog(text, 'events.jsonl')).toMatchObject({ warnings: [] });
    expect(foldLog(text, 'events.jsonl').state.eventCount).toBe(3);
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

  it('is left byte for byte as it was by an EventLog that appends nothing (a resume refused or cancelled)', () => {
    const first = newLog();
    for (const seq of [0, 1, 2]) first.append(ev(seq));
    first.close();
    fs.appendFileSync(file, '{"seq":3,"at":17000000030');
    const before = fs.readFileSync(file);
    const opened = newLog();
    opened.sync();
    opened.close();
    expect(fs.readFileSync(file)).toEqual(before);
    expect(readLog(file).warnings).toEqual([`${file}:4: dropped an unterminated final line (a torn write)`]);
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

describe('a complete last line without its newline', () => {
  it('is kept: it parses and passes the checks', () => {
    const text = [0, 1, 2].map((seq) => JSON.stringify(ev(seq))).join('\n'); // `truncate -s -1` of a whole log
    expect(parseLog(text, 'events.jsonl')).toEqual({ events: [0, 1, 2].map(ev), warnings: [], notes: [] });
    expect(foldLog(text, 'events.jsonl').state.lastSeq).toBe(2);
  });

  it('the next EventLog writes a fresh newline first and the next seq follows it: no seq twice, no warning', () => {
    const first = newLog();
    for (const seq of [0, 1, 2]) first.append(ev(seq));
    first.close();
    fs.truncateSync(file, fs.statSync(file).size - 1);
    const { events } = readLog(file);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2]);
    const second = newLog();
    second.append(ev(events.at(-1)!.seq + 1));
    second.close();
    expect(fs.readFileSync(file, 'utf8')).toBe([0, 1, 2, 3].map((seq) => `${JSON.stringify(ev(seq))}\n`).join(''));
    expect(readLog(file)).toEqual({ events: [0, 1, 2, 3].map(ev), warnings: [], notes: [] });
  });

  it('a last line cut inside its JSON is still a torn write', () => {
    const whole = JSON.stringify(ev(1));
    for (const cut of [1, 2, 10, whole.length - 1]) {
      const text = `${JSON.stringify(ev(0))}\n${whole.slice(0, cut)}`;
      expect(parseLog(text, 'events.jsonl')).toEqual({ events: [ev(0)], warnings: ['events.jsonl:2: dropped an unterminated final line (a torn write)'], notes: [] });
    }
  });
});

describe('a bad line in the middle', () => {
  it('followed by a seq gap: everything readable is kept, the line and the gap are named, resume is refused', () => {
    const log = newLog();
    log.append(note(0));
    log.append(note(1));
    log.close();
    fs.appendFileSync(file, `{"seq":2,"at":oops}\n${JSON.stringify(note(3))}\n${JSON.stringify(note(4))}\n`);
    const result = readLog(file);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 3, 4]);
    expect(result.warnings).toEqual([
      `${file}:3: skipped an unreadable line (not a JSON event)`,
      `${file}:3: seq gap: expected seq 2, found 3 at line 4: seq 2 missing; line 3 unreadable`,
    ]);
    expect(result.unresumable).toContain(`seq 2 is missing (their type is not legible) and may be a tool call, a decision or a state change (${file}:3)`);
    expect(result.unresumable).toContain('to continue, start a new run, or restore the missing lines');
  });

  it('a lost line whose type is still legible and harmless (a hook error, a notice, a budget warning) does not block resume', () => {
    const notice = JSON.stringify({ seq: 1, at: 1, session: 'run-1', type: 'agent.notice', data: { text: 'hi' } });
    const text = `${JSON.stringify(note(0))}\n${notice.slice(0, 60)}\n${JSON.stringify(note(2))}\n`;
    const result = parseLog(text, 'events.jsonl');
    expect(result.events.map((e) => e.seq)).toEqual([0, 2]);
    expect(result.warnings).toContain('events.jsonl:2: seq gap: expected seq 1, found 2 at line 3: seq 1 missing; line 2 unreadable');
    expect(result.unresumable).toBeUndefined();
  });

  it('a lost tool call blocks resume and says so', () => {
    const call = JSON.stringify({ seq: 1, at: 1, session: 'run-1', type: 'tool.call', data: { call: { id: 't1', name: 'shell', args: {} } } });
    const text = `${JSON.stringify(note(0))}\n${call.slice(0, 60)}\n${JSON.stringify(note(2))}\n`;
    expect(parseLog(text, 'events.jsonl').unresumable).toContain('seq 1 is missing (legible: tool.call)');
  });

  it('that is valid JSON but not an event is named as such', () => {
    const text = `${JSON.stringify(note(0))}\n{"hello":"world"}\n${JSON.stringify(note(2))}\n`;
    expect(parseLog(text, 'events.jsonl').warnings).toEqual([
      'events.jsonl:2: skipped an unreadable line (not a loopdeck event)',
      'events.jsonl:2: seq gap: expected seq 1, found 2 at line 3: seq 1 missing; line 2 unreadable',
    ]);
  });

  it('two bad lines in a row are both named', () => {
    const text = `${JSON.stringify(note(0))}\nxx\nyy\n${JSON.stringify(note(1))}\n`;
    const result = parseLog(text, 'events.jsonl');
    expect(result.events.map((e) => e.seq)).toEqual([0, 1]);
    expect(result.warnings).toEqual([
      'events.jsonl:2: dropped a torn line (not a JSON event); seq 1 follows without a gap',
      'events.jsonl:3: dropped a torn line (not a JSON event); seq 1 follows without a gap',
    ]);
    expect(result.unresumable).toBeUndefined();
  });
});

describe('blocks of NUL bytes', () => {
  it('are skipped with a warning naming the line and the byte count; the events around them are read', () => {
    const text = `${JSON.stringify(note(0))}\n${'\0'.repeat(4096)}\n${JSON.stringify(note(1))}${'\0'.repeat(10)}\n${'\0'.repeat(3)}${JSON.stringify(note(2))}\n`;
    const result = parseLog(text, 'events.jsonl');
    expect(result.events).toEqual([0, 1, 2].map(note));
    expect(result.warnings).toEqual([
      'events.jsonl:2: skipped 4096 NUL bytes (a block of zeros a crash can leave)',
      'events.jsonl:3: skipped 10 NUL bytes (a block of zeros a crash can leave)',
      'events.jsonl:4: skipped 3 NUL bytes (a block of zeros a crash can leave)',
    ]);
    expect(result.unresumable).toBeUndefined();
  });

  it('that replaced whole events leave a seq gap that is named and blocks resume', () => {
    const text = `${JSON.stringify(note(0))}\n${'\0'.repeat(300)}\n${JSON.stringify(note(3))}\n`;
    const result = parseLog(text, 'events.jsonl');
    expect(result.events.map((e) => e.seq)).toEqual([0, 3]);
    expect(result.warnings).toContain('events.jsonl:3: seq gap: expected seq 1, found 3 at line 3: seq 1–2 missing');
    expect(result.unresumable).toContain('seq 1–2 are missing');
  });
});

describe('seq gaps without a bad line', () => {
  it('a skipped seq is named with its line; the rest is read', () => {
    const text = `${JSON.stringify(note(0))}\n${JSON.stringify(note(2))}\n`;
    const result = parseLog(text, 'events.jsonl');
    expect(result.events.map((e) => e.seq)).toEqual([0, 2]);
    expect(result.warnings).toEqual(['events.jsonl:2: seq gap: expected seq 1, found 2 at line 2: seq 1 missing']);
    expect(result.unresumable).toContain('seq 1 is missing');
  });

  it('a repeated seq is skipped and named, and blocks resume (two histories in one log)', () => {
    const text = `${JSON.stringify(note(0))}\n${JSON.stringify(note(1))}\n${JSON.stringify(note(1))}\n${JSON.stringify(note(2))}\n`;
    const result = parseLog(text, 'events.jsonl');
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(result.warnings).toEqual(['events.jsonl:3: skipped a line whose seq 1 was already read (expected seq 2)']);
    expect(result.unresumable).toContain('seq 1 appears twice (line 3)');
  });

  it('a log that does not start at seq 0 names the gap', () => {
    expect(parseLog(`${JSON.stringify(note(1))}\n`, 'events.jsonl').warnings).toEqual(['events.jsonl:1: seq gap: expected seq 0, found 1 at line 1: seq 0 missing']);
  });

  it('an event the fold cannot take after a gap ends what is shown, with a warning, instead of failing the replay', () => {
    // seq 1 (IDLE -> PLANNING) is lost: seq 2 (PLANNING -> EXECUTING) cannot follow IDLE.
    const text = `${JSON.stringify(ev(0))}\n${JSON.stringify(ev(2))}\n${JSON.stringify(ev(3))}\n`;
    const parsed = parseLog(text, 'events.jsonl');
    const folded = foldLog(text, 'events.jsonl');
    expect(parsed.events.map((e) => e.seq)).toEqual([0]);
    expect(parsed.warnings.at(-1)).toMatch(/^events\.jsonl: stopped showing the run at seq 2 \(state\.transition\)/);
    expect(folded.warnings).toEqual(parsed.warnings);
    expect(folded.state.eventCount).toBeGreaterThanOrEqual(1);
  });
});

const line = (e: LoopEvent) => JSON.stringify(e);
const jumped = (e: LoopEvent, seq: number) => line({ ...e, seq });
/** The events kept, warnings and verdict of every reader of `text`, which must agree. */
function readAll(text: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  const parsed = parseLog(text, 'events.jsonl');
  const folded = foldLog(text, 'events.jsonl');
  expect(folded.warnings).toEqual(parsed.warnings);
  expect(folded.unresumable).toEqual(parsed.unresumable);
  expect(readLog(file).events).toEqual(parsed.events);
  return parsed;
}

describe('a lone line whose seq jumps ahead', () => {

  it('while the lines after it go on from before it is one damaged line: its seq counted missing, the rest read, the run ends', () => {
    // seq 3 (REFLECTING -> EXECUTING) was damaged into seq 98: the transitions after it cannot follow without it.
    const notes = [note(0), note(1), note(2)].map(line);
    const text = [...notes, jumped(note(3), 98), ...[4, 5, 6].map((n) => line(note(n)))].join('\n') + '\n';
    const result = readAll(text);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2, 4, 5, 6]);
    expect(result.warnings).toEqual([
      'events.jsonl:4: skipped a line whose seq 98 does not follow (a damaged line: the sequence goes on from before it)',
      'events.jsonl:4: seq gap: expected seq 3, found 4 at line 5: seq 3 missing; line 4 damaged',
    ]);
    // The damaged line is a legible notice: nothing resume needs is missing.
    expect(result.unresumable).toBeUndefined();
  });

  it('that held a transition makes the log unresumable, naming the seq and the type it still shows', () => {
    const text = [0, 1, 2].map((n) => line(ev(n))).concat(jumped(ev(3), 98), line(ev(4))).join('\n') + '\n';
    const result = readAll(text);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(result.unresumable).toContain('seq 3 is missing (legible: state.transition)');
    expect(result.warnings.at(-1)).toMatch(/^events\.jsonl: stopped showing the run at seq 4 \(state\.transition\)/);
  });

  it('a run whose seq 18 was damaged into 98 folds to its end, not to the state before it (the corpus demo run)', async () => {
    const demo = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/logs/demo.jsonl'), 'utf8');
    const text = demo.replace(/^\{"seq":18,/m, '{"seq":98,');
    const folded = foldLog(text, 'events.jsonl');
    expect(folded.warnings).toEqual([
      'events.jsonl:19: skipped a line whose seq 98 does not follow (a damaged line: the sequence goes on from before it)',
      'events.jsonl:19: seq gap: expected seq 18, found 19 at line 20: seq 18 missing; line 19 damaged',
    ]);
    const { stateAsJson } = await import('../../src/engine/fold.js');
    expect(stateAsJson(folded.state)).toMatchObject({ machine: { state: 'DONE' }, goal: { status: 'achieved' } });
    expect(folded.state.eventCount).toBe(demo.trimEnd().split('\n').length - 1);
    expect(readAll(text).events).toHaveLength(folded.state.eventCount);
  });

  it('inserted between two lines (seq 99999999) loses nothing: no seq is missing', () => {
    const text = [0, 1, 2].map((n) => line(note(n))).concat(jumped(note(9), 99_999_999), line(note(3)), line(note(4))).join('\n') + '\n';
    const result = readAll(text);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(result.warnings).toEqual(['events.jsonl:4: skipped a line whose seq 99999999 does not follow (a damaged line: the sequence goes on from before it)']);
    expect(result.unresumable).toBeUndefined();
  });

  it('a real gap (the next line follows the jump) is still a gap, folded only once the line after it is read', () => {
    const text = [0, 1, 5, 6].map((n) => line(note(n))).join('\n') + '\n';
    const result = readAll(text);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 5, 6]);
    expect(result.warnings).toEqual(['events.jsonl:3: seq gap: expected seq 2, found 5 at line 3: seq 2–4 missing']);
    expect(result.unresumable).toContain('seq 2–4 are missing');
  });

  it('on the last line, with or without its newline, or before a torn last line, is kept after a gap as before', () => {
    const body = [0, 1].map((n) => line(note(n)));
    for (const end of ['\n', '', `\n${line(note(6)).slice(0, 20)}`]) {
      const result = readAll([...body, line(note(5))].join('\n') + end);
      expect(result.events.map((e) => e.seq)).toEqual([0, 1, 5]);
      expect(result.warnings[0]).toBe('events.jsonl:3: seq gap: expected seq 2, found 5 at line 3: seq 2–4 missing');
    }
  });

  it('followed by a repeated seq: the repeat is skipped and does not make the jump a damaged line', () => {
    const text = [0, 1, 2, 7, 1, 8].map((n) => line(note(n))).join('\n') + '\n';
    const result = readAll(text);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2, 7, 8]);
    expect(result.warnings).toEqual([
      'events.jsonl:4: seq gap: expected seq 3, found 7 at line 4: seq 3–6 missing',
      'events.jsonl:5: skipped a line whose seq 1 was already read (expected seq 8)',
    ]);
  });

  it('is never folded and then taken back: the fold sees only the events kept, in order', async () => {
    const { LogIndex } = await import('../../src/engine/log-index.js');
    const { fold } = await import('../../src/engine/fold.js');
    const text = [0, 1, 2].map((n) => line(ev(n))).concat(jumped(ev(3), 98), line(ev(3)), line(ev(4))).join('\n') + '\n';
    const result = readAll(text);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(foldLog(text, 'events.jsonl').state).toEqual(fold(result.events));
    const index = LogIndex.read(file, { every: 2 });
    try {
      expect(index.read(0, index.count)).toEqual(result.events);
      expect(index.state).toEqual(fold(result.events));
    } finally {
      index.close();
    }
  });
});

describe('readLog', () => {
  it('throws LogError naming a missing file', () => {
    const missing = path.join(dir, 'none.jsonl');
    const error = thrown(() => readLog(missing));
    expect(error).toBeInstanceOf(LogError);
    expect((error as LogError).message).toBe(`${missing}: no such file`);
  });

  it('reads an empty log as no events and no warnings', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    expect(readLog(file)).toEqual({ events: [], warnings: [], notes: [] });
  });
});

describe('a lone line whose seq goes back to one already read', () => {
  const demo = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/logs/demo.jsonl'), 'utf8').trimEnd().split('\n');

  it('while the line after it takes the seq after its own place is one damaged line, named once with the seq it stands for (every line of a run, every earlier seq)', () => {
    const seqs = new Set<number>();
    for (let k = 1; k < demo.length - 1; k++) {
      for (const back of new Set([0, Math.floor(k / 2), k - 1])) {
        const text = `${demo.map((l, i) => (i === k ? l.replace(/^\{"seq":\d+,/, `{"seq":${back},`) : l)).join('\n')}\n`;
        const result = readAll(text);
        const at = k + 1;
        expect(result.warnings.slice(0, 2), `seq ${k} changed to ${back}`).toEqual([
          `events.jsonl:${at}: skipped a line whose seq ${back} does not follow (a damaged line: it stands where seq ${k} belongs)`,
          `events.jsonl:${at}: seq gap: expected seq ${k}, found ${k + 1} at line ${at + 1}: seq ${k} missing; line ${at} damaged`,
        ]);
        expect(result.warnings.join('\n')).not.toContain('already read');
        // What the damaged line still shows is named: resume knows what kind of event is lost.
        const type = (JSON.parse(demo[k]!) as LoopEvent).type;
        if (result.unresumable !== undefined) expect(result.unresumable).toContain(`seq ${k} is missing (legible: ${type})`);
        expect(result.unresumable ?? '').not.toContain('appears twice');
        seqs.add(k);
      }
    }
    expect(seqs.size).toBe(demo.length - 2);
  });

  it('is a repeat when the line after it goes on as if it were not there, or when it is the last line', () => {
    const text = [0, 1, 2, 1, 3].map((n) => line(note(n))).join('\n') + '\n';
    expect(readAll(text).warnings).toEqual(['events.jsonl:4: skipped a line whose seq 1 was already read (expected seq 3)']);
    const last = readAll([0, 1, 2, 1].map((n) => line(note(n))).join('\n') + '\n');
    expect(last.warnings).toEqual(['events.jsonl:4: skipped a line whose seq 1 was already read (expected seq 3)']);
    expect(last.unresumable).toContain('seq 1 appears twice (line 4)');
  });

  it('followed by a line that repeats too: both are repeats', () => {
    const text = [0, 1, 2, 0, 1, 3].map((n) => line(note(n))).join('\n') + '\n';
    const result = readAll(text);
    expect(result.events.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(result.warnings).toEqual([
      'events.jsonl:4: skipped a line whose seq 0 was already read (expected seq 3)',
      'events.jsonl:5: skipped a line whose seq 1 was already read (expected seq 3)',
    ]);
  });

  it('read by the log index alike', async () => {
    const { LogIndex } = await import('../../src/engine/log-index.js');
    const text = `${demo.map((l, i) => (i === 19 ? l.replace(/^\{"seq":19,/, '{"seq":5,') : l)).join('\n')}\n`;
    const result = readAll(text);
    const index = LogIndex.read(file, { every: 4 });
    try {
      expect(index.read(0, index.count)).toEqual(result.events);
      const named = (text: string) => text.replaceAll(file, 'events.jsonl');
      expect(index.warnings?.map(named)).toEqual(result.warnings);
      expect(index.unresumable === undefined || index.unresumable === null ? undefined : named(index.unresumable)).toEqual(result.unresumable);
    } finally {
      index.close();
    }
  });
});
