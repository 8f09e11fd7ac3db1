/**
 * `loopdeck init` writes a first loop.yaml that `validate` accepts, with an observer and a
 * verify command for the project's test runner, and never overwrites a file. Needs the
 * built CLI (`npm run build`).
 *
 * What init detects and prints is checked with the command run in this process
 * (tests/support/cli-in-process.ts: the same command line, output and exit code); the built
 * CLI is spawned where the process is the subject (init and validate end to end, a refusal's
 * exit code) and where a printed command is run as printed. The observers and verify
 * commands written run for real: node --test, pytest, cargo, npm.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, execaSync } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { ApprovalRuleSet } from '../../src/engine/approval/approval-rules.js';
import { observe } from '../../src/engine/observe.js';
import { loadPolicy } from '../../src/engine/policy.js';
import { prepareWorkspace } from '../../src/engine/workspace.js';
import { CLI as cli, loopdeckInProcess } from '../support/cli-in-process.js';

/** The real test runners run for every case of a sweep when FULL_SWEEP=1 (as `CRASH_SWEEP=all` elsewhere); else once for each kind (see each sweep). */
const FULL_SWEEP = process.env.FULL_SWEEP === '1';
const hasPytest = execaSync('python', ['-m', 'pytest', '--version'], { reject: false }).exitCode === 0;
const hasCargo = execaSync('cargo', ['--version'], { reject: false }).exitCode === 0;
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-init-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** `loopdeck init [args]` in `dir`, in this process: exit code, stdout and stderr. */
const initRun = (dir: string, ...args: string[]) => loopdeckInProcess(['init', ...args], { cwd: dir });

/**
 * What `loopdeck init [args]` in `dir` prints, in this process, after checking it exits 0
 * and that `loopdeck validate` accepts the file it wrote: init never writes a loop.yaml that
 * validate refuses, for every project of these tests.
 */
async function init(dir: string, ...args: string[]): Promise<string> {
  const run = await initRun(dir, ...args);
  expect(run.exitCode, run.stderr).toBe(0);
  const file = args.filter((arg) => arg !== '--')[0] ?? 'loop.yaml';
  const validate = await validateRun(dir, '--', file);
  expect(validate.exitCode, `validate ${file}: ${validate.stderr}`).toBe(0);
  return run.stdout;
}

/** `loopdeck validate [args]` in `dir`, in this process: exit code, stdout and stderr. */
const validateRun = (dir: string, ...args: string[]) => loopdeckInProcess(['validate', ...args], { cwd: dir });

/** The exit code of the verify command `file` holds, run by a shell in its workspace. */
async function verifyExit(dir: string, file = 'loop.yaml') {
  const policy = loadPolicy(path.join(dir, file));
  return (await execa('sh', ['-c', policy.verify[0]!.command], { cwd: policy.workspace.path, reject: false })).exitCode;
}

const PROJECTS: Array<[string, Record<string, string>, string, string, string]> = [
  ['node --test script', { 'package.json': JSON.stringify({ scripts: { test: 'node --test test/' } }) }, 'node --test', 'tap', 'node --test test/'],
  ['vitest script', { 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) }, 'vitest', 'vitest-json', 'npx --no -- vitest run'],
  ['jest dependency', { 'package.json': JSON.stringify({ devDependencies: { jest: '^29' } }) }, 'jest', 'jest-json', 'npx --no -- jest'],
  ['pytest.ini', { 'pytest.ini': '[pytest]\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['pyproject naming pytest', { 'pyproject.toml': '[tool.pytest.ini_options]\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['requirements naming pytest', { 'requirements-dev.txt': 'black\npytest>=8\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['Python test files and no config', { 'calc.py': 'def add(a, b):\n    return a + b\n', 'tests/test_calc.py': 'import unittest\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['a *_test.py three folders down', { 'src/pkg/tests/calc_test.py': '\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['broken package.json beside go.mod', { 'package.json': '{ "scripts": ', 'go.mod': 'module x\n', 'pkg/a_test.go': 'package a\n' }, 'go test', 'regex', 'go test ./...'],
  ['go.mod', { 'go.mod': 'module x\n', 'x_test.go': 'package x\n' }, 'go test', 'regex', 'go test ./...'],
  ['Cargo.toml', { 'Cargo.toml': '[package]\nname = "x"\n', 'src/lib.rs': '#[test]\nfn t() {}\n' }, 'cargo test', 'regex', 'cargo test'],
];

describe('loopdeck init', () => {
  it.each(PROJECTS)('%s: names the runner and why; the file validates with its observer and verify', async (_, files, runner, parser, verify) => {
    const dir = project(files);
    const out = await init(dir);
    expect(out).toContain('wrote loop.yaml');
    expect(out).toContain(`test runner: ${runner} (`);
    expect(out).toMatch(/validate loop\.yaml/);
    // What `validate` checks (the CLI's validate itself runs in the tests below).
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    expect(policy.observe[0]).toMatchObject({ name: 'tests', parser });
    expect(policy.verify[0]!.command).toBe(verify);
    expect(policy.progress.observed.map((s) => s.signal)).toEqual(['observed.tests.failing', 'observed.tests.passing']);
    expect(policy.budget.limits.turns).toBeGreaterThan(0);
    expect(readFileSync(path.join(dir, 'loop.yaml'), 'utf8')).toMatch(/# Claude Code, Codex or Gemini CLI/);
    // The agent may run the verify command as written, and nothing more without asking:
    // further options can run any code (`--import data:…`, `--config …runner=…`).
    const rules = new ApprovalRuleSet(policy.approval);
    const shell = (command: string) => rules.decide({ id: 'c1', name: 'shell', args: { command } }).decision;
    expect(shell(verify)).toBe('allow');
    for (const more of ["--import 'data:text/javascript,0'", "--config 'target.x.runner=\"touch /tmp/x\"'", '-exec ./x', '-p evil']) {
      expect(shell(`${verify} ${more}`), `${verify} ${more}`).toBe('ask');
    }
  }, 30_000);

  it('a project without a test runner gets a file that validates, says so, and cannot be met until verify is set', async () => {
    const dir = project({ 'README.md': 'nothing here\n' });
    expect(await init(dir)).toContain('test runner: none found');
    expect((await validateRun(dir)).exitCode).toBe(0);
    expect(await verifyExit(dir)).not.toBe(0);
  }, 30_000);

  it('says why it chose a runner, and what it could not read', async () => {
    const byFile = project({ 'tests/unit/test_calc.py': '\n' });
    expect(await init(byFile)).toContain(`test runner: pytest (${path.join('tests', 'unit', 'test_calc.py')} is a Python test file`);
    const broken = project({ 'package.json': '{ "scripts": ', 'go.mod': 'module x\n' });
    expect(await init(broken)).toMatch(/^note: package\.json is not valid JSON \(.+\): its test runner was not considered$/m);
  }, 30_000);

  it('a named pipe or a device in a project file\'s place is not waited on nor read without end (the built CLI): a note, and the file is written', async () => {
    const dir = project({ 'Cargo.toml': '[package]\nname = "x"\n', 'tests/it.rs': '#[test]\nfn t() {}\n' });
    execaSync('mkfifo', [path.join(dir, 'package.json'), path.join(dir, 'pytest.ini'), path.join(dir, 'tests', 'pipe.rs')]);
    symlinkSync('/dev/zero', path.join(dir, 'requirements.txt'));
    const run = await execa(process.execPath, [cli, 'init'], { cwd: dir, reject: false, timeout: 20_000 });
    expect(run.timedOut, 'init waited on a named pipe or read /dev/zero').toBe(false);
    expect(run.exitCode, run.stderr).toBe(0);
    for (const name of ['package.json', 'requirements.txt']) {
      expect(run.stdout).toContain(`note: ${name}: not read (not a regular file: a named pipe, a socket or a device): the runner it might name was not considered`);
    }
    expect(run.stdout).toContain('test runner: cargo test (');
    expect(loadPolicy(path.join(dir, 'loop.yaml')).verify[0]!.command).toBe('cargo test');
  }, 30_000);

  it.each<[string, Record<string, string>, string]>([
    ['a vitest config beside node:test-looking files', { 'package.json': '{"name":"x"}', 'vitest.config.mts': 'export default {}\n', 'test/a.test.js': "import test from 'node:test';\n" }, 'vitest (vitest.config.mts is there)'],
    ['a jest config and no package.json', { 'jest.config.json': '{}\n', 'test/a.test.js': '\n' }, 'jest (jest.config.json is there)'],
    ['a vitest config beside a jest dependency (init\'s order)', { 'package.json': '{"devDependencies":{"jest":"^29"}}', 'vitest.config.js': 'export default {}\n' }, 'vitest (vitest.config.js is there)'],
    ['a workspaces monorepo whose test files import vitest', { 'package.json': '{"workspaces":["packages/*"]}', 'packages/a/package.json': '{"scripts":{"test":"vitest run"}}', 'packages/a/src/x.test.js': "import { test, expect } from 'vitest';\n" }, `vitest (${path.join('packages', 'a', 'src', 'x.test.js')} imports vitest)`],
    ['test files importing @jest/globals', { 'test/b.test.js': "const { test } = require('@jest/globals');\n" }, `jest (${path.join('test', 'b.test.js')} imports @jest/globals)`],
    ['test files of node:test', { 'test/c.test.js': "import { test } from 'node:test';\n" }, `node --test (${path.join('test', 'c.test.js')} is a test file node --test runs by default)`],
    ['test files of node:test by require, called at the start of lines', { 'test/c.test.js': "const test = require('node:test');\ntest('adds', () => {});\n" }, `node --test (${path.join('test', 'c.test.js')} is a test file node --test runs by default)`],
    ['test files that call jest\'s global test()', { 'sum.test.js': "const sum = require('./sum');\ntest('adds', () => {\n  expect(sum(1, 2)).toBe(3);\n});\n" }, "jest (sum.test.js calls test() or describe() without importing them (jest's globals))"],
    ['test files that call a global describe() and it()', { 'test/d.test.js': 'describe("sum", () => {\n  it(`adds`, () => {});\n});\n' }, `jest (${path.join('test', 'd.test.js')} calls test() or describe() without importing them (jest's globals))`],
  ])('%s: the runner the files are written for is chosen', async (_, files, said) => {
    const out = await init(project(files));
    expect(out).toContain(`test runner: ${said}`);
    // Never node --test for a file it cannot run, not even as an alternative.
    if (said.includes("jest's globals")) expect(out).not.toContain('node --test');
  }, 30_000);

  it("a jest project whose test files use jest's globals: no node --test among the alternatives", async () => {
    const out = await init(project({ 'package.json': JSON.stringify({ scripts: { test: 'jest' } }), 'sum.test.js': "test('adds', () => {\n  expect(1 + 1).toBe(2);\n});\n" }));
    expect(out).toContain('test runner: jest');
    expect(out).not.toContain('node --test');
  }, 30_000);

  it('a mocha project without a test script (its dependency, .mocharc.yml, a spec calling describe()): mocha, measured by its TAP reporter', async () => {
    // A stand-in for mocha that prints what `mocha --reporter tap` prints for 2 passing tests and 1 failing.
    const tap = ['1..3', 'ok 1 sum adds', 'not ok 2 sum subtracts', '  AssertionError: expected 1 to equal 2', '      at Context.<anonymous> (test/a.spec.js:4:5)', 'ok 3 sum multiplies', '# tests 3', '# pass 2', '# fail 1'].join('\n');
    const dir = project({
      'package.json': JSON.stringify({ devDependencies: { mocha: '^10', chai: '^4' } }),
      '.mocharc.yml': 'spec: test/**/*.spec.js\n',
      'test/a.spec.js': "const { expect } = require('chai');\ndescribe('sum', () => {\n  it('adds', () => expect(1 + 1).to.equal(2));\n});\n",
      'node_modules/.bin/mocha': `#!/bin/sh\ncase " $* " in *" --reporter tap "*) printf '%s\\n' '${tap.replace(/'/g, "'\\''")}';; esac\nexit 1\n`,
    });
    chmodSync(path.join(dir, 'node_modules', '.bin', 'mocha'), 0o755);
    const out = await init(dir);
    expect(out).toContain('test runner: mocha (package.json depends on mocha); observer: npx --no -- mocha --reporter tap; verify: npx --no -- mocha\n');
    expect(out).not.toMatch(/jest|names no test runner/);
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    expect(policy.observe[0]).toMatchObject({ command: 'npx --no -- mocha --reporter tap', parser: 'tap' });
    expect((await observe(policy.observe, dir)).metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 2 });
    expect(await verifyExit(dir)).not.toBe(0);
    // Its config alone, or its test files beside that config, name it too.
    const byConfig = project({ '.mocharc.json': '{}\n', 'test/a.spec.js': "describe('x', () => { it('y', () => {}); });\n" });
    expect(await init(byConfig)).toContain('test runner: mocha (.mocharc.json is there)');
  }, 30_000);

  it.each<[string, string, string, string]>([
    ['mocha --recursive', 'npx --no -- mocha --recursive --reporter tap', 'npx --no -- mocha --recursive', ''],
    ['mocha -R spec --bail test/', 'npx --no -- mocha test/ --reporter tap', 'npx --no -- mocha -R spec --bail test/', ''],
    ['mocha -w && eslint .', 'npx --no -- mocha --reporter tap', 'npx --no -- mocha && eslint .', '-w (watch mode'],
    ['mocha --watch --reporter=dot', 'npx --no -- mocha --reporter tap', 'npx --no -- mocha --reporter=dot', '--watch (watch mode'],
  ])('test script %j: mocha, its TAP reporter in the observer, its own in the verify', async (script, observer, verify, left) => {
    const out = await init(project({ 'package.json': JSON.stringify({ scripts: { test: script } }) }));
    expect(out).toContain(`; observer: ${observer}; verify: ${verify}\n`);
    if (left) expect(out).toContain(`\nleft out of the observer and the verify: ${left}`);
  }, 30_000);

  it('test files where no test runner looks (dependencies, virtual environments, too deep) are not a project', async () => {
    const dir = project({ 'node_modules/x/test_a.py': '\n', '.venv/lib/test_b.py': '\n', 'a/b/c/d/test_c.py': '\n' });
    expect(await init(dir)).toContain('test runner: none found');
  }, 30_000);

  it('a test script loopdeck reads no report of: npm test verifies, no observer is made up, and validate passes', async () => {
    const dir = project({ 'package.json': JSON.stringify({ scripts: { test: 'ava --verbose' } }) });
    const out = await init(dir);
    expect(out).toContain('test runner: npm test (package.json\'s test script runs "ava --verbose", whose output loopdeck has no parser for');
    expect(out).toContain('observer: none; verify: npm test');
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    expect(policy.observe).toEqual([]);
    expect(policy.verify[0]!.command).toBe('npm test');
    const validate = await validateRun(dir);
    expect(validate.exitCode, validate.stderr).toBe(0);
  }, 30_000);

  // pytest's own config may hold options that leave tests unrun: the observer overrides
  // them (`-o addopts=<the rest>`); the verify keeps those that stop at the first failure and
  // overrides those that run only the last failed tests (`--lf`, `--stepwise`); the other options stay.
  const TESTS = { 'tests/test_m.py': 'def test_a():\n    assert False\n\ndef test_b():\n    assert True\n\ndef test_c():\n    assert False\n' };
  it.each<[string, Record<string, string>, string, string]>([
    ['pytest.ini: addopts = -x', { 'pytest.ini': '[pytest]\naddopts = -x\n' }, '-o addopts=', ''],
    ['pyproject.toml: a string with --lf among kept options', { 'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-ra --lf --import-mode=importlib"\n' }, "-o 'addopts=-ra --import-mode=importlib'", " -o 'addopts=-ra --import-mode=importlib'"],
    ['pyproject.toml: a list over lines', { 'pyproject.toml': '[tool.pytest.ini_options]\naddopts = [\n  "--maxfail=2",\n  "-p", "no:randomly",\n]\n' }, "-o 'addopts=-p no:randomly'", ''],
    ['tox.ini: continued lines with --stepwise', { 'tox.ini': '[tox]\nenvlist = py3\n\n[pytest]\naddopts =\n    --stepwise\n    -q\n' }, '-o addopts=-q', ' -o addopts=-q'],
    ['setup.cfg: [tool:pytest] with --maxfail 1', { 'setup.cfg': '[metadata]\nname = x\n\n[tool:pytest]\naddopts = --maxfail 1 --strict-markers\n' }, '-o addopts=--strict-markers', ''],
  ])('%s: the observer leaves out the options that leave tests unrun, the verify those that run only some', async (name, files, override, verifyOverride) => {
    const dir = project({ ...files, ...TESTS });
    const out = await init(dir);
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    expect(policy.observe[0]!.command).toBe(`python -m pytest -q ${override} --junitxml=.loopdeck/pytest-report.xml`);
    expect(policy.verify[0]!.command).toBe(`python -m pytest -q${verifyOverride}`);
    if (verifyOverride !== '') expect(out).toMatch(/^left out of the observer and the verify: --(lf|stepwise) \(in (pyproject\.toml|tox\.ini)'s addopts; runs only changed, related or failed tests, or none: could pass with tests unrun\)$/m);
    // Every test counted, as pytest runs them (each kind of file once in the suite, all of them with FULL_SWEEP=1).
    if (hasPytest && (FULL_SWEEP || name.startsWith('pytest.ini') || name.includes('a list') || name.includes('--lf'))) {
      const observation = await observe(policy.observe, dir);
      expect(observation.errors).toEqual([]);
      expect(observation.metrics).toMatchObject({ 'tests.failing': 2, 'tests.passing': 1 });
      expect(await verifyExit(dir)).not.toBe(0);
    }
  }, 60_000);

  it.each<[string, Record<string, string>, string, string | null]>([
    ['go.mod, no go on PATH', { 'go.mod': 'module x\n', 'x_test.go': 'package x\n' }, 'python', 'note: go is not on PATH here: the observer and the verify command cannot run until it is'],
    ['go.mod, go on PATH', { 'go.mod': 'module x\n', 'x_test.go': 'package x\n' }, 'go', null],
    ['Cargo.toml, no cargo on PATH', { 'Cargo.toml': '[package]\nname = "x"\n', 'tests/it.rs': '\n' }, 'python', 'note: cargo is not on PATH here: the observer and the verify command cannot run until it is'],
    ['Python test files, only python3 on PATH', { 'tests/test_a.py': '\n' }, 'python3', 'note: python is not on PATH here (python3 is: write python3 -m pytest in observe and verify): the observer and the verify command cannot run until it is'],
    ['Python test files, python on PATH', { 'tests/test_a.py': '\n' }, 'python', null],
    ['a vitest script, vitest not installed', { 'package.json': '{"scripts":{"test":"vitest run"}}' }, 'npx', "note: vitest is not installed in this project (no node_modules/.bin/vitest): install the project's dependencies first; npx --no runs only the one installed"],
  ])('%s: a program the runner needs that is missing here is named (the built CLI, PATH holding one program)', async (_, files, program, note) => {
    const dir = project(files);
    // A PATH of one folder holding one runnable `program` (which does nothing).
    const bin = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-path-'));
    dirs.push(bin);
    writeFileSync(path.join(bin, program), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(bin, program), 0o755);
    const run = await execa(process.execPath, [cli, 'init'], { cwd: dir, reject: false, env: { PATH: bin }, extendEnv: false });
    expect(run.exitCode, run.stderr).toBe(0);
    const notes = run.stdout.split('\n').filter((line) => / is not (on PATH|installed)/.test(line));
    expect(notes).toEqual(note === null ? [] : [note]);
  }, 30_000);

  it.each<[string, string, string]>([
    ['exit 0', '"exit 0"', `package.json's test script ("exit 0") only prints or exits: it runs no test`],
    ['echo and exit', '"echo \\"no js tests\\" && exit 0"', `package.json's test script ("echo \\"no js tests\\" && exit 0") only prints or exits: it runs no test`],
    ['a number', '42', "package.json's scripts.test is not a string (42): npm cannot run it, and it was not read"],
  ])('a test script that runs no test (%s) does not outrank pytest: noted, and pytest chosen', async (_, script, note) => {
    const dir = project({ 'package.json': `{"scripts":{"test":${script}}}`, 'pyproject.toml': '[tool.pytest.ini_options]\n', 'tests/test_a.py': '\n' });
    const out = await init(dir);
    expect(out).toContain(`note: ${note}`);
    expect(out).toContain('test runner: pytest (pyproject.toml names pytest)');
  }, 30_000);

  it.each<[string, Record<string, string>, boolean]>([
    ['a test file in a package', { 'pkg/a_test.go': 'package a\n' }, true],
    ['test files only under testdata/', { 'testdata/src/x_test.go': 'package x\n' }, false],
    ['test files only in a nested module', { 'tools/go.mod': 'module tools\n', 'tools/x_test.go': 'package tools\n', 'tools/sub/y_test.go': 'package sub\n' }, false],
    ['test files only under a _-named folder', { '_old/x_test.go': 'package old\n' }, false],
  ])('go.mod with %s: a verify of go test ./... is written only where it runs a test', async (_, files, verified) => {
    const dir = project({ 'go.mod': 'module x\n', ...files });
    const out = await init(dir);
    expect(out).toContain('test runner: go test (go.mod is there)');
    if (verified) expect(loadPolicy(path.join(dir, 'loop.yaml')).verify[0]!.command).toBe('go test ./...');
    else expect(out).toMatch(/verify: none: no \*_test\.go file was found \(.*\), and go test passes when no test runs/);
  }, 30_000);

  it('a pytest config whose addopts leave every test run is not overridden', async () => {
    const dir = project({ 'pytest.ini': '[pytest]\naddopts = -ra --strict-markers\n', ...TESTS });
    await init(dir);
    expect(loadPolicy(path.join(dir, 'loop.yaml')).observe[0]!.command).toBe('python -m pytest -q --junitxml=.loopdeck/pytest-report.xml');
  }, 30_000);

  it.skipIf(!hasPytest)(
    'a Python project with only test files: the pytest observer it writes measures 1 failing, 2 passing',
    async () => {
      const dir = project({
        'calc.py': 'def add(a, b):\n    return a - b\n',
        'tests/test_calc.py': 'from calc import add\n\ndef test_one():\n    assert True\n\ndef test_two():\n    assert True\n\ndef test_add():\n    assert add(1, 2) == 3\n',
        'tests/conftest.py': 'import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n',
      });
      await init(dir);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      const observation = await observe(policy.observe, dir);
      expect(observation.errors).toEqual([]);
      expect(observation.metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 2 });
    },
    60_000,
  );

  it('never overwrites a file: exit 1, the file names itself, its content stays (the built CLI)', async () => {
    const dir = project({ 'loop.yaml': 'mine\n', 'package.json': '{}' });
    const refused = await execa('node', [cli, 'init'], { cwd: dir, reject: false });
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(`loopdeck: ${path.join(dir, 'loop.yaml')} exists already: loopdeck init never overwrites a file (remove it, or pass another name)`);
    expect(readFileSync(path.join(dir, 'loop.yaml'), 'utf8')).toBe('mine\n');
    const other = await execa('node', [cli, 'init', 'other.yaml'], { cwd: dir, reject: false });
    expect(other.exitCode, other.stderr).toBe(0);
    expect(other.stdout).toContain('wrote other.yaml');
  }, 30_000);

  it('a loop.yaml that is a symbolic link to a missing file: says so and names the target, and writes nothing through it', async () => {
    const dir = project({ 'pytest.ini': '[pytest]\n' });
    symlinkSync('missing.yaml', path.join(dir, 'loop.yaml'));
    symlinkSync('/does/not/exist/loop.yaml', path.join(dir, 'far.yaml'));
    for (const [name, target] of [['loop.yaml', `missing.yaml (${path.join(dir, 'missing.yaml')})`], ['far.yaml', '/does/not/exist/loop.yaml']] as const) {
      const refused = await initRun(dir, name);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toBe(
        `loopdeck: cannot write ${path.join(dir, name)}: it is a symbolic link to ${target}, which does not exist; loopdeck init never writes through a link (remove the link, or pass another name)`,
      );
    }
    expect(existsSync(path.join(dir, 'missing.yaml'))).toBe(false);
    expect(readlinkSync(path.join(dir, 'loop.yaml'))).toBe('missing.yaml');
  }, 30_000);

  it('a symbolic link in a loop, or to a file: says which, never a raw ELOOP nor a stack', async () => {
    const dir = project({ 'pytest.ini': '[pytest]\n', 'mine.yaml': 'mine\n' });
    symlinkSync('loop.yaml', path.join(dir, 'loop.yaml'));
    symlinkSync('mine.yaml', path.join(dir, 'other.yaml'));
    const looped = await initRun(dir);
    expect(looped.exitCode).toBe(1);
    expect(looped.stderr).toBe(
      `loopdeck: cannot write ${path.join(dir, 'loop.yaml')}: it is a symbolic link to loop.yaml (${path.join(dir, 'loop.yaml')}), which leads round in a loop of links and never reaches a file (ELOOP); loopdeck init never writes through a link (remove the link, or pass another name)`,
    );
    const linked = await initRun(dir, 'other.yaml');
    expect(linked.exitCode).toBe(1);
    expect(linked.stderr).toBe(`loopdeck: ${path.join(dir, 'other.yaml')} exists already (a symbolic link to mine.yaml (${path.join(dir, 'mine.yaml')})): loopdeck init never overwrites a file (remove it, or pass another name)`);
    expect(readFileSync(path.join(dir, 'mine.yaml'), 'utf8')).toBe('mine\n');
  }, 30_000);

  it('the free name a folder named loop.yaml is offered is never a link to nothing', async () => {
    const dir = project({ 'pytest.ini': '[pytest]\n', 'loop.yaml/keep': '\n' });
    symlinkSync('gone.yaml', path.join(dir, 'loopdeck.yaml'));
    const refused = await initRun(dir);
    expect(refused.stderr).toMatch(/e\.g\. node .+ init loop-2\.yaml\)$/);
    expect(lstatSync(path.join(dir, 'loopdeck.yaml')).isSymbolicLink()).toBe(true);
  }, 30_000);

  it('a file it cannot write: a missing folder, a folder, an empty name, says which and why and what would do, exit 1, no stack, nothing written', async () => {
    const dir = project({ 'package.json': '{}' });
    mkdirSync(path.join(dir, 'conf'));
    for (const [target, said, ending = ''] of [
      ['sub/loop.yaml', `the folder ${path.join(dir, 'sub')} does not exist`],
      ['/does/not/exist/loop.yaml', 'the folder /does/not/exist does not exist'],
      ['conf', 'it is a folder (pass the name of a file that does not exist yet, e.g. node ', ' init conf/loop.yaml)'],
      ['.', 'it is a folder (pass the name of a file that does not exist yet, e.g. node ', ' init loop.yaml)'],
      ['conf/', 'it is a folder (pass the name of a file that does not exist yet, e.g. node ', ' init conf/loop.yaml)'],
      ['x.yaml/', "cannot write x.yaml/: a name that ends in / is a folder's (pass the file's name without it, e.g. node ", ' init x.yaml)'],
      ['', 'expected the name of the file to write, found ""'],
    ] as const) {
      const refused = await initRun(dir, target);
      expect(refused.exitCode, refused.stderr).toBe(1);
      expect(refused.stderr).toContain(said);
      expect(refused.stderr.trimEnd().endsWith(ending), refused.stderr).toBe(true);
      expect(refused.stderr).not.toMatch(/ENOENT|EISDIR|\n\s+at /);
    }
    expect(existsSync(path.join(dir, 'x.yaml'))).toBe(false);
    expect(existsSync(path.join(dir, 'loop.yaml'))).toBe(false);
  }, 30_000);

  it('the node --test project (the built CLI): init and validate pass, and the observer it writes measures 1 failing, 2 passing', async () => {
    const dir = project({
      'package.json': JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }),
      'test/a.test.js': "import test from 'node:test';\nimport assert from 'node:assert';\ntest('one', () => {});\ntest('two', () => {});\ntest('three', () => assert.equal(1, 2));\n",
    });
    const created = await execa('node', [cli, 'init'], { cwd: dir, reject: false });
    expect([created.exitCode, created.stderr]).toEqual([0, '']);
    expect(created.stdout).toMatch(/^wrote loop\.yaml\n/);
    expect(created.stdout).toContain('test runner: node --test (');
    const validate = await execa('node', [cli, 'validate'], { cwd: dir, reject: false });
    expect(validate.stderr).toBe('');
    expect(validate.exitCode).toBe(0);
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    const observation = await observe(policy.observe, dir);
    expect(observation.errors).toEqual([]);
    expect(observation.metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 2 });
  }, 60_000);

  it('the go and cargo observers count what ran, and a build that fails is missing, never 0', async () => {
    for (const [marker, program, passing, broken] of [
      ['go.mod', 'go', '=== RUN A\n--- PASS: A (0.00s)\n--- FAIL: B (0.00s)\n--- PASS: C (0.00s)\nFAIL\n', './x.go:3:1: syntax error\nFAIL x [build failed]\n'],
      ['Cargo.toml', 'cargo', 'test result: FAILED. 2 passed; 1 failed; 0 ignored\ntest result: ok. 0 passed; 0 failed; 0 ignored\n', 'error[E0425]: cannot find value\nerror: could not compile\n'],
    ] as const) {
      const dir = project({ [marker]: '\n' });
      await init(dir);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      // A stand-in for the toolchain on PATH, printing what the real one prints.
      const bin = path.join(dir, 'bin');
      mkdirSync(bin);
      const fake = (out: string) => {
        writeFileSync(path.join(bin, program), `#!/bin/sh\ncat <<'EOF'\n${out}EOF\nexit 1\n`);
        chmodSync(path.join(bin, program), 0o755);
      };
      const env = process.env.PATH;
      process.env.PATH = `${bin}${path.delimiter}${env}`;
      try {
        fake(passing);
        expect((await observe(policy.observe, dir)).metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 2 });
        fake(broken);
        const missing = await observe(policy.observe, dir);
        expect(missing.metrics['tests.failing']).toBeNull();
        expect(missing.errors).toHaveLength(1);
        // The runner's own words and exit status reach the error, not only awk's silence.
        expect(missing.errors[0]).toMatch(/could not compile|build failed/);
        expect(missing.errors[0]).toContain('exit 1');
        // No toolchain at all (whatever this machine has installed): only sh and awk on PATH; the shell's "not found" and exit 127 are quoted.
        rmSync(path.join(bin, program));
        for (const tool of ['sh', 'awk']) symlinkSync(execaSync('sh', ['-c', `command -v ${tool}`]).stdout.trim(), path.join(bin, tool));
        process.env.PATH = bin;
        const absent = await observe(policy.observe, dir);
        expect(absent.errors[0]).toMatch(new RegExp(`${program}: (command )?not found.*exit 127`));
      } finally {
        process.env.PATH = env;
      }
    }
  }, 60_000);
  // A verify command that passes when no test runs ends a run goal_met while nothing is tested.
  describe('never a verify command that passes on fewer tests than the project has', () => {
    const FAILING_NODE_TEST = "import test from 'node:test';\nimport assert from 'node:assert';\ntest('ok', () => {});\ntest('greets', () => assert.equal(1, 2));\n";

    it.each<[string, Record<string, string>, string, RegExp | null]>([
      ['an unrelated package.json beside pytest.ini', { 'package.json': '{"private":true,"devDependencies":{"prettier":"^3"}}', 'pytest.ini': '[pytest]\n', 'tests/test_m.py': 'def test_m():\n    assert False\n' }, 'pytest (pytest.ini is there)', null],
      ['a workspaces-only package.json, pytest.ini and go.mod', { 'package.json': '{"workspaces":["web"]}', 'pytest.ini': '[pytest]\n', 'go.mod': 'module x\n', 'x_test.go': 'package x\n' }, 'pytest (pytest.ini is there)', /^also found: go test \(go\.mod is there\), in the file as comments; pytest was chosen: a config file or dependency names each, and pytest comes first/m],
      ['an empty package.json beside go.mod', { 'package.json': '{}', 'go.mod': 'module x\n', 'x_test.go': 'package x\n' }, 'go test (go.mod is there)', null],
      ['a package.json with other scripts beside Cargo.toml', { 'package.json': '{"scripts":{"lint":"eslint ."}}', 'Cargo.toml': '[package]\n', 'tests/it.rs': '\n' }, 'cargo test (Cargo.toml is there)', null],
      ['a package.json beside Python test files only', { 'package.json': '{"name":"docs"}', 'src/pkg/test_core.py': '\n' }, `pytest (${path.join('src', 'pkg', 'test_core.py')} is a Python test file`, null],
    ])('%s: the other runner is chosen, and why is said', async (_, files, said, also) => {
      const out = await init(project(files));
      expect(out).toContain(`test runner: ${said}`);
      expect(out).toContain('note: package.json names no test runner init knows (vitest, jest, mocha) and has no test script of its own: the runner was looked for in the other files');
      if (also) expect(out).toMatch(also);
    }, 30_000);

    it('with pytest, a project whose tests fail gets a verify that fails', async () => {
      const dir = project({ 'package.json': '{"private":true,"devDependencies":{"prettier":"^3"}}', 'pytest.ini': '[pytest]\n', 'tests/test_m.py': 'def test_m():\n    assert False\n' });
      await init(dir);
      expect(await verifyExit(dir)).not.toBe(0);
    }, 30_000);

    it.each<[string, string, string]>([
      ['node --test spec/greet.js', 'node --test --test-reporter=tap spec/greet.js', 'node --test spec/greet.js'],
      ['node --import tsx --test src/a.test.ts', 'node --import tsx --test --test-reporter=tap src/a.test.ts', 'node --import tsx --test src/a.test.ts'],
      ['node --test --test-reporter=spec --watch test/unit', 'node --test --test-reporter=tap test/unit', 'node --test --test-reporter=spec test/unit'],
      ['vitest --config vitest.unit.config.ts', 'npx --no -- vitest run --config vitest.unit.config.ts --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --config vitest.unit.config.ts'],
      ['vitest run --reporter verbose tests/unit', 'npx --no -- vitest run tests/unit --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --reporter verbose tests/unit'],
      ['jest -c jest.unit.js', 'npx --no -- jest -c jest.unit.js --json', 'npx --no -- jest -c jest.unit.js'],
      ['npx jest --watchAll src', 'npx --no -- jest src --json', 'npx --no -- jest src'],
      ['jest -w 4 --watch', 'npx --no -- jest -w 4 --json', 'npx --no -- jest -w 4'],
      ['vitest --outputFile.json=r.json --reporter=json -w', 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --outputFile.json=r.json --reporter=json'],
      ['pytest tests/unit -x', 'pytest tests/unit --junitxml=.loopdeck/pytest-report.xml', 'pytest tests/unit -x'],
      // What stops at the first failure is not in the observer, which counts every test; what
      // runs only the failed or changed tests is in neither (a verify with it could pass with tests unrun).
      ['pytest --maxfail 2 --lf -q', 'pytest -q --junitxml=.loopdeck/pytest-report.xml', 'pytest --maxfail 2 -q'],
      ['jest --bail tests/', 'npx --no -- jest tests/ --json', 'npx --no -- jest --bail tests/'],
      ['jest --bail 2 -o src', 'npx --no -- jest src --json', 'npx --no -- jest --bail 2 src'],
      ['vitest run --bail=1 --changed', 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --bail=1'],
      ['go test -failfast ./...', '{ go test -v ./... 2>&1; echo "exit $?"; }', 'go test -failfast ./...'],
      ['python3 -m pytest -k fast', 'python3 -m pytest -k fast --junitxml=.loopdeck/pytest-report.xml', 'python3 -m pytest -k fast'],
      ['go test ./pkg/...', '{ go test -v ./pkg/... 2>&1; echo "exit $?"; }', 'go test ./pkg/...'],
      ['cargo test --workspace', '{ cargo test --workspace --no-fail-fast 2>&1; echo "exit $?"; }', 'cargo test --workspace'],
      ['cargo test -- --nocapture', '{ cargo test --no-fail-fast -- --nocapture 2>&1; echo "exit $?"; }', 'cargo test -- --nocapture'],
      ['npm run test:unit', 'npx --no -- vitest run -c unit.ts --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run -c unit.ts'],
      // yarn and pnpm run a script by its name alone, and append every word after it.
      ['yarn test:unit', 'npx --no -- vitest run -c unit.ts --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run -c unit.ts'],
      ['pnpm test:unit src/', 'npx --no -- vitest run -c unit.ts src/ --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run -c unit.ts src/'],
      ['pnpm run test:unit --reporter=verbose src/', 'npx --no -- vitest run -c unit.ts src/ --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run -c unit.ts --reporter=verbose src/'],
      ['yarn run test:unit -- src/', 'npx --no -- vitest run -c unit.ts src/ --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run -c unit.ts src/'],
    ])('test script %j: observer and verify keep its arguments', async (script, observer, verify) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script, 'test:unit': 'vitest -c unit.ts' } }), 'x_test.go': '\n', 'tests/it.rs': '\n' });
      const out = await init(dir);
      expect(out).toContain(`verify: ${verify}\n`);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect(policy.observe[0]!.command.startsWith(observer)).toBe(true);
      expect(policy.verify[0]!.command).toBe(verify);
      const validate = await validateRun(dir);
      expect(validate.exitCode, validate.stderr).toBe(0);
    }, 30_000);

    it("the project's own programs get every argument of theirs, run as init wrote them (npm's options are not theirs)", async () => {
      // Local programs that write down the arguments they were given, one line a run.
      const logger = '#!/bin/sh\nprintf \'%s\' "$(basename "$0")" >> "$ARGS_LOG"\nfor a in "$@"; do printf \' %s\' "$a" >> "$ARGS_LOG"; done\necho >> "$ARGS_LOG"\n';
      const dir = project({
        'package.json': JSON.stringify({ scripts: { test: 'tsc -p tsconfig.build.json && jest --config jest.ci.js -w 2 --ci' } }),
        'node_modules/.bin/tsc': logger,
        'node_modules/.bin/jest': logger,
      });
      for (const bin of ['tsc', 'jest']) chmodSync(path.join(dir, 'node_modules', '.bin', bin), 0o755);
      await init(dir);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      const log = path.join(dir, 'args.log');
      for (const command of [policy.verify[0]!.command, policy.observe[0]!.command]) {
        await execa('sh', ['-c', command], { cwd: dir, env: { ARGS_LOG: log }, reject: false });
      }
      expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['tsc -p tsconfig.build.json', 'jest --config jest.ci.js -w 2 --ci', 'tsc -p tsconfig.build.json', 'jest --config jest.ci.js -w 2 --ci --json']);
    }, 30_000);

    // What the test script runs before its runner (a build, npm's pretest) and the variables
    // a wrapper sets are part of the test: the observer and the verify run them too.
    it.each<[string, Record<string, unknown>, string, string]>([
      ['tsc && vitest run', {}, 'npx --no -- tsc && npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- tsc && npx --no -- vitest run'],
      ['cross-env NODE_ENV=test jest --ci', {}, 'NODE_ENV=test npx --no -- jest --ci --json', 'NODE_ENV=test npx --no -- jest --ci'],
      ['env CI=1 TZ=UTC node --test test/', {}, 'CI=1 TZ=UTC node --test --test-reporter=tap test/', 'CI=1 TZ=UTC node --test test/'],
      ['npm run build && npm run test:unit', {}, 'npm run build && npx --no -- vitest run -c unit.ts --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npm run build && npx --no -- vitest run -c unit.ts'],
      ['rm -rf dist && tsc -p . && node --test dist/', {}, 'rm -rf dist && npx --no -- tsc -p . && node --test --test-reporter=tap dist/', 'rm -rf dist && npx --no -- tsc -p . && node --test dist/'],
      ['vitest run', { pretest: 'tsc' }, 'npm run pretest && npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npm run pretest && npx --no -- vitest run'],
      // No observer ('') where the runner is known only when npm runs it.
      ['cross-env CI=1 npm run test:unit', {}, '', 'npm test'],
      ['pnpm vitest run', {}, 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run'],
      // npm appends what follows `--` to the script it runs.
      ['npm run test:unit -- --reporter=verbose src/', {}, 'npx --no -- vitest run -c unit.ts src/ --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run -c unit.ts --reporter=verbose src/'],
      ['npm run test:unit', { 'pretest:unit': 'tsc' }, 'npm run pretest:unit && npx --no -- vitest run -c unit.ts --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npm run pretest:unit && npx --no -- vitest run -c unit.ts'],
      // Checks after the runner: measured without them, verified as the project runs them.
      ['jest && eslint .', {}, 'npx --no -- jest --json', 'npm test'],
      ['tsc && vitest run && npm run lint', { lint: 'eslint .' }, 'npx --no -- tsc && npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npm test'],
      ['npm run test:unit && prettier --check .', {}, 'npx --no -- vitest run -c unit.ts --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npm test'],
    ])('test script %j (and %j): the steps before the runner and the variables set run in the observer and the verify', async (script, more, observer, verify) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script, 'test:unit': 'vitest -c unit.ts', build: 'tsc', ...more }, devDependencies: { typescript: '^5' } }) });
      const out = await init(dir);
      expect(out).toContain(`verify: ${verify}\n`);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect(policy.verify[0]!.command).toBe(verify);
      if (observer === '') expect(policy.observe).toEqual([]);
      else expect(policy.observe[0]!.command).toBe(observer);
      const validate = await validateRun(dir);
      expect(validate.exitCode, validate.stderr).toBe(0);
    }, 30_000);

    // A runner in watch mode waits for changes and never exits, even with stdin closed: such a
    // script is never verified by npm test. The fakes below stand in for the runners: each
    // writes down its arguments, waits (as in watch mode) when given a watch flag, prints jest's
    // line and passes when told to run only changed tests, and else exits with $FAKE_EXIT.
    const FAKE_RUNNER = [
      '#!/bin/sh',
      'printf \'%s\' "$(basename "$0")" >> "$ARGS_LOG"',
      'for a in "$@"; do printf \' %s\' "$a" >> "$ARGS_LOG"; done',
      'echo >> "$ARGS_LOG"',
      'for a in "$@"; do case "$a" in --watch|--watchAll|--watch-path=*|-w|watch|dev|--ui) exec sleep 10;; -o|--onlyChanged|--changed) echo "No tests found related to files changed since last commit."; exit 0;; esac; done',
      'exit "${FAKE_EXIT:-0}"',
      '',
    ].join('\n');
    /** A project with `files` whose programs `local` (in node_modules/.bin) and `onPath` (in a folder of its own, returned) are fakes. */
    function fakeProject(files: Record<string, string>, local: string[], onPath: string[] = ['eslint']): { dir: string; bin: string } {
      const dir = project({ ...files, ...Object.fromEntries(local.map((name) => [`node_modules/.bin/${name}`, FAKE_RUNNER])) });
      local.forEach((name) => chmodSync(path.join(dir, 'node_modules', '.bin', name), 0o755));
      const bin = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-fakes-'));
      dirs.push(bin);
      for (const name of onPath) {
        writeFileSync(path.join(bin, name), FAKE_RUNNER);
        chmodSync(path.join(bin, name), 0o755);
      }
      return { dir, bin };
    }
    /** `command` run by sh in `dir` with the fakes of `bin` first on PATH: whether it ended within `timeout` ms, its exit code, and the programs' arguments, one line a run. */
    async function runFaked(dir: string, bin: string, command: string, env: Record<string, string> = {}, timeout = 20_000) {
      const log = path.join(dir, `args-${Math.random().toString(36).slice(2)}.log`);
      const run = await execa('sh', ['-c', command], { cwd: dir, env: { ...env, ARGS_LOG: log, PATH: `${bin}${path.delimiter}${process.env.PATH}` }, stdio: 'ignore', reject: false, timeout });
      return { ended: !run.timedOut, exitCode: run.exitCode, args: existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [] };
    }

    it('a jest script in watch mode with pretest, cross-env and a check after it: the verify runs it once with the watch flag dropped, and ends', async () => {
      const { dir, bin } = fakeProject(
        { 'package.json': JSON.stringify({ scripts: { pretest: 'echo PRETEST', test: 'cross-env NODE_ENV=test jest --watchAll --coverage --ci && eslint .' }, devDependencies: { jest: '29' } }) },
        ['jest'],
      );
      const out = await init(dir);
      expect(out).toContain('; observer: npm run pretest && NODE_ENV=test npx --no -- jest --coverage --ci --json; verify: npm run pretest && NODE_ENV=test npx --no -- jest --coverage --ci && eslint .\n');
      expect(out).toContain('\nleft out of the observer and the verify: --watchAll (watch mode: waits for file changes, never exits)\n');
      expect(readFileSync(path.join(dir, 'loop.yaml'), 'utf8')).toContain("\n# Left out of the observer and the verify: --watchAll (watch mode: waits for file changes, never exits).\nverify:\n");
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      const verify = policy.verify[0]!.command;
      // What npm test as the verify did: jest --watchAll waits, with stdin closed.
      writeFileSync(path.join(bin, 'cross-env'), '#!/bin/sh\nexec env "$@"\n');
      chmodSync(path.join(bin, 'cross-env'), 0o755);
      const before = await runFaked(dir, bin, 'npm test', {}, 3_000);
      expect(before.ended).toBe(false);
      expect(before.args[0]).toBe('jest --watchAll --coverage --ci');
      const passing = await runFaked(dir, bin, verify);
      expect(passing).toEqual({ ended: true, exitCode: 0, args: ['jest --coverage --ci', 'eslint .'] });
      const failing = await runFaked(dir, bin, verify, { FAKE_EXIT: '1' });
      expect(failing).toEqual({ ended: true, exitCode: 1, args: ['jest --coverage --ci'] });
      const observed = await runFaked(dir, bin, policy.observe[0]!.command);
      expect(observed).toEqual({ ended: true, exitCode: 0, args: ['jest --coverage --ci --json'] });
    }, 60_000);

    it.each<[string, Record<string, string>, string, string]>([
      ['vitest --watch && eslint .', {}, 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run && eslint .'],
      ['vitest -w --ui src && eslint .', {}, 'npx --no -- vitest run src --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run src && eslint .'],
      ['vitest watch --coverage && eslint .', {}, 'npx --no -- vitest run --coverage --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --coverage && eslint .'],
      ['vitest dev && eslint .', {}, 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run && eslint .'],
      ['vitest run --watch && eslint .', {}, 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run && eslint .'],
      ['node --test --watch test/ && eslint .', {}, 'node --test --test-reporter=tap test/', 'node --test test/ && eslint .'],
      ['node --test --watch-path=src test/ && eslint .', {}, 'node --test --test-reporter=tap test/', 'node --test test/ && eslint .'],
      ['jest --watch -o && npm run lint', { lint: 'eslint .' }, 'npx --no -- jest --json', 'npx --no -- jest && npm run lint'],
      ['npm run test:w && eslint .', { 'test:w': 'jest --watchAll --ci' }, 'npx --no -- jest --ci --json', 'npx --no -- jest --ci && eslint .'],
      ['jest --watch-all && eslint .', {}, 'npx --no -- jest --json', 'npx --no -- jest && eslint .'],
      ['tsc && vitest --watch && eslint .', {}, 'npx --no -- tsc && npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- tsc && npx --no -- vitest run && eslint .'],
      ['tsx watch --test test/a.test.js', {}, 'npx --no -- tsx --test --test-reporter=tap test/a.test.js', 'npx --no -- tsx --test test/a.test.js'],
      // vitest without `run` watches only in a terminal: loopdeck runs a verify with stdin closed, so npm test ends.
      ['vitest && eslint .', {}, 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npm test'],
    ])('test script %j (and %j): watch flags dropped from the observer and the verify, the checks after it written out; both end', async (script, more, observer, verify) => {
      const { dir, bin } = fakeProject(
        { 'package.json': JSON.stringify({ scripts: { test: script, ...more }, devDependencies: { typescript: '^5' } }), 'test/a.test.js': "require('node:test')('ok', () => {});\n" },
        ['jest', 'vitest', 'tsc', 'tsx'],
      );
      const out = await init(dir);
      expect(out).toContain(`verify: ${verify}\n`);
      if (verify !== 'npm test') expect(out).toMatch(/^left out of the observer and the verify: .*\(watch mode: waits for file changes, never exits\)/m);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect(policy.observe[0]!.command).toBe(observer);
      expect(policy.verify[0]!.command).toBe(verify);
      for (const command of [observer, verify]) {
        const run = await runFaked(dir, bin, command);
        expect(run.ended, command).toBe(true);
        expect(run.args.join('\n')).not.toMatch(/ (--watch\S*|-w|watch|dev|--ui)( |$)/m);
      }
      const validate = await validateRun(dir);
      expect(validate.exitCode, validate.stderr).toBe(0);
    }, 60_000);

    it.each<[string, Record<string, string>, RegExp]>([
      ['ptw -- -q', {}, /verify: none: npm test would never end: ptw waits for file changes/],
      ['pytest-watch && eslint .', {}, /verify: none: npm test would never end: pytest-watch waits for file changes/],
      ['cargo watch -x test', {}, /verify: none: npm test would never end: cargo watch waits for file changes/],
      ['nodemon --exec jest', {}, /verify: none: npm test would never end: nodemon waits for file changes/],
      ['gotestsum --watch', {}, /verify: none: npm test would never end: gotestsum --watch waits for file changes/],
      ['npm run tdd', { tdd: 'ptw' }, /verify: none: npm test would never end: ptw waits for file changes/],
      ['jest', { pretest: 'tsc -w' }, /verify: none: npm test would never end: tsc -w waits for file changes/],
      // What npm runs as written (not followed, or another command than the runner) with an option left out.
      ['cross-env CI=1 npm run test:w', { 'test:w': 'jest -o' }, /verify: none: npm test would run the script "test:w" as written, with -o \(runs only changed/],
      ['jest -o && vitest run', {}, /verify: none: the script also runs "jest -o" as written, with -o \(runs only changed/],
    ])('test script %j (and %j), which waits for changes or runs only some tests as written: no verify, and the one written fails', async (script, more, said) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script, ...more } }) });
      const out = await init(dir);
      expect(out).toMatch(said);
      expect(await verifyExit(dir)).not.toBe(0);
      const validate = await validateRun(dir);
      expect(validate.exitCode, validate.stderr).toBe(0);
    }, 30_000);

    // Runners that watch by default when not in CI (a terminal or none): the verify is the
    // command with its no-watch flag, never npm test, which would never end. The fakes wait
    // (as the real ones do) unless given that flag or CI.
    const WATCHING_BY_DEFAULT = [
      '#!/bin/sh',
      'printf \'%s\' "$(basename "$0")" >> "$ARGS_LOG"',
      'for a in "$@"; do printf \' %s\' "$a" >> "$ARGS_LOG"; done',
      'echo >> "$ARGS_LOG"',
      '[ -n "$CI" ] && exit "${FAKE_EXIT:-0}"',
      'for a in "$@"; do case "$a" in --watchAll=false|--watch=false|--no-watch|--single-run) exit "${FAKE_EXIT:-0}";; esac; done',
      'exec sleep 10',
      '',
    ].join('\n');
    it.each<[string, string, string, string]>([
      ['react-scripts test', 'npx --no -- react-scripts test --watchAll=false --json', 'npx --no -- react-scripts test --watchAll=false', '--watchAll=false (react-scripts test watches for file changes unless CI is set'],
      ['craco test --watch --coverage && eslint .', 'npx --no -- craco test --coverage --watchAll=false --json', 'npx --no -- craco test --coverage --watchAll=false && eslint .', '--watchAll=false (craco test watches'],
      ['react-app-rewired test --env=jsdom', 'npx --no -- react-app-rewired test --env=jsdom --watchAll=false --json', 'npx --no -- react-app-rewired test --env=jsdom --watchAll=false', '--watchAll=false (react-app-rewired test watches'],
      ['ng test', '', 'npx --no -- ng test --watch=false', '--watch=false (ng test watches for file changes by default'],
      ['ng test --code-coverage && eslint .', '', 'npx --no -- ng test --code-coverage --watch=false && eslint .', '--watch=false (ng test watches'],
      ['karma start karma.conf.js', '', 'npx --no -- karma start karma.conf.js --single-run', '--single-run (karma start watches for file changes by default'],
      ['karma start --no-single-run', '', 'npx --no -- karma start --single-run', '--single-run (karma start watches'],
    ])('test script %j, whose runner watches by default: its no-watch flag is added, said so, and both commands end', async (script, observer, verify, added) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script } }), ...Object.fromEntries(['react-scripts', 'craco', 'react-app-rewired', 'ng', 'karma'].map((name) => [`node_modules/.bin/${name}`, WATCHING_BY_DEFAULT])) });
      for (const name of ['react-scripts', 'craco', 'react-app-rewired', 'ng', 'karma']) chmodSync(path.join(dir, 'node_modules', '.bin', name), 0o755);
      const bin = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-fakes-'));
      dirs.push(bin);
      writeFileSync(path.join(bin, 'eslint'), FAKE_RUNNER);
      chmodSync(path.join(bin, 'eslint'), 0o755);
      const out = await init(dir);
      expect(out).toContain(`verify: ${verify}\n`);
      expect(out).toContain(`\nadded to the observer and the verify: ${added}`);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      if (observer === '') expect(policy.observe).toEqual([]);
      else expect(policy.observe[0]!.command).toBe(observer);
      // What npm test as the verify did: it waits, with stdin closed and CI unset (one
      // stand-in serves every runner here, so once is enough to show it).
      if (script === 'react-scripts test') expect((await runFaked(dir, bin, 'npm test', { CI: '' }, 3_000)).ended).toBe(false);
      for (const command of [verify, observer].filter(Boolean)) {
        const run = await runFaked(dir, bin, command, { CI: '' });
        expect(run.ended, command).toBe(true);
        expect((await runFaked(dir, bin, command, { CI: '', FAKE_EXIT: '1' })).exitCode, command).toBe(1);
      }
    }, 60_000);

    it.each<[string, string, string]>([
      ['CI=true react-scripts test', 'CI=true npx --no -- react-scripts test --json', 'CI=true npx --no -- react-scripts test'],
      ['cross-env CI=1 react-scripts test', 'CI=1 npx --no -- react-scripts test --json', 'CI=1 npx --no -- react-scripts test'],
      ['react-scripts test --watchAll=false', 'npx --no -- react-scripts test --watchAll=false --json', 'npx --no -- react-scripts test --watchAll=false'],
      ['ng test --no-watch', '', 'npx --no -- ng test --no-watch'],
      ['karma start --single-run', '', 'npx --no -- karma start --single-run'],
    ])('test script %j, which already runs once: nothing added', async (script, observer, verify) => {
      const out = await init(project({ 'package.json': JSON.stringify({ scripts: { test: script } }) }));
      expect(out).not.toMatch(/^added/m);
      expect(out).toContain(`; observer: ${observer || 'none'}; verify: ${verify}\n`);
    }, 30_000);

    // Options that run only the tests of changed files, related or failed ones, a shard, or
    // none (a listing, a build): in neither command, and said so.
    it.each<[string, string, string, string]>([
      ['jest --bail=1 -o', 'npx --no -- jest --json', 'npx --no -- jest --bail=1', '-o'],
      ['jest --onlyChanged --ci', 'npx --no -- jest --ci --json', 'npx --no -- jest --ci', '--onlyChanged'],
      ['jest --changedSince=main', 'npx --no -- jest --json', 'npx --no -- jest', '--changedSince=main'],
      ['jest --changedSince main src', 'npx --no -- jest src --json', 'npx --no -- jest src', '--changedSince main'],
      ['jest --lastCommit', 'npx --no -- jest --json', 'npx --no -- jest', '--lastCommit'],
      ['jest --findRelatedTests src/a.js src/b.js --ci', 'npx --no -- jest --ci --json', 'npx --no -- jest --ci', '--findRelatedTests src/a.js src/b.js'],
      ['jest --changedFilesWithAncestor', 'npx --no -- jest --json', 'npx --no -- jest', '--changedFilesWithAncestor'],
      ['jest --passWithNoTests src', 'npx --no -- jest src --json', 'npx --no -- jest src', '--passWithNoTests'],
      ['jest --onlyFailures', 'npx --no -- jest --json', 'npx --no -- jest', '--onlyFailures'],
      // The kebab-case spellings jest's and vitest's parsers read as the same options, and short flags written together.
      ['jest --only-changed --ci', 'npx --no -- jest --ci --json', 'npx --no -- jest --ci', '--only-changed'],
      ['jest --changed-since=main', 'npx --no -- jest --json', 'npx --no -- jest', '--changed-since=main'],
      ['jest --changed-since main src', 'npx --no -- jest src --json', 'npx --no -- jest src', '--changed-since main'],
      ['jest --last-commit', 'npx --no -- jest --json', 'npx --no -- jest', '--last-commit'],
      ['jest -io', 'npx --no -- jest -i --json', 'npx --no -- jest -i', '-o'],
      ['vitest run --pass-with-no-tests', 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run', '--pass-with-no-tests'],
      ['vitest --changed HEAD~1 src', 'npx --no -- vitest run src --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run src', '--changed HEAD~1'],
      ['vitest related src/a.ts src/b.ts', 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run', 'related src/a.ts src/b.ts'],
      // vitest reads `--changed=false` as the changes since a commit named "false": no test runs, and it passes.
      ['vitest run --changed=false --watch=false', 'npx --no -- vitest run --watch=false --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --watch=false', '--changed=false'],
      ['vitest run --passWithNoTests --shard=1/2', 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run', '--passWithNoTests'],
      ['node --test --test-only test/', 'node --test --test-reporter=tap test/', 'node --test test/', '--test-only'],
      ['pytest --sw -q', 'pytest -q --junitxml=.loopdeck/pytest-report.xml', 'pytest -q', '--sw'],
      ['pytest --picked --co', 'pytest --junitxml=.loopdeck/pytest-report.xml', 'pytest', '--picked'],
      ['go test -list . ./...', '{ go test -v ./... 2>&1;', 'go test ./...', '-list .'],
      ['cargo test --no-run', '{ cargo test --no-fail-fast 2>&1;', 'cargo test', '--no-run'],
      ['cargo test -- --ignored', '{ cargo test --no-fail-fast -- 2>&1;', 'cargo test --', '--ignored'],
    ])('test script %j: options that leave tests unrun are in neither the observer nor the verify, and said so', async (script, observer, verify, left) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script } }), 'test/a.test.js': '\n', 'x_test.go': '\n', 'tests/it.rs': '\n' });
      const out = await init(dir);
      expect(out).toContain(`verify: ${verify}\n`);
      expect(out).toMatch(new RegExp(`^left out of the observer and the verify: (.*; )?${left.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(runs only changed, related or failed tests, or none: could pass with tests unrun\\)`, 'm'));
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect(policy.observe[0]!.command.startsWith(observer)).toBe(true);
      expect(policy.verify[0]!.command).toBe(verify);
    }, 30_000);

    // A flag written off (`=false`, `=0`) is off, as jest's and vitest's parsers read it: kept as written, nothing said left out.
    it.each<[string, string, string]>([
      ['jest --watchAll=false', 'npx --no -- jest --watchAll=false --json', 'npx --no -- jest --watchAll=false'],
      ['jest --watchAll=false && eslint .', 'npx --no -- jest --watchAll=false --json', 'npm test'],
      ['jest --watch=false --onlyChanged=false --ci', 'npx --no -- jest --watch=false --onlyChanged=false --ci --json', 'npx --no -- jest --watch=false --onlyChanged=false --ci'],
      ['jest --watch-all=0 --passWithNoTests=false', 'npx --no -- jest --watch-all=0 --passWithNoTests=false --json', 'npx --no -- jest --watch-all=0 --passWithNoTests=false'],
      ['vitest run --watch=false', 'npx --no -- vitest run --watch=false --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --watch=false'],
      ['vitest --no-watch --passWithNoTests=false', 'npx --no -- vitest run --no-watch --passWithNoTests=false --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run --no-watch --passWithNoTests=false'],
    ])('test script %j: a flag written off reads as off, nothing is left out', async (script, observer, verify) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script } }) });
      const out = await init(dir);
      expect(out).not.toMatch(/^left out/m);
      expect(out).toContain(`; observer: ${observer}; verify: ${verify}\n`);
    }, 30_000);

    it('jest -o in a committed tree: npm test passes with no test run, the verify written runs the tests and fails', async () => {
      const { dir, bin } = fakeProject({ 'package.json': JSON.stringify({ scripts: { test: 'jest --bail=1 -o' } }) }, ['jest'], []);
      const out = await init(dir);
      expect(out).toContain('; verify: npx --no -- jest --bail=1\n');
      const verify = loadPolicy(path.join(dir, 'loop.yaml')).verify[0]!.command;
      const before = await runFaked(dir, bin, 'npm test', { FAKE_EXIT: '1' });
      expect(before).toMatchObject({ ended: true, exitCode: 0 });
      expect(await runFaked(dir, bin, verify, { FAKE_EXIT: '1' })).toEqual({ ended: true, exitCode: 1, args: ['jest --bail=1'] });
    }, 30_000);

    it('vitest run --changed in a committed tree with a failing test (the real vitest): it passes, the verify written fails', async () => {
      const dir = project({
        'package.json': JSON.stringify({ type: 'module', scripts: { test: 'vitest run --changed' } }),
        'test/a.test.js': "import { expect, test } from 'vitest';\ntest('a', () => expect(1).toBe(2));\n",
        '.gitignore': 'node_modules\n',
      });
      symlinkSync(path.resolve(import.meta.dirname, '../../node_modules'), path.join(dir, 'node_modules'));
      const git = (...args: string[]) => execaSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir });
      git('init', '-q');
      git('add', '-A');
      git('commit', '-qm', 'tests');
      await init(dir);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect(policy.verify[0]!.command).toBe('npx --no -- vitest run');
      const env = { CI: '' };
      expect((await execa('sh', ['-c', 'npx --no -- vitest run --changed'], { cwd: dir, env, stdin: 'ignore', reject: false, timeout: 30_000 })).exitCode).toBe(0);
      const verified = await execa('sh', ['-c', policy.verify[0]!.command], { cwd: dir, env, stdin: 'ignore', reject: false, timeout: 30_000 });
      expect(verified.timedOut).toBe(false);
      expect(verified.exitCode).not.toBe(0);
    }, 60_000);

    it.each<[string, string]>([
      ['a string', "outputFile: 'test-results/junit.xml'"],
      ['one file per reporter', "outputFile: { junit: 'test-results/junit.xml', json: 'test-results/junit.xml' }"],
    ])("a vitest config whose outputFile is %s (the real vitest): the observer reads the JSON report on stdout and never writes the project's report", async (_, outputFile) => {
      const dir = project({
        'package.json': JSON.stringify({ type: 'module', scripts: { test: 'vitest run' } }),
        'vitest.config.mjs': `export default { test: { reporters: ['default', 'junit'], ${outputFile} } };\n`,
        'test/a.test.js': "import { expect, test } from 'vitest';\ntest('a', () => expect(1).toBe(2));\ntest('b', () => {});\n",
        'test-results/junit.xml': 'the project report\n',
      });
      symlinkSync(path.resolve(import.meta.dirname, '../../node_modules'), path.join(dir, 'node_modules'));
      await init(dir);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect((await observe(policy.observe, dir)).metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 1 });
      expect(readFileSync(path.join(dir, 'test-results', 'junit.xml'), 'utf8')).toBe('the project report\n');
    }, 60_000);

    it('a test script that builds before node --test, with a variable set: the observer measures the built tests with it', async () => {
      const test = "const test = require('node:test');\nconst assert = require('node:assert');\ntest('set', () => assert.equal(process.env.GREETING, 'hi'));\ntest('greets', () => assert.equal(1, 2));\n";
      const dir = project({
        'package.json': JSON.stringify({ scripts: { build: 'node build.js', test: 'npm run build && env GREETING=hi node --test dist/' } }),
        'build.js': "const fs = require('node:fs');\nfs.mkdirSync('dist', { recursive: true });\nfs.copyFileSync('src/greet.test.js', 'dist/greet.test.js');\n",
        'src/greet.test.js': test,
      });
      const out = await init(dir);
      expect(out).toContain('test runner: node --test (');
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect((await observe(policy.observe, dir)).metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 1 });
      expect(await verifyExit(dir)).not.toBe(0);
    }, 60_000);

    it.skipIf(!hasCargo)(
      'cargo: the observer counts the tests of every test binary, also after one that fails',
      async () => {
        const dir = project({
          'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
          'src/lib.rs': 'pub fn add(a: i32, b: i32) -> i32 { a - b }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(1, 2), 3); }\n}\n',
          'tests/it.rs': '#[test]\nfn one() {}\n#[test]\nfn two() {}\n',
        });
        await init(dir);
        const observation = await observe(loadPolicy(path.join(dir, 'loop.yaml')).observe, dir);
        expect(observation.metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 2 });
        expect(await verifyExit(dir)).not.toBe(0);
      },
      180_000,
    );

    it.skipIf(!hasPytest)(
      'a test script with pytest -x: the observer counts every test, the verify fails',
      async () => {
        const dir = project({
          'package.json': JSON.stringify({ scripts: { test: 'python -m pytest -x tests/' } }),
          'tests/test_a.py': 'def test_1():\n    assert False\n\ndef test_2():\n    assert False\n\ndef test_3():\n    pass\n\ndef test_4():\n    pass\n',
        });
        await init(dir);
        const observation = await observe(loadPolicy(path.join(dir, 'loop.yaml')).observe, dir);
        expect(observation.metrics).toMatchObject({ 'tests.failing': 2, 'tests.passing': 2 });
        expect(await verifyExit(dir)).not.toBe(0);
      },
      60_000,
    );

    // That npm test passes on such a project (what it would have said as the verify) is run
    // for one script of each reason; for every script with FULL_SWEEP=1.
    const NPM_TEST_SAMPLE = new Set(['node --test; echo done', 'node --test | tee out.txt']);
    it.each<[string, RegExp]>([
      ['node --test; echo done', /exit status need not be its tests'/],
      ['node --test || true', /exit status need not be its tests'/],
      ['node --test | tee out.txt', /exit status need not be its tests'/],
    ])('test script %j, which passes while a test fails: no verify is written, and the one written fails', async (script, why) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script } }), 'test/a.test.js': FAILING_NODE_TEST.replace(/import (\w+) from '(node:\w+)';/g, "const $1 = require('$2');") });
      if (FULL_SWEEP || NPM_TEST_SAMPLE.has(script)) expect((await execa('npm', ['test'], { cwd: dir, reject: false })).exitCode).toBe(0); // what npm test as a verify would have said
      const out = await init(dir);
      expect(out).toMatch(/verify: none: /);
      expect(out).toMatch(why);
      expect(await verifyExit(dir)).not.toBe(0);
      const validate = await validateRun(dir);
      expect(validate.exitCode, validate.stderr).toBe(0);
    }, 30_000);

    it('test script "echo \"all good\"", which runs no test: taken for none, the test files\' runner is chosen, and its verify fails while a test fails', async () => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: 'echo "all good"' } }), 'test/a.test.js': FAILING_NODE_TEST.replace(/import (\w+) from '(node:\w+)';/g, "const $1 = require('$2');") });
      expect((await execa('npm', ['test'], { cwd: dir, reject: false })).exitCode).toBe(0); // what npm test as a verify would have said
      const out = await init(dir);
      expect(out).toContain(`note: package.json's test script ("echo \\"all good\\"") only prints or exits: it runs no test`);
      expect(out).toContain(`test runner: node --test (${path.join('test', 'a.test.js')} is a test file node --test runs by default)`);
      expect(await verifyExit(dir)).not.toBe(0);
    }, 30_000);

    // What loop.yaml cannot hold (a control character) is never copied from the script: the runner's own command instead, with a note.
    it.each<[string, Record<string, string>, string, string]>([
      ['echo \u001b[31mhi && jest', {}, 'npx --no -- jest --json', 'npx --no -- jest'],
      ["vitest run -t $'\u0007'", {}, 'npx --no -- vitest run --reporter=json --outputFile=\"$PWD/.loopdeck/vitest-report.json\"', 'npx --no -- vitest run'],
      ['PS1=\u001b pytest tests/', { 'tests/test_a.py': '\n' }, 'python -m pytest -q --junitxml=.loopdeck/pytest-report.xml', 'python -m pytest -q'],
      ['node --test "test/\u0001a.test.js"', { 'test/a.test.js': '\n' }, 'node --test --test-reporter=tap', 'node --test'],
      ['go test ./...\u000b', { 'go.mod': 'module x\n', 'x_test.go': 'package x\n' }, '{ go test -v ./... 2>&1;', 'go test ./...'],
    ])('test script %j, with a control character: the runner\'s own commands, a note, and validate passes', async (script, files, observer, verify) => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: script } }), ...files });
      const out = await init(dir);
      expect(out).toMatch(/^note: package\.json's test script holds a control character \(U\+00[0-9A-F]{2} \(\w+\)\), which loop\.yaml cannot hold: the observer and the verify run /m);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect(policy.observe[0]!.command.startsWith(observer)).toBe(true);
      expect(policy.verify[0]!.command).toBe(verify);
    }, 30_000);

    it("what init prints quotes package.json's script sanitized: no control, bidi or invisible character reaches the terminal", async () => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: 'node --test\u202e evil\u200b \u001b]0;title\u0007 x' } }) });
      const out = await init(dir);
      expect(out).toContain('"node --test\\u{202e} evil\\u{200b} \\u001b]0;title\\u0007 x"');
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202a-\u202e\u2066-\u2069]/);
    }, 30_000);

    it('a test script naming its test file: the verify written fails while that file fails, and the observer counts it', async () => {
      const dir = project({ 'package.json': JSON.stringify({ type: 'module', scripts: { test: 'node --test spec/greet.js' } }), 'spec/greet.js': FAILING_NODE_TEST });
      await init(dir);
      expect(await verifyExit(dir)).not.toBe(0);
      const observation = await observe(loadPolicy(path.join(dir, 'loop.yaml')).observe, dir);
      expect(observation.metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 1 });
    }, 60_000);

    it.each<[string, Record<string, string>, RegExp]>([
      ["npm's placeholder script", { 'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }), 'index.js': '\n' }, /^test runner: none found .*searched 1 folder up to 3 deep/m],
      ['node --test and no test file', { 'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), 'lib/a.js': '\n' }, /verify: none: no test file that node --test finds by default .* was found .*node --test passes when no test runs/],
      ['go.mod and no *_test.go', { 'go.mod': 'module x\n', 'main.go': 'package main\n' }, /verify: none: no \*_test\.go file was found/],
      ['Cargo.toml and no Rust test', { 'Cargo.toml': '[package]\n', 'src/main.rs': 'fn main() {}\n' }, /verify: none: no Rust test was found/],
    ])('%s: says no tests were found; the verify written fails until set', async (_, files, said) => {
      const dir = project(files);
      const out = await init(dir);
      expect(out).toMatch(said);
      expect(await verifyExit(dir)).not.toBe(0);
      const validate = await validateRun(dir);
      expect(validate.exitCode, validate.stderr).toBe(0);
    }, 30_000);
  });

  describe('the same runners whatever names them', () => {
    it('"test": "pytest" in package.json: the junit observer, as for pytest.ini', async () => {
      const dir = project({ 'package.json': JSON.stringify({ scripts: { test: 'pytest' } }) });
      const out = await init(dir);
      expect(out).toContain(`test runner: pytest (package.json's test script runs pytest ("pytest")); observer: pytest --junitxml=.loopdeck/pytest-report.xml; verify: pytest`);
      expect(loadPolicy(path.join(dir, 'loop.yaml')).observe[0]).toMatchObject({ parser: 'junit', report_file: '.loopdeck/pytest-report.xml' });
    }, 30_000);

    // Test files of each name node --test runs by default, and the commands init writes for them.
    const NODE_TEST_FILES = ['greet.test.mjs', 'test/unit/greet.js', 'src/test-greet.cjs', 'lib/greet_test.js'];
    const NODE_TEST = { observe: 'node --test --test-reporter=tap', verify: 'node --test' };
    /** A test file named `file` with one passing and one failing test (an ES module for .mjs). */
    const nodeTestFile = (file: string) =>
      "const test = require('node:test');\nconst assert = require('node:assert');\ntest('ok', () => {});\ntest('greets', () => assert.equal(1, 2));\n".replace(/require\('node:(\w+)'\)/g, file.endsWith('.mjs') ? "(await import('node:$1')).default" : "require('node:$1')");

    // node --test runs (the observer, the verify) once for the four names together, below; for each name alone with FULL_SWEEP=1.
    it.each(NODE_TEST_FILES.map((file) => [file]))(
      'node test files and no package.json (%s): node --test, and its observer measures them',
      async (file) => {
        const dir = project({ [file]: nodeTestFile(file) });
        const out = await init(dir);
        expect(out).toContain(`test runner: node --test (${file} is a test file node --test runs by default)`);
        const policy = loadPolicy(path.join(dir, 'loop.yaml'));
        expect(policy.observe[0]).toMatchObject({ command: NODE_TEST.observe, parser: 'tap' });
        expect(policy.verify[0]!.command).toBe(NODE_TEST.verify);
        if (FULL_SWEEP) {
          expect((await observe(policy.observe, dir)).metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 1 });
          expect(await verifyExit(dir)).not.toBe(0);
        }
      },
      60_000,
    );

    it('node test files of every name node --test runs by default: its observer measures each of them, its verify fails', async () => {
      const dir = project(Object.fromEntries(NODE_TEST_FILES.map((file) => [file, nodeTestFile(file)])));
      expect(await init(dir)).toMatch(/^test runner: node --test \(\S+ is a test file node --test runs by default\)/m);
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect(policy.observe[0]).toMatchObject({ command: NODE_TEST.observe, parser: 'tap' });
      expect(policy.verify[0]!.command).toBe(NODE_TEST.verify);
      expect((await observe(policy.observe, dir)).metrics).toMatchObject({ 'tests.failing': NODE_TEST_FILES.length, 'tests.passing': NODE_TEST_FILES.length });
      expect(await verifyExit(dir)).not.toBe(0);
    }, 60_000);

    it("the README's walkthrough project (examples/first-loop/project) gets node --test", async () => {
      const dir = project({});
      for (const name of ['greet.mjs', 'greet.test.mjs']) writeFileSync(path.join(dir, name), readFileSync(path.resolve(import.meta.dirname, '../../examples/first-loop/project', name)));
      const out = await init(dir);
      expect(out).toContain('test runner: node --test (greet.test.mjs is a test file node --test runs by default)');
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      expect((await execa('sh', ['-c', policy.verify[0]!.command], { cwd: dir, reject: false })).exitCode).not.toBe(0);
    }, 60_000);

    it('a package.json with a byte order mark is read, as npm reads it', async () => {
      const dir = project({ 'package.json': `\uFEFF${JSON.stringify({ scripts: { test: 'vitest run' } })}` });
      const out = await init(dir);
      expect(out).toContain('test runner: vitest (');
      expect(out).not.toContain('not valid JSON');
    }, 30_000);
  });

  describe('the test file search', () => {
    it('looks in tests/ first: 300 other folders do not hide tests/test_m.py', async () => {
      const files: Record<string, string> = { 'tests/test_m.py': '\n' };
      for (let i = 0; i < 300; i++) files[`d${String(i).padStart(3, '0')}/x.txt`] = '\n';
      const out = await init(project(files));
      expect(out).toContain(`test runner: pytest (${path.join('tests', 'test_m.py')} is a Python test file`);
    }, 30_000);

    it('says where it stopped instead of claiming there are no tests', async () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < 1100; i++) files[`d${String(i).padStart(4, '0')}/x.txt`] = '\n';
      files['zz/test_late.py'] = '\n';
      const out = await init(project(files));
      expect(out).toMatch(/^test runner: none found \(.*searched 1000 folders \(up to 3 deep, tests\/, test\/, spec\/ and src\/ first\), stopped there: test files in the folders not searched were not looked for\)/m);
    }, 60_000);
  });

  describe('a package of an npm, yarn or pnpm workspace', () => {
    /** A workspace root whose node_modules (vitest's, linked from loopdeck's) is the only one, and a package `packages/a` with a failing and a passing test. */
    function monorepo(root: Record<string, string>): string {
      const dir = project({
        ...root,
        'packages/a/package.json': JSON.stringify({ name: 'a', type: 'module', scripts: { test: 'vitest run' } }),
        'packages/a/test/a.test.js': "import { expect, test } from 'vitest';\ntest('a', () => expect(1).toBe(2));\ntest('b', () => {});\n",
      });
      mkdirSync(path.join(dir, 'node_modules'));
      for (const name of ['.bin', 'vitest']) symlinkSync(path.resolve(import.meta.dirname, '../../node_modules', name), path.join(dir, 'node_modules', name));
      return dir;
    }

    it.each<[string, Record<string, string>, string]>([
      ['package.json workspaces', { 'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'] }) }, "package.json's workspaces"],
      ["yarn's workspaces.packages", { 'package.json': JSON.stringify({ private: true, workspaces: { packages: ['packages/**'] } }) }, "package.json's workspaces"],
      ['pnpm-workspace.yaml', { 'package.json': '{"private":true}', 'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n" }, 'pnpm-workspace.yaml'],
    ])('%s, its dependencies at the root: workspace.path is the root, the commands run in the package, and they measure and verify in the copy a run makes', async (_, root, why) => {
      const dir = monorepo(root);
      const pkg = path.join(dir, 'packages', 'a');
      const out = await init(pkg);
      expect(out).not.toMatch(/not installed/);
      expect(out).toContain(`the root of the workspace this package is in (${why} (`);
      expect(out).toContain('; verify: cd packages/a && npx --no -- vitest run\n');
      const policy = loadPolicy(path.join(pkg, 'loop.yaml'));
      expect(policy.workspace).toMatchObject({ path: dir, copy: 'temp' });
      const copy = await prepareWorkspace(policy.workspace, path.join(pkg, 'loop.yaml'), 'init-test');
      dirs.push(copy);
      expect((await observe(policy.observe, copy)).metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 1 });
      expect((await execa('sh', ['-c', policy.verify[0]!.command], { cwd: copy, reject: false, stdin: 'ignore', env: { CI: '' } })).exitCode).toBe(1);
    }, 60_000);

    it('a package.json above whose workspaces do not take the folder: not a workspace, and said not installed', async () => {
      const dir = monorepo({ 'package.json': JSON.stringify({ private: true, workspaces: ['apps/*'] }) });
      rmSync(path.join(dir, 'node_modules'), { recursive: true });
      const out = await init(path.join(dir, 'packages', 'a'));
      expect(out).toContain('workspace: . (the current folder');
      expect(out).toContain('note: vitest is not installed in this project (no node_modules/.bin/vitest)');
    }, 30_000);
  });

  describe('where the file goes, and the commands it prints', () => {
    it('a project folder whose name holds a control character, the file written elsewhere: workspace.path could not hold it, nothing is written, exit 1', async () => {
      const parent = project({});
      const dir = path.join(parent, 'a\u001bb');
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'pytest.ini'), '[pytest]\n');
      const run = await initRun(dir, '../loop.yaml');
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(/not writing .*loop\.yaml: loopdeck validate would refuse what init made of this project \(.*U\+001B \(ESC\)/);
      expect(existsSync(path.join(parent, 'loop.yaml'))).toBe(false);
    }, 30_000);

    it('init <file> elsewhere: the runner is looked for in the current folder, and workspace.path points there', async () => {
      const py = project({ 'pytest.ini': '[pytest]\n' });
      const vt = project({ 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) });
      const target = path.join(path.relative(py, vt), 'other.yaml');
      const out = await init(py, target);
      expect(out).toContain(`workspace: . (the current folder; workspace.path: ${path.relative(vt, py)}, from the file's folder)`);
      expect(out).toContain('test runner: pytest (pytest.ini is there)');
      const policy = loadPolicy(path.join(vt, 'other.yaml'));
      expect(policy.workspace.path).toBe(py);
      expect(policy.observe[0]!.parser).toBe('junit');
    }, 30_000);

    it('a folder named loop.yaml: the command it suggests works and makes a config of this project', async () => {
      const dir = project({ 'pytest.ini': '[pytest]\n', 'loop.yaml/keep': '\n' });
      const refused = await initRun(dir);
      expect(refused.exitCode).toBe(1);
      const suggested = /e\.g\. (.+)\)$/m.exec(refused.stderr)?.[1];
      expect(suggested).toMatch(/^node .+ init loopdeck\.yaml$/);
      const followed = await execa('sh', ['-c', suggested!], { cwd: dir, reject: false });
      expect(followed.exitCode, followed.stderr).toBe(0);
      const policy = loadPolicy(path.join(dir, 'loopdeck.yaml'));
      expect(policy.workspace.path).toBe(dir);
      expect(policy.observe[0]!.parser).toBe('junit');
    }, 30_000);

    it.each([['-x.yaml'], ['my loop.yaml']])('the commands it prints run as printed (%j)', async (name) => {
      const dir = project({ 'pytest.ini': '[pytest]\n' });
      const out = await init(dir, '--', name);
      const validate = /check the file with: (.+)$/m.exec(out)?.[1];
      expect(validate).toBeDefined();
      const run = await execa('sh', ['-c', validate!], { cwd: dir, reject: false });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(out).toMatch(/^then run it with: .+ run -c ('\.\/-x\.yaml'|\.\/-x\.yaml|'my loop\.yaml')$/m);
    }, 30_000);

    it('a file name with a newline: each line init prints is one line, and the commands it prints name that file (bash reads them)', async () => {
      const dir = project({ 'pytest.ini': '[pytest]\n' });
      const name = 'nl\n.yaml';
      const out = await init(dir, '--', name);
      const lines = out.split('\n');
      expect(lines[0]).toBe('wrote nl^J.yaml');
      expect(lines.slice(1).map((line) => /^[a-z ]+:/.exec(line)?.[0])).toEqual(['workspace:', 'test runner:', 'agent:', 'budget:', 'next:', 'then run it with:']);
      const validate = /check the file with: (.+)$/m.exec(out)?.[1];
      expect(validate).toMatch(/ validate \$'nl\\n\.yaml'$/);
      const checked = await execa('bash', ['-c', validate!], { cwd: dir, reject: false });
      expect(checked.exitCode, checked.stderr).toBe(0);
      expect(out).toMatch(/^then run it with: .+ run -c \$'nl\\n\.yaml'$/m);
      // Named again: refused, on one line.
      const again = await initRun(dir, '--', name);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toBe(`loopdeck: ${path.join(dir, 'nl^J.yaml')} exists already: loopdeck init never overwrites a file (remove it, or pass another name)`);
    }, 30_000);

    it("a test file in a folder named with a newline and an escape: one line in what init prints, one comment line in the file, which validates", async () => {
      const dir = project({ 'go.mod': 'module x\n', 'x_test.go': 'package x\n', 'tests/s\nd\x1b/test_b.py': 'def test_a(): pass\n' });
      const out = await init(dir);
      expect(out).toMatch(/^also found: pytest \(tests\/s\^Jd\^\[\/test_b\.py is a Python test file, and pytest runs unittest-style tests too\), in the file as comments; /m);
      expect(out.split('\n').filter((line) => !/^(wrote |[a-z ]+: )/.test(line))).toEqual([]);
      expect(readFileSync(path.join(dir, 'loop.yaml'), 'utf8')).toContain('\n#   pytest (tests/s^Jd^[/test_b.py is a Python test file, and pytest runs unittest-style tests too)\n');
      const validate = await validateRun(dir);
      expect(validate.exitCode, validate.stderr).toBe(0);
    }, 30_000);

    it.skipIf(!existsSync('/proc/self'))('a folder the kernel fills (/proc): says why it cannot write there, and searches nothing', async () => {
      const refused = await initRun('/proc');
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain('cannot write /proc/loop.yaml: the folder /proc takes no new files (ENOENT: a file system such as /proc or /sys that the kernel fills)');
      expect(refused.stderr).not.toContain('does not exist');
    }, 30_000);
  });
});
