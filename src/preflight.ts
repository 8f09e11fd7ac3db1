import { existsSync, statSync } from 'node:fs';
import { ConfigError, ConfigErrors } from './engine/errors.js';
import { git, isGitWorkTree } from './engine/git.js';
import type { LoopPolicy } from './engine/policy.js';
import { positionInFile } from './engine/yaml-file.js';
import { agentFor } from './launch.js';

/**
 * What `run` checks of a loaded loop.yaml before it starts, beyond its schema, in one
 * pass: the workspace folder exists, and the agent can be built from the policy (a
 * scripted agent's transcript is read and checked, an `openai` agent's key variable is
 * set). `validate` runs the same checks, so a config it accepts starts.
 * @returns every error found (none: the run can start)
 */
export function preflightErrors(policy: LoopPolicy): ConfigError[] {
  const errors: ConfigError[] = [];
  const where = policy.workspace.path;
  if (!existsSync(where) || !statSync(where).isDirectory()) {
    const found = existsSync(where) ? 'a file' : 'nothing';
    errors.push(new ConfigError(policy.file, 'workspace.path', `expected a directory, found ${found} at ${where}`, positionInFile(policy.file, ['workspace', 'path'])));
  }
  try {
    agentFor(policy, where);
  } catch (error) {
    if (!(error instanceof ConfigErrors)) throw error;
    errors.push(...error.errors);
  }
  return errors;
}

/**
 * Warnings about a loop.yaml that runs but cannot do what a loop is for: nothing measured
 * means every checkpoint is UNKNOWN and stagnation is never detected from observations.
 */
export function preflightWarnings(policy: LoopPolicy): string[] {
  const warnings: string[] = [];
  if (policy.observe.length === 0 || policy.progress.observed.length === 0) {
    const missing = policy.observe.length === 0 ? 'no `observe` command' : 'no `progress.observed` signal';
    warnings.push(
      `${policy.file}: nothing to measure (${missing}): every checkpoint will be UNKNOWN and only the agent's claims and the verify command judge the run; add an observer (e.g. your test command with a parser) and the signals it gives`,
    );
  }
  return warnings;
}

/** @throws ConfigErrors listing every error {@link preflightErrors} finds */
export function assertPreflight(policy: LoopPolicy): void {
  const errors = preflightErrors(policy);
  if (errors.length > 0) throw new ConfigErrors(errors);
}

/**
 * A warning when the agent works in the folder itself (`workspace.copy: none`) and that
 * folder has uncommitted changes: what the agent writes mixes with them, and an abort
 * stashes both together. `null` otherwise (a copy, a clean tree, or no git repository).
 * Runs the harness's hardened git (`git status`).
 */
export async function inPlaceWarning(policy: LoopPolicy): Promise<string | null> {
  const where = policy.workspace.path;
  if (policy.workspace.copy !== 'none' || !existsSync(where) || !(await isGitWorkTree(where))) return null;
  const changed = (await git(where, ['status', '--porcelain', '--untracked-files=normal'])).split('\n').filter((line) => line.trim() !== '').length;
  if (changed === 0) return null;
  return `${policy.file}: workspace.copy is none and ${where} has ${changed} uncommitted change${changed === 1 ? '' : 's'}: the agent's edits will mix with them, and an abort stashes both together; commit or stash them first, or set workspace.copy: temp`;
}
