import { cpSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { ConfigError, ConfigErrors } from './errors.js';

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
 * file tools refuse it when that is outside the copy.
 *
 * @param configFile named in the error when the path does not exist
 * @throws ConfigErrors when the workspace path is not a directory
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
  const git = simpleGit(target);
  await git.init();
  await git.addConfig('user.name', 'loopdeck');
  await git.addConfig('user.email', 'loopdeck@localhost');
  await git.add('.');
  await git.commit('loopdeck: workspace as started');
  return target;
}
