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
});
