// `workspace.copy: temp` copies symlinks as they are, so nothing the run writes through
// the copy reaches the source folder. A real source folder and the real file tools.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parkWorkspace } from '../../src/engine/abort.js';
import { ToolError } from '../../src/engine/errors.js';
import { runGit } from '../../src/engine/git.js';
import { runTool } from '../../src/engine/tools.js';
import { prepareWorkspace } from '../../src/engine/workspace.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-source-'));
  dirs.push(dir);
  return dir;
}

it('relative symlinks stay relative in the copy; writing through them changes the copy, never the source', async () => {
  const source = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-source-'));
  dirs.push(source);
  writeFileSync(path.join(source, 'target.txt'), 'original\n');
  mkdirSync(path.join(source, 'lib'));
  writeFileSync(path.join(source, 'lib', 'util.js'), 'original\n');
  symlinkSync('target.txt', path.join(source, 'link.txt'));
  symlinkSync('lib', path.join(source, 'libs'));
  symlinkSync(path.join(source, 'target.txt'), path.join(source, 'absolute.txt'));

  const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
  dirs.push(copy);

  expect(readlinkSync(path.join(copy, 'link.txt'))).toBe('target.txt');
  expect(readlinkSync(path.join(copy, 'libs'))).toBe('lib');
  const ctx = { workspace: copy, shellTimeoutSeconds: 10, outputLimit: 4096 };
  await runTool({ id: 'w1', name: 'write_file', args: { path: 'link.txt', content: 'changed\n' } }, ctx);
  await runTool({ id: 'w2', name: 'edit', args: { path: 'libs/util.js', find: 'original', replace: 'changed' } }, ctx);
  expect(readFileSync(path.join(copy, 'target.txt'), 'utf8')).toBe('changed\n');
  expect(readFileSync(path.join(copy, 'lib', 'util.js'), 'utf8')).toBe('changed\n');

  // An absolute link keeps pointing into the source: the tools refuse it as outside the copy.
  expect(readlinkSync(path.join(copy, 'absolute.txt'))).toBe(path.join(source, 'target.txt'));
  await expect(runTool({ id: 'w3', name: 'write_file', args: { path: 'absolute.txt', content: 'changed\n' } }, ctx)).rejects.toThrow(
    new ToolError('write_file', 'path "absolute.txt" is outside the workspace'),
  );

  expect(readFileSync(path.join(source, 'target.txt'), 'utf8')).toBe('original\n');
  expect(readFileSync(path.join(source, 'lib', 'util.js'), 'utf8')).toBe('original\n');
});

// A copy whose `.git` points back at the user's repository (a linked worktree's or a
// submodule's `.git` file, a `.git` symlink, a working tree configured elsewhere) must not
// let the harness's own git write there: the "workspace as started" commit, the identity,
// the snapshot and the abort stash all stay in the copy.
describe('a copy is a repository of its own', () => {
  /** git as the user runs it (no user-level configuration), for building the source. */
  function plainGit(cwd: string, ...args: string[]): string {
    return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
  }

  /** A committed repository at `<root>/main` with `a.txt`. */
  function mainRepo(root: string): string {
    const main = path.join(root, 'main');
    mkdirSync(main);
    plainGit(main, 'init', '-q', '-b', 'main');
    plainGit(main, 'config', 'user.name', 'owner');
    plainGit(main, 'config', 'user.email', 'owner@localhost');
    writeFileSync(path.join(main, 'a.txt'), 'committed\n');
    plainGit(main, 'add', '-A');
    plainGit(main, 'commit', '-qm', 'start');
    return main;
  }

  /** Everything of the user's repository that must come out of a run byte for byte. */
  function userState(gitDir: string, worktree: string): Record<string, string> {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const admin = Object.fromEntries(
      files(gitDir)
        .filter((f) => !f.includes(`${path.sep}objects${path.sep}`))
        .map((f) => [path.relative(gitDir, f), lstatSync(f).isSymbolicLink() ? `-> ${readlinkSync(f)}` : readFileSync(f, 'latin1')]),
    );
    return {
      refs: plainGit(worktree, 'for-each-ref'),
      stash: plainGit(worktree, 'stash', 'list'),
      status: plainGit(worktree, 'status', '--porcelain=v1', '--untracked-files=all'),
      head: plainGit(worktree, 'rev-parse', 'HEAD'),
      files: JSON.stringify(readdirSync(worktree).sort().map((f) => [f, lstatSync(path.join(worktree, f)).isFile() ? readFileSync(path.join(worktree, f), 'utf8') : ''])),
      admin: JSON.stringify(admin),
    };
  }

  /** Prepares a copy of `source`, writes through the tools and aborts (stashes) in it. */
  async function runInCopy(source: string): Promise<string> {
    const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
    dirs.push(copy);
    const ctx = { workspace: copy, shellTimeoutSeconds: 10, outputLimit: 4096 };
    await runTool({ id: 'w1', name: 'write_file', args: { path: 'a.txt', content: 'by the agent\n' } }, ctx);
    await runTool({ id: 'w2', name: 'write_file', args: { path: 'new.txt', content: 'new\n' } }, ctx);
    expect(await parkWorkspace(copy, 's1')).toMatchObject({ status: 'stashed', tracked: ['a.txt'], untracked: ['new.txt'] });
    // the copy's repository is in the copy, and its first commit holds the files as they were
    const real = realpathSync(copy);
    expect((await runGit(copy, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout).toBe(path.join(real, '.git'));
    expect((await runGit(copy, ['show', 'HEAD:a.txt'])).stdout).toBe('uncommitted change');
    expect((await runGit(copy, ['log', '-1', '--format=%s %an'])).stdout).toBe('loopdeck: workspace as started loopdeck');
    return copy;
  }

  it('of a linked worktree (`.git` is a `gitdir:` file into the main repository)', async () => {
    const root = tempDir();
    const main = mainRepo(root);
    const wt = path.join(root, 'wt');
    plainGit(main, 'worktree', 'add', '-q', wt, '-b', 'feature');
    writeFileSync(path.join(wt, 'a.txt'), 'uncommitted change\n');
    const before = { main: userState(path.join(main, '.git'), main), wt: userState(path.join(main, '.git', 'worktrees', 'wt'), wt) };
    await runInCopy(wt);
    expect({ main: userState(path.join(main, '.git'), main), wt: userState(path.join(main, '.git', 'worktrees', 'wt'), wt) }).toEqual(before);
    expect(readFileSync(path.join(main, '.git', 'config'), 'utf8')).not.toContain('loopdeck');
  });

  it('of a folder whose `.git` file names a git folder elsewhere', async () => {
    const root = tempDir();
    const store = path.join(root, 'store.git');
    const ws = path.join(root, 'ws');
    mkdirSync(ws);
    plainGit(ws, 'init', '-q', '-b', 'main', `--separate-git-dir=${store}`);
    plainGit(ws, 'config', 'user.name', 'owner');
    plainGit(ws, 'config', 'user.email', 'owner@localhost');
    writeFileSync(path.join(ws, 'a.txt'), 'committed\n');
    plainGit(ws, 'add', '-A');
    plainGit(ws, 'commit', '-qm', 'start');
    writeFileSync(path.join(ws, 'a.txt'), 'uncommitted change\n');
    const before = userState(store, ws);
    await runInCopy(ws);
    expect(userState(store, ws)).toEqual(before);
  });

  it('of a folder whose `.git` is a symlink to another repository', async () => {
    const root = tempDir();
    const main = mainRepo(root);
    const ws = path.join(root, 'ws');
    mkdirSync(ws);
    symlinkSync(path.join(main, '.git'), path.join(ws, '.git'));
    writeFileSync(path.join(ws, 'a.txt'), 'uncommitted change\n');
    const before = { main: userState(path.join(main, '.git'), main), ws: readFileSync(path.join(ws, 'a.txt'), 'utf8') };
    await runInCopy(ws);
    expect({ main: userState(path.join(main, '.git'), main), ws: readFileSync(path.join(ws, 'a.txt'), 'utf8') }).toEqual(before);
  });

  it.each([
    ['core.worktree naming the source folder', (main: string) => plainGit(main, 'config', 'core.worktree', main)],
    ['refs kept in a linked folder, objects borrowed through alternates', (main: string) => {
      const shared = path.join(path.dirname(main), 'shared-refs');
      renameSync(path.join(main, '.git', 'refs'), shared);
      symlinkSync(shared, path.join(main, '.git', 'refs'));
      writeFileSync(path.join(main, '.git', 'objects', 'info', 'alternates'), `${path.join(main, '.git', 'objects')}\n`);
    }],
  ])('of a repository whose .git folder points back at it: %s', async (_name, tamper) => {
    const root = tempDir();
    const main = mainRepo(root);
    tamper(main);
    writeFileSync(path.join(main, 'a.txt'), 'uncommitted change\n');
    const before = userState(path.join(main, '.git'), main);
    await runInCopy(main);
    expect(userState(path.join(main, '.git'), main)).toEqual(before);
  });
});

it("the project's installed dependencies come along: its tests run in the copy, the copy's git ignores them, and changing them leaves the source's alone", async () => {
  const source = tempDir();
  mkdirSync(path.join(source, 'node_modules', 'greeter'), { recursive: true });
  writeFileSync(path.join(source, 'node_modules', 'greeter', 'package.json'), JSON.stringify({ name: 'greeter', main: 'index.js' }));
  writeFileSync(path.join(source, 'node_modules', 'greeter', 'index.js'), "module.exports = (n) => 'hello ' + n;\n");
  writeFileSync(path.join(source, 'greet.test.js'), "const test = require('node:test');\nconst assert = require('node:assert');\ntest('greets', () => assert.equal(require('greeter')('ada'), 'hello ada'));\n");

  const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
  dirs.push(copy);
  expect(execFileSync(process.execPath, ['--test'], { cwd: copy, encoding: 'utf8' })).toMatch(/# pass 1/);
  const status = await runGit(copy, ['status', '--porcelain', '--untracked-files=all']);
  expect(status.stdout).toBe('');
  expect((await runGit(copy, ['ls-files'])).stdout.trim().split('\n')).toEqual(['greet.test.js']);

  writeFileSync(path.join(copy, 'node_modules', 'greeter', 'index.js'), 'module.exports = () => "changed";\n');
  expect(readFileSync(path.join(source, 'node_modules', 'greeter', 'index.js'), 'utf8')).toBe("module.exports = (n) => 'hello ' + n;\n");
});

// loopdeck's own state (`.loopdeck/`: earlier runs' logs, owner files with pids, saved
// policies) is no part of the project: never copied for the agent, never committed, and
// the file tools do not read or list it where the workspace is used in place.
describe("loopdeck's own .loopdeck folder", () => {
  function withRuns(): string {
    const source = tempDir();
    writeFileSync(path.join(source, 'app.js'), 'export {};\n');
    for (const dir of ['.loopdeck/runs/r1', 'sub/.loopdeck/runs/r2', '.LoopDeck']) mkdirSync(path.join(source, dir), { recursive: true });
    writeFileSync(path.join(source, '.loopdeck/runs/r1/events.jsonl'), '{"seq":1}\n');
    writeFileSync(path.join(source, '.loopdeck/runs/r1/owner.json'), '{"pid":1}\n');
    writeFileSync(path.join(source, 'sub/.loopdeck/runs/r2/policy.json'), '{}\n');
    writeFileSync(path.join(source, '.LoopDeck/x'), '\n');
    return source;
  }

  it('is left out of a copy: top level, nested, any letter case; the first commit holds only the project', async () => {
    const source = withRuns();
    const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
    dirs.push(copy);
    expect(readdirSync(copy).sort()).toEqual(['.git', 'app.js', 'sub']);
    expect(readdirSync(path.join(copy, 'sub'))).toEqual([]);
    const tracked = (await runGit(copy, ['ls-files'])).stdout.trim().split('\n');
    expect(tracked).toEqual(['app.js']);
    // What an observer writes into the copy's .loopdeck (pytest's report) stays out of its git.
    mkdirSync(path.join(copy, '.loopdeck'));
    writeFileSync(path.join(copy, '.loopdeck', 'pytest-report.xml'), '<x/>\n');
    expect((await runGit(copy, ['status', '--porcelain', '--untracked-files=all'])).stdout).toBe('');
    // The source keeps its runs.
    expect(readFileSync(path.join(source, '.loopdeck/runs/r1/owner.json'), 'utf8')).toBe('{"pid":1}\n');
  });

  it('a workspace used in place: list_files, read_file and git_status leave it out', async () => {
    const source = withRuns();
    execFileSync('git', ['init', '-q'], { cwd: source });
    const ctx = { workspace: source, shellTimeoutSeconds: 10, outputLimit: 4096 };
    const listed = await runTool({ id: 'l', name: 'list_files', args: { path: '.' } }, ctx);
    expect(listed.output.split('\n').sort()).toEqual(['app.js']);
    for (const file of ['.loopdeck/runs/r1/owner.json', 'sub/.loopdeck/runs/r2/policy.json', '.LoopDeck/x']) {
      await expect(runTool({ id: 'r', name: 'read_file', args: { path: file } }, ctx)).rejects.toThrow(/will not read .*: it is inside loopdeck's own state/);
    }
    const status = await runTool({ id: 's', name: 'git_status', args: {} }, ctx);
    expect(status.output).not.toMatch(/loopdeck/i);
    expect(status.output).toContain('app.js');
  });
});
