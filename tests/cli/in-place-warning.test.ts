/**
 * A workspace used in place (`workspace.copy: none`) gets a warning before the run when it
 * has uncommitted changes an abort would stash with the agent's: only those under the
 * workspace folder are counted. Real git repositories in temp folders.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/engine/policy.js';
import { inPlaceWarning, unversionedWarning } from '../../src/preflight.js';

const env = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const git = (cwd: string, ...args: string[]) => execa('git', args, { cwd, env });

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-in-place-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A loop.yaml in `root` whose workspace is `workspace` (relative to it), used as `copy`. */
function policyFor(workspace: string, copy: 'none' | 'temp' = 'none') {
  writeFileSync(path.join(root, 'script.yaml'), 'turns:\n  - final: done\n');
  const source = `goal:\n  objective: x\nagent:\n  kind: scripted\n  script: script.yaml\nworkspace:\n  path: ${workspace}\n  copy: ${copy}\nverify:\n  - command: "true"\n`;
  const file = path.join(root, 'loop.yaml');
  writeFileSync(file, source);
  return parsePolicy(source, file);
}

async function commitAll(dir: string): Promise<void> {
  await git(dir, 'add', '-A');
  await git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
}

describe('warned about', () => {
  it('uncommitted changes in the workspace, counted as an abort would stash them', async () => {
    mkdirSync(path.join(root, 'ws'));
    await git(path.join(root, 'ws'), 'init', '-q');
    writeFileSync(path.join(root, 'ws', 'a.txt'), 'a\n');
    await commitAll(path.join(root, 'ws'));
    writeFileSync(path.join(root, 'ws', 'a.txt'), 'changed\n');
    writeFileSync(path.join(root, 'ws', 'new.txt'), 'new\n');
    expect(await inPlaceWarning(policyFor('ws'))).toMatch(/has 2 uncommitted changes: the agent's edits will mix with them, and an abort stashes both together/);
  });

  it('a workspace that is a folder of a larger repository: only the changes under it count', async () => {
    await git(root, 'init', '-q');
    mkdirSync(path.join(root, 'app'));
    writeFileSync(path.join(root, 'app', 'a.txt'), 'a\n');
    writeFileSync(path.join(root, 'outside.txt'), 'o\n');
    await commitAll(root);
    writeFileSync(path.join(root, 'outside.txt'), 'changed outside\n');
    writeFileSync(path.join(root, 'app', 'a.txt'), 'changed inside\n');
    expect(await inPlaceWarning(policyFor('app'))).toMatch(/has 1 uncommitted change:/);
    // Only outside changes: nothing an abort would stash is the operator's.
    await git(root, 'checkout', '--', 'app/a.txt');
    expect(await inPlaceWarning(policyFor('app'))).toBeNull();
  });

  it('a workspace in no git repository: nothing can undo the edits or stash them', async () => {
    mkdirSync(path.join(root, 'plain'));
    expect(await unversionedWarning(policyFor('plain'))).toMatch(/workspace\.copy is none and .*plain is in no git repository: the agent edits its files directly, nothing can undo the edits, and an abort cannot stash them/);
    expect(await inPlaceWarning(policyFor('plain'))).toBeNull();
  });

  it('a workspace whose every file the repository around it ignores, by any rule that reaches them', async () => {
    await git(root, 'init', '-q');
    mkdirSync(path.join(root, 'app', 'deep'), { recursive: true });
    writeFileSync(path.join(root, 'app', 'deep', 'a.js'), 'a\n');
    const rules: Array<[string, string, string]> = [
      ['app\n', 'app', 'app'],
      ['app/*\n', 'app', 'app/*'],
      ['/app/\n', 'app/deep', '/app/'],
      ['*.js\n', 'app', '*.js'],
      ['*\n!.gitignore\n', 'app/deep', '*'],
    ];
    for (const [ignore, workspace, rule] of rules) {
      writeFileSync(path.join(root, '.gitignore'), ignore);
      const warning = await unversionedWarning(policyFor(workspace));
      expect(warning, `${ignore.trim()} for ${workspace}`).toContain(`git ignores every file in ${path.join(root, workspace)} (.gitignore:`);
      expect(warning, `${ignore.trim()} for ${workspace}`).toContain(`:${rule}): git records none of the agent's edits there, nothing can undo them, and an abort cannot stash them`);
    }
    // A rule in .git/info/exclude is named as such.
    writeFileSync(path.join(root, '.gitignore'), '');
    writeFileSync(path.join(root, '.git', 'info', 'exclude'), 'app\n');
    expect(await unversionedWarning(policyFor('app'))).toContain('(.git/info/exclude:1:app)');
  });
});

describe('not warned about', () => {
  it('a clean repository, and any workspace that is copied', async () => {
    mkdirSync(path.join(root, 'ws'));
    await git(path.join(root, 'ws'), 'init', '-q');
    writeFileSync(path.join(root, 'ws', 'a.txt'), 'a\n');
    await commitAll(path.join(root, 'ws'));
    expect(await inPlaceWarning(policyFor('ws'))).toBeNull();
    writeFileSync(path.join(root, 'ws', 'a.txt'), 'changed\n');
    expect(await inPlaceWarning(policyFor('ws', 'temp'))).toBeNull();
    expect(await unversionedWarning(policyFor('ws'))).toBeNull();
    mkdirSync(path.join(root, 'plain'));
    expect(await inPlaceWarning(policyFor('plain', 'temp'))).toBeNull();
    expect(await unversionedWarning(policyFor('plain', 'temp'))).toBeNull();
    // A path that is a file, or nothing: the start check's own error says so, not git.
    writeFileSync(path.join(root, 'afile'), 'x\n');
    expect(await unversionedWarning(policyFor('afile'))).toBeNull();
    expect(await inPlaceWarning(policyFor('afile'))).toBeNull();
    expect(await unversionedWarning(policyFor('missing'))).toBeNull();
  });

  it('a folder git sees some file of: a rule that lets files back in, a file kept out of a rule, ignored build output beside sources', async () => {
    await git(root, 'init', '-q');
    mkdirSync(path.join(root, 'app', 'dist'), { recursive: true });
    writeFileSync(path.join(root, 'app', 'a.js'), 'a\n');
    writeFileSync(path.join(root, 'app', 'dist', 'out.js'), 'o\n');
    for (const ignore of ['*\n!.gitignore\n!*/\n!app/**\n', 'app/*\n!app/a.js\n', 'dist/\n', 'app/\n!app/\n']) {
      writeFileSync(path.join(root, '.gitignore'), ignore);
      expect(await unversionedWarning(policyFor('app')), ignore).toBeNull();
    }
    // Empty but for loopdeck's own ignored run folder: what the agent writes there is seen.
    mkdirSync(path.join(root, 'fresh', '.loopdeck', 'runs'), { recursive: true });
    writeFileSync(path.join(root, 'fresh', '.loopdeck', 'runs', 'x'), 'x\n');
    writeFileSync(path.join(root, '.gitignore'), '.loopdeck/\n');
    expect(await unversionedWarning(policyFor('fresh'))).toBeNull();
  });

  it('an ignored folder whose files the repository tracks all the same, and a folder next to an ignored one', async () => {
    await git(root, 'init', '-q');
    mkdirSync(path.join(root, 'app'));
    mkdirSync(path.join(root, 'build'));
    writeFileSync(path.join(root, 'app', 'a.txt'), 'a\n');
    writeFileSync(path.join(root, 'build', 'b.txt'), 'b\n');
    writeFileSync(path.join(root, '.gitignore'), 'build\n');
    await commitAll(root);
    expect(await unversionedWarning(policyFor('app'))).toBeNull();
    await git(root, 'add', '-f', 'build/b.txt');
    expect(await unversionedWarning(policyFor('build'))).toBeNull();
  });

  it('loopdeck\'s own run folders inside the workspace', async () => {
    mkdirSync(path.join(root, 'ws', '.loopdeck', 'runs', 'r1'), { recursive: true });
    await git(path.join(root, 'ws'), 'init', '-q');
    writeFileSync(path.join(root, 'ws', 'a.txt'), 'a\n');
    await git(path.join(root, 'ws'), 'add', 'a.txt');
    await git(path.join(root, 'ws'), '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
    writeFileSync(path.join(root, 'ws', '.loopdeck', 'runs', 'r1', 'events.jsonl'), '{}\n');
    expect(await inPlaceWarning(policyFor('ws'))).toBeNull();
  });
});
