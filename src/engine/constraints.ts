/**
 * Constraints that can be checked (docs/design.md, "Goals"). An entry of `goal.constraints`
 * is a text the agent reads, or `{ text, protect, command }`:
 *
 * - `protect`: glob patterns (picomatch, relative to the workspace, dot files included);
 *   any path added, modified, deleted or renamed since the run started that matches one is
 *   a violation. "Since the run started" is a tree of the whole working tree (tracked files
 *   as on disk plus untracked, non-ignored ones) hashed at start into a throwaway index
 *   (`gitSnapshot`, git-progress.ts) and recorded in `session.start` (`protect_baseline`);
 *   each check hashes the working tree again and lists the paths between the two trees
 *   with `git diff-tree --no-renames` (a rename is its old and its new path). Outside git
 *   the check cannot be evaluated and says so: it never passes in silence.
 * - `command`: a shell command run in the workspace through the process runner with a
 *   timeout; exit 0 keeps the constraint, another exit code violates it, and a command
 *   that cannot run (not found, not executable, killed at its timeout) is an error shown
 *   as such, never a pass.
 */
import { createRequire } from 'node:module';
import { describeError } from './errors.js';
import { gitSnapshot } from './git-progress.js';
import { runGit } from './git.js';
import { escapedNote, runShell } from './process.js';

/** A constraint as loop.yaml gives it: a text, or a text with checks. `timeout` in seconds. */
export type ConstraintSpec = string | { text: string; protect?: string[]; command?: string; timeout?: number };

/** The check of a constraint that produced a finding. */
export type ConstraintCheck = 'protect' | 'command';

/** What one check of one constraint found at a checkpoint. */
export type ConstraintFinding =
  | { outcome: 'kept'; index: number; text: string; check: ConstraintCheck }
  /** `paths`: protected paths that changed (at most {@link MAX_LISTED_PATHS}; `changed` counts them all); `exit_code`: the command's. */
  | { outcome: 'violated'; index: number; text: string; check: ConstraintCheck; paths?: string[]; changed?: number; exit_code?: number; output?: string }
  /** The check could not be evaluated: `error` says why (never counted as kept). */
  | { outcome: 'error'; index: number; text: string; check: ConstraintCheck; error: string };

/** The starting tree the protect checks compare with, as `session.start` records it. */
export interface ProtectBaseline {
  /** Tree hash of the working tree at start; `null` when it could not be taken. */
  tree: string | null;
  /** Why there is no tree (not a git repository, git failed). */
  error?: string;
}

/** Most changed paths a finding lists. */
export const MAX_LISTED_PATHS = 50;

/** Default seconds a constraint's command may run. */
export const DEFAULT_CONSTRAINT_TIMEOUT = 120;

type Matcher = (path: string) => boolean;
type Picomatch = (patterns: string[], options: { dot: boolean }) => Matcher;
let picomatchModule: Picomatch | undefined;
/**
 * picomatch's matcher of `patterns` (`/`-separated paths on every platform: its `posix`
 * build; `dot`: whether `*` matches names that start with a dot). picomatch ships no
 * types; this is the one call loopdeck makes. Loaded on first use: the console imports
 * this module for its texts alone.
 * @throws Error naming the pattern when picomatch cannot read it
 */
export const picomatch: Picomatch = (patterns, options) => {
  picomatchModule ??= createRequire(import.meta.url)('picomatch/posix.js') as Picomatch;
  return picomatchModule(patterns, options);
};

/** The text of a constraint, whichever form it has. */
export function constraintText(spec: ConstraintSpec): string {
  return typeof spec === 'string' ? spec : spec.text;
}

/** Whether any constraint carries a check. */
export function hasChecks(specs: readonly ConstraintSpec[]): boolean {
  return specs.some((s) => typeof s !== 'string' && (s.protect !== undefined || s.command !== undefined));
}

/**
 * Compiles protect patterns. `**` matches any depth, `*` one path segment; a pattern is
 * matched against the whole path from the workspace's root (`**\/x` for any folder).
 * @throws Error naming the pattern when picomatch cannot read it
 */
export function protectMatcher(patterns: readonly string[]): Matcher {
  return picomatch([...patterns], { dot: true });
}

/**
 * The tree the protect checks compare with: the working tree as the run starts, or why
 * there is none. Taken only when a constraint has a `protect` check.
 */
export async function protectBaseline(workspace: string): Promise<ProtectBaseline> {
  try {
    // null outside a git working tree
    const snapshot = await gitSnapshot(workspace);
    return snapshot ? { tree: snapshot.tree } : { tree: null, error: 'the workspace is not a git repository: changed paths cannot be listed' };
  } catch (error) {
    return { tree: null, error: `git could not record the starting tree: ${describeError(error)}` };
  }
}

/**
 * Paths (relative to `workspace`) that differ between `base` and the working tree now,
 * loopdeck's own `.loopdeck/` left out.
 * @param current the working tree's hash if it was just taken (after this very step), else it is taken here
 * @throws Error when the workspace is no longer a repository or git fails (e.g. the starting tree was pruned)
 */
export async function changedSince(workspace: string, base: string, current?: string): Promise<string[]> {
  const now = current ?? (await gitSnapshot(workspace))?.tree;
  if (now === undefined) throw new Error('the workspace is no longer a git repository');
  const where = await runGit(workspace, ['rev-parse', '--show-toplevel', '--show-prefix']);
  if (where.exitCode !== 0) throw new Error(`git rev-parse in ${workspace} failed (exit ${where.exitCode}): ${where.stderr.trim()}`);
  const [top = '', inside = ''] = where.stdout.split('\n').map((line) => line.trim());
  const diff = await runGit(top, ['diff-tree', '-r', '-z', '--no-renames', '--name-only', base, now]);
  if (diff.exitCode !== 0) throw new Error(`git diff-tree ${base.slice(0, 12)} failed (exit ${diff.exitCode}): ${diff.stderr.trim()}`);
  return diff.stdout
    .split('\0')
    .filter((p) => p !== '' && p.startsWith(inside))
    .map((p) => p.slice(inside.length))
    .filter((p) => p !== '.loopdeck' && !p.startsWith('.loopdeck/'));
}

/** The protect check of constraint `index` against the starting tree. */
async function checkProtect(index: number, text: string, patterns: string[], workspace: string, baseline: ProtectBaseline | undefined, current?: string): Promise<ConstraintFinding> {
  const base = { index, text, check: 'protect' as const };
  if (!baseline) return { ...base, outcome: 'error', error: 'no starting tree was recorded when the run started: changed paths cannot be listed' };
  if (baseline.tree === null) return { ...base, outcome: 'error', error: baseline.error ?? 'no starting tree' };
  let changed: string[];
  try {
    changed = await changedSince(workspace, baseline.tree, current);
  } catch (error) {
    return { ...base, outcome: 'error', error: describeError(error) };
  }
  const hits = changed.filter(protectMatcher(patterns));
  if (hits.length === 0) return { ...base, outcome: 'kept' };
  return { ...base, outcome: 'violated', paths: hits.slice(0, MAX_LISTED_PATHS), changed: hits.length };
}

/** The command check of constraint `index`: exit 0 keeps it; a command that cannot run is an error. */
async function checkCommand(index: number, text: string, command: string, timeout: number, workspace: string, signal?: AbortSignal): Promise<ConstraintFinding> {
  const base = { index, text, check: 'command' as const };
  const result = await runShell(command, { cwd: workspace, timeoutSeconds: timeout, outputLimitBytes: 2048, ...(signal ? { signal } : {}) });
  const escaped = escapedNote(result.escaped);
  const output = [escaped, result.output.trim()].filter((t) => t !== '').join('\n');
  if (result.spawn_error) return { ...base, outcome: 'error', error: `${command} could not start: ${result.spawn_error}` };
  if (result.killed === 'timeout') return { ...base, outcome: 'error', error: `${command} timed out after ${timeout}s` };
  if (result.killed) return { ...base, outcome: 'error', error: `${command} was killed: the run was ${result.killed === 'quit' ? 'quit' : 'aborted'}` };
  if (result.exit_code === null) return { ...base, outcome: 'error', error: `${command} ended without an exit code` };
  // sh's own codes: 127 the program was not found, 126 it could not be executed.
  if (result.exit_code === 127 || result.exit_code === 126) {
    const why = result.exit_code === 127 ? 'not found' : 'not executable';
    return { ...base, outcome: 'error', error: `${command} could not run (exit ${result.exit_code}: ${why})${output ? `: ${output.slice(-300)}` : ''}` };
  }
  if (result.exit_code === 0) return { ...base, outcome: 'kept' };
  return { ...base, outcome: 'violated', exit_code: result.exit_code, ...(output ? { output: output.slice(-1000) } : {}) };
}

/** Options of {@link checkConstraints}. */
export interface CheckOptions {
  /** The working tree's hash if a snapshot was just taken after the step being checked. */
  current?: string;
  /** Kills a running command check when the run is stopped. */
  signal?: AbortSignal;
}

/**
 * Evaluates every check of every constraint, in order: one finding per check (a constraint
 * with both `protect` and `command` gives two). Plain texts give none.
 */
export async function checkConstraints(
  specs: readonly ConstraintSpec[],
  workspace: string,
  baseline: ProtectBaseline | undefined,
  options: CheckOptions = {},
): Promise<ConstraintFinding[]> {
  const { current, signal } = options;
  const findings: ConstraintFinding[] = [];
  for (const [index, spec] of specs.entries()) {
    if (typeof spec === 'string') continue;
    if (spec.protect) findings.push(await checkProtect(index, spec.text, spec.protect, workspace, baseline, current));
    if (spec.command) findings.push(await checkCommand(index, spec.text, spec.command, spec.timeout ?? DEFAULT_CONSTRAINT_TIMEOUT, workspace, signal));
  }
  return findings;
}

/** One line naming a finding that is not `kept`: the constraint, and the paths, exit code or error. */
export function describeFinding(f: ConstraintFinding): string {
  if (f.outcome === 'kept') return `constraint "${f.text}" kept`;
  if (f.outcome === 'error') return `constraint "${f.text}" could not be checked (${f.check}): ${f.error}`;
  if (f.check === 'protect') {
    const more = (f.changed ?? 0) > (f.paths?.length ?? 0) ? ` and ${(f.changed ?? 0) - (f.paths?.length ?? 0)} more` : '';
    return `constraint "${f.text}" violated: protected paths changed since the run started: ${(f.paths ?? []).join(', ')}${more}`;
  }
  return `constraint "${f.text}" violated: its check exited ${f.exit_code}`;
}
