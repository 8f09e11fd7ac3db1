/**
 * `loopdeck runs` and `loopdeck runs --prune` on real runs of the built CLI
 * (`npm run build` first), in a temp folder: every outcome keeps its workspace copy until
 * it is pruned; a running run shows as running, a quit one as resumable; `--prune`
 * removes only the copies of runs that ended long enough ago (the recorded times are moved
 * back to make them so), never one that is resumable, in place or holds an abort's stash,
 * asks first or refuses without a terminal, and leaves every log; `resume` then says the
 * copy was pruned.
 *
 * The runs are real runs of the built CLI. What `runs` (and `replay`) print about them is
 * read with the command run in this process (tests/support/cli-in-process.ts: the same
 * output and exit code); the built CLI is spawned for a listing, a prune, the refusals that
 * depend on the terminal, resume, and the prompt on a terminal.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI as cli, loopdeckInProcess } from '../support/cli-in-process.js';
import { damagedLogs } from '../support/damaged-logs.js';
import { startPty } from '../support/pty-terminal.js';
import { seededRandom } from '../support/random.js';

/** loopdeck as these tests start it, as its messages print it from `cwd`: `node <cli>` by the shorter path. */
function self(cwd: string): string {
  const relative = path.relative(cwd, cli);
  return `node ${relative.length < cli.length ? relative : cli}`;
}
const DAY = 86_400_000;
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Listed {
  id: string;
  run_dir: string;
  started: string | null;
  state: string;
  pid: number | null;
  outcome: { reason: string; summary: string; ended: string } | null;
  age_seconds: number;
  workspace: { path: string; copy: string; exists: boolean; bytes: number | null; stash: string | null; pruned: { workspace: string; pruned_at: string } | null };
  log: { warnings: string[]; unresumable: string | null; unreadable: string | null; untrustedEnd: string | null };
  kept_by_prune: string | null;
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A loop.yaml `<name>.yaml` and its transcript in `cwd`, working on `cwd/project` (a copy unless `copy` says otherwise). */
function loop(cwd: string, name: string, turns: string, extra = '', copy = 'temp'): string {
  writeFileSync(path.join(cwd, `${name}.script.yaml`), `turns:\n${turns}`);
  writeFileSync(
    path.join(cwd, `${name}.yaml`),
    `goal: { objective: ${name} }
agent: { kind: scripted, script: ${name}.script.yaml }
workspace: { path: project, copy: ${copy} }
verify: [{ command: "test -f done.txt" }]
approval: { default: allow }
${extra}`,
  );
  return `${name}.yaml`;
}

/** Runs a loop.yaml headless to its end; returns the run directory and the exit code. */
async function run(cwd: string, config: string): Promise<{ runDir: string; code: number; stderr: string }> {
  const before = new Set(listDirs(cwd));
  const r = await execa('node', [cli, 'run', '--headless', '--approve', 'all', '--on-pause', 'continue', '--config', config], { cwd, reject: false, stdin: 'ignore' });
  const made = listDirs(cwd).filter((d) => !before.has(d));
  expect(made, r.stderr).toHaveLength(1);
  return { runDir: path.join(cwd, '.loopdeck', 'runs', made[0]!), code: r.exitCode ?? -1, stderr: r.stderr };
}

function listDirs(cwd: string): string[] {
  const folder = path.join(cwd, '.loopdeck', 'runs');
  return existsSync(folder) ? readdirSync(folder) : [];
}

/** Moves every recorded time of a run's log `ms` on (back when negative). */
function shift(runDir: string, ms: number): void {
  const file = path.join(runDir, 'events.jsonl');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/"at":(\d+)/g, (_m, at: string) => `"at":${Number(at) + ms}`));
}

/** Moves every recorded time of a run's log `days` back, as if it had run then. */
const age = (runDir: string, days: number) => shift(runDir, -days * DAY);

/** One real goal_met run of a project holding a.txt, made once, for {@link cloneRun}. */
let template: Promise<string> | undefined;

/**
 * Another goal_met run in `cwd` without running one more: the folder of one real run
 * (the same for every call) copied to `cwd/.loopdeck/runs/<id>`, with a workspace copy of
 * its own (its copy, copied to a new temp folder, which its log then records), and its times
 * `laterMs` on. What `runs` reads of it is what it reads of a run of its own.
 */
async function cloneRun(cwd: string, laterMs = 0): Promise<string> {
  template ??= (async () => {
    const home = tempDir('loopdeck-runs-template-');
    mkdirSync(path.join(home, 'project'));
    writeFileSync(path.join(home, 'project', 'a.txt'), 'one\n');
    const made = await run(home, loop(home, 'met', WRITE_DONE));
    dirs.push(workspaceOf(made.runDir));
    expect(made.code, made.stderr).toBe(0);
    return made.runDir;
  })();
  const runDir = await template;
  const clone = path.join(cwd, '.loopdeck', 'runs', `${path.basename(runDir)}${laterMs === 0 ? '' : `-${laterMs}`}`);
  cpSync(runDir, clone, { recursive: true });
  const ws = workspaceOf(runDir);
  const copy = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-project-'));
  dirs.push(copy);
  cpSync(ws, copy, { recursive: true, verbatimSymlinks: true });
  const log = path.join(clone, 'events.jsonl');
  writeFileSync(log, readFileSync(log, 'utf8').replace(`"workspace":${JSON.stringify(ws)}`, `"workspace":${JSON.stringify(copy)}`));
  expect(workspaceOf(clone)).toBe(copy);
  shift(clone, laterMs);
  return clone;
}

/** `loopdeck <args>` in `cwd`, in this process. */
const loopdeck = (cwd: string, ...args: string[]) => loopdeckInProcess(args, { cwd });

/** The runs `runs --json` lists, one object a line. */
const parseListed = (stdout: string) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Listed);

/** What `loopdeck runs --json` in `cwd` lists, in this process. */
async function listed(cwd: string): Promise<Listed[]> {
  const r = await loopdeck(cwd, 'runs', '--json');
  expect([r.exitCode, r.stderr]).toEqual([0, '']);
  return parseListed(r.stdout);
}

/** The time of the last event a run's log records. */
const lastAt = (runDir: string) => Math.max(...[...readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').matchAll(/"at":(\d+)/g)].map((m) => Number(m[1])));
const workspaceOf = (runDir: string) => (JSON.parse(readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').split('\n')[0]!) as { data: { workspace: string } }).data.workspace;
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

const WRITE_DONE = '  - tool_calls: [{ id: w1, name: write_file, args: { path: done.txt, content: "ok\\n" } }]\n  - final: done\n';

describe('loopdeck runs', () => {
  let cwd: string;
  const runs: Record<string, string> = {};

  beforeAll(async () => {
    cwd = tempDir('loopdeck-runs-');
    mkdirSync(path.join(cwd, 'project'));
    writeFileSync(path.join(cwd, 'project', 'a.txt'), 'one\n');
    // goal_met, long ago (a real run, cloned into this folder: see cloneRun)
    runs.old = await cloneRun(cwd);
    // the agent cannot go on (its transcript runs out): failed, nothing parked
    const failed = await run(cwd, loop(cwd, 'failing', '  - tool_calls: [{ id: w1, name: write_file, args: { path: a.txt, content: "two\\n" } }]\n'));
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/loopdeck: failed: the agent failed: .*turn 2 was asked for/);
    expect(failed.stderr).toContain('nothing was stashed and no failure report written: the workspace is as the agent left it');
    runs.failed = failed.runDir;
    // the circuit breaker: aborted, the change parked in a stash in the copy
    runs.aborted = (await run(cwd, loop(cwd, 'aborting', '  - tool_calls: [{ id: w1, name: write_file, args: { path: a.txt, content: "two\\n" } }]\n  - final: done\n', 'budget: { max_iterations: 1, on_exhausted: abort }\n'))).runDir;
    // in place: the project itself, never pruned
    runs.inPlace = (await run(cwd, loop(cwd, 'inplace', WRITE_DONE, '', 'none'))).runDir;
    rmSync(path.join(cwd, 'project', 'done.txt'));
    // a run quit while a tool runs: running while its process lives, then resumable
    const slow = loop(cwd, 'slow', '  - tool_calls: [{ id: s1, name: shell, args: { command: "sleep 30" } }]\n  - final: done\n');
    const child = execa('node', [cli, 'run', '--headless', '--approve', 'all', '--config', slow], { cwd, reject: false, stdin: 'ignore' });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    for (let i = 0; i < 300 && !out.includes('"type":"tool.call"'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('"type":"tool.call"');
    runs.resumable = path.join(cwd, '.loopdeck', 'runs', listDirs(cwd).find((d) => !Object.values(runs).some((r) => path.basename(r) === d))!);
    const live = (await listed(cwd)).find((r) => r.run_dir === runs.resumable)!;
    expect(live).toMatchObject({ state: 'running', pid: child.pid, kept_by_prune: 'running' });
    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(130);
    // goal_met just now: the same run again, with a copy of its own, its times moved to now
    runs.recent = await cloneRun(cwd, Date.now() - lastAt(runs.old));
    for (const name of ['old', 'failed', 'aborted', 'inPlace', 'resumable']) age(runs[name]!, 8);
    for (const runDir of Object.values(runs)) if (runDir !== runs.inPlace) dirs.push(workspaceOf(runDir));
  }, 180_000);

  it('lists every run newest first with its state and workspace copy; every copy is still there whatever the outcome (the built CLI)', async () => {
    const json = await execa('node', [cli, 'runs', '--json'], { cwd, reject: false });
    expect([json.exitCode, json.stderr]).toEqual([0, '']);
    const all = parseListed(json.stdout);
    expect(all.map((r) => r.run_dir)).toEqual([runs.recent, runs.resumable, runs.inPlace, runs.aborted, runs.failed, runs.old]);
    const by = (runDir: string) => all.find((r) => r.run_dir === runDir)!;
    expect(by(runs.old!)).toMatchObject({ state: 'ended', outcome: { reason: 'goal_met' }, workspace: { copy: 'temp', exists: true, stash: null, pruned: null }, kept_by_prune: null });
    expect(by(runs.failed!)).toMatchObject({ state: 'ended', outcome: { reason: 'failed' }, workspace: { copy: 'temp', exists: true, stash: null }, kept_by_prune: null });
    expect(by(runs.aborted!)).toMatchObject({ state: 'ended', outcome: { reason: 'aborted' }, workspace: { copy: 'temp', exists: true, stash: 'abort' }, kept_by_prune: "holds the abort's stash" });
    expect(by(runs.inPlace!)).toMatchObject({ state: 'ended', outcome: { reason: 'goal_met' }, workspace: { copy: 'none', path: path.join(cwd, 'project') }, kept_by_prune: 'in place, not a copy' });
    expect(by(runs.resumable!)).toMatchObject({ state: 'resumable', pid: null, outcome: null, workspace: { copy: 'temp', exists: true }, kept_by_prune: 'resumable' });
    expect(by(runs.recent!)).toMatchObject({ state: 'ended', outcome: { reason: 'goal_met' }, kept_by_prune: 'ended recently' });
    expect(by(runs.old!).age_seconds).toBeGreaterThanOrEqual(8 * 86_400);
    expect(by(runs.recent!).age_seconds).toBeLessThan(3600);
    for (const r of all) if (r.workspace.copy === 'temp') expect(r.workspace.bytes).toBeGreaterThan(0);
    // The abort's restore command still has its stash to apply: the failed run parked nothing.
    expect(git(workspaceOf(runs.aborted!), 'stash', 'list')).toContain('loopdeck-abort');
    expect(readFileSync(path.join(workspaceOf(runs.failed!), 'a.txt'), 'utf8')).toBe('two\n');
    expect(git(workspaceOf(runs.failed!), 'stash', 'list')).toBe('');
    expect(existsSync(path.join(runs.failed!, 'failure-report.json'))).toBe(false);

    const shown = await execa('node', [cli, 'runs'], { cwd, reject: false });
    expect([shown.exitCode, shown.stderr]).toEqual([0, '']);
    const table = shown.stdout.split('\n');
    expect(table[0]).toMatch(/^RUN +STARTED \(UTC\) +STATE +AGE +WORKSPACE$/);
    expect(table).toHaveLength(7);
    const row = (runDir: string) => table.find((l) => l.startsWith(path.basename(runDir)))!;
    expect(row(runs.aborted!)).toMatch(new RegExp(`ended: aborted +8d +${workspaceOf(runs.aborted!)} \\(\\d+\\.\\d KiB, holds the abort's stash\\)$`));
    expect(row(runs.failed!)).toMatch(/ended: failed +8d /);
    expect(row(runs.resumable!)).toMatch(/ resumable +8d /);
    expect(row(runs.inPlace!)).toContain(`in place (not a copy): ${path.join(cwd, 'project')}`);
  });

  it('--older-than without --prune lists only the runs at least that old', async () => {
    const old = await loopdeck(cwd, 'runs', '--json', '--older-than', '5d');
    const ids = old.stdout.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as Listed).run_dir);
    expect(ids).toEqual([runs.resumable, runs.inPlace, runs.aborted, runs.failed, runs.old]);
    const table = (await loopdeck(cwd, 'runs', '--older-than', '1h')).stdout.split('\n');
    expect(table).toHaveLength(6);
    expect(table.some((line) => line.startsWith(path.basename(runs.recent!)))).toBe(false);
    const none = await loopdeck(cwd, 'runs', '--older-than', '30d');
    expect(none.stdout).toBe(`no runs older than 30d under ${path.join(cwd, '.loopdeck', 'runs')} (6 newer)`);
    const all = await loopdeck(cwd, 'runs', '--json', '--older-than', '0s');
    expect(all.stdout.split('\n').filter(Boolean)).toHaveLength(6);
  });

  it('--prune without a terminal and without --yes: lists what it would remove, removes nothing, exits 2', async () => {
    const r = await execa('node', [cli, 'runs', '--prune'], { cwd, reject: false, stdin: 'pipe', input: 'y\n' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^loopdeck: runs --prune: no terminal to ask on, so nothing was removed; add --yes to remove the 2 workspace copies \(\d+\.\d KiB\)$/);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('copies of runs ended more than 7d ago (logs and reports stay):');
    expect(lines[1]).toMatch(new RegExp(`^  ${path.basename(runs.failed!)}  ended: failed, 8d ago  ${workspaceOf(runs.failed!)}  \\d+\\.\\d KiB$`));
    expect(lines[2]).toMatch(new RegExp(`^  ${path.basename(runs.old!)}  ended: goal_met, 8d ago  ${workspaceOf(runs.old!)}`));
    expect(lines[3]).toBe("kept: 1 ended recently, 1 resumable, 1 in place, not a copy, 1 holds the abort's stash");
    for (const name of ['old', 'failed']) expect(existsSync(workspaceOf(runs[name]!))).toBe(true);
  });

  it('--prune --yes removes only those copies, keeps every log, and says so in runs and resume (prune and resume: the built CLI)', async () => {
    const r = await execa('node', [cli, 'runs', '--prune', '--yes'], { cwd, reject: false, stdin: 'ignore' });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(`removed ${workspaceOf(runs.failed!)}\nremoved ${workspaceOf(runs.old!)}\nfreed `);
    for (const name of ['old', 'failed']) {
      expect(existsSync(workspaceOf(runs[name]!))).toBe(false);
      expect(existsSync(path.join(runs[name]!, 'events.jsonl'))).toBe(true);
    }
    for (const name of ['aborted', 'resumable', 'recent']) expect(existsSync(workspaceOf(runs[name]!))).toBe(true);
    expect(existsSync(path.join(cwd, 'project', 'a.txt'))).toBe(true);
    expect(existsSync(path.join(runs.aborted!, 'failure-report.json'))).toBe(true);

    const old = (await listed(cwd)).find((x) => x.run_dir === runs.old)!;
    expect(old.workspace).toMatchObject({ exists: false, pruned: { workspace: workspaceOf(runs.old!) } });
    expect((await loopdeck(cwd, 'runs')).stdout).toMatch(new RegExp(`ended: goal_met +8d +pruned \\d{4}-\\d\\d-\\d\\d \\(\\d+\\.\\d KiB freed\\): ${workspaceOf(runs.old!)}`));
    const resume = await execa('node', [cli, 'resume', runs.old!, '--headless', '--yes'], { cwd, reject: false, stdin: 'ignore' });
    expect(resume.exitCode).toBe(1);
    expect(resume.stderr).toMatch(/the run is over \(goal_met\) and its workspace copy \S+ was removed by loopdeck runs --prune on \d{4}-.*; nothing to resume \(its log still replays: node \S+ replay /);
    const replay = await loopdeck(cwd, 'replay', '--headless', runs.old!);
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).done.reason).toBe('goal_met');

    // Nothing left to prune but what must stay; once the abort's stash is dropped, its copy may go.
    const again = await loopdeck(cwd, 'runs', '--prune', '--yes');
    expect(again.stdout).toBe("nothing to prune under " + path.join(cwd, '.loopdeck', 'runs') + ": no run that ended more than 7d ago has a workspace copy that may go (kept: 1 ended recently, 1 resumable, 1 in place, not a copy, 1 holds the abort's stash)");
    git(workspaceOf(runs.aborted!), 'stash', 'drop');
    const dropped = await loopdeck(cwd, 'runs', '--prune', '--yes');
    expect(dropped.stdout).toContain(`removed ${workspaceOf(runs.aborted!)}`);
    expect(existsSync(workspaceOf(runs.resumable!))).toBe(true);
  });

  it('--prune --older-than 0s removes the copy of a run that ended just now', async () => {
    const r = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(workspaceOf(runs.recent!))).toBe(false);
    expect((await listed(cwd)).find((run) => run.run_dir === runs.recent)!.workspace.pruned).not.toBeNull();
  });
});

describe('loopdeck runs, edge cases', () => {
  it('says plainly when there are no runs', async () => {
    const cwd = tempDir('loopdeck-runs-none-');
    const r = await execa('node', [cli, 'runs'], { cwd, reject: false });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(`no runs under ${path.join(cwd, '.loopdeck', 'runs')} (a run is recorded under .loopdeck/runs of the folder \`${self(cwd)} run\` was started in)`);
    expect(await loopdeck(cwd, 'runs', '--json')).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('a project whose name holds a newline, a tab and marks: its copy is listed on one line and --prune removes it', { timeout: 60_000 }, async () => {
    const cwd = tempDir('loopdeck-runs-names-');
    const project = 'pro\n\u0301j\t\u20ddct';
    mkdirSync(path.join(cwd, project));
    writeFileSync(path.join(cwd, project, 'a.txt'), 'one\n');
    const config = loop(cwd, 'named', WRITE_DONE);
    writeFileSync(path.join(cwd, config), readFileSync(path.join(cwd, config), 'utf8').replace('path: project', `path: ${JSON.stringify(project)}`));
    const { runDir, code, stderr } = await run(cwd, config);
    expect(code, stderr).toBe(0);
    const copy = workspaceOf(runDir);
    expect(path.basename(copy)).toContain('\n');
    const table = await loopdeck(cwd, 'runs');
    const row = table.stdout.split('\n').find((line) => line.startsWith(path.basename(runDir)));
    expect(row, table.stdout).toContain('pro^J\\u{301}j^I\\u{20dd}ct');
    expect(table.stdout).not.toMatch(/\p{M}|\t/u);
    const pruned = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect(existsSync(copy)).toBe(false);
    expect(pruned.stdout).not.toMatch(/\p{M}|\t/u);
  });

  it('a folder that is not there is an error, not an empty list', async () => {
    const cwd = tempDir('loopdeck-runs-missing-');
    for (const [i, args] of [['runs', 'nope'], ['runs', 'nope', '--json'], ['runs', 'nope', '--prune', '--yes']].entries()) {
      // The first through the built CLI, the others in this process.
      const r = i === 0 ? await execa('node', [cli, ...args], { cwd, reject: false }) : await loopdeck(cwd, ...args);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toBe(`loopdeck: ${path.join(cwd, 'nope')} is not a folder: pass the folder \`${self(cwd)} run\` was started in`);
      expect(r.stdout).toBe('');
    }
  });

  it('refuses a bad --older-than and --yes without --prune', async () => {
    const cwd = tempDir('loopdeck-runs-bad-');
    const bad = await loopdeck(cwd, 'runs', '--prune', '--older-than', 'soon');
    expect([bad.exitCode, bad.stderr]).toEqual([1, 'loopdeck: --older-than "soon": expected a duration such as 7d, 12h, 90m, 1h30m or 0s']);
    const negative = await loopdeck(cwd, 'runs', '--prune', '--older-than=-1d');
    expect([negative.exitCode, negative.stderr]).toEqual([1, 'loopdeck: --older-than "-1d": expected a duration such as 7d, 12h, 90m, 1h30m or 0s']);
    const yes = await loopdeck(cwd, 'runs', '--yes');
    expect([yes.exitCode, yes.stderr]).toEqual([1, `loopdeck: --yes goes with --prune (${self(cwd)} runs --prune --yes)`]);
    // The command it prints runs as printed, where it was printed.
    const printed = /\((.+)\)$/.exec(yes.stderr)![1]!;
    expect((await execa('sh', ['-c', printed], { cwd, reject: false })).exitCode).toBe(0);
  });

  it('--prune on a terminal asks y/N: Enter keeps the copy, y removes it', { timeout: 90_000 }, async () => {
    const cwd = tempDir('loopdeck-runs-pty-');
    mkdirSync(path.join(cwd, 'project'));
    const runDir = await cloneRun(cwd);
    const ws = workspaceOf(runDir);
    age(runDir, 10);
    const ask = async (answer: string) => {
      const t = startPty({ args: ['runs', '--prune'], cwd, cols: 160, rows: 12 });
      await t.waitFor(/remove the 1 workspace copy \(\d+\.\d KiB\)\? \[y\/N\]/);
      t.press(answer);
      const { code } = await t.exit;
      return { code, screen: t.history() };
    };
    const kept = await ask('\r');
    expect(kept.code).toBe(0);
    expect(kept.screen).toContain('nothing removed');
    expect(existsSync(ws)).toBe(true);
    const removed = await ask('y\r');
    expect(removed.code).toBe(0);
    expect(removed.screen).toContain(`removed ${ws}`);
    expect(existsSync(ws)).toBe(false);
  });

  it('--help says what it lists and what --prune keeps', async () => {
    const r = await loopdeck(os.tmpdir(), 'runs', '--help');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Usage: loopdeck runs [options] [folder]');
    expect(r.stdout).toContain('--prune');
    expect(r.stdout).toContain('--older-than <age>');
    expect(r.stdout).toMatch(/never a copy of a run that is\s+running or resumable, or that holds a stash/);
  });
});

describe('the outcome a run is listed with', () => {
  it('a log from before `failed` existed, whose `aborted` was the agent failing, is listed as failed', async () => {
    const { readRun } = await import('../../src/runs.js');
    const runDir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-runs-legacy-'));
    try {
      writeFileSync(path.join(runDir, 'events.jsonl'), readFileSync(path.resolve(import.meta.dirname, '../fixtures/logs/agent-error.jsonl')));
      expect(readRun(runDir).outcome).toMatchObject({ reason: 'failed', summary: expect.stringMatching(/^the agent failed: /) });
      // The circuit breaker's abort stays aborted.
      writeFileSync(path.join(runDir, 'events.jsonl'), readFileSync(path.resolve(import.meta.dirname, '../fixtures/logs/operator-abort.jsonl')));
      expect(readRun(runDir).outcome).toMatchObject({ reason: 'aborted' });
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  });
});

describe('loopdeck runs --prune, runs that record the same copy', () => {
  /** A copy of the run folder `runDir` made by hand under a new name: a second run that records the same workspace copy. */
  function copyRun(runDir: string, suffix: string): string {
    const copy = `${runDir}-${suffix}`;
    cpSync(runDir, copy, { recursive: true });
    return copy;
  }

  /** Cuts the log of `runDir` where its verifier was about to report: a run that crashed before its end, so resumable. */
  function cutBeforeEnd(runDir: string): void {
    const file = path.join(runDir, 'events.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, `${lines.slice(0, lines.findIndex((line) => line.includes('"type":"verify.result"'))).join('\n')}\n`);
  }

  /** A folder with one goal_met run ({@link cloneRun}): its folder and its workspace copy. */
  async function oneRun(prefix: string): Promise<{ cwd: string; runDir: string; ws: string }> {
    const cwd = tempDir(prefix);
    mkdirSync(path.join(cwd, 'project'));
    writeFileSync(path.join(cwd, 'project', 'a.txt'), 'one\n');
    const runDir = await cloneRun(cwd);
    return { cwd, runDir, ws: workspaceOf(runDir) };
  }

  /** A goal_met run in `cwd` that started after the one of {@link oneRun}, with a copy of its own. */
  const laterRun = (cwd: string) => cloneRun(cwd, 1000);

  const prunedRecord = (runDir: string) => path.join(runDir, 'workspace-pruned.json');

  it('several ended runs that record one copy: it is listed, counted and measured once, removed once, and recorded as pruned in every run', { timeout: 90_000 }, async () => {
    const { formatBytes } = await import('../../src/runs-cli.js');
    const { cwd, runDir, ws } = await oneRun('loopdeck-runs-shared-');
    const other = await laterRun(cwd);
    const copies = [copyRun(runDir, 'copy1'), copyRun(runDir, 'copy2')];
    for (const dir of [runDir, other, ...copies]) age(dir, 8);
    const before = await listed(cwd);
    const bytes = (dir: string) => before.find((r) => r.run_dir === dir)!.workspace.bytes!;
    expect(new Set([runDir, ...copies].map(bytes)).size).toBe(1);
    const total = formatBytes(bytes(runDir) + bytes(other));

    const asked = await execa('node', [cli, 'runs', '--prune'], { cwd, reject: false, stdin: 'ignore' });
    expect([asked.exitCode, asked.stderr]).toEqual([2, `loopdeck: runs --prune: no terminal to ask on, so nothing was removed; add --yes to remove the 2 workspace copies (${total})`]);
    const lines = asked.stdout.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe('copies of runs ended more than 7d ago (logs and reports stay):');
    expect(lines[1]).toBe(`  ${path.basename(other)}  ended: goal_met, 8d ago  ${workspaceOf(other)}  ${formatBytes(bytes(other))}`);
    expect(lines[2]).toBe(`  ${path.basename(copies[1]!)}  ended: goal_met, 8d ago  ${ws}  ${formatBytes(bytes(runDir))}`);
    expect(lines.slice(3)).toEqual([copies[0]!, runDir].map((dir) => `  ${path.basename(dir)}  ended: goal_met, 8d ago  (the same copy)`));

    const r = await loopdeck(cwd, 'runs', '--prune', '--yes');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout.split('\n').slice(5)).toEqual([`removed ${workspaceOf(other)}`, `removed ${ws}`, `freed ${total}; ${path.join('.loopdeck', 'runs')} keeps every log`]);
    expect(existsSync(ws)).toBe(false);
    for (const dir of [runDir, ...copies]) {
      expect(JSON.parse(readFileSync(prunedRecord(dir), 'utf8'))).toMatchObject({ workspace: ws, bytes: bytes(runDir) });
      expect(existsSync(path.join(dir, 'events.jsonl'))).toBe(true);
    }
    const after = await listed(cwd);
    for (const dir of [runDir, ...copies]) expect(after.find((x) => x.run_dir === dir)!.workspace).toMatchObject({ exists: false, pruned: { workspace: ws } });
    const again = await loopdeck(cwd, 'runs', '--prune', '--yes');
    expect(again.stdout).toBe(`nothing to prune under ${path.join(cwd, '.loopdeck', 'runs')}: no run that ended more than 7d ago has a workspace copy that may go`);
  });

  it('a copy that a resumable run also records stays, with the run that keeps it named; the other copies go and are counted alone', { timeout: 90_000 }, async () => {
    const { formatBytes } = await import('../../src/runs-cli.js');
    const { cwd, runDir, ws } = await oneRun('loopdeck-runs-shared-resumable-');
    const other = await laterRun(cwd);
    const ended = copyRun(runDir, 'copy');
    const resumable = copyRun(runDir, 'resumable');
    cutBeforeEnd(resumable);
    for (const dir of [runDir, other, ended, resumable]) age(dir, 8);
    const before = await listed(cwd);
    const by = (dir: string) => before.find((x) => x.run_dir === dir)!;
    expect(by(resumable)).toMatchObject({ state: 'resumable', kept_by_prune: 'resumable' });
    for (const dir of [runDir, ended]) expect(by(dir).kept_by_prune).toBe(`sharing a kept run's copy: it is also the workspace of ${path.basename(resumable)} (resumable)`);

    const r = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout.split('\n')).toEqual([
      'copies of runs ended more than 0s ago (logs and reports stay):',
      `  ${path.basename(other)}  ended: goal_met, 8d ago  ${workspaceOf(other)}  ${formatBytes(by(other).workspace.bytes)}`,
      "kept: 1 resumable, 2 sharing a kept run's copy",
      `kept ${ws}, the copy of 2 runs ended more than 0s ago: it is also the workspace of ${path.basename(resumable)} (resumable)`,
      `removed ${workspaceOf(other)}`,
      `freed ${formatBytes(by(other).workspace.bytes)}; ${path.join('.loopdeck', 'runs')} keeps every log`,
    ]);
    expect(existsSync(ws)).toBe(true);
    for (const dir of [runDir, ended, resumable]) expect(existsSync(prunedRecord(dir))).toBe(false);
    const table = (await loopdeck(cwd, 'runs')).stdout;
    expect(table).toMatch(new RegExp(`${path.basename(resumable)} .* resumable +8d +${ws} \\(`));

    const again = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect(again.stdout.split('\n')).toEqual([
      `nothing to prune under ${path.join(cwd, '.loopdeck', 'runs')}: no run that ended more than 0s ago has a workspace copy that may go (kept: 1 resumable, 2 sharing a kept run's copy)`,
      `kept ${ws}, the copy of 2 runs ended more than 0s ago: it is also the workspace of ${path.basename(resumable)} (resumable)`,
    ]);
  });

  it('a copy that a run which ended recently also records stays until that run is old enough; a copy holding a kept run\'s workspace stays too', { timeout: 90_000 }, async () => {
    const { cwd, runDir, ws } = await oneRun('loopdeck-runs-shared-recent-');
    const recent = copyRun(runDir, 'recent');
    age(runDir, 8);
    const r = await loopdeck(cwd, 'runs', '--prune', '--yes');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout.split('\n')).toEqual([
      `nothing to prune under ${path.join(cwd, '.loopdeck', 'runs')}: no run that ended more than 7d ago has a workspace copy that may go (kept: 1 ended recently, 1 sharing a kept run's copy)`,
      `kept ${ws}, the copy of ${path.basename(runDir)} ended more than 7d ago: it is also the workspace of ${path.basename(recent)} (ended recently)`,
    ]);
    expect(existsSync(ws)).toBe(true);

    // A resumable run that works in a folder inside the copy: removing the copy would remove its workspace.
    const inner = copyRun(runDir, 'inner');
    cutBeforeEnd(inner);
    mkdirSync(path.join(ws, 'sub'));
    const log = path.join(inner, 'events.jsonl');
    writeFileSync(log, readFileSync(log, 'utf8').replace(`"workspace":${JSON.stringify(ws)}`, `"workspace":${JSON.stringify(path.join(ws, 'sub'))}`));
    const held = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect([held.exitCode, held.stderr]).toEqual([0, '']);
    expect(held.stdout).toContain(`(kept: 1 resumable, 2 sharing a kept run's copy)\nkept ${ws}, the copy of 2 runs ended more than 0s ago: it holds ${path.join(ws, 'sub')}, the workspace of ${path.basename(inner)} (resumable)`);
    expect(existsSync(ws)).toBe(true);

    rmSync(inner, { recursive: true });
    const gone = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect([gone.exitCode, gone.stderr]).toEqual([0, '']);
    expect(gone.stdout.match(/^removed .*/gm)).toEqual([`removed ${ws}`]);
    for (const dir of [runDir, recent]) expect(existsSync(prunedRecord(dir))).toBe(true);
  });
});

describe('loopdeck runs, damaged logs', () => {
  const DEMO = readFileSync(path.resolve(import.meta.dirname, '../fixtures/logs/demo.jsonl'), 'utf8');
  const demoLines = DEMO.split('\n').slice(0, -1);
  /** Random bytes, the same on every machine: no line of them is an event. */
  const randomBytes = (count: number) => {
    const next = seededRandom(7);
    return Buffer.from(Array.from({ length: count }, () => Math.floor(next() * 256)));
  };

  /** A run folder `name` under `cwd`'s `.loopdeck/runs/` whose log is `log`. */
  function runFolder(cwd: string, name: string, log: string | Buffer): string {
    const runDir = path.join(cwd, '.loopdeck', 'runs', name);
    mkdirSync(runDir, { recursive: true });
    writeFileSync(path.join(runDir, 'events.jsonl'), log);
    return runDir;
  }

  /** The warnings `replay` prints about the log of `runDir` (stderr, one a line, less its last word on a log with no event). */
  async function replayWarnings(cwd: string, runDir: string): Promise<string[]> {
    const r = await loopdeck(cwd, 'replay', '--headless', runDir);
    return r.stderr.split('\n').filter((line) => line.startsWith('loopdeck: ') && !line.endsWith('nothing to replay'));
  }

  it('marks a run whose log has garbage lines, NUL bytes, a repeated seq or a gap as damaged, and one with no readable event as unreadable, as replay reads them', { timeout: 90_000 }, async () => {
    const cwd = tempDir('loopdeck-runs-damaged-');
    const lines = (change: (ls: string[]) => void) => {
      const ls = [...demoLines];
      change(ls);
      return `${ls.join('\n')}\n`;
    };
    const runs = {
      sound: runFolder(cwd, 'sound', DEMO),
      garbage: runFolder(cwd, 'garbage', lines((ls) => ls.splice(4, 0, 'garbage {', '[]'))),
      nul: runFolder(cwd, 'nul', lines((ls) => (ls[2] = `${'\0'.repeat(40)}${ls[2]}`))),
      repeated: runFolder(cwd, 'repeated', lines((ls) => ls.splice(4, 0, ls[3]!))),
      // cut short after line 8 (a crash) with line 6 (seq 5) lost: not ended, and resume refuses it
      gap: runFolder(cwd, 'gap', `${[...demoLines.slice(0, 5), ...demoLines.slice(6, 8)].join('\n')}\n`),
      // cut short after line 8, line 5 damaged into another legible event (PLANNING -> AWAITING_TOOL): resume refuses it
      wrong: runFolder(cwd, 'wrong', `${demoLines.slice(0, 8).map((l, i) => (i === 4 ? l.replace('"to":"EXECUTING"', '"to":"AWAITING_TOOL"') : l)).join('\n')}\n`),
      // the whole run, line 5 damaged the same way: its session.complete says goal_met, but the run replay shows stops at line 5
      untrusted: runFolder(cwd, 'untrusted', `${demoLines.map((l, i) => (i === 4 ? l.replace('"to":"EXECUTING"', '"to":"AWAITING_TOOL"') : l)).join('\n')}\n`),
      random: runFolder(cwd, 'random', randomBytes(20_000)),
      blank: runFolder(cwd, 'blank', ''),
      newer: runFolder(cwd, 'newer', DEMO.replace('"schemaVersion":1', '"schemaVersion":99')),
    };
    const file = (name: keyof typeof runs) => path.join(runs[name], 'events.jsonl');

    const all = await listed(cwd);
    const by = (name: keyof typeof runs) => all.find((r) => r.id === name)!;
    expect(by('sound')).toMatchObject({ state: 'ended', outcome: { reason: 'goal_met' }, log: { warnings: [], unresumable: null, unreadable: null } });
    expect(by('blank')).toMatchObject({ state: 'not_started', log: { warnings: [], unreadable: null } });
    for (const name of ['garbage', 'nul', 'repeated'] as const) {
      expect(by(name)).toMatchObject({ state: 'ended', outcome: { reason: 'goal_met' }, log: { unreadable: null } });
      // The very problems replay names, each with its line.
      expect(by(name).log.warnings.map((w) => `loopdeck: ${w}`)).toEqual(await replayWarnings(cwd, runs[name]));
      expect(by(name).log.warnings.length).toBeGreaterThan(0);
    }
    expect(by('garbage').log.warnings).toEqual([
      `${file('garbage')}:5: dropped a torn line (not a JSON event); seq 4 follows without a gap`,
      `${file('garbage')}:6: dropped a torn line (not a loopdeck event); seq 4 follows without a gap`,
    ]);
    expect(by('repeated').log.warnings).toEqual([`${file('repeated')}:5: skipped a line whose seq 3 was already read (expected seq 4)`]);
    expect(by('nul').log.warnings).toEqual([`${file('nul')}:3: skipped 40 NUL bytes (a block of zeros a crash can leave)`]);
    expect(by('gap')).toMatchObject({ state: 'unresumable', kept_by_prune: 'not ended (log damaged, resume refuses it)', log: { warnings: [`${file('gap')}:6: seq gap: expected seq 5, found 6 at line 6: seq 5 missing`], unresumable: expect.stringContaining('seq 5 is missing') } });
    expect(by('wrong')).toMatchObject({
      state: 'unresumable',
      log: {
        warnings: [`${file('wrong')}: stopped showing the run at seq 4 (state.transition): it does not follow from the events before it (a damaged line, legible but wrong) (illegal transition PLANNING -> AWAITING_TOOL at seq 4)`],
        unresumable: expect.stringContaining('seq 4 (state.transition) does not follow from the events before it'),
      },
    });
    expect(by('wrong').log.warnings.map((w) => `loopdeck: ${w}`)).toEqual(await replayWarnings(cwd, runs.wrong));
    expect(by('wrong').log.untrustedEnd).toBeNull();
    expect(by('untrusted')).toMatchObject({ state: 'unresumable', outcome: null, log: { untrustedEnd: 'goal_met', unresumable: expect.stringContaining('seq 4 (state.transition) does not follow') } });
    expect(by('random')).toMatchObject({ state: 'unreadable', started: null, outcome: null, log: { unreadable: `${file('random')}: no line in it is a readable event` } });
    expect(by('random').log.warnings.map((w) => `loopdeck: ${w}`)).toEqual(await replayWarnings(cwd, runs.random));
    expect(by('newer')).toMatchObject({ state: 'unreadable', log: { warnings: [], unreadable: expect.stringMatching(/^\S+events\.jsonl:1: session\.start has schemaVersion 99; this loopdeck reads event logs of schema version /) } });

    const table = (await loopdeck(cwd, 'runs')).stdout.split('\n');
    const row = (name: string) => table.find((line) => line.startsWith(`${name} `))!;
    expect(row('sound')).toMatch(/^sound +2026-01-01 00:00 +ended: goal_met +\d+d /);
    for (const name of ['garbage', 'nul', 'repeated']) expect(row(name)).toMatch(/ ended: goal_met, log damaged +\d+d /);
    // Not ended, and resume refuses them: the state says so, not that they can be resumed.
    expect(row('gap')).toMatch(/ not ended \(log damaged, resume refuses it\) +\d+d /);
    expect(row('wrong')).toMatch(/ not ended \(log damaged, resume refuses it\) +\d+d /);
    // Its log says it ended, after the damage: neither "stopped" nor "ended".
    expect(row('untrusted')).toMatch(/ end not trusted: log damaged before its goal_met +\d+d /);
    expect(row('random')).toMatch(/^random +- +log unreadable +- +-$/);
    expect(row('newer')).toMatch(/^newer +- +log unreadable +- +-$/);
    expect(row('blank')).toMatch(/^blank +- +not started +- +-$/);
    const replay = (name: string) => `see ${self(cwd)} replay ${path.join('.loopdeck', 'runs', name)}`;
    // The rows, a blank line, then a note for each damaged or unreadable log.
    expect(table.indexOf('')).toBe(1 + Object.keys(runs).length);
    const notes = table.slice(table.indexOf('') + 1);
    expect(notes.sort()).toEqual(
      [
        `garbage: log damaged: 2 problems; ${replay('garbage')}`,
        `nul: log damaged: 1 problem; ${replay('nul')}`,
        `repeated: log damaged: 1 problem; ${replay('repeated')}`,
        `gap: log damaged: 1 problem; resume refuses it (a tool call, a decision or a state change may be missing or wrong); ${replay('gap')}`,
        `wrong: log damaged: 1 problem; resume refuses it (a tool call, a decision or a state change may be missing or wrong); ${replay('wrong')}`,
        `untrusted: log damaged: 1 problem; resume refuses it (a tool call, a decision or a state change may be missing or wrong); ${replay('untrusted')}`,
        `random: log unreadable: ${file('random')}: no line in it is a readable event (${by('random').log.warnings.length} problems); ${replay('random')}`,
        `newer: log unreadable: ${by('newer').log.unreadable}`,
      ].sort(),
    );
    // Whatever its log, a listing of runs never gives its copy away: an unreadable run is kept.
    expect(by('random').kept_by_prune).toBe('log unreadable');
  });

  // 100 of the 300 seeded logs (each kind of damage, more than once); all 300 with FULL_SWEEP=1.
  const SEEDED = process.env.FULL_SWEEP === '1' ? 300 : 100;
  it(`reports what replay and resume report for ${SEEDED} seeded damaged logs: the same warnings, resume refused exactly when runs says so, and unreadable exactly when no event can be read`, async () => {
    const { readRun } = await import('../../src/runs.js');
    const { foldLogFile, isBlankLog, noEventsIn, readLog } = await import('../../src/engine/log.js');
    const cwd = tempDir('loopdeck-runs-damaged-corpus-');
    let damaged = 0;
    for (const [i, log] of damagedLogs(29, SEEDED).entries()) {
      const runDir = runFolder(cwd, `r${i}`, log.text);
      const file = path.join(runDir, 'events.jsonl');
      const run = readRun(runDir, { sizes: false });
      let folded: { warnings: string[] } | null = null;
      try {
        folded = foldLogFile(file);
      } catch (error) {
        // A log this loopdeck refuses to read (its session.start's schema version) is unreadable, with why.
        if ((error as Error).name === 'LogError') expect(run.log.unreadable, log.name).toBe((error as Error).message);
      }
      if (folded !== null) {
        // replay's warnings, its fold's included; and resume refuses the run exactly when runs says it would
        expect(run.log.warnings, log.name).toEqual(folded.warnings);
        expect(run.log.unresumable, log.name).toBe(readLog(file).unresumable ?? null);
        // No event at all: unreadable, unless there is nothing but blanks (a run not started).
        if (noEventsIn(file) !== null) expect(run.state, log.name).toBe(isBlankLog(file) ? 'not_started' : 'unreadable');
        else expect(run.state, log.name).not.toBe('not_started');
      }
      if (run.log.warnings.length > 0) damaged += 1;
    }
    expect(damaged).toBeGreaterThan((SEEDED * 2) / 3);
  });
});

describe('loopdeck runs --prune, folders loopdeck did not make and ends replay does not fold', () => {
  /** A folder with one goal_met run ({@link cloneRun}) ended 8 days ago: its folder and its workspace copy. */
  async function endedRun(prefix: string): Promise<{ cwd: string; runDir: string; ws: string }> {
    const cwd = tempDir(prefix);
    const runDir = await cloneRun(cwd);
    age(runDir, 8);
    return { cwd, runDir, ws: workspaceOf(runDir) };
  }

  /** Makes every file of the run folder that records `from` record `to` instead (its log and policy.json), as an edit by hand would. */
  function pointAt(runDir: string, from: string, to: string): void {
    for (const name of ['events.jsonl', 'policy.json']) {
      const file = path.join(runDir, name);
      if (existsSync(file)) writeFileSync(file, readFileSync(file, 'utf8').split(JSON.stringify(from).slice(1, -1)).join(JSON.stringify(to).slice(1, -1)));
    }
  }

  /** A plain folder under the temp folder named as loopdeck names its copies, holding f.txt. */
  function victim(): string {
    const dir = tempDir('loopdeck-nbB-');
    writeFileSync(path.join(dir, 'f.txt'), 'keep me\n');
    return dir;
  }

  it('a workspace copy carries the mark of its run in its own .git, which neither the working tree nor git status shows', async () => {
    const { prepareWorkspace } = await import('../../src/engine/workspace.js');
    const source = tempDir('loopdeck-runs-mark-source-');
    writeFileSync(path.join(source, 'a.txt'), 'one\n');
    const ws = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'run-1');
    dirs.push(ws);
    expect(JSON.parse(readFileSync(path.join(ws, '.git', 'loopdeck-copy.json'), 'utf8'))).toMatchObject({ run: 'run-1' });
    expect(git(ws, 'status', '--porcelain')).toBe('');
    expect(readdirSync(ws).sort()).toEqual(['.git', 'a.txt']);
    expect(git(ws, 'ls-files')).toBe('a.txt');
  });

  it('never removes a folder the run folder names but loopdeck did not make for that run, and says why', { timeout: 90_000 }, async () => {
    const { cwd, runDir, ws } = await endedRun('loopdeck-runs-forged-');
    // 1. a plain folder named like a copy
    const plain = victim();
    pointAt(runDir, ws, plain);
    // 2. a repository with no mark (also what a copy of an earlier loopdeck looks like)
    const other = await cloneRun(cwd, 1000);
    age(other, 8);
    const unmarked = victim();
    git(unmarked, 'init', '-q');
    pointAt(other, workspaceOf(other), unmarked);
    // 3. a loopdeck copy of another run: the run folder claims it under a session of its own
    const claimed = await cloneRun(cwd, 2000);
    age(claimed, 8);
    const claimedLog = path.join(claimed, 'events.jsonl');
    const session = (JSON.parse(readFileSync(claimedLog, 'utf8').split('\n')[0]!) as { session: string }).session;
    writeFileSync(claimedLog, readFileSync(claimedLog, 'utf8').replaceAll(`"session":"${session}"`, '"session":"forged-run"'));
    // 4. a link to a copy loopdeck made for the run, named like a copy
    const linked = await cloneRun(cwd, 3000);
    age(linked, 8);
    const link = path.join(tempDir('loopdeck-runs-links-'), 'loopdeck-link-abcdef');
    const linkedCopy = workspaceOf(linked);
    symlinkSync(linkedCopy, link);
    pointAt(linked, workspaceOf(linked), link);

    const r = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`nothing to prune under ${path.join(cwd, '.loopdeck', 'runs')}: no run that ended more than 0s ago has a workspace copy that may go (kept: 3 not a folder loopdeck made, 1 no mark that loopdeck made it)`);
    expect(lines.slice(1).sort()).toEqual(
      [
        `kept ${plain}, the workspace of ${path.basename(runDir)}: not a folder loopdeck made: no .git folder of its own`,
        `kept ${unmarked}, the workspace of ${path.basename(other)}: no mark that loopdeck made it: its .git holds no loopdeck-copy.json (a copy made before loopdeck marked its copies is kept: remove it by hand)`,
        `kept ${workspaceOf(claimed)}, the workspace of ${path.basename(claimed)}: not a folder loopdeck made: its mark names run ${session}, not forged-run`,
        `kept ${link}, the workspace of ${path.basename(linked)}: not a folder loopdeck made: a symlink`,
      ].sort(),
    );
    for (const dir of [plain, unmarked, workspaceOf(claimed), link, linkedCopy]) expect(existsSync(dir)).toBe(true);
    expect(readFileSync(path.join(plain, 'f.txt'), 'utf8')).toBe('keep me\n');
    const byDir = new Map((await listed(cwd)).map((x) => [x.run_dir, x]));
    expect(byDir.get(runDir)!.kept_by_prune).toBe('not a folder loopdeck made: no .git folder of its own');
    expect(byDir.get(claimed)!.kept_by_prune).toBe(`not a folder loopdeck made: its mark names run ${session}, not forged-run`);
    for (const dir of [runDir, other, claimed, linked]) expect(existsSync(path.join(dir, 'workspace-pruned.json'))).toBe(false);
  });

  it('a run whose copy carries its mark is pruned as before', async () => {
    const { cwd, ws } = await endedRun('loopdeck-runs-marked-');
    const r = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(`removed ${ws}`);
    expect(existsSync(ws)).toBe(false);
  });

  /** A run folder in a folder of its own that copies the run `runDir` cut before its end (resumable), then `extra` lines appended to its log. */
  function resumableCopy(runDir: string, extra: (lastSeq: number, session: string) => string[]): { cwd: string; copy: string } {
    const cwd = tempDir('loopdeck-runs-forged-end-');
    const copy = path.join(cwd, '.loopdeck', 'runs', path.basename(runDir));
    cpSync(runDir, copy, { recursive: true });
    const file = path.join(copy, 'events.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const kept = lines.slice(0, lines.findIndex((line) => line.includes('"type":"verify.result"')));
    const last = JSON.parse(kept.at(-1)!) as { seq: number; at: number; session: string };
    writeFileSync(file, `${[...kept, ...extra(last.seq, last.session)].join('\n')}\n`);
    return { cwd, copy };
  }

  it('an end that replay does not fold (after a line the fold refuses) neither ends the run in the listing nor lets its copy go', { timeout: 90_000 }, async () => {
    const { runDir, ws } = await endedRun('loopdeck-runs-refused-end-');
    const { cwd, copy } = resumableCopy(runDir, (seq, session) => [
      JSON.stringify({ seq: seq + 1, at: 1000, session, type: 'state.transition', data: { from: 'EXECUTING', to: 'NOWHERE' } }),
      JSON.stringify({ seq: seq + 2, at: 1000, session, type: 'session.complete', data: { reason: 'goal_met', summary: 'x' } }),
    ]);
    const replay = await loopdeck(cwd, 'replay', '--headless', copy);
    expect(JSON.parse(replay.stdout).done).toBeNull();
    const [run] = await listed(cwd);
    expect(run).toMatchObject({ state: 'unresumable', outcome: null, kept_by_prune: 'not ended (log damaged, resume refuses it)' });
    const r = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).not.toContain('removed');
    expect(existsSync(ws)).toBe(true);
  });

  it('an end after a seq gap (the log damaged where resume refuses it) does not let the copy go', { timeout: 90_000 }, async () => {
    const { runDir, ws } = await endedRun('loopdeck-runs-gap-end-');
    const { cwd, copy } = resumableCopy(runDir, (_seq, session) => [JSON.stringify({ seq: 913, at: 1000, session, type: 'session.complete', data: { reason: 'goal_met', summary: 'x' } })]);
    const [run] = await listed(cwd);
    // As replay folds it (a gap is named, the events after it shown), with resume refusing it.
    expect(JSON.parse((await loopdeck(cwd, 'replay', '--headless', copy)).stdout).done).toMatchObject({ reason: 'goal_met' });
    expect(run).toMatchObject({ state: 'ended', log: { unresumable: expect.stringContaining('seq') }, kept_by_prune: 'log damaged (its end cannot be trusted)' });
    const r = await loopdeck(cwd, 'runs', '--prune', '--older-than', '0s', '--yes');
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe(`nothing to prune under ${path.join(cwd, '.loopdeck', 'runs')}: no run that ended more than 0s ago has a workspace copy that may go (kept: 1 log damaged (its end cannot be trusted))`);
    expect(existsSync(ws)).toBe(true);
  });
});
