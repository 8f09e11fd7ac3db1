// Exit codes come from one module (src/exit-codes.ts); the built CLI (`npm run build` first)
// exits with the code an error carries.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, LogError } from '../../src/engine/errors.js';
import { DONE_REASONS } from '../../src/engine/machine.js';
import { CliError, EXIT, exitCodeOfError, exitCodeOfRun } from '../../src/exit-codes.js';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');

describe('exit codes', () => {
  it('a run exits 0 only when the goal is met, 2 for every other ending, 130 when it was left before its end', () => {
    expect(Object.fromEntries(DONE_REASONS.map((reason) => [reason, exitCodeOfRun({ reason })]))).toEqual({
      goal_met: 0,
      no_plan: 2,
      stopped: 2,
      exhausted: 2,
      aborted: 2,
      failed: 2,
    });
    expect(exitCodeOfRun(null)).toBe(130);
  });

  it('an error carries its code; other loopdeck errors and crashes exit 1', () => {
    expect(exitCodeOfError(new CliError('no terminal', EXIT.interrupted))).toBe(130);
    expect(exitCodeOfError(new CliError('bad usage'))).toBe(1);
    expect(exitCodeOfError(new ConfigError('loop.yaml', 'budget', 'a number'))).toBe(1);
    expect(exitCodeOfError(new LogError('events.jsonl', 3, 'not JSON'))).toBe(1);
    expect(exitCodeOfError(new TypeError('x is undefined'))).toBe(1);
  });
});

describe('the built CLI', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-exit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['check of a folder without checkpoints', ['check', '.', '--config', path.resolve(import.meta.dirname, '../../loop.yaml')], /^loopdeck: \.: no checkpoint \.json files$/],
    ['validate of a missing file', ['validate', 'nope.yaml'], /^loopdeck: cannot read config\n.*nope\.yaml/],
    ['resume of a folder without a log', ['resume', 'nowhere', '--headless'], /^loopdeck: .*nowhere/],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
  ])('%s: exit 1 and one message on stderr, nothing on stdout', async (_name, args, message) => {
    const result = await execa('node', [cli, ...args], { cwd: dir, reject: false });
    expect([result.exitCode, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/crashed|at .*\.js:\d+/);
  });
});
