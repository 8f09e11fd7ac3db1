/**
 * The workspace as the boundary of every path a tool is given.
 *
 * {@link confine} resolves a path the way the kernel would — component by component,
 * following every symlink, the final component and dangling links included — and refuses
 * anything that ends up outside the workspace. Bad input (a NUL byte, an over-long path, a
 * symlink loop, an unreadable folder) becomes a {@link ToolError} naming the path and the
 * reason, never an exception that ends the run.
 *
 * {@link gitInternalReason} names the paths that are git's own (`.git`, in any spelling git
 * itself would read on a case-insensitive or NTFS file system): the file tools never write
 * there, since a line in `.git/config` is code that every later git command runs.
 */
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from './errors.js';

/** Longest path accepted, in bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Longest single file name accepted, in bytes (NAME_MAX on common file systems). */
export const MAX_NAME_BYTES = 255;
/** Symlinks followed while resolving one path before it counts as a loop (Linux MAXSYMLINKS). */
export const MAX_SYMLINK_HOPS = 40;
/** Characters of a path shown in a message; longer ones are cut with their length given. */
const SHOWN_CHARS = 120;

/**
 * A path as messages show it: quoted, control characters escaped (JSON style), cut to
 * {@link SHOWN_CHARS} characters with the full length given.
 */
export function showPath(text: string): string {
  const cut = text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} characters)` : text;
  return JSON.stringify(cut);
}

/** Why a file-system call failed, in words, from its errno code (`ENOENT`, `EISDIR`, ...). */
export function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or folder (ENOENT)';
    case 'EISDIR':
      return 'is a folder, expected a file (EISDIR)';
    case 'ENOTDIR':
      return 'a part of the path is a file, expected a folder (ENOTDIR)';
    case 'ELOOP':
      return 'too many levels of symlinks, a symlink loop (ELOOP)';
    case 'ENAMETOOLONG':
      return 'the path or a name in it is too long (ENAMETOOLONG)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'EROFS':
      return 'read-only file system (EROFS)';
    case 'ENOSPC':
      return 'no space left on the device (ENOSPC)';
    case 'EEXIST':
      return 'already exists (EEXIST)';
    default:
      return code ? `${code}: ${(error as Error).message}` : error instanceof Error ? error.message : String(error);
  }
}

/**
 * A {@link ToolError} for a failed file-system call on `shown` (the path as the agent gave it).
 * @param doing what was being done, e.g. `cannot read`
 */
export function fsFailure(tool: string, doing: string, shown: string, error: unknown): ToolError {
  return new ToolError(tool, `${doing} ${showPath(shown)}: ${fsReason(error)}`, { cause: error });
}

/** Checks the text of a path before any file-system call. @throws ToolError */
function checkText(tool: string, relative: string): void {
  if (relative.includes('\0')) throw new ToolError(tool, `path ${showPath(relative)} contains a NUL byte`);
  const bytes = Buffer.byteLength(relative);
  if (bytes > MAX_PATH_BYTES) throw new ToolError(tool, `path ${showPath(relative)} is too long (${bytes} bytes; at most ${MAX_PATH_BYTES})`);
  const long = relative.split('/').find((name) => Buffer.byteLength(name) > MAX_NAME_BYTES);
  if (long !== undefined) {
    throw new ToolError(tool, `path ${showPath(relative)} has a name longer than ${MAX_NAME_BYTES} bytes (${showPath(long)}, ${Buffer.byteLength(long)} bytes)`);
  }
  if (path.isAbsolute(relative)) throw new ToolError(tool, `path ${showPath(relative)} must be relative to the workspace`);
}

/** True when `rel` (from `path.relative`) leaves its base: `..` or `../x`, or another root. */
function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
}

/**
 * Resolves `relative` inside the workspace as the kernel would, following every symlink —
 * the final component and dangling links too — and `..` after the link it follows.
 * Components that do not exist yet are taken as written (a write creates them).
 *
 * @param tool named in errors
 * @param workspace the workspace folder (may itself be reached through a symlink)
 * @returns the absolute real path: every existing component is a real folder or file, no symlink
 * @throws ToolError for a NUL byte, a path over {@link MAX_PATH_BYTES} bytes or a name over
 *   {@link MAX_NAME_BYTES}, an absolute path, a result outside the workspace (through `..` or a
 *   symlink, dangling or not), more than {@link MAX_SYMLINK_HOPS} symlinks (a loop), or a
 *   component that cannot be inspected (permission denied, ...)
 */
export function confine(tool: string, workspace: string, relative: string): string {
  checkText(tool, relative);
  const root = realpathSync(workspace);
  const pending = relative.split('/').reverse();
  let current = root;
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    let link: string | null = null;
    try {
      if (lstatSync(next).isSymbolicLink()) link = readlinkSync(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not there (yet): the rest is taken as written. A file where a folder is expected
      // fails at the call that needs the folder, with its own message.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsFailure(tool, 'cannot resolve', relative, error);
    }
    if (link === null) {
      current = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) {
      throw new ToolError(tool, `path ${showPath(relative)} follows more than ${MAX_SYMLINK_HOPS} symlinks (a symlink loop?)`);
    }
    if (path.isAbsolute(link)) current = path.parse(link).root;
    pending.push(...link.split('/').reverse());
  }
  if (escapes(path.relative(root, current))) throw new ToolError(tool, `path ${showPath(relative)} is outside the workspace`);
  return current;
}

/**
 * Code points that HFS+ ignores in file names (git's `is_hfs_dotgit` list): `.g\u200cit`
 * names `.git` there.
 */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * A file name as a case-insensitive file system (macOS, Windows) would match it: lower case,
 * HFS+-ignored code points removed, trailing dots and spaces (NTFS) removed.
 */
export function foldName(name: string): string {
  return name.normalize('NFC').replace(HFS_IGNORED, '').toLowerCase().replace(/[. ]+$/, '');
}

/** True for a name that is, or on some file system means, `.git` (`.GIT`, `.git.`, `git~1`). */
export function isDotGit(name: string): boolean {
  const folded = foldName(name);
  return folded === '.git' || folded === 'git~1';
}

/**
 * The repository folder that the workspace's own `.git` points to when it is not a plain
 * folder: the target of a `.git` symlink, or the `gitdir:` of a `.git` file (as
 * `git init --separate-git-dir` and `git worktree add` write). `null` when `.git` is a
 * folder, is absent or points nowhere readable.
 */
function linkedGitDir(root: string): string | null {
  const dotGit = path.join(root, '.git');
  try {
    const stat = lstatSync(dotGit);
    if (stat.isSymbolicLink()) return realpathSync(dotGit);
    if (!stat.isFile()) return null;
    const match = /^gitdir: *(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!match) return null;
    const target = path.resolve(root, match[1]!);
    return existsSync(target) ? realpathSync(target) : target;
  } catch {
    return null; // no .git, or one git could not use either
  }
}

/**
 * Why writing `real` (a resolved path inside `root`) would touch git's own files, or `null`:
 * any component named `.git` (the repository folder, a `.git` file pointing elsewhere, a
 * nested repository), in any spelling a case-insensitive file system would read as `.git`,
 * and anything inside the folder the workspace's `.git` symlink or `gitdir:` file points to.
 */
export function gitInternalReason(root: string, real: string): string | null {
  const rootReal = realpathSync(root);
  const hit = path.relative(rootReal, real).split(path.sep).find(isDotGit);
  if (hit !== undefined) {
    return `it is inside git's own files (${showPath(hit)}): the file tools never write there, since git runs what its config names`;
  }
  const gitDir = linkedGitDir(rootReal);
  if (gitDir !== null && !escapes(path.relative(gitDir, real))) {
    return `it is inside the repository folder that .git points to (${showPath(path.relative(rootReal, gitDir) || '.')}): the file tools never write there, since git runs what its config names`;
  }
  return null;
}

/**
 * Files in the work tree that git reads as configuration, at any folder level:
 * `.gitattributes` names filter, diff and merge drivers (programs git runs), and
 * `.gitmodules` names submodule URLs and paths that git fetches and checks out.
 */
export const GIT_CONFIG_FILES: readonly string[] = ['.gitattributes', '.gitmodules'];

/** The entry of {@link GIT_CONFIG_FILES} that `name` means on some file system, or `null`. */
export function gitConfigFile(name: string): string | null {
  const folded = foldName(name);
  return GIT_CONFIG_FILES.find((file) => file === folded) ?? null;
}

/**
 * True for a name that is, or on some file system means, `.loopdeck` (loopdeck's state
 * folder): `.LoopDeck`, `.loopdeck.`, HFS+-ignored code points, and the NTFS short name
 * `LOOPDE~1` (any number).
 */
export function isDotLoopdeck(name: string): boolean {
  const folded = foldName(name);
  return folded === '.loopdeck' || /^loopde~\d+$/.test(folded);
}

/**
 * A file or folder of loopdeck's own that the file tools never write (reading stays
 * allowed): the run directory, the config file the run was started with, the scripted
 * agent's transcript, a hook's program. A folder covers everything inside it.
 */
export interface HarnessPath {
  /** Absolute path; it may not exist (yet), and may be reached through symlinks. */
  path: string;
  /** What it is, for the message: `the run directory of this run`. */
  what: string;
}

/** `file` with its longest existing prefix resolved through symlinks (the rest as written). */
function resolveExisting(file: string): string {
  const rest: string[] = [];
  let current = path.resolve(file);
  for (;;) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(file);
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** `dev:ino` of what is at `file`, or `null` when nothing is. */
function identity(file: string): string | null {
  try {
    const stat = lstatSync(file);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}

/**
 * Why writing `real` (a resolved path inside `root`, from {@link confine}) would touch
 * loopdeck's own state, or `null`. Refused: any component named `.loopdeck` in any spelling
 * a case-insensitive file system reads as it (another run's log, reports and saved policy
 * are what `resume` and `replay` trust), and anything that is, or lies inside, one of
 * `harness` — compared both by resolved path and by file identity (device and inode), so a
 * spelling the file system treats as the same file (other letter case on macOS or
 * Windows) is refused as well.
 */
export function harnessInternalReason(root: string, real: string, harness: readonly HarnessPath[] = []): string | null {
  const rootReal = realpathSync(root);
  const hit = path.relative(rootReal, real).split(path.sep).find(isDotLoopdeck);
  if (hit !== undefined) {
    return `it is inside loopdeck's own state (${showPath(hit)}): the file tools never write there, since resume and replay trust the logs, reports and saved policy kept there`;
  }
  if (harness.length === 0) return null;
  // The target and each of its existing ancestors, by identity: the first is the target itself.
  const chain: Array<string | null> = [];
  for (let at = real; ; at = path.dirname(at)) {
    chain.push(identity(at));
    if (path.dirname(at) === at) break;
  }
  for (const entry of harness) {
    const resolved = resolveExisting(entry.path);
    const id = identity(resolved);
    const inside = !escapes(path.relative(resolved, real)) || (id !== null && chain.includes(id));
    if (inside) {
      const itself = real === resolved || (id !== null && chain[0] === id);
      return `it is ${itself ? '' : 'inside '}${entry.what} (${showPath(entry.path)}): the file tools never write loopdeck's own files`;
    }
  }
  return null;
}

/**
 * Why the agent could write `file` (a loop.yaml) through the workspace `root`, or `null`
 * when it cannot: the file, resolved through every symlink (its own and its folders'), is
 * the workspace or lies inside it, compared by resolved path and by file identity (another
 * letter case on a case-insensitive file system); or it has more than one hard link, one of
 * which may be inside the workspace. A file that does not exist is judged by where it would be.
 */
export function writableFromWorkspace(root: string, file: string): string | null {
  const rootReal = resolveExisting(root);
  const real = resolveExisting(file);
  const rootId = identity(rootReal);
  let inside = !escapes(path.relative(rootReal, real));
  for (let at = real; !inside && rootId !== null; at = path.dirname(at)) {
    if (identity(at) === rootId) inside = true;
    if (path.dirname(at) === at) break;
  }
  if (inside) return `it lies inside the workspace ${showPath(rootReal)}${real === path.resolve(file) ? '' : ` (resolved to ${showPath(real)})`}, where the agent can write`;
  try {
    const links = lstatSync(real).nlink;
    if (links > 1) return `it has ${links} hard links, and one may lie inside the workspace, where the agent can write`;
  } catch {
    // not there: nothing links to it
  }
  return null;
}
