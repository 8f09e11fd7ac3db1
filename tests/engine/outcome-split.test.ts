// `aborted` names one outcome only: the circuit breaker, which parks the workspace with git
// stash and writes a failure report (abort.recorded). A run the agent cannot carry on ends
// `failed`: nothing is stashed, no report is written, the workspace stays as the agent
// left it. Real git repositories in temp dirs; a scripted agent.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { doneReason, DONE_REASONS } from '../../src/engine/machine.js';
import { foldLog } from '../../src/engine/log.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function repo(): string {
  const dir = tempDir('loopdeck-split-');
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.name', 'test');
  git(dir, 'config', 'user.email', 'test@localhost');
  writeFileSync(path.join(dir, 'app.js'), 'export const x = 1;\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'start');
  return dir;
}

/** Runs `turns` in a git repo to the end; `abortAfter`: `/stop --abort` once that call's result is in. */
async function runTo(turns: unknown[], abortAfter?: string) {
  const dir = repo();
  const runDir = path.join(tempDir('loopdeck-split-run-'), 's1');
  const policy = parsePolicy(
    stringify({ goal: { objective: 'x' }, agent: { kind: 'scripted', script: 'x.yaml' }, workspace: { path: '.', copy: 'none' }, verify: [{ command: 'test -f done.txt' }], hooks: [], checkpoint: { every_iterations: 50 } }),
    path.join(dir, 'loop.yaml'),
  );
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({ id: 's1', agent: ScriptedAgent.fromYaml(stringify({ turns })), policy, workspace: dir, runDir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
  session.subscribe((e) => {
    if (abortAfter && e.type === 'tool.result' && e.data.result.call_id === abortAfter) void session.command('/stop --abort');
  });
  const outcome = await drive(session.run(newGoal('x')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  return { dir, runDir, outcome, events };
}

const edit = { tool_calls: [{ id: 'w1', name: 'write_file', args: { path: 'app.js', content: 'export const x = 2;\n' } }] };

it('the agent cannot go on: the run ends failed, nothing stashed, no report, the change left in place', async () => {
  const { dir, runDir, outcome, events } = await runTo([edit]);
  expect(outcome).toMatchObject({ reason: 'failed', summary: expect.stringMatching(/^the agent failed: .*turn 2 was asked for/) });
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'failed' } });
  expect(events.some((e) => e.type === 'abort.recorded')).toBe(false);
  expect(existsSync(path.join(runDir, 'failure-report.json'))).toBe(false);
  expect(git(dir, 'stash', 'list')).toBe('');
  expect(readFileSync(path.join(dir, 'app.js'), 'utf8')).toBe('export const x = 2;\n');
});

it('the circuit breaker: the run ends aborted, the change stashed and the report written', async () => {
  const { dir, runDir, outcome, events } = await runTo([edit, { thought: 'more' }], 'w1');
  expect(outcome.reason).toBe('aborted');
  const abort = events.find((e) => e.type === 'abort.recorded');
  expect(abort?.data).toMatchObject({ report: path.join(runDir, 'failure-report.json'), stash: expect.stringMatching(/^stashed as [0-9a-f]{40}$/) });
  expect(git(dir, 'stash', 'list')).toContain('loopdeck-abort');
  expect(readFileSync(path.join(dir, 'app.js'), 'utf8')).toBe('export const x = 1;\n');
});

it('an old log whose `aborted` meant the agent failed is read as failed: aborted names the circuit breaker only', () => {
  const file = path.resolve(import.meta.dirname, '../fixtures/logs/agent-error.jsonl');
  const text = readFileSync(file, 'utf8');
  expect(text).toContain('"reason":"aborted"');
  const { state, warnings } = foldLog(text, file);
  expect(warnings).toEqual([]);
  expect(state.done).toMatchObject({ reason: 'failed', summary: expect.stringMatching(/^the agent failed: /) });
  expect(state.abort).toBeNull();
});

describe('which recorded `aborted` ends are failures of logs before `failed` existed', () => {
  it.each([
    ['the agent failed: openai:x: turn 3: HTTP 500', false, 'failed'],
    ['3 laps in a row failed (last: the agent exited 1)', false, 'failed'],
    // The circuit breaker, whatever its reason: it parked the workspace.
    ['the agent failed: x', true, 'aborted'],
    ['STAGNATION_DETECTED: 2/2 checkpoints without observed progress', false, 'aborted'],
    ['the operator aborted the run (/stop --abort)', false, 'aborted'],
  ] as const)('%j (abort recorded: %s) is %s', (summary, abortRecorded, reason) => {
    expect(doneReason('aborted', summary, abortRecorded)).toBe(reason);
  });

  it('other reasons are read as recorded', () => {
    for (const reason of DONE_REASONS) if (reason !== 'aborted') expect(doneReason(reason, 'the agent failed: x', false)).toBe(reason);
  });
});
