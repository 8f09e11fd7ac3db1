// The lazy log reader behind replay: an index of line offsets read a chunk at a time, and
// fold snapshots. It must keep exactly the events parseLog keeps, with the same warnings,
// and the state it gives at any event must equal a fold from scratch.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLog, recordSession } from '../../bench/make-log.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { LogIndex, Offsets } from '../../src/engine/log-index.js';
import { foldLog, foldLogFile, LogFolder, parseLog } from '../../src/engine/log.js';
import { toJson, toJsonPieces } from '../../src/text/json.js';
import { seededRandom as random } from '../support/random.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/logs');
const fixtures = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl'));

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-log-index-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a file of the temp dir and returns its path. */
function write(name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** The damaged variants of a log's text: every kind of damage the reader names, at line `at` (0-based; the middle by default). */
function damaged(text: string, at0?: number): Array<[string, string]> {
  const lines = text.split('\n').filter((l) => l !== '');
  const at = at0 ?? Math.floor(lines.length / 2);
  const join = (ls: string[], end = '\n') => ls.join('\n') + end;
  return [
    ['intact', text],
    ['no final newline', join(lines, '')],
    ['torn final line (unterminated)', `${join(lines)}${lines[at]!.slice(0, 30)}`],
    ['torn final line (terminated)', join([...lines, lines[at]!.slice(0, 30)])],
    ['torn line repaired by the writer', join([...lines.slice(0, at), lines[at]!.slice(0, 25), ...lines.slice(at)])],
    ['unreadable line with a seq gap', join([...lines.slice(0, at), 'garbage {', ...lines.slice(at + 1)])],
    ['seq gap without a bad line', join([...lines.slice(0, at), ...lines.slice(at + 2)])],
    ['repeated seq', join([...lines.slice(0, at), lines[at - 1]!, ...lines.slice(at)])],
    ['a block of NUL bytes mid-file', join([...lines.slice(0, at), `${'\0'.repeat(700)}${lines[at]!}`, ...lines.slice(at + 1)])],
    ['NUL bytes inside a line', join([...lines.slice(0, at), `${lines[at]!.slice(0, 20)}\0\0\0${lines[at]!.slice(20)}`, ...lines.slice(at + 1)])],
    ['blank and whitespace lines', join([...lines.slice(0, at), '', '   ', ...lines.slice(at)])],
    ['two unreadable lines at the end', join([...lines, 'not json', '{"half":'])],
    ['lines not of loopdeck', join([...lines.slice(0, at), '{"seq":"x"}', ...lines.slice(at)])],
    ['a lost transition: the fold stops after the gap', join(lines.filter((l, i) => i !== lines.findIndex((m, j) => j > at && m.includes('"type":"state.transition"'))))],
    ['a lone line whose seq jumps ahead', join(lines.map((l, i) => (i === at ? l.replace(/"seq":(\d+)/, (_m, n: string) => `"seq":${Number(n) + 80}`) : l)))],
    ['a line of seq 99999999 inserted', join([...lines.slice(0, at), lines[at]!.replace(/"seq":\d+/, '"seq":99999999'), ...lines.slice(at)])],
    ['a seq jump on the last line', join(lines.map((l, i) => (i === lines.length - 1 ? l.replace(/"seq":\d+/, '"seq":99999999') : l)))],
    ['a seq jump then a repeat', join([...lines.slice(0, at), lines[at]!.replace(/"seq":\d+/, '"seq":99999999'), lines[at - 1]!, ...lines.slice(at + 1)])],
    ['two lines swapped', join([...lines.slice(0, at), lines[at + 5]!, ...lines.slice(at + 1, at + 5), lines[at]!, ...lines.slice(at + 6)])],
    ['a byte order mark at the start (an editor saved it)', `\uFEFF${text}`],
    ['a byte order mark before NUL bytes on the first line', `\uFEFF\0\0${text}`],
    ['multi-byte characters', text.replace(/"session":"([^"]*)"/g, '"session":"$1"').replace(/Names/g, 'Nämes ✓ 名前 👩‍👩‍👧')],
  ];
}

describe('LogIndex and foldLogFile read a file as parseLog and foldLog read its text', () => {
  const cases = fixtures.flatMap((name) => {
    const text = fs.readFileSync(path.join(FIXTURES, name), 'utf8');
    return (name === 'demo.jsonl' || name === 'plan-replan.jsonl' ? damaged(text) : [['intact', text] as [string, string]]).map(([how, t]) => [name, how, t] as const);
  });

  it.each(cases)('%s, %s: same events, warnings and verdict, for chunks of any size', (name, how, text) => {
    const file = write(`${name}-${how.replace(/\W+/g, '-')}.jsonl`, text);
    const parsed = parseLog(text, file);
    const folded = foldLog(text, file);
    for (const chunkBytes of [7, 100, 4096, 1 << 20]) {
      const index = LogIndex.read(file, { every: 3, maxSnapshots: 4, chunkBytes });
      try {
        expect(index.read(0, index.count)).toEqual(parsed.events);
        expect(index.warnings).toEqual(parsed.warnings);
        expect(index.unresumable).toEqual(parsed.unresumable);
        expect(index.state).toEqual(fold(parsed.events));
      } finally {
        index.close();
      }
    }
    const streamed = foldLogFile(file);
    expect(streamed.state).toEqual(folded.state);
    expect(streamed.warnings).toEqual(folded.warnings);
    expect(streamed.unresumable).toEqual(folded.unresumable);
  });

  it.each(cases)('%s, %s: LogFolder given the text in parts of whole lines folds it as foldLog does', (name, how, text) => {
    const folded = foldLog(text, name);
    const lines = text.split(/(?<=\n)/);
    for (const perPart of [1, 2, 5, 128, 129]) {
      const folder = new LogFolder(name);
      for (let at = 0; at < lines.length; at += perPart) folder.push(lines.slice(at, at + perPart).join(''), at + perPart >= lines.length);
      expect(folder.finish()).toEqual(folded);
    }
  });

  it('LogFolder refuses a part that would split a line, and a part after the last', () => {
    const folder = new LogFolder('events.jsonl');
    expect(() => folder.push('{"seq":0')).toThrow(/events\.jsonl: .*does not end with a newline \(line 1 on\)/);
    folder.push('', true);
    expect(() => folder.push('\n')).toThrow(/after the last part/);
  });

  // foldLog and parseLog parse a batch of lines before checking them (SCAN_BATCH in log.ts,
  // 128); the file readers do not. Damage on either side of a batch's edge, and logs that
  // end there, read the same.
  const edges = [126, 127, 128, 129, 130].flatMap((at) => {
    const text = fs.readFileSync(path.join(FIXTURES, 'demo.jsonl'), 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    const cut = (n: number) => lines.slice(0, n).join('\n');
    return [
      ...damaged(text, at).slice(1).map(([how, t]) => [`${how} at line ${at + 1}`, t] as const),
      [`${at} lines, no final newline`, cut(at)] as const,
      [`${at} lines and a torn final line`, `${cut(at)}\n${lines[at]!.slice(0, 30)}`] as const,
    ];
  });
  it.each(edges)('%s: foldLog and parseLog of the text read as the file does', (how, text) => {
    const file = write(`edge-${how.replace(/\W+/g, '-')}.jsonl`, text);
    const parsed = parseLog(text, file);
    const folded = foldLog(text, file);
    const streamed = foldLogFile(file);
    expect(folded.state).toEqual(streamed.state);
    expect(folded.warnings).toEqual(streamed.warnings);
    expect(folded.unresumable).toEqual(streamed.unresumable);
    const index = LogIndex.read(file, { every: 16, maxSnapshots: 4 });
    try {
      expect(parsed.events).toEqual(index.read(0, index.count));
      expect(parsed.warnings).toEqual(index.warnings);
      expect(parsed.unresumable).toEqual(index.unresumable);
    } finally {
      index.close();
    }
  });

  it('a transition lost in a gap stops the run there, in the index as in parseLog', () => {
    const text = damaged(fs.readFileSync(path.join(FIXTURES, 'demo.jsonl'), 'utf8')).find(([how]) => how.startsWith('a lost transition'))![1];
    const file = write('lost-transition.jsonl', text);
    const index = LogIndex.read(file, { every: 3, maxSnapshots: 4 });
    try {
      expect(index.warnings!.at(-1)).toMatch(/stopped showing the run at seq \d+ \(state\.transition\)/);
      expect(index.count).toBe(parseLog(text, file).events.length);
      expect(index.count).toBeLessThan(text.split('\n').length - 2);
    } finally {
      index.close();
    }
  });

  it('a file that cannot be read is named', () => {
    expect(() => new LogIndex(path.join(dir, 'missing.jsonl'))).toThrow(/missing\.jsonl: no such file/);
    expect(() => foldLogFile(path.join(dir, 'missing.jsonl'))).toThrow(/missing\.jsonl: no such file/);
  });
});

describe('the state at any event, from a snapshot and the events after it', () => {
  let events: LoopEvent[];
  let file: string;
  beforeAll(async () => {
    ({ events } = await recordSession(3000));
    file = write('recorded.jsonl', events.map((e) => `${toJson(e)}\n`).join(''));
  });

  it('equals the fold of every event up to it, at random positions in random order, as the spacing of snapshots doubles', () => {
    const index = LogIndex.read(file, { every: 16, maxSnapshots: 8 });
    try {
      expect(index.count).toBe(events.length);
      // 3000+ events, at most 8 snapshots: the spacing doubled from 16 to 512.
      expect(index.snapshotCount).toBeLessThanOrEqual(8);
      expect(index.every).toBeGreaterThanOrEqual(events.length / 8);
      const next = random(18);
      const positions = [0, 1, events.length - 1, events.length - 2, index.every - 1, index.every, ...Array.from({ length: 60 }, () => Math.floor(next() * events.length))];
      // Stepping back and forth one event at a time, as ←/→ do.
      const middle = Math.floor(events.length / 2);
      positions.push(middle, middle - 1, middle - 2, middle - 1, middle, middle + 1);
      for (const at of positions) expect(index.stateAt(at), `at ${at}`).toEqual(fold(events.slice(0, at + 1)));
      expect(index.read(middle, middle + 5)).toEqual(events.slice(middle, middle + 5));
    } finally {
      index.close();
    }
  });

  it('while the file is read, the events read so far are the events of the file, and the state at the newest is their fold', () => {
    const index = new LogIndex(file, { every: 64 });
    try {
      for (let step = 0; !index.readMore(37); step++) {
        const at = index.count;
        expect(index.read(at - 150, at)).toEqual(events.slice(Math.max(0, at - 150), at));
        if (step % 10 === 0) expect(index.stateAt(at - 1)).toEqual(fold(events.slice(0, at)));
      }
      expect(index.read(events.length - 100, events.length)).toEqual(events.slice(-100));
    } finally {
      index.close();
    }
  });

  it('a step back right after the end, and on back through the last spacing, folds a few events each, and the states are right', () => {
    // 3000+ events, at most 4 snapshots: the spacing ends at 1024 (or more), its fine steps at 64.
    const index = LogIndex.read(file, { every: 16, maxSnapshots: 4 });
    try {
      const step = index.every / 16;
      expect(index.stateAt(events.length - 1)).toEqual(fold(events));
      const lastSnapshot = (index.snapshotCount - 1) * index.every;
      expect(events.length - lastSnapshot).toBeGreaterThan(4 * step);
      for (let at = events.length - 2; at >= lastSnapshot; at -= 7) {
        const before = index.folded;
        expect(index.stateAt(at), `at ${at}`).toEqual(fold(events.slice(0, at + 1)));
        // Without the states of the last spacing kept while reading, the first step back folds most of a spacing.
        expect(index.folded - before, `events folded for ${at}`).toBeLessThan(step);
      }
    } finally {
      index.close();
    }
  });

  it('a call id the agent uses twice: the state at any event still equals the fold up to it', () => {
    const ids = events.flatMap((e) => (e.type === 'tool.call' ? [e.data.call.id] : []));
    expect(ids.length).toBeGreaterThan(10);
    // The sixth call reuses the fifth's id: the record of tool calls holds one, the order lists it twice.
    const text = events.map((e) => `${toJson(e)}\n`).join('').replaceAll(`"${ids[5]}"`, `"${ids[4]}"`);
    const same = parseLog(text, 'same-id.jsonl').events;
    const folded = fold(same);
    expect(folded.toolOrder.filter((id) => id === ids[4])).toHaveLength(2);
    const index = LogIndex.read(write('same-id.jsonl', text), { every: 16, maxSnapshots: 8 });
    try {
      const next = random(7);
      const positions = [same.length - 1, same.length - 2, ...Array.from({ length: 40 }, () => Math.floor(next() * same.length))];
      for (const at of positions) expect(index.stateAt(at), `at ${at}`).toEqual(fold(same.slice(0, at + 1)));
    } finally {
      index.close();
    }
  });

  it('a log that ends right at a snapshot: a step back from the end folds a few events, not a spacing', () => {
    const cut = events.slice(0, 640);
    const index = LogIndex.read(write('at-snapshot.jsonl', cut.map((e) => `${toJson(e)}\n`).join('')), { every: 64 });
    try {
      expect(index.count).toBe(640);
      expect(index.stateAt(639)).toEqual(fold(cut));
      for (let at = 638; at >= 576; at -= 5) {
        const before = index.folded;
        expect(index.stateAt(at), `at ${at}`).toEqual(fold(cut.slice(0, at + 1)));
        // Without the states of the last spacing kept as its fine states, the first step back folds 62 events.
        expect(index.folded - before, `events folded for ${at}`).toBeLessThan(64 / 16);
      }
    } finally {
      index.close();
    }
  });

  it('read in small chunks (the end of the file nears in the middle of a spacing), the states stepping back from the end are right', () => {
    for (const chunkBytes of [997, 4096, 30_000]) {
      const index = LogIndex.read(file, { every: 64, chunkBytes });
      try {
        for (let at = events.length - 1; at >= events.length - 3 * index.every; at -= 3) expect(index.stateAt(at), `at ${at}, chunks of ${chunkBytes}`).toEqual(fold(events.slice(0, at + 1)));
      } finally {
        index.close();
      }
    }
  });

  it('the snapshots are not changed by reading on or by seeking', () => {
    const index = new LogIndex(file, { every: 50, maxSnapshots: 100 });
    try {
      index.readMore(500);
      const early = index.stateAt(120);
      const copy = structuredClone(early);
      while (!index.readMore(100));
      index.stateAt(events.length - 1);
      index.stateAt(130);
      expect(early).toEqual(copy);
      expect(index.stateAt(120)).toEqual(fold(events.slice(0, 121)));
    } finally {
      index.close();
    }
  });

  it('the printed JSON of a state is written in pieces that join to the same text', () => {
    const state = fold(events);
    const value = { ...state, log_warnings: ['line 3: x'], nothing: undefined, list: [1, undefined, { a: [] }], empty: {} };
    expect([...toJsonPieces(value, 2)].join('')).toBe(toJson(value, 2));
    for (const name of fixtures) {
      const { state: s } = foldLog(fs.readFileSync(path.join(FIXTURES, name), 'utf8'), name);
      expect([...toJsonPieces(s, 2)].join('')).toBe(toJson(s, 2));
    }
  });
});

describe('memory: beyond the state it shows, an index holds a few bytes an event', () => {
  /** Bytes the heap and array buffers hold alive now (after full collections). */
  const held = (() => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    return () => {
      gc();
      gc();
      return getHeapStatistics().used_heap_size + process.memoryUsage().arrayBuffers;
    };
  })();

  it('a 100,000-event log: its snapshots, the states of its last spacing, a jump into the middle (folding at most 2,000 events) and the offsets hold less than 24 bytes an event beyond the fold of the whole log', async () => {
    const file = path.join(dir, 'long.jsonl');
    await makeLog(100_000, file);
    let before = held();
    let state: unknown = foldLogFile(file).state;
    const stateBytes = held() - before;
    state = null;
    before = held();
    let index: LogIndex | null = LogIndex.read(file);
    try {
      // What a console does: the end, a step back (the states of the last spacing), a jump into the middle and steps there (fine states).
      index.stateAt(index.count - 1);
      index.stateAt(index.count - 2);
      // A jump to anywhere folds at most 1/50 of the log (the spacing of snapshots), then a step back a few events.
      for (const at of [51_998, 51_997, 49_000]) {
        const folded = index.folded;
        index.stateAt(at);
        expect(index.folded - folded, `events folded for a jump to ${at}`).toBeLessThanOrEqual(at === 51_997 ? index.every / 16 : 2000);
      }
      const indexBytes = held() - before;
      const perEvent = (indexBytes - stateBytes) / index.count;
      console.log(`index of ${index.count} events: ${(indexBytes / 2 ** 20).toFixed(1)} MB, the state alone ${(stateBytes / 2 ** 20).toFixed(1)} MB: ${perEvent.toFixed(1)} bytes an event beyond it (${index.snapshotCount} snapshots)`);
      expect(state).toBeNull();
      expect(perEvent).toBeLessThan(24);
    } finally {
      index.close();
      index = null;
    }
  }, 60_000);
});

describe('offsets', () => {
  it('an event 64 kB long or more, and offsets 4 GB past the first of their chunk, are kept exactly', () => {
    const offsets = new Offsets();
    const events: Array<[number, number]> = [];
    let at = 0;
    for (let i = 0; i < 70_000; i++) {
      const length = i % 1000 === 7 ? 70_000 + i : i % 5000 === 3 ? 0xffff : 200 + (i % 50);
      events.push([at, length]);
      offsets.push(at, length);
      // A jump of 5 GB now and then: a log with a huge skipped block.
      at += length + 1 + (i % 20_000 === 11 ? 5 * 2 ** 30 : 0);
    }
    expect(offsets.count).toBe(events.length);
    events.forEach(([start, length], i) => {
      if (offsets.start(i) !== start || offsets.length(i) !== length) expect([i, offsets.start(i), offsets.length(i)]).toEqual([i, start, length]);
    });
  });

  it('a log with an event longer than 64 kB reads back the same events', () => {
    const lines = fs.readFileSync(path.join(FIXTURES, 'demo.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
    const at = lines.findIndex((l) => l.includes('"type":"tool.result"'));
    const long = lines[at]!.replace(/"output":"/, `"output":"${'x'.repeat(100_000)}`);
    const text = [...lines.slice(0, at), long, ...lines.slice(at + 1)].join('\n') + '\n';
    const file = write('long-line.jsonl', text);
    const index = LogIndex.read(file, { every: 3 });
    try {
      expect(index.read(0, index.count)).toEqual(parseLog(text, file).events);
      expect(index.stateAt(at + 1)).toEqual(fold(parseLog(text, file).events.slice(0, at + 2)));
    } finally {
      index.close();
    }
  });
});
