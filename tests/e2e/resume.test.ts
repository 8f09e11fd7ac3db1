import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Starts a headless demo run and SIGKILLs it once its log holds at least `after` events. */
async function runAndKill(cwd: string, after: number): Promise<string> {
  const child = spawn('node', [cli, 'run', '--config', path.join(root, 'loop.yaml'), '--headless', '--approve', 'all', '--on-pause', 'continue'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let lines = 0;
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      lines += chunk.toString().split('\n').length - 1;
      if (lines >= after && child.exitCode === null) {
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`run ended before the kill (exit ${code})`))));
  });
  const runs = path.join(cwd, '.loopdeck/runs');
  return path.join(runs, readdirSync(runs)[0]!);
}

describe('crash-resume', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-resume-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it.each([25, 75, 140])('a run SIGKILLed after %i events completes on resume with every turn and tool result once', async (after) => {
    const runDir = await runAndKill(cwd, after);
    const before = readEvents(path.join(runDir, 'events.jsonl'));
    expect(before.at(-1)!.type).not.toBe('session.complete');

    const refused = await execa('node', [cli, 'resume', runDir, '--headless'], { cwd, reject: false });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('needs --yes');
    expect(readEvents(path.join(runDir, 'events.jsonl'))).toHaveLength(before.length);

    // The run's log file names the run as well as its directory.
    const resumed = await execa('node', [cli, 'resume', path.join(runDir, 'events.jsonl'), '--headless', '--yes', '--approve', 'all', '--on-pause', 'continue'], {
      cwd,
      reject: false,
    });
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
    rmSync(events[0]!.data.workspace as string, { recursive: true, force: true });
  });
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
