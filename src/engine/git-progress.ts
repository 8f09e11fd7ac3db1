/**
 * Git-observed progress of a workspace (DESIGN.md, "Termination"; principle 2, "observed
 * beats reported"). After each step the harness takes a {@link gitSnapshot}: HEAD and a
 * tree hash of the working tree *including untracked, non-ignored files*; the pure
 * {@link progressSince} turns the snapshots of a lap into "no file changed in N steps" and
 * "N commits this lap". A workspace that is not a git repository gives `'unknown'`, never
 * "no progress".
 *
 * The tree hash is computed without touching the repository's index or working tree: a
 * copy of the index goes to a temporary file named by `GIT_INDEX_FILE`, `git add -A` stages
 * everything into that copy, and `git write-tree` hashes it (git(1), "GIT_INDEX_FILE";
 * the same idea as `git stash create`, which records a dirty tree without touching it).
 * The only lasting effect is new loose blobs in `.git/objects`, which `git gc` prunes
 * when unreferenced.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { ToolError } from './errors.js';

/** Output of one git command. */
export interface GitRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment git commands run with: the process's own, minus variables that would
 * point git at another repository or index (set when loopdeck runs inside a git hook),
 * with `LC_ALL=C` so messages can be recognised and `GIT_OPTIONAL_LOCKS=0` so read-only
 * commands never refresh the real index.
 */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^GIT_(DIR|WORK_TREE|INDEX_FILE|PREFIX|COMMON_DIR|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE)$/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', ...extra };
}

/**
 * Runs `git <args>` in `cwd` without throwing on a non-zero exit (output trimmed of its
 * final newline).
 *
 * @throws ToolError when git cannot be started at all (missing binary, missing `cwd`)
 */
export async function runGit(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<GitRun> {
  const result = await execa('git', args, { cwd, env: gitEnv(extraEnv), extendEnv: false, reject: false, stdin: 'ignore' });
  if (result.exitCode === undefined) {
    throw new ToolError('git', `could not run git ${args.join(' ')} in ${cwd}: ${result.message}`);
  }
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** Same as {@link runGit} but a non-zero exit throws. @throws ToolError naming the command and git's message */
export async function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const run = await runGit(cwd, args, extraEnv);
  if (run.exitCode !== 0) {
    throw new ToolError('git', `git ${args.join(' ')} failed (exit ${run.exitCode}): ${run.stderr.trim() || run.stdout.trim()}`);
  }
  return run.stdout;
}

/**
 * Whether `dir` is inside a git working tree. `false` outside any repository, and inside a
 * `.git` directory or a bare repository (no working tree to observe).
 *
 * @throws ToolError when git refuses for another reason (e.g. "dubious ownership"), or
 *   cannot run in `dir` at all
 */
export async function isGitWorkTree(dir: string): Promise<boolean> {
  const run = await runGit(dir, ['rev-parse', '--is-inside-work-tree']);
  if (run.exitCode === 0) return run.stdout.trim() === 'true';
  if (/not a git repository/i.test(run.stderr)) return false;
  throw new ToolError('git', `git rev-parse in ${dir} failed (exit ${run.exitCode}): ${run.stderr.trim()}`);
}

/** The commit HEAD points at, or `null` on an unborn branch (no commit yet). */
export async function headCommit(dir: string): Promise<string | null> {
  const run = await runGit(dir, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
  return run.exitCode === 0 ? run.stdout.trim() : null;
}

/** The git state of a workspace after one step. Serialisable, so it can be logged and folded. */
export interface GitSnapshot {
  /** Commit SHA of HEAD; `null` on an unborn branch (no commit yet). */
  head: string | null;
  /** Tree hash of the whole working tree: tracked files as they are on disk plus untracked, non-ignored files. */
  tree: string;
  /**
   * Commits reachable from `head` and not from the previous snapshot's head (an amend
   * counts 1, a `reset` back 0, a rebase of n commits n). 0 when no previous snapshot was
   * given; 1 when HEAD moved but the previous head no longer exists.
   */
  new_commits: number;
}

/**
 * Records the git state of `dir` without changing its index or working tree. The tree
 * covers the whole repository that contains `dir` (its top level), not only `dir`.
 *
 * @param previous the snapshot of the step before (to count `new_commits`); omit for a lap's first
 * @returns the snapshot, or `null` when `dir` is not inside a git working tree
 * @throws ToolError when git fails on a repository (e.g. dubious ownership, corrupt objects)
 */
export async function gitSnapshot(dir: string, previous?: GitSnapshot | null): Promise<GitSnapshot | null> {
  if (!(await isGitWorkTree(dir))) return null;
  const top = (await git(dir, ['rev-parse', '--show-toplevel'])).trim();
  const head = await headCommit(top);
  const tree = await worktreeTree(top);
  return { head, tree, new_commits: await countNewCommits(top, previous ?? undefined, head) };
}

/** Tree hash of the working tree at `top`, staged into a throwaway copy of the index. */
async function worktreeTree(top: string): Promise<string> {
  const realIndex = path.resolve(top, (await git(top, ['rev-parse', '--git-path', 'index'])).trim());
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'loopdeck-index-'));
  const index = path.join(scratch, 'index');
  try {
    const seeded = await copyFile(realIndex, index).then(
      () => true,
      () => false,
    );
    const env = { GIT_INDEX_FILE: index };
    let add = await runGit(top, ['add', '-A'], env);
    if (add.exitCode !== 0 && seeded) {
      // The copy could not be used (e.g. a split index whose shared part stays in .git): start empty.
      await rm(index, { force: true });
      add = await runGit(top, ['add', '-A'], env);
    }
    if (add.exitCode !== 0) {
      throw new ToolError('git', `git add -A (temporary index) in ${top} failed (exit ${add.exitCode}): ${add.stderr.trim()}`);
    }
    return (await git(top, ['write-tree'], env)).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function countNewCommits(top: string, previous: GitSnapshot | undefined, head: string | null): Promise<number> {
  if (previous === undefined || head === null || previous.head === head) return 0;
  const args = previous.head === null ? ['rev-list', '--count', head] : ['rev-list', '--count', head, '--not', previous.head];
  const run = await runGit(top, args);
  if (run.exitCode !== 0) return 1;
  return Number.parseInt(run.stdout.trim(), 10);
}
