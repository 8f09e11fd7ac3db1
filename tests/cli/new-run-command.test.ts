// The command a message prints to start a new run names the loop.yaml the run came from
// (its policy.json records it), as a shell word that runs as printed, whatever the path
// holds; where that is not known or the file is gone, it says so instead of printing a
// command that would run some other loop.yaml.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { selfCommand } from '../../src/continue-command.js';
import { newRunCommand } from '../../src/launch.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A run folder whose policy.json holds `policy` (as JSON, or as the text given). */
function runDir(policy: unknown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-newrun-'));
  dirs.push(dir);
  const run = path.join(dir, '.loopdeck', 'runs', 'r1');
  mkdirSync(run, { recursive: true });
  if (policy !== undefined) writeFileSync(path.join(run, 'policy.json'), typeof policy === 'string' ? policy : JSON.stringify(policy));
  return run;
}

describe('the command that starts a new run', () => {
  it('names the loop.yaml the run came from, as the shell reads it back, whatever its path holds', async () => {
    for (const name of ['loop.yaml', 'my loop.yaml', "it's $(touch pwned) `x` ;|&.yaml", '-dash.yaml', 'línea\ttab.yaml', '漢字 🙂.yaml']) {
      const dir = runDir(undefined);
      const folder = path.join(path.dirname(dir), 'project');
      mkdirSync(folder, { recursive: true });
      const file = path.join(folder, name);
      writeFileSync(file, 'goal: {}\n');
      writeFileSync(path.join(dir, 'policy.json'), JSON.stringify({ file }));
      const printed = newRunCommand(dir);
      expect(printed.startsWith(`${selfCommand()} run -c `), printed).toBe(true);
      expect(printed).not.toContain('\n');
      const word = printed.slice(`${selfCommand()} run -c `.length);
      // Read back by bash, the shell that reads the $'…' form a control character is printed in.
      const read = await execa('bash', ['-c', `printf '%s' ${word}`], { cwd: process.cwd() });
      expect(path.resolve(read.stdout), name).toBe(file);
    }
  });

  it('says the file is gone instead of naming a loop.yaml that is not there', () => {
    const dir = runDir({ file: '/nowhere/at/all/loop.yaml' });
    expect(newRunCommand(dir)).toBe(`${selfCommand()} run -c <loop.yaml> (the run's loop.yaml /nowhere/at/all/loop.yaml is gone)`);
    const folder = runDir({ file: os.tmpdir() });
    expect(newRunCommand(folder)).toBe(`${selfCommand()} run -c <loop.yaml> (the run's loop.yaml ${os.tmpdir()} is not a file)`);
  });

  it('says where it came from is not known when policy.json is missing, not JSON, or records no absolute path', () => {
    expect(newRunCommand(runDir(undefined))).toMatch(/ run -c <loop\.yaml> \(.*policy\.json is missing: which loop\.yaml the run came from is not known\)$/);
    for (const policy of ['not json {', 'null', '[]', { file: 7 }, { file: 'loop.yaml' }, { goal: {} }]) {
      const printed = newRunCommand(runDir(policy));
      expect(printed, JSON.stringify(policy)).toMatch(/ run -c <loop\.yaml> \(.*policy\.json does not say which loop\.yaml the run came from\)$/);
    }
  });
});
