// `loopdeck run --watch-config`: an edit of loop.yaml while the run goes is reloaded
// (docs/design.md, "Live reload"). The file is replaced the way editors save (a new file
// renamed over the old one). Headless, changes of approval rules wait for a key no one can
// press and are declined unless --watch-config-gates; a loop.yaml inside the workspace is
// never watched. Needs `npm run build` (dist/cli.js).
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { logEvents, until } from '../support/stop-rig.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
let dir: string;
let ws: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-watch-'));
  ws = path.join(dir, 'ws');
  mkdirSync(ws);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Turn 1's tool marks that it runs and waits (at most 10 s) for `go`; later turns pass at once. */
const WAIT = '#!/bin/sh\ntouch started\ni=0\nwhile [ ! -f go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\necho ok\n';
const SCRIPT = stringify({ turns: Array.from({ length: 6 }, (_, i) => ({ tool_calls: [{ id: `c${i + 1}`, name: 'shell', args: { command: `./wait.sh ${i + 1}` } }] })) });

function contract(budget: number, extra: Record<string, unknown> = {}): string {
  return stringify({
    goal: { objective: 'keep going' },
    agent: { kind: 'scripted', script: 'script.yaml' },
    workspace: { path: ws, copy: 'none' },
    budget: { max_iterations: budget, max_wall_clock: '5m' },
    approval: { default: 'allow' },
    verify: [{ command: 'false' }],
    on_abort: { stash: false, report: false },
    ...extra,
  });
}

/** Saves `text` as an editor does: written beside the file, then renamed over it. */
function save(file: string, text: string): void {
  const temp = `${file}.swp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

async function runWatched(configDir: string, args: string[] = []) {
  mkdirSync(configDir, { recursive: true });
  const file = path.join(configDir, 'loop.yaml');
  writeFileSync(path.join(configDir, 'script.yaml'), SCRIPT);
  writeFileSync(file, contract(2));
  writeFileSync(path.join(ws, 'wait.sh'), WAIT, { mode: 0o755 });
  const child = execa('node', [cli, 'run', '--config', file, '--headless', '--approve', 'all', '--on-pause', 'stop', '--watch-config', ...args], { cwd: dir, reject: false });
  await until(() => existsSync(path.join(ws, 'started')), 'the first tool to run');
  return { child, file };
}

const reloads = () => logEvents(dir).filter((e) => e.type === 'policy.reloaded');

it('a raised budget in the edited file applies mid-run; a new approval rule is declined headless without --watch-config-gates', async () => {
  const { child, file } = await runWatched(path.join(dir, 'cfg'));
  save(file, contract(4, { approval: { default: 'allow', deny: ['shell: rm'] } }));
  await until(() => reloads().length >= 2, 'the reload and its declined rule');
  writeFileSync(path.join(ws, 'go'), '');
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(2);
  const [reload, answer] = reloads();
  expect(reload?.data).toMatchObject({ trigger: 'watch' });
  expect(reload?.data.diff).toEqual(
    expect.arrayContaining([
      { path: 'budget.limits.turns', from: 2, to: 4, effect: 'applied' },
      { path: 'approval.deny', from: [], to: ['shell: rm'], effect: 'awaiting_key' },
    ]),
  );
  expect(answer?.data).toMatchObject({ trigger: 'key', diff: [{ path: 'approval.deny', effect: 'declined' }] });
  expect(result.stderr).toContain('only with --watch-config-gates');
  expect(logEvents(dir).filter((e) => e.type === 'model.call')).toHaveLength(4);
});

it('with --watch-config-gates the new approval rule applies headless', async () => {
  const { child, file } = await runWatched(path.join(dir, 'cfg'), ['--watch-config-gates']);
  save(file, contract(3, { approval: { default: 'allow', deny: ['shell: ./wait.sh'] } }));
  await until(() => reloads().length >= 1, 'the reload');
  writeFileSync(path.join(ws, 'go'), '');
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(2);
  expect(reloads()[0]?.data.diff).toEqual(expect.arrayContaining([{ path: 'approval.deny', from: [], to: ['shell: ./wait.sh'], effect: 'applied' }]));
  // Turns 2 and 3 called ./wait.sh: the new rule denied them.
  expect(logEvents(dir).filter((e) => e.type === 'tool.error').map((e) => e.data.call_id)).toEqual(['c2', 'c3']);
});

it('a loop.yaml inside the workspace is never watched: an edit changes nothing', async () => {
  const { child, file } = await runWatched(ws);
  save(file, contract(4));
  // Give a watcher, had there been one, time to see the edit.
  await new Promise((resolve) => setTimeout(resolve, 800));
  writeFileSync(path.join(ws, 'go'), '');
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(2);
  expect(result.stderr).toMatch(/--watch-config: .*loop\.yaml is not watched: it lies inside the workspace/);
  expect(reloads()).toEqual([]);
  expect(logEvents(dir).filter((e) => e.type === 'model.call')).toHaveLength(2);
});
