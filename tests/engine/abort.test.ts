import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildFailureReport,
  FAILURE_REPORT_FILE,
  parkWorkspace,
  recordAbort,
  restoreInstruction,
  writeFailureReport,
  type FailureReport,
  type StashOutcome,
} from '../../src/engine/abort.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import type { BudgetLimits, BudgetUsage } from '../../src/engine/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix = 'loopdeck-abort-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execa('git', args, { cwd })).stdout;
}

/** A repo with a local identity (CI has no global git config) and `files` committed, unless `commit` is false. */
async function repo(files: Record<string, string>, commit = true): Promise<string> {
  const dir = tempDir('loopdeck-ws-');
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'config', 'user.name', 'loopdeck test');
  await git(dir, 'config', 'user.email', 'test@loopdeck.invalid');
  write(dir, files);
  if (commit) {
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', 'start');
  }
  return dir;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

const status = (dir: string) => git(dir, 'status', '--porcelain=v1', '--untracked-files=all');

/** `stash@{n}: <sha> <subject>` lines, newest first. */
const stashList = (dir: string) => git(dir, 'stash', 'list', '--format=%gd %H %gs');

const LIMITS: BudgetLimits = { turns: 10, tool_calls: 20, wall_clock_seconds: 600, tokens: null, cost_usd: 1 };
const USAGE: BudgetUsage = { turns: 4, tool_calls: 9, wall_clock_seconds: 42.5, tokens: 12_000, cost_usd: 0.12 };

/** `n` events of the log, `seq` 0..n-1. */
function events(n: number): LoopEvent[] {
  return Array.from({ length: n }, (_, seq) => ({
    seq,
    at: 1_000 + seq,
    session: 's1',
    type: 'step.start',
    data: { step: seq, turn: seq, title: `step ${seq}` },
  }));
}

function expectStashed(outcome: StashOutcome): asserts outcome is Extract<StashOutcome, { status: 'stashed' }> {
  expect(outcome.status).toBe('stashed');
}

describe('parkWorkspace', () => {
  it('stashes modified tracked and untracked files, names the stash by SHA, and leaves older stashes alone', async () => {
    const ws = await repo({ 'src/a.ts': 'a\n', 'b.txt': 'b\n', 'gone.txt': 'g\n', '.gitignore': 'dist/\n' });
    // a stash the operator made earlier
    write(ws, { 'b.txt': 'older work\n' });
    await git(ws, 'stash', 'push', '-m', 'operator work');
    const olderList = await stashList(ws);
    const olderSha = (await git(ws, 'rev-parse', 'stash@{0}')).trim();

    write(ws, { 'src/a.ts': 'a changed\n', 'staged.txt': 'staged\n', 'notes/new.md': 'untracked\n', 'dist/out.js': 'ignored\n' });
    await git(ws, 'add', 'staged.txt');
    rmSync(path.join(ws, 'gone.txt'));

    const outcome = await parkWorkspace(ws, 's1');
    expectStashed(outcome);
    expect(outcome.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(outcome.message).toBe('On main: loopdeck-abort s1');
    expect(outcome.tracked).toEqual(['gone.txt', 'src/a.ts', 'staged.txt']);
    expect(outcome.untracked).toEqual(['notes/new.md']);

    // the workspace is clean; the ignored file is left where it was
    expect(await status(ws)).toBe('');
    expect(readFileSync(path.join(ws, 'dist/out.js'), 'utf8')).toBe('ignored\n');
    expect(existsSync(path.join(ws, 'notes/new.md'))).toBe(false);

    // the stash is ours, on top, and git shows every path in it
    expect((await git(ws, 'rev-parse', 'stash@{0}')).trim()).toBe(outcome.sha);
    const shown = (await git(ws, 'stash', 'show', '--include-untracked', '--name-only', outcome.sha)).split('\n').sort();
    expect(shown).toEqual(['gone.txt', 'notes/new.md', 'src/a.ts', 'staged.txt']);

    // the earlier entry is untouched, one below
    expect((await git(ws, 'rev-parse', 'stash@{1}')).trim()).toBe(olderSha);
    expect((await stashList(ws)).split('\n').slice(1)).toEqual(olderList.split('\n').map((l) => l.replace('stash@{0}', 'stash@{1}')));

    // and the work comes back with the restore instruction's command
    await git(ws, 'stash', 'apply', outcome.sha);
    expect(readFileSync(path.join(ws, 'notes/new.md'), 'utf8')).toBe('untracked\n');
    expect(readFileSync(path.join(ws, 'src/a.ts'), 'utf8')).toBe('a changed\n');
    expect((await stashList(ws)).split('\n')).toHaveLength(2);
  });

  it('says nothing_to_stash for a clean workspace and creates no stash', async () => {
    const ws = await repo({ 'a.txt': 'a\n', '.gitignore': '*.log\n' });
    write(ws, { 'debug.log': 'ignored only\n' });
    expect(await parkWorkspace(ws, 's1')).toEqual({ status: 'nothing_to_stash' });
    expect(await stashList(ws)).toBe('');
    expect(existsSync(path.join(ws, 'debug.log'))).toBe(true);
  });

  it('says not_a_git_repo and touches nothing outside git', async () => {
    const ws = tempDir();
    write(ws, { 'a.txt': 'a\n' });
    expect(await parkWorkspace(ws, 's1')).toEqual({ status: 'not_a_git_repo' });
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('reports a failing stash plainly and deletes nothing (no commit yet)', async () => {
    const ws = await repo({ 'a.txt': 'a\n' }, false);
    const outcome = await parkWorkspace(ws, 's1');
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') throw new Error('unreachable');
    expect(outcome.error).toMatch(/git stash push failed/);
    expect(outcome.sha).toBeNull();
    expect(readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('a\n');
    expect(restoreInstruction(ws, outcome)).toMatch(/nothing was deleted/);
  });

  it('reports a workspace that does not exist as failed, without throwing', async () => {
    const outcome = await parkWorkspace(path.join(tempDir(), 'missing'), 's1');
    expect(outcome.status).toBe('failed');
  });

  it('leaves an excluded run directory inside the workspace in place', async () => {
    const ws = await repo({ 'a.txt': 'a\n' });
    write(ws, { 'a.txt': 'changed\n', '.loopdeck/runs/s1/events.jsonl': '{"seq":0}\n' });
    const outcome = await parkWorkspace(ws, 's1', { exclude: [path.join(ws, '.loopdeck', 'runs', 's1'), '/elsewhere'] });
    expectStashed(outcome);
    expect(outcome.tracked).toEqual(['a.txt']);
    expect(outcome.untracked).toEqual([]);
    expect(await status(ws)).toBe('?? .loopdeck/runs/s1/events.jsonl');
    // only the excluded directory changed: nothing to stash
    expect(await parkWorkspace(ws, 's2', { exclude: [path.join(ws, '.loopdeck', 'runs', 's1')] })).toEqual({ status: 'nothing_to_stash' });
  });

  it('parks even when git has no committer identity configured', async () => {
    const ws = await repo({ 'a.txt': 'a\n' });
    await git(ws, 'config', '--unset', 'user.name');
    await git(ws, 'config', '--unset', 'user.email');
    write(ws, { 'a.txt': 'changed\n', 'u.txt': 'u\n' });
    const saved = { global: process.env.GIT_CONFIG_GLOBAL, nosystem: process.env.GIT_CONFIG_NOSYSTEM };
    process.env.GIT_CONFIG_GLOBAL = '/dev/null';
    process.env.GIT_CONFIG_NOSYSTEM = '1';
    try {
      const outcome = await parkWorkspace(ws, 's1');
      expectStashed(outcome);
      expect(outcome.untracked).toEqual(['u.txt']);
      expect(await git(ws, 'log', '-1', '--format=%cn <%ce>', outcome.sha)).toBe('loopdeck <loopdeck@localhost>');
    } finally {
      if (saved.global === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved.global;
      if (saved.nosystem === undefined) delete process.env.GIT_CONFIG_NOSYSTEM;
      else process.env.GIT_CONFIG_NOSYSTEM = saved.nosystem;
    }
  });
});

describe('failure report', () => {
  const goal = newGoal('fix the serializer', ['tests pass'], ['no new deps']);

  it('builds the report: ISO time, the last 10 events, the restore command', () => {
    const stash: StashOutcome = { status: 'stashed', sha: 'a'.repeat(40), message: 'On main: loopdeck-abort s1', repository: '/w', pathspec: [':(top)'], tracked: ['x'], untracked: [] };
    const report = buildFailureReport({
      reason: 'circuit_breaker:repetition',
      now: Date.UTC(2026, 0, 2, 3, 4, 5),
      session: 's1',
      workspace: "/tmp/my ws's",
      goal,
      budget: { limits: LIMITS, usage: USAGE },
      events: events(25),
      stash,
      progress_file: null,
    });
    expect(report.at).toBe('2026-01-02T03:04:05.000Z');
    expect(report.last_events.map((e) => e.seq)).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
    expect(report.restore).toBe(`The workspace changes were stashed, not deleted. To restore them: cd '/tmp/my ws'\\''s' && git stash apply ${'a'.repeat(40)}`);
  });

  it('says each other outcome plainly', () => {
    expect(restoreInstruction('/w', { status: 'nothing_to_stash' })).toMatch(/^Nothing to stash/);
    expect(restoreInstruction('/w', { status: 'not_a_git_repo' })).toMatch(/not a git repository/);
    expect(restoreInstruction('/w', { status: 'failed', error: 'boom', sha: 'b'.repeat(40) })).toMatch(/git stash apply b{40}$/);
  });

  it('writes the JSON, creating the run directory', async () => {
    const runDir = path.join(tempDir('loopdeck-cwd-'), '.loopdeck', 'runs', 's1');
    const report = buildFailureReport({
      reason: 'operator',
      now: 0,
      session: 's1',
      workspace: '/w',
      goal,
      budget: { limits: LIMITS, usage: USAGE },
      events: events(3),
      stash: { status: 'not_a_git_repo' },
      progress_file: { path: '/w/PROGRESS.md', content: 'lap 1: done A\n' },
    });
    const file = await writeFailureReport(runDir, report);
    expect(file).toBe(path.join(runDir, FAILURE_REPORT_FILE));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(report);
  });

  it('aborts a real workspace: clean afterwards, report outside it naming the stash, its paths and the progress file', async () => {
    const ws = await repo({ 'src/a.ts': 'a\n', 'PROGRESS.md': 'lap 0\n' });
    write(ws, { 'src/a.ts': 'broken edit\n', 'PROGRESS.md': 'lap 1: tried the serializer\n', 'scratch.txt': 'scratch\n' });
    const cwd = tempDir('loopdeck-cwd-');
    const runDir = path.join(cwd, '.loopdeck', 'runs', 's1');

    const { report, path: file } = await recordAbort({
      reason: 'circuit_breaker:repetition',
      now: Date.UTC(2026, 0, 1),
      session: 's1',
      workspace: ws,
      runDir,
      goal,
      budget: { limits: LIMITS, usage: USAGE },
      events: events(12),
      progressFile: path.join(ws, 'PROGRESS.md'),
    });

    expect(await status(ws)).toBe('');
    expect(file).toBe(path.join(runDir, 'failure-report.json'));
    expect(path.relative(ws, file!).startsWith('..')).toBe(true);
    const onDisk = JSON.parse(readFileSync(file!, 'utf8')) as FailureReport;
    expect(onDisk).toEqual(report);
    expectStashed(onDisk.stash);
    expect(onDisk.stash.sha).toBe((await git(ws, 'rev-parse', 'stash@{0}')).trim());
    expect(onDisk.stash.tracked).toEqual(['PROGRESS.md', 'src/a.ts']);
    expect(onDisk.stash.untracked).toEqual(['scratch.txt']);
    expect(onDisk.progress_file).toEqual({ path: path.join(ws, 'PROGRESS.md'), content: 'lap 1: tried the serializer\n' });
    expect(onDisk.last_events).toHaveLength(10);
    expect(onDisk.budget).toEqual({ limits: LIMITS, usage: USAGE });
    expect(onDisk.goal).toEqual(goal);
    expect(onDisk.reason).toBe('circuit_breaker:repetition');
    expect(onDisk.restore).toContain(`git stash apply ${onDisk.stash.sha}`);
  });

  it('keeps the report and its log when the run directory is inside the workspace', async () => {
    const ws = await repo({ 'a.txt': 'a\n' });
    const runDir = path.join(ws, '.loopdeck', 'runs', 's1');
    write(runDir, { 'events.jsonl': '{"seq":0}\n' });
    write(ws, { 'a.txt': 'changed\n' });
    const { report, path: file } = await recordAbort({
      reason: 'operator',
      now: 0,
      session: 's1',
      workspace: ws,
      runDir,
      goal,
      budget: { limits: LIMITS, usage: USAGE },
      events: [],
      progressFile: null,
    });
    expectStashed(report.stash);
    expect(report.stash.untracked).toEqual([]);
    expect(existsSync(path.join(runDir, 'events.jsonl'))).toBe(true);
    expect(existsSync(file!)).toBe(true);
    expect(report.progress_file).toBeNull();
  });
});
