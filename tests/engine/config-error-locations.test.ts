/**
 * Every kind of config error is placed at the deepest path, at the `line:column` of the
 * offending value (of the key itself for an unknown key), in one path style (`goal.success_criteria[0].check.command`), and says
 * what was expected and what was found. One table per file loopdeck reads from the user:
 * loop.yaml, a scripted agent's transcript, a checkpoint file of `check`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { transcriptSchema } from '../../src/engine/agents/scripted.js';
import { loadCheckpointFile } from '../../src/engine/checkpoint-file.js';
import { ConfigError, ConfigErrors } from '../../src/engine/errors.js';
import { loadPolicy, parsePolicy } from '../../src/engine/policy.js';
import { missingFileError, parseYamlWith } from '../../src/engine/yaml-file.js';
import { BASE } from '../support/loop-yaml-base.js';

/** What zod says in its own words; none of it may reach a person. */
const ZOD_WORDS = /Unrecognized key|Invalid input|Too small|Too big|Invalid option|expected \w+, received|Invalid (string|number|enum)/;

function errorsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigErrors);
    return (error as ConfigErrors).errors.map((e) => e.message);
  }
  throw new Error('expected ConfigErrors');
}

/** A loop.yaml whose goal block is written by the case (lines 1-2 are `goal:` and the objective). */
function withGoal(goal: string): string {
  return `goal:\n  objective: fix it\n${goal}agent:\n  kind: scripted\n  script: s.yaml\nworkspace:\n  path: ws\nverify:\n  - command: node --test\n`;
}


describe('loop.yaml: goal.success_criteria checks (a union of two mapping forms)', () => {
  it.each<[string, string, string[]]>([
    ['a command that is a number', '  success_criteria:\n    - text: a\n      check:\n        command: 5\n', ['loop.yaml:6:18: goal.success_criteria[0].check.command: expected a string, found 5']],
    [
      'a signal that is not observed.* and a target that is a string',
      '  success_criteria:\n    - text: a\n      check:\n        signal: tests.failing\n        target: "x"\n',
      [
        'loop.yaml:6:17: goal.success_criteria[0].check.signal: expected an observed signal like observed.tests.failing, found "tests.failing"',
        'loop.yaml:7:17: goal.success_criteria[0].check.target: expected a number, found "x"',
      ],
    ],
    ['an exit code that is not an integer', '  success_criteria:\n    - text: a\n      check:\n        command: npm test\n        expect_exit: 1.5\n', ['loop.yaml:7:22: goal.success_criteria[0].check.expect_exit: expected an exit code from 0 to 125, found 1.5']],
    ['a negative exit code (flow style)', '  success_criteria:\n    - {text: a, check: {command: x, expect_exit: -1}}\n', ['loop.yaml:4:50: goal.success_criteria[0].check.expect_exit: expected an exit code from 0 to 125, found -1']],
    [
      'both command and signal',
      '  success_criteria:\n    - text: a\n      check:\n        command: npm test\n        signal: observed.tests.failing\n        target: 0\n',
      ['loop.yaml:5:7: goal.success_criteria[0].check: expected either command or signal, not both, found command and signal', 'loop.yaml:7:17: goal.success_criteria[0].check.signal: expected a metric of an observe entry (there is none), found "observed.tests.failing"'],
    ],
    [
      'both forms and an unknown key',
      '  success_criteria:\n    - {text: a, check: {command: x, signal: observed.t.f, target: 0, extra: 1}}\n',
      ['loop.yaml:4:24: goal.success_criteria[0].check: expected either command or signal, not both, found command and signal', 'loop.yaml:4:45: goal.success_criteria[0].check.signal: expected a metric of an observe entry (there is none), found "observed.t.f"', 'loop.yaml:4:70: goal.success_criteria[0].check.extra: unknown key "extra"; expected one of: command, timeout, expect_exit, signal, target, op'],
    ],
    ['an empty check', '  success_criteria:\n    - text: a\n      check: {}\n', ['loop.yaml:5:14: goal.success_criteria[0].check: expected command or signal, found neither (an empty mapping)']],
    [
      'a misspelt command key',
      '  success_criteria:\n    - {text: a, check: {comand: npm test}}\n',
      ['loop.yaml:4:24: goal.success_criteria[0].check: expected command or signal, found neither (only comand)', 'loop.yaml:4:25: goal.success_criteria[0].check.comand: unknown key "comand"; did you mean "command"?'],
    ],
    ['a signal check without its target', '  success_criteria:\n    - {text: a, check: {signal: observed.tests.failing}}\n', ['loop.yaml:4:24: goal.success_criteria[0].check.target: expected a number, found nothing (this key is required)', 'loop.yaml:4:33: goal.success_criteria[0].check.signal: expected a metric of an observe entry (there is none), found "observed.tests.failing"']],
    ['an unknown operator', "  success_criteria:\n    - {text: a, check: {signal: observed.tests.failing, target: 0, op: '!='}}\n", ['loop.yaml:4:33: goal.success_criteria[0].check.signal: expected a metric of an observe entry (there is none), found "observed.tests.failing"', 'loop.yaml:4:72: goal.success_criteria[0].check.op: expected one of ==, >=, <=, found "!="; did you mean "=="?']],
    ['an operator on a command check', "  success_criteria:\n    - {text: a, check: {command: x, op: '=='}}\n", ['loop.yaml:4:37: goal.success_criteria[0].check.op: unknown key "op"; expected one of: command, timeout, expect_exit']],
    ['a timeout on a signal check: the keys of the signal form', "  success_criteria:\n    - {text: a, check: {signal: observed.tests.failing, target: 0, timeout: 5m}}\nobserve:\n  - {name: tests, command: x, parser: tap}\n", ['loop.yaml:4:68: goal.success_criteria[0].check.timeout: unknown key "timeout"; expected one of: signal, target, op']],
    ['a check that is a list', '  success_criteria:\n    - {text: a, check: [command]}\n', ['loop.yaml:4:24: goal.success_criteria[0].check: expected { command, timeout?, expect_exit? } or { signal, target, op? }, found a list']],
    ['an empty command', "  success_criteria:\n    - {text: a, check: {command: ''}}\n", ['loop.yaml:4:34: goal.success_criteria[0].check.command: expected a non-empty string, found ""']],
    ['a timeout without a unit', '  success_criteria:\n    - {text: a, check: {command: x, timeout: 5}}\n', ['loop.yaml:4:46: goal.success_criteria[0].check.timeout: expected a duration like 90s, 10m or 1h30m, found 5 (a bare number has no unit: write 5s)']],
  ])('%s', (_name, goal, expected) => {
    expect(errorsOf(() => parsePolicy(withGoal(goal), 'loop.yaml'))).toEqual(expected);
  });
});

describe('loop.yaml: the other unions, nested objects and list items of the goal', () => {
  it.each<[string, string, string[]]>([
    ['a criterion that is a number', '  success_criteria:\n    - 5\n', ['loop.yaml:4:7: goal.success_criteria[0]: expected a text or { text, check }, found 5']],
    ['criteria as a mapping', '  success_criteria: {text: a}\n', ['loop.yaml:3:21: goal.success_criteria: expected a list, found a mapping']],
    ['an empty criterion text', "  success_criteria:\n    - {text: ''}\n", ['loop.yaml:4:14: goal.success_criteria[0].text: expected a non-empty string, found ""']],
    ['a criterion text of blanks only', "  success_criteria:\n    - {text: '   '}\n", ['loop.yaml:4:14: goal.success_criteria[0].text: expected a non-empty string, found "   " (only blanks)']],
    ['a criterion text of invisible characters only', '  success_criteria:\n    - {text: "\\u200b\\u200d"}\n', ['loop.yaml:4:14: goal.success_criteria[0].text: expected a non-empty string, found "\u200b\u200d" (only invisible characters)']],
    [
      'a misspelt text key',
      '  success_criteria:\n    - {txt: a}\n',
      ['loop.yaml:4:7: goal.success_criteria[0].text: expected a string, found nothing (this key is required)', 'loop.yaml:4:8: goal.success_criteria[0].txt: unknown key "txt"; did you mean "text"?'],
    ],
    [
      'a constraint with a bad command and an unknown key: both listed',
      '  constraints:\n    - {text: x, command: 5, extra: 1}\n',
      ['loop.yaml:4:26: goal.constraints[0].command: expected a string, found 5', 'loop.yaml:4:29: goal.constraints[0].extra: unknown key "extra"; expected one of: text, protect, command, timeout'],
    ],
    ['an empty protect list', '  constraints:\n    - {text: t, protect: []}\n', ['loop.yaml:4:26: goal.constraints[0].protect: expected at least one glob, found an empty list']],
    ['a constraint without a check', '  constraints:\n    - {text: x}\n', ['loop.yaml:4:7: goal.constraints[0]: expected protect or command (a constraint without a check is written as plain text)']],
    [
      'a constraint of invisible text and without a check: both',
      '  constraints:\n    - {text: "\\u200b"}\n',
      ['loop.yaml:4:7: goal.constraints[0]: expected protect or command (a constraint without a check is written as plain text)', 'loop.yaml:4:14: goal.constraints[0].text: expected a non-empty string, found "\u200b" (only invisible characters)'],
    ],
    ['a protect glob outside the workspace', "  constraints:\n    - {text: t, protect: ['/etc/**']}\n", ['loop.yaml:4:27: goal.constraints[0].protect[0]: expected a glob relative to the workspace, inside it (like test/**), found "/etc/**"']],
    ['a constraint that is a number', '  constraints:\n    - 7\n', ['loop.yaml:4:7: goal.constraints[0]: expected a text or { text, protect | command }, found 7']],
    ['a sub-goal criterion that is a number', '  sub_goals:\n    - {objective: a, success_criteria: [1]}\n', ['loop.yaml:4:41: goal.sub_goals[0].success_criteria[0]: expected a string, found 1']],
    ['an unknown priority', '  priority: urgent\n', ['loop.yaml:3:13: goal.priority: expected one of high, normal, low, found "urgent"']],
  ])('%s', (_name, goal, expected) => {
    expect(errorsOf(() => parsePolicy(withGoal(goal), 'loop.yaml'))).toEqual(expected);
  });
});

describe('loop.yaml: a criterion or constraint written as a bad text', () => {
  // Each string the text refuses, in YAML's double-quoted form: empty, blanks, invisible
  // characters of several kinds, a control character.
  const refused = ['', '   ', '\\u200b', '\\u200d\\u2060 \\u3164', '\\u00a0\\ufeff', '\\u034f\\ufe0f', '\\u2800', 'ok\\u0007', 'a\\u001b[2Jb'];
  it.each(refused)('"%s" as a criterion and as a constraint says what the text says as the objective, not the list of forms', (value) => {
    const [asObjective] = errorsOf(() => parsePolicy(withGoal('').replace('objective: fix it', `objective: "${value}"`), 'loop.yaml'));
    const message = asObjective!.replace(/^loop\.yaml:\d+:\d+: goal\.objective: /, '');
    expect(message).not.toBe(asObjective);
    expect(errorsOf(() => parsePolicy(withGoal(`  success_criteria:\n    - "${value}"\n`), 'loop.yaml'))).toEqual([`loop.yaml:4:7: goal.success_criteria[0]: ${message}`]);
    expect(errorsOf(() => parsePolicy(withGoal(`  constraints:\n    - "${value}"\n`), 'loop.yaml'))).toEqual([`loop.yaml:4:7: goal.constraints[0]: ${message}`]);
  });
});

describe('loop.yaml: every section', () => {
  it.each<[string, string, string[]]>([
    ['an unknown top-level key', 'goal2: 1\n', ['loop.yaml:10:1: goal2: unknown key "goal2"; did you mean "goal"?']],
    ['a negative count', 'budget:\n  max_iterations: -3\n', ['loop.yaml:11:19: budget.max_iterations: expected a positive integer or "unlimited", found -3']],
    ['a fractional count', 'budget:\n  max_tool_calls: 2.5\n', ['loop.yaml:11:19: budget.max_tool_calls: expected a positive integer or "unlimited", found 2.5']],
    ['a fraction out of range', 'budget:\n  warn_fraction: 0\n', ['loop.yaml:11:18: budget.warn_fraction: expected a number > 0, found 0']],
    ['a nested unknown key', 'budget:\n  increments:\n    tokns: 5\n', ['loop.yaml:12:5: budget.increments.tokns: unknown key "tokns"; did you mean "tokens"?']],
    ['a section that is a list', 'budget: [1, 2]\n', ['loop.yaml:10:9: budget: expected a mapping, found a list']],
    ['a negative price', 'pricing:\n  input_per_million_usd: -1\n', ['loop.yaml:11:26: pricing.input_per_million_usd: expected a number >= 0, found -1']],
    ['a count that is a word', 'checkpoint:\n  every_iterations: many\n', ['loop.yaml:11:21: checkpoint.every_iterations: expected a positive integer, found "many"']],
    ['a count that is a quoted number', 'checkpoint:\n  every_iterations: "3"\n', ['loop.yaml:11:21: checkpoint.every_iterations: expected a positive integer, found "3"']],
    ['a count of 0', 'checkpoint:\n  every_iterations: 0\n', ['loop.yaml:11:21: checkpoint.every_iterations: expected a positive integer, found 0']],
    ['a fractional count', 'checkpoint:\n  every_iterations: 1.5\n', ['loop.yaml:11:21: checkpoint.every_iterations: expected a positive integer, found 1.5']],
    ['a count that may be 0, given a string', 'patterns:\n  plan_and_execute:\n    max_replans: "2"\n', ['loop.yaml:12:18: patterns.plan_and_execute.max_replans: expected an integer >= 0, found "2"']],
    ['a count that may be 0, given a negative', 'patterns:\n  plan_and_execute:\n    max_replans: -1\n', ['loop.yaml:12:18: patterns.plan_and_execute.max_replans: expected an integer >= 0, found -1']],
    [
      'an observer without a command and with a misspelt parser',
      'observe:\n  - name: tests\n    parser: tapp\n',
      [
        'loop.yaml:11:5: observe[0].command: expected a string, found nothing (this key is required)',
        'loop.yaml:12:13: observe[0].parser: expected one of tap, vitest-json, jest-json, junit, regex, found "tapp"; did you mean "tap"?',
      ],
    ],
    ['an observer that is a number', 'observe:\n  - 5\n', ['loop.yaml:11:5: observe[0]: expected a mapping, found 5']],
    [
      'an observer pattern that is not a regular expression, and one without a named group',
      "observe:\n  - {name: a, command: x, parser: regex, pattern: '(?<x>[0-9'}\n  - {name: b, command: x, parser: regex, pattern: '[0-9]+'}\n",
      [
        'loop.yaml:11:51: observe[0].pattern: expected a valid regular expression: Invalid regular expression: /(?<x>[0-9/gm: Unterminated character class',
        'loop.yaml:12:51: observe[1].pattern: expected at least one named group, like (?<coverage>\\d+)',
      ],
    ],
    ['an unknown direction', 'progress:\n  observed:\n    - {signal: observed.tests.failing, direction: down}\n', ['loop.yaml:12:16: progress.observed[0].signal: expected a metric of an observe entry (there is none), found "observed.tests.failing"', 'loop.yaml:12:51: progress.observed[0].direction: expected one of increase, decrease, found "down"']],
    ['claims that reset stagnation', 'progress:\n  reported:\n    resets_stagnation: true\n', ['loop.yaml:12:24: progress.reported.resets_stagnation: expected false (reported claims never reset stagnation: only observed progress does), found true']],
    ['an approval rule without words', "approval:\n  allow: ['shell: ']\n", ['loop.yaml:11:11: approval.allow[0]: expected words after "shell:" (write "shell" to name the whole tool), found "shell: "']],
    [
      'a command hook without a topic (a union of a name and a mapping)',
      'hooks:\n  - {name: h, command: /bin/true}\n',
      ['loop.yaml:11:5: hooks[0].topic: expected one of before_plan, after_plan, before_tool_call, after_tool_call, before_step, after_step, on_error, on_pause, on_budget_exceeded, on_complete, found nothing (this key is required)'],
    ],
    ['a hook with an unknown on_hook_error', 'hooks:\n  - {name: h, topic: before_tool_call, command: /bin/true, on_hook_error: maybe}\n', ['loop.yaml:11:75: hooks[0].on_hook_error: expected one of block, allow, found "maybe"']],
    ['a misspelt built-in hook', 'hooks:\n  - approval-gat\n', ['loop.yaml:11:5: hooks[0]: expected a built-in hook (approval-gate, destructive-deny, trace-writer) or { name, topic, command }, found "approval-gat"; did you mean "approval-gate"?']],
    ['a threshold past the window', 'repetition:\n  window: 3\n  threshold: 5\n', ['loop.yaml:12:14: repetition.threshold: expected at most repetition.window (3), found 5']],
    ['a YAML 1.1 boolean', 'laps:\n  enabled: yes\n', ['loop.yaml:11:12: laps.enabled: expected true or false, found "yes" (YAML 1.2 reads yes as a string; write true)']],
    ['too many output bytes', 'tools:\n  output_limit_bytes: 99999999999\n', ['loop.yaml:11:23: tools.output_limit_bytes: expected at most 16777216 bytes (16 MiB: output is kept in memory), found 99999999999']],
    ['a duration written as a time', 'hook_timeout: 1:30\n', ['loop.yaml:10:15: hook_timeout: expected a duration like 90s, 10m or 1h30m, found "1:30" (hh:mm is not read as a time: write e.g. 1h30m)']],
    ['a misspelt verify', 'verify2: 1\n', ['loop.yaml:10:1: verify2: unknown key "verify2"; did you mean "verify"?']],
  ])('%s', (_name, block, expected) => {
    expect(errorsOf(() => parsePolicy(BASE + block, 'loop.yaml'))).toEqual(expected);
  });

  it.each<[string, string, number]>([
    ['ASCII', 'abc', 3],
    ['a Latin-1 letter: one unit', 'é', 1],
    ['a CJK character: one unit, though drawn two cells wide', '漢', 1],
    ['an emoji: two units (a surrogate pair)', '😀', 2],
    ['a joined emoji family: eight units', '👩‍👩‍👧', 8],
    ['a letter and a combining mark: two units', 'e\u0301', 2],
  ])('a column counts UTF-16 code units from 1, as VS Code does: after %s', (_what, before, units) => {
    // `x` is at column 46 after an empty quoted value (`budget: {max_iterations: "", max_tool_calls: x}`).
    const column = 46 + units;
    const block = `budget: {max_iterations: "${before}", max_tool_calls: x}\n`;
    expect(errorsOf(() => parsePolicy(BASE + block, 'loop.yaml')).at(-1)).toBe(
      `loop.yaml:10:${column}: budget.max_tool_calls: expected a positive integer or "unlimited", found "x"`,
    );
  });

  it('lists the errors of a file in the order a reader meets them', () => {
    const source = `${BASE}budget:\n  max_iterations: 0\nhooks:\n  - 5\n`.replace('  objective: fix it\n', '  objective: fix it\n  priority: urgent\n');
    expect(errorsOf(() => parsePolicy(source, 'loop.yaml')).map((m) => m.split(': ')[0])).toEqual(['loop.yaml:3:13', 'loop.yaml:12:19', 'loop.yaml:14:5']);
  });
});

describe('a scripted agent transcript', () => {
  it.each<[string, string, string[]]>([
    ['an unknown key in a tool call', 'turns:\n  - tool_calls:\n      - {id: a, name: shell, args: {command: x}, extra: 1}\n', ['script.yaml:3:50: turns[0].tool_calls[0].extra: unknown key "extra"; expected one of: id, name, args']],
    ['an id that is a number, args that are a list', 'turns:\n  - tool_calls:\n      - {id: 1, name: shell, args: [x]}\n', ['script.yaml:3:14: turns[0].tool_calls[0].id: expected a string, found 1', 'script.yaml:3:36: turns[0].tool_calls[0].args: expected a mapping, found a list']],
    ['an empty final', "turns:\n  - final: ''\n", ['script.yaml:2:12: turns[0].final: expected a non-empty string, found ""']],
    ['a final turn that calls tools', 'turns:\n  - final: done\n    tool_calls: [{id: a, name: shell}]\n', ['script.yaml:2:12: turns[0].final: expected either final or tool_calls in a turn, not both, found both (a turn is either final or calls tools)']],
    ['turns that are a number', 'turns: 5\n', ['script.yaml:1:8: turns: expected a list, found 5']],
    ['evidence without its reference', 'turns:\n  - report:\n      new_evidence:\n        - {claim: x}\n', ['script.yaml:4:11: turns[0].report.new_evidence[0].evidence_ref: expected a string, found nothing (this key is required)']],
    ['negative tokens', 'turns:\n  - usage: {input_tokens: -1, output_tokens: 0}\n', ['script.yaml:2:27: turns[0].usage.input_tokens: expected an integer >= 0, found -1']],
    ['a thought in a lap that is a number', 'laps:\n  - - thought: 5\n', ['script.yaml:2:16: laps[0][0].thought: expected a string, found 5']],
    ['a misspelt top-level key', 'turnz: []\n', ['script.yaml:1:1: turnz: unknown key "turnz"; did you mean "turns"?']],
  ])('%s', (_name, source, expected) => {
    expect(errorsOf(() => parseYamlWith(transcriptSchema, source, 'script.yaml'))).toEqual(expected);
  });
});

describe('a checkpoint file of `loopdeck check`', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each<[string, string, string[]]>([
    ['a negative iteration', '{"iteration": -1, "observed": {}}', ['1:15: iteration: expected an integer >= 0, found -1']],
    ['a metric that is a string', '{"iteration": 1, "observed": {"tests.failing": "3"}}', ['1:48: observed.tests.failing: expected a number, found "3"']],
    ['no observed metrics', '{"iteration": 1}', ['1:1: observed: expected a mapping, found nothing (this key is required)']],
    ['a test outcome that is a string', '{"iteration": 1, "observed": {},\n "tests": [{"name": "a", "ok": "yes"}]}', ['2:32: tests[0].ok: expected true or false, found "yes"']],
    [
      'evidence with an empty claim and no reference',
      '{"iteration": 1, "observed": {}, "reported": {"new_evidence": [{"claim": ""}]}}',
      ['1:64: reported.new_evidence[0].evidence_ref: expected a string, found nothing (this key is required)', '1:74: reported.new_evidence[0].claim: expected a non-empty string, found ""'],
    ],
  ])('%s', (_name, source, expected) => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cp-'));
    const file = path.join(dir, '001.json');
    fs.writeFileSync(file, source);
    expect(errorsOf(() => loadCheckpointFile(file))).toEqual(expected.map((m) => `${file}:${m}`));
  });
});

describe('one pass over a loop.yaml and the files it names', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('schema errors, a missing workspace, a broken transcript and a missing hook program come together', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-onepass-'));
    fs.writeFileSync(path.join(dir, 's.yaml'), 'turns:\n  - final: done\n    tool_calls: [{id: a, name: shell}]\n');
    const source = withGoal('  success_criteria:\n    - {text: a, check: {command: 5}}\n').replace('path: ws', 'path: nows') + 'hooks:\n  - {name: h, topic: before_tool_call, command: ./nope.sh}\n';
    fs.writeFileSync(path.join(dir, 'loop.yaml'), source);
    const file = path.join(dir, 'loop.yaml');
    expect(errorsOf(() => loadPolicy(file))).toEqual([
      `${file}:4:34: goal.success_criteria[0].check.command: expected a string, found 5`,
      `${file}:9:9: workspace.path: expected a directory, found nothing at ${dir}/nows`,
      `${file}:13:49: hooks[0].command: expected an executable program or a shell built-in (the command runs through sh -c), found none for "./nope.sh" (relative paths resolve against ${dir})`,
      `${path.join(dir, 's.yaml')}:2:12: turns[0].final: expected either final or tool_calls in a turn, not both, found both (a turn is either final or calls tools)`,
    ]);
  });

  it('a file in a folder that does not exist says so', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-missing-'));
    expect(missingFileError(path.join(dir, 'sub', 'deeper', 'nope.yaml')).message).toBe(
      `${dir}/sub/deeper/nope.yaml: no such file: the folder ${dir}/sub/deeper does not exist either (the nearest existing folder is ${dir})`,
    );
    expect(missingFileError(path.join(dir, 'nope.yaml')).message).toBe(`${dir}/nope.yaml: no such file in ${dir}`);
  });
});

describe('no message in zod’s own words', () => {
  it.each<[string, string]>([
    ['a refinement of a mapping', withGoal('  constraints:\n    - {text: x}\n')],
    ['unknown keys in a union branch', withGoal('  success_criteria:\n    - {text: a, check: {command: x, foo: 1, bar: 2}}\n')],
    ['a union given a list', withGoal('  constraints:\n    - [a]\n')],
    ['an agent of no kind', BASE.replace('kind: scripted', 'kind: robot')],
    ['an agent that is a list', BASE.replace('agent:\n  kind: scripted\n  script: s.yaml\n', 'agent: [1]\n')],
  ])('%s', (_name, source) => {
    const messages = errorsOf(() => parsePolicy(source, 'loop.yaml'));
    for (const message of messages) {
      expect(message).toMatch(/^loop\.yaml:\d+:\d+: [\w.[\]]+: /);
      expect(message).not.toMatch(ZOD_WORDS);
      expect(message).toMatch(/expected|unknown key/);
    }
  });
});

describe('what an error quotes stays on its line and draws no mark on its syntax', () => {
  it('a newline or tab in a path an error names is ^J or ^I, the marks after it escaped', () => {
    for (const [name, shown] of [['m\n\u0301.yaml', 'm^J\\u{301}.yaml'], ['t\t\u20dd.yaml', 't^I\\u{20dd}.yaml'], ['plain\n.yaml', 'plain^J.yaml']] as const) {
      const error = new ConfigError('loop.yaml', 'agent.script', `expected a readable file, found none at /w/${name}`, '5:11');
      expect(error.message).toBe(`loop.yaml:5:11: agent.script: expected a readable file, found none at /w/${shown}`);
      expect(error.message).not.toMatch(/[\n\t]|\p{M}/u);
    }
  });

  it('a quoted value that starts with a mark, or has one after an escape, shows it escaped', () => {
    expect(errorsOf(() => parsePolicy(withGoal('').replace('kind: scripted', 'kind: "\\u0301x"'), 'loop.yaml'))).toEqual([
      'loop.yaml:4:9: agent.kind: expected kind: scripted, openai or command, found "\\u0301x"',
    ]);
    expect(errorsOf(() => parsePolicy(withGoal('').replace('objective: fix it', 'objective: "ok\\u0007\\u0301"'), 'loop.yaml'))[0]).toMatch(/found U\+0007 \(BEL\) in "ok\\u0007\\u0301"$/);
  });
});
