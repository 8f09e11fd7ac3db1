/**
 * The one way loopdeck runs git: on a repository whose configuration the agent may have
 * written, without ever running code that configuration names.
 *
 * Plain git commands run programs named by the repository: `core.fsmonitor` on `status` and
 * `add`, clean and smudge filters (`.gitattributes` `filter=<name>`, `filter.<name>.*` in
 * config) on `add`, `stash` and checkout, diff drivers and textconv on `diff`, hooks on
 * commits, index writes and ref updates, a pager, an editor, credential and ssh helpers.
 * An agent that can write `.git/config` (or an include it names) would run code with the
 * harness's environment. {@link runGit} closes that:
 *
 * - **Environment**: built from nothing (never `process.env`): `PATH`, `HOME` and
 *   `XDG_CONFIG_HOME` at `/dev/null` (no user files), `LC_ALL=C`, `GIT_CONFIG_NOSYSTEM=1`,
 *   `GIT_CONFIG_GLOBAL=/dev/null`, `GIT_ATTR_NOSYSTEM=1`, no prompts, `cat` as pager,
 *   `false` as editor. No secret loopdeck holds reaches git or anything git starts.
 * - **Fixed overrides** ({@link GIT_HARDENING}): command-line scope configuration, which wins
 *   over every file, includes (`include.path`, `includeIf`) and worktree config alike,
 *   turns off fsmonitor, hooks (`core.hooksPath=/dev/null`), the untracked cache, signing,
 *   external diff, credential helpers, ssh, every transport, submodule recursion and auto gc,
 *   and refuses a bare repository found by discovery (`safe.bareRepository=explicit`).
 * - **Driver overrides**: driver names are arbitrary, so before every command the names
 *   defined in the configuration git will read are listed (`git config --list --name-only`,
 *   which follows includes) and each `filter.<name>` gets empty `clean`/`smudge`/`process`
 *   and `required=false` (git then stores and checks out bytes as they are), each
 *   `diff.<name>` an empty `command`/`textconv` and each `merge.<name>` an empty `driver`
 *   (git then fails with "cannot run" instead of running anything). A `.gitattributes`
 *   naming a driver no configuration defines runs nothing.
 * - **Diff commands** (`diff`, `log`, `show`) also get `--no-ext-diff --no-textconv`.
 * - **Nested repositories are never entered.** A submodule (or any folder with its own
 *   `.git` that the index records as a gitlink) has its own configuration, which the
 *   listing above does not see; `git add`, `git stash` and `git status`/`diff` start
 *   `git status` inside it, and its filters would run. So status and diff commands get
 *   `--ignore-submodules=all` (which also overrides `submodule.<name>.ignore` from
 *   `.gitmodules`), `add` and `stash push` get every gitlink of their index excluded from
 *   their pathspec, and a `commit` that would stage from the working tree (`-a`, paths) is
 *   refused. A gitlink's recorded commit therefore never changes through loopdeck's git.
 *
 * The overrides are passed as `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
 * (git(1), "ENVIRONMENT"), not `-c`, so a driver name containing `=` cannot split a key,
 * and git's own child processes (`git stash` runs `git add`, `git apply`...) inherit them.
 *
 * What stays: the listing and the command are two processes, so a process that is already
 * running (it can run code anyway) could change the config between them; it would still
 * see no secret in git's environment. For the same reason the few commands of one
 * workspace snapshot, which run back to back with no agent turn between them, may share
 * one listing ({@link gitCommands}): only such a process could change the config in between.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { ToolError } from './errors.js';

/** Output of one git command. */
export interface GitRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Configuration set on every git command loopdeck runs, as `[key, value]`. Command-line
 * scope: it wins over system, global, repository, worktree and included configuration.
 */
export const GIT_HARDENING: ReadonlyArray<readonly [string, string]> = [
  // a folder laid out as a bare repository (HEAD, config, objects/ written by the agent) is not a repository
  ['safe.bareRepository', 'explicit'],
  ['core.fsmonitor', 'false'],
  ['core.useBuiltinFSMonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.untrackedCache', 'false'],
  ['core.attributesFile', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'false'],
  ['sequence.editor', 'false'],
  ['core.askPass', ''],
  ['core.sshCommand', 'false'],
  ['credential.helper', ''],
  ['diff.external', ''],
  ['protocol.allow', 'never'],
  // never descend into a nested repository: its configuration is not the one listed below
  ['submodule.recurse', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['diff.submodule', 'short'],
  ['status.submoduleSummary', 'false'],
  ['fetch.recurseSubmodules', 'false'],
  ['push.recurseSubmodules', 'no'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['gpg.program', 'false'],
  ['gpg.openpgp.program', 'false'],
  ['gpg.x509.program', 'false'],
  ['gpg.ssh.program', 'false'],
  ['maintenance.auto', 'false'],
  ['gc.auto', '0'],
  ['color.ui', 'false'],
];

/** What each kind of driver gets, keyed by config section. */
const DRIVER_OVERRIDES: Record<string, ReadonlyArray<readonly [string, string]>> = {
  filter: [
    ['clean', ''],
    ['smudge', ''],
    ['process', ''],
    ['required', 'false'],
  ],
  diff: [
    ['command', ''],
    ['textconv', ''],
  ],
  merge: [['driver', '']],
};

/** Variables callers may add: which index to use and who commits. Anything else is a programming error. */
const EXTRA_ENV = /^GIT_(INDEX_FILE|(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE))$/;

/** Subcommands that can produce a diff and so take `--no-ext-diff --no-textconv`. */
const DIFF_COMMANDS = new Set(['diff', 'log', 'show']);

/**
 * Subcommands that compare submodules and take `--ignore-submodules=all`, which also makes
 * them ignore `submodule.<name>.ignore` from `.gitmodules` or the repository's config.
 */
const IGNORE_SUBMODULES_COMMANDS = new Set(['status', 'diff', 'diff-files', 'diff-index', 'log', 'show']);

/**
 * Subcommands that walk the working tree, start `git status` inside every submodule whose
 * HEAD matches the index, and take no option against it (`add`, `stash push`): the
 * submodules are taken out of their pathspec instead.
 */
function walksSubmodules(args: readonly string[]): boolean {
  return args[0] === 'add' || (args[0] === 'stash' && args[1] === 'push');
}

/** Options that make `git commit` stage from the working tree (and so look into submodules). */
const COMMIT_STAGING = /^(--(all|include|only|interactive|patch|pathspec-from-file)(=.*)?|--|-[a-zA-Z]*[aiop][a-zA-Z]*)$/;

/** Longest a single git command may run. */
export const GIT_TIMEOUT_MS = 120_000;

/**
 * The environment every git command runs with, built from nothing: see the module comment.
 * `extra` may only set `GIT_INDEX_FILE` and the author/committer variables.
 *
 * @param overrides configuration set in command-line scope, in order (later wins)
 * @throws TypeError when `extra` names any other variable
 */
export function gitEnv(extra: Record<string, string> = {}, overrides: ReadonlyArray<readonly [string, string]> = GIT_HARDENING): Record<string, string> {
  for (const key of Object.keys(extra)) {
    if (!EXTRA_ENV.test(key)) throw new TypeError(`gitEnv: ${key} cannot be passed to git (allowed: GIT_INDEX_FILE, GIT_AUTHOR_*, GIT_COMMITTER_*)`);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/dev/null',
    XDG_CONFIG_HOME: '/dev/null',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: 'false',
    ...extra,
    GIT_CONFIG_COUNT: String(overrides.length),
  };
  overrides.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * Overrides that make every filter, diff and merge driver named in `configNames` inert
 * (the output of `git config --list --name-only`: `filter.<name>.clean`, ...).
 */
export function driverOverrides(configNames: readonly string[]): Array<[string, string]> {
  const drivers = new Map<string, string>();
  for (const name of configNames) {
    const match = /^(filter|diff|merge)\.(.+)\.[^.]+$/s.exec(name);
    if (match) drivers.set(`${match[1]}.${match[2]}`, match[1]!);
  }
  const out: Array<[string, string]> = [];
  for (const [driver, section] of drivers) {
    for (const [variable, value] of DRIVER_OVERRIDES[section]!) out.push([`${driver}.${variable}`, value]);
  }
  return out;
}

/** Runs git once with the given environment; a start failure or timeout throws. */
async function spawnGit(cwd: string, args: string[], env: Record<string, string>): Promise<GitRun> {
  // Loaded on first use: the console's first frame does not wait for execa's modules.
  const { execa } = await import('execa');
  const result = await execa('git', args, { cwd, env, extendEnv: false, reject: false, stdin: 'ignore', timeout: GIT_TIMEOUT_MS });
  if (result.timedOut) throw new ToolError('git', `git ${args.join(' ')} in ${cwd} did not finish within ${GIT_TIMEOUT_MS / 1000} s`);
  if (result.exitCode === undefined) {
    throw new ToolError('git', `could not run git ${args.join(' ')} in ${cwd}: ${result.message}`);
  }
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs `git <args>` in `cwd` hardened as the module comment says, without throwing on a
 * non-zero exit (output trimmed of its final newline).
 *
 * @param extraEnv only `GIT_INDEX_FILE` and `GIT_AUTHOR_*`/`GIT_COMMITTER_*`
 * @throws ToolError when git cannot be started at all (missing binary, missing `cwd`), runs
 *   past {@link GIT_TIMEOUT_MS}, or its configuration cannot be read (then nothing is run)
 */
export async function runGit(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<GitRun> {
  return (await gitCommands(cwd, args))(args, extraEnv);
}

/** Runs one git command in the folder its runner was made for, as {@link runGit} does, without throwing on a non-zero exit. */
export type GitCommand = (args: string[], extraEnv?: Record<string, string>) => Promise<GitRun>;

/**
 * Lists the drivers the configuration in `cwd` names (as {@link runGit} does before each
 * command) once, and returns a runner for commands in `cwd` that all use that listing. Only
 * for commands that loopdeck runs back to back with no agent turn between them (those of a
 * workspace snapshot); every other command goes through {@link runGit}.
 *
 * @param first the first command to be run, named when the configuration cannot be read
 * @throws ToolError when git cannot be started or its configuration cannot be read (then nothing is run)
 */
export async function gitCommands(cwd: string, first: string[]): Promise<GitCommand> {
  const listed = await spawnGit(cwd, ['config', '--list', '--name-only', '-z'], gitEnv());
  if (listed.exitCode !== 0) {
    const broken = brokenGitFile(cwd);
    const why = broken ? `; ${broken.file} points to ${oneLine(broken.target)}, which is not a git repository (a moved or deleted repository of a worktree or submodule): fix or remove that file` : '';
    throw new ToolError('git', `cannot read the git configuration in ${cwd} (git config --list exited ${listed.exitCode}: ${oneLine(listed.stderr)}), so git ${first.join(' ')} was not run${why}`);
  }
  const overrides = [...GIT_HARDENING, ...driverOverrides(listed.stdout.split('\0'))];
  return async (args, extraEnv = {}) => spawnGit(cwd, await outsideSubmodules(cwd, args, extraEnv), gitEnv(extraEnv, overrides));
}

/**
 * The nearest `.git` at or above `dir` when it is a file (`gitdir: <path>`, as a worktree or
 * a submodule has) whose target folder is missing: git then refuses every command there.
 * `null` when the nearest `.git` is a folder, its target exists, or there is none.
 */
function brokenGitFile(dir: string): { file: string; target: string } | null {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const file = path.join(at, '.git');
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat?.isFile()) {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(headOf(file, 4096))?.[1];
      if (named === undefined) return null;
      const target = path.resolve(at, named);
      // Every git folder (a repository's, a worktree's, a submodule's) has its HEAD.
      return statSync(path.join(target, 'HEAD'), { throwIfNoEntry: false })?.isFile() ? null : { file, target };
    }
    if (stat !== undefined || path.dirname(at) === at) return null;
  }
}

/** What git or a repository's file said, on one line (line breaks shown as ` ⏎ `): a line of its own could pass for loopdeck's. */
export function oneLine(text: string): string {
  return text.trim().replace(/\s*[\r\n]+\s*/g, ' ⏎ ');
}

/** The first `bytes` bytes of `file` as UTF-8 (a `.git` file may be anything). */
function headOf(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * `args` rewritten so git never looks inside a nested repository (a submodule, or any
 * folder with its own `.git` that the index records as a gitlink): git would start
 * `git status` there, under that repository's configuration, whose drivers the overrides
 * above do not name. Diff and status commands get `--ignore-submodules=all` (and diff
 * commands `--no-ext-diff --no-textconv`); `add` and `stash push` get one
 * `:(top,exclude,literal)<path>` per gitlink in the index they use, after their `--`.
 *
 * @throws TypeError for `add`/`stash push` without `--` (an exclude-only pathspec would
 *   narrow them to the current folder) and for a `commit` that stages from the working tree
 */
async function outsideSubmodules(cwd: string, args: string[], extraEnv: Record<string, string>): Promise<string[]> {
  const [command, ...rest] = args;
  if (command === undefined) return args;
  if (command === 'commit' && rest.some((arg) => COMMIT_STAGING.test(arg))) {
    throw new TypeError(`runGit: git ${args.join(' ')} would stage from the working tree and look into submodules; stage with add first`);
  }
  if (walksSubmodules(args)) {
    if (!rest.includes('--')) throw new TypeError(`runGit: git ${args.join(' ')} needs an explicit pathspec after "--"`);
    return [...args, ...(await gitlinks(cwd, extraEnv)).map((p) => `:(top,exclude,literal)${p}`)];
  }
  const flags = [
    ...(DIFF_COMMANDS.has(command) ? ['--no-ext-diff', '--no-textconv'] : []),
    ...(IGNORE_SUBMODULES_COMMANDS.has(command) ? ['--ignore-submodules=all'] : []),
  ];
  return [command, ...flags, ...rest];
}

/** Paths (from the top level) of the gitlinks in the index `extraEnv` names, or in the repository's index. */
async function gitlinks(cwd: string, extraEnv: Record<string, string>): Promise<string[]> {
  const listed = await spawnGit(cwd, ['ls-files', '--stage', '--full-name', '-z', '--', ':(top)'], gitEnv(extraEnv));
  if (listed.exitCode !== 0) {
    throw new ToolError('git', `cannot list the index in ${cwd} to leave submodules out (exit ${listed.exitCode}): ${oneLine(listed.stderr)}`);
  }
  return listed.stdout
    .split('\0')
    .filter((entry) => entry.startsWith('160000 '))
    .map((entry) => entry.slice(entry.indexOf('\t') + 1));
}

/** Same as {@link runGit} but a non-zero exit throws. @throws ToolError naming the command and git's message */
export async function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
  const run = await runGit(cwd, args, extraEnv);
  if (run.exitCode !== 0) {
    throw new ToolError('git', `git ${args.join(' ')} failed (exit ${run.exitCode}): ${oneLine(run.stderr) || oneLine(run.stdout)}`);
  }
  return run.stdout;
}

/**
 * Whether `dir` is inside a git working tree. `false` outside any repository, and inside a
 * `.git` directory or a bare repository (no working tree to observe; git refuses to use
 * one found by looking around `dir`).
 *
 * @throws ToolError when git refuses for another reason (e.g. "dubious ownership"), or
 *   cannot run in `dir` at all
 */
export async function isGitWorkTree(dir: string): Promise<boolean> {
  const run = await runGit(dir, ['rev-parse', '--is-inside-work-tree']);
  if (run.exitCode === 0) return run.stdout.trim() === 'true';
  if (/not a git repository|cannot use bare repository/i.test(run.stderr)) return false;
  throw new ToolError('git', `git rev-parse in ${dir} failed (exit ${run.exitCode}): ${oneLine(run.stderr)}`);
}
