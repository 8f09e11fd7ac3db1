/**
 * `replay` and `resume` of a log that is not there say why in words, with no errno code:
 * a missing file, a folder without an events.jsonl, a named pipe or a device (which may
 * never end: refused at once, not waited on). Runs the built CLI (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-replay-missing-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const loopdeck = (...args: string[]) => execa('node', [cli, ...args], { cwd, reject: false, stdin: 'ignore' });

describe('replay of a log that is not there', { timeout: 60_000 }, () => {
  it('a missing file: "<file>: no such file", exit 1, in both modes', async () => {
    for (const args of [['--headless', 'missing.jsonl'], ['missing.jsonl']]) {
      const result = await loopdeck('replay', ...args);
      expect([result.exitCode, result.stdout, result.stderr]).toEqual([1, '', 'loopdeck: missing.jsonl: no such file']);
    }
  });

  it('a folder without an events.jsonl: said so, exit 1', async () => {
    mkdirSync(path.join(cwd, 'run'));
    const result = await loopdeck('replay', '--headless', 'run');
    expect([result.exitCode, result.stdout, result.stderr]).toEqual([1, '', 'loopdeck: run is a folder without an events.jsonl (a run folder holds one)']);
  });

  it('a named pipe or /dev/zero: "not a regular file", exit 1, at once, in both modes', async () => {
    execFileSync('mkfifo', [path.join(cwd, 'pipe.jsonl')]);
    const why = 'not a regular file: a named pipe, a socket or a device (a log is a file, read to its end)';
    for (const log of ['pipe.jsonl', '/dev/zero']) {
      for (const args of [['--headless', log], [log]]) {
        const result = await loopdeck('replay', ...args);
        expect([result.exitCode, result.stdout, result.stderr]).toEqual([1, '', `loopdeck: ${log}: ${why}`]);
      }
    }
  });

  it('resume of a folder without an events.jsonl names the missing file in words', async () => {
    mkdirSync(path.join(cwd, 'run'));
    const result = await loopdeck('resume', 'run');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(`loopdeck: ${path.join('run', 'events.jsonl')}: no such file`);
    expect(result.stderr).not.toMatch(/ENOENT|:0:/);
  });
});
