import { appendFileSync, constants, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, ConfigErrors } from './errors.js';
import { git, runGit } from './git.js';
import { isDotLoopdeck } from './workspace-path.js';

/** Where and how a run's workspace is laid out. */
export interface WorkspaceSpec {
  /** Absolute path of the workspace (or of the source to copy). */
  path: string;
  /** `temp`: run on a temporary, git-initialised copy; `none`: run in place. */
  copy: 'temp' | 'none';
}

/**
 * Returns the directory the run works in. With `copy: temp` the source is copied to a new
 * temporary directory (the source is never touched) and committed to a git repository of
 * the copy's own, so the run's changes can be diffed and stashed. Symlinks are copied
 * verbatim: a relative link still points inside the copy; an absolute one still points
 * where it did, and the file tools refuse it when that is outside the copy. Installed
 * dependencies (`node_modules`) are copied with the rest, so the project's tests run in the
 * copy, and kept out of the copy's git (`.git/info/exclude`). Every `.loopdeck` folder
 * (loopdeck's run logs and reports, in any spelling a file system reads as it) is left out
 * of the copy, and out of its git.
 *
 * A `.git` folder in the source is copied too (history stays visible) only when the copy
 * is then a repository that nothing ties to the source: see {@link ownRepository}.
 * Otherwise (a linked worktree's or submodule's `.git` file, a `.git` symlink, shared or
 * borrowed objects, a configured working tree elsewhere, a bare configuration, a link
 * inside `.git`) the copied `.git` is deleted and a fresh repository started, so the
 * "workspace as started" commit, the identity written to its config and the abort stash
 * all stay in the copy and the user's repository is never written. git runs on the copy
 * through the hardened runner (`git.ts`): hooks, filters or fsmonitor named by the
 * source's configuration never run.
 *
 * The copy is marked as the copy of run `run` ({@link COPY_MARK} in its `.git`, out of the
 * working tree and of `git status`): `loopdeck runs --prune` removes only a folder that
 * carries the mark of the run that records it.
 *
 * @param configFile named in the error when the path does not exist
 * @param run the id of the run the copy is made for, written in its mark
 * @throws ConfigErrors when the workspace path is not a directory
 * @throws ToolError when git fails on the copy
 */
export async function prepareWorkspace(spec: WorkspaceSpec, configFile: string, run: string): Promise<string> {
  if (!existsSync(spec.path) || !statSync(spec.path).isDirectory()) {
    throw new ConfigErrors([new ConfigError(configFile, 'workspace.path', `expected a directory, found nothing at ${spec.path}`)]);
  }
  if (spec.copy === 'none') return spec.path;
  const target = mkdtempSync(path.join(os.tmpdir(), `loopdeck-${path.basename(spec.path)}-`));
  // Symlinks are copied as they are: without `verbatimSymlinks` a relative link would become
  // an absolute link into the source, and a write through it would change the source.
  // Installed dependencies (node_modules) are copied too: the project's tests and verify
  // commands need them, and a link would let a command in the copy change the source's.
  // A copy-on-write clone where the file system offers one, else a plain copy.
  // loopdeck's own state (`.loopdeck/`: earlier runs' logs, reports, saved policies and
  // owner files, wherever it lies in the source) is never part of the agent's copy.
  cpSync(spec.path, target, { recursive: true, verbatimSymlinks: true, mode: constants.COPYFILE_FICLONE, filter: (source) => !isDotLoopdeck(path.basename(source)) || source === spec.path });
  const dotGit = path.join(target, '.git');
  if (existsSync(dotGit) || isLink(dotGit)) {
    if (await ownRepository(target)) {
      // the administrative folders of the source's linked worktrees point at them
      rmSync(path.join(dotGit, 'worktrees'), { recursive: true, force: true });
    } else {
      rmSync(dotGit, { recursive: true, force: true });
    }
  }
  await git(target, ['init', '-q']);
  markCopy(target, run);
  // The dependencies stay out of the copy's commits, snapshots and the abort stash, as
  // they are out of most projects' (a tracked node_modules stays tracked).
  mkdirSync(path.join(target, '.git', 'info'), { recursive: true });
  // `.loopdeck/`: the state an observer writes in the copy (pytest's report) stays out too.
  appendFileSync(path.join(target, '.git', 'info', 'exclude'), '\nnode_modules/\n.loopdeck/\n');
  await git(target, ['config', 'user.name', 'loopdeck']);
  await git(target, ['config', 'user.email', 'loopdeck@localhost']);
  await git(target, ['add', '-A', '--', ':(top)']);
  await git(target, ['commit', '-q', '--allow-empty', '--no-verify', '-m', 'loopdeck: workspace as started']);
  return target;
}

/**
 * The file in a workspace copy's `.git` folder that names the run loopdeck made the copy
 * for ({@link CopyMark}). It lies outside the run's folder, so editing or forging a run
 * folder cannot make a folder look like loopdeck's copy; and outside the working tree, so
 * the agent's view of the workspace and `git status` do not change.
 */
export const COPY_MARK = 'loopdeck-copy.json';

/** What {@link COPY_MARK} holds. */
export interface CopyMark {
  /** The id of the run (its session) the copy was made for. */
  run: string;
  /** When the copy was made, ISO 8601 UTC. */
  made_at: string;
}

/** Writes the mark of run `run` in the copy `copy` (a mark copied in with the source's `.git` is replaced). */
function markCopy(copy: string, run: string, now: Date = new Date()): void {
  const file = path.join(copy, '.git', COPY_MARK);
  rmSync(file, { force: true, recursive: true });
  const mark: CopyMark = { run, made_at: now.toISOString() };
  writeFileSync(file, `${JSON.stringify(mark)}\n`, { flag: 'wx' });
}

/** What {@link copyMarkOf} found in a folder. */
export type CopyMarkFound =
  /** The folder's `.git` holds a mark: the run it names. */
  | { kind: 'marked'; mark: CopyMark }
  /** A real folder with a real `.git` folder and no mark in it: a copy made before loopdeck marked its copies, or a repository loopdeck never made. */
  | { kind: 'unmarked' }
  /** Not a folder loopdeck can have made: a symlink, not a folder, no real `.git` folder, or a mark that is not a regular file of the JSON loopdeck writes. */
  | { kind: 'foreign'; why: string };

/**
 * Reads the mark loopdeck left in the workspace copy `folder` ({@link COPY_MARK}), never
 * following a link: `folder`, its `.git` and the mark must each be what loopdeck made (a
 * folder, a folder, a regular file), else the folder is `foreign`, with why.
 */
export function copyMarkOf(folder: string): CopyMarkFound {
  const kind = (file: string) => {
    try {
      const stat = lstatSync(file);
      return stat.isSymbolicLink() ? 'a symlink' : stat.isDirectory() ? 'folder' : stat.isFile() ? 'file' : 'not a file';
    } catch {
      return 'missing';
    }
  };
  const top = kind(folder);
  if (top !== 'folder') return { kind: 'foreign', why: top === 'a symlink' ? 'a symlink' : 'not a folder' };
  const dotGit = path.join(folder, '.git');
  if (kind(dotGit) !== 'folder') return { kind: 'foreign', why: 'no .git folder of its own' };
  const file = path.join(dotGit, COPY_MARK);
  const mark = kind(file);
  if (mark === 'missing') return { kind: 'unmarked' };
  if (mark !== 'file') return { kind: 'foreign', why: `its .git/${COPY_MARK} is not a file` };
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<CopyMark>;
    if (typeof value.run === 'string' && value.run !== '' && typeof value.made_at === 'string') return { kind: 'marked', mark: { run: value.run, made_at: value.made_at } };
  } catch {
    // not JSON: said below
  }
  return { kind: 'foreign', why: `its .git/${COPY_MARK} is not the mark loopdeck writes` };
}

/** Whether `file` is a symbolic link (dangling ones included). */
function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Whether the `.git` copied into `copy` makes `copy` a repository of its own: `.git` is a
 * real folder with no link anywhere inside, no `commondir` (a linked worktree's) and no
 * `objects/info/alternates` or `http-alternates` (borrowed objects), and git itself,
 * reading every configuration file there, reports `copy` as a non-bare working tree whose
 * git folder and common folder are `copy/.git` (no `core.worktree` or `core.bare`
 * anywhere). Anything else, including git failing to read it, is `false`.
 */
async function ownRepository(copy: string): Promise<boolean> {
  const dotGit = path.join(copy, '.git');
  if (isLink(dotGit) || !statSync(dotGit).isDirectory() || holdsLink(dotGit)) return false;
  for (const pointer of ['commondir', 'gitdir', 'objects/info/alternates', 'objects/info/http-alternates']) {
    if (existsSync(path.join(dotGit, pointer))) return false;
  }
  const run = await runGit(copy, ['rev-parse', '--path-format=absolute', '--is-bare-repository', '--show-toplevel', '--git-dir', '--git-common-dir']);
  if (run.exitCode !== 0) return false;
  const [bare, top, gitDir, commonDir] = run.stdout.split('\n');
  const real = realpathSync(copy);
  const same = (p: string | undefined, expected: string) => p !== undefined && existsSync(p) && realpathSync(p) === expected;
  return bare === 'false' && same(top, real) && same(gitDir, path.join(real, '.git')) && same(commonDir, path.join(real, '.git'));
}

/** Whether any entry under `dir` (recursively) is a symbolic link. */
function holdsLink(dir: string): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) return true;
    if (entry.isDirectory() && holdsLink(path.join(dir, entry.name))) return true;
  }
  return false;
}
