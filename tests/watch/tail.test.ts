// The file tail on real files: what is appended comes out as whole lines, a partial line
// waits, truncation and replacement are said and read again from the start.
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FileTail, type TailItem } from '../../src/watch/tail.js';

let dir: string;
let file: string;
let items: TailItem[];
let tail: FileTail;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-tail-'));
  file = path.join(dir, 'session.jsonl');
  items = [];
  tail = new FileTail(file, { onItems: (batch) => items.push(...batch) });
});
afterEach(() => {
  tail.stop();
  rmSync(dir, { recursive: true, force: true });
});

const lines = () => items.filter((i) => i.kind === 'line').map((i) => (i as { text: string }).text);
const notices = () => items.filter((i) => i.kind === 'notice').map((i) => i as { cause: string; text: string });

it('reports appended lines once each, and holds a partial line until its newline', () => {
  writeFileSync(file, 'one\ntw');
  tail.poll();
  expect(lines()).toEqual(['one']);
  tail.poll();
  expect(lines()).toEqual(['one']);
  appendFileSync(file, 'o\r\nthree\n');
  tail.poll();
  expect(lines()).toEqual(['one', 'two', 'three']);
});

it('keeps a multi-byte character split across two appends whole', () => {
  const text = 'é→✓\n';
  const bytes = Buffer.from(text);
  writeFileSync(file, bytes.subarray(0, 3));
  tail.poll();
  appendFileSync(file, bytes.subarray(3));
  tail.poll();
  expect(lines()).toEqual(['é→✓']);
});

it('says when the file is truncated and reads it again from its start', () => {
  writeFileSync(file, 'first\nsecond\n');
  tail.poll();
  truncateSync(file, 0);
  appendFileSync(file, 'new\n');
  tail.poll();
  expect(notices().map((n) => n.cause)).toEqual(['truncated']);
  expect(notices()[0]!.text).toMatch(/was truncated \(from 13 to 4 bytes\); reading it again from its start/);
  expect(lines()).toEqual(['first', 'second', 'new']);
});

it('follows a file replaced by another (rotation), saying so and leaving out a cut-off last line', () => {
  writeFileSync(file, 'old\nhalf');
  tail.poll();
  renameSync(file, `${file}.1`);
  writeFileSync(file, 'fresh\n');
  tail.poll();
  expect(notices().map((n) => n.cause)).toEqual(['cut', 'replaced']);
  expect(lines()).toEqual(['old', 'fresh']);
});

it('waits for a file that is not there yet, saying so once, then reads it', () => {
  tail.poll();
  tail.poll();
  expect(notices()).toEqual([{ kind: 'notice', cause: 'missing', text: `${file}: no such file yet; waiting for it` }]);
  writeFileSync(file, 'here\n');
  tail.poll();
  expect(lines()).toEqual(['here']);
  rmSync(file);
  tail.poll();
  expect(notices().at(-1)!.text).toBe(`${file} was removed; waiting for it to come back`);
});

it('polls on its own once started', async () => {
  tail = new FileTail(file, { pollMs: 10, onItems: (batch) => items.push(...batch) });
  writeFileSync(file, '');
  tail.start();
  appendFileSync(file, 'later\n');
  const until = Date.now() + 5000;
  while (!lines().includes('later') && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  expect(lines()).toEqual(['later']);
});
