// Lines longer than an event can be and blocks of NUL bytes of any length: every reader
// skips them as a stream, never making a string of them, names each with its line and
// size, and reads what is around them; all the readers agree. The cap on a line is made
// small here (MAX_LINE_BYTES is 256 MiB) so that real files of a few MB cross it; one
// file of 24 MB crosses the length past which a line is read as a stream.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LogError } from '../../src/engine/errors.js';
import { stateAsJson } from '../../src/engine/fold.js';
import { LogIndex } from '../../src/engine/log-index.js';
import { filePieces, foldLog, foldLogFile, LogFolder, openLog, parseLog, readLog, scanLogFile, type LogReadOptions } from '../../src/engine/log.js';
import { readRun } from '../../src/runs.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-long-lines-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const DEMO = fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/logs/demo.jsonl'));
const demoLines = DEMO.toString('utf8').trimEnd().split('\n');

function write(name: string, ...parts: Array<string | Buffer>): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
  return file;
}

/** What every reader makes of `file`: they must agree, and this is what they agree on. */
function readAll(file: string, options: LogReadOptions, chunks: number[] = [7, 1000, 1 << 20]) {
  const text = fs.readFileSync(file, 'utf8');
  const folded = foldLog(text, file, options);
  const parsed = parseLog(text, file, options);
  const fromFile = foldLogFile(file, options);
  expect(stateAsJson(fromFile.state)).toEqual(stateAsJson(folded.state));
  expect(fromFile.warnings).toEqual(folded.warnings);
  expect(parsed.warnings).toEqual(folded.warnings);
  expect(readLog(file, options)).toEqual(parsed);
  expect(scanLogFile(file, { event: () => undefined, gap: () => undefined }, options).warnings).toEqual(folded.warnings);
  for (const chunkBytes of chunks) {
    const index = LogIndex.read(file, { ...options, chunkBytes });
    expect(index.warnings, `chunks of ${chunkBytes}`).toEqual(folded.warnings);
    expect(index.unresumable, `chunks of ${chunkBytes}`).toEqual(folded.unresumable);
    expect(index.count).toBe(parsed.events.length);
  }
  return { events: parsed.events, warnings: folded.warnings, unresumable: folded.unresumable, state: folded.state };
}

describe('a piece of a line longer than the cap', () => {
  const cap = { maxLineBytes: 8192 };

  it('is skipped with a warning naming its line and size, whatever it holds: garbage, a huge JSON event, text between NUL blocks', () => {
    const huge = JSON.stringify({ seq: 3, at: 1, session: 's', type: 'agent.notice', data: { text: 'y'.repeat(9000) } });
    const lines = [...demoLines.slice(0, 3), huge, ...demoLines.slice(4, 5)];
    const file = write('over.jsonl', lines.join('\n'), '\n', 'x'.repeat(20_000), '\n', demoLines.slice(5).join('\n'), '\n', 'z'.repeat(9000), '\0'.repeat(50), 'w'.repeat(100), '\n');
    const { events, warnings } = readAll(file, cap);
    // The huge event took seq 3's place: it is lost, and the seq after it says so.
    expect(events.map((e) => e.seq)).toEqual(demoLines.map((_, i) => i).filter((i) => i !== 3));
    const last = lines.length + 1 + demoLines.length - 5 + 1;
    expect(warnings).toEqual([
      `${file}:4: skipped ${huge.length} bytes without a newline, longer than an event line can be (at most 8192 bytes)`,
      `${file}:5: seq gap: expected seq 3, found 4 at line 5: seq 3 missing`,
      `${file}:6: skipped 20000 bytes without a newline, longer than an event line can be (at most 8192 bytes)`,
      `${file}:${last}: skipped 50 NUL bytes (a block of zeros a crash can leave)`,
      `${file}:${last}: skipped 9000 bytes without a newline, longer than an event line can be (at most 8192 bytes)`,
      `${file}:${last}: dropped a torn final line (not a JSON event)`,
    ]);
  });

  it('at the default cap a long event line is read as any other', () => {
    const long = JSON.stringify({ seq: demoLines.length, at: 2e12, session: 'x', type: 'agent.notice', data: { text: 'é'.repeat(3_000_000) } });
    const file = write('long-event.jsonl', DEMO, long, '\n');
    const { events, warnings } = readAll(file, {}, [1 << 20]);
    expect(warnings).toEqual([]);
    expect(events.at(-1)).toEqual(JSON.parse(long));
  });
});

describe('a line read as a stream (past 8 MiB without a newline)', () => {
  it('a crash-style block of zeros at the end, without a newline: named with its line and size; the run before it is read whole', () => {
    const file = write('zero-tail.jsonl', DEMO, Buffer.alloc(24_000_000));
    const clean = foldLog(DEMO.toString('utf8'), file);
    const { state, warnings, unresumable } = readAll(file, {}, [1 << 20, 3_000_001]);
    expect(warnings).toEqual([`${file}:${demoLines.length + 1}: skipped 24000000 NUL bytes (a block of zeros a crash can leave)`]);
    expect(unresumable).toBeUndefined();
    expect(stateAsJson(state)).toEqual(stateAsJson(clean.state));
  });

  it('events between long blocks of zeros and garbage on one line are read, each block named; a piece past the cap is never held', () => {
    const [a, b, c] = demoLines;
    const file = write('mixed.jsonl', a!, '\n', Buffer.alloc(9_000_000), b!, Buffer.alloc(10), 'g'.repeat(3_000_000), Buffer.alloc(3), c!, '\n', demoLines.slice(3).join('\n'), '\n');
    const { events, warnings } = readAll(file, { maxLineBytes: 1 << 20 }, [1 << 20, 65_536]);
    expect(events).toHaveLength(demoLines.length);
    expect(warnings).toEqual([
      `${file}:2: skipped 9000013 NUL bytes (a block of zeros a crash can leave)`,
      `${file}:2: skipped 3000000 bytes without a newline, longer than an event line can be (at most 1048576 bytes)`,
    ]);
    // The pieces keep their byte offsets: the console reads an event again at its offset.
    const fd = openLog(file);
    try {
      const pieces = [...filePieces(fd, file, [], undefined, 1 << 16, 1 << 20)].filter((p) => p.line === 2);
      expect(pieces.map((p) => [p.text, p.offset, p.bytes])).toEqual([
        [b, a!.length + 1 + 9_000_000, b!.length],
        [c, a!.length + 1 + 9_000_000 + b!.length + 10 + 3_000_000 + 3, c!.length],
      ]);
    } finally {
      fs.closeSync(fd);
    }
  });
});

describe('a long text, read a window of lines at a time', () => {
  /**
   * The demo run with `count` notices after its first event, every line renumbered, then
   * damage of every kind a reader meets every `every` lines: a line without its end, a block
   * of NUL bytes inside a line and on its own, a byte order mark, blank and space-only lines,
   * a line that is JSON but no event, one longer than the cap.
   */
  function longLog(count: number, every: number): string {
    const [first, ...rest] = demoLines.map((line) => JSON.parse(line) as { seq: number });
    const notices = Array.from({ length: count }, (_, i) => ({ seq: 0, at: 1_764_400_000_000 + i, session: 'demo', type: 'agent.notice', data: { text: `note ${i} ${'·'.repeat(i % 50)}` } }));
    const events = [first!, ...notices, ...rest].map((e, seq) => JSON.stringify({ ...e, seq }));
    const damage = [
      (line: string) => line.slice(0, line.length >> 1),
      (line: string) => `${line.slice(0, 20)}\0\0\0${line.slice(20)}`,
      (line: string) => `\0\0\0\0${line}`,
      (line: string) => `\ufeff${line}`,
      (line: string) => `\n   \n${line}`,
      (line: string) => `[1,2]\n${line}`,
      (line: string) => `${'x'.repeat(9000)}\n${line}`,
    ];
    return `${events.map((line, i) => (i > 0 && i % every === 0 ? damage[(i / every) % damage.length]!(line) : line)).join('\n')}\n`;
  }

  it('every reader, and LogFolder given the text in parts of any size, make the same of a text longer than two windows with damage all through it', () => {
    const text = longLog(40_000, 997);
    expect(text.length).toBeGreaterThan(3 << 20);
    const file = write('windows.jsonl', text);
    const { warnings, events } = readAll(file, { maxLineBytes: 8192 }, [1 << 20]);
    // Damage of every kind was read and named, and the events around it kept.
    expect(warnings.some((w) => w.includes('NUL bytes'))).toBe(true);
    expect(warnings.some((w) => w.includes('longer than an event line can be'))).toBe(true);
    expect(warnings.some((w) => w.includes('not a loopdeck event'))).toBe(true);
    expect(events.length).toBeGreaterThan(40_000);
    const whole = foldLog(text, file, { maxLineBytes: 8192 });
    const lines = text.split('\n');
    for (const size of [1, 777, 70_000]) {
      const folder = new LogFolder(file, { maxLineBytes: 8192 });
      for (let from = 0; from < lines.length - 1; from += size) folder.push(`${lines.slice(from, Math.min(from + size, lines.length - 1)).join('\n')}\n`);
      folder.push('', true);
      const parted = folder.finish();
      expect(parted.warnings, `parts of ${size} lines`).toEqual(whole.warnings);
      expect(stateAsJson(parted.state)).toEqual(stateAsJson(whole.state));
    }
  });

  it('a log whose only damage is an event the fold cannot take is unresumable for every reader, the index too', () => {
    const start = demoLines[0]!;
    const file = write('refused.jsonl', start, '\n', JSON.stringify({ seq: 1, at: 2, session: 's', type: 'state.transition', data: { from: 'IDLE', to: 'DONE' } }), '\n');
    const { unresumable } = readAll(file, {}, [7, 1 << 20]);
    expect(unresumable).toContain('seq 1 (state.transition) does not follow from the events before it');
  });

  it('an event the fold cannot take before a later seq gap: every reader says it does not follow from the events before it, not "after the damage"', () => {
    const notice = (seq: number) => JSON.stringify({ seq, at: seq + 1, session: 's', type: 'agent.notice', data: { text: 'n' } });
    const transition = JSON.stringify({ seq: 1, at: 2, session: 's', type: 'state.transition', data: { from: 'IDLE', to: 'DONE' } });
    const file = write('refused-then-gap.jsonl', [demoLines[0]!, transition, notice(2), notice(4)].join('\n'), '\n');
    const { warnings } = readAll(file, {}, [7, 1 << 20]);
    expect(warnings.at(-1)).toContain('stopped showing the run at seq 1 (state.transition): it does not follow from the events before it (a damaged line, legible but wrong)');
  });

  it('a text without a newline at its end: its last line, torn, is named as a torn write', () => {
    const text = longLog(30_000, 5000);
    const file = write('windows-torn.jsonl', text.slice(0, -40));
    const { warnings } = readAll(file, {}, [1 << 20]);
    expect(warnings.at(-1)).toBe(`${file}:${text.split('\n').length - 1}: dropped an unterminated final line (a torn write)`);
  });
});

describe('a log that is not a regular file', () => {
  const why = 'not a regular file: a named pipe, a socket or a device (a log is a file, read to its end)';

  it('a named pipe is refused at once, without waiting for a writer, by every file reader', () => {
    const fifo = path.join(dir, 'pipe.jsonl');
    fs.rmSync(fifo, { force: true });
    execFileSync('mkfifo', [fifo]);
    for (const read of [() => openLog(fifo), () => readLog(fifo), () => foldLogFile(fifo), () => LogIndex.read(fifo)]) {
      expect(read).toThrow(LogError);
      expect(read).toThrow(`${fifo}: ${why}`);
    }
  });

  it('a device that never ends (/dev/zero) is refused', () => {
    expect(() => foldLogFile('/dev/zero')).toThrow(`/dev/zero: ${why}`);
  });

  it('`runs` names a run whose log is a named pipe as unreadable, and lists one with a zero tail as ended', () => {
    const pipeRun = path.join(dir, 'runs', 'pipe');
    fs.mkdirSync(pipeRun, { recursive: true });
    execFileSync('mkfifo', [path.join(pipeRun, 'events.jsonl')]);
    expect(readRun(pipeRun, { sizes: false }).log.unreadable).toBe(`${path.join(pipeRun, 'events.jsonl')}: ${why}`);
    const zeroRun = path.join(dir, 'runs', 'zero');
    fs.mkdirSync(zeroRun, { recursive: true });
    fs.writeFileSync(path.join(zeroRun, 'events.jsonl'), Buffer.concat([DEMO, Buffer.alloc(9_000_000)]));
    const run = readRun(zeroRun, { sizes: false });
    expect(run.outcome?.reason).toBe('goal_met');
    expect(run.log.warnings).toEqual([`${path.join(zeroRun, 'events.jsonl')}:${demoLines.length + 1}: skipped 9000000 NUL bytes (a block of zeros a crash can leave)`]);
  });
});
