import os from 'node:os';
import { existsSync, realpathSync, statSync } from 'node:fs';
import nodePath from 'node:path';
import { workspacePathspec } from './engine/abort.js';
import { AgentError, ConfigError, ConfigErrors, ToolError, UnreadableConfigError } from './engine/errors.js';
import { git, isGitWorkTree, oneLine, runGit } from './engine/git.js';
import type { LoopPolicy } from './engine/policy.js';
import { describeValue, dottedPath, nearestKey, positionInFile } from './engine/yaml-file.js';
import type { Agent } from './engine/agents/agent.js';
import { patternMismatch, resolvePattern } from './engine/patterns.js';
import { httpUrlProblem } from './engine/policy.js';
import { bridgeConfigError } from './bridge-launch.js';
import { ScriptedAgent } from './engine/agents/scripted.js';
import { callProblem, TOOL_NAMES } from './engine/tools.js';
import { parseRule } from './engine/approval/approval-rules.js';
import { agentFor } from './launch.js';
import { shownName } from './text/sanitize.js';
import { notWritable, skippedMessage, surveyCopy, tempFolderProblem, unreadableMessage, type CopySurvey } from './engine/workspace.js';

/**
 * What `run` checks of a loaded loop.yaml before it starts, beyond its schema, in one
 * pass: everything that would stop the run at its start or first turn and can be decided
 * from loop.yaml and the files it names.
 * - the workspace folder exists;
 * - the agent can be built from the policy (a scripted agent's transcript is read and
 *   checked, an `openai` agent's key variable is set, `OPENAI_BASE_URL` is an http(s) URL);
 * - the agent's approvals can be bridged when `agent.approvals: bridge` asks for it (the
 *   same check the run's bridge makes, {@link bridgeConfigError});
 * - the agent can follow the pattern (the same check the engine makes,
 *   {@link patternMismatch}): Plan-and-Execute needs an agent that plans, Reflexion one that
 *   reflects;
 * - a transcript has what the run asks of it first ({@link ScriptedAgent.startProblems});
 * - a workspace to copy (`copy: temp`) holds nothing the copy cannot read ({@link surveyCopy});
 * - with `startedIn`, the run's folder can be made there ({@link runsFolderError}).
 * `validate` runs this same function and `run` refuses to start on any of its errors
 * (`prepareRun`), so a config `validate` accepts starts, and one `run` refuses, `validate`
 * refuses too.
 * @param shownAs the loop.yaml as the user named it (relative as given), in errors; default `policy.file`
 * @param startedIn the folder loopdeck was started in, where the run's folder goes (`.loopdeck/runs/`); unchecked when left out
 * @returns every error found (none: the run can start)
 */
export function preflightErrors(policy: LoopPolicy, shownAs: string = policy.file, startedIn?: string): ConfigError[] {
  const errors: ConfigError[] = [];
  const where = policy.workspace.path;
  if (!existsSync(where) || !statSync(where).isDirectory()) {
    const found = existsSync(where) ? 'a file' : 'nothing';
    errors.push(new ConfigError(policy.file, 'workspace.path', `expected a directory, found ${found} at ${shownName(where)}`, positionInFile(policy.file, ['workspace', 'path'])));
  } else if (policy.workspace.copy === 'temp') {
    const survey = surveyOf(policy);
    if (survey.unreadableCount > 0) errors.push(new ConfigError(policy.file, 'workspace.path', unreadableMessage(where, survey.unreadable, survey.unreadableCount), positionInFile(policy.file, ['workspace', 'path'])));
    const temp = tempFolderProblem(os.tmpdir());
    if (temp) errors.push(new ConfigError(policy.file, 'workspace.copy', temp, positionInFile(policy.file, ['workspace', 'copy'])));
  }
  if (startedIn !== undefined) {
    const runs = runsFolderError(startedIn);
    if (runs) errors.push(runs);
  }
  let agent: Agent | null = null;
  try {
    agent = agentFor(policy, where);
  } catch (error) {
    // An agent that cannot be made (an OpenAI API without a key) is an error of loop.yaml's agent, listed with the rest.
    if (error instanceof AgentError) errors.push(new ConfigError(policy.file, 'agent', error.message, positionInFile(policy.file, ['agent'])));
    // A file the agent names that cannot be read (its transcript not UTF-8) is an error of this config, as a missing one is: not a config that could not be read.
    else if (error instanceof ConfigErrors) errors.push(...error.errors.map((e) => (e instanceof UnreadableConfigError ? new ConfigError(e.file, null, e.expected, e.position) : e)));
    else throw error;
  }
  errors.push(...baseUrlErrors(policy));
  const bridge = bridgeConfigError(policy);
  if (bridge) errors.push(bridge);
  if (agent) errors.push(...patternErrors(policy, agent));
  if (agent instanceof ScriptedAgent && policy.agent.kind === 'scripted') {
    errors.push(...transcriptStart(policy, agent).errors.map(({ path, message }) => transcriptError(policy.agent.kind === 'scripted' ? policy.agent.script : '', path, message)));
  }
  // Errors about loop.yaml itself name it as given; the transcript's keep its own path.
  return errors.map((e) => (e.file === policy.file && shownAs !== policy.file ? new ConfigError(shownAs, e.path === '' ? null : e.path, e.expected, e.position) : e));
}

/**
 * Why a run started in the folder `startedIn` cannot make its folder under
 * `.loopdeck/runs/` there (where its log, `policy.json` and reports go): a part of that path
 * is not a folder, or the folder that would hold the next part is not writable by this user
 * (a read-only folder or file system). `null` when it can. The error is of that folder, not
 * of loop.yaml, and says what to do: start loopdeck elsewhere, or make the folder writable.
 */
export function runsFolderError(startedIn: string): ConfigError | null {
  const runs = nodePath.join(nodePath.resolve(startedIn), '.loopdeck', 'runs');
  const help = `a run's log, policy and reports go under .loopdeck/runs of the folder loopdeck is started in; start it from a folder you can write to (name loop.yaml by its path with -c)`;
  let parent = nodePath.resolve(startedIn);
  for (const folder of [parent, nodePath.dirname(runs), runs]) {
    let stat;
    try {
      stat = statSync(folder, { throwIfNoEntry: false });
    } catch (error) {
      return new ConfigError(runs, null, `expected a folder loopdeck can write runs in, found ${shownName(folder)} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); ${help}`);
    }
    if (stat === undefined) return writable(parent) ?? null;
    if (!stat.isDirectory()) return new ConfigError(runs, null, `expected a folder loopdeck can write runs in, found ${shownName(folder)} is not a folder; ${help}, or move that file away`);
    parent = folder;
  }
  return writable(runs);

  function writable(folder: string): ConfigError | null {
    const problem = notWritable(folder);
    return problem === null ? null : new ConfigError(runs, null, `expected a folder loopdeck can write runs in, found ${problem}; ${help}, or make ${shownName(folder)} writable`);
  }
}

/** An `openai` agent without `base_url` talks to `OPENAI_BASE_URL` when it is set: it must be an http(s) URL, as `base_url` must. */
function baseUrlErrors(policy: LoopPolicy): ConfigError[] {
  const agent = policy.agent;
  if (agent.kind !== 'openai' || agent.base_url !== undefined) return [];
  const fromEnv = process.env.OPENAI_BASE_URL;
  if (!fromEnv || httpUrlProblem(fromEnv) === null) return [];
  return [new ConfigError(policy.file, 'agent', `expected OPENAI_BASE_URL (used as agent.base_url is unset) to hold an http:// or https:// URL, found ${describeValue(fromEnv)}: ${httpUrlProblem(fromEnv)}`, positionInFile(policy.file, ['agent']))];
}

/** The pattern the run follows (`auto` resolved) when the agent cannot follow it: the engine would stop at the plan or the first reflection. */
function patternErrors(policy: LoopPolicy, agent: Agent): ConfigError[] {
  const { pattern, why } = resolvePattern(policy.pattern, policy.task);
  const mismatch = patternMismatch(agent, pattern);
  if (mismatch === null) return [];
  const found = policy.pattern === 'auto' ? `auto, which picks ${pattern} (${why.replace(/^auto: /, '')})` : pattern;
  const kind = policy.agent.kind === 'scripted' ? 'a scripted transcript' : policy.agent.kind === 'openai' ? 'an openai agent' : 'a command agent';
  return [
    new ConfigError(
      policy.file,
      'pattern',
      `expected a pattern ${kind} can follow, found ${found}: ${mismatch} (only a scripted transcript plans and reflects; use pattern: react)`,
      positionInFile(policy.file, ['pattern']),
    ),
  ];
}

/** What the run asks of a scripted agent's transcript at its start ({@link ScriptedAgent.startProblems}). */
function transcriptStart(policy: LoopPolicy, agent: ScriptedAgent): ReturnType<ScriptedAgent['startProblems']> {
  const { pattern } = resolvePattern(policy.pattern, policy.task);
  return agent.startProblems({ pattern, laps: policy.laps.enabled, maxLaps: policy.laps.max_laps });
}

/** A transcript's problem at its place in the file (the whole file when `path` is empty). */
function transcriptError(file: string, path: Array<string | number>, message: string): ConfigError {
  return new ConfigError(file, path.length === 0 ? null : dottedPath(path), message, path.length === 0 ? undefined : positionInFile(file, path));
}

/**
 * Warnings about a loop.yaml that runs but cannot do what a loop is for: nothing measured
 * means every checkpoint is UNKNOWN and stagnation is never detected from observations.
 * @param shownAs the loop.yaml as the user named it, in the warnings; default `policy.file`
 */
export function preflightWarnings(policy: LoopPolicy, shownAs: string = policy.file): string[] {
  const transcript = loadedTranscript(policy);
  const warnings: string[] = [...scriptedCallWarnings(policy, transcript), ...scriptedStartWarnings(policy, transcript), ...unknownToolRuleWarnings(policy, shownAs), ...skippedEntryWarnings(policy, shownAs)];
  if (policy.observe.length === 0 || policy.progress.observed.length === 0) {
    const missing = policy.observe.length === 0 ? 'no `observe` command' : 'no `progress.observed` signal';
    const add =
      policy.observe.length === 0
        ? 'add an observer (e.g. your test command with a parser) and the signals it gives'
        : `add the signals the observers give to progress.observed (e.g. ${policy.observe[0]!.name === undefined ? 'observed.tests.failing' : `observed.${policy.observe[0]!.name}.failing`} with direction: decrease)`;
    warnings.push(`${shownName(shownAs)}: nothing to measure (${missing}): every checkpoint will be UNKNOWN and only the agent's claims and the verify command judge the run; ${add}`);
  }
  return warnings;
}

/** The survey of a policy's workspace ({@link surveyCopy}), walked once for its errors and its warnings. */
const surveys = new WeakMap<LoopPolicy, CopySurvey>();
function surveyOf(policy: LoopPolicy): CopySurvey {
  let survey = surveys.get(policy);
  if (survey === undefined) surveys.set(policy, (survey = surveyCopy(policy.workspace.path)));
  return survey;
}

/** Entries of a workspace to copy that the copy leaves out for what they are (named pipes, sockets, devices: {@link surveyCopy}), in one warning. */
function skippedEntryWarnings(policy: LoopPolicy, shownAs: string): string[] {
  const where = policy.workspace.path;
  if (policy.workspace.copy !== 'temp' || statSync(where, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
  const survey = surveyOf(policy);
  if (survey.skippedCount === 0) return [];
  const at = positionInFile(policy.file, ['workspace', 'path']);
  return [`${shownName(shownAs)}${at ? `:${at}` : ''}: workspace.path: ${skippedMessage(where, survey.skipped, survey.skippedCount)}`];
}

/**
 * The scripted agent's transcript, read once for the warnings about it; `null` for another
 * agent, or a transcript that does not load ({@link preflightErrors} reports that, with its place).
 */
function loadedTranscript(policy: LoopPolicy): ScriptedAgent | null {
  if (policy.agent.kind !== 'scripted') return null;
  try {
    return ScriptedAgent.fromFile(policy.agent.script);
  } catch (error) {
    if (error instanceof ConfigErrors) return null;
    throw error;
  }
}

/**
 * A scripted agent's tool calls that the engine will refuse (an unknown tool, arguments the
 * tool's schema refuses: every problem), one warning each, at its `line:column` in the
 * transcript. Warnings, not errors: a transcript may mean to show the refusal. A transcript
 * that does not load is {@link preflightErrors}'s to report.
 */
function scriptedCallWarnings(policy: LoopPolicy, agent: ScriptedAgent | null): string[] {
  if (agent === null || policy.agent.kind !== 'scripted') return [];
  const file = policy.agent.script;
  return agent.calls().flatMap(({ path, call }) => {
    const problem = callProblem(call);
    if (problem === null) return [];
    const at = positionInFile(file, path);
    const where = path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${key}`)).join('');
    return [`${shownName(file)}${at ? `:${at}` : ''}: ${where}: ${call.name} (${call.id}): ${problem}; the engine will refuse this call and tell the agent`];
  });
}

/** What a run of a scripted transcript would never read or would run out of ({@link ScriptedAgent.startProblems}), one warning each at its place. */
function scriptedStartWarnings(policy: LoopPolicy, agent: ScriptedAgent | null): string[] {
  if (agent === null || policy.agent.kind !== 'scripted') return [];
  const file = policy.agent.script;
  return transcriptStart(policy, agent).warnings.map(({ path, message }) => transcriptError(file, path, message).message);
}

/**
 * Approval rules that name a tool the engine does not have (`read_fiel`, `exact: shel
 * sha256:…`): they can never match, so the calls they were meant for are asked or denied.
 * Only for agents whose calls are the built-in tools (a command agent's bridged calls carry
 * its CLI's own tool names).
 */
function unknownToolRuleWarnings(policy: LoopPolicy, shownAs: string): string[] {
  if (policy.agent.kind === 'command') return [];
  return (['allow', 'deny'] as const).flatMap((list) =>
    policy.approval[list].flatMap((text, index) => {
      const rule = parseRule(text);
      const tool = rule.kind === 'tool' || rule.kind === 'exact-args' ? rule.tool : null;
      if (tool === null || TOOL_NAMES.includes(tool)) return [];
      const at = positionInFile(policy.file, ['approval', list, index]);
      const near = nearestKey(tool, TOOL_NAMES);
      return [`${shownName(shownAs)}${at ? `:${at}` : ''}: approval.${list}[${index}]: the rule names ${JSON.stringify(tool)}, which is not a tool: it never matches (known: ${TOOL_NAMES.join(', ')})${near ? `; did you mean "${near}"?` : ''}`];
    }),
  );
}

/** @throws ConfigErrors listing every error {@link preflightErrors} finds (the file named as `shownAs`; the run's folder checked in `startedIn` when given) */
export function assertPreflight(policy: LoopPolicy, shownAs: string = policy.file, startedIn?: string): void {
  const errors = preflightErrors(policy, shownAs, startedIn);
  if (errors.length > 0) throw new ConfigErrors(errors);
}

/**
 * A warning when the agent works in the folder itself (`workspace.copy: none`) and git
 * records nothing of what is there: the folder is in no git repository, or the repository
 * around it sees none of its files (none tracked, every one ignored by some rule: the folder
 * itself, `dir/*`, `*.js`...). Nothing can then undo the agent's edits, and an abort has no
 * stash to park them in (`git stash` leaves ignored files alone). A folder where git sees
 * some files and ignores others (build output, `node_modules`) is not warned about; nor an
 * empty one (what the agent writes there is seen), nor loopdeck's own `.loopdeck/` folders.
 * `null` otherwise (a copy, or a path that is no folder: an error of its own).
 * @param shownAs the loop.yaml as the user named it, in the warning; default `policy.file`
 * @throws ToolError when git cannot read the repository around the folder
 */
export async function unversionedWarning(policy: LoopPolicy, shownAs: string = policy.file): Promise<string | null> {
  return unversionedAt(await placeOf(policy), shownAs);
}

/** {@link unversionedWarning} of a workspace whose place in git is known. */
async function unversionedAt(place: Place, shownAs: string): Promise<string | null> {
  if (place === null) return null;
  const { where, repo } = place;
  if (repo === null) {
    return `${shownName(shownAs)}: workspace.copy is none and ${shownName(where)} is in no git repository: the agent edits its files directly, nothing can undo the edits, and an abort cannot stash them; set workspace.copy: temp, or run git init there and commit first`;
  }
  // From the top level (git lists ignored folders wrongly from inside one), the folder as an abort would stash it, less `.loopdeck/`.
  const { top, pathspecs } = repo;
  // Tracked files, and untracked ones git would stash: any one, and git sees the folder.
  if ((await git(top, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...pathspecs])) !== '') return null;
  const ignored = (await git(top, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', ...pathspecs])).split('\0').filter((entry) => entry !== '');
  if (ignored.length === 0) return null;
  const rule = await ignoringRule(top, ignored[0]!);
  return `${shownName(shownAs)}: workspace.copy is none and git ignores every file in ${shownName(where)} (${rule}): git records none of the agent's edits there, nothing can undo them, and an abort cannot stash them; set workspace.copy: temp, or take the folder out of that ignore rule and commit its files first`;
}

/**
 * The ignore rule that makes git ignore `entry` (a path relative to `where`, the top level
 * of a work tree, which git ignores): `.gitignore:3:build/`, as `git check-ignore -v` names it.
 * @throws ToolError when git check-ignore fails (exit 128)
 */
async function ignoringRule(where: string, entry: string): Promise<string> {
  const run = await runGit(where, ['check-ignore', '-v', '--no-index', '--', entry]);
  if (run.exitCode > 1) throw new ToolError('git', `git check-ignore in ${where} failed (exit ${run.exitCode}): ${oneLine(run.stderr)}`);
  // `<source>:<line>:<pattern><TAB><path>`: the rule is everything before the tab.
  return run.stdout.split('\t')[0]!.trim() || 'an ignore rule';
}

/**
 * A warning when the agent works in the folder itself (`workspace.copy: none`) and that
 * folder has uncommitted changes: what the agent writes mixes with them, and an abort
 * stashes both together. Only the changes an abort would stash are counted: those under
 * the workspace folder, less `.loopdeck/` folders (`workspacePathspec`), not the rest of a
 * larger repository around it. `null` otherwise (a copy, a clean tree, or no git
 * repository). Runs the harness's hardened git (`git status`).
 * @param shownAs the loop.yaml as the user named it, in the warning; default `policy.file`
 */
export async function inPlaceWarning(policy: LoopPolicy, shownAs: string = policy.file): Promise<string | null> {
  return inPlaceAt(await placeOf(policy), shownAs);
}

/** {@link inPlaceWarning} of a workspace whose place in git is known. */
async function inPlaceAt(place: Place, shownAs: string): Promise<string | null> {
  if (place?.repo == null) return null;
  const { where, repo } = place;
  const status = await git(where, ['status', '--porcelain', '--untracked-files=normal', '--', ...repo.pathspecs]);
  const changed = status.split('\n').filter((line) => line.trim() !== '').length;
  if (changed === 0) return null;
  return `${shownName(shownAs)}: workspace.copy is none and ${shownName(where)} has ${changed} uncommitted change${changed === 1 ? '' : 's'}: the agent's edits will mix with them, and an abort stashes both together; commit or stash them first, or set workspace.copy: temp`;
}

/**
 * The warnings about a workspace used in place, {@link inPlaceWarning} and
 * {@link unversionedWarning}, from one look at where it stands in git (`validate` and `run`
 * show both before a run; `run` waits for the operator's word on the first).
 * @throws ToolError when git cannot read the repository around the folder
 */
export async function workspaceWarnings(policy: LoopPolicy, shownAs: string = policy.file): Promise<{ inPlace: string | null; unversioned: string | null }> {
  const place = await placeOf(policy);
  return { inPlace: await inPlaceAt(place, shownAs), unversioned: await unversionedAt(place, shownAs) };
}

/**
 * A workspace used in place and where it stands in git: `repo` is `null` outside any work
 * tree, else its top level and the pathspecs an abort would stash there (the folder, less
 * `.loopdeck/`). `null` for a copied workspace, or a path that is no folder.
 */
type Place = { where: string; repo: { top: string; pathspecs: string[] } | null } | null;

/** The {@link Place} of the policy's workspace. @throws ToolError when git cannot read the repository around it */
async function placeOf(policy: LoopPolicy): Promise<Place> {
  const where = policy.workspace.path;
  if (policy.workspace.copy !== 'none' || !isFolder(where)) return null;
  if (!(await isGitWorkTree(where))) return { where, repo: null };
  const top = realpathSync((await git(where, ['rev-parse', '--show-toplevel'])).trim());
  return { where, repo: { top, pathspecs: workspacePathspec(top, realpathSync(where)) ?? [] } };
}

/** `path` is a folder (not a file, not missing): the in-place warnings leave anything else to the start check's own error. */
function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
