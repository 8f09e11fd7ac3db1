import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { observe, parseTap } from '../../src/engine/observe.js';
import type { ParserName } from '../../src/engine/parsers/index.js';

/** A tiny node:test suite: 3 passing (one named with "error", one with "#"), 1 failing. */
const SUITE = `import test from 'node:test';
import assert from 'node:assert/strict';
test('adds numbers', () => { assert.equal(1 + 1, 2); });
test('reports an error for empty input', () => { assert.throws(() => { throw new Error('empty'); }); });
test('keeps issue #12 fixed', () => { assert.ok(true); });
test('round-trips accented names', () => { assert.equal('Jos\\u0065\\u0301', 'Jos\\u00e9'); });
`;

const EXPECTED_TESTS = [
  { name: 'adds numbers', ok: true },
  { name: 'reports an error for empty input', ok: true },
  { name: 'keeps issue #12 fixed', ok: true },
  { name: 'round-trips accented names', ok: false },
];

/** The environment for a child `node --test`, without anything that would nest it in a runner. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  delete env.VITEST;
  return env;
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-observe-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Writes `report.txt` in the test's folder, for a command to print. */
function writeReport(text: string): void {
  fs.writeFileSync(path.join(dir, 'report.txt'), text);
}

describe('parseTap on real node --test output', () => {
  it('counts 3 passing, 1 failing, 4 total and names each test', () => {
    fs.writeFileSync(path.join(dir, 'suite.test.mjs'), SUITE);
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap'], { cwd: dir, env: cleanEnv(), encoding: 'utf8' });
    expect(run.status).toBe(1); // one test fails
    expect(run.stdout).toContain('TAP version');
    const report = parseTap(run.stdout);
    expect(report).toEqual({ passing: 3, failing: 1, total: 4, tests: EXPECTED_TESTS });
  });
});

describe('parseTap on text', () => {
  it('returns null for garbage', () => {
    expect(parseTap('garbage')).toBeNull();
  });

  it('returns null for an empty output (a crash is not zero failures)', () => {
    expect(parseTap('')).toBeNull();
  });

  it('returns null when the fail count is absent', () => {
    expect(parseTap('TAP version 13\nok 1 - a\n1..1\n# tests 1\n# pass 1\n')).toBeNull();
  });

  it('counts cancelled tests as failing', () => {
    const tap = [
      'TAP version 13',
      'ok 1 - a',
      'not ok 2 - b',
      'not ok 3 - c',
      '1..3',
      '# tests 3',
      '# pass 1',
      '# fail 1',
      '# cancelled 1',
      '# skipped 0',
      '# todo 0',
    ].join('\n');
    expect(parseTap(tap)).toEqual({
      passing: 1,
      failing: 2,
      total: 3,
      tests: [
        { name: 'a', ok: true },
        { name: 'b', ok: false },
        { name: 'c', ok: false },
      ],
    });
  });

  it('does not count a "# pass" diagnostic written by a test before the real summary', () => {
    const tap = ['TAP version 13', '# ok 7 - injected', '# pass 99', 'ok 1 - a', '1..1', '# tests 1', '# pass 1', '# fail 0'].join('\n');
    expect(parseTap(tap)).toEqual({ passing: 1, failing: 0, total: 1, tests: [{ name: 'a', ok: true }] });
  });
});

describe('observe', () => {
  it('maps a real test run to tests.failing / passing / total and per-test outcomes', async () => {
    fs.writeFileSync(path.join(dir, 'suite.test.mjs'), SUITE);
    const observation = await observe([{ name: 'tests', command: 'node --test --test-reporter=tap', parser: 'tap', timeout: 60 }], dir);
    expect(observation).toEqual({
      metrics: { 'tests.failing': 1, 'tests.passing': 3, 'tests.total': 4 },
      tests: EXPECTED_TESTS.map((t) => ({ ...t, observer: 'tests' })),
      skipped: [],
      errors: [],
    });
  });

  /** A report of no test at all, as each parser reads one. */
  const NO_TESTS: ReadonlyArray<readonly [ParserName, string]> = [
    ['tap', 'TAP version 13\n1..0\n# tests 0\n# suites 0\n# pass 0\n# fail 0\n'],
    ['jest-json', '{"numTotalTests":0,"numPassedTests":0,"numFailedTests":0,"numPendingTests":0,"numTodoTests":0,"testResults":[],"success":false}'],
    ['vitest-json', '{"numTotalTestSuites":0,"numTotalTests":0,"numPassedTests":0,"numFailedTests":0,"numPendingTests":0,"numTodoTests":0,"testResults":[],"success":false}'],
    ['junit', '<testsuites tests="0" failures="0" errors="0"><testsuite name="pytest" tests="0" errors="0" failures="0" skipped="0"></testsuite></testsuites>\n'],
  ];

  it.each(NO_TESTS)('%s: a report of no test at all from a command that failed measured nothing; from one that passed, zero tests', async (parser, report) => {
    writeReport(report);
    const failed = await observe([{ name: 't', command: 'cat report.txt; exit 1', parser, timeout: 10 }], dir);
    expect(failed.metrics).toEqual({ 't.failing': null, 't.passing': null, 't.total': null });
    expect(failed.errors).toEqual([expect.stringMatching(/^observer "t" \(cat report\.txt; exit 1\): its report has no test at all, and the command failed \(exit 1\)/)]);
    const passed = await observe([{ name: 't', command: 'cat report.txt', parser, timeout: 10 }], dir);
    expect(passed).toMatchObject({ metrics: { 't.failing': 0, 't.passing': 0, 't.total': 0 }, errors: [] });
  });

  it('a real vitest run that finds no test file (a config from elsewhere, a wrong folder) measured nothing', async () => {
    const vitest = path.resolve(import.meta.dirname, '../../node_modules/vitest/vitest.mjs');
    const command = `node ${vitest} run --reporter=json --root .`;
    const observation = await observe([{ name: 'tests', command, parser: 'vitest-json', timeout: 60 }], dir);
    expect(observation.metrics).toEqual({ 'tests.failing': null, 'tests.passing': null, 'tests.total': null });
    expect(observation.errors[0]).toMatch(/its report has no test at all, and the command failed \(exit 1\)/);
  }, 60_000);

  it('a command that cannot be found gives missing metrics and an error', async () => {
    const command = 'loopdeck-no-such-command-7f3a';
    const observation = await observe([{ name: 'tests', command, parser: 'tap', timeout: 10 }], dir);
    expect(observation.metrics).toEqual({ 'tests.failing': null, 'tests.passing': null, 'tests.total': null });
    expect(observation.tests).toEqual([]);
    expect(observation.errors).toHaveLength(1);
    expect(observation.errors[0]).toMatch(/^observer "tests" \(loopdeck-no-such-command-7f3a\): .*\(exit 127\)/);
  });

  it('a command that times out gives missing metrics and an error, within the timeout', async () => {
    const started = Date.now();
    const observation = await observe([{ name: 'slow', command: 'sleep 5', parser: 'tap', timeout: 1 }], dir);
    const elapsed = Date.now() - started;
    expect(observation.metrics).toEqual({ 'slow.failing': null, 'slow.passing': null, 'slow.total': null });
    expect(observation.errors).toEqual(['observer "slow" (sleep 5): timed out after 1s']);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(4000);
  });

  it('keeps what one observer measured when another fails', async () => {
    fs.writeFileSync(path.join(dir, 'suite.test.mjs'), SUITE);
    const observation = await observe(
      [
        { name: 'lint', command: 'echo all good', parser: 'tap', timeout: 10 },
        { name: 'tests', command: 'node --test --test-reporter=tap', parser: 'tap', timeout: 60 },
      ],
      dir,
    );
    expect(observation.metrics).toEqual({
      'lint.failing': null,
      'lint.passing': null,
      'lint.total': null,
      'tests.failing': 1,
      'tests.passing': 3,
      'tests.total': 4,
    });
    expect(observation.errors).toHaveLength(1);
    expect(observation.errors[0]).toMatch(/^observer "lint" \(echo all good\): no tap \w+ in its output \(exit 0\)/i);
  });
});
