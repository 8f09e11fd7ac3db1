import vm from 'node:vm';
import { ConfigError } from '../errors.js';
import type { MetricReport } from './types.js';

/** Options of {@link parseRegex}. */
export interface RegexParserOptions {
  /** A JavaScript regular expression with named groups, e.g. `coverage: (?<coverage>\d+(\.\d+)?)%`. */
  pattern: string;
  /** Metric prefix (the observer's name): group `coverage` gives `<prefix>.coverage`. */
  prefix: string;
}

/**
 * Compiles an observer's `pattern` with the `g` and `m` flags (`^` and `$` match at line
 * ends) and lists its named groups, in the order they appear.
 *
 * @throws ConfigError when the pattern is not a valid regular expression or has no
 *   named group (it could never measure anything).
 */
export function compileMetricPattern(pattern: string): { regex: RegExp; groups: string[] } {
  let regex: RegExp;
  let groups: string[];
  try {
    regex = new RegExp(pattern, 'gm');
    // An empty alternative always matches, so every group name shows up (undefined).
    groups = Object.keys(new RegExp(`(?:${pattern})|`).exec('')?.groups ?? {});
  } catch (error) {
    throw new ConfigError('loop.yaml', 'observe.pattern', `expected a valid regular expression: ${(error as Error).message}`);
  }
  if (groups.length === 0) {
    throw new ConfigError('loop.yaml', 'observe.pattern', 'expected at least one named group, like (?<coverage>\\d+)');
  }
  return { regex, groups };
}

/** How long one observer's pattern may search its output, in ms. A sane pattern reads megabytes in far less. */
export const MATCH_TIMEOUT_MS = 1000;

/** Where patterns run: a context of its own, so that a search can be stopped when it runs too long. */
let matchContext: vm.Context | null = null;
const LAST_MATCH = new vm.Script(
  "(() => { let last = null; for (const m of output.matchAll(new RegExp(pattern, 'gm'))) last = m; return last && last.groups ? { ...last.groups } : null; })()",
);

/**
 * The named groups of the last match of `pattern` (flags `gm`) in `output`, or `null`.
 * The search runs with a time limit: a pattern that backtracks catastrophically on this
 * output (`(a+)+b` against a long run of `a`) would otherwise hold the whole process,
 * keys and signals included, for minutes. The output is the workspace's, which the agent
 * can shape.
 * @throws ConfigError naming `observe.pattern` when the search takes longer than `timeoutMs`
 */
function lastMatchGroups(pattern: string, output: string, timeoutMs: number): Record<string, string | undefined> | null {
  matchContext ??= vm.createContext({});
  matchContext.pattern = pattern;
  matchContext.output = output;
  try {
    return LAST_MATCH.runInContext(matchContext, { timeout: timeoutMs }) as Record<string, string | undefined> | null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
    throw new ConfigError(
      'loop.yaml',
      'observe.pattern',
      `a pattern that finishes on this output: the search was stopped after ${timeoutMs / 1000}s on ${output.length} characters (nested quantifiers such as (a+)+ backtrack without end; make the groups exclusive)`,
    );
  } finally {
    matchContext.output = '';
  }
}

/**
 * Reads numbers from free-form output with a user regex. The last match in the output
 * wins (summaries are usually printed last); each named group of it whose text is a
 * finite number (`Number(text)`, after trimming) becomes the metric `<prefix>.<group>`,
 * and a group that did not take part or is not a number is left out (missing). Returns
 * `null` when nothing matches or no group of the match is a number.
 *
 * @throws ConfigError when the pattern is invalid (see {@link compileMetricPattern}), or
 *   when its search takes longer than `timeoutMs` (ms) on this output
 */
export function parseRegex(output: string, options: RegexParserOptions, timeoutMs = MATCH_TIMEOUT_MS): MetricReport | null {
  compileMetricPattern(options.pattern);
  const groups = lastMatchGroups(options.pattern, output, timeoutMs);
  if (!groups) return null;
  const metrics: Record<string, number> = {};
  for (const [group, text] of Object.entries(groups)) {
    if (text === undefined || text.trim() === '') continue;
    const value = Number(text.trim());
    if (Number.isFinite(value)) metrics[`${options.prefix}.${group}`] = value;
  }
  return Object.keys(metrics).length > 0 ? { metrics } : null;
}
