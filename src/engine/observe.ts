import { readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { LoopdeckError } from './errors.js';
import { metricNames, parseOutput, toMetrics, type ParserName } from './parsers/index.js';
import type { TestReport } from './parsers/types.js';
import { runShell, type CommandResult } from './process.js';
import { confine } from './tools.js';
import type { ObservedMetrics, SkippedTest, TestOutcome } from './types.js';

export { parseTap } from './parsers/tap.js';
export type { TestReport } from './parsers/types.js';

/** Bytes of command output (or of a report file) an observer keeps when its entry names no limit: 4 MiB. */
export const DEFAULT_OBSERVER_OUTPUT_LIMIT_BYTES = 4 * 1024 * 1024;

/** One `observe` entry of loop.yaml. */
export interface ObserverSpec {
  /** Metric prefix: `tests` gives `tests.failing`, `tests.passing`, `tests.total`. */
  name: string;
  /** Shell command, run with `sh -c` in the workspace. */
  command: string;
  /** How its output is read (docs/design.md, "Checkpoints and stagnation"). */
  parser: ParserName;
  /** For `regex` only: a pattern with named groups; each numeric group is a metric `<name>.<group>`. */
  pattern?: string;
  /**
   * Path, relative to the workspace and inside it, of a report the command writes
   * (`--outputFile`, `--junitxml`, `--test-reporter-destination`). When set, the parser
   * reads this file after the command instead of its output; the file must be written
   * or rewritten by this run.
   */
  report_file?: string;
  /** Seconds before the command's process group is killed. */
  timeout: number;
  /** Bytes of output kept (head and tail) and the largest report file read; default {@link DEFAULT_OBSERVER_OUTPUT_LIMIT_BYTES}. */
  output_limit_bytes?: number;
}

/** What one round of observation measured. Missing metrics are `null`. */
export interface Observation {
  /** Every metric each observer gives (`tests.failing`, `coverage.coverage`); `null` when it could not be measured. */
  metrics: ObservedMetrics;
  /** Per-test outcomes of all test observers, in spec order, each with its observer's name. */
  tests: TestOutcome[];
  /** Tests the observers' reports name as skipped (todo, pending), each with its observer's name. */
  skipped: SkippedTest[];
  /** One line per failed observer: `observer "<name>" (<command>): <why>`. */
  errors: string[];
  /** Why each failed observer gave nothing, by observer name (the `<why>` of `errors`). */
  failures?: Record<string, string>;
}

/**
 * Runs each observer command in the workspace `cwd`, one after another, and maps its
 * output (or its `report_file`) to metrics with its parser.
 *
 * A failing test command is a valid observation: its exit code is not read when the
 * parser finds a report, unless that report has no test at all. A command that cannot
 * start, is not found, times out, writes no report file, fails with a report of no test,
 * or whose output the parser cannot read is an observer error: its
 * metrics are all `null` (missing, never 0) and one line is added to `errors`. A bad
 * `pattern` or a `report_file` outside the workspace is reported the same way. For
 * `regex`, a named group that is not a number in the match is `null` without an error.
 * Rejects only on what is not the observer's fault (e.g. `cwd` does not exist).
 */
export async function observe(specs: readonly ObserverSpec[], cwd: string): Promise<Observation> {
  const metrics: ObservedMetrics = {};
  const tests: TestOutcome[] = [];
  const skipped: SkippedTest[] = [];
  const errors: string[] = [];
  const failures: Record<string, string> = {};
  for (const spec of specs) {
    const outcome = await observeOne(spec, cwd);
    Object.assign(metrics, outcome.metrics);
    for (const test of outcome.tests) tests.push({ ...test, observer: spec.name });
    for (const name of outcome.skipped) skipped.push({ name, observer: spec.name });
    if (outcome.error === undefined) continue;
    errors.push(`observer "${spec.name}" (${spec.command}): ${outcome.error}`);
    failures[spec.name] = outcome.error;
  }
  return { metrics, tests, skipped, errors, ...(errors.length > 0 ? { failures } : {}) };
}

/** What one observer gave: every one of its metrics (`null` when missing), and why it failed. */
interface ObserverOutcome {
  metrics: ObservedMetrics;
  tests: TestOutcome[];
  skipped: string[];
  error?: string;
}

async function observeOne(spec: ObserverSpec, cwd: string): Promise<ObserverOutcome> {
  const options = { prefix: spec.name, ...(spec.pattern !== undefined ? { pattern: spec.pattern } : {}) };
  const metrics: ObservedMetrics = {};
  try {
    for (const name of metricNames(spec.parser, options)) metrics[name] = null;
    const text = await readObservation(spec, cwd);
    if (text.type === 'error') return { metrics, tests: [], skipped: [], error: text.why };
    const parsed = parseOutput(spec.parser, text.output, options);
    if (!parsed) return { metrics, tests: [], skipped: [], error: unreadable(spec, text) };
    if (parsed.type === 'tests' && ranNothing(parsed.report) && text.result.exit_code !== 0) {
      return { metrics, tests: [], skipped: [], error: `its report has no test at all, and the command failed ${exitOf(text.result)}${lastLine(text.result.output)}` };
    }
    const report = parsed.type === 'tests' ? parsed.report : { tests: [], skipped: [] };
    return { metrics: { ...metrics, ...toMetrics(parsed, spec.name) }, tests: report.tests, skipped: report.skipped ?? [] };
  } catch (error) {
    // ConfigError (bad pattern) and ToolError (report_file outside the workspace).
    if (!(error instanceof LoopdeckError)) throw error;
    return { metrics, tests: [], skipped: [], error: error.message };
  }
}

/**
 * A test report that names no test, run, skipped or failing to load. From a command that
 * failed (vitest's "No test files found", pytest's exit 5, a runner that picked up another
 * project's config) it measured nothing: 0 failing and 0 passing would be a count the
 * harness never made, and a run of them would read as stagnation. From one that passed
 * (`--passWithNoTests`, a project with no tests yet) it is a measurement of zero tests.
 */
function ranNothing(report: TestReport): boolean {
  // `total` is `passing + failing` (TestReport): one count says both.
  return report.total === 0 && report.tests.length === 0 && (report.skipped ?? []).length === 0;
}

/** The text to parse (the command's output, or its report file), or why there is none. */
type ObservedText =
  | { type: 'text'; output: string; result: CommandResult; file?: string }
  | { type: 'error'; why: string };

/** Runs the command and returns the text to parse: its output, or its report file. */
async function readObservation(spec: ObserverSpec, cwd: string): Promise<ObservedText> {
  const limit = spec.output_limit_bytes ?? DEFAULT_OBSERVER_OUTPUT_LIMIT_BYTES;
  const before = spec.report_file === undefined ? null : await statOrNull(confine('observe', cwd, spec.report_file));
  const result = await runShell(spec.command, { cwd, timeoutSeconds: spec.timeout, outputLimitBytes: limit });
  if (result.timed_out) return { type: 'error', why: `timed out after ${spec.timeout}s` };
  if (result.spawn_error) return { type: 'error', why: `could not start: ${result.spawn_error}` };
  if (spec.report_file === undefined) return { type: 'text', output: result.output, result };
  const file = spec.report_file;
  // Confined again: the command may have replaced the path with a symlink.
  const real = confine('observe', cwd, file);
  const after = await statOrNull(real);
  if (!after?.isFile()) return { type: 'error', why: `wrote no report file "${file}" ${exitOf(result)}` };
  if (before && after.mtimeMs === before.mtimeMs && after.ctimeMs === before.ctimeMs && after.ino === before.ino) {
    return { type: 'error', why: `did not rewrite its report file "${file}" (it is left from an earlier run) ${exitOf(result)}` };
  }
  if (after.size > limit) return { type: 'error', why: `report file "${file}" is ${after.size} bytes, over the limit of ${limit}` };
  try {
    return { type: 'text', output: await readFile(real, 'utf8'), result, file };
  } catch (error) {
    return { type: 'error', why: `cannot read its report file "${file}": ${(error as Error).message}` };
  }
}

/** The error line for text the parser could not read, naming the likeliest cause. */
function unreadable(spec: ObserverSpec, text: Extract<ObservedText, { type: 'text' }>): string {
  const { result } = text;
  if (text.file !== undefined) return `no ${spec.parser} report in its report file "${text.file}" ${exitOf(result)}`;
  if (result.exit_code === 127) return `command not found ${exitOf(result)}${lastLine(result.output)}`;
  if (result.exit_code === 126) return `command could not be executed ${exitOf(result)}${lastLine(result.output)}`;
  const truncated = TRUNCATION_MARK.test(result.output) ? '; the output was truncated: raise output_limit_bytes or use report_file' : '';
  return `no ${spec.parser} report in its output ${exitOf(result)}${truncated}${lastLine(result.output)}`;
}

/** The marker `HeadTail` puts where it dropped output. */
const TRUNCATION_MARK = /\n\[\.\.\. \d+ characters truncated \.\.\.\]\n/;

function exitOf(result: CommandResult): string {
  return `(exit ${result.exit_code ?? 'none'})`;
}

/** Non-empty lines at the end of a failed command's output that an error quotes: the cause is often a line above the last (`npm error … missing packages`, then `npm error A complete log …`). */
const QUOTED_LINES = 3;

/** `: <the last non-empty lines, joined by ⏎>`, each at most 200 characters, or nothing. */
function lastLine(output: string): string {
  const lines = output
    .trimEnd()
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(-QUOTED_LINES)
    .map((line) => (line.length > 200 ? `${line.slice(0, 199)}…` : line));
  return lines.length === 0 ? '' : `: ${lines.join(' ⏎ ')}`;
}

/** `stat` of an existing path, `null` when there is nothing there (or it cannot be read). */
async function statOrNull(file: string): Promise<Stats | null> {
  try {
    return await stat(file);
  } catch {
    return null;
  }
}
