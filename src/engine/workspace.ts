import { appendFileSync, constants, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
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
 * @param configFile named in the error when the path does not exist
 * @throws ConfigErrors when the workspace path is not a directory
 * @throws ToolError when git fails on the copy
 */
export async function prepareWorkspace(spec: WorkspaceSpec, configFile: string): Promise<string> {
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
