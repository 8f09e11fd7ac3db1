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

/**
 * Reads numbers from free-form output with a user regex. The last match in the output
 * wins (summaries are usually printed last); each named group of it whose text is a
 * finite number (`Number(text)`, after trimming) becomes the metric `<prefix>.<group>`,
 * and a group that did not take part or is not a number is left out (missing). Returns
 * `null` when nothing matches or no group of the match is a number.
 *
 * @throws ConfigError when the pattern is invalid (see {@link compileMetricPattern}).
 */
export function parseRegex(output: string, options: RegexParserOptions): MetricReport | null {
  const { regex } = compileMetricPattern(options.pattern);
  let last: RegExpExecArray | undefined;
  for (const match of output.matchAll(regex)) last = match;
  if (!last?.groups) return null;
  const metrics: Record<string, number> = {};
  for (const [group, text] of Object.entries(last.groups)) {
    if (text === undefined || text.trim() === '') continue;
    const value = Number(text.trim());
    if (Number.isFinite(value)) metrics[`${options.prefix}.${group}`] = value;
  }
  return Object.keys(metrics).length > 0 ? { metrics } : null;
}
