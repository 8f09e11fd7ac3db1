import { cpSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, ConfigErrors } from './errors.js';
import { git } from './git.js';

/** Where and how a run's workspace is laid out. */
export interface WorkspaceSpec {
  /** Absolute path of the workspace (or of the source to copy). */
  path: string;
  /** `temp`: run on a temporary, git-initialised copy; `none`: run in place. */
  copy: 'temp' | 'none';
}

/**
 * Returns the directory the run works in. With `copy: temp` the source is copied to a new
 * temporary directory (the source is never touched) and committed to a fresh git repo,
 * so the run's changes can be diffed and stashed. Symlinks are copied verbatim: a relative
 * link still points inside the copy; an absolute one still points where it did, and the
 * file tools refuse it when that is outside the copy. A `.git` folder in the source is
 * copied too; git runs on the copy through the hardened runner (`git.ts`), so hooks,
 * filters or fsmonitor named by the source's configuration never run.
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
  cpSync(spec.path, target, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.split(path.sep).includes('node_modules') });
  await git(target, ['init', '-q']);
  await git(target, ['config', 'user.name', 'loopdeck']);
  await git(target, ['config', 'user.email', 'loopdeck@localhost']);
  await git(target, ['add', '-A', '--', ':(top)']);
  await git(target, ['commit', '-q', '--allow-empty', '--no-verify', '-m', 'loopdeck: workspace as started']);
  return target;
}
