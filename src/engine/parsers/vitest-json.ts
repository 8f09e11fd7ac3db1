import { parseJestJson } from './jest-json.js';
import type { TestReport } from './types.js';

/**
 * Parses the report of `vitest run --reporter=json`, which is jest-compatible
 * (`numPassedTests`, `numFailedTests`, `testResults[].assertionResults[]` with
 * `fullName`, `title` and `status`); vitest's `skipped` and `todo` statuses are excluded
 * like jest's `pending`. Same rules as {@link parseJestJson}: a file that fails to import
 * counts as one failing test named after the file; `null` when no report is found.
 * Never throws.
 */
export function parseVitestJson(output: string): TestReport | null {
  return parseJestJson(output);
}
