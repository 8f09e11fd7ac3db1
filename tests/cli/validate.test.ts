/**
 * `validate` checks everything `run` checks before it starts, and says it all in one pass:
 * a broken agent transcript, a missing workspace folder (both at once when both are wrong),
 * and a config with nothing to measure (a warning; it still validates). A headless run says
 * up front what happens to the calls nobody can answer. Needs the built CLI (`npm run build`).
 *
 * validate, and run where it refuses a config, run in this process
 * (tests/support/cli-in-process.ts: the same command line, output and exit code); the built
 * CLI is spawned for a validate that passes, a run that refuses, and every run that starts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI as cli, loopdeckInProcess } from '../support/cli-in-process.js';

/** A loop.yaml with an observer; `script.yaml` and `project/` beside it. */
const CONFIG = `goal:
  objective: fix it
agent:
  kind: scripted
  script: script.yaml
workspace:
  path: project
  copy: temp
observe:
  - { name: tests, command: "printf '# pass 1\\\\n# fail 1\\\\n'", parser: tap }
progress:
  observed:
    - { signal: observed.tests.failing, direction: decrease }
verify:
  - command: "true"
`;
const SCRIPT = 'turns:\n  - final: done\n';

/** CONFIG without an observer: nothing to measure. */
const BARE = CONFIG.replace(/observe:[\s\S]*?verify:/, 'verify:');

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-validate-'));
  mkdirSync(path.join(cwd, 'project'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function write(config: string, script = SCRIPT): string {
  writeFileSync(path.join(cwd, 'loop.yaml'), config);
  writeFileSync(path.join(cwd, 'script.yaml'), script);
  return path.join(cwd, 'loop.yaml');
}

/** `loopdeck validate <file>`, in this process. */
const validate = (file: string) => loopdeckInProcess(['validate', file], { cwd });
/** `loopdeck run --headless --config <file>` of a config it refuses, in this process. */
const refusedRun = (file: string) => loopdeckInProcess(['run', '--headless', '--config', file], { cwd });
/** `loopdeck run --headless --config <file>`, the built CLI; the workspace copy of a run that started is removed. */
async function run(file: string) {
  const result = await execa('node', [cli, 'run', '--headless', '--config', file], { cwd, reject: false, stdin: 'ignore' });
  const copy = /^loopdeck: log .*; workspace (.+)$/m.exec(result.stderr)?.[1];
  if (copy && path.basename(copy).startsWith('loopdeck-project-')) rmSync(copy, { recursive: true, force: true });
  return result;
}

describe('validate checks what run checks', { timeout: 60_000 }, () => {
  it('a valid config validates with no warning (the built CLI)', async () => {
    const result = await execa('node', [cli, 'validate', write(CONFIG)], { cwd, reject: false });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ goal: { objective: 'fix it' } });
  });

  it('errors do not hide warnings: a broken transcript and approval rules naming no tool are reported in one pass', async () => {
    const file = write(`${CONFIG}approval:\n  default: ask\n  allow: [shel]\n  deny: [rm_rf]\n`, 'turns:\n  - thougth: hm\n');
    const checked = await validate(file);
    expect(checked.exitCode).toBe(1);
    expect(checked.stderr).toMatch(/approval\.allow\[0\]: the rule names "shel", which is not a tool/);
    expect(checked.stderr).toMatch(/approval\.deny\[0\]: the rule names "rm_rf", which is not a tool/);
    expect(checked.stderr).toMatch(/turns\[0\]\.thougth: unknown key/);
  });

  it('a broken agent transcript: validate refuses it as run does, naming the transcript (run: the built CLI)', async () => {
    const file = write(CONFIG, 'turns:\n  - thougth: hm\n');
    const checked = await validate(file);
    expect(checked.exitCode).toBe(1);
    expect(checked.stderr).toBe(`loopdeck: invalid config\n${path.join(cwd, 'script.yaml')}:2:5: turns[0].thougth: unknown key "thougth"; did you mean "thought"?`);
    expect(checked.stdout).toBe('');
    const ran = await run(file);
    expect(ran.exitCode).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain(checked.stderr);
  });

  it('a missing workspace.path: validate refuses it as run does', async () => {
    const file = write(CONFIG.replace('path: project', 'path: no-such-folder'));
    const checked = await validate(file);
    expect(checked.exitCode).toBe(1);
    expect(checked.stderr).toBe(`loopdeck: invalid config\n${file}:7:9: workspace.path: expected a directory, found nothing at ${path.join(cwd, 'no-such-folder')}`);
    const ran = await refusedRun(file);
    expect(ran.exitCode).toBe(1);
    expect(ran.stderr).toContain(checked.stderr);
  });

  it('both wrong at once: every error in one pass', async () => {
    const file = write(CONFIG.replace('path: project', 'path: no-such-folder'), 'turns:\n  - thougth: hm\n');
    const checked = await validate(file);
    expect(checked.exitCode).toBe(1);
    expect(checked.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      `${file}:7:9: workspace.path: expected a directory, found nothing at ${path.join(cwd, 'no-such-folder')}`,
      `${path.join(cwd, 'script.yaml')}:2:5: turns[0].thougth: unknown key "thougth"; did you mean "thought"?`,
    ]);
  });

  // run's own warning of a config with nothing to measure: in the run of the in-place test below.
  it('nothing to measure: a warning that says what is missing and what to add; it still validates', async () => {
    const checked = await validate(write(BARE));
    expect(checked.exitCode, checked.stderr).toBe(0);
    expect(checked.stderr).toMatch(/^loopdeck: warning: .*loop\.yaml: nothing to measure \(no `observe` command\): every checkpoint will be UNKNOWN.*add an observer/);
    const noSignal = await validate(write(CONFIG.replace(/progress:[\s\S]*?verify:/, 'verify:')));
    expect(noSignal.stderr).toMatch(/nothing to measure \(no `progress\.observed` signal\)/);
    // It has an observer: what to add is the signals it gives, not another observer.
    expect(noSignal.stderr).toMatch(/add the signals the observers give to progress\.observed \(e\.g\. observed\.\w+\.failing with direction: decrease\)/);
    expect(noSignal.stderr).not.toContain('add an observer');
  });

  it("a scripted agent's calls the engine would refuse: one warning each, at its place, with every problem; it still validates", async () => {
    const script = [
      'turns:',
      '  - tool_calls:',
      '      - { id: c1, name: shell, args: { command: 1, timeout: "x" } }',
      '      - { id: c2, name: read_fil, args: { path: a.txt } }',
      '      - { id: c3, name: read_file, args: { path: a.txt } }',
      '  - final: done',
      'laps:',
      '  - - tool_calls: [{ id: l1, name: write_file, args: { path: b.txt } }]',
      '',
    ].join('\n');
    const checked = await validate(write(CONFIG, script));
    expect(checked.exitCode, checked.stderr).toBe(0);
    const warnings = checked.stderr.split('\n').filter((line) => line.includes('the engine will refuse this call'));
    const file = path.join(cwd, 'script.yaml');
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^loopdeck: warning: ${file}:3:9: turns\\[0\\]\\.tool_calls\\[0\\]: shell \\(c1\\): bad arguments: command: [^;]+; args: Unrecognized key: "timeout"; the engine`)),
      expect.stringMatching(new RegExp(`^loopdeck: warning: ${file}:4:9: turns\\[0\\]\\.tool_calls\\[1\\]: read_fil \\(c2\\): unknown tool \\(known: `)),
      expect.stringMatching(new RegExp(`^loopdeck: warning: ${file}:8:\\d+: laps\\[0\\]\\[0\\]\\.tool_calls\\[0\\]: write_file \\(l1\\): bad arguments: content: `)),
    ]);
  });

  it('a headless run says first that calls the rules ask about are denied', async () => {
    const result = await run(write(CONFIG, 'turns:\n  - tool_calls: [{ id: c1, name: shell, args: { command: "ls" } }]\n  - final: done\n'));
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe('loopdeck: with nobody to answer, tool calls the approval rules ask about are denied (the agent is told); --approve all approves them');
    expect(result.stdout).toMatch(/"type":"tool\.decision".*"decision":"deny"/);
  });

  it('a workspace used in place (copy: none) with uncommitted changes, and nothing to measure: validate and run warn at start', async () => {
    const project = path.join(cwd, 'project');
    const env = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    await execa('git', ['init', '-q'], { cwd: project, env });
    writeFileSync(path.join(project, 'notes.txt'), 'mine, not committed\n');
    const file = write(BARE.replace('copy: temp', 'copy: none'));
    const warning = /workspace\.copy is none and \S+ has 1 uncommitted change: the agent's edits will mix with them, and an abort stashes both together; commit or stash them first, or set workspace\.copy: temp/;
    const checked = await validate(file);
    expect(checked.exitCode, checked.stderr).toBe(0);
    expect(checked.stderr).toMatch(warning);
    const ran = await run(file);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(warning);
    expect(ran.stderr).toMatch(/^loopdeck: .*nothing to measure/m);
    // A copy, or a clean tree, says nothing.
    expect((await validate(write(CONFIG))).stderr).toBe('');
  });
});

/** A contract that sets what the engine keeps under other names or units: limits, durations, `unlimited`, paths in subfolders. */
const SET_EVERYTHING = `goal:
  objective: fix it
  constraints:
    - { text: keep the tests, protect: ["test/**"] }
agent:
  kind: scripted
  script: scripts/script.yaml
workspace:
  path: project
  copy: none
budget:
  max_iterations: 12
  max_tool_calls: unlimited
  max_wall_clock: 1h30m
  max_tokens: 90000
  max_cost_usd: 0.5
  increments: { wall_clock: 15m, turns: 4 }
observe:
  - { name: tests, command: "printf '# pass 1\\n# fail 1\\n'", parser: tap, timeout: 45s }
progress:
  observed:
    - { signal: observed.tests.failing, direction: decrease }
verify:
  - { command: "true", timeout: 90s }
approval:
  timeout: unlimited
hooks:
  - trace-writer
  - { name: note, topic: after_plan, command: "true", timeout: 3s }
hook_timeout: 7s
tools: { shell_timeout: 2h }
`;

describe('the config file named as given', { timeout: 60_000 }, () => {
  it('a missing workspace.path names the loop.yaml as the user gave it (relative stays relative), in validate and run, as the loader does', async () => {
    mkdirSync(path.join(cwd, 'conf'));
    writeFileSync(path.join(cwd, 'conf', 'loop.yaml'), CONFIG.replace('path: project', 'path: no-such-folder'));
    writeFileSync(path.join(cwd, 'conf', 'script.yaml'), SCRIPT);
    const given = path.join('conf', 'loop.yaml');
    const expected = `loopdeck: invalid config\n${given}:7:9: workspace.path: expected a directory, found nothing at ${path.join(cwd, 'conf', 'no-such-folder')}`;
    const checked = await validate(given);
    expect([checked.exitCode, checked.stderr]).toEqual([1, expected]);
    const ran = await refusedRun(given);
    expect(ran.exitCode).toBe(1);
    expect(ran.stderr).toContain(expected);
    // With a schema error beside it, the loader names the file the same way.
    writeFileSync(path.join(cwd, 'conf', 'loop.yaml'), CONFIG.replace('path: project', 'path: no-such-folder').replace('copy: temp', 'copy: tmp'));
    expect((await validate(given)).stderr).toMatch(new RegExp(`^${given.replace('.', '\\.')}:8:9: workspace\\.copy: `, 'm'));
    // The warnings about the file name it as given too.
    writeFileSync(path.join(cwd, 'conf', 'loop.yaml'), CONFIG.replace('path: project', 'path: ../project').replace(/observe:[\s\S]*?verify:/, 'verify:'));
    const warned = await validate(given);
    expect(warned.exitCode, warned.stderr).toBe(0);
    expect(warned.stderr).toMatch(new RegExp(`^loopdeck: warning: ${given.replace('.', '\\.')}: nothing to measure`));
  });
});

describe('validate prints loop.yaml', { timeout: 60_000 }, () => {
  it('the effective config in loop.yaml keys and units: pasted into a loop.yaml, the loader reads the same config', async () => {
    const { loadPolicy, LOOP_SCHEMA } = await import('../../src/engine/policy.js');
    mkdirSync(path.join(cwd, 'scripts'));
    writeFileSync(path.join(cwd, 'scripts', 'script.yaml'), SCRIPT);
    writeFileSync(path.join(cwd, 'loop.yaml'), SET_EVERYTHING);
    const result = await loopdeckInProcess(['validate'], { cwd });
    expect(result.exitCode, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, any>;
    // The schema's keys, the user's units, the paths as written.
    expect(Object.keys(printed).every((key) => key in LOOP_SCHEMA.shape)).toBe(true);
    expect(printed.budget).toEqual({
      max_iterations: 12,
      max_tool_calls: 'unlimited',
      max_wall_clock: '1h30m',
      max_tokens: 90000,
      max_cost_usd: 0.5,
      warn_fraction: 0.8,
      on_exhausted: 'pause',
      increments: { turns: 4, tool_calls: 20, wall_clock: '15m', tokens: 50000, cost_usd: 1 },
    });
    expect(printed.agent).toEqual({ kind: 'scripted', script: path.join('scripts', 'script.yaml') });
    expect(printed.workspace).toEqual({ path: 'project', copy: 'none' });
    expect([printed.observe[0].timeout, printed.verify[0].timeout, printed.approval.timeout, printed.hooks[1].timeout, printed.hook_timeout, printed.tools.shell_timeout]).toEqual([
      '45s',
      '1m30s',
      'unlimited',
      '3s',
      '7s',
      '2h',
    ]);
    // Pasted into a loop.yaml beside the first, it is the same contract.
    writeFileSync(path.join(cwd, 'pasted.yaml'), result.stdout);
    const { file: _a, ...original } = loadPolicy(path.join(cwd, 'loop.yaml'));
    const { file: _b, ...pasted } = loadPolicy(path.join(cwd, 'pasted.yaml'));
    expect(pasted).toEqual(original);
    // And validated again it prints the same text.
    const again = await loopdeckInProcess(['validate', 'pasted.yaml'], { cwd });
    expect(again.stdout).toBe(result.stdout);
  });
});

describe('naming the file', { timeout: 60_000 }, () => {
  it('takes the file as an argument or with --config, as run does; two different names are refused', async () => {
    writeFileSync(path.join(cwd, 'other.yaml'), CONFIG);
    writeFileSync(path.join(cwd, 'script.yaml'), SCRIPT);
    for (const args of [['other.yaml'], ['--config', 'other.yaml'], ['-c', 'other.yaml'], ['other.yaml', '-c', 'other.yaml']]) {
      const result = await loopdeckInProcess(['validate', ...args], { cwd });
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout).goal.objective).toBe('fix it');
    }
    const both = await loopdeckInProcess(['validate', 'loop.yaml', '--config', 'other.yaml'], { cwd });
    expect(both.exitCode).toBe(1);
    expect(both.stderr).toContain('two files named (loop.yaml and --config other.yaml)');
  });
});

describe('validate: top-level x- keys are extension fields loopdeck ignores', { timeout: 60_000 }, () => {
  it('an anchor under x-common is used elsewhere; the printed config holds no x- key', async () => {
    const file = write(`x-common: &t 45s\nx-notes: { owner: me }\n${CONFIG.replace('parser: tap }', 'parser: tap, timeout: *t }')}`);
    const result = await validate(file);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const config = JSON.parse(result.stdout) as { observe: Array<{ timeout: string }> };
    expect(config.observe[0]!.timeout).toBe('45s');
    expect(Object.keys(config).filter((key) => key.startsWith('x-'))).toEqual([]);
    expect(result.stdout).not.toContain('owner');
  });

  it('a key without the x- prefix, or an x- key below the top level, is still an unknown key', async () => {
    const file = write(`${CONFIG}y-common: 1\nbudget:\n  x-foo: 2\n`);
    const result = await validate(file);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      `${file}:16:1: y-common: unknown key "y-common"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools`,
      `${file}:18:3: budget.x-foo: unknown key "x-foo"; expected one of: max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd, warn_fraction, on_exhausted, increments`,
    ]);
  });
});
