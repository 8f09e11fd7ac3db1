/**
 * Git-observed progress of a workspace (docs/design.md, "What it is for":
 * a measurement beats a claim). After each step the harness takes a {@link gitSnapshot}: HEAD and a
 * tree hash of the working tree *including untracked, non-ignored files*; the pure
 * fold (`src/engine/fold.ts`) turns the snapshots of a lap into "no file changed in N steps" and
 * "N commits this lap". A workspace that is not a git repository gives `'unknown'`, never
 * "no progress".
 *
 * The tree hash is computed without touching the repository's index or working tree, in a
 * temporary index named by `GIT_INDEX_FILE` (git(1), "GIT_INDEX_FILE"; the same idea as
 * `git stash create`, which records a dirty tree without touching it). It compares
 * content, never stat data: the temporary index is filled by `git read-tree` with the tree
 * the real index stages (or HEAD's, or nothing), so it carries no stat data at all, and
 * `git add -A` must then hash every file. A copy of the real index would carry its stat
 * data without its racy-git protection (the copy is newer than every file), so a same-size
 * edit made in the same clock tick as an index write, an `assume-unchanged` or
 * `skip-worktree` bit, or a repository's `core.checkStat=minimal` or `core.trustctime=false`
 * would hide a change.
 * The only lasting effect is new loose blobs in `.git/objects`, which `git gc` prunes
 * when unreferenced. Every git command goes through the hardened runner of `git.ts`: the
 * repository's fsmonitor, hooks and filter drivers never run, and nested repositories
 * (submodules) are not looked into: a gitlink keeps the commit the index records.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ToolError } from './errors.js';
import { gitCommands, oneLine, runGit, type GitCommand } from './git.js';

export { isGitWorkTree, type GitRun } from './git.js';

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
  // The commands of one snapshot run back to back: they share one listing of the configuration's
  // drivers. They run in `dir`: every path they take or give is named from the top level.
  const git = await gitCommands(dir, WHERE);
  const where = await workTree(git, dir);
  if (where === null) return null;
  const head = await headOf(git);
  const tree = await worktreeTree(git, where);
  return { head, tree, new_commits: await countNewCommits(git, previous ?? undefined, head) };
}

/** The question of {@link workTree}: whether `dir` is in a working tree, its top level, the index file. */
const WHERE = ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--git-path', 'index'];

/** Where a snapshot looks: the top level of the working tree and the repository's index file. */
interface WorkTree {
  top: string;
  index: string;
}

/**
 * The working tree `dir` is in, asked of git once (`git` runs in `dir`); `null` where {@link isGitWorkTree} is
 * false (outside a repository, inside a `.git` folder, a bare repository).
 * @throws ToolError when git refuses for another reason, as isGitWorkTree does
 */
async function workTree(git: GitCommand, dir: string): Promise<WorkTree | null> {
  const run = await git(WHERE);
  const [inside, top, index] = run.stdout.split('\n');
  // In a `.git` folder git says `false`, then refuses --show-toplevel.
  if (inside === 'false') return null;
  if (run.exitCode !== 0) {
    if (/not a git repository|cannot use bare repository/i.test(run.stderr)) return null;
    throw new ToolError('git', `git rev-parse in ${dir} failed (exit ${run.exitCode}): ${oneLine(run.stderr)}`);
  }
  if (inside !== 'true' || !top || !index) throw new ToolError('git', `git rev-parse in ${dir} gave no working tree: ${oneLine(run.stdout)}`);
  // --git-path is relative to the folder git ran in.
  return { top, index: path.resolve(dir, index) };
}

/** The commit HEAD points at, or `null` on an unborn branch (no commit yet). */
async function headOf(git: GitCommand): Promise<string | null> {
  const run = await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
  return run.exitCode === 0 ? run.stdout.trim() : null;
}

/** Same as the runner, but a non-zero exit throws. */
async function must(git: GitCommand, args: string[], env?: Record<string, string>): Promise<string> {
  const run = await git(args, env);
  if (run.exitCode !== 0) {
    throw new ToolError('git', `git ${args.join(' ')} failed (exit ${run.exitCode}): ${oneLine(run.stderr) || oneLine(run.stdout)}`);
  }
  return run.stdout;
}

/** Tree hash of the working tree at `where.top`, hashed file by file into a throwaway index. */
async function worktreeTree(git: GitCommand, where: WorkTree): Promise<string> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'loopdeck-index-'));
  const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
  try {
    const base = await stagedTree(git, where.index, scratch);
    if (base !== null) await must(git, ['read-tree', base], env);
    const add = await git(['add', '-A', '--', ':(top)'], env);
    if (add.exitCode !== 0) {
      throw new ToolError('git', `git add -A (temporary index) in ${where.top} failed (exit ${add.exitCode}): ${add.stderr.trim()}`);
    }
    return (await must(git, ['write-tree'], env)).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The tree the repository's index stages (written from a copy, so the index is not
 * touched), HEAD's tree when the index cannot be written as a tree (a merge conflict, a
 * split index), or `null` on an unborn branch without an index. The tree only decides
 * which paths are tracked (tracked files stay in the snapshot even when ignored); their
 * content is hashed again from disk.
 */
async function stagedTree(git: GitCommand, realIndex: string, scratch: string): Promise<string | null> {
  const copy = path.join(scratch, 'staged');
  const copied = await copyFile(realIndex, copy).then(
    () => true,
    () => false,
  );
  if (copied) {
    const written = await git(['write-tree'], { GIT_INDEX_FILE: copy });
    if (written.exitCode === 0) return written.stdout.trim();
  }
  const head = await git(['rev-parse', '-q', '--verify', 'HEAD^{tree}']);
  return head.exitCode === 0 ? head.stdout.trim() : null;
}

async function countNewCommits(git: GitCommand, previous: GitSnapshot | undefined, head: string | null): Promise<number> {
  if (previous === undefined || head === null || previous.head === head) return 0;
  const args = previous.head === null ? ['rev-list', '--count', head] : ['rev-list', '--count', head, '--not', previous.head];
  const run = await git(args);
  if (run.exitCode !== 0) return 1;
  return Number.parseInt(run.stdout.trim(), 10);
}
