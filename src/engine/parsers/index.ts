import { stripVTControlCharacters } from 'node:util';
import type { TestOutcome } from '../types.js';
import { ConfigError } from '../errors.js';
import { assertNever } from '../events.js';
import { parseJestJson } from './jest-json.js';
import { parseJunit } from './junit.js';
import { compileMetricPattern, parseRegex } from './regex.js';
import { parseTap, tapTestPoints } from './tap.js';
import { renderTerminalText } from './terminal-text.js';
import type { ParsedOutput, TestReport } from './types.js';
import { parseVitestJson } from './vitest-json.js';

export { parseJestJson } from './jest-json.js';
export { parseJunit } from './junit.js';
export { compileMetricPattern, parseRegex, type RegexParserOptions } from './regex.js';
export { parseTap } from './tap.js';
export { parseVitestJson } from './vitest-json.js';
export { renderTerminalText } from './terminal-text.js';
export { findJsonObject } from './json-object.js';
export type { MetricReport, ParsedOutput, TestReport } from './types.js';

/**
 * TAP read as a terminal draws it, its counts included, but only with the test points the
 * lines hold as written (escape sequences removed, not applied): a redraw may change a
 * count as the operator saw it, never make a test point. A test whose name moves the
 * cursor (`ESC[1G ok 1 - <a target's name>`) or a comment drawn over into an `ok` line (a
 * test printing `ESC[2K ESC[1G ok 1 - ...`) is then no test point at all, so it can pass
 * for no target test.
 */
function parseTapAsDrawn(output: string): TestReport | null {
  const drawn = parseTap(renderTerminalText(output));
  if (drawn === null || !/[\x00-\x08\x0b-\x1f\x7f\x9b]/.test(output)) return drawn;
  const written = tapTestPoints(stripVTControlCharacters(output));
  const tests = common(drawn.tests, written.tests, (t: TestOutcome) => `${t.ok}\0${t.name}`);
  const skipped = common(drawn.skipped ?? [], written.skipped, (name: string) => name);
  const { skipped: _drawnSkipped, ...counts } = drawn;
  return skipped.length > 0 ? { ...counts, tests, skipped } : { ...counts, tests };
}

/** The items of `drawn` that `written` holds too, as many times as it holds them, in `drawn`'s order. */
function common<T>(drawn: readonly T[], written: readonly T[], key: (item: T) => string): T[] {
  const left = new Map<string, number>();
  for (const item of written) left.set(key(item), (left.get(key(item)) ?? 0) + 1);
  return drawn.filter((item) => {
    const n = left.get(key(item)) ?? 0;
    if (n > 0) left.set(key(item), n - 1);
    return n > 0;
  });
}

/** The parsers an `observe` entry can name. */
export const PARSERS = ['tap', 'vitest-json', 'jest-json', 'junit', 'regex'] as const;
/** One of {@link PARSERS}. */
export type ParserName = (typeof PARSERS)[number];

/** The metrics a test parser gives, after the observer's prefix: `tests.failing`, ... */
export const TEST_METRICS = ['failing', 'passing', 'total'] as const;

/** Options of {@link parseOutput}. */
export interface ParseOptions {
  /** Metric prefix (the observer's name); names the `regex` parser's metrics. */
  prefix: string;
  /** The `regex` parser's pattern; required for it, ignored by the others. */
  pattern?: string;
}

/**
 * Reads `output` with the named parser. The text parsers (`tap`, `regex`) read it as a
 * terminal would draw it ({@link renderTerminalText}): a line redrawn after `\r` or by a
 * cursor move counts as redrawn, and no escape sequence can add or change a digit. The
 * JSON and XML parsers read their structured text as it is. Returns `{ type: 'tests' }` for the test
 * parsers and `{ type: 'metrics' }` for `regex`, or `null` when the output holds no
 * report the parser recognises (which the caller treats as an observer error, never as
 * zero).
 *
 * @throws ConfigError when `regex` has no `pattern` or an invalid one.
 */
export function parseOutput(parser: ParserName, output: string, options: ParseOptions): ParsedOutput | null {
  switch (parser) {
    case 'tap':
      return asTests(parseTapAsDrawn(output));
    case 'vitest-json':
      return asTests(parseVitestJson(output));
    case 'jest-json':
      return asTests(parseJestJson(output));
    case 'junit':
      return asTests(parseJunit(output));
    case 'regex': {
      const report = parseRegex(renderTerminalText(output), { pattern: requirePattern(options.pattern), prefix: options.prefix });
      return report ? { type: 'metrics', report } : null;
    }
    default:
      return assertNever(parser);
  }
}

/**
 * The full names of the metrics an observer gives when it works, in a stable order:
 * `<prefix>.failing`, `<prefix>.passing`, `<prefix>.total` for test parsers, and
 * `<prefix>.<group>` for each named group of a `regex` pattern. These are the names set
 * to `null` (missing) when the observer fails.
 *
 * @throws ConfigError when `regex` has no `pattern` or an invalid one.
 */
export function metricNames(parser: ParserName, options: ParseOptions): string[] {
  if (parser === 'regex') return compileMetricPattern(requirePattern(options.pattern)).groups.map((g) => `${options.prefix}.${g}`);
  return TEST_METRICS.map((key) => `${options.prefix}.${key}`);
}

/** Maps a parsed output to named metric values (`<prefix>.failing`, `<prefix>.coverage`, ...). */
export function toMetrics(parsed: ParsedOutput, prefix: string): Record<string, number> {
  if (parsed.type === 'metrics') return { ...parsed.report.metrics };
  const { failing, passing, total } = parsed.report;
  return { [`${prefix}.failing`]: failing, [`${prefix}.passing`]: passing, [`${prefix}.total`]: total };
}

function asTests(report: ReturnType<typeof parseTap>): ParsedOutput | null {
  return report ? { type: 'tests', report } : null;
}

function requirePattern(pattern: string | undefined): string {
  if (pattern === undefined || pattern === '') {
    throw new ConfigError('loop.yaml', 'observe.pattern', 'expected a pattern with named groups for the regex parser');
  }
  return pattern;
}
