import type { TestOutcome } from '../types.js';

/**
 * Counts and per-test outcomes read from a test runner's structured output.
 *
 * `total` is always `passing + failing`: tests that ran and got a verdict. Skipped and
 * todo tests are in none of the three counts and not in `tests`; their names are in
 * `skipped` (left out when there is none). `tests` lists the
 * outcomes the report names, in report order; its length can differ from `total` when
 * the runner counts tests that its report does not name individually.
 */
export interface TestReport {
  passing: number;
  failing: number;
  total: number;
  tests: TestOutcome[];
  /** Names of the tests the report lists as skipped, todo or pending, when there are any. */
  skipped?: string[];
}

/** Named numbers read from free-form output (the `regex` parser), keyed `<prefix>.<group>`. */
export interface MetricReport {
  metrics: Record<string, number>;
}

/** What one parser read from an observer's output: a test report, or plain metrics. */
export type ParsedOutput = { type: 'tests'; report: TestReport } | { type: 'metrics'; report: MetricReport };
