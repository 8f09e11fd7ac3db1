import { existsSync, realpathSync, statSync } from 'node:fs';
import { workspacePathspec } from './engine/abort.js';
import { ConfigError, ConfigErrors } from './engine/errors.js';
import { git, isGitWorkTree } from './engine/git.js';
import type { LoopPolicy } from './engine/policy.js';
import { positionInFile } from './engine/yaml-file.js';
import { ScriptedAgent } from './engine/agents/scripted.js';
import { callProblem } from './engine/tools.js';
import { agentFor } from './launch.js';

/**
 * What `run` checks of a loaded loop.yaml before it starts, beyond its schema, in one
 * pass: the workspace folder exists, and the agent can be built from the policy (a
 * scripted agent's transcript is read and checked, an `openai` agent's key variable is
 * set). `validate` runs the same checks, so a config it accepts starts.
 * @param shownAs the loop.yaml as the user named it (relative as given), in errors; default `policy.file`
 * @returns every error found (none: the run can start)
 */
export function preflightErrors(policy: LoopPolicy, shownAs: string = policy.file): ConfigError[] {
  const errors: ConfigError[] = [];
  const where = policy.workspace.path;
  if (!existsSync(where) || !statSync(where).isDirectory()) {
    const found = existsSync(where) ? 'a file' : 'nothing';
    errors.push(new ConfigError(shownAs, 'workspace.path', `expected a directory, found ${found} at ${where}`, positionInFile(policy.file, ['workspace', 'path'])));
  }
  try {
    agentFor(policy, where);
  } catch (error) {
    if (!(error instanceof ConfigErrors)) throw error;
    // Errors about loop.yaml itself (an unset api_key_env) name it as given; the transcript's keep its own path.
    errors.push(...error.errors.map((e) => (e.file === policy.file && shownAs !== policy.file ? new ConfigError(shownAs, e.path === '' ? null : e.path, e.expected, e.position) : e)));
  }
  return errors;
}

/**
 * Warnings about a loop.yaml that runs but cannot do what a loop is for: nothing measured
 * means every checkpoint is UNKNOWN and stagnation is never detected from observations.
 * @param shownAs the loop.yaml as the user named it, in the warnings; default `policy.file`
 */
export function preflightWarnings(policy: LoopPolicy, shownAs: string = policy.file): string[] {
  const warnings: string[] = [...scriptedCallWarnings(policy)];
  if (policy.observe.length === 0 || policy.progress.observed.length === 0) {
    const missing = policy.observe.length === 0 ? 'no `observe` command' : 'no `progress.observed` signal';
    warnings.push(
      `${shownAs}: nothing to measure (${missing}): every checkpoint will be UNKNOWN and only the agent's claims and the verify command judge the run; add an observer (e.g. your test command with a parser) and the signals it gives`,
    );
  }
  return warnings;
}

/**
 * A scripted agent's tool calls that the engine will refuse (an unknown tool, arguments the
 * tool's schema refuses: every problem), one warning each, at its `line:column` in the
 * transcript. Warnings, not errors: a transcript may mean to show the refusal. A transcript
 * that does not load is {@link preflightErrors}'s to report.
 */
function scriptedCallWarnings(policy: LoopPolicy): string[] {
  if (policy.agent.kind !== 'scripted') return [];
  const file = policy.agent.script;
  let agent: ScriptedAgent;
  try {
    agent = ScriptedAgent.fromFile(file);
  } catch (error) {
    if (error instanceof ConfigErrors) return []; // reported, with its place, by preflightErrors
    throw error;
  }
  return agent.calls().flatMap(({ path, call }) => {
    const problem = callProblem(call);
    if (problem === null) return [];
    const at = positionInFile(file, path);
    const where = path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${key}`)).join('');
    return [`${file}${at ? `:${at}` : ''}: ${where}: ${call.name} (${call.id}): ${problem}; the engine will refuse this call and tell the agent`];
  });
}

/** @throws ConfigErrors listing every error {@link preflightErrors} finds (the file named as `shownAs`) */
export function assertPreflight(policy: LoopPolicy, shownAs: string = policy.file): void {
  const errors = preflightErrors(policy, shownAs);
  if (errors.length > 0) throw new ConfigErrors(errors);
}

/**
 * A warning when the agent works in the folder itself (`workspace.copy: none`) and an abort
 * could not keep its work apart from yours: the folder has uncommitted changes (what the
 * agent writes mixes with them, and an abort stashes both together), or it is not in a git
 * repository at all (an abort has nowhere to park the agent's changes). Only the changes an
 * abort would stash are counted: those under the workspace folder, less `.loopdeck/`
 * folders (`workspacePathspec`), not the rest of a larger repository around it. `null`
 * otherwise (a copy, or a clean tree). Runs the harness's hardened git (`git status`).
 * @param shownAs the loop.yaml as the user named it, in the warning; default `policy.file`
 */
export async function inPlaceWarning(policy: LoopPolicy, shownAs: string = policy.file): Promise<string | null> {
  const where = policy.workspace.path;
  if (policy.workspace.copy !== 'none' || !existsSync(where)) return null;
  if (!(await isGitWorkTree(where))) {
    return `${shownAs}: workspace.copy is none and ${where} is not in a git repository: the agent edits your files there, and an abort cannot park its changes (nothing is stashed); set workspace.copy: temp, or make it a git repository (git init) and commit first`;
  }
  const top = (await git(where, ['rev-parse', '--show-toplevel'])).trim();
  const pathspecs = workspacePathspec(realpathSync(top), realpathSync(where)) ?? [];
  const status = await git(where, ['status', '--porcelain', '--untracked-files=normal', '--', ...pathspecs]);
  const changed = status.split('\n').filter((line) => line.trim() !== '').length;
  if (changed === 0) return null;
  return `${shownAs}: workspace.copy is none and ${where} has ${changed} uncommitted change${changed === 1 ? '' : 's'}: the agent's edits will mix with them, and an abort stashes both together; commit or stash them first, or set workspace.copy: temp`;
}
