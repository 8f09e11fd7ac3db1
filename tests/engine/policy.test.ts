import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, ConfigErrors } from '../../src/engine/errors.js';
import { loadPolicy, parsePolicy } from '../../src/engine/policy.js';
import { BASE } from '../support/loop-yaml-base.js';

const ROOT_LOOP_YAML = fileURLToPath(new URL('../../loop.yaml', import.meta.url));


function configErrors(source: string, file = 'loop.yaml'): ConfigErrors {
  try {
    parsePolicy(source, file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigErrors);
    return error as ConfigErrors;
  }
  throw new Error('expected parsePolicy to throw ConfigErrors');
}

describe('parsePolicy', () => {
  it("accepts the repo's loop.yaml and reads its values", () => {
    const policy = parsePolicy(fs.readFileSync(ROOT_LOOP_YAML, 'utf8'), 'loop.yaml');
    expect(policy.file).toBe(path.resolve('loop.yaml'));
    expect(policy.goal).toEqual({
      objective: 'Names with accents must survive the payload round trip',
      success_criteria: ['every test of node --test passes'],
      constraints: ['do not edit the tests'],
      on_violation: 'pause',
      priority: 'normal',
      sub_goals: [],
    });
    expect(policy.agent).toEqual({ kind: 'scripted', script: path.resolve('fixtures/scripts/payload-bug.yaml') });
    expect(policy.workspace).toEqual({ path: path.resolve('fixtures/workspaces/payload-bug'), copy: 'temp' });
    expect(policy.budget.limits).toEqual({ turns: 40, tool_calls: 60, wall_clock_seconds: 1800, tokens: 200000, cost_usd: 2 });
    expect(policy.budget.warn_fraction).toBe(0.8);
    expect(policy.observe).toEqual([{ name: 'tests', command: 'node --test --test-reporter=tap', parser: 'tap', timeout: 60 }]);
    expect(policy.progress).toEqual({
      assess: false,
      observed: [
        { signal: 'observed.tests.failing', direction: 'decrease' },
        { signal: 'observed.tests.passing', direction: 'increase' },
      ],
      reported: { track: ['new_evidence', 'eliminated_hypotheses'], resets_stagnation: false },
    });
    expect(policy.stagnation).toEqual({ checkpoints_without_observed_progress: 3, on_detect: 'pause', on_unknown: 'alert' });
    expect(policy.verify).toEqual([{ command: 'node --test', timeout: 60 }]);
    expect(policy.approval).toEqual({ default: 'ask', allow: ['read_file', 'write_file', 'edit'], deny: [], timeout: 1800, builtin_gates: 'on' });
  });

  it('fills defaults for a minimal file', () => {
    const policy = parsePolicy(BASE, '/tmp/conf/loop.yaml');
    expect(policy.agent).toMatchObject({ kind: 'scripted', script: '/tmp/conf/s.yaml' });
    expect(policy.workspace).toEqual({ path: '/tmp/conf/ws', copy: 'none' });
    expect(policy.budget.limits).toEqual({ turns: 50, tool_calls: 100, wall_clock_seconds: 1800, tokens: null, cost_usd: null });
    expect(policy.checkpoint).toEqual({ every_iterations: 3 });
    expect(policy.progress.reported).toEqual({ track: ['new_evidence', 'eliminated_hypotheses'], resets_stagnation: false });
    expect(policy.stagnation).toEqual({ checkpoints_without_observed_progress: 3, on_detect: 'pause', on_unknown: 'alert' });
  });

  it('reads durations and unlimited', () => {
    const policy = parsePolicy(`${BASE}budget:\n  max_wall_clock: 1h30m\n  max_iterations: unlimited\n`, 'loop.yaml');
    expect(policy.budget.limits.wall_clock_seconds).toBe(5400);
    expect(policy.budget.limits.turns).toBeNull();
  });

  it('rejects a reported.* path under progress.observed, naming the path, file and line:column', () => {
    const source = `${BASE}progress:\n  observed:\n    - signal: reported.remaining_hypotheses\n      direction: decrease\n`;
    const error = configErrors(source);
    expect(error.errors).toHaveLength(1);
    const [e] = error.errors as [ConfigError];
    expect(e.file).toBe('loop.yaml');
    expect(e.path).toBe('progress.observed[0].signal');
    expect(e.position).toBe('12:15');
    expect(error.message).toBe(
      'loop.yaml:12:15: progress.observed[0].signal: a reported.* path cannot measure progress: only observed.* signals can (observed beats reported)',
    );
  });

  it('rejects reported.resets_stagnation: true', () => {
    const error = configErrors(`${BASE}progress:\n  reported:\n    resets_stagnation: true\n`);
    expect(error.message).toBe(
      'loop.yaml:12:24: progress.reported.resets_stagnation: expected false (reported claims never reset stagnation: only observed progress does), found true',
    );
  });

  it('rejects an unknown key, naming it', () => {
    const error = configErrors(`${BASE}budget:\n  max_turns: 3\n`);
    expect(error.errors.map((e) => e.path)).toEqual(['budget.max_turns']);
    expect(error.message).toBe('loop.yaml:11:3: budget.max_turns: unknown key "max_turns"; expected one of: max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd, warn_fraction, on_exhausted, increments');
  });

  it('rejects an unknown top-level key, naming it', () => {
    expect(configErrors(`${BASE}retries: 3\n`).message).toBe('loop.yaml:10:1: retries: unknown key "retries"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools');
  });

  it('lists every problem of a file in one pass', () => {
    const error = configErrors(`${BASE}retries: 3\nstagnation:\n  on_detect: explode\n`);
    expect(error.errors.map((e) => e.path).sort()).toEqual(['retries', 'stagnation.on_detect']);
  });

  it('rejects a duplicate key', () => {
    const error = configErrors(`${BASE}budget:\n  max_iterations: 5\n  max_iterations: 6\n`);
    expect(error.errors).toHaveLength(1);
    expect(error.message).toContain('loop.yaml');
    expect(error.message).toContain('Map keys must be unique');
  });

  it('says where the duplicate key is (line:column)', () => {
    // The second max_iterations is on line 12, column 3.
    const error = configErrors(`${BASE}budget:\n  max_iterations: 5\n  max_iterations: 6\n`);
    expect(error.errors[0]!.position).toBe('12:3');
    expect(error.message).toMatch(/^loop\.yaml:12:3: /);
  });

  it('says where a YAML syntax error is (line:column)', () => {
    // A mis-indented key on line 12 makes line 11's value a nested mapping.
    const error = configErrors(`${BASE}budget:\n  max_iterations: 5\n   warn_fraction: 0.5\n`);
    expect(error.errors[0]!.position).toBe('11:19');
    expect(error.message).toMatch(/^loop\.yaml:11:19: /);
  });

  it.each([
    ['goal', BASE.replace('objective: fix it', 'objective: fix it\n  __proto__: x'), 'loop.yaml:3:14: goal.__proto__: this key name is not allowed'],
    ['pricing', `${BASE}pricing:\n  __proto__: {polluted: true}\n`, 'loop.yaml:11:14: pricing.__proto__: this key name is not allowed'],
  ])('rejects a __proto__ key under %s without polluting Object.prototype', (_where, source, message) => {
    expect(configErrors(source).message).toBe(message);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([['90'], ['ten minutes'], ['0s'], ['05m']])('rejects max_wall_clock: %s', (value) => {
    const error = configErrors(`${BASE}budget:\n  max_wall_clock: ${value}\n`);
    expect(error.errors.map((e) => [e.path, e.position])).toEqual([['budget.max_wall_clock', '11:19']]);
  });

  it.each([['90'], ['ten minutes']])('tells what a duration looks like for max_wall_clock: %s', (value) => {
    const error = configErrors(`${BASE}budget:\n  max_wall_clock: ${value}\n`);
    expect(error.message).toContain('expected a duration like 90s, 10m or 1h30m');
  });

  it('tells what a duration looks like for an observer timeout: ten minutes', () => {
    const source = `${BASE}observe:\n  - name: tests\n    command: node --test\n    parser: tap\n    timeout: ten minutes\n`;
    expect(configErrors(source).message).toBe(
      'loop.yaml:14:14: observe[0].timeout: expected a duration like 90s, 10m or 1h30m, found "ten minutes"',
    );
  });

  it('rejects a second observer of a name, at its name, naming the first; every one in one pass', () => {
    const observer = (name: string) => `  - name: ${name}\n    command: node --test\n    parser: tap\n`;
    const source = `${BASE}observe:\n${observer('tests')}${observer('lint')}${observer('tests')}${observer('lint')}${observer('tests')}`;
    expect(configErrors(source).errors.map((e) => e.message)).toEqual([
      'loop.yaml:17:11: observe[2].name: expected a name of its own, found "tests", the name of observe[0] (an observer\'s metrics are named by it)',
      'loop.yaml:20:11: observe[3].name: expected a name of its own, found "lint", the name of observe[1] (an observer\'s metrics are named by it)',
      'loop.yaml:23:11: observe[4].name: expected a name of its own, found "tests", the name of observe[0] (an observer\'s metrics are named by it)',
    ]);
  });

  it.each([
    ['a criterion whose check is wrong', '  success_criteria:\n    - { text: b, check: { command: "true", signal: observed.tests.failing, target: 0, bogus: 1 } }\n'],
    ['an unknown top-level key', ''],
  ])('observers of one name and a signal of no observer are reported beside %s, in one pass', (_what, criteria) => {
    const observer = (name: string, parser: string) => `  - name: ${name}\n    command: node --test\n    parser: ${parser}\n`;
    const source = `${BASE.replace('  objective: fix it\n', `  objective: fix it\n${criteria}`)}${criteria === '' ? 'bogus: 1\n' : ''}observe:\n${observer('tests', 'tap')}${observer('tests', 'tap')}progress:\n  observed:\n    - { signal: observed.nope.failing, direction: decrease }\n`;
    const messages = configErrors(source).errors.map((e) => e.message);
    expect(messages.some((m) => /observe\[1\]\.name: expected a name of its own, found "tests", the name of observe\[0\]/.test(m)), messages.join('\n')).toBe(true);
    const signal = messages.find((m) => m.includes('progress.observed[0].signal'));
    expect(signal, messages.join('\n')).toMatch(/expected one of observed\.tests\.\w+/);
    // Each metric named once, though two observers give it.
    const listed = /expected one of (.*), found/.exec(signal!)![1]!.split(', ');
    expect(listed).toEqual([...new Set(listed)]);
    // And the problem beside them, once each (the criterion's check has two).
    expect(messages).toHaveLength(criteria === '' ? 3 : 4);
    expect(new Set(messages).size).toBe(messages.length);
  });

  it('a signal of no observer is reported when an observer of another name is wrong', () => {
    const source = `${BASE}observe:\n  - name: tests\n    command: node --test\n    parser: tapp\nprogress:\n  observed:\n    - { signal: observed.nope.failing, direction: decrease }\n    - { signal: observed.tests.failing, direction: decrease }\n`;
    const messages = configErrors(source).errors.map((e) => e.message);
    expect(messages.some((m) => m.includes('observe[0].parser')), messages.join('\n')).toBe(true);
    // observed.nope has no observer whatever the wrong one measures; observed.tests is the wrong one's, not judged.
    expect(messages.filter((m) => m.includes('progress.observed')), messages.join('\n')).toEqual([expect.stringContaining('progress.observed[0].signal: expected')]);
  });

  it('rejects a file without verify commands', () => {
    const source = BASE.replace('verify:\n  - command: node --test\n', 'verify: []\n');
    expect(configErrors(source).message).toBe('loop.yaml:8:9: verify: expected at least one verify command, found an empty list');
  });
});

describe('loadPolicy', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('throws ConfigErrors naming a missing file', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-policy-'));
    const file = path.join(dir, 'nope.yaml');
    let caught: unknown;
    try {
      loadPolicy(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigErrors);
    expect((caught as ConfigErrors).errors[0]!.file).toBe(file);
    expect((caught as ConfigErrors).message).toBe(`${file}: no such file in ${dir}`);
  });

  it('a loop.yaml missing from the current folder: names the folder and how to name another file', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-policy-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(() => loadPolicy('loop.yaml')).toThrow(
        `loop.yaml: no such file in ${fs.realpathSync(dir)}; run loopdeck in a folder with a loop.yaml, or pass --config <file>; to write a first one for the project here: loopdeck init`,
      );
      expect(() => loadPolicy('loop.yaml', { otherFile: 'its path: npx loopdeck validate <file>', self: 'npx loopdeck' })).toThrow(
        `loop.yaml: no such file in ${fs.realpathSync(dir)}; run loopdeck in a folder with a loop.yaml, or pass its path: npx loopdeck validate <file>; to write a first one for the project here: npx loopdeck init`,
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it('loads a file from disk and resolves paths against its directory', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-policy-'));
    const file = path.join(dir, 'loop.yaml');
    fs.writeFileSync(file, BASE);
    fs.writeFileSync(path.join(dir, 's.yaml'), 'turns: []\n');
    const policy = loadPolicy(file);
    expect(policy.file).toBe(file);
    expect(policy.agent).toMatchObject({ kind: 'scripted', script: path.join(dir, 's.yaml') });
    expect(policy.workspace.path).toBe(path.join(dir, 'ws'));
  });

  it('names the file in validation errors', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-policy-'));
    const file = path.join(dir, 'loop.yaml');
    fs.writeFileSync(file, `${BASE}retries: 3\n`);
    expect(() => loadPolicy(file)).toThrow(`${file}:10:1: retries: unknown key "retries"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools`);
  });
});

describe('loadPolicy: agent.script must be a readable file', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The messages of loading `source` as `<dir>/loop.yaml`, after `setup(dir)`. */
  function loadErrors(source: string, setup: (dir: string) => void = () => undefined): string[] {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-script-'));
    const file = path.join(dir, 'loop.yaml');
    fs.writeFileSync(file, source);
    fs.mkdirSync(path.join(dir, 'ws'));
    setup(dir);
    try {
      loadPolicy(file);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigErrors);
      return (error as ConfigErrors).errors.map((e) => e.message);
    }
    throw new Error('expected loadPolicy to throw ConfigErrors');
  }

  it('names loop.yaml, the key, its line:column and the resolved path of a missing transcript', () => {
    const messages = loadErrors(BASE.replace('script: s.yaml', 'script: fixtures/scripts/nope.yaml'));
    expect(messages).toEqual([
      `${dir}/loop.yaml:5:11: agent.script: expected a readable file, found none at ${dir}/fixtures/scripts/nope.yaml (relative paths resolve against the folder of loop.yaml)`,
    ]);
  });

  it('an absolute path: no hint on relative paths', () => {
    const missing = path.join(os.tmpdir(), 'loopdeck-no-such-dir', 'nope.yaml');
    expect(loadErrors(BASE.replace('script: s.yaml', `script: ${missing}`))).toEqual([
      `${dir}/loop.yaml:5:11: agent.script: expected a readable file, found none at ${missing}`,
    ]);
  });

  it('a directory', () => {
    const messages = loadErrors(BASE.replace('script: s.yaml', 'script: scripts'), (d) => fs.mkdirSync(path.join(d, 'scripts')));
    expect(messages).toEqual([`${dir}/loop.yaml:5:11: agent.script: expected a readable file, found a directory at ${dir}/scripts`]);
  });

  it('parsePolicy checks the text only (no file is read)', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-script-'));
    expect(parsePolicy(BASE, path.join(dir, 'loop.yaml')).agent).toEqual({ kind: 'scripted', script: path.join(dir, 's.yaml') });
  });
});
