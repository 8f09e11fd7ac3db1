/**
 * `replay` of a log with no event (0 bytes, or blank lines only) is refused as a missing log
 * is: a warning on stderr naming the file, nothing on stdout, exit 1. Runs the built CLI
 * (`npm run build`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-replay-empty-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const replay = (...args: string[]) => execa('node', [cli, 'replay', ...args], { cwd, reject: false, stdin: 'ignore' });

describe('replay of a log with no events', { timeout: 60_000 }, () => {
  it('an empty file, headless: "no events" on stderr naming the file, the exit code of a missing log', async () => {
    writeFileSync(path.join(cwd, 'events.jsonl'), '');
    const empty = await replay('--headless', 'events.jsonl');
    const missing = await replay('--headless', 'missing.jsonl');
    expect(missing.exitCode).toBe(1);
    expect([empty.exitCode, empty.stdout, empty.stderr]).toEqual([missing.exitCode, '', 'loopdeck: events.jsonl: no events (the file is empty); nothing to replay']);
  });

  it('blank lines only, given as the run directory: the same', async () => {
    mkdirSync(path.join(cwd, 'run'));
    writeFileSync(path.join(cwd, 'run', 'events.jsonl'), '\n\n   \r\n\t\n');
    const blank = await replay('--headless', 'run');
    expect([blank.exitCode, blank.stdout, blank.stderr]).toEqual([1, '', `loopdeck: ${path.join('run', 'events.jsonl')}: no events (the file is only blank lines); nothing to replay`]);
    // Without --headless (stdout is not a terminal here) it is refused the same way.
    const plain = await replay('run');
    expect([plain.exitCode, plain.stderr]).toEqual([1, blank.stderr]);
  });

  it('lines but no readable event: the warnings about its lines first, then "no events" naming why, exit 1, in both modes', async () => {
    writeFileSync(path.join(cwd, 'events.jsonl'), 'garbage\n{"x":1}\n');
    const headless = await replay('--headless', 'events.jsonl');
    const expected = [
      'loopdeck: events.jsonl:1: skipped an unreadable line (not a JSON event)',
      'loopdeck: events.jsonl:2: dropped a torn final line (not a loopdeck event)',
      'loopdeck: events.jsonl: no events (no line in it is a readable event); nothing to replay',
    ].join('\n');
    expect([headless.exitCode, headless.stdout, headless.stderr]).toEqual([1, '', expected]);
    const plain = await replay('events.jsonl');
    expect([plain.exitCode, plain.stdout, plain.stderr]).toEqual([1, '', expected]);
  });

  it('random bytes: refused the same way, after a warning about each line', async () => {
    writeFileSync(path.join(cwd, 'events.jsonl'), Buffer.from([0x8f, 0x01, 0xff, 0x0a, 0x00, 0x00, 0x41, 0x0a, 0x7b, 0x7f]));
    const result = await replay('--headless', 'events.jsonl');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n');
    expect(lines.at(-1)).toBe('loopdeck: events.jsonl: no events (no line in it is a readable event); nothing to replay');
    expect(lines.slice(0, -1).every((l) => /^loopdeck: events\.jsonl:\d+: /.test(l))).toBe(true);
    expect(lines.length).toBeGreaterThan(1);
  });
});
