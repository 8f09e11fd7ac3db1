// Bad loop.yaml files through the built CLI (`npm run build` first): each kind of mistake
// gives its own error with file:line:column, exits 1, and never starts a run. The sweeps of
// mistakes run the command line in this process (tests/support/cli-in-process.ts: the same
// output and exit code); the built CLI is spawned for a sample of each command (run,
// validate, check) and where the process is the subject (Node's own warnings, a long error
// list written whole to a pipe).
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI as cli, loopdeckInProcess } from '../support/cli-in-process.js';

const root = path.resolve(import.meta.dirname, '../..');

/** A valid loop.yaml (9 lines); each case appends from line 10 or replaces a line. */
const BASE = `goal:
  objective: fix it
agent:
  kind: scripted
  script: ${path.join(root, 'fixtures/scripts/payload-bug.yaml')}
workspace:
  path: ${path.join(root, 'fixtures/workspaces/payload-bug')}
  copy: temp
verify:
  - command: node --test
`;

const ALIAS_BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
  'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
].join('\n');

/** [kind, file content, the error after `<file>:`] */
const CASES: Array<[string, string, string]> = [
  ['an unknown (misspelt) key', `${BASE}budget:\n  max_iteration: 5\n`, '12:3: budget.max_iteration: unknown key "max_iteration"; did you mean "max_iterations"?'],
  // Drawn as nothing, so blank: a zero-width space and a joiner, a no-break space and a Hangul filler.
  ['a verify command of invisible characters', BASE.replace('  - command: node --test\n', '  - command: node --test\n  - command: "\\u200b\\u200d"\n'), '11:14: verify[1].command: expected a non-empty string, found "\\u{200b}\\u{200d}" (only invisible characters)'],
  ['an objective of invisible characters', BASE.replace('objective: fix it', 'objective: "\\u00a0\\u3164"'), '2:14: goal.objective: expected a non-empty string, found "\u00a0\\u{3164}" (only invisible characters)'],
  ['a duplicate key', `${BASE}budget:\n  max_iterations: 5\n  max_iterations: 6\n`, '13:3: budget.max_iterations: Map keys must be unique: expected "max_iterations" once, found it again (first at 12:3)'],
  ['unbounded alias expansion', `${BASE}${ALIAS_BOMB}\n`, '14:36: d[7]: expected aliases to expand to at most 10000 nodes, found *c taking the document past it (alias expansion is bounded)'],
  ['a YAML warning (unknown tag)', `${BASE}pattern: !foo react\n`, '11:10: pattern: expected a plain YAML value, found the tag !foo (loop.yaml takes no tags: remove it)'],
  ['a __proto__ key', `${BASE}pricing:\n  __proto__: {polluted: true}\n`, '12:14: pricing.__proto__: this key name is not allowed'],
  ['a constructor key', `${BASE}constructor: 1\n`, '11:14: constructor: this key name is not allowed'],
  ['a prototype key', `${BASE}laps:\n  prototype: {}\n`, '12:14: laps.prototype: this key name is not allowed'],
  ['no for a boolean', `${BASE}on_abort:\n  stash: no\n`, '12:10: on_abort.stash: expected true or false, found "no" (YAML 1.2 reads no as a string; write false)'],
  ['off for a boolean', `${BASE}laps:\n  enabled: off\n`, '12:12: laps.enabled: expected true or false, found "off" (YAML 1.2 reads off as a string; write false)'],
  ['an empty limit', `${BASE}budget:\n  max_tool_calls:\n`, '12:18: budget.max_tool_calls: expected a positive integer or "unlimited", found an empty value (write a number, or unlimited to remove the limit)'],
  ['0 for a limit', `${BASE}budget:\n  max_iterations: 0\n`, '12:19: budget.max_iterations: expected a positive integer or "unlimited", found 0 (0 would not mean unlimited: write unlimited to remove the limit)'],
  ['a NaN limit', `${BASE}budget:\n  max_cost_usd: .nan\n`, '12:17: budget.max_cost_usd: expected a positive number or "unlimited", found .nan'],
  ['a NaN-producing string', `${BASE}budget:\n  max_tokens: 200k\n`, '12:15: budget.max_tokens: expected a positive integer or "unlimited", found "200k"'],
  ['a leading zero', `${BASE}budget:\n  max_iterations: 040\n`, '12:19: budget.max_iterations: expected a number without leading zeros, found 040 (YAML 1.2 reads it as 40, YAML 1.1 as octal; write 40)'],
  ['a duration without a unit', `${BASE}budget:\n  max_wall_clock: 90\n`, '12:19: budget.max_wall_clock: expected a duration like 90s, 10m or 1h30m (or "unlimited"), found 90 (a bare number has no unit: write 90s)'],
  ['a duration as hh:mm', `${BASE}approval:\n  timeout: 1:30\n`, '12:12: approval.timeout: expected a duration like 90s, 10m or 1h30m (or "unlimited"), found "1:30" (hh:mm is not read as a time: write e.g. 1h30m)'],
  ['a duration outside the grammar', BASE.replace('  - command: node --test\n', '  - command: node --test\n    timeout: 1h 30m\n'), '11:14: verify[0].timeout: expected a duration like 90s, 10m or 1h30m, found "1h 30m"'],
  [
    'a progress signal no observer gives (misspelt)',
    `${BASE}observe:\n  - name: tests\n    command: node --test\n    parser: tap\nprogress:\n  observed:\n    - signal: observed.test.failing\n      direction: decrease\n`,
    '17:15: progress.observed[0].signal: expected one of observed.tests.failing, observed.tests.passing, observed.tests.total, found "observed.test.failing"; did you mean "observed.tests.failing"?',
  ],
  [
    'a run with no bound at all',
    `${BASE}budget:\n  max_iterations: unlimited\n  max_tool_calls: unlimited\n  max_wall_clock: unlimited\n  max_tokens: unlimited\n  max_cost_usd: unlimited\n`,
    '11:1: budget: expected at least one bound, found every limit unlimited (max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd): a run with no bound would never stop',
  ],
];

describe('a bad loop.yaml never starts a run', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-badconfig-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it.each(CASES)('%s', async (_kind, content, error) => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, content);
    const result = await loopdeckInProcess(['run', '--headless', '--config', file], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`loopdeck: invalid config\n${file}:${error}`);
    expect(result.stdout).toBe('');
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it.each([
    ['--goal', '\u200b', '--goal needs a non-empty objective'],
    ['--goal', ' \u034f\ufe0f\t', '--goal needs a non-empty objective'],
    ['--constraint', '\u2060\u00a0', '--constraint needs text'],
    ['--constraint', '   ', '--constraint needs text'],
  ])('run %s %j: blank text on the command line is refused before the run starts', async (flag, value, said) => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, BASE);
    const result = await loopdeckInProcess(['run', '--headless', '--config', file, flag, value], { cwd });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(said);
    expect(result.stderr).toContain('not only spaces or invisible characters');
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it('a file over the size cap, naming where the limit is crossed', async () => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, BASE + `# ${'x'.repeat(97)}\n`.repeat(3000));
    const result = await loopdeckInProcess(['run', '--headless', '--config', file], { cwd });
    expect(result.stdout).toBe('');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^loopdeck: cannot read config\\n${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: expected at most 262144 bytes, found \\d+ bytes \\(the limit is crossed here\\)$`),
    );
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it('a misspelt kind: names the unknown key with the nearest one, besides the missing kind', async () => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, BASE.replace('  kind: scripted', '  knd: scripted'));
    const result = await loopdeckInProcess(['run', '--headless', '--config', file], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      `${file}:3:1: agent.kind: expected kind: scripted, openai or command, found nothing (this key is required)`,
      `${file}:4:3: agent.knd: unknown key "knd"; did you mean "kind"?`,
    ]);
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it('a missing transcript: names loop.yaml, agent.script and the resolved path, before anything runs', async () => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, BASE.replace(/script: .*/, 'script: fixtures/scripts/nope.yaml'));
    const result = await loopdeckInProcess(['run', '--headless', '--config', file], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `loopdeck: invalid config\n${file}:5:11: agent.script: expected a readable file, found none at ${cwd}/fixtures/scripts/nope.yaml (relative paths resolve against the folder of loop.yaml)`,
    );
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it('an invalid transcript: the error names the transcript itself', async () => {
    const file = path.join(cwd, 'loop.yaml');
    const script = path.join(cwd, 'script.yaml');
    writeFileSync(file, BASE.replace(/script: .*/, 'script: script.yaml'));
    writeFileSync(script, 'turns:\n  - thougth: hm\n');
    const result = await loopdeckInProcess(['run', '--headless', '--config', file], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`loopdeck: invalid config\n${script}:2:5: turns[0].thougth: unknown key "thougth"; did you mean "thought"?`);
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it('no loop.yaml in the folder: names the folder and how to name another file', async () => {
    const result = await execa('node', [cli, 'run', '--headless'], { cwd, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `loopdeck: cannot read config\nloop.yaml: no such file in ${realpathSync(cwd)}; run loopdeck in a folder with a loop.yaml, or pass --config <file>; to write a first one for the project here: node ${path.relative(cwd, cli).length < cli.length ? path.relative(cwd, cli) : cli} init`,
    );
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it('a --config file that does not exist: names the absolute folder', async () => {
    const result = await loopdeckInProcess(['run', '--headless', '--config', 'conf/dev.yaml'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `loopdeck: cannot read config\nconf/dev.yaml: no such file: the folder ${realpathSync(cwd)}/conf does not exist either (the nearest existing folder is ${realpathSync(cwd)})`,
    );
  });

  it('a --config file in a folder that exists: names that folder', async () => {
    mkdirSync(path.join(cwd, 'conf'));
    const result = await loopdeckInProcess(['run', '--headless', '--config', 'conf/dev.yaml'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`loopdeck: cannot read config\nconf/dev.yaml: no such file in ${realpathSync(cwd)}/conf`);
  });

  it('a directory as --config', async () => {
    mkdirSync(path.join(cwd, 'conf'));
    const result = await loopdeckInProcess(['run', '--headless', '--config', 'conf'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('loopdeck: cannot read config\nconf: expected a regular file, found a directory, device or pipe');
  });
});

describe('the heading says whether the file was read', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'loopdeck-heading-')));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  /** [what the config is, how to make it in `dir`, the start of the error line] */
  const UNREAD: Array<[string, (dir: string) => void, string]> = [
    ['missing', () => {}, 'loop.yaml: no such file in '],
    ['a folder', (dir) => mkdirSync(path.join(dir, 'loop.yaml')), 'loop.yaml: expected a regular file'],
    ['Latin-1, not UTF-8', (dir) => writeFileSync(path.join(dir, 'loop.yaml'), Buffer.from('goal:\n  objective: caf\xe9\n', 'latin1')), 'loop.yaml:2:17: expected UTF-8 text'],
    ['over the size cap', (dir) => writeFileSync(path.join(dir, 'loop.yaml'), `# ${'x'.repeat(97)}\n`.repeat(3000)), 'loop.yaml:'],
    ['a symbolic link to nothing', (dir) => symlinkSync('elsewhere.yaml', path.join(dir, 'loop.yaml')), 'loop.yaml: a symbolic link to elsewhere.yaml, which does not exist'],
    [
      'in a loop of symbolic links',
      (dir) => {
        symlinkSync('other.yaml', path.join(dir, 'loop.yaml'));
        symlinkSync('loop.yaml', path.join(dir, 'other.yaml'));
      },
      'loop.yaml: cannot read the file: too many levels of symlinks, a symlink loop (ELOOP)',
    ],
  ];

  it.each(UNREAD)('a loop.yaml %s: "cannot read config", in validate and in run', async (_what, make, line) => {
    make(cwd);
    for (const args of [['validate', 'loop.yaml'], ['run', '--headless', '--config', 'loop.yaml']]) {
      const result = await loopdeckInProcess(args, { cwd });
      expect(result.exitCode).toBe(1);
      const [heading, error, ...rest] = result.stderr.split('\n');
      expect([heading, error!.startsWith(line), rest]).toEqual(['loopdeck: cannot read config', true, []]);
    }
  });

  it.each<[string, string[], string]>([
    ['an empty name', ['validate', ''], '"": expected the name of a file, found an empty name'],
    ['a path through a file', ['run', '--headless', '--config', 'file.txt/loop.yaml'], 'file.txt/loop.yaml: cannot read the file: a part of the path is a file, expected a folder (ENOTDIR)'],
  ])('%s: said in words, "cannot read config"', async (_what, args, line) => {
    writeFileSync(path.join(cwd, 'file.txt'), 'x\n');
    const result = await loopdeckInProcess(args, { cwd });
    expect([result.exitCode, result.stderr]).toEqual([1, `loopdeck: cannot read config\n${line}`]);
  });

  it('a transcript that is not UTF-8 is an error of the config that names it, as a missing one is: "invalid config"', async () => {
    writeFileSync(path.join(cwd, 'script.yaml'), Buffer.from('turns:\n  - final: caf\xe9\n', 'latin1'));
    writeFileSync(path.join(cwd, 'loop.yaml'), BASE.replace(/script: .*/, 'script: script.yaml'));
    const result = await loopdeckInProcess(['validate', 'loop.yaml'], { cwd });
    expect(result.exitCode).toBe(1);
    // (After the warning that the config measures nothing.)
    expect(result.stderr).toContain(`\nloopdeck: invalid config\n${cwd}/script.yaml:2:15: expected UTF-8 text, found the byte 0xe9 that is not UTF-8 (save the file as UTF-8; Latin-1 and other encodings are not read)`);
  });

  it('a file over the size cap is cut at the character that crosses the limit, however many bytes it takes', async () => {
    // 2 + 87,381 × 3 bytes: the limit (262,144) falls inside the last 漢, the 87,381st, at column 87,383.
    writeFileSync(path.join(cwd, 'loop.yaml'), `# ${'漢'.repeat(87_381)}\n`);
    const result = await loopdeckInProcess(['validate', 'loop.yaml'], { cwd });
    expect(result.stderr).toBe('loopdeck: cannot read config\nloop.yaml:1:87383: expected at most 262144 bytes, found 262146 bytes (the limit is crossed here)');
  });

  it('a file that was read and judged is "invalid config", even when the file it names is missing', async () => {
    writeFileSync(path.join(cwd, 'loop.yaml'), BASE.replace(/script: .*/, 'script: nope.yaml'));
    const result = await loopdeckInProcess(['validate', 'loop.yaml'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `loopdeck: invalid config\nloop.yaml:5:11: agent.script: expected a readable file, found none at ${cwd}/nope.yaml (relative paths resolve against the folder of loop.yaml)`,
    );
  });
});

describe('loopdeck validate', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-validate-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('an unknown tag gives loopdeck error only: no Node warning reaches stderr', async () => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, `${BASE}pattern: !foo bar\n`);
    const result = await execa('node', [cli, 'validate', file], { cwd, reject: false, env: { NODE_OPTIONS: '' } });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `loopdeck: invalid config\n${file}:11:10: pattern: expected a plain YAML value, found the tag !foo (loop.yaml takes no tags: remove it)\n` +
        `${file}:11:15: pattern: expected one of react, plan-and-execute, reflexion, auto, found "bar"`,
    );
  });

  it('a collection used as a key gives an error, not a Node warning', async () => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, `${BASE}? {a: 1}\n: x\n`);
    const result = await execa('node', [cli, 'validate', file], { cwd, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`loopdeck: invalid config\n${file}:11:3: (root): expected a plain key, found a mapping used as a key`);
  });

  it('a missing transcript is an error of loop.yaml, not of the run', async () => {
    writeFileSync(path.join(cwd, 'loop.yaml'), BASE.replace(/script: .*/, 'script: fixtures/scripts/nope.yaml'));
    const result = await loopdeckInProcess(['validate'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `loopdeck: invalid config\nloop.yaml:5:11: agent.script: expected a readable file, found none at ${realpathSync(cwd)}/fixtures/scripts/nope.yaml (relative paths resolve against the folder of loop.yaml)`,
    );
  });

  it.each([
    ['a value continued by a more indented key', 'goal:\n  objective: fix it\n    x: bad\n', '2:14: goal.objective: invalid YAML: Nested mappings are not allowed in compact mappings'],
    ['a list item continued by a more indented key', 'goal:\n  objective: fix it\n  success_criteria:\n    - all pass\n      when: done\n', '4:7: goal.success_criteria[0]: invalid YAML: Implicit keys need to be on a single line'],
    ['a key written over two lines', 'goal:\n  objective: fix it\n  success\n  criteria: [a]\n', '3:3: goal: invalid YAML: Implicit keys need to be on a single line'],
  ])('a syntax error names the keys the file wrote, never a key the parser made of the broken lines: %s', async (_kind, content, error) => {
    writeFileSync(path.join(cwd, 'loop.yaml'), content);
    const result = await loopdeckInProcess(['validate'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')[1]).toBe(`loop.yaml:${error}`);
  });

  it('lists every error of a file at once', async () => {
    writeFileSync(path.join(cwd, 'loop.yaml'), `${BASE}laps:\n  enabled: yes\nrepetiton:\n  window: 4\n`);
    const result = await loopdeckInProcess(['validate'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      'loop.yaml:12:12: laps.enabled: expected true or false, found "yes" (YAML 1.2 reads yes as a string; write true)',
      'loop.yaml:13:1: repetiton: unknown key "repetiton"; did you mean "repetition"?',
    ]);
  });

  it('prints the effective config in loop.yaml keys and units: defaults filled, durations as written, unlimited', async () => {
    // Laps play the transcript's laps: (a transcript with turns: only would fail lap 1).
    writeFileSync(path.join(cwd, 'laps.yaml'), 'laps:\n  - - final: done\n');
    const withLaps = BASE.replace(/script: .*/, `script: ${path.join(cwd, 'laps.yaml')}`);
    writeFileSync(path.join(cwd, 'loop.yaml'), `${withLaps}budget:\n  max_wall_clock: 1h30m\n  max_tokens: unlimited\nlaps:\n  enabled: true\n  max_laps: 1\n`);
    const result = await loopdeckInProcess(['validate'], { cwd });
    expect(result.exitCode, result.stderr).toBe(0);
    // BASE has no observer: valid, with the warning that nothing is measured.
    expect(result.stderr).toMatch(/^loopdeck: warning: \S+: nothing to measure \(no `observe` command\)[^\n]*$/);
    const config = JSON.parse(result.stdout);
    expect(config.file).toBeUndefined();
    expect(config.budget).toEqual({
      max_iterations: 50,
      max_tool_calls: 100,
      max_wall_clock: '1h30m',
      max_tokens: 'unlimited',
      max_cost_usd: 'unlimited',
      warn_fraction: 0.8,
      on_exhausted: 'pause',
      increments: { turns: 10, tool_calls: 20, wall_clock: '10m', tokens: 50000, cost_usd: 1 },
    });
    expect(config.laps).toEqual({ enabled: true, max_laps: 1, max_consecutive_failures: 3, progress_file: 'PROGRESS.md' });
    expect(config.repetition).toEqual({ window: 5, threshold: 3, exempt_tools: [], ignore_arg_keys: [], include_result: true, on_detect: 'pause' });
    expect(config.on_abort).toEqual({ stash: true, report: true });
    expect(config.verify).toEqual([{ command: 'node --test', timeout: '5m' }]);
  });

  it("accepts the repo's own loop.yaml", async () => {
    const result = await loopdeckInProcess(['validate', path.join(root, 'loop.yaml')], { cwd });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    expect(JSON.parse(result.stdout).stagnation).toEqual({ checkpoints_without_observed_progress: 3, on_detect: 'pause', on_unknown: 'alert' });
  });
});

/** A key, value or nesting `n` deep, as the hostile inputs of the size bounds use them. */
const deep = {
  flow: (n: number) => `x: ${'['.repeat(n)}${']'.repeat(n)}\n`,
  compact: (n: number) => `x:\n  ${'- '.repeat(n)}y\n`,
  flowMaps: (n: number) => `x: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n`,
  aliasChain: (n: number) => ['c0: &a0 [x]', ...Array.from({ length: n }, (_, i) => `c${i + 1}: &a${i + 1} [*a${i}]`)].join('\n') + '\n',
};
const LONG = 100_000;
const DEPTH_LIMIT = 'expected at most 64 levels of nesting, found deeper nesting here (the limit keeps the parser within its stack)';
const TIMER_LIMIT = 'expected a duration of at most 576h (24 days, the longest timer loopdeck can keep)';

/** [kind, file content, the error after `<file>:`] */
const BOUND_CASES: Array<[string, string, string]> = [
  ['a 597h timeout (past Node timers)', `${BASE}tools:\n  shell_timeout: 597h\n`, `12:18: tools.shell_timeout: ${TIMER_LIMIT}, found "597h"`],
  ['a 600h approval timeout', `${BASE}approval:\n  timeout: 600h\n`, `12:12: approval.timeout: ${TIMER_LIMIT}, found "600h"`],
  ['a 10000-day hook timeout', `${BASE}hook_timeout: 240000h\n`, `11:15: hook_timeout: ${TIMER_LIMIT}, found "240000h"`],
  ['10000d (no day unit)', `${BASE}hook_timeout: 10000d\n`, '11:15: hook_timeout: expected a duration like 90s, 10m or 1h30m, found "10000d"'],
  ['a negative duration', BASE.replace('  - command: node --test\n', '  - command: node --test\n    timeout: -5s\n'), '11:14: verify[0].timeout: expected a duration like 90s, 10m or 1h30m, found "-5s"'],
  [
    'a 400-digit hour count (Infinity seconds)',
    `${BASE}observe:\n  - name: tests\n    command: node --test\n    parser: tap\n    timeout: ${'9'.repeat(400)}h\n`,
    `15:14: observe[0].timeout: ${TIMER_LIMIT}, found "${'9'.repeat(80)}…" (401 characters)`,
  ],
  ['a 10000-day wall clock budget', `${BASE}budget:\n  max_wall_clock: 240000h\n`, '12:19: budget.max_wall_clock: expected a duration of at most 8760h (365 days), found "240000h"'],
  ['max_iterations: 1e400 (Infinity)', `${BASE}budget:\n  max_iterations: 1e400\n`, '12:19: budget.max_iterations: expected at most 9007199254740991 (the largest whole number; write unlimited to lift the limit), found 1e400'],
  ['max_iterations of 20 digits (read as 1e20)', `${BASE}budget:\n  max_iterations: 99999999999999999999\n`, '12:19: budget.max_iterations: expected at most 9007199254740991 (the largest whole number; write unlimited to lift the limit), found 99999999999999999999'],
  ['max_tool_calls: 1e400 (Infinity)', `${BASE}budget:\n  max_tool_calls: 1e400\n`, '12:19: budget.max_tool_calls: expected at most 9007199254740991 (the largest whole number; write unlimited to lift the limit), found 1e400'],
  ['max_cost_usd: 1e400 (Infinity)', `${BASE}budget:\n  max_cost_usd: 1e400\n`, '12:17: budget.max_cost_usd: expected at most 1000000 (USD; write unlimited to lift the limit), found 1e400'],
  ['a 1 GB output limit', `${BASE}tools:\n  output_limit_bytes: 1000000000\n`, '12:23: tools.output_limit_bytes: expected at most 16777216 bytes (16 MiB: output is kept in memory), found 1000000000'],
  ['50,000-deep flow sequences', `${BASE}${deep.flow(50_000)}`, `11:66: ${DEPTH_LIMIT}`],
  ['30,000-deep flow mappings', `${BASE}${deep.flowMaps(30_000)}`, `11:252: ${DEPTH_LIMIT}`],
  ['50,000-deep block sequences on one line', `${BASE}${deep.compact(50_000)}`, `12:127: ${DEPTH_LIMIT}`],
  ['an alias chain nesting past the limit', `${BASE}${deep.aliasChain(70)}`, '74:12: c63[0]: expected at most 64 levels of nesting, found *a62 nesting the document 65 levels deep'],
  ['a second document', `${BASE}---\ngoal:\n  objective: something else\n`, '11:1: expected one YAML document, found a second one starting here (a line --- or ... ends the first; loopdeck reads a single document, so remove the separator or split the file)'],
  ['a second document after ...', `${BASE}...\npattern: reflexion\n`, '12:1: expected one YAML document, found a second one starting here (a line --- or ... ends the first; loopdeck reads a single document, so remove the separator or split the file)'],
  ['a 100 KB key', `${BASE}"${'k'.repeat(LONG)}": 1\n`, `11:1: ${'k'.repeat(80)}… (100000 characters): invalid YAML: The : indicator must be at most 1024 chars after the start of an implicit block mapping key`],
  ['a 1,000-character unknown key', `${BASE}${'k'.repeat(1000)}: 1\n`, `11:1: ${'k'.repeat(80)}… (1000 characters): unknown key "${'k'.repeat(80)}…" (1000 characters); expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools`],
  ['a 100 KB value in an enum field', `${BASE}pattern: ${'r'.repeat(LONG)}\n`, `11:10: pattern: expected one of react, plan-and-execute, reflexion, auto, found "${'r'.repeat(80)}…" (100000 characters)`],
  ['a 100 KB hook name (no suggestion for it)', `${BASE}hooks: [${'approval-gat'.repeat(LONG / 10)}]\n`, `11:9: hooks[0]: expected a built-in hook (approval-gate, destructive-deny, trace-writer) or { name, topic, command }, found "${'approval-gat'.repeat(7).slice(0, 80)}…" (120000 characters)`],
];

describe('sizes and depths have bounds: each error names the file, the line and the limit, never a stack trace', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bounds-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it.each(BOUND_CASES)('%s', async (_kind, content, error) => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, content);
    const result = await loopdeckInProcess(['validate', file], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`loopdeck: invalid config\n${file}:${error}`);
  });

  it('a file with thousands of errors lists every one of them, one a line', async () => {
    const file = path.join(cwd, 'loop.yaml');
    writeFileSync(file, `${BASE}${Array.from({ length: 3000 }, (_, i) => `unknown_${i}: 1`).join('\n')}\n`);
    const result = await execa('node', [cli, 'validate', file], { cwd, reject: false });
    expect(result.exitCode).toBe(1);
    const lines = result.stderr.split('\n');
    expect(lines).toHaveLength(3001);
    expect(lines[1]).toBe(`${file}:11:1: unknown_0: unknown key "unknown_0"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools`);
    expect(lines[3000]).toBe(`${file}:3010:1: unknown_2999: unknown key "unknown_2999"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools`);
    expect(result.stderr).not.toContain('more error');
  });

  it('a transcript nested 1,400 levels by indentation (under its 1 MiB cap) is refused before the parser runs out of stack', async () => {
    const file = path.join(cwd, 'loop.yaml');
    const script = path.join(cwd, 'script.yaml');
    writeFileSync(file, BASE.replace(/script: .*/, 'script: script.yaml'));
    writeFileSync(script, Array.from({ length: 1400 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n');
    const result = await loopdeckInProcess(['run', '--headless', '--config', file], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(`loopdeck: invalid config\n${script}:64:65: ${DEPTH_LIMIT}`);
    expect(existsSync(path.join(cwd, '.loopdeck', 'runs'))).toBe(false);
  });

  it('a checkpoint file for loopdeck check nested 50,000 deep gets the same error', async () => {
    const dir = path.join(cwd, 'checkpoints');
    mkdirSync(dir);
    writeFileSync(path.join(cwd, 'loop.yaml'), BASE);
    const checkpoint = path.join(dir, '001.json');
    writeFileSync(checkpoint, `{"iteration": 1, "observed": {}, "x": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`);
    const result = await execa('node', [cli, 'check', dir, '--config', path.join(cwd, 'loop.yaml')], { cwd, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${checkpoint}:1:`);
    expect(result.stderr).toContain('expected at most 64 levels of nesting');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});
