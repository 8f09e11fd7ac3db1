import type { TestOutcome } from '../types.js';
import { findJsonObject, isRecord } from './json-object.js';
import type { TestReport } from './types.js';

/**
 * Parses the JSON report of `jest --json` (and any jest-compatible reporter).
 *
 * Counts come from the report's `numPassedTests` and `numFailedTests`; a test file that
 * failed without any failed test in it (it could not be imported, or a hook threw) adds
 * one failing test named after the file, so breaking a test file never reads as fewer
 * failures (when no test of it ran, it is marked `load_error`; every test is marked `in`
 * its file, so the tests of a file that loads again stand in for it). `total` is
 * `passing + failing`: pending, skipped, todo and disabled tests are excluded. Per-test outcomes come from `testResults[].assertionResults[]`, named by
 * `fullName` (ancestor titles and title joined by spaces, as jest prints them) or else
 * `title`; assertions of any other status (pending, skipped, todo, disabled) are named in
 * `skipped`. The JSON object may be surrounded by other text (see {@link findJsonObject});
 * words in it are never counted. Returns `null` when no jest-shaped report is found.
 * Never throws.
 */
export function parseJestJson(output: string): TestReport | null {
  const report = findJsonObject(output, isJestReport);
  if (!isJestReport(report)) return null;
  const tests: TestOutcome[] = [];
  const skipped: string[] = [];
  let brokenFiles = 0;
  for (const file of report.testResults) {
    if (!isRecord(file)) continue;
    const assertions = Array.isArray(file.assertionResults) ? file.assertionResults.filter(isRecord) : [];
    const fileName = typeof file.name === 'string' && file.name !== '' ? file.name : null;
    let failedInFile = false;
    for (const assertion of assertions) {
      if (assertion.status !== 'passed' && assertion.status !== 'failed') {
        skipped.push(testName(assertion));
        continue;
      }
      failedInFile ||= assertion.status === 'failed';
      tests.push({ name: testName(assertion), ok: assertion.status === 'passed', ...(fileName === null ? {} : { in: fileName }) });
    }
    if (file.status === 'failed' && !failedInFile) {
      brokenFiles++;
      // No test of it ran (it could not be loaded, or a hook before its tests threw): it stands for the tests it holds.
      const noneRan = assertions.every((assertion) => assertion.status !== 'passed' && assertion.status !== 'failed');
      tests.push({ name: fileName ?? '(test file)', ok: false, ...(fileName !== null && noneRan ? { load_error: true as const, in: fileName } : {}) });
    }
  }
  const failing = report.numFailedTests + brokenFiles;
  return { passing: report.numPassedTests, failing, total: report.numPassedTests + failing, tests, ...(skipped.length > 0 ? { skipped } : {}) };
}

interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: unknown[];
}

function isJestReport(value: unknown): value is JestReport {
  return isRecord(value) && isCount(value.numPassedTests) && isCount(value.numFailedTests) && Array.isArray(value.testResults);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function testName(assertion: Record<string, unknown>): string {
  if (typeof assertion.fullName === 'string' && assertion.fullName !== '') return assertion.fullName;
  const ancestors = Array.isArray(assertion.ancestorTitles) ? assertion.ancestorTitles.filter((t) => typeof t === 'string') : [];
  return [...ancestors, typeof assertion.title === 'string' ? assertion.title : ''].join(' ');
}
