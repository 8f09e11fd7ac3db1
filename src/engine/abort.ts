/**
 * The circuit breaker's last act (docs/design.md, "Ending a run"):
 * park the workspace recoverably in a git stash and write a failure report outside it.
 *
 * - {@link parkWorkspace} runs `git stash push --include-untracked -m "loopdeck-abort <session>"`
 *   limited to the workspace's own folder (never the rest of a larger repository, never a
 *   `.loopdeck/` folder of run logs and reports) and names the stash it made by commit SHA,
 *   with the tracked and untracked paths it holds.
 *   It never pops, applies, drops or cleans anything: a stash is the only thing it creates, and
 *   "nothing to stash", "not a git repo" and a failing stash are outcomes, not exceptions.
 * - {@link buildFailureReport} (pure) and {@link writeFailureReport} make
 *   `.loopdeck/runs/<session>/failure-report.json`.
 * - {@link recordAbort} does the three in the only safe order: read the progress file
 *   (a stash may take it away), park, write the report; `on_abort.stash: false` skips the
 *   parking and `on_abort.report: false` the report.
 *
 * Killing running tool processes comes before all this and is the caller's job.
 */
import { realpathSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from './errors.js';
import { assertNever, type LoopEvent } from './events.js';
import { git, isGitWorkTree, runGit } from './git.js';
import { createRedactor, type Redactor } from './redact.js';
import type { BudgetLimits, BudgetUsage, Goal } from './types.js';
import { toJson } from '../text/json.js';
import { shellQuote } from '../text/shell-quote.js';

/** How parking the workspace went. Every case is said plainly in the failure report. */
export type StashOutcome =
  | {
      status: 'stashed';
      /** Commit SHA of the stash entry (`git stash apply <sha>` restores it). */
      sha: string;
      /** The stash entry's message, e.g. `On main: loopdeck-abort <session>`. */
      message: string;
      /** Top-level folder of the repository; the paths below are relative to it. */
      repository: string;
      /** The pathspecs given to `git stash push`: the workspace folder, less `.loopdeck/` and the exclusions. */
      pathspec: string[];
      /**
       * Tracked paths with changes (worktree or index) that were stashed, sorted: exactly
       * the paths that were put back to their committed state. Changes staged outside the
       * workspace stay staged and on disk.
       */
      tracked: string[];
      /** Untracked (non-ignored) paths that were stashed (and removed), sorted. */
      untracked: string[];
    }
  | { status: 'nothing_to_stash' }
  /** `on_abort.stash: false`: nothing was stashed. */
  | { status: 'disabled' }
  | { status: 'not_a_git_repo' }
  | {
      status: 'failed';
      /** git's message, or what went wrong. */
      error: string;
      /** SHA of a stash entry git made before failing (some changes may be in it), else `null`. */
      sha: string | null;
    };

/** Options of {@link parkWorkspace}. */
export interface ParkOptions {
  /**
   * Absolute paths to leave in place (e.g. the run directory when it lies inside the
   * workspace, so the event log being written is not stashed away). Paths outside the
   * repository are ignored.
   */
  exclude?: string[];
}

/** The message of the stash entry for `session`. */
export function stashMessage(session: string): string {
  return `loopdeck-abort ${session}`;
}

/** Pathspec that keeps every `.loopdeck/` folder (run logs and reports) out of a stash, wherever it lies. */
export const LOOPDECK_DIR_PATHSPEC = ':(top,exclude,glob)**/.loopdeck/**';

/**
 * The pathspecs that limit a stash to `workspace`: its folder relative to the repository's
 * top level (the whole tree when they are the same), less every `.loopdeck/` folder and
 * less `exclude` (absolute paths; those outside the repository are ignored).
 *
 * @param top the repository's top level, as `git rev-parse --show-toplevel` gives it
 * @param workspace the workspace folder, with symbolic links resolved
 * @returns `null` when `workspace` is not inside `top`
 */
export function workspacePathspec(top: string, workspace: string, exclude: readonly string[] = []): string[] | null {
  const rel = path.relative(top, workspace);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const inside = exclude
    .map((p) => path.relative(top, path.resolve(p)))
    .filter((r) => r !== '' && !r.startsWith('..') && !path.isAbsolute(r));
  return [
    rel === '' ? ':(top)' : `:(top,literal)${gitPath(rel)}`,
    LOOPDECK_DIR_PATHSPEC,
    ...inside.map((r) => `:(top,exclude,literal)${gitPath(r)}`),
  ];
}

function gitPath(rel: string): string {
  return rel.split(path.sep).join('/');
}

/**
 * Stashes the changes of the `workspace` folder, tracked and untracked (ignored files
 * stay), as `loopdeck-abort <session>`: only paths under `workspace` (see
 * {@link workspacePathspec}), so files of a larger repository around it and `.loopdeck/`
 * folders stay on disk as they are. Identifies the new stash entry by SHA: the newest
 * `refs/stash` reflog entry that was not there before and carries this message, so a
 * concurrent stash cannot be mistaken for ours. Tracked paths are
 * `git diff --name-only --no-renames` under the same pathspec from the stash's base
 * (parent 1) to its worktree commit and to its index commit (parent 2); untracked paths
 * are `git ls-tree -r` of parent 3. When the repository configures no committer identity
 * (user-level configuration is not read, see `git.ts`), `loopdeck <loopdeck@localhost>`
 * is used so parking cannot fail for want of one.
 *
 * Never throws: every failure is a `failed` outcome. Never pops, applies, drops or cleans.
 */
export async function parkWorkspace(workspace: string, session: string, options: ParkOptions = {}): Promise<StashOutcome> {
  let sha: string | null = null;
  try {
    if (!(await isGitWorkTree(workspace))) return { status: 'not_a_git_repo' };
    const top = (await git(workspace, ['rev-parse', '--show-toplevel'])).trim();
    const pathspec = workspacePathspec(realpathSync(top), realpathSync(workspace), options.exclude);
    if (pathspec === null) {
      return { status: 'failed', error: `the workspace ${workspace} is not inside the working tree ${top} git reports; nothing was stashed`, sha: null };
    }
    const message = stashMessage(session);
    const before = new Set((await stashEntries(top)).map((e) => e.sha));
    const args = ['stash', 'push', '--include-untracked', '-m', message, '--', ...pathspec];
    const push = await runGit(top, args, await identityEnv(top));
    const ours = (await stashEntries(top)).find((e) => !before.has(e.sha) && e.subject.endsWith(`: ${message}`));
    sha = ours?.sha ?? null;
    if (push.exitCode !== 0) {
      return { status: 'failed', error: `git stash push failed (exit ${push.exitCode}): ${oneLine(push.stderr || push.stdout)}`, sha };
    }
    if (ours === undefined) {
      if (/no local changes to save/i.test(push.stdout + push.stderr)) return { status: 'nothing_to_stash' };
      return { status: 'failed', error: `git stash push succeeded but no stash entry "${message}" was found: ${oneLine(push.stdout)}`, sha: null };
    }
    return { status: 'stashed', sha: ours.sha, message: ours.subject, repository: top, pathspec, ...(await stashPaths(top, ours.sha, pathspec)) };
  } catch (error) {
    return { status: 'failed', error: describeError(error), sha };
  }
}

/** `refs/stash` reflog, newest first; empty when there is no stash. */
async function stashEntries(top: string): Promise<Array<{ sha: string; subject: string }>> {
  const run = await runGit(top, ['log', '-g', '--format=%H%x00%gs', 'refs/stash', '--']);
  if (run.exitCode !== 0) return [];
  return run.stdout
    .split('\n')
    .filter((line) => line.includes('\0'))
    .map((line) => {
      const [sha = '', subject = ''] = line.split('\0');
      return { sha, subject };
    });
}

/** Env that supplies a committer identity when git has none configured. */
async function identityEnv(top: string): Promise<Record<string, string>> {
  const ident = await runGit(top, ['var', 'GIT_COMMITTER_IDENT']);
  if (ident.exitCode === 0) return {};
  const who = { name: 'loopdeck', email: 'loopdeck@localhost' };
  return { GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_COMMITTER_NAME: who.name, GIT_COMMITTER_EMAIL: who.email };
}

/**
 * The paths a stash made with `pathspec` holds. Limited to `pathspec` because git records
 * the whole index in the stash's index commit, changes staged outside it included, while
 * only the paths inside were put back.
 */
async function stashPaths(top: string, sha: string, pathspec: string[]): Promise<{ tracked: string[]; untracked: string[] }> {
  const names = async (args: string[]) => (await git(top, args)).split('\0').filter((p) => p !== '');
  const tracked = new Set([
    ...(await names(['diff', '--name-only', '--no-renames', '-z', `${sha}^1`, sha, '--', ...pathspec])),
    ...(await names(['diff', '--name-only', '--no-renames', '-z', `${sha}^1`, `${sha}^2`, '--', ...pathspec])),
  ]);
  const hasUntracked = (await runGit(top, ['rev-parse', '-q', '--verify', `${sha}^3^{commit}`])).exitCode === 0;
  const untracked = hasUntracked ? await names(['ls-tree', '-r', '-z', '--name-only', `${sha}^3`]) : [];
  return { tracked: [...tracked].sort(), untracked: untracked.sort() };
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' | ');
}

/** The progress file as it was at the abort. */
export interface ProgressFileContent {
  path: string;
  content: string;
}

/**
 * Reads the progress file, or `null` when it does not exist or cannot be read.
 * Call it before {@link parkWorkspace}: an untracked progress file goes into the stash.
 */
export async function readProgressFile(file: string): Promise<ProgressFileContent | null> {
  try {
    return { path: file, content: await readFile(file, 'utf8') };
  } catch {
    return null;
  }
}

/** Events kept in a failure report. */
export const FAILURE_REPORT_EVENTS = 10;

/** `failure-report.json`: everything needed to understand an abort and undo its parking. */
export interface FailureReport {
  /** Why the run was aborted (e.g. `operator`, `circuit_breaker:repetition`). */
  reason: string;
  /** When, ISO 8601 UTC, from the session's injected clock. */
  at: string;
  session: string;
  /** Absolute path of the workspace that was parked. */
  workspace: string;
  goal: Goal;
  /** Limits and cumulative usage at the abort. */
  budget: { limits: BudgetLimits; usage: BudgetUsage };
  /** The last events of the log (at most {@link FAILURE_REPORT_EVENTS}), oldest first. */
  last_events: LoopEvent[];
  stash: StashOutcome;
  /** The progress file as it was before parking, or `null` when there was none. */
  progress_file: ProgressFileContent | null;
  /** What to run (or know) to get the work back, for a human. */
  restore: string;
}

/** What {@link buildFailureReport} needs. `events` may be the whole log; only the tail is kept. */
export interface FailureReportInput {
  reason: string;
  /** Epoch milliseconds (the injected clock). */
  now: number;
  session: string;
  workspace: string;
  goal: Goal;
  budget: { limits: BudgetLimits; usage: BudgetUsage };
  events: readonly LoopEvent[];
  stash: StashOutcome;
  progress_file: ProgressFileContent | null;
}


/**
 * The human restore instruction for a stash outcome, e.g.
 * `cd /tmp/ws && git stash apply 3f2a…` for a stash. Applying by SHA works even after
 * other stashes were pushed on top; loopdeck never applies it itself.
 */
export function restoreInstruction(workspace: string, stash: StashOutcome): string {
  const ws = shellQuote(workspace);
  switch (stash.status) {
    case 'stashed':
      return `The workspace changes were stashed, not deleted. To restore them: cd ${ws} && git stash apply ${stash.sha}`;
    case 'nothing_to_stash':
      return `Nothing to stash: the workspace had no uncommitted changes, so there is nothing to restore. Its files are in place at ${workspace}.`;
    case 'not_a_git_repo':
      return `The workspace is not a git repository, so it was not stashed; its files were left in place, untouched, at ${workspace}.`;
    case 'disabled':
      return `Stashing is off (on_abort.stash: false): nothing was stashed; the workspace was left as it was at ${workspace}.`;
    case 'failed':
      return stash.sha === null
        ? `Stashing failed (${stash.error}); nothing was deleted and the workspace was left as it was at ${workspace}.`
        : `Stashing failed (${stash.error}) after creating stash ${stash.sha}: some changes may be in it and some still in ${workspace}; nothing was deleted. To restore the stashed part: cd ${ws} && git stash apply ${stash.sha}`;
    default:
      return assertNever(stash);
  }
}

/** Builds the report (pure): keeps the last {@link FAILURE_REPORT_EVENTS} events and adds the restore instruction. */
export function buildFailureReport(input: FailureReportInput): FailureReport {
  return {
    reason: input.reason,
    at: new Date(input.now).toISOString(),
    session: input.session,
    workspace: input.workspace,
    goal: input.goal,
    budget: input.budget,
    last_events: input.events.slice(-FAILURE_REPORT_EVENTS),
    stash: input.stash,
    progress_file: input.progress_file,
    restore: restoreInstruction(input.workspace, input.stash),
  };
}

/** File name of the report inside a run directory. */
export const FAILURE_REPORT_FILE = 'failure-report.json';

/**
 * Writes `report` as pretty JSON to `<runDir>/failure-report.json`, creating `runDir`;
 * written to a temporary file and renamed, so a crash never leaves half a report.
 * Keep `runDir` outside the workspace (`.loopdeck/runs/<session>/` under the directory
 * loopdeck was started in).
 *
 * @returns the report's absolute path
 * @throws the file system's error when the directory or file cannot be written
 */
export async function writeFailureReport(runDir: string, report: FailureReport): Promise<string> {
  await mkdir(runDir, { recursive: true });
  const file = path.resolve(runDir, FAILURE_REPORT_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  // Escaped like every JSON loopdeck writes: the report quotes the agent, and people `cat` it.
  await writeFile(temp, `${toJson(report, 2)}\n`, 'utf8');
  await rename(temp, file);
  return file;
}

/** What {@link recordAbort} needs: the report's inputs less what it gathers itself. */
export interface AbortInput extends Omit<FailureReportInput, 'stash' | 'progress_file'> {
  runDir: string;
  /** Absolute path of the progress file, or `null` when the loop has none. */
  progressFile: string | null;
  /** `on_abort.stash`: park the workspace in a stash (default `true`). */
  stash?: boolean;
  /** `on_abort.report`: write `failure-report.json` into `runDir` (default `true`). */
  report?: boolean;
  /** Redacts the report before it is written (the run's redactor; default: this process's secrets). */
  redact?: Redactor;
}

/**
 * The abort sequence after tool processes were killed: read the progress file, park the
 * workspace (keeping `runDir` in place if it lies inside the repository) unless `stash` is
 * false, and write the report unless `report` is false, with every string redacted (the
 * progress file and the events included).
 *
 * @returns the report (also when it was not written) and the path it was written to, or
 *   `null` when `report` is false
 * @throws the file system's error when the report cannot be written (the stash, if any, stays)
 */
export async function recordAbort(input: AbortInput): Promise<{ report: FailureReport; path: string | null }> {
  const progress_file = input.progressFile === null ? null : await readProgressFile(input.progressFile);
  const stash: StashOutcome = input.stash === false ? { status: 'disabled' } : await parkWorkspace(input.workspace, input.session, { exclude: [input.runDir] });
  const redact = input.redact ?? createRedactor();
  const report = redact(buildFailureReport({
    reason: input.reason,
    now: input.now,
    session: input.session,
    workspace: input.workspace,
    goal: input.goal,
    budget: input.budget,
    events: input.events,
    stash,
    progress_file,
  }));
  return { report, path: input.report === false ? null : await writeFailureReport(input.runDir, report) };
}

/**
 * One line on what happened to the workspace, for the `abort.recorded` event:
 * `stashed as <sha>`, `nothing to stash`, `not a git repo`, `not stashed (on_abort.stash: false)`,
 * `failed: <error>`.
 */
export function stashSummary(stash: StashOutcome): string {
  switch (stash.status) {
    case 'stashed':
      return `stashed as ${stash.sha}`;
    case 'nothing_to_stash':
      return 'nothing to stash';
    case 'not_a_git_repo':
      return 'not a git repo';
    case 'disabled':
      return 'not stashed (on_abort.stash: false)';
    case 'failed':
      return `failed: ${stash.error}`;
    default:
      return assertNever(stash);
  }
}
