import { accessSync, appendFileSync, constants, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, type Dirent, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, ConfigErrors, LoopdeckError } from './errors.js';
import { git, runGit } from './git.js';
import { isDotLoopdeck } from './workspace-path.js';
import { shownName } from '../text/sanitize.js';

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
 * of the copy, and out of its git. Entries that are not files, folders or links (named
 * pipes, sockets, devices) are left out too ({@link surveyCopy} names them beforehand).
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
 * A copy that cannot be finished is removed before the error is thrown: nothing records it,
 * so nothing would ever remove it later.
 *
 * @param configFile named in the error when the path does not exist
 * @param run the id of the run the copy is made for, written in its mark
 * @throws ConfigErrors when the workspace path is not a directory, or holds a file or folder
 *   the copy cannot read (named by its path in the source), or the temporary folder cannot
 *   hold the copy
 * @throws LoopdeckError when the copy fails otherwise (named by the source path)
 * @throws ToolError when git fails on the copy
 */
export async function prepareWorkspace(spec: WorkspaceSpec, configFile: string, run: string): Promise<string> {
  if (!existsSync(spec.path) || !statSync(spec.path).isDirectory()) {
    throw new ConfigErrors([new ConfigError(configFile, 'workspace.path', `expected a directory, found nothing at ${spec.path}`)]);
  }
  if (spec.copy === 'none') return spec.path;
  let target: string;
  try {
    target = mkdtempSync(path.join(os.tmpdir(), `loopdeck-${path.basename(spec.path)}-`));
  } catch (error) {
    // The temporary folder went missing or read-only since the preflight checked it.
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const why = tempFolderProblem(os.tmpdir()) ?? `expected a temporary folder to copy the workspace into, found ${shownName(os.tmpdir())} cannot hold one (${code}); ${TEMP_FIX}`;
    throw new ConfigErrors([new ConfigError(configFile, 'workspace.copy', why)]);
  }
  try {
    copyTree(spec.path, target, configFile);
    await makeOwnRepository(target, run);
  } catch (error) {
    // A half-made copy is no run's workspace: nothing records it, so nothing would ever remove it.
    throw withCopyRemoved(error, target);
  }
  return target;
}

/**
 * Copies the folder `source` into the new folder `target` (see {@link prepareWorkspace}),
 * leaving out what {@link surveyCopy} says a copy leaves out: `.loopdeck` folders and
 * entries that are not files, folders or links (named pipes, sockets, devices).
 * @throws ConfigErrors naming the source path of an entry the copy cannot read; LoopdeckError
 *   naming the source for any other failure of the copy (a full disk, ...)
 */
function copyTree(source: string, target: string, configFile: string): void {
  // Symlinks are copied as they are: without `verbatimSymlinks` a relative link would become
  // an absolute link into the source, and a write through it would change the source.
  // Installed dependencies (node_modules) are copied too: the project's tests and verify
  // commands need them, and a link would let a command in the copy change the source's.
  // A copy-on-write clone where the file system offers one, else a plain copy.
  // loopdeck's own state (`.loopdeck/`: earlier runs' logs, reports, saved policies and
  // owner files, wherever it lies in the source) is never part of the agent's copy.
  const filter = (from: string): boolean => {
    if (from === source) return true;
    if (isDotLoopdeck(path.basename(from))) return false;
    let stat: Stats;
    try {
      stat = lstatSync(from);
    } catch {
      return true; // gone or unreadable now: the copy itself says so, below
    }
    return specialKind(stat) === null;
  };
  try {
    cpSync(source, target, { recursive: true, verbatimSymlinks: true, mode: constants.COPYFILE_FICLONE, filter });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Node names the copy's path in some errors and the source's in others: the user knows the source.
    const failed = sourcePathOf(error, source, target);
    if (code === 'EACCES' || code === 'EPERM') {
      // Node's error may name no path at all (opendir): the survey names every entry the copy cannot read.
      const survey = surveyCopy(source);
      const entries = survey.unreadableCount > 0 ? survey.unreadable : [{ path: failed ?? source, code }];
      throw new ConfigErrors([new ConfigError(configFile, 'workspace.path', unreadableMessage(source, entries, Math.max(1, survey.unreadableCount)))]);
    }
    const detail = (error as Error).message.split(target).join(source);
    throw new LoopdeckError(`cannot copy the workspace ${source} (workspace.copy: temp)${failed ? ` at ${failed}` : ''}: ${detail}`, { cause: error });
  }
}

/** `git init` in the fresh copy `target`, its mark, its excludes and its first commit (see {@link prepareWorkspace}). */
async function makeOwnRepository(target: string, run: string): Promise<void> {
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
}

/**
 * Removes the copy `target` that could not be finished and returns `error` to throw. When
 * the removal fails too, the error says where the rest of the copy lies and why it stays.
 */
function withCopyRemoved(error: unknown, target: string): unknown {
  try {
    rmSync(target, { recursive: true, force: true });
    return error;
  } catch (removal) {
    const why = `${(error as Error).message ?? String(error)}\n(the unfinished copy ${target} could not be removed: ${(removal as Error).message}; remove it by hand)`;
    if (error instanceof ConfigErrors) return new ConfigErrors([...error.errors, new ConfigError(target, null, `expected to remove this unfinished workspace copy, found it cannot be removed (${(removal as NodeJS.ErrnoException).code ?? (removal as Error).message}); remove it by hand`)]);
    return new LoopdeckError(why, { cause: error });
  }
}

/** The source path an error of the copy names: a path under `target` taken back to `source`; `null` when it names none. */
function sourcePathOf(error: unknown, source: string, target: string): string | null {
  const named = (error as NodeJS.ErrnoException).path ?? (error as { info?: { path?: string } }).info?.path;
  if (typeof named !== 'string') return null;
  if (named === target || named.startsWith(target + path.sep)) return source + named.slice(target.length);
  return named;
}

/** What to do when the temporary folder cannot hold a workspace copy. */
const TEMP_FIX = 'set TMPDIR to a folder you can write to, or set workspace.copy: none to work in the folder itself';

/**
 * `<folder> is not writable by this user (EACCES)`, the words after "found" in an error,
 * when this user cannot create entries in `folder`; `null` when it can.
 */
export function notWritable(folder: string): string | null {
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
    return null;
  } catch (error) {
    return `${shownName(folder)} is not writable by this user (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}

/**
 * Why a workspace cannot be copied into `folder`, the temporary folder (`TMPDIR`, else
 * /tmp): it is missing, not a folder, or not writable by this user, with what to do. `null`
 * when it can.
 */
export function tempFolderProblem(folder: string): string | null {
  const expected = 'expected a temporary folder to copy the workspace into, found';
  let stat;
  try {
    stat = statSync(folder, { throwIfNoEntry: false });
  } catch (error) {
    return `${expected} ${shownName(folder)} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); ${TEMP_FIX}`;
  }
  if (stat === undefined) return `${expected} no folder at ${shownName(folder)}${process.env.TMPDIR ? ' (TMPDIR)' : ''}; ${TEMP_FIX}`;
  if (!stat.isDirectory()) return `${expected} ${shownName(folder)} is not a folder; ${TEMP_FIX}`;
  const problem = notWritable(folder);
  return problem === null ? null : `${expected} ${problem}; ${TEMP_FIX}`;
}

/** What an entry is when a copy leaves it out for its kind (`a named pipe`, ...); `null` for a file, a folder or a link. */
function specialKind(entry: Stats | Dirent): string | null {
  if (entry.isFile() || entry.isDirectory() || entry.isSymbolicLink()) return null;
  if (entry.isFIFO()) return 'a named pipe';
  if (entry.isSocket()) return 'a socket';
  if (entry.isBlockDevice()) return 'a block device';
  if (entry.isCharacterDevice()) return 'a character device';
  return 'not a file, folder or link';
}

/** Most entries of each kind a {@link CopySurvey} names; the rest are counted. */
const SURVEY_NAMED = 10;

/** What a copy of a workspace folder meets ({@link surveyCopy}). */
export interface CopySurvey {
  /** Entries the copy leaves out for what they are (at most {@link SURVEY_NAMED}): absolute path, and what it is (`a named pipe`). */
  skipped: Array<{ path: string; kind: string }>;
  /** How many entries in all the copy leaves out for what they are. */
  skippedCount: number;
  /** Files and folders the copy cannot read (at most {@link SURVEY_NAMED}): absolute path and the error code (`EACCES`). */
  unreadable: Array<{ path: string; code: string }>;
  /** How many entries in all the copy cannot read. */
  unreadableCount: number;
}

/**
 * Walks the folder `source` as {@link prepareWorkspace} copies it, without copying: links
 * are not followed and `.loopdeck` folders are left out. It names the entries the copy
 * leaves out because they are not files, folders or links (named pipes, sockets, devices:
 * their content is not data a copy can hold, and git does not track them either), and
 * those it cannot read (a file this user may not read; a folder it may not list or enter),
 * which would stop the copy. `validate` and `run` report both before a copy is made.
 * Never throws: an entry that cannot be looked at is unreadable.
 */
export function surveyCopy(source: string): CopySurvey {
  const survey: CopySurvey = { skipped: [], skippedCount: 0, unreadable: [], unreadableCount: 0 };
  const cannotRead = (file: string, error: unknown) => {
    if (survey.unreadableCount++ < SURVEY_NAMED) survey.unreadable.push({ path: file, code: (error as NodeJS.ErrnoException).code ?? String(error) });
  };
  const folders = [source];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    let entries: Dirent[];
    try {
      accessSync(folder, constants.R_OK | constants.X_OK);
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      cannotRead(folder, error);
      continue;
    }
    for (const entry of entries) {
      if (isDotLoopdeck(entry.name)) continue;
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) folders.push(file);
      else if (entry.isFile()) {
        try {
          accessSync(file, constants.R_OK);
        } catch (error) {
          cannotRead(file, error);
        }
      } else {
        const kind = specialKind(entry);
        if (kind !== null && survey.skippedCount++ < SURVEY_NAMED) survey.skipped.push({ path: file, kind });
      }
    }
  }
  return survey;
}

/**
 * The error of a workspace whose copy cannot read `entries` (`count` in all): each named by
 * its path in the source, with what to do.
 */
export function unreadableMessage(source: string, entries: CopySurvey['unreadable'], count: number): string {
  const named = entries.map((entry) => `${shownName(entry.path)} (${entry.code})`).join(', ');
  const more = count > entries.length ? ` and ${count - entries.length} more` : '';
  return `expected every file and folder under ${shownName(source)} to be readable, to copy it (workspace.copy: temp), found ${count === 1 ? 'one' : count} it cannot read: ${named}${more}; make ${count === 1 ? 'it' : 'them'} readable by this user, move ${count === 1 ? 'it' : 'them'} out of the workspace, or set workspace.copy: none`;
}

/**
 * The warning of a workspace whose copy leaves out `entries` (`count` in all) for what they
 * are, each named by its path in the source.
 */
export function skippedMessage(source: string, entries: CopySurvey['skipped'], count: number): string {
  const named = entries.map((entry) => `${shownName(path.relative(source, entry.path))} (${entry.kind})`).join(', ');
  const more = count > entries.length ? ` and ${count - entries.length} more` : '';
  return `the copy of ${shownName(source)} (workspace.copy: temp) leaves out ${count === 1 ? 'an entry' : `${count} entries`} that ${count === 1 ? 'is' : 'are'} not a file, folder or link: ${named}${more}; the agent's copy does not have ${count === 1 ? 'it' : 'them'} (git does not track such entries either)`;
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
