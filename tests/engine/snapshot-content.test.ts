// The workspace snapshot compares content, not stat data: a change git's stat shortcut
// would miss (same size, same mtime, a repository that trusts less of the stat data, an
// assume-unchanged bit) still changes the tree. Real git repositories in temp dirs.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { gitSnapshot } from '../../src/engine/git-progress.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await execa('git', args, { cwd })).stdout;
}

/** A repo with `a.txt` committed and `config` set in its own .git/config. */
async function repo(config: Record<string, string> = {}): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-snapcontent-'));
  dirs.push(dir);
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'config', 'user.name', 'loopdeck test');
  await git(dir, 'config', 'user.email', 'test@loopdeck.invalid');
  for (const [key, value] of Object.entries(config)) await git(dir, 'config', key, value);
  writeFileSync(path.join(dir, 'a.txt'), 'fail\n');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'start');
  return dir;
}

/** Rewrites `a.txt` in place with text of the same size and puts its modification time back (to the nanosecond). */
async function sameSizeEdit(dir: string, text: string): Promise<void> {
  const file = path.join(dir, 'a.txt');
  const reference = path.join(mkdtempSync(path.join(os.tmpdir(), 'loopdeck-snapref-')), 'ref');
  dirs.push(path.dirname(reference));
  writeFileSync(reference, '');
  await execa('touch', ['-r', file, reference]);
  const before = statSync(file, { bigint: true });
  writeFileSync(file, text);
  await execa('touch', ['-r', reference, file]);
  const after = statSync(file, { bigint: true });
  expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
}

async function blobOf(dir: string, tree: string): Promise<string> {
  return git(dir, 'rev-parse', `${tree}:a.txt`);
}

async function hashOf(dir: string, text: string): Promise<string> {
  return (await execa('git', ['hash-object', '--stdin'], { cwd: dir, input: text })).stdout;
}

describe('the workspace snapshot reads content', () => {
  it.each([
    ['core.trustctime=false', { 'core.trustctime': 'false' }],
    ['core.checkStat=minimal', { 'core.checkStat': 'minimal', 'core.trustctime': 'false' }],
  ])('sees a same-size edit with the mtime put back in a repository with %s', async (_name, config) => {
    const dir = await repo(config);
    const first = (await gitSnapshot(dir))!;
    await sameSizeEdit(dir, 'pass\n');
    const second = (await gitSnapshot(dir, first))!;
    expect(second.tree).not.toBe(first.tree);
    expect(await blobOf(dir, second.tree)).toBe(await hashOf(dir, 'pass\n'));
  });

  it('sees an edit of a file marked assume-unchanged, and an edit right after an index write', async () => {
    const dir = await repo();
    await git(dir, 'update-index', '--assume-unchanged', 'a.txt');
    const first = (await gitSnapshot(dir))!;
    writeFileSync(path.join(dir, 'a.txt'), 'fixed at last\n');
    const second = (await gitSnapshot(dir, first))!;
    expect(await blobOf(dir, second.tree)).toBe(await hashOf(dir, 'fixed at last\n'));
    // the index is written (git add) and the file edited again at once, same size
    await git(dir, 'update-index', '--no-assume-unchanged', 'a.txt');
    await git(dir, 'add', 'a.txt');
    await sameSizeEdit(dir, 'fixed at LAST\n');
    const third = (await gitSnapshot(dir, second))!;
    expect(await blobOf(dir, third.tree)).toBe(await hashOf(dir, 'fixed at LAST\n'));
  });

  it('keeps a tracked file that .gitignore matches, and staged new files, in the snapshot', async () => {
    const dir = await repo();
    writeFileSync(path.join(dir, '.gitignore'), 'a.txt\nstaged.txt\n');
    writeFileSync(path.join(dir, 'staged.txt'), 'x\n');
    await git(dir, 'add', '-f', 'staged.txt');
    const first = (await gitSnapshot(dir))!;
    expect(await blobOf(dir, first.tree)).toBe(await hashOf(dir, 'fail\n'));
    expect(await git(dir, 'rev-parse', `${first.tree}:staged.txt`)).toBe(await hashOf(dir, 'x\n'));
    writeFileSync(path.join(dir, 'a.txt'), 'pass\n');
    const second = (await gitSnapshot(dir, first))!;
    expect(await blobOf(dir, second.tree)).toBe(await hashOf(dir, 'pass\n'));
  });
});
