// A crash in the middle of a write leaves the event being written cut off, without its
// newline. The restart that follows ends that line and records its `session.resume` with
// the very `seq` the cut event was to have: the readers name the cut line as a note of the
// restart, not as damage. Anything else around an unreadable line stays damage.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { LogIndex } from '../../src/engine/log-index.js';
import { EventLog, foldLog, parseLog, readLog } from '../../src/engine/log.js';

const corpus = path.resolve(import.meta.dirname, '../fixtures/logs/demo.jsonl');
const lines = fs.readFileSync(corpus, 'utf8').split('\n').filter((l) => l !== '');
const events = lines.map((l) => JSON.parse(l) as LoopEvent);

/** Where a write may be cut: in the first bytes, inside and just after `{"seq":N,`, in the middle, one byte short. */
function cuts(line: string): number[] {
  const head = /^\{"seq":\d+,/.exec(line)![0].length;
  return [...new Set([1, 4, head - 2, head - 1, head, head + 3, Math.floor(line.length / 2), line.length - 1])].filter((n) => n > 0 && n < line.length);
}

/** The `session.resume` a restart records after the events before `k`: continuing from the state they leave. */
function restartAfter(k: number, extra: Record<string, unknown> = { restart: true }): LoopEvent {
  const state = fold(events.slice(0, k));
  const { seq, session } = events[k]!;
  return { seq, at: events[k - 1]!.at + 5000, session, type: 'session.resume', data: { action: 'continue', from: state.machine.state, note: 'continued from the log', ...extra } } as LoopEvent;
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-tear-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The log as a crash while writing line `k` (cut after `cut` characters) and then the real writer's restart leave it, with `more` appended after. */
function crashed(k: number, cut: number, restart: LoopEvent, more: LoopEvent[] = []): { file: string; text: string } {
  const file = path.join(dir, `k${k}-c${cut}.jsonl`);
  fs.writeFileSync(file, `${lines.slice(0, k).join('\n')}\n${lines[k]!.slice(0, cut)}`);
  const log = new EventLog(file);
  for (const e of [restart, ...more]) log.append(e);
  log.close();
  return { file, text: fs.readFileSync(file, 'utf8') };
}

/** Every reader's warnings and notes of `file`. */
function readers(file: string, text: string) {
  const index = new LogIndex(file);
  while (!index.readMore(1000));
  index.close();
  const read = readLog(file);
  const folded = foldLog(text, file);
  const parsed = parseLog(text, file);
  return [read, folded, parsed, { warnings: index.warnings!, notes: index.notes, unresumable: index.unresumable }].map(({ warnings, notes, unresumable }) => ({ warnings, notes, unresumable }));
}

// Every line a restart can follow: not the run's start (nothing to resume) and not its end.
const tornLines = lines.map((_, k) => k).slice(1, -1);

describe('a line cut by a crash, then the restart after it', () => {
  it('is a note naming the line, its legible type and the restart, in every reader, with no warning, for every line and cut of a real run', () => {
    let checked = 0;
    for (const k of tornLines) {
      for (const cut of cuts(lines[k]!)) {
        const restart = restartAfter(k);
        const { file, text } = crashed(k, cut, restart);
        const fragment = lines[k]!.slice(0, cut);
        const type = /"type":"([a-z_.]+)"/.exec(fragment)?.[1];
        const note = `${file}:${k + 1}: ${type ? `a ${type} event` : 'an event'} cut off when loopdeck stopped (a torn write); the restart at line ${k + 2} took its seq ${restart.seq} and continued from the event before it`;
        for (const seen of readers(file, text)) expect(seen, `line ${k + 1} cut at ${cut}`).toEqual({ warnings: [], notes: [note], unresumable: undefined });
        expect(foldLog(text, file).state.eventCount).toBe(k + 1);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  // Damage stays damage: each of these differs from a crash's tear in one respect.
  const k = 40;
  const cut = cuts(lines[k]!).at(-2)!;
  const cases: Array<[string, () => { file: string; text: string }]> = [
    ['the event after it is a resume but not of a restart (an answer to a pause)', () => crashed(k, cut, restartAfter(k, { restart: false }))],
    ['the event after it is a resume that does not say it is a restart', () => crashed(k, cut, restartAfter(k, {}))],
    ['the event after it is no resume (the same seq, another event)', () => crashed(k, cut, { ...events[k + 1]!, seq: events[k]!.seq })],
    [
      'the cut line begins as an event of another seq would',
      () => {
        const { file } = crashed(k, cut, restartAfter(k));
        const text = fs.readFileSync(file, 'utf8').replace(`{"seq":${events[k]!.seq},`, `{"seq":${events[k]!.seq + 7},`);
        fs.writeFileSync(file, text);
        return { file, text };
      },
    ],
    [
      'two unreadable lines before the restart',
      () => {
        const { file } = crashed(k, cut, restartAfter(k));
        const text = fs.readFileSync(file, 'utf8').split('\n');
        text.splice(k, 0, lines[k - 1]!.slice(0, 30));
        const joined = text.join('\n');
        fs.writeFileSync(file, joined);
        return { file, text: joined };
      },
    ],
  ];
  it.each(cases)('is damage when %s', (_, make) => {
    const { file, text } = make();
    for (const seen of readers(file, text)) {
      expect(seen.notes).toEqual([]);
      expect(seen.warnings.some((w) => w.startsWith(`${file}:${k + 1}: `))).toBe(true);
    }
  });
});
