// A bad path from the agent fails that one tool call; the run goes on. A scripted agent in
// a real git workspace, run through the real engine and the built-in tools.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

it('bad paths (NUL, 5,000 characters, a folder, a symlink loop, a dangling link outside) each fail one call; the good call after them runs and the run ends goal_met', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-badpath-'));
  dirs.push(root);
  const dir = path.join(root, 'ws');
  const outside = path.join(root, 'outside');
  mkdirSync(dir);
  mkdirSync(outside);
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.name', 'test');
  git(dir, 'config', 'user.email', 'test@localhost');
  writeFileSync(path.join(dir, 'app.js'), 'export const x = 1;\n');
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'keep.txt'), 'keep\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'start');
  symlinkSync('loop', path.join(dir, 'loop'));
  symlinkSync('../outside/created.txt', path.join(dir, 'escape'));

  const write = (id: string, p: string) => ({ tool_calls: [{ id, name: 'write_file', args: { path: p, content: 'x' } }] });
  const agent = ScriptedAgent.fromYaml(
    stringify({
      turns: [
        write('nul', 'app.js\0.bak'),
        write('long', 'a/'.repeat(2500)),
        write('folder', 'src'),
        { tool_calls: [{ id: 'loop', name: 'read_file', args: { path: 'loop' } }] },
        write('dangling', 'escape'),
        { tool_calls: [{ id: 'good', name: 'write_file', args: { path: 'done.txt', content: 'ok\n' } }] },
        { final: 'done' },
      ],
    }),
  );
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'write done.txt' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'test -f done.txt' }],
      hooks: [],
      checkpoint: { every_iterations: 50 },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const runDir = path.join(root, 'run');
  const session = new Session({ id: 's1', agent, policy, workspace: dir, runDir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });

  const outcome = await drive(session.run(newGoal('write done.txt')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));

  expect(outcome.reason).toBe('goal_met');
  // Only the call whose path is fine reached the approval step (and the tool).
  expect(events.filter((e) => e.type === 'tool.call').map((e) => e.type === 'tool.call' && e.data.call.id)).toEqual(['folder', 'good']);
  const errors = Object.fromEntries(events.flatMap((e) => (e.type === 'tool.error' ? [[e.data.call_id, e.data.error]] : [])));
  expect(errors).toEqual({
    // What the path alone decides is refused before approval; what the files hold, when the tool runs.
    nul: 'write_file: refused before approval: path "app.js\\u0000.bak" contains a NUL byte',
    long: `write_file: refused before approval: path "${'a/'.repeat(60)}… (5000 characters)" is too long (5000 bytes; at most 4096)`,
    folder: 'write_file: cannot write "src": it is a folder, expected a file (EISDIR)',
    loop: 'read_file: refused before approval: path "loop" follows more than 40 symlinks (a symlink loop?)',
    dangling: 'write_file: refused before approval: path "escape" is outside the workspace',
  });
  const good = events.find((e) => e.type === 'tool.result' && e.data.result.call_id === 'good');
  expect(good).toMatchObject({ data: { result: { status: 'ok', output: 'wrote 3 bytes to done.txt' } } });
  expect(readFileSync(path.join(dir, 'done.txt'), 'utf8')).toBe('ok\n');
  expect(readdirSync(outside)).toEqual([]);
  // Nothing was stashed and nothing else changed.
  expect(git(dir, 'stash', 'list')).toBe('');
  expect(existsSync(path.join(runDir, 'failure-report.json'))).toBe(false);
  expect(readFileSync(path.join(dir, 'app.js'), 'utf8')).toBe('export const x = 1;\n');
});
