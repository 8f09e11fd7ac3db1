// The harness's own git never runs code a repository names (fsmonitor, hooks, filter, diff,
// textconv and merge drivers, pager, editor, ssh, credential helpers, through includes and
// worktree config too) and never hands loopdeck's environment to git.
// Real repositories in temp dirs; every canary is written outside the repository, so a stash
// cannot sweep the evidence away.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parkWorkspace } from '../../src/engine/abort.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { driverOverrides, gitEnv, isGitWorkTree, runGit } from '../../src/engine/git.js';
import { gitSnapshot } from '../../src/engine/git-progress.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { runTool } from '../../src/engine/tools.js';
import { prepareWorkspace } from '../../src/engine/workspace.js';

const SECRET = 'sk-loopdeck-canary-6f1e0c';
const saved = { secret: process.env.LOOPDECK_TEST_SECRET_KEY, global: process.env.GIT_CONFIG_GLOBAL };
let home = '';
let hostileGlobal = '';

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

beforeAll(() => {
  process.env.LOOPDECK_TEST_SECRET_KEY = SECRET;
  // A user-level config that names a filter driver too: the harness must not read it either.
  home = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-home-'));
  hostileGlobal = path.join(home, 'gitconfig');
  process.env.GIT_CONFIG_GLOBAL = hostileGlobal;
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  for (const [key, value] of [
    ['LOOPDECK_TEST_SECRET_KEY', saved.secret],
    ['GIT_CONFIG_GLOBAL', saved.global],
  ] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** git as a user would run it (the test's own environment), for setting repositories up. */
function plainGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
}

/** A command that writes its environment to `<canaries>/<name>.env`. */
const leak = (canaries: string, name: string) => `env > ${canaries}/${name}.env`;

const HOOKS = [
  'pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-checkout', 'post-index-change',
  'reference-transaction', 'pre-auto-gc', 'post-rewrite', 'post-merge', 'fsmonitor-watchman', 'pre-push',
];

/**
 * Makes `dir` (already a git repository with a commit) as hostile as an agent with write
 * access to `.git/` could: every way git runs a program, each writing a canary into
 * `canaries` (outside the repository). Names include a dot, `=` and upper case.
 */
function makeHostile(dir: string, canaries: string): void {
  const gitDir = path.join(dir, '.git');
  const hooks = path.join(canaries, '..', `hooks-${path.basename(canaries)}`);
  mkdirSync(hooks, { recursive: true });
  for (const where of [hooks, path.join(gitDir, 'hooks')]) {
    mkdirSync(where, { recursive: true });
    for (const hook of HOOKS) {
      writeFileSync(path.join(where, hook), `#!/bin/sh\n${leak(canaries, `hook-${hook}`)}\n`);
      chmodSync(path.join(where, hook), 0o755);
    }
  }
  writeFileSync(path.join(gitDir, 'info', 'attributes'), '*.info filter=evil\n');
  writeFileSync(
    path.join(gitDir, 'included.cfg'),
    [
      '[filter "inc"]',
      `  clean = "${leak(canaries, 'include-filter-clean')}; cat"`,
      `  smudge = "${leak(canaries, 'include-filter-smudge')}; cat"`,
      '  required = true',
      '[core]',
      `  fsmonitor = "${leak(canaries, 'include-fsmonitor')}; false"`,
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(gitDir, 'config.worktree'), `[core]\n  fsmonitor = "${leak(canaries, 'worktree-fsmonitor')}; false"\n`);
  const config = [
    '[core]',
    '  repositoryformatversion = 1',
    `  fsmonitor = "${leak(canaries, 'fsmonitor')}; false"`,
    `  hooksPath = ${hooks}`,
    `  pager = "${leak(canaries, 'pager')}; cat"`,
    `  editor = "${leak(canaries, 'editor')}; true"`,
    `  sshCommand = "${leak(canaries, 'ssh')}; false"`,
    `  askPass = "${leak(canaries, 'askpass')}"`,
    '  untrackedCache = true',
    '[extensions]',
    '  worktreeConfig = true',
    '[user]',
    '  name = test',
    '  email = test@localhost',
    '[filter "evil"]',
    `  clean = "${leak(canaries, 'filter-clean')}; cat"`,
    `  smudge = "${leak(canaries, 'filter-smudge')}; cat"`,
    '  required = true',
    '[filter "Ev.il"]',
    `  process = "${leak(canaries, 'filter-process')}"`,
    '  required = true',
    '[filter "a=b"]',
    `  clean = "${leak(canaries, 'filter-equals')}; cat"`,
    '  required = true',
    '[diff "evil"]',
    `  command = "${leak(canaries, 'diff-command')}; true"`,
    `  textconv = "${leak(canaries, 'textconv')}; cat"`,
    '[merge "evil"]',
    `  driver = "${leak(canaries, 'merge')}; false"`,
    '[diff]',
    `  external = "${leak(canaries, 'diff-external')}; true"`,
    '[credential]',
    `  helper = "!${leak(canaries, 'credential')}; true"`,
    '[gpg]',
    `  program = "${leak(canaries, 'gpg')}; false"`,
    '[log]',
    '  showSignature = true',
    '[include]',
    '  path = included.cfg',
    '[includeIf "gitdir:/"]',
    '  path = included.cfg',
    '',
  ].join('\n');
  writeFileSync(path.join(gitDir, 'config'), config);
}

/** Attributes that send every file through the hostile drivers. */
const ATTRIBUTES = '* filter=evil diff=evil merge=evil\n*.md filter=Ev.il\n*.cfg filter=a=b\n*.inc filter=inc\n';

/**
 * A committed repository (made with plain git before it turns hostile) and its canary
 * folder; with `hostile: false` it stays ordinary (call {@link makeHostile} later).
 */
function hostileRepo({ hostile = true } = {}): { ws: string; canaries: string } {
  const ws = tempDir('loopdeck-hostile-');
  const canaries = path.join(tempDir('loopdeck-canaries-'), 'out');
  mkdirSync(canaries);
  plainGit(ws, 'init', '-q', '-b', 'main');
  plainGit(ws, 'config', 'user.name', 'test');
  plainGit(ws, 'config', 'user.email', 'test@localhost');
  writeFileSync(path.join(ws, '.gitattributes'), ATTRIBUTES);
  for (const name of ['a.txt', 'b.md', 'c.cfg', 'd.inc', 'e.info']) writeFileSync(path.join(ws, name), `${name} v1\n`);
  plainGit(ws, 'add', '-A');
  plainGit(ws, 'commit', '-qm', 'start');
  if (hostile) makeHostile(ws, canaries);
  writeFileSync(hostileGlobal, `[filter "evil"]\n  clean = "${leak(canaries, 'global-filter')}; cat"\n  required = true\n[core]\n  fsmonitor = "${leak(canaries, 'global-fsmonitor')}; false"\n`);
  return { ws, canaries };
}

/** Dirties every kind of file the attributes route through a driver. */
function dirty(ws: string): void {
  for (const name of ['a.txt', 'b.md', 'c.cfg', 'd.inc', 'e.info']) writeFileSync(path.join(ws, name), `${name} v2\n`);
  for (const name of ['new.txt', 'new.md', 'new.cfg', 'new.inc', 'new.info']) writeFileSync(path.join(ws, name), `${name}\n`);
}

/** What ran: the canary files, each with whether it holds the secret. */
function canariesOf(dir: string): string[] {
  return readdirSync(dir).map((name) => `${name}${readFileSync(path.join(dir, name), 'utf8').includes(SECRET) ? ' (with the secret)' : ''}`);
}

describe('the fixture is hostile', () => {
  it('plain git with the user environment runs its code and leaks the secret', () => {
    const { ws, canaries } = hostileRepo();
    dirty(ws);
    try {
      execFileSync('git', ['add', '-A'], { cwd: ws, env: process.env, stdio: 'ignore' });
    } catch {
      // a required filter failing is fine: the point is what ran
    }
    const ran = canariesOf(canaries);
    // the worktree config is read last, so its fsmonitor wins
    expect(ran).toContain('worktree-fsmonitor.env (with the secret)');
    expect(ran).toContain('filter-clean.env (with the secret)');
  });
});

describe("the harness's git", () => {
  it('takes workspace snapshots without running anything the repository names', async () => {
    const { ws, canaries } = hostileRepo();
    const first = await gitSnapshot(ws);
    dirty(ws);
    const second = await gitSnapshot(ws, first);
    expect(first).not.toBeNull();
    expect(second?.tree).not.toBe(first?.tree);
    expect(second?.head).toBe(first?.head);
    expect(canariesOf(canaries)).toEqual([]);
    // the snapshot staged raw bytes into its throwaway index, and the real index is untouched
    expect((await runGit(ws, ['diff', '--cached', '--name-only'])).stdout).toBe('');
    expect(canariesOf(canaries)).toEqual([]);
  });

  it('runs the git tools (status, diff) without running anything the repository names', async () => {
    const { ws, canaries } = hostileRepo();
    dirty(ws);
    const ctx = { workspace: ws, shellTimeoutSeconds: 10, outputLimit: 16 * 1024 };
    const status = await runTool({ id: 's', name: 'git_status', args: {} }, ctx);
    expect(status.output.split('\n')).toEqual(expect.arrayContaining(['branch: main', ' M a.txt', ' M b.md', '?? new.inc']));
    const diff = await runTool({ id: 'd', name: 'git_diff', args: { path: 'a.txt' } }, ctx);
    expect(diff.output).toContain('-a.txt v1\n+a.txt v2');
    const all = await runTool({ id: 'd2', name: 'git_diff', args: {} }, ctx);
    expect(all.output).toContain('+b.md v2');
    expect(canariesOf(canaries)).toEqual([]);
  });

  it('stashes on abort (clean, smudge on the way back, hooks on the ref update) without running anything', async () => {
    const { ws, canaries } = hostileRepo();
    dirty(ws);
    const outcome = await parkWorkspace(ws, 's1');
    expect(outcome.status).toBe('stashed');
    if (outcome.status !== 'stashed') throw new Error('unreachable');
    expect(outcome.tracked).toEqual(['a.txt', 'b.md', 'c.cfg', 'd.inc', 'e.info']);
    expect(outcome.untracked).toEqual(['new.cfg', 'new.inc', 'new.info', 'new.md', 'new.txt']);
    expect(readFileSync(path.join(ws, 'b.md'), 'utf8')).toBe('b.md v1\n');
    expect(canariesOf(canaries)).toEqual([]);
  });

  it('prepares a temporary copy of a source folder that holds a hostile .git without running anything', async () => {
    const { ws: source, canaries } = hostileRepo();
    dirty(source);
    const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
    dirs.push(copy);
    expect(canariesOf(canaries)).toEqual([]);
    // (checked with the hardened runner: plain git would run the copied configuration)
    expect((await runGit(copy, ['log', '-1', '--format=%s'])).stdout).toBe('loopdeck: workspace as started');
    expect((await runGit(copy, ['status', '--porcelain'])).stdout).toBe('');
    expect(readFileSync(path.join(copy, 'new.md'), 'utf8')).toBe('new.md\n');
    expect(canariesOf(canaries)).toEqual([]);
    // the source is untouched
    expect(readFileSync(path.join(source, 'a.txt'), 'utf8')).toBe('a.txt v2\n');
  });

  it('prepares a copy of a plain folder whose attributes name a driver only the user config defines', async () => {
    const source = tempDir('loopdeck-src-');
    const canaries = tempDir('loopdeck-canaries-');
    writeFileSync(path.join(source, '.gitattributes'), '* filter=evil\n');
    writeFileSync(path.join(source, 'a.txt'), 'a\n');
    writeFileSync(hostileGlobal, `[filter "evil"]\n  clean = "${leak(canaries, 'global-filter')}; cat"\n  required = true\n`);
    const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
    dirs.push(copy);
    expect(existsSync(path.join(copy, '.git'))).toBe(true);
    expect(canariesOf(canaries)).toEqual([]);
  });
});

/**
 * A repository `outer` with a nested repository at `vendor/lib` committed as a gitlink (with
 * a `.gitmodules` asking git to look into it) and another, `vendor/untracked`, never added:
 * both as hostile as {@link makeHostile} makes them and dirty (tracked and untracked files),
 * so any git that enters them runs their drivers, hooks or fsmonitor. `outer` itself is
 * ordinary and has a change of its own.
 */
function nestedRepos(): { outer: string; canaries: string } {
  const outer = tempDir('loopdeck-outer-');
  const canaries = path.join(tempDir('loopdeck-canaries-'), 'out');
  mkdirSync(canaries);
  plainGit(outer, 'init', '-q', '-b', 'main');
  plainGit(outer, 'config', 'user.name', 'test');
  plainGit(outer, 'config', 'user.email', 'test@localhost');
  writeFileSync(path.join(outer, 'top.txt'), 'top v1\n');
  writeFileSync(path.join(outer, '.gitmodules'), '[submodule "lib"]\n  path = vendor/lib\n  url = ./lib\n  ignore = none\n');
  const nested = ['lib', 'untracked'].map((name) => {
    const dir = path.join(outer, 'vendor', name);
    mkdirSync(dir, { recursive: true });
    plainGit(dir, 'init', '-q', '-b', 'main');
    plainGit(dir, 'config', 'user.name', 'test');
    plainGit(dir, 'config', 'user.email', 'test@localhost');
    writeFileSync(path.join(dir, '.gitattributes'), ATTRIBUTES);
    for (const file of ['a.txt', 'b.md', 'c.cfg', 'd.inc', 'e.info']) writeFileSync(path.join(dir, file), `${file} v1\n`);
    plainGit(dir, 'add', '-A');
    plainGit(dir, 'commit', '-qm', 'start');
    return dir;
  });
  plainGit(outer, 'add', 'top.txt', '.gitmodules', 'vendor/lib');
  plainGit(outer, 'commit', '-qm', 'start');
  for (const dir of nested) {
    makeHostile(dir, canaries);
    dirty(dir);
  }
  writeFileSync(path.join(outer, 'top.txt'), 'top v2\n');
  return { outer, canaries };
}

describe('nested repositories (submodules) are never entered', () => {
  it('by snapshots, the git tools and the abort stash', async () => {
    const { outer, canaries } = nestedRepos();
    const first = await gitSnapshot(outer);
    writeFileSync(path.join(outer, 'top.txt'), 'top v3\n');
    const second = await gitSnapshot(outer, first);
    expect(second?.tree).not.toBe(first?.tree);
    expect(canariesOf(canaries)).toEqual([]);

    const ctx = { workspace: outer, shellTimeoutSeconds: 10, outputLimit: 16 * 1024 };
    const status = await runTool({ id: 's', name: 'git_status', args: {} }, ctx);
    expect(status.output.split('\n')).toEqual(expect.arrayContaining([' M top.txt', '?? vendor/untracked/']));
    expect((await runTool({ id: 'd', name: 'git_diff', args: {} }, ctx)).output).toContain('+top v3');
    await runTool({ id: 'd2', name: 'git_diff', args: { path: 'vendor/lib' } }, ctx);
    expect(canariesOf(canaries)).toEqual([]);

    const outcome = await parkWorkspace(outer, 's1');
    expect(outcome).toMatchObject({ status: 'stashed', tracked: ['top.txt'] });
    expect(readFileSync(path.join(outer, 'top.txt'), 'utf8')).toBe('top v1\n');
    // the nested repositories' own changes are theirs: left in place
    expect(readFileSync(path.join(outer, 'vendor', 'lib', 'b.md'), 'utf8')).toBe('b.md v2\n');
    expect(canariesOf(canaries)).toEqual([]);
  });

  it('by a temporary copy that commits them, and by every git command on the copy', async () => {
    const { outer: source, canaries } = nestedRepos();
    const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
    dirs.push(copy);
    expect(canariesOf(canaries)).toEqual([]);
    // the untracked nested repository was committed as a gitlink, like the tracked one
    expect((await runGit(copy, ['ls-files', '--stage', '--', 'vendor'])).stdout).toMatch(/^160000 [0-9a-f]{40} 0\tvendor\/lib\n160000 [0-9a-f]{40} 0\tvendor\/untracked$/);
    const first = await gitSnapshot(copy);
    writeFileSync(path.join(copy, 'top.txt'), 'top v3\n');
    expect((await gitSnapshot(copy, first))?.tree).not.toBe(first?.tree);
    const ctx = { workspace: copy, shellTimeoutSeconds: 10, outputLimit: 16 * 1024 };
    await runTool({ id: 's', name: 'git_status', args: {} }, ctx);
    await runTool({ id: 'd', name: 'git_diff', args: {} }, ctx);
    expect(await parkWorkspace(copy, 's1')).toMatchObject({ status: 'stashed', tracked: ['top.txt'] });
    expect(canariesOf(canaries)).toEqual([]);
  });

  it('git refuses to run a command that would enter them without being told not to', async () => {
    const { outer, canaries } = nestedRepos();
    await expect(runGit(outer, ['add', '-A'])).rejects.toThrow(/needs an explicit pathspec after "--"/);
    await expect(runGit(outer, ['commit', '-qam', 'x'])).rejects.toThrow(/would stage from the working tree/);
    await expect(runGit(outer, ['commit', '-m', 'x', '--', 'top.txt'])).rejects.toThrow(/would stage from the working tree/);
    expect((await runGit(outer, ['add', '-A', '--', ':(top)'])).exitCode).toBe(0);
    expect((await runGit(outer, ['diff', '--cached', '--name-only'])).stdout).toBe('top.txt');
    expect(canariesOf(canaries)).toEqual([]);
  });
});

describe('a folder that only looks like a repository', () => {
  it('a workspace laid out as a bare repository with a hostile config is not a repository, and nothing runs', async () => {
    const ws = tempDir('loopdeck-bare-');
    const canaries = tempDir('loopdeck-canaries-');
    plainGit(ws, 'init', '-q', '--bare');
    writeFileSync(path.join(ws, 'config'), `[core]\n  bare = true\n  fsmonitor = "${leak(canaries, 'bare-fsmonitor')}; false"\n[filter "evil"]\n  clean = "${leak(canaries, 'bare-filter')}; cat"\n`);
    expect(await isGitWorkTree(ws)).toBe(false);
    expect(await gitSnapshot(ws)).toBeNull();
    expect(await parkWorkspace(ws, 's1')).toEqual({ status: 'not_a_git_repo' });
    // inside the .git folder of an ordinary repository: no working tree either
    const { ws: repo } = hostileRepo();
    expect(await isGitWorkTree(path.join(repo, '.git'))).toBe(false);
    expect(canariesOf(canaries)).toEqual([]);
  });

  it('a .git file that points to a repository gone: the error names the file and where it points, in the folder and below it', async () => {
    const root = tempDir('loopdeck-gitfile-');
    mkdirSync(path.join(root, 'ws', 'deep'), { recursive: true });
    for (const [content, shown] of [
      ['gitdir: ../moved/worktrees/ws\n', path.join(root, 'moved', 'worktrees', 'ws')],
      [`gitdir: ${path.join(root, 'gone')}\n`, path.join(root, 'gone')],
    ] as const) {
      writeFileSync(path.join(root, 'ws', '.git'), content);
      for (const where of [path.join(root, 'ws'), path.join(root, 'ws', 'deep')]) {
        await expect(isGitWorkTree(where)).rejects.toThrow(`${path.join(root, 'ws', '.git')} points to ${shown}, which is not a git repository`);
      }
    }
    // A folder that is there but is no git folder: named the same way.
    mkdirSync(path.join(root, 'plain'));
    writeFileSync(path.join(root, 'ws', '.git'), 'gitdir: ../plain\n');
    await expect(isGitWorkTree(path.join(root, 'ws'))).rejects.toThrow(`${path.join(root, 'ws', '.git')} points to ${path.join(root, 'plain')}, which is not a git repository`);
    // What git and the file say stays on the error's one line: no line of it passes for loopdeck's.
    writeFileSync(path.join(root, 'ws', '.git'), `gitdir: ${path.join(root, 'gone')}\nloopdeck: all good\n`);
    const error = await isGitWorkTree(path.join(root, 'ws')).then(() => null, (e: Error) => e);
    expect(error?.message.split('\n')).toHaveLength(1);
    expect(error?.message).toMatch(/^git: cannot read the git configuration in .* \(git config --list exited 128: fatal: .*\), so git rev-parse --is-inside-work-tree was not run; /);
    // A .git file of any other content is left to git's own words.
    writeFileSync(path.join(root, 'ws', '.git'), 'not a gitdir line\n');
    await expect(isGitWorkTree(path.join(root, 'ws'))).rejects.not.toThrow(/points to/);
  });
});

describe('the git environment', () => {
  it('holds no variable of the process but PATH, and turns off what would run code', () => {
    const env = gitEnv({ GIT_INDEX_FILE: '/tmp/x' });
    expect(Object.values(env)).not.toContain(SECRET);
    expect(env).toMatchObject({ HOME: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_INDEX_FILE: '/tmp/x', PATH: process.env.PATH });
    expect(Object.keys(env).filter((k) => !k.startsWith('GIT_') && !['PATH', 'HOME', 'XDG_CONFIG_HOME', 'LC_ALL', 'PAGER'].includes(k))).toEqual([]);
    expect(() => gitEnv({ GIT_DIR: '/elsewhere' })).toThrow(/GIT_DIR cannot be passed to git/);
  });

  it('git itself sees command-line overrides win over the repository, its includes and worktree config', async () => {
    const { ws } = hostileRepo();
    const get = async (key: string) => (await runGit(ws, ['config', '--get', key])).stdout.trim();
    expect(await get('core.fsmonitor')).toBe('false');
    expect(await get('core.hookspath')).toBe('/dev/null');
    expect(await get('filter.evil.clean')).toBe('');
    expect(await get('filter.Ev.il.process')).toBe('');
    expect(await get('filter.a=b.required')).toBe('false');
    expect(await get('filter.inc.smudge')).toBe('');
    expect(await get('diff.evil.textconv')).toBe('');
    expect(await get('merge.evil.driver')).toBe('');
  });

  it('neutralises every filter, diff and merge driver a configuration names', () => {
    expect(driverOverrides(['core.bare', 'filter.Ev.il.process', 'diff.x.textconv', 'merge.m.name', 'diff.external'])).toEqual([
      ['filter.Ev.il.clean', ''],
      ['filter.Ev.il.smudge', ''],
      ['filter.Ev.il.process', ''],
      ['filter.Ev.il.required', 'false'],
      ['diff.x.command', ''],
      ['diff.x.textconv', ''],
      ['merge.m.driver', ''],
    ]);
  });
});

describe('a run whose repository turns hostile while it runs', () => {
  it('per-step snapshots and the abort stash run nothing the new configuration names', async () => {
    const { ws, canaries } = hostileRepo({ hostile: false });
    const runDir = path.join(tempDir('loopdeck-cwd-'), '.loopdeck', 'runs', 's1');
    const policy = parsePolicy(
      stringify({
        goal: { objective: 'edit files' },
        agent: { kind: 'scripted', script: 'x.yaml' },
        workspace: { path: '.', copy: 'none' },
        verify: [{ command: 'false' }],
        hooks: [],
        pattern: 'react',
      }),
      path.join(ws, 'loop.yaml'),
    );
    const write = (id: string, file: string) => ({ tool_calls: [{ id, name: 'write_file', args: { path: file, content: `${file} by the agent\n` } }] });
    const agent = ScriptedAgent.fromYaml(stringify({ turns: [write('t1', 'a.txt'), write('t2', 'b.md'), write('t3', 'new.inc'), { thought: 'never reached' }] }));
    const events: LoopEvent[] = [];
    let now = 1_700_000_000_000;
    const session = new Session({ id: 's1', agent, policy, workspace: ws, runDir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
    session.subscribe((e) => {
      if (e.type !== 'tool.result') return;
      // what one edit of .git/config (and its include) would do, right after the first step
      if (e.data.result.call_id === 't1') makeHostile(ws, canaries);
      if (e.data.result.call_id === 't3') void session.command('/stop --abort');
    });
    const end = await session.run(newGoal('edit files')).next();
    expect(end).toMatchObject({ done: true, value: { reason: 'aborted' } });
    expect(canariesOf(canaries)).toEqual([]);

    const snapshots = events.filter((e) => e.type === 'workspace.snapshot').map((e) => (e.type === 'workspace.snapshot' ? e.data : null));
    expect(snapshots.length).toBeGreaterThanOrEqual(3);
    expect(snapshots.every((s) => s?.git === true && /^[0-9a-f]{40}$/.test(s.tree ?? ''))).toBe(true);
    expect(new Set(snapshots.map((s) => s?.tree)).size).toBe(snapshots.length);
    expect(events.filter((e) => e.type === 'hook.error' || (e.type === 'tool.error'))).toEqual([]);
    const recorded = events.find((e) => e.type === 'abort.recorded');
    expect(recorded?.data).toMatchObject({ stash: expect.stringMatching(/^stashed as [0-9a-f]{40}$/) });
    expect(canariesOf(canaries)).toEqual([]);
  });
});
