import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { gitSnapshot, isGitWorkTree, type GitSnapshot } from '../../src/engine/git-progress.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-gitprog-'));
  dirs.push(dir);
  return dir;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execa('git', args, { cwd })).stdout;
}

/** A repo with a local identity (CI has no global git config) and `files` committed, unless `commit` is false. */
async function repo(files: Record<string, string> = { 'a.txt': 'a\n' }, commit = true): Promise<string> {
  const dir = tempDir();
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'config', 'user.name', 'loopdeck test');
  await git(dir, 'config', 'user.email', 'test@loopdeck.invalid');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  if (commit) {
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', 'start');
  }
  return dir;
}

/** `git status --porcelain` (with untracked files) and the raw bytes of the index. */
async function repoState(dir: string): Promise<{ status: string; index: string }> {
  const status = await git(dir, 'status', '--porcelain=v1', '--untracked-files=all');
  let index = '';
  try {
    index = readFileSync(path.join(dir, '.git', 'index')).toString('base64');
  } catch {
    index = '(none)';
  }
  return { status, index };
}

async function snap(dir: string, previous?: GitSnapshot | null): Promise<GitSnapshot> {
  const s = await gitSnapshot(dir, previous);
  if (s === null) throw new Error(`expected a git repo at ${dir}`);
  return s;
}

describe('gitSnapshot', () => {
  it('gives the same HEAD and tree when nothing changed', async () => {
    const dir = await repo();
    const a = await snap(dir);
    const b = await snap(dir, a);
    expect(b).toEqual(a);
    expect(a.head).toBe((await git(dir, 'rev-parse', 'HEAD')).trim());
    expect(a.tree).toMatch(/^[0-9a-f]{40}$/);
    // a clean tree hashes to HEAD's tree
    expect(a.tree).toBe((await git(dir, 'rev-parse', 'HEAD^{tree}')).trim());
    expect(a.new_commits).toBe(0);
  });

  it('changes the tree when a tracked file is modified, and leaves status and index as they were', async () => {
    const dir = await repo();
    const before = await snap(dir);
    writeFileSync(path.join(dir, 'a.txt'), 'changed\n');
    const state = await repoState(dir);
    const after = await snap(dir, before);
    expect(after.tree).not.toBe(before.tree);
    expect(after.head).toBe(before.head);
    expect(await repoState(dir)).toEqual(state);
    expect(state.status).toBe(' M a.txt');
  });

  it('changes the tree when an untracked file appears, which stays untracked', async () => {
    const dir = await repo();
    const before = await snap(dir);
    writeFileSync(path.join(dir, 'new.txt'), 'new\n');
    mkdirSync(path.join(dir, 'sub'));
    writeFileSync(path.join(dir, 'sub', 'deep.txt'), 'deep\n');
    const state = await repoState(dir);
    const after = await snap(dir, before);
    expect(after.tree).not.toBe(before.tree);
    expect(await repoState(dir)).toEqual(state);
    expect(state.status.split('\n')).toEqual(['?? new.txt', '?? sub/deep.txt']);
    // changing the untracked file changes the tree again
    writeFileSync(path.join(dir, 'new.txt'), 'newer\n');
    expect((await snap(dir, after)).tree).not.toBe(after.tree);
  });

  it('does not see ignored files', async () => {
    const dir = await repo({ '.gitignore': 'build/\n', 'a.txt': 'a\n' });
    const before = await snap(dir);
    mkdirSync(path.join(dir, 'build'));
    writeFileSync(path.join(dir, 'build', 'out.js'), 'x');
    expect((await snap(dir, before)).tree).toBe(before.tree);
  });

  it('keeps a partially staged file exactly as staged', async () => {
    const dir = await repo();
    writeFileSync(path.join(dir, 'a.txt'), 'staged\n');
    await git(dir, 'add', 'a.txt');
    writeFileSync(path.join(dir, 'a.txt'), 'staged then edited\n');
    const state = await repoState(dir);
    await snap(dir);
    expect(await repoState(dir)).toEqual(state);
    expect(await git(dir, 'diff', '--cached', '--name-only')).toBe('a.txt');
    expect(await git(dir, 'show', ':a.txt')).toBe('staged');
  });

  it('moves HEAD on a commit and counts the new commits', async () => {
    const dir = await repo();
    const s0 = await snap(dir);
    writeFileSync(path.join(dir, 'a.txt'), 'v2\n');
    const s1 = await snap(dir, s0);
    await git(dir, 'commit', '-q', '-am', 'v2');
    const s2 = await snap(dir, s1);
    expect(s2.head).not.toBe(s1.head);
    expect(s2.new_commits).toBe(1);
    // committing what was already on disk changes no file
    expect(s2.tree).toBe(s1.tree);
    writeFileSync(path.join(dir, 'b.txt'), 'b\n');
    await git(dir, 'add', 'b.txt');
    await git(dir, 'commit', '-q', '-m', 'b');
    writeFileSync(path.join(dir, 'c.txt'), 'c\n');
    await git(dir, 'add', 'c.txt');
    await git(dir, 'commit', '-q', '-m', 'c');
    const s3 = await snap(dir, s2);
    expect(s3.new_commits).toBe(2);
    // a reset back makes no new commit
    await git(dir, 'reset', '-q', '--hard', s2.head!);
    const s4 = await snap(dir, s3);
    expect(s4.new_commits).toBe(0);
    expect(s4.tree).toBe(s2.tree);
    expect([s1, s2, s3, s4].reduce((sum, s) => sum + s.new_commits, 0)).toBe(3);
  });

  it('handles a repo without commits: HEAD is null until the first commit', async () => {
    const dir = await repo({ 'a.txt': 'a\n' }, false);
    const s0 = await snap(dir);
    expect(s0.head).toBeNull();
    expect(await repoState(dir)).toEqual({ status: '?? a.txt', index: '(none)' });
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', 'first');
    const s1 = await snap(dir, s0);
    expect(s1.head).toMatch(/^[0-9a-f]{40}$/);
    expect(s1.new_commits).toBe(1);
    expect(s1.tree).toBe(s0.tree);
  });

  it('observes the whole repository from a subdirectory', async () => {
    const dir = await repo({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    const before = await snap(path.join(dir, 'sub'));
    writeFileSync(path.join(dir, 'a.txt'), 'outside sub\n');
    expect((await snap(path.join(dir, 'sub'), before)).tree).not.toBe(before.tree);
  });

  it('returns null for a directory that is not a git repository', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a.txt'), 'a\n');
    expect(await isGitWorkTree(dir)).toBe(false);
    expect(await gitSnapshot(dir)).toBeNull();
  });
});

describe('workspace progress in the fold (what the console shows)', () => {
  let seq = 0;
  const snap = (tree: string | null, new_commits = 0): LoopEvent =>
    ({ seq: seq++, at: seq, session: 's', type: 'workspace.snapshot', data: { head: tree && 'h', tree, new_commits: tree && new_commits, git: tree !== null } }) as LoopEvent;

  it('the first snapshot has nothing to compare with: file changes unknown, not "changed"', () => {
    expect(fold([snap('t1')])).toMatchObject({ unchangedSteps: 'unknown', lapCommits: 0, workspaceGit: true });
  });

  it('counts the steps in a row, ending with the latest, that changed no file, and sums the commits', () => {
    expect(fold([snap('t1'), snap('t1')]).unchangedSteps).toBe(1);
    expect(fold([snap('t1'), snap('t2'), snap('t2'), snap('t2', 2)])).toMatchObject({ unchangedSteps: 2, lapCommits: 2 });
    expect(fold([snap('t1'), snap('t1'), snap('t2')]).unchangedSteps).toBe(0);
  });

  it('says unknown, never "no progress", without git', () => {
    expect(fold([snap(null)])).toMatchObject({ unchangedSteps: 'unknown', lapCommits: 'unknown', workspaceGit: false });
  });
});
