// Abort touches only what it owns: the workspace folder of a larger repository, never the
// files around it, never `.loopdeck/` run logs and reports, and only as `on_abort` says.
// Real git repositories in temp dirs, real sessions with the scripted agent.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parkWorkspace, recordAbort, type FailureReport, type StashOutcome } from '../../src/engine/abort.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import type { BudgetLimits, BudgetUsage } from '../../src/engine/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
}

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

function read(dir: string, name: string): string | null {
  return existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name), 'utf8') : null;
}

/**
 * A monorepo with the workspace at `mono/pkg`, committed, then dirtied inside and outside
 * the workspace (a modified, a staged-and-modified, an untracked file outside; a modified,
 * a staged new, an untracked file inside; a sibling folder sharing the name's prefix).
 */
function monorepo(): { top: string; ws: string } {
  const top = tempDir('loopdeck-mono-');
  git(top, 'init', '-q', '-b', 'main');
  git(top, 'config', 'user.name', 'test');
  git(top, 'config', 'user.email', 'test@localhost');
  write(top, { 'README.md': 'readme v1\n', 'other/notes.md': 'notes v1\n', 'mono/pkg/src/a.ts': 'a v1\n', 'mono/pkg-two/b.ts': 'b v1\n' });
  git(top, 'add', '-A');
  git(top, 'commit', '-qm', 'start');
  write(top, { 'README.md': 'readme staged\n' });
  git(top, 'add', 'README.md');
  write(top, {
    'README.md': 'readme on disk\n',
    'other/notes.md': 'notes v2\n',
    'other/new.txt': 'outside, untracked\n',
    'mono/pkg-two/b.ts': 'b v2\n',
    'mono/pkg/src/a.ts': 'a v2\n',
    'mono/pkg/staged.txt': 'staged inside\n',
    'mono/pkg/new.txt': 'inside, untracked\n',
  });
  git(top, 'add', 'mono/pkg/staged.txt');
  return { top, ws: path.join(top, 'mono', 'pkg') };
}

const OUTSIDE = ['README.md', 'other/notes.md', 'other/new.txt', 'mono/pkg-two/b.ts'];

/** Content on disk and status line of every path outside the workspace. */
function outsideState(top: string): Record<string, { text: string | null; status: string }> {
  const status = git(top, 'status', '--porcelain=v1', '--untracked-files=all').split('\n');
  return Object.fromEntries(OUTSIDE.map((p) => [p, { text: read(top, p), status: status.find((l) => l.endsWith(` ${p}`)) ?? '' }]));
}

function expectStashed(outcome: StashOutcome): asserts outcome is Extract<StashOutcome, { status: 'stashed' }> {
  expect(outcome.status).toBe('stashed');
}

describe('parkWorkspace in a sub-folder of a larger repository', () => {
  it('stashes only the workspace folder and says exactly which paths it stashed', async () => {
    const { top, ws } = monorepo();
    const before = outsideState(top);
    expect(before['README.md']!.status).toBe('MM README.md');

    const outcome = await parkWorkspace(ws, 's1');
    expectStashed(outcome);
    expect(outcome.repository).toBe(top);
    expect(outcome.tracked).toEqual(['mono/pkg/src/a.ts', 'mono/pkg/staged.txt']);
    expect(outcome.untracked).toEqual(['mono/pkg/new.txt']);
    expect(outcome.pathspec[0]).toBe(':(top,literal)mono/pkg');

    // everything outside is on disk, staged or not, exactly as before
    expect(outsideState(top)).toEqual(before);
    // the workspace is back to its committed state
    expect(git(ws, 'status', '--porcelain=v1', '--untracked-files=all', '--', '.')).toBe('');
    expect(read(ws, 'src/a.ts')).toBe('a v1\n');
    expect(read(ws, 'new.txt')).toBeNull();

    // and the stash gives it back
    git(ws, 'stash', 'apply', outcome.sha);
    expect(read(ws, 'src/a.ts')).toBe('a v2\n');
    expect(read(ws, 'new.txt')).toBe('inside, untracked\n');
    expect(read(ws, 'staged.txt')).toBe('staged inside\n');
  });

  it('never stashes .loopdeck/ folders (earlier runs, the current one), in the workspace or below it', async () => {
    const { top, ws } = monorepo();
    const runs = {
      '.loopdeck/runs/old/events.jsonl': '{"seq":0}\n',
      '.loopdeck/runs/old/failure-report.json': '{}\n',
      'sub/.loopdeck/runs/older/events.jsonl': '{"seq":0}\n',
    };
    write(ws, runs);
    const runDir = path.join(ws, '.loopdeck', 'runs', 's1');
    write(runDir, { 'events.jsonl': '{"seq":0}\n' });

    const { report, path: file } = await recordAbort({ ...abortInput(ws, runDir) });
    expectStashed(report.stash);
    expect(report.stash.untracked).toEqual(['mono/pkg/new.txt']);
    for (const [name, text] of Object.entries(runs)) expect(read(ws, name)).toBe(text);
    expect(read(runDir, 'events.jsonl')).toBe('{"seq":0}\n');
    expect(file).toBe(path.join(runDir, 'failure-report.json'));
    expect(JSON.parse(readFileSync(file!, 'utf8')).stash.sha).toBe(report.stash.sha);
  });

  it('never stashes .loopdeck/ when the workspace is the whole repository', async () => {
    const { top } = monorepo();
    write(top, { '.loopdeck/runs/old/events.jsonl': 'old\n' });
    const outcome = await parkWorkspace(top, 's1');
    expectStashed(outcome);
    expect(outcome.untracked).toEqual(['mono/pkg/new.txt', 'other/new.txt']);
    expect(read(top, '.loopdeck/runs/old/events.jsonl')).toBe('old\n');
  });

  it('on_abort.stash false: nothing stashed, the report still written and saying so', async () => {
    const { top, ws } = monorepo();
    const runDir = path.join(tempDir('loopdeck-cwd-'), '.loopdeck', 'runs', 's1');
    const { report, path: file } = await recordAbort({ ...abortInput(ws, runDir), stash: false });
    expect(report.stash).toEqual({ status: 'disabled' });
    expect(report.restore).toMatch(/on_abort\.stash: false/);
    expect(git(top, 'stash', 'list')).toBe('');
    expect(read(ws, 'src/a.ts')).toBe('a v2\n');
    expect((JSON.parse(readFileSync(file!, 'utf8')) as FailureReport).stash).toEqual({ status: 'disabled' });
  });

  it('on_abort.report false: the workspace is stashed, no report file is written', async () => {
    const { ws } = monorepo();
    const runDir = path.join(tempDir('loopdeck-cwd-'), '.loopdeck', 'runs', 's1');
    const { report, path: file } = await recordAbort({ ...abortInput(ws, runDir), report: false });
    expect(file).toBeNull();
    expectStashed(report.stash);
    expect(existsSync(path.join(runDir, 'failure-report.json'))).toBe(false);
  });
});

const LIMITS: BudgetLimits = { turns: 10, tool_calls: 20, wall_clock_seconds: 600, tokens: null, cost_usd: 1 };
const USAGE: BudgetUsage = { turns: 1, tool_calls: 1, wall_clock_seconds: 1, tokens: 0, cost_usd: 0 };

function abortInput(ws: string, runDir: string) {
  return {
    reason: 'operator',
    now: 0,
    session: 's1',
    workspace: ws,
    runDir,
    goal: newGoal('x'),
    budget: { limits: LIMITS, usage: USAGE },
    events: [],
    progressFile: null,
  };
}

/** A run in `ws` that writes one file, then is aborted with `/stop --abort`. */
async function abortedRun(ws: string, runDir: string, onAbort: Record<string, boolean>): Promise<LoopEvent[]> {
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'change files' },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      hooks: [],
      pattern: 'react',
      on_abort: onAbort,
    }),
    path.join(ws, 'loop.yaml'),
  );
  const agent = ScriptedAgent.fromYaml(
    stringify({ turns: [{ tool_calls: [{ id: 't1', name: 'write_file', args: { path: 'src/agent.ts', content: 'by the agent\n' } }] }, { thought: 'never reached' }] }),
  );
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({ id: 's1', agent, policy, workspace: ws, runDir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
  session.subscribe((e) => {
    if (e.type === 'tool.result' && e.data.result.call_id === 't1') void session.command('/stop --abort');
  });
  const end = await session.run(newGoal('change files')).next();
  expect(end).toMatchObject({ done: true, value: { reason: 'aborted' } });
  return events;
}

const recorded = (events: LoopEvent[]) => events.find((e) => e.type === 'abort.recorded')?.data as { report: string; stash: string } | undefined;

describe('/stop --abort in a run', () => {
  it('started inside mono/pkg: stashes the workspace only, keeps earlier runs and the files around it, reports the paths', async () => {
    const { top, ws } = monorepo();
    write(ws, { '.loopdeck/runs/old/events.jsonl': 'old run\n' });
    const before = outsideState(top);
    const runDir = path.join(ws, '.loopdeck', 'runs', 's1');
    const events = await abortedRun(ws, runDir, {});

    expect(outsideState(top)).toEqual(before);
    expect(read(ws, '.loopdeck/runs/old/events.jsonl')).toBe('old run\n');
    expect(read(ws, 'src/agent.ts')).toBeNull();
    const report = JSON.parse(readFileSync(path.join(runDir, 'failure-report.json'), 'utf8')) as FailureReport;
    expectStashed(report.stash);
    expect(report.stash.tracked).toEqual(['mono/pkg/src/a.ts', 'mono/pkg/staged.txt']);
    expect(report.stash.untracked).toEqual(['mono/pkg/new.txt', 'mono/pkg/src/agent.ts']);
    expect(recorded(events)).toMatchObject({ report: path.join(runDir, 'failure-report.json'), stash: `stashed as ${report.stash.sha}` });
  });

  it('on_abort.stash false: nothing is stashed; the report is written and says so', async () => {
    const { top, ws } = monorepo();
    const runDir = path.join(tempDir('loopdeck-cwd-'), '.loopdeck', 'runs', 's1');
    const events = await abortedRun(ws, runDir, { stash: false });
    expect(git(top, 'stash', 'list')).toBe('');
    expect(read(ws, 'src/agent.ts')).toBe('by the agent\n');
    expect(read(ws, 'src/a.ts')).toBe('a v2\n');
    const report = JSON.parse(readFileSync(path.join(runDir, 'failure-report.json'), 'utf8')) as FailureReport;
    expect(report.stash).toEqual({ status: 'disabled' });
    expect(recorded(events)?.stash).toBe('not stashed (on_abort.stash: false)');
  });

  it('on_abort.report false: the workspace is stashed and no report file is written', async () => {
    const { top, ws } = monorepo();
    const runDir = path.join(tempDir('loopdeck-cwd-'), '.loopdeck', 'runs', 's1');
    const events = await abortedRun(ws, runDir, { report: false });
    expect(existsSync(path.join(runDir, 'failure-report.json'))).toBe(false);
    expect(git(top, 'stash', 'list').split('\n')).toHaveLength(1);
    expect(read(ws, 'src/agent.ts')).toBeNull();
    expect(recorded(events)).toMatchObject({ report: 'not written (on_abort.report: false)', stash: expect.stringMatching(/^stashed as [0-9a-f]{40}$/) });
  });
});
