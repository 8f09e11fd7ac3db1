import { mkdtemp, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { observe, parseTap, type ObserverSpec } from '../../src/engine/observe.js';
import {
  findJsonObject,
  metricNames,
  parseJestJson,
  parseJunit,
  parseOutput,
  parseRegex,
  parseVitestJson,
  PARSERS,
} from '../../src/engine/parsers/index.js';

/** An observation without `failures`, after checking that it says per observer what `errors` says. */
function plain(observation: Awaited<ReturnType<typeof observe>>): Omit<Awaited<ReturnType<typeof observe>>, 'failures'> {
  const { failures, ...rest } = observation;
  const whys = Object.entries(failures ?? {});
  expect(whys).toHaveLength(rest.errors.length);
  for (const [name, why] of whys) expect(rest.errors.some((e) => e.startsWith(`observer "${name}"`) && e.endsWith(why))).toBe(true);
  return rest;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const VITEST_BIN = path.join(REPO, 'node_modules', '.bin', 'vitest');
const made: string[] = [];

/** A fresh project in the system temp dir (never inside the repo), with `files` written in it. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loopdeck-parsers-'));
  made.push(dir);
  const rel = path.relative(REPO, dir);
  expect(rel.startsWith('..') || path.isAbsolute(rel)).toBe(true);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

afterAll(async () => {
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

/** Two passing tests (one named "handles error input") and one failing, for node's runner. */
const NODE_SUITE = {
  'package.json': '{ "type": "module" }\n',
  'math.test.mjs': `import { test } from 'node:test';
import assert from 'node:assert/strict';
console.log('{"is_error": false, "error": "not a report"}');
test('adds numbers', () => assert.equal(1 + 1, 2));
test('handles error input', () => assert.throws(() => { throw new Error('error'); }, /error/));
test('rounds halves up', () => assert.equal(Math.round(2.5), 2));
`,
};

const NODE_TESTS = [
  { name: 'adds numbers', ok: true },
  { name: 'handles error input', ok: true },
  { name: 'rounds halves up', ok: false },
];

/** Outcomes as `observe` gives them: each with the name of the observer that reported it. */
const stamped = (tests: Array<{ name: string; ok: boolean; in?: string; load_error?: true }>, observer = 'tests') => tests.map((t) => ({ ...t, observer }));

function spec(overrides: Partial<ObserverSpec> & Pick<ObserverSpec, 'command' | 'parser'>): ObserverSpec {
  return { name: 'tests', timeout: 60, ...overrides };
}

describe('PARSERS', () => {
  it('lists the parser names an observe entry can use', () => {
    expect(PARSERS).toEqual(['tap', 'vitest-json', 'jest-json', 'junit', 'regex']);
  });

  it('names the metrics each parser gives', () => {
    expect(metricNames('junit', { prefix: 'tests' })).toEqual(['tests.failing', 'tests.passing', 'tests.total']);
    expect(metricNames('regex', { prefix: 'cov', pattern: '(?<lines>\\d+) (?<branches>\\d+)' })).toEqual(['cov.lines', 'cov.branches']);
  });
});

describe('tap: node --test --test-reporter=tap', () => {
  it('counts a real run, with "error" in a passing test name and JSON on stdout', async () => {
    const dir = await project(NODE_SUITE);
    const observation = await observe([spec({ command: 'node --test --test-reporter=tap', parser: 'tap' })], dir);
    expect(plain(observation)).toEqual({
      metrics: { 'tests.failing': 1, 'tests.passing': 2, 'tests.total': 3 },
      tests: stamped(NODE_TESTS),
      skipped: [],
      errors: [],
    });
  });

  it('names subtests after their parents and leaves out suites, skips and todos', async () => {
    const dir = await project({
      'package.json': '{ "type": "module" }\n',
      'nested.test.mjs': `import { describe, test } from 'node:test';
test('parent', async (t) => {
  await t.test('child ok', () => {});
  await t.test('child bad', () => { throw new Error('error'); });
});
test.todo('later', () => {});
describe('outer', () => {
  describe('inner', () => { test('deep # hashed', () => {}); });
  test.skip('skipped', () => {});
});
`,
    });
    const observation = await observe([spec({ command: 'node --test --test-reporter=tap', parser: 'tap' })], dir);
    expect(plain(observation)).toEqual({
      // node counts a test with subtests as a test of its own: it fails with its child.
      metrics: { 'tests.failing': 2, 'tests.passing': 2, 'tests.total': 4 },
      tests: stamped([
        { name: 'parent > child ok', ok: true },
        { name: 'parent > child bad', ok: false },
        { name: 'parent', ok: false },
        { name: 'outer > inner > deep # hashed', ok: true },
      ]),
      // Named, so that a target test that becomes skipped is seen as skipped, not as passing.
      skipped: [
        { name: 'later', observer: 'tests' },
        { name: 'outer > skipped', observer: 'tests' },
      ],
      errors: [],
    });
  });

  it("marks node's entry for a test file that cannot be loaded (named by its own location's file), and no other failing point", async () => {
    const dir = await project({
      'package.json': '{ "type": "module" }\n',
      "it's broken.test.mjs": "import './missing.mjs';\nimport test from 'node:test';\ntest('never runs', () => {});\n",
      'plain broken.test.mjs': "import './missing.mjs';\n",
      'back\\slash broken.test.mjs': "import './missing.mjs';\n",
      'fine.test.mjs': "import test from 'node:test';\ntest('fails', () => { throw new Error('x'); });\ntest('passes', () => {});\n",
    });
    const observation = await observe([spec({ command: 'node --test --test-reporter=tap', parser: 'tap' })], dir);
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect([...plain(observation).tests].sort(byName)).toEqual(
      stamped([
        { name: 'fails', ok: false },
        { name: 'passes', ok: true },
        { name: path.join(dir, 'back\\slash broken.test.mjs'), ok: false, load_error: true, in: path.join(dir, 'back\\slash broken.test.mjs') },
        { name: path.join(dir, "it's broken.test.mjs"), ok: false, load_error: true, in: path.join(dir, "it's broken.test.mjs") },
        { name: path.join(dir, 'plain broken.test.mjs'), ok: false, load_error: true, in: path.join(dir, 'plain broken.test.mjs') },
      ]).sort(byName),
    );
  });

  it('reads output with thousands of YAML blocks left open in linear time', () => {
    const output = `TAP version 13\n${'not ok 1 - f\n  ---\n'.repeat(20_000)}# pass 0\n# fail 20000\n`;
    const started = performance.now();
    expect(parseTap(output)?.failing).toBe(20_000);
    // Read to the end from each point, it took 10 s.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('returns null for output without a TAP summary', () => {
    expect(parseTap('TAP version 13\nok 1 - started\n')).toBeNull();
    expect(parseTap('1 error, 0 passed')).toBeNull();
  });
});

describe('junit', () => {
  it('counts node --test --test-reporter=junit on stdout', async () => {
    const dir = await project(NODE_SUITE);
    const observation = await observe([spec({ command: 'node --test --test-reporter=junit', parser: 'junit' })], dir);
    expect(plain(observation)).toEqual({
      metrics: { 'tests.failing': 1, 'tests.passing': 2, 'tests.total': 3 },
      // node's junit reporter gives every test case the classname "test".
      tests: stamped(NODE_TESTS.map((t) => ({ ...t, name: `test > ${t.name}`, in: 'test' }))),
      skipped: [],
      errors: [],
    });
  });

  it('reads a report_file the runner writes, and refuses one left from an earlier run', async () => {
    const dir = await project(NODE_SUITE);
    const written = spec({
      command: 'mkdir -p reports && node --test --test-reporter=junit --test-reporter-destination=reports/junit.xml',
      parser: 'junit',
      report_file: 'reports/junit.xml',
    });
    const first = await observe([written], dir);
    expect(plain(first)).toEqual({
      metrics: { 'tests.failing': 1, 'tests.passing': 2, 'tests.total': 3 },
      tests: stamped(NODE_TESTS.map((t) => ({ ...t, name: `test > ${t.name}`, in: 'test' }))),
      skipped: [],
      errors: [],
    });

    const stale = await observe([{ ...written, command: 'true' }], dir);
    expect(plain(stale)).toEqual({
      metrics: { 'tests.failing': null, 'tests.passing': null, 'tests.total': null },
      tests: [],
      skipped: [],
      errors: [
        'observer "tests" (true): did not rewrite its report file "reports/junit.xml" (it is left from an earlier run) (exit 0)',
      ],
    });
  });

  it('counts a pytest --junitxml report', () => {
    // Hand-written in pytest's format: pytest is not installed here.
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests">
  <testsuite name="pytest" errors="1" failures="1" skipped="2" tests="6" time="0.05" timestamp="2025-01-01T00:00:00" hostname="ci">
    <testcase classname="tests.test_parse" name="test_handles_error_input" time="0.001" />
    <testcase classname="tests.test_parse" name="test_is_error_false" time="0.001">
      <system-out>{"is_error": false, "error": null}</system-out>
    </testcase>
    <testcase classname="tests.test_parse" name="test_rounding" time="0.002">
      <failure message="assert 2 == 3">def test_rounding():
&gt;       assert round(2.5) == 3
E       assert 2 == 3</failure>
    </testcase>
    <testcase classname="tests.test_db" name="test_connect" time="0.000">
      <error message="failed on setup with &quot;ConnectionError&quot;">fixture 'db' raised</error>
    </testcase>
    <testcase classname="tests.test_db" name="test_flaky" time="0.000">
      <skipped type="pytest.skip" message="flaky">tests/test_db.py:9: flaky</skipped>
    </testcase>
    <testcase classname="tests.test_db" name="test_known_bug" time="0.000">
      <skipped type="pytest.xfail" message="known error" />
    </testcase>
  </testsuite>
</testsuites>`;
    expect(parseJunit(`============ 2 failed, 2 passed, 1 error in 0.05s ============\n${xml}\n`)).toEqual({
      passing: 2,
      failing: 2,
      total: 4,
      tests: [
        { name: 'tests.test_parse > test_handles_error_input', ok: true, in: 'tests.test_parse' },
        { name: 'tests.test_parse > test_is_error_false', ok: true, in: 'tests.test_parse' },
        { name: 'tests.test_parse > test_rounding', ok: false, in: 'tests.test_parse' },
        { name: 'tests.test_db > test_connect', ok: false, in: 'tests.test_db' },
      ],
      skipped: ['tests.test_db > test_flaky', 'tests.test_db > test_known_bug'],
    });
  });

  it("reads pytest's entry for a module it could not collect as a load error, not a test", () => {
    // As pytest 9 writes it for `import missing_mod` in tests/test_x.py (the session stops there).
    const xml =
      '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="0" skipped="0" tests="1">' +
      '<testcase classname="" name="tests.test_x" time="0.000"><error message="collection failure">ImportError while importing test module \'tests/test_x.py\'.\nE   ModuleNotFoundError: No module named \'missing_mod\'</error></testcase>' +
      '<testcase classname="" name="setup_only" time="0.000"><error message="failed on setup">fixture raised</error></testcase>' +
      // A class it could not collect (a parametrize naming no argument): named by the class, its module the classname.
      '<testcase classname="tests.test_c" name="TestC" time="0.000"><error message="collection failure">In test_m: function uses no argument \'y\'</error></testcase>' +
      '<testcase classname="tests.test_c" name="test_f" time="0.001" />' +
      // A folder whose conftest.py failed: everything under it.
      '<testcase classname="" name="tests.sub" time="0.000"><error message="collection failure">tests/sub/conftest.py:1: in &lt;module&gt;\n    import nonexistent_mod\nE   ModuleNotFoundError</error></testcase>' +
      '</testsuite></testsuites>';
    expect(parseJunit(xml)?.tests).toEqual([
      { name: 'tests.test_x', ok: false, load_error: true, in: 'tests.test_x' },
      { name: 'setup_only', ok: false },
      { name: 'tests.test_c > TestC', ok: false, load_error: true, in: 'tests.test_c.TestC' },
      { name: 'tests.test_c > test_f', ok: true, in: 'tests.test_c' },
      { name: 'tests.sub', ok: false, load_error: true, in: 'tests.sub.' },
    ]);
  });

  it('reads nested suites and names without a classname', () => {
    const xml = `<testsuite name="root"><testcase name="a"/><testsuite name="child"><testcase name="b &amp; c"><failure/></testcase></testsuite></testsuite>`;
    expect(parseJunit(xml)).toEqual({
      passing: 1,
      failing: 1,
      total: 2,
      tests: [
        { name: 'a', ok: true },
        { name: 'b & c', ok: false },
      ],
    });
  });

  it('returns null for text that is not a well-formed report', () => {
    expect(parseJunit('error: 3 tests failed')).toBeNull();
    expect(parseJunit('<testsuite name="cut"><testcase name="a">')).toBeNull();
  });
});

describe('vitest-json: vitest run --reporter=json', () => {
  const files = {
    'vitest.config.mjs': "export default { test: { include: ['**/*.test.js'], globals: true } };\n",
    'package.json': '{ "type": "module" }\n',
    'math.test.js': `describe('math', () => {
  test('adds numbers', () => { expect(1 + 1).toBe(2); });
  test('handles error input', () => { expect(() => { throw new Error('error'); }).toThrow('error'); });
});
test('rounds halves up', () => { expect(Math.round(2.5)).toBe(2); });
test.skip('skipped', () => {});
test.todo('later');
`,
  };

  it('counts a real run with JSON-looking noise before and after the report', async () => {
    const dir = await project(files);
    const command = `echo '{"is_error": false, "error": "starting"}'; ${VITEST_BIN} run --reporter=json; echo '{"is_error": false}'`;
    const observation = await observe([spec({ command, parser: 'vitest-json' })], dir);
    expect(plain(observation)).toEqual({
      metrics: { 'tests.failing': 1, 'tests.passing': 2, 'tests.total': 3 },
      tests: stamped([
        { name: 'math adds numbers', ok: true, in: path.join(dir, 'math.test.js') },
        { name: 'math handles error input', ok: true, in: path.join(dir, 'math.test.js') },
        { name: 'rounds halves up', ok: false, in: path.join(dir, 'math.test.js') },
      ]),
      skipped: [
        { name: 'skipped', observer: 'tests' },
        { name: 'later', observer: 'tests' },
      ],
      errors: [],
    });
  });

  it('counts a test file that cannot be imported as one failing test, via report_file', async () => {
    const dir = await project({ ...files, 'broken.test.js': "import './missing.js';\ntest('never runs', () => {});\n" });
    const command = `${VITEST_BIN} run --reporter=json --outputFile=out/vitest.json`;
    const observation = await observe([spec({ command, parser: 'vitest-json', report_file: 'out/vitest.json' })], dir);
    expect(observation.metrics).toEqual({ 'tests.failing': 2, 'tests.passing': 2, 'tests.total': 4 });
    expect(observation.tests).toContainEqual({ name: path.join(dir, 'broken.test.js'), ok: false, load_error: true, in: path.join(dir, 'broken.test.js'), observer: 'tests' });
    expect(observation.tests).toContainEqual({ name: 'math adds numbers', ok: true, in: path.join(dir, 'math.test.js'), observer: 'tests' });
    expect(observation.errors).toEqual([]);
  });
});

describe('jest-json', () => {
  // Hand-written in `jest --json` format: jest is not installed here.
  const report = {
    numFailedTestSuites: 2,
    numFailedTests: 1,
    numPassedTestSuites: 0,
    numPassedTests: 2,
    numPendingTests: 1,
    numRuntimeErrorTestSuites: 1,
    numTotalTests: 4,
    success: false,
    testResults: [
      {
        name: '/repo/src/parse.test.js',
        status: 'failed',
        message: '',
        assertionResults: [
          { ancestorTitles: ['parse'], fullName: 'parse handles error input', title: 'handles error input', status: 'passed', failureMessages: [] },
          { ancestorTitles: ['parse'], fullName: 'parse keeps is_error false', title: 'keeps is_error false', status: 'passed', failureMessages: [], meta: { is_error: false } },
          { ancestorTitles: [], fullName: 'rounds halves up', title: 'rounds halves up', status: 'failed', failureMessages: ['Error: error error error'] },
          { ancestorTitles: [], fullName: 'error path later', title: 'error path later', status: 'pending', failureMessages: [] },
        ],
      },
      { name: '/repo/src/broken.test.js', status: 'failed', message: "Cannot find module './missing'", assertionResults: [] },
    ],
  };

  it('a file whose hook before its tests threw (every test of it skipped) is a load error too, standing for its tests', () => {
    const hooked = {
      numFailedTests: 0,
      numPassedTests: 0,
      testResults: [{ name: '/repo/a.test.ts', status: 'failed', message: 'beforeAll threw', assertionResults: [{ fullName: 'one', status: 'skipped' }, { fullName: 'two', status: 'skipped' }] }],
    };
    expect(parseJestJson(JSON.stringify(hooked))).toEqual({
      passing: 0,
      failing: 1,
      total: 1,
      tests: [{ name: '/repo/a.test.ts', ok: false, load_error: true, in: '/repo/a.test.ts' }],
      skipped: ['one', 'two'],
    });
  });

  it('counts a report with "error" in names and fields, surrounded by other text', () => {
    const output = `> jest --json\n{"is_error": false}\nerror: something logged\n${JSON.stringify(report, null, 2)}\n{"is_error": false, "error": "after"}\n`;
    expect(parseJestJson(output)).toEqual({
      passing: 2,
      failing: 2,
      total: 4,
      tests: [
        { name: 'parse handles error input', ok: true, in: '/repo/src/parse.test.js' },
        { name: 'parse keeps is_error false', ok: true, in: '/repo/src/parse.test.js' },
        { name: 'rounds halves up', ok: false, in: '/repo/src/parse.test.js' },
        // No test of it ran: it could not be loaded, and stands for the tests it holds.
        { name: '/repo/src/broken.test.js', ok: false, load_error: true, in: '/repo/src/broken.test.js' },
      ],
      skipped: ['error path later'],
    });
  });

  it('maps through observe like the other test parsers', async () => {
    const dir = await project({ 'report.json': JSON.stringify(report) });
    const observation = await observe([spec({ command: 'cat report.json; exit 1', parser: 'jest-json' })], dir);
    expect(observation.metrics).toEqual({ 'tests.failing': 2, 'tests.passing': 2, 'tests.total': 4 });
    expect(observation.errors).toEqual([]);
  });

  it('returns null when there is no jest-shaped object', () => {
    expect(parseJestJson('{"is_error": false, "error": "1 failed"}\n3 errors')).toBeNull();
    expect(parseVitestJson('{"numPassedTests": 2, "numFailedTests": 0')).toBeNull();
  });

  it('finds the object whose braces balance, ignoring braces in strings', () => {
    const text = 'log {not json\n{"a": "}{", "b": {"c": 1}}\ntrailer }';
    expect(findJsonObject(text, () => true)).toEqual({ a: '}{', b: { c: 1 } });
  });
});

describe('regex', () => {
  const pattern = 'coverage: (?<coverage>\\d+(\\.\\d+)?)%';

  it('turns each numeric named group of the last match into a metric', () => {
    expect(parseRegex('coverage: 12%\nerror: none\ncoverage: 87.5%\n', { pattern, prefix: 'cov' })).toEqual({
      metrics: { 'cov.coverage': 87.5 },
    });
    expect(parseOutput('regex', 'coverage: 40%', { prefix: 'cov', pattern })).toEqual({
      type: 'metrics',
      report: { metrics: { 'cov.coverage': 40 } },
    });
  });

  it('returns null when nothing matches', () => {
    expect(parseRegex('coverage: n/a', { pattern, prefix: 'cov' })).toBeNull();
  });

  it('leaves a non-numeric group missing', async () => {
    const dir = await project({});
    const observation = await observe(
      [spec({ name: 'lint', command: "echo 'warnings: 3 errors: none'", parser: 'regex', pattern: 'warnings: (?<warnings>\\S+) errors: (?<errors>\\S+)' })],
      dir,
    );
    expect(plain(observation)).toEqual({ metrics: { 'lint.warnings': 3, 'lint.errors': null }, tests: [], skipped: [], errors: [] });
  });

  // Nested quantifiers backtrack exponentially on a near miss; the output is the workspace's, which the agent shapes.
  it.each([
    ['(?<failing>(a+)+)b', `${'a'.repeat(40)}c`],
    ['(?<n>(\\d|\\d\\d)+)x', `${'1'.repeat(60)}y`],
    ['^(?<w>(\\w+\\s?)*)$', `${'word '.repeat(12)}!`],
  ])('a pattern that backtracks without end (%s) is stopped: an observer error naming it, and the process goes on', async (bad, output) => {
    const dir = await project({ 'out.txt': output });
    const started = Date.now();
    const observation = await observe([spec({ name: 'slow', command: 'cat out.txt', parser: 'regex', pattern: bad })], dir);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(Object.values(observation.metrics).every((v) => v === null)).toBe(true);
    expect(observation.errors).toHaveLength(1);
    expect(observation.errors[0]).toMatch(/observe\.pattern.*the search was stopped after 1s on \d+ characters/);
    // The same pattern on output it does finish on still reads.
    expect(parseRegex('aab', { pattern: '(?<failing>(a+)+)b', prefix: 'x' })).toBeNull();
    expect(parseRegex('n=3', { pattern: 'n=(?<n>\\d+)', prefix: 'x' })).toEqual({ metrics: { 'x.n': 3 } });
  }, 20_000);

  it('maps a real command through observe', async () => {
    const dir = await project({});
    const observation = await observe([spec({ name: 'cov', command: "printf 'All files\\ncoverage: 91.25%%\\n'", parser: 'regex', pattern })], dir);
    expect(plain(observation)).toEqual({ metrics: { 'cov.coverage': 91.25 }, tests: [], skipped: [], errors: [] });
  });
});

describe('observer errors: metrics missing, one error each', () => {
  const missing = { 'tests.failing': null, 'tests.passing': null, 'tests.total': null };

  it('a command that is not found', async () => {
    const dir = await project({});
    const observation = await observe([spec({ command: 'loopdeck-no-such-runner --test', parser: 'tap' })], dir);
    expect(observation.metrics).toEqual(missing);
    expect(observation.tests).toEqual([]);
    expect(observation.errors).toHaveLength(1);
    expect(observation.errors[0]).toMatch(/^observer "tests" \(loopdeck-no-such-runner --test\): command not found \(exit 127\)/);
  });

  it('a command that times out', async () => {
    const dir = await project({});
    const started = Date.now();
    const observation = await observe([spec({ command: 'sleep 5', parser: 'tap', timeout: 1 })], dir);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(plain(observation)).toEqual({ metrics: missing, tests: [], skipped: [], errors: ['observer "tests" (sleep 5): timed out after 1s'] });
  });

  it('output the parser cannot read', async () => {
    const dir = await project({});
    for (const parser of ['tap', 'vitest-json', 'jest-json', 'junit'] as const) {
      const observation = await observe([spec({ command: "echo '3 passed, 1 error'", parser })], dir);
      expect(plain(observation)).toEqual({
        metrics: missing,
        tests: [],
        skipped: [],
        errors: [`observer "tests" (echo '3 passed, 1 error'): no ${parser} report in its output (exit 0): 3 passed, 1 error`],
      });
    }
  });

  it('a failing command quotes the last lines of its output, where the cause often sits above the last one', async () => {
    const dir = await project({ 'fail.sh': "echo 'RUN  v4'\necho\necho 'npm error npx canceled due to missing packages and no YES option: [\"vitest@4.1.12\"]'\necho 'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log'\nexit 1\n" });
    const observation = await observe([spec({ command: 'sh fail.sh', parser: 'vitest-json' })], dir);
    expect(observation.errors).toEqual([
      'observer "tests" (sh fail.sh): no vitest-json report in its output (exit 1): RUN  v4 ⏎ npm error npx canceled due to missing packages and no YES option: ["vitest@4.1.12"] ⏎ npm error A complete log of this run can be found in: /root/.npm/_logs/x.log',
    ]);
  });

  it('a regex that matches nothing, or is invalid', async () => {
    const dir = await project({});
    const none = await observe([spec({ name: 'cov', command: 'echo done', parser: 'regex', pattern: 'coverage: (?<coverage>\\d+)%' })], dir);
    expect(plain(none)).toEqual({ metrics: { 'cov.coverage': null }, tests: [], skipped: [], errors: ['observer "cov" (echo done): no regex report in its output (exit 0): done'] });
    const bad = await observe([spec({ name: 'cov', command: 'echo done', parser: 'regex', pattern: '(?<coverage>\\d+' })], dir);
    expect(bad.metrics).toEqual({});
    expect(bad.errors).toHaveLength(1);
    expect(bad.errors[0]).toMatch(/^observer "cov" \(echo done\): loop\.yaml: observe\.pattern: expected a valid regular expression/);
  });

  it('a report_file that is missing or outside the workspace', async () => {
    const dir = await project({});
    const outside = await project({ 'report.xml': '<testsuite><testcase name="a"/></testsuite>' });
    await symlink(path.join(outside, 'report.xml'), path.join(dir, 'linked.xml'));
    const cases: Array<[string, string]> = [
      ['none.xml', 'observer "tests" (true): wrote no report file "none.xml" (exit 0)'],
      ['../escape.xml', 'observer "tests" (true): observe: path "../escape.xml" is outside the workspace'],
      ['linked.xml', 'observer "tests" (true): observe: path "linked.xml" is outside the workspace'],
    ];
    for (const [file, error] of cases) {
      const observation = await observe([spec({ command: 'true', parser: 'junit', report_file: file })], dir);
      expect(plain(observation)).toEqual({ metrics: missing, tests: [], skipped: [], errors: [error] });
    }
  });

  it('one failing observer leaves the others measured', async () => {
    const dir = await project(NODE_SUITE);
    const observation = await observe(
      [spec({ name: 'broken', command: 'exit 3', parser: 'tap' }), spec({ command: 'node --test --test-reporter=tap', parser: 'tap' })],
      dir,
    );
    expect(plain(observation)).toEqual({
      metrics: {
        'broken.failing': null,
        'broken.passing': null,
        'broken.total': null,
        'tests.failing': 1,
        'tests.passing': 2,
        'tests.total': 3,
      },
      tests: stamped(NODE_TESTS),
      skipped: [],
      errors: ['observer "broken" (exit 3): no tap report in its output (exit 3)'],
    });
  });
});
