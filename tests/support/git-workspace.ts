/**
 * Real git workspaces in temp folders for engine tests: folders removed after each test,
 * git run without the user's global configuration, files written with their folders, and a
 * repository with a local identity and a first commit.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new folder under the system's temp folder (its real path), removed after the test. */
export function tempDir(prefix = 'loopdeck-test-'): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Runs git in `cwd` without the user's global configuration; returns its trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } }).trim();
}

/** Writes each `path → text` under `dir`, making folders as needed. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

/** A repository on branch `main` with a local identity and `files` committed as `start`. */
export function gitRepo(prefix: string, files: Record<string, string>): string {
  const dir = tempDir(prefix);
  git(dir, 'init', '-q', '-b', 'main');
  // What `git config user.name` and `user.email` would write, without a process each.
  appendFileSync(path.join(dir, '.git', 'config'), '[user]\n\tname = test\n\temail = test@localhost\n');
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  // No background maintenance for a one-commit repository.
  git(dir, '-c', 'maintenance.auto=false', 'commit', '-qm', 'start');
  return dir;
}
