import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadPolicy, MAX_CONFIG_BYTES, parsePolicy } from '../../src/engine/policy.js';
import { DEFAULT_REPETITION_OPTIONS } from '../../src/engine/repetition.js';
import { BASE, policyErrors } from '../support/loop-yaml-base.js';


const messages = policyErrors;

describe('new sections: defaults', () => {
  it('fills repetition, laps, on_abort and budget.on_exhausted for a minimal file', () => {
    const policy = parsePolicy(BASE, 'loop.yaml');
    expect(policy.repetition).toEqual({
      window: 5,
      threshold: 3,
      exempt_tools: [],
      ignore_arg_keys: [],
      include_result: true,
      on_detect: 'pause',
    });
    expect(policy.laps).toEqual({ enabled: false, max_laps: 5, max_consecutive_failures: 3, progress_file: 'PROGRESS.md' });
    expect(policy.on_abort).toEqual({ stash: true, report: true });
    expect(policy.budget.on_exhausted).toBe('pause');
    expect(policy.hooks).toEqual([]);
    expect(policy.approval.builtin_gates).toBe('on');
    expect(policy.observe).toEqual([]);
    expect(policy.hook_timeout).toBe(5);
    expect(policy.tools).toEqual({ shell_timeout: 120, output_limit_bytes: 16384 });
    expect(policy.budget.increments).toEqual({ turns: 10, tool_calls: 20, wall_clock_seconds: 600, tokens: 50000, cost_usd: 1 });
    expect(policy.approval.timeout).toBe(1800);
  });

  it('repetition defaults agree with the repetition guard', () => {
    const { on_detect: _onDetect, ...options } = parsePolicy(BASE, 'loop.yaml').repetition;
    expect(options).toEqual({ ...DEFAULT_REPETITION_OPTIONS });
  });

  it('reads every new section as written', () => {
    const source = `${BASE}repetition:
  window: 4
  threshold: 4
  exempt_tools: [wait]
  ignore_arg_keys: [timestamp]
  include_result: false
  on_detect: stop
laps:
  enabled: true
  max_laps: 2
  max_consecutive_failures: 1
  progress_file: notes/progress.md
on_abort:
  stash: false
  report: true
budget:
  on_exhausted: abort
`;
    const policy = parsePolicy(source, 'loop.yaml');
    expect(policy.repetition).toEqual({
      window: 4,
      threshold: 4,
      exempt_tools: ['wait'],
      ignore_arg_keys: ['timestamp'],
      include_result: false,
      on_detect: 'stop',
    });
    expect(policy.laps).toEqual({ enabled: true, max_laps: 2, max_consecutive_failures: 1, progress_file: 'notes/progress.md' });
    expect(policy.on_abort).toEqual({ stash: false, report: true });
    expect(policy.budget.on_exhausted).toBe('abort');
  });

  it('accepts unlimited for all but one budget dimension', () => {
    // Priced, so the cost can be measured and bound the run alone.
    const source = `${BASE}budget:\n  max_iterations: unlimited\n  max_tool_calls: unlimited\n  max_wall_clock: unlimited\n  max_cost_usd: 0.5\npricing:\n  input_per_million_usd: 1\n`;
    expect(parsePolicy(source, 'loop.yaml').budget.limits).toEqual({
      turns: null,
      tool_calls: null,
      wall_clock_seconds: null,
      tokens: null,
      cost_usd: 0.5,
    });
  });
});

describe('errors a person can act on', () => {
  it.each([
    ['a misspelt key, with the nearest one', `${BASE}budget:\n  max_iteration: 5\n`, 'loop.yaml:11:3: budget.max_iteration: unknown key "max_iteration"; did you mean "max_iterations"?'],
    ['a misspelt section (block value: the key is pointed at)', `${BASE}stagnaton:\n  on_detect: pause\n`, 'loop.yaml:10:1: stagnaton: unknown key "stagnaton"; did you mean "stagnation"?'],
    ['a swapped pair of letters', `${BASE}laps:\n  enabeld: true\n`, 'loop.yaml:11:3: laps.enabeld: unknown key "enabeld"; did you mean "enabled"?'],
    ['a misspelt enum value', `${BASE}repetition:\n  on_detect: pasue\n`, 'loop.yaml:11:14: repetition.on_detect: expected one of alert, pause, stop, found "pasue"; did you mean "pause"?'],
    ['a misspelt agent kind', BASE.replace('kind: scripted', 'kind: scriptd'), 'loop.yaml:4:9: agent.kind: expected kind: scripted, openai or command, found "scriptd"; did you mean "scripted"?'],
    ['a misspelt built-in hook', `${BASE}hooks: [approval-gat]\n`, 'loop.yaml:10:9: hooks[0]: expected a built-in hook (approval-gate, destructive-deny, trace-writer) or { name, topic, command }, found "approval-gat"; did you mean "approval-gate"?'],
    ['no for a boolean', `${BASE}laps:\n  enabled: no\n`, 'loop.yaml:11:12: laps.enabled: expected true or false, found "no" (YAML 1.2 reads no as a string; write false)'],
    ['off for a boolean', `${BASE}on_abort:\n  stash: off\n`, 'loop.yaml:11:10: on_abort.stash: expected true or false, found "off" (YAML 1.2 reads off as a string; write false)'],
    ['Yes for a boolean', `${BASE}repetition:\n  include_result: Yes\n`, 'loop.yaml:11:19: repetition.include_result: expected true or false, found "Yes" (YAML 1.2 reads Yes as a string; write true)'],
    ['a quoted boolean', `${BASE}task:\n  complex: "true"\n`, 'loop.yaml:11:12: task.complex: expected true or false, found "true" (a quoted string; write true without quotes)'],
    ['an empty limit', `${BASE}budget:\n  max_iterations:\n`, 'loop.yaml:11:18: budget.max_iterations: expected a positive integer or "unlimited", found an empty value (write a number, or unlimited to remove the limit)'],
    ['0 for a limit', `${BASE}budget:\n  max_iterations: 0\n`, 'loop.yaml:11:19: budget.max_iterations: expected a positive integer or "unlimited", found 0 (0 would not mean unlimited: write unlimited to remove the limit)'],
    ['0 for a cost limit', `${BASE}budget:\n  max_cost_usd: 0\n`, 'loop.yaml:11:17: budget.max_cost_usd: expected a positive number or "unlimited", found 0 (0 would not mean unlimited: write unlimited to remove the limit)'],
    ['a cost limit past USD 1,000,000', `${BASE}budget:\n  max_cost_usd: 99999999999999999999999\n`, 'loop.yaml:11:17: budget.max_cost_usd: expected at most 1000000 (USD; write unlimited to lift the limit), found 99999999999999999999999'],
    ['a cost increment past USD 1,000,000', `${BASE}budget:\n  increments: { cost_usd: 1000001 }\n`, 'loop.yaml:11:27: budget.increments.cost_usd: expected at most 1000000 (USD), found 1000001'],
    ['a negative limit', `${BASE}budget:\n  max_tool_calls: -3\n`, 'loop.yaml:11:19: budget.max_tool_calls: expected a positive integer or "unlimited", found -3'],
    ['a fractional count', `${BASE}budget:\n  max_tool_calls: 2.5\n`, 'loop.yaml:11:19: budget.max_tool_calls: expected a positive integer or "unlimited", found 2.5'],
    ['.nan for a limit', `${BASE}budget:\n  max_cost_usd: .nan\n`, 'loop.yaml:11:17: budget.max_cost_usd: expected a positive number or "unlimited", found .nan'],
    ['.inf for a limit', `${BASE}budget:\n  max_tokens: .inf\n`, 'loop.yaml:11:15: budget.max_tokens: expected at most 9007199254740991 (the largest whole number; write unlimited to lift the limit), found .inf'],
    ['a string that is no number', `${BASE}budget:\n  max_cost_usd: 1.5.0\n`, 'loop.yaml:11:17: budget.max_cost_usd: expected a positive number or "unlimited", found "1.5.0"'],
    ['a leading zero', `${BASE}budget:\n  max_iterations: 010\n`, 'loop.yaml:11:19: budget.max_iterations: expected a number without leading zeros, found 010 (YAML 1.2 reads it as 10, YAML 1.1 as octal; write 10)'],
    ['a leading zero anywhere', `${BASE}checkpoint:\n  every_iterations: 03\n`, 'loop.yaml:11:21: checkpoint.every_iterations: expected a number without leading zeros, found 03 (YAML 1.2 reads it as 3, YAML 1.1 as octal; write 3)'],
    ['a bare number for a duration', `${BASE}budget:\n  max_wall_clock: 90\n`, 'loop.yaml:11:19: budget.max_wall_clock: expected a duration like 90s, 10m or 1h30m (or "unlimited"), found 90 (a bare number has no unit: write 90s)'],
    ['hh:mm for a duration', `${BASE}tools:\n  shell_timeout: 1:30\n`, 'loop.yaml:11:18: tools.shell_timeout: expected a duration like 90s, 10m or 1h30m, found "1:30" (hh:mm is not read as a time: write e.g. 1h30m)'],
    ['0 for a duration that may be unlimited', `${BASE}approval:\n  timeout: 0\n`, 'loop.yaml:11:12: approval.timeout: expected a duration like 90s, 10m or 1h30m (or "unlimited"), found 0 (0 would not mean unlimited: write unlimited to remove the limit)'],
    ['a budget with no bound at all', `${BASE}budget:\n  max_iterations: unlimited\n  max_tool_calls: unlimited\n  max_wall_clock: unlimited\n`, 'loop.yaml:10:1: budget: expected at least one bound, found every limit unlimited (max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd): a run with no bound would never stop'],
    ['repetition.threshold above window', `${BASE}repetition:\n  window: 3\n  threshold: 4\n`, 'loop.yaml:12:14: repetition.threshold: expected at most repetition.window (3), found 4'],
    ['repetition.window below 2', `${BASE}repetition:\n  window: 1\n`, 'loop.yaml:11:11: repetition.window: expected an integer >= 2, found 1'],
    ['repetition.threshold not an integer', `${BASE}repetition:\n  threshold: 2.5\n`, 'loop.yaml:11:14: repetition.threshold: expected an integer >= 2, found 2.5'],
    ['a progress file outside the workspace', `${BASE}laps:\n  progress_file: ../PROGRESS.md\n`, 'loop.yaml:11:18: laps.progress_file: expected a path relative to the workspace, inside it, found "../PROGRESS.md"'],
    ['an absolute progress file', `${BASE}laps:\n  progress_file: /tmp/PROGRESS.md\n`, 'loop.yaml:11:18: laps.progress_file: expected a path relative to the workspace, inside it, found "/tmp/PROGRESS.md"'],
    ['an unknown on_exhausted', `${BASE}budget:\n  on_exhausted: stop\n`, 'loop.yaml:11:17: budget.on_exhausted: expected one of pause, abort, found "stop"'],
    ['a number where a string is expected', `${BASE}pattern: 5\n`, 'loop.yaml:10:10: pattern: expected one of react, plan-and-execute, reflexion, auto, found 5'],
    ['a missing section', BASE.replace('workspace:\n  path: ws\n', ''), 'loop.yaml:1:1: workspace: expected a mapping, found nothing (this key is required)'],
    ['a missing key', BASE.replace('  script: s.yaml\n', ''), 'loop.yaml:3:1: agent.script: expected a string, found nothing (this key is required)'],
    ['a list for a section', `${BASE}laps: [1]\n`, 'loop.yaml:10:7: laps: expected a mapping, found a list'],
    ['a mapping for a list', `${BASE}observe: {name: tests}\n`, 'loop.yaml:10:10: observe: expected a list, found a mapping'],
    ['an unknown tag', `${BASE}pattern: !foo react\n`, 'loop.yaml:10:10: pattern: expected a plain YAML value, found the tag !foo (loop.yaml takes no tags: remove it)'],
    ['a duplicate key', `${BASE}laps:\n  max_laps: 2\n  max_laps: 3\n`, 'loop.yaml:12:3: laps.max_laps: Map keys must be unique: expected "max_laps" once, found it again (first at 11:3)'],
    ['a constructor key', `${BASE}on_abort:\n  constructor: 1\n`, 'loop.yaml:11:16: on_abort.constructor: this key name is not allowed'],
    ['a prototype key', `${BASE}prototype: {}\n`, 'loop.yaml:10:12: prototype: this key name is not allowed'],
    ['a list used as a key', `${BASE}? [a, b]\n: 1\n`, 'loop.yaml:10:3: (root): expected a plain key, found a list used as a key'],
    ['a %YAML 1.1 directive', `%YAML 1.1\n---\n${BASE}`, 'loop.yaml:1:1: expected YAML 1.2, found a %YAML 1.1 directive (remove it: no, 010 and 1:30 mean other things there)'],
  ])('%s', (_kind, source, message) => {
    expect(messages(source)).toEqual([message]);
  });

  it('a misspelt key of one agent kind is matched against that kind only', () => {
    expect(messages(BASE.replace('script: s.yaml', 'scirpt: s.yaml'))).toEqual([
      'loop.yaml:3:1: agent.script: expected a string, found nothing (this key is required)',
      'loop.yaml:5:3: agent.scirpt: unknown key "scirpt"; did you mean "script"?',
    ]);
  });

  it('a misspelt kind is named as an unknown key too, with the nearest key of any agent kind', () => {
    expect(messages(BASE.replace('kind: scripted', 'knd: scripted'))).toEqual([
      'loop.yaml:3:1: agent.kind: expected kind: scripted, openai or command, found nothing (this key is required)',
      'loop.yaml:4:3: agent.knd: unknown key "knd"; did you mean "kind"?',
    ]);
    expect(messages(BASE.replace('kind: scripted', 'knd: scripted').replace('script: s.yaml', 'scrpt: s.yaml'))).toEqual([
      'loop.yaml:3:1: agent.kind: expected kind: scripted, openai or command, found nothing (this key is required)',
      'loop.yaml:4:3: agent.knd: unknown key "knd"; did you mean "kind"?',
      'loop.yaml:5:3: agent.scrpt: unknown key "scrpt"; did you mean "script"?',
    ]);
  });

  it('a misspelt kind: the section is checked as the kind it is nearest to, so its other errors are listed in the same pass', () => {
    expect(messages(BASE.replace('kind: scripted', 'kind: scriptd'))).toEqual([
      'loop.yaml:4:9: agent.kind: expected kind: scripted, openai or command, found "scriptd"; did you mean "scripted"?',
    ]);
    expect(messages(BASE.replace('kind: scripted', 'kind: scriptd').replace('script: s.yaml', 'scirpt: s.yaml'))).toEqual([
      'loop.yaml:3:1: agent.script: expected a string, found nothing (this key is required; agent checked as kind: scripted)',
      'loop.yaml:4:9: agent.kind: expected kind: scripted, openai or command, found "scriptd"; did you mean "scripted"?',
      'loop.yaml:5:3: agent.scirpt: unknown key "scirpt"; did you mean "script"? (agent checked as kind: scripted)',
    ]);
    expect(messages(BASE.replace('kind: scripted', 'kind: opneai').replace('script: s.yaml', 'model: 12\n  base_url: http://localhost:1/v1\n  tempreature: 0.2'))).toEqual([
      'loop.yaml:4:9: agent.kind: expected kind: scripted, openai or command, found "opneai"; did you mean "openai"?',
      'loop.yaml:5:10: agent.model: expected a string, found 12 (agent checked as kind: openai)',
      'loop.yaml:7:3: agent.tempreature: unknown key "tempreature"; did you mean "temperature"? (agent checked as kind: openai)',
    ]);
  });

  it('an unknown kind near none: keys of every agent kind are allowed, others are named', () => {
    expect(messages(BASE.replace('kind: scripted', 'kind: robot').replace('script: s.yaml', 'model: m\n  scirpt: s.yaml'))).toEqual([
      'loop.yaml:4:9: agent.kind: expected kind: scripted, openai or command, found "robot"',
      'loop.yaml:6:3: agent.scirpt: unknown key "scirpt"; did you mean "script"?',
    ]);
  });

  it('suggests nothing when no key is close (max_turns is not max_tokens)', () => {
    expect(messages(`${BASE}budget:\n  max_turns: 3\n`)).toEqual(['loop.yaml:11:3: budget.max_turns: unknown key "max_turns"; expected one of: max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd, warn_fraction, on_exhausted, increments']);
  });

  it('names every unknown key of one mapping, each at its own line', () => {
    expect(messages(`${BASE}laps:\n  enabld: true\n  max_lap: 2\n`)).toEqual([
      'loop.yaml:11:3: laps.enabld: unknown key "enabld"; did you mean "enabled"?',
      'loop.yaml:12:3: laps.max_lap: unknown key "max_lap"; did you mean "max_laps"?',
    ]);
  });

  it('bounds alias expansion and says where', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
    ].join('\n');
    expect(messages(`${BASE}${bomb}\n`)).toEqual([
      'loop.yaml:13:36: d[7]: expected aliases to expand to at most 10000 nodes, found *c taking the document past it (alias expansion is bounded)',
    ]);
  });

  it('accepts a few aliases', () => {
    const source = `${BASE.replace('verify:\n  - command: node --test\n', '')}verify:\n  - &check { command: node --test }\n  - *check\n`;
    expect(parsePolicy(source, 'loop.yaml').verify).toEqual([
      { command: 'node --test', timeout: 300 },
      { command: 'node --test', timeout: 300 },
    ]);
  });

  it('never emits a warning for an unknown tag (nothing reaches the terminal)', () => {
    const emit = vi.spyOn(process, 'emitWarning');
    const warn = vi.spyOn(console, 'warn');
    try {
      messages(`${BASE}pattern: !foo react\n`);
      messages(`${BASE}? {a: 1}\n: x\n`);
      expect(emit).not.toHaveBeenCalled();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      emit.mockRestore();
      warn.mockRestore();
    }
  });

  it('rejects a __proto__ key inside a list without polluting Object.prototype', () => {
    expect(messages(`${BASE}observe:\n  - __proto__: {polluted: true}\n    name: tests\n    command: 'true'\n    parser: tap\n`)).toEqual([
      'loop.yaml:11:16: observe[0].__proto__: this key name is not allowed',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('loadPolicy: the file size is capped', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('refuses a file over MAX_CONFIG_BYTES, saying where the limit is crossed', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-size-'));
    const file = path.join(dir, 'loop.yaml');
    const line = `# ${'x'.repeat(97)}\n`; // 100 bytes
    fs.writeFileSync(file, BASE + line.repeat(Math.ceil(MAX_CONFIG_BYTES / 100)));
    const size = fs.statSync(file).size;
    // BASE is 9 lines, 122 bytes; the limit falls 262022 bytes later: 2620 lines of 100 bytes, then 22 bytes.
    expect(() => loadPolicy(file)).toThrow(`${file}:2630:23: expected at most ${MAX_CONFIG_BYTES} bytes, found ${size} bytes (the limit is crossed here)`);
  });

  it('refuses a directory', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-size-'));
    expect(() => loadPolicy(dir!)).toThrow(`${dir}: expected a regular file, found a directory, device or pipe`);
  });
});
