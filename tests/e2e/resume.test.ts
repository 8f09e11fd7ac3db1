import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');

interface Event {
  seq: number;
  type: string;
  data: Record<string, any>;
}

function readEvents(file: string): Event[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Event);
}

const ANSWERS = ['--headless', '--approve', 'all', '--on-pause', 'continue'];

/**
 * Runs the CLI with `args` (a headless run or resume of the demo) and SIGKILLs it once the
 * run's log holds at least `after` events, `logged` of them there before it started (a
 * resume prints only the events it adds).
 */
async function killAfter(cwd: string, args: string[], after: number, logged = 0): Promise<void> {
  const child = spawn('node', [cli, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let lines = logged;
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      lines += chunk.toString().split('\n').length - 1;
      if (lines >= after && child.exitCode === null) {
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`run ended before the kill (exit ${code})`))));
  });
}

/** Starts a headless demo run and SIGKILLs it once its log holds at least `after` events; the run's folder. */
async function runAndKill(cwd: string, after: number): Promise<string> {
  await killAfter(cwd, ['run', '--config', path.join(root, 'loop.yaml'), ...ANSWERS], after);
  const runs = path.join(cwd, '.loopdeck/runs');
  return path.join(runs, readdirSync(runs)[0]!);
}

/** Where the demo run is killed: early in turn 2; after two checkpoints without progress; after the stagnation pause was answered. */
const KILLS = [25, 75, 140];

/**
 * A killed run's log as the kill left it: not ended, and a resume without --yes refuses
 * (headless resumes only when told to) and leaves it untouched.
 */
async function expectKilled(cwd: string, runDir: string): Promise<Event[]> {
  const before = readEvents(path.join(runDir, 'events.jsonl'));
  expect(before.at(-1)!.type).not.toBe('session.complete');
  const refused = await execa('node', [cli, 'resume', runDir, '--headless'], { cwd, reject: false });
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toContain('needs --yes');
  expect(readEvents(path.join(runDir, 'events.jsonl'))).toHaveLength(before.length);
  return before;
}

/**
 * Resumes the killed run to its end (naming its log file, which names the run as well as
 * its folder) and checks the whole log: seqs without a gap, one start, every turn of the
 * demo once, every tool call's result once, the goal met; a resume after that refuses.
 */
async function expectResumedToTheEnd(cwd: string, runDir: string): Promise<void> {
  const resumed = await execa('node', [cli, 'resume', path.join(runDir, 'events.jsonl'), '--yes', ...ANSWERS], { cwd, reject: false });
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  const events = readEvents(path.join(runDir, 'events.jsonl'));
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  expect(events.filter((e) => e.type === 'session.start')).toHaveLength(1);
  const turns = events.filter((e) => e.type === 'model.call').map((e) => e.data.turn as number);
  expect(turns).toEqual(Array.from({ length: 18 }, (_, i) => i + 1));
  const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.data.call.id as string);
  const results = events
    .filter((e) => e.type === 'tool.result' || e.type === 'tool.error')
    .map((e) => (e.type === 'tool.result' ? e.data.result.call_id : e.data.call_id) as string);
  expect([...results].sort()).toEqual([...new Set(calls)].sort());
  expect(new Set(results).size).toBe(results.length);
  expect(events.at(-1)!.type).toBe('session.complete');
  expect(events.at(-1)!.data.reason).toBe('goal_met');

  const again = await execa('node', [cli, 'resume', runDir, '--headless', '--yes'], { cwd, reject: false });
  expect(again.exitCode).toBe(1);
  expect(again.stderr).toContain('the run is over');
}

describe('crash-resume', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-resume-'));
  });
  afterEach(() => {
    // The demo's workspace is a temporary copy the run's first event names.
    const runs = path.join(cwd, '.loopdeck/runs');
    for (const run of existsSync(runs) ? readdirSync(runs) : []) {
      const first = readFileSync(path.join(runs, run, 'events.jsonl'), 'utf8').split('\n')[0]!;
      const workspace = (JSON.parse(first) as Event).data.workspace as string;
      if (workspace.startsWith(os.tmpdir())) rmSync(workspace, { recursive: true, force: true });
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  // One demo run killed at each point in turn, resumed after each kill: every kill point
  // for the price of one run. CRASH_SWEEP=all also kills a fresh run at each point.
  it(`a run SIGKILLed after ${KILLS.join(', ')} events, resumed after each, completes with every turn and tool result once`, async () => {
    let runDir = '';
    let logged = 0;
    for (const after of KILLS) {
      if (logged === 0) runDir = await runAndKill(cwd, after);
      else await killAfter(cwd, ['resume', runDir, '--yes', ...ANSWERS], after, logged);
      logged = (await expectKilled(cwd, runDir)).length;
    }
    await expectResumedToTheEnd(cwd, runDir);
  }, 180_000);

  it.runIf(process.env.CRASH_SWEEP === 'all').each(KILLS)('a run SIGKILLed after %i events completes on resume with every turn and tool result once', async (after) => {
    const runDir = await runAndKill(cwd, after);
    await expectKilled(cwd, runDir);
    await expectResumedToTheEnd(cwd, runDir);
  }, 180_000);
});

// What resume and replay say of a killed run's folder: one run killed after 30 events
// serves them all. A test that changes the log works on a copy of the run's folder; the
// one that removes the workspace leaves the log as it was, which is all the others read.
describe('a killed run, read back', () => {
  let cwd: string;
  let runDir: string;
  let workspace: string;
  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-resume-'));
    runDir = await runAndKill(cwd, 30);
    workspace = readEvents(path.join(runDir, 'events.jsonl'))[0]!.data.workspace as string;
  });
  afterAll(() => {
    if (workspace) rmSync(workspace, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a run whose workspace is gone: resume says so before anything runs, and the log is untouched', async () => {
    const file = path.join(runDir, 'events.jsonl');
    const before = readFileSync(file, 'utf8');
    rmSync(workspace, { recursive: true, force: true });
    const result = await execa('node', [cli, 'resume', runDir, '--headless', '--yes'], { cwd, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`the run's workspace ${workspace} no longer exists`);
    expect(result.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('replay takes the run directory as well as its log file', async () => {
    const byDir = await execa('node', [cli, 'replay', runDir, '--headless'], { cwd, reject: false });
    const byFile = await execa('node', [cli, 'replay', path.join(runDir, 'events.jsonl'), '--headless'], { cwd, reject: false });
    expect(byDir.exitCode, byDir.stderr).toBe(0);
    expect(JSON.parse(byDir.stdout).eventCount).toBeGreaterThanOrEqual(25);
    expect(byDir.stdout).toBe(byFile.stdout);
  });

  it('refuses a log with a corrupt line in the middle, naming the line and the seq gap', async () => {
    const copy = path.join(cwd, 'corrupt-run');
    cpSync(runDir, copy, { recursive: true });
    const file = path.join(copy, 'events.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.splice(10, 2, '{"seq": 10, "garbage');
    writeFileSync(file, lines.join('\n'));
    const result = await execa('node', [cli, 'resume', copy, '--headless', '--yes'], { cwd, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${file}:11`);
    expect(result.stderr).toContain('expected seq 10, found 12');
  });
});
