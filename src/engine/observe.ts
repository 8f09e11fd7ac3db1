import type { ObservedMetrics, TestOutcome } from './types.js';
import { runShell } from './process.js';

/** Counts and per-test outcomes read from a test runner's structured output. */
export interface TestReport {
  passing: number;
  failing: number;
  total: number;
  tests: TestOutcome[];
}

/**
 * Parses TAP 13/14 as written by `node --test --test-reporter=tap`.
 *
 * Counts come from the runner's own `# pass N` / `# fail N` summary; per-test outcomes
 * from top-level `ok N - name` / `not ok N - name` lines (subtests are indented and
 * skipped). Returns `null` when the output has no TAP summary, so a crash is never
 * read as zero failures.
 */
export function parseTap(output: string): TestReport | null {
  const summary: Record<string, number> = {};
  const tests: TestOutcome[] = [];
  for (const line of output.split(/\r?\n/)) {
    const count = /^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
    if (count) summary[count[1]!] = Number(count[2]);
    const point = /^(not ok|ok) \d+ - (.*?)(?:\s+#\s+(?:SKIP|TODO)\b.*)?$/.exec(line);
    if (point) tests.push({ name: unescapeTap(point[2]!), ok: point[1] === 'ok' });
  }
  if (summary.pass === undefined || summary.fail === undefined) return null;
  const failing = summary.fail + (summary.cancelled ?? 0);
  return { passing: summary.pass, failing, total: summary.tests ?? summary.pass + failing, tests };
}

function unescapeTap(name: string): string {
  return name.replace(/\\#/g, '#').replace(/\\\\/g, '\\');
}

/** One `observe` entry of loop.yaml. */
export interface ObserverSpec {
  /** Metric prefix: `tests` gives `tests.failing`, `tests.passing`, `tests.total`. */
  name: string;
  command: string;
  parser: 'tap';
  /** Seconds. */
  timeout: number;
}

/** What one round of observation measured. Missing metrics are `null`. */
export interface Observation {
  metrics: ObservedMetrics;
  tests: TestOutcome[];
  errors: string[];
}

/**
 * Runs each observer command in the workspace and maps its output to metrics.
 * A failing test command is a valid observation; a command that cannot start, times out
 * or prints no parsable report is an observer error and its metrics are missing (`null`).
 */
export async function observe(specs: readonly ObserverSpec[], cwd: string): Promise<Observation> {
  const metrics: ObservedMetrics = {};
  const tests: TestOutcome[] = [];
  const errors: string[] = [];
  for (const spec of specs) {
    const result = await runShell(spec.command, { cwd, timeoutSeconds: spec.timeout, outputLimitBytes: 4 * 1024 * 1024 });
    const report = result.timed_out || result.spawn_error ? null : parseTap(result.output);
    if (report) {
      metrics[`${spec.name}.failing`] = report.failing;
      metrics[`${spec.name}.passing`] = report.passing;
      metrics[`${spec.name}.total`] = report.total;
      tests.push(...report.tests);
      continue;
    }
    for (const key of ['failing', 'passing', 'total']) metrics[`${spec.name}.${key}`] = null;
    const why = result.timed_out
      ? `timed out after ${spec.timeout}s`
      : result.spawn_error ?? `no ${spec.parser.toUpperCase()} summary in its output (exit ${result.exit_code})`;
    errors.push(`observer "${spec.name}" (${spec.command}): ${why}`);
  }
  return { metrics, tests, errors };
}
