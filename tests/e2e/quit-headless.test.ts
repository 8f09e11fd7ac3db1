// Quit in headless mode: SIGINT, SIGTERM, SIGHUP or SIGQUIT stop the run where it is, from any
// state (a model request, a tool, a command agent's lap, a verify), kill the run's child
// process groups, keep the log resumable and exit 130 whichever signal it was.
// Needs `npm run build` (dist/cli.js).
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { killAll, logEvents, ModelServer, running, runDir, until } from '../support/stop-rig.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
let dir: string;
let server: ModelServer | null = null;
/** A word in every long-running child's command line, unique to this test file's run. */
const MARK = `77${process.pid}`;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-quit-'));
  execSync('git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init', { cwd: dir });
});
afterEach(() => {
  server?.close();
  server = null;
  killAll(MARK);
  rmSync(dir, { recursive: true, force: true });
});

function config(lines: string[]): void {
  writeFileSync(path.join(dir, 'loop.yaml'), ['goal: { objective: finish }', 'workspace: { path: ., copy: none }', ...lines].join('\n'));
}

function start(args: string[] = ['run', '--config', 'loop.yaml']): ResultPromise<{ reject: false }> {
  return execa('node', [cli, ...args, '--headless', '--approve', 'all'], { cwd: dir, reject: false, env: { OPENAI_API_KEY: '' } });
}

const types = () => logEvents(dir).map((e) => e.type);

it.each([
  ['SIGINT', 130],
  ['SIGTERM', 130],
  ['SIGHUP', 130],
  ['SIGQUIT', 130],
] as const)('%s during a model request stops the run where it is, resumable (exit %i)', async (signal, code) => {
  server = await new ModelServer().start();
  config([`agent: { kind: openai, model: test-model, base_url: "${server.url}" }`, 'verify: [{ command: "true" }]']);
  const child = start();
  await until(() => server!.held.length === 1, 'the model request to stall');
  child.kill(signal);
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(code);
  expect(result.stderr).toContain(`interrupted (${signal}): the run stopped where it was; the log is kept`);
  expect(result.stderr).toMatch(/continue with:\n.*resume /);
  // Without a terminal, the command printed for that resumes as printed, with this run's answers.
  const headless = /^or, without a terminal, as this run went:\n(.+)$/m.exec(result.stderr)?.[1];
  expect(headless, result.stderr).toMatch(/ resume \S+ --headless --yes --approve all$/);
  // Nothing of the cut request was recorded: no failed step, no end, no abort.
  const events = types().filter((t) => t !== 'process.start');
  expect(events.slice(events.indexOf('step.start'))).toEqual(['step.start']);

  // The log resumes: the model is asked again and the run ends.
  server.stall = false;
  const resumed = await execa('sh', ['-c', headless!], { cwd: dir, reject: false, env: { OPENAI_API_KEY: '' } });
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  expect(types().filter((t) => t === 'model.call')).toHaveLength(1);
  expect(server.requests).toBe(2);
});

it('SIGTERM during a tool kills its process group and records nothing more: no next turn, no verify', async () => {
  writeFileSync(
    path.join(dir, 'script.yaml'),
    ['turns:', `  - tool_calls: [{ id: t1, name: shell, args: { command: "sleep 41.${MARK} & echo started > started; sleep 42.${MARK}" } }]`, '  - final: done'].join('\n'),
  );
  config(['agent: { kind: scripted, script: script.yaml }', 'verify: [{ command: "true" }]']);
  const child = start();
  await until(() => existsSync(path.join(dir, 'started')) && running(`42.${MARK}`).length >= 2, 'the tool and its background child');
  child.kill('SIGTERM');
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(130);
  expect(running(MARK)).toEqual([]);
  const events = types().filter((t) => t !== 'process.start');
  expect(events.slice(events.indexOf('tool.decision'))).toEqual(['tool.decision']);
});

it('SIGINT during a lap of a command agent kills the agent and starts no further lap', async () => {
  writeFileSync(path.join(dir, 'agent.sh'), `#!/bin/sh\ncat > /dev/null\nsleep 43.${MARK}\n`, { mode: 0o755 });
  config(['agent: { kind: command, command: ./agent.sh, prompt: stdin, timeout: 60s }', 'laps: { enabled: true, max_laps: 3 }', 'verify: [{ command: "false" }]']);
  const child = start();
  await until(() => running(MARK).length >= 1, 'the agent of lap 1');
  child.kill('SIGINT');
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(130);
  expect(running(MARK)).toEqual([]);
  const laps = logEvents(dir).filter((e) => e.type === 'lap.start').map((e) => e.data.lap);
  expect(laps).toEqual([1]);
  expect(types()).not.toContain('lap.end');
  expect(types()).not.toContain('session.complete');
});

it('SIGINT during a verify kills it and records no verdict', async () => {
  writeFileSync(path.join(dir, 'script.yaml'), ['turns:', '  - final: done'].join('\n'));
  config(['agent: { kind: scripted, script: script.yaml }', `verify: [{ command: "sleep 44.${MARK}", timeout: 60s }]`]);
  const child = start();
  await until(() => running(MARK).length >= 1, 'the verify command');
  child.kill('SIGINT');
  const result = await child;
  expect(result.exitCode, result.stderr).toBe(130);
  expect(running(MARK)).toEqual([]);
  expect(types()).not.toContain('verify.result');
  expect(types()).not.toContain('session.complete');
});
