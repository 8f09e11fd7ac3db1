// A `kill -9` of loopdeck leaves its running tool's process group (and a process that left
// the group with setsid) under pid 1. `resume` finds them by the group and tag recorded in
// the log, kills them before anything else runs and says so; a recorded group that holds
// no process of ours is left alone. The interrupted call is asked about again as
// interrupted mid-run. Needs `npm run build` (dist/cli.js).
import { execSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fold } from '../../src/engine/fold.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { killAll, logEvents, running, runDir, until } from '../support/stop-rig.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
let dir: string;
const MARK = `88${process.pid}`;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-crash-'));
  execSync('git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init', { cwd: dir });
});
afterEach(() => {
  killAll(MARK);
  rmSync(dir, { recursive: true, force: true });
});

it('resume after kill -9 kills what the crashed run left running, only that, and re-asks the call as interrupted mid-run', { retry: 1 }, async () => {
  // The tool appends, starts a helper that leaves the group, then works for a long time.
  const command = `echo t1 >> appends; setsid sleep 51.${MARK} & sleep 52.${MARK}`;
  writeFileSync(path.join(dir, 'script.yaml'), ['turns:', `  - tool_calls: [{ id: t1, name: shell, args: { command: "${command}" } }]`, '  - final: done'].join('\n'));
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    ['goal: { objective: finish }', 'workspace: { path: ., copy: none }', 'agent: { kind: scripted, script: script.yaml }', 'verify: [{ command: "true" }]'].join('\n'),
  );
  const crashed = execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'all'], { cwd: dir, reject: false });
  await until(() => running(`sleep 51.${MARK}`, true).length === 1 && running(`sleep 52.${MARK}`, true).length === 1, 'the tool and its escaped helper');
  crashed.kill('SIGKILL');
  expect((await crashed).signal).toBe('SIGKILL');
  // Both outlive loopdeck.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const left = [...running(`sleep 51.${MARK}`, true), ...running(`sleep 52.${MARK}`, true)];
  expect(left).toHaveLength(2);
  // With the shell that waits for the tool's work: everything of the run still running.
  const ours = running(MARK);

  // A process group the log names that is not ours (a recorded number reused): left alone.
  const decoy = spawn('sleep', [`53.${MARK}`], { detached: true, stdio: 'ignore' });
  const events = logEvents(dir);
  const last = events.at(-1)!;
  appendFileSync(
    path.join(runDir(dir)!, 'events.jsonl'),
    `${JSON.stringify({ seq: last.seq + 1, at: (last as unknown as { at: number }).at + 1, session: (last as unknown as { session: string }).session, type: 'process.start', data: { pid: decoy.pid, pgid: decoy.pid, tag: 'not-a-tag-of-this-run', command: 'sleep' } })}\n`,
  );

  const resumed = await execa('node', [cli, 'resume', runDir(dir)!, '--headless', '--yes', '--approve', 'none'], { cwd: dir, reject: false });
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  // Signalled before the resumed run went on; on a loaded machine the exit can lag a little.
  await until(() => running(`sleep 51.${MARK}`, true).length === 0 && running(`sleep 52.${MARK}`, true).length === 0, 'the survivors to be gone', 3000);
  expect(running(`sleep 53.${MARK}`, true)).toEqual([decoy.pid]);

  // Said on screen and in the log, before the re-asked call was decided.
  expect(resumed.stderr).toMatch(/killed \d+ process\(es\) the earlier run left running: .*sleep 5[12]\./);
  const after = resumed.stdout.trim().split('\n').map((line) => JSON.parse(line) as LoopEvent);
  const reaped = after.find((e) => e.type === 'process.reaped');
  expect(reaped?.type === 'process.reaped' && reaped.data.processes.map((p) => p.pid).sort()).toEqual(ours.sort());
  expect(running(MARK).filter((pid) => pid !== decoy.pid)).toEqual([]);
  const types = after.map((e) => e.type);
  expect(types.slice(0, 2)).toEqual(['session.resume', 'process.reaped']);
  // The call was asked about again (and denied here), as interrupted mid-run: it ran once.
  const resume = after.find((e) => e.type === 'session.resume')!;
  const state = fold([...logEvents(dir).filter((e) => e.seq < resume.seq), resume] as unknown as LoopEvent[]);
  expect(state.pending?.kind === 'tool' && state.pending.reason).toMatch(/interrupted mid-run.*may already have had effects/);
  expect(readFileSync(path.join(dir, 'appends'), 'utf8')).toBe('t1\n');
  decoy.kill('SIGKILL');
});
