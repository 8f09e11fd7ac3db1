/**
 * `loopdeck init` writes a first loop.yaml that `validate` accepts, with an observer and a
 * verify command for the project's test runner, and never overwrites a file. Needs the
 * built CLI (`npm run build`).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, execaSync } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { observe } from '../../src/engine/observe.js';
import { loadPolicy } from '../../src/engine/policy.js';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');
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

const PROJECTS: Array<[string, Record<string, string>, string, string, string]> = [
  ['node --test script', { 'package.json': JSON.stringify({ scripts: { test: 'node --test test/' } }) }, 'node --test', 'tap', 'node --test'],
  ['vitest script', { 'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }) }, 'vitest', 'vitest-json', 'npx vitest run'],
  ['jest dependency', { 'package.json': JSON.stringify({ devDependencies: { jest: '^29' } }) }, 'jest', 'jest-json', 'npx jest'],
  ['pytest.ini', { 'pytest.ini': '[pytest]\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['pyproject naming pytest', { 'pyproject.toml': '[tool.pytest.ini_options]\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['requirements naming pytest', { 'requirements-dev.txt': 'black\npytest>=8\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['Python test files and no config', { 'calc.py': 'def add(a, b):\n    return a + b\n', 'tests/test_calc.py': 'import unittest\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['a *_test.py three folders down', { 'src/pkg/tests/calc_test.py': '\n' }, 'pytest', 'junit', 'python -m pytest -q'],
  ['broken package.json beside go.mod', { 'package.json': '{ "scripts": ', 'go.mod': 'module x\n' }, 'go test', 'regex', 'go test ./...'],
  ['go.mod', { 'go.mod': 'module x\n' }, 'go test', 'regex', 'go test ./...'],
  ['Cargo.toml', { 'Cargo.toml': '[package]\nname = "x"\n' }, 'cargo test', 'regex', 'cargo test'],
];

describe('loopdeck init', () => {
  it.each(PROJECTS)('%s: names the runner and why; the file validates with its observer and verify', async (_, files, runner, parser, verify) => {
    const dir = project(files);
    const init = await execa('node', [cli, 'init'], { cwd: dir, reject: false });
    expect(init.exitCode).toBe(0);
    expect(init.stdout).toContain('wrote loop.yaml');
    expect(init.stdout).toContain(`test runner: ${runner} (`);
    expect(init.stdout).toMatch(/validate loop\.yaml/);
    // What `validate` checks (the CLI's validate itself runs in the test below).
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    expect(policy.observe[0]).toMatchObject({ name: 'tests', parser });
    expect(policy.verify[0]!.command).toBe(verify);
    expect(policy.progress.observed.map((s) => s.signal)).toEqual(['observed.tests.failing', 'observed.tests.passing']);
    expect(policy.budget.limits.turns).toBeGreaterThan(0);
    expect(readFileSync(path.join(dir, 'loop.yaml'), 'utf8')).toMatch(/# Claude Code, Codex or Gemini CLI/);
  }, 30_000);

  it('a project without a test runner gets a file that validates, says so, and cannot be met until verify is set', async () => {
    const dir = project({ 'README.md': 'nothing here\n' });
    const init = await execa('node', [cli, 'init'], { cwd: dir });
    expect(init.stdout).toContain('test runner: none found');
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    const verify = await execa('sh', ['-c', policy.verify[0]!.command], { cwd: dir, reject: false });
    expect(verify.exitCode).not.toBe(0);
  }, 30_000);

  it('says why it chose a runner, and what it could not read', async () => {
    const byFile = project({ 'tests/unit/test_calc.py': '\n' });
    expect((await execa('node', [cli, 'init'], { cwd: byFile })).stdout).toContain(`test runner: pytest (${path.join('tests', 'unit', 'test_calc.py')} is a Python test file`);
    const broken = project({ 'package.json': '{ "scripts": ', 'go.mod': 'module x\n' });
    const init = await execa('node', [cli, 'init'], { cwd: broken });
    expect(init.stdout).toMatch(/^note: package\.json is not valid JSON \(.+\): its test runner was not considered$/m);
  }, 30_000);

  it('test files where no test runner looks (dependencies, virtual environments, too deep) are not a project', async () => {
    const dir = project({ 'node_modules/x/test_a.py': '\n', '.venv/lib/test_b.py': '\n', 'a/b/c/d/test_c.py': '\n' });
    const init = await execa('node', [cli, 'init'], { cwd: dir });
    expect(init.stdout).toContain('test runner: none found');
  }, 30_000);

  it('a test script loopdeck reads no report of: npm test verifies, no observer is made up, and validate passes', async () => {
    const dir = project({ 'package.json': JSON.stringify({ scripts: { test: 'mocha --recursive' } }) });
    const init = await execa('node', [cli, 'init'], { cwd: dir });
    expect(init.stdout).toContain('test runner: npm test (package.json\'s test script runs "mocha --recursive", whose output loopdeck has no parser for');
    expect(init.stdout).toContain('observer: none; verify: npm test');
    const policy = loadPolicy(path.join(dir, 'loop.yaml'));
    expect(policy.observe).toEqual([]);
    expect(policy.verify[0]!.command).toBe('npm test');
    const validate = await execa('node', [cli, 'validate'], { cwd: dir, reject: false });
    expect(validate.exitCode, validate.stderr).toBe(0);
  }, 30_000);

  it.skipIf(execaSync('python', ['-m', 'pytest', '--version'], { reject: false }).exitCode !== 0)(
    'a Python project with only test files: the pytest observer it writes measures 1 failing, 2 passing',
    async () => {
      const dir = project({
        'calc.py': 'def add(a, b):\n    return a - b\n',
        'tests/test_calc.py': 'from calc import add\n\ndef test_one():\n    assert True\n\ndef test_two():\n    assert True\n\ndef test_add():\n    assert add(1, 2) == 3\n',
        'tests/conftest.py': 'import sys, os\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n',
      });
      await execa('node', [cli, 'init'], { cwd: dir });
      const policy = loadPolicy(path.join(dir, 'loop.yaml'));
      const observation = await observe(policy.observe, dir);
      expect(observation.errors).toEqual([]);
      expect(observation.metrics).toMatchObject({ 'tests.failing': 1, 'tests.passing': 2 });
    },
    60_000,
  );

  it('never overwrites a file: exit 1, the file names itself, its content stays', async () => {
    const dir = project({ 'loop.yaml': 'mine\n', 'package.json': '{}' });
    const init = await execa('node', [cli, 'init'], { cwd: dir, reject: false });
    expect(init.exitCode).toBe(1);
    expect(init.stderr).toContain('loop.yaml exists already');
    expect(readFileSync(path.join(dir, 'loop.yaml'), 'utf8')).toBe('mine\n');
    const other = await execa('node', [cli, 'init', 'other.yaml'], { cwd: dir });
    expect(other.stdout).toContain('wrote other.yaml');
  }, 30_000);

  it('a file it cannot write: a missing folder, a folder, says which and why, exit 1, no stack', async () => {
    const dir = project({ 'package.json': '{}' });
    mkdirSync(path.join(dir, 'conf'));
    for (const [target, said] of [
      ['sub/loop.yaml', `the folder ${path.join(dir, 'sub')} does not exist`],
      ['/does/not/exist/loop.yaml', 'the folder /does/not/exist does not exist'],
      ['conf', 'it is a folder'],
    ] as const) {
      const init = await execa('node', [cli, 'init', target], { cwd: dir, reject: false });
      expect(init.exitCode, init.stderr).toBe(1);
      expect(init.stderr).toContain(said);
      expect(init.stderr).not.toMatch(/ENOENT|EISDIR|\n\s+at /);
    }
  }, 30_000);

  it('the node --test project: validate passes, and the observer it writes measures 1 failing, 2 passing', async () => {
    const dir = project({
      'package.json': JSON.stringify({ type: 'module', scripts: { test: 'node --test' } }),
      'test/a.test.js': "import test from 'node:test';\nimport assert from 'node:assert';\ntest('one', () => {});\ntest('two', () => {});\ntest('three', () => assert.equal(1, 2));\n",
    });
    await execa('node', [cli, 'init'], { cwd: dir });
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
      await execa('node', [cli, 'init'], { cwd: dir });
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
        // No toolchain at all: the shell's "not found" and exit 127 are quoted.
        rmSync(path.join(bin, program));
        process.env.PATH = `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`;
        const absent = await observe(policy.observe, dir);
        expect(absent.errors[0]).toMatch(new RegExp(`${program}: (command )?not found.*exit 127`));
      } finally {
        process.env.PATH = env;
      }
    }
  }, 60_000);
});
