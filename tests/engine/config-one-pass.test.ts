/**
 * One pass over a loop.yaml lists every error it can find, in file order: YAML-level
 * problems (leading zeros, tags, duplicate keys, keys that are lists) no longer hide the
 * schema's errors about the rest of the document, and the checks across sections (signal
 * names) run on the parts that passed the schema. Keys are named as written (`null`, `~`);
 * every tag is refused, naming the file read; a file that is not UTF-8 is refused at its line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigErrors } from '../../src/engine/errors.js';
import { loadPolicy, parsePolicy } from '../../src/engine/policy.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';

const BASE = `goal:
  objective: fix it
agent:
  kind: scripted
  script: script.yaml
workspace:
  path: project
verify:
  - command: "true"
`;

/** The error lines of a loop.yaml whose text is BASE (9 lines) and then `rest`, from line 10. */
function errors(rest: string, before = ''): string[] {
  try {
    parsePolicy(before + BASE + rest, 'loop.yaml');
  } catch (error) {
    if (error instanceof ConfigErrors) return error.message.split('\n');
    throw error;
  }
  return [];
}

describe('one pass lists every error', () => {
  it('a number with leading zeros hides neither an unknown pattern nor an unknown key', () => {
    expect(errors('budget: {max_tokens: 010}\npattern: nope\ngoal2: 1\n')).toEqual([
      'loop.yaml:10:22: budget.max_tokens: expected a number without leading zeros, found 010 (YAML 1.2 reads it as 10, YAML 1.1 as octal; write 10)',
      'loop.yaml:11:10: pattern: expected one of react, plan-and-execute, reflexion, auto, found "nope"',
      'loop.yaml:12:1: goal2: unknown key "goal2"; did you mean "goal"?',
    ]);
  });

  it('an unknown tag hides neither a leading zero nor a yes', () => {
    expect(errors('x: !foo 1\ncheckpoint: {every_iterations: 010}\nlaps: {enabled: yes}\n')).toEqual([
      'loop.yaml:10:1: x: unknown key "x"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools',
      'loop.yaml:10:4: x: expected a plain YAML value, found the tag !foo (loop.yaml takes no tags: remove it)',
      'loop.yaml:11:32: checkpoint.every_iterations: expected a number without leading zeros, found 010 (YAML 1.2 reads it as 10, YAML 1.1 as octal; write 10)',
      'loop.yaml:12:17: laps.enabled: expected true or false, found "yes" (YAML 1.2 reads yes as a string; write true)',
    ]);
  });

  it('a list used as a key hides none of the other key errors', () => {
    expect(errors('? [a, b]\n: 1\nfoo: 1\nbar: 2\nlaps: {enabld: true, x: 1}\n')).toEqual([
      'loop.yaml:10:3: (root): expected a plain key, found a list used as a key',
      'loop.yaml:12:1: foo: unknown key "foo"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools',
      'loop.yaml:13:1: bar: unknown key "bar"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools',
      'loop.yaml:14:8: laps.enabld: unknown key "enabld"; did you mean "enabled"?',
      'loop.yaml:14:22: laps.x: unknown key "x"; expected one of: enabled, max_laps, max_consecutive_failures, progress_file',
    ]);
  });

  it('a duplicate key hides no other error, nor the error of its own last value', () => {
    expect(errors('checkpoint: {every_iterations: 2}\ncheckpoint: {every_iterations: 3}\npattern: nope\n')).toEqual([
      'loop.yaml:11:1: checkpoint: Map keys must be unique: expected "checkpoint" once, found it again (first at 10:1)',
      'loop.yaml:12:10: pattern: expected one of react, plan-and-execute, reflexion, auto, found "nope"',
    ]);
  });

  it('every block of a key written more than once is checked, each error at its own line', () => {
    // Whichever block the user keeps, one pass names what is wrong in it: the schema reads
    // only the last (the one the document keeps), the earlier ones are checked on their own.
    expect(
      errors('budget:\n  max_iterations: -5\n  bogus: 1\nlaps: {enabled: true}\nbudget:\n  max_tool_calls: nope\nbudget: {max_tokens: 0.5}\n'),
    ).toEqual([
      'loop.yaml:11:19: budget.max_iterations: expected a positive integer or "unlimited", found -5',
      'loop.yaml:12:3: budget.bogus: unknown key "bogus"; expected one of: max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd, warn_fraction, on_exhausted, increments',
      'loop.yaml:14:1: budget: Map keys must be unique: expected "budget" once, found it again (first at 10:1)',
      'loop.yaml:15:19: budget.max_tool_calls: expected a positive integer or "unlimited", found "nope"',
      'loop.yaml:16:1: budget: Map keys must be unique: expected "budget" once, found it again (first at 10:1)',
      'loop.yaml:16:22: budget.max_tokens: expected a positive integer or "unlimited", found 0.5',
    ]);
    // In a list's item: the earlier value's own error, at its line.
    expect(errors("observe:\n  - name: tests\n    command: 5\n    parser: tapp\n    command: 'node --test'\n")).toEqual([
      'loop.yaml:12:14: observe[0].command: expected a string, found 5',
      'loop.yaml:13:13: observe[0].parser: expected one of tap, vitest-json, jest-json, junit, regex, found "tapp"; did you mean "tap"?',
      'loop.yaml:14:5: observe[0].command: Map keys must be unique: expected "command" once, found it again (first at 12:5)',
    ]);
    // A key written twice inside an earlier block: its first value is checked too, and "first
    // at" points into the block that holds it, in block or flow style.
    expect(errors('budget:\n  max_iterations: z\n  max_iterations: y\nbudget:\n  max_iterations: 1\n')).toEqual([
      'loop.yaml:11:19: budget.max_iterations: expected a positive integer or "unlimited", found "z"',
      'loop.yaml:12:3: budget.max_iterations: Map keys must be unique: expected "max_iterations" once, found it again (first at 11:3)',
      'loop.yaml:12:19: budget.max_iterations: expected a positive integer or "unlimited", found "y"',
      'loop.yaml:13:1: budget: Map keys must be unique: expected "budget" once, found it again (first at 10:1)',
    ]);
    expect(errors('budget: {max_iterations: a, max_iterations: b}\nbudget: {max_iterations: 1}\n')).toEqual([
      'loop.yaml:10:26: budget.max_iterations: expected a positive integer or "unlimited", found "a"',
      'loop.yaml:10:29: budget.max_iterations: Map keys must be unique: expected "max_iterations" once, found it again (first at 10:10)',
      'loop.yaml:10:45: budget.max_iterations: expected a positive integer or "unlimited", found "b"',
      'loop.yaml:11:1: budget: Map keys must be unique: expected "budget" once, found it again (first at 10:1)',
    ]);
    // Through an alias: the value the alias leads to is checked in each of its blocks.
    expect(errors('x-defaults: &d\n  max_iterations: z\n  max_iterations: y\nbudget: *d\n')).toEqual([
      'loop.yaml:11:19: budget.max_iterations: expected a positive integer or "unlimited", found "z"',
      'loop.yaml:12:3: x-defaults.max_iterations: Map keys must be unique: expected "max_iterations" once, found it again (first at 11:3)',
      'loop.yaml:12:19: budget.max_iterations: expected a positive integer or "unlimited", found "y"',
    ]);
    // Nested too: the duplicated key of a mapping, at any depth.
    expect(errors('laps:\n  max_laps: 0\n  max_laps: 2\n')).toEqual([
      'loop.yaml:11:13: laps.max_laps: expected a positive integer, found 0',
      'loop.yaml:12:3: laps.max_laps: Map keys must be unique: expected "max_laps" once, found it again (first at 11:3)',
    ]);
  });

  it('past the bound on earlier blocks checked, the first ones in file order are, and one error counts the rest', () => {
    const blocks = Array.from({ length: 25 }, (_, i) => `budget: {max_iterations: bad${i + 1}}\n`).join('');
    const found = errors(`${blocks}budget: {max_iterations: 3}\n`).filter((line) => !line.includes('Map keys must be unique'));
    expect(found).toEqual([
      ...Array.from({ length: 20 }, (_, i) => `loop.yaml:${10 + i}:26: budget.max_iterations: expected a positive integer or "unlimited", found "bad${i + 1}"`),
      'loop.yaml:30:1: 5 more earlier blocks of keys written twice were not checked on their own (the first 20 were): remove the duplicates and validate again to see their errors',
    ]);
  });

  it('an earlier block that is an alias is checked where the alias leads', () => {
    expect(errors('x-defs:\n  bad: &bad {max_iterations: -5}\nbudget: *bad\nbudget: {max_iterations: 3}\n')).toEqual([
      'loop.yaml:11:30: budget.max_iterations: expected a positive integer or "unlimited", found -5',
      'loop.yaml:13:1: budget: Map keys must be unique: expected "budget" once, found it again (first at 12:1)',
    ]);
  });

  it('keys the parser takes as equal though spelt otherwise: "first at" names the one it compared with', () => {
    expect(errors('x-notes:\n  "1": string one\n  1: number one\n  1: number again\n  0x1: hex one\n  ~: nothing\n  null: nothing again\n')).toEqual([
      'loop.yaml:13:3: x-notes.1: Map keys must be unique: expected "1" once, found it again (first at 12:3)',
      'loop.yaml:14:3: x-notes.0x1: Map keys must be unique: expected "0x1" once, found it again (first at 12:3)',
      'loop.yaml:16:3: x-notes.null: Map keys must be unique: expected "null" once, found it again (first at 15:3)',
    ]);
  });

  it('thousands of duplicates are listed in time linear in their number', () => {
    const many = (n: number) => `x-many:\n${Array.from({ length: n }, (_, i) => `  k: ${i}\n`).join('')}`;
    /** CPU time of this process in ms (time spent waiting for a CPU on a loaded machine left out). */
    const cpuMs = () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    let started = cpuMs();
    expect(errors(many(5000))).toHaveLength(5000);
    const quarter = cpuMs() - started;
    started = cpuMs();
    const lines = errors(many(20000));
    const whole = cpuMs() - started;
    // Each duplicate, and the count of the earlier blocks past the bound.
    expect(lines).toHaveLength(20000);
    expect(lines.at(-1)).toBe('loop.yaml:20010:3: x-many.k: Map keys must be unique: expected "k" once, found it again (first at 11:3)');
    expect(lines).toContain('loop.yaml:31:3: 19979 more earlier blocks of keys written twice were not checked on their own (the first 20 were): remove the duplicates and validate again to see their errors');
    // Four times the duplicates: about four times the time when linear, sixteen when each
    // error walked the mapping (20 s and more for 20,000).
    expect(whole, `${Math.round(quarter)} ms for 5,000, ${Math.round(whole)} ms for 20,000`).toBeLessThan(8 * quarter);
  });

  it('unknown signals are reported with the schema errors, not after them', () => {
    const observe = "observe:\n  - {name: tests, command: 'true', parser: tap}\n";
    expect(
      errors(
        `${observe}progress:\n  observed:\n    - {signal: observed.tests.failin, direction: decrease}\n    - {signal: observed.tests.total, direction: sideways}\npattern: nope\n`,
      ),
    ).toEqual([
      'loop.yaml:14:16: progress.observed[0].signal: expected one of observed.tests.failing, observed.tests.passing, observed.tests.total, found "observed.tests.failin"; did you mean "observed.tests.failing"?',
      'loop.yaml:15:49: progress.observed[1].direction: expected one of increase, decrease, found "sideways"',
      'loop.yaml:16:10: pattern: expected one of react, plan-and-execute, reflexion, auto, found "nope"',
    ]);
    // An observer that is itself invalid leaves the signals naming it unchecked (its metrics are not known).
    const bad = "observe:\n  - {name: tests, command: 'true', parser: tap}\n  - {name: lint, command: 5, parser: tap}\n";
    expect(errors(`${bad}progress:\n  observed:\n    - {signal: observed.lint.failing, direction: decrease}\ngoal2: 1\n`)).toEqual([
      'loop.yaml:12:27: observe[1].command: expected a string, found 5',
      'loop.yaml:16:1: goal2: unknown key "goal2"; did you mean "goal"?',
    ]);
  });

  it('a signal is checked whatever else its entry gets wrong, and one naming no observer is named even beside an invalid observer', () => {
    const bad = "observe:\n  - {name: tests, command: 'true', parser: tapp}\n  - {name: lint, command: 'true', parser: tap}\n";
    const lint = 'one of observed.lint.failing, observed.lint.passing, observed.lint.total (or of observed.tests.*, once that observer is fixed)';
    expect(errors(`${bad}progress:\n  observed:\n    - {signal: observed.lint.failng, direction: down}\n    - {signal: observed.other.failing, direction: decrease}\n`)).toEqual([
      'loop.yaml:11:44: observe[0].parser: expected one of tap, vitest-json, jest-json, junit, regex, found "tapp"; did you mean "tap"?',
      `loop.yaml:15:16: progress.observed[0].signal: expected ${lint}, found "observed.lint.failng"; did you mean "observed.lint.failing"?`,
      'loop.yaml:15:49: progress.observed[0].direction: expected one of increase, decrease, found "down"',
      `loop.yaml:16:16: progress.observed[1].signal: expected ${lint}, found "observed.other.failing"; did you mean "observed.lint.failing"?`,
    ]);
  });
});

describe('signals beside observers that are themselves invalid: one error a signal, in the same words whatever else is wrong', () => {
  const tests = "  - {name: tests, command: 'true', parser: tap}\n";
  const signals = 'progress:\n  observed:\n    - {signal: observed.ghost.x, direction: decrease}\n    - {signal: observed.lint.errors, direction: decrease}\n';
  const ofSignals = (lines: string[]) => lines.filter((line) => line.includes('.signal: '));
  const TESTS = 'observed.tests.failing, observed.tests.passing, observed.tests.total';
  it.each<[string, string, string[]]>([
    ['a regex observer whose pattern does not compile', "  - {name: lint, command: 'true', parser: regex, pattern: '(?<errors>\\d+'}\n", [`one of ${TESTS} (or of observed.lint.*, once that observer is fixed), found "observed.ghost.x"`]],
    ['a regex observer without a named group', "  - {name: lint, command: 'true', parser: regex, pattern: '(\\d+)'}\n", [`one of ${TESTS} (or of observed.lint.*, once that observer is fixed), found "observed.ghost.x"`]],
    ['a regex observer without a pattern', "  - {name: lint, command: 'true', parser: regex}\n", [`one of ${TESTS} (or of observed.lint.*, once that observer is fixed), found "observed.ghost.x"`]],
    ['an observer with a misspelt parser', "  - {name: lint, command: 'true', parser: tapp}\n", [`one of ${TESTS} (or of observed.lint.*, once that observer is fixed), found "observed.ghost.x"`]],
    ['an observer whose name is no name (upper case)', "  - {name: Lint, command: 'true', parser: tap}\n", [`one of ${TESTS} (or of observe[1], once that observer is fixed), found "observed.ghost.x"`, `one of ${TESTS} (or of observe[1], once that observer is fixed), found "observed.lint.errors"`]],
    ['an observer without a name', "  - {command: 'true', parser: tap}\n", [`one of ${TESTS} (or of observe[1], once that observer is fixed), found "observed.ghost.x"`, `one of ${TESTS} (or of observe[1], once that observer is fixed), found "observed.lint.errors"`]],
    ['an observer that is a number', '  - 7\n', [`one of ${TESTS} (or of observe[1], once that observer is fixed), found "observed.ghost.x"`, `one of ${TESTS} (or of observe[1], once that observer is fixed), found "observed.lint.errors"`]],
  ])('%s', (_name, observer, expected) => {
    const found = ofSignals(errors(`observe:\n${tests}${observer}${signals}`)).map((line) => line.replace(/^.*?\.signal: expected /, ''));
    expect(found).toEqual(expected);
  });

  it('every observer invalid: the signals are named against them, never "there is none"', () => {
    const found = ofSignals(errors(`observe:\n  - 7\n  - {name: lint, command: 'true', parser: tapp}\n${signals}`));
    expect(found).toEqual([
      'loop.yaml:15:16: progress.observed[0].signal: expected a metric of observe[0] or observed.lint.*, once those observers are fixed, found "observed.ghost.x"',
    ]);
  });
});

describe('a misspelt agent kind hides none of the section\'s other errors', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-kind-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = (agent: string): string[] => {
    const file = path.join(dir, 'loop.yaml');
    writeFileSync(file, BASE.replace('agent:\n  kind: scripted\n  script: script.yaml\n', `agent:\n${agent}`).replace('path: project', `path: ${dir}`));
    try {
      loadPolicy(file);
    } catch (error) {
      if (error instanceof ConfigErrors) return error.errors.map((e) => e.message.slice(file.length + 1));
      throw error;
    }
    return [];
  };

  it.each([
    ['scriptd', '  script: missing.yaml\n  model: m\n', ['4:9: agent.kind: expected kind: scripted, openai or command, found "scriptd"; did you mean "scripted"?', '5:11: agent.script: expected a readable file, found none at', '6:3: agent.model: unknown key "model"; expected one of: kind, script (agent checked as kind: scripted)']],
    ['scriptd', '  script: missing.yaml\n', ['4:9: agent.kind: expected kind: scripted, openai or command, found "scriptd"; did you mean "scripted"?', '5:11: agent.script: expected a readable file, found none at']],
    ['opnai', '  model: 12\n  api_key_env: OPENAI_API_KEY_NOT_SET_HERE\n', ['4:9: agent.kind: expected kind: scripted, openai or command, found "opnai"; did you mean "openai"?', '5:10: agent.model: expected a string, found 12 (agent checked as kind: openai)', '6:16: agent.api_key_env: expected the environment variable OPENAI_API_KEY_NOT_SET_HERE to hold the API key, found it is not set']],
    ['comand', '  command: ./no-such-agent --json\n  timout: 5m\n', ['4:9: agent.kind: expected kind: scripted, openai or command, found "comand"; did you mean "command"?', '5:12: agent.command: ', '6:3: agent.timout: unknown key "timout"; did you mean "timeout"? (agent checked as kind: command)']],
  ])('kind: %s', (kind, rest, expected) => {
    const found = load(`  kind: ${kind}\n${rest}`);
    expect(found).toHaveLength(expected.length);
    expected.forEach((start, i) => expect(found[i]!.startsWith(start), `${found[i]} starts with ${start}`).toBe(true));
    // Every error of the section but the kind's own says how the section was read, once.
    for (const line of found.slice(1)) expect(line).toMatch(new RegExp(`(\\(|; )agent checked as kind: ${expected[0]!.match(/did you mean "(\w+)"/)![1]}\\)$`));
  });
});

describe('keys and tags as written', () => {
  it('a key named null or ~ is named as written, at its line', () => {
    expect(errors('budget:\n  ~: 3\n  max_iterations: 0\n', 'null: 1\n')).toEqual([
      'loop.yaml:1:1: null: unknown key "null"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools',
      'loop.yaml:12:3: budget.~: unknown key "~"; expected one of: max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd, warn_fraction, on_exhausted, increments',
      'loop.yaml:13:19: budget.max_iterations: expected a positive integer or "unlimited", found 0 (0 would not mean unlimited: write unlimited to remove the limit)',
    ]);
  });

  it('standard tags are refused as the docs say, at the tag; a value the tag changes is not judged as well', () => {
    // Untagged, `true` is a boolean and `aGVsbG8=` a string: the schema's word on what the tag made of them would mislead.
    expect(errors('laps: {enabled: !!str true}\ntools: {shell_timeout: !!binary aGVsbG8=}\n')).toEqual([
      'loop.yaml:10:17: laps.enabled: expected a plain YAML value, found the tag !!str (loop.yaml takes no tags: remove it)',
      'loop.yaml:11:24: tools.shell_timeout: expected a plain YAML value, found the tag !!binary (loop.yaml takes no tags: remove it)',
    ]);
  });

  it.each<[string, string, string]>([
    ['a standard tag', '!!str scriptd', '!!str'],
    ['a standard tag after an anchor', '&k !!str scriptd', '!!str'],
    ['a standard tag before an anchor', '!!str &k scriptd', '!!str'],
    ['an unknown tag', '!robot scriptd', '!robot'],
    ['a standard tag on a quoted value', '!!str "scriptd"', '!!str'],
  ])('%s on a value that is the same without it: the tag and the value are both reported, in one pass', (_what, written, tag) => {
    const source = BASE.replace('  kind: scripted\n', `  kind: ${written}\n`);
    const tagAt = 9 + written.indexOf('!');
    const valueAt = 9 + written.lastIndexOf('scriptd') - (written.endsWith('"') ? 1 : 0);
    let listed: string[] = [];
    try {
      parsePolicy(source, 'loop.yaml');
    } catch (error) {
      if (!(error instanceof ConfigErrors)) throw error;
      listed = error.message.split('\n');
    }
    expect(listed).toEqual([
      `loop.yaml:4:${tagAt}: agent.kind: expected a plain YAML value, found the tag ${tag} (loop.yaml takes no tags: remove it)`,
      `loop.yaml:4:${valueAt}: agent.kind: expected kind: scripted, openai or command, found "scriptd"; did you mean "scripted"?`,
    ]);
  });

  const TAG = (at: string, path: string, tag: string) => `loop.yaml:${at}: ${path}: expected a plain YAML value, found the tag ${tag} (loop.yaml takes no tags: remove it)`;
  it.each<[string, string, string[]]>([
    [
      'the non-specific tag, which makes 5 a string: the tag alone',
      'budget: {max_iterations: ! 5}\n',
      [TAG('10:26', 'budget.max_iterations', '!')],
    ],
    [
      'a tag on a key, standard or not: the tag, and what the key and its value get wrong',
      'laps: {!!str enabled: maybe, !foo bogus: 1}\n',
      [
        TAG('10:8', 'laps.enabled', '!!str'),
        'loop.yaml:10:23: laps.enabled: expected true or false, found "maybe"',
        TAG('10:30', 'laps.bogus', '!foo'),
        'loop.yaml:10:35: laps.bogus: unknown key "bogus"; expected one of: enabled, max_laps, max_consecutive_failures, progress_file',
      ],
    ],
    [
      'a mapping tagged as one: the tag, and the errors inside it',
      'budget: !!map {max_iterations: 0, max_iteration: 3}\n',
      [
        TAG('10:9', 'budget', '!!map'),
        'loop.yaml:10:32: budget.max_iterations: expected a positive integer or "unlimited", found 0 (0 would not mean unlimited: write unlimited to remove the limit)',
        'loop.yaml:10:35: budget.max_iteration: unknown key "max_iteration"; did you mean "max_iterations"?',
      ],
    ],
    [
      'a list with a tag of its own on the line before its items: the tag where it is written, and the errors inside',
      'observe: !custom\n  - {name: tests, command: "", parser: tap}\n',
      [TAG('10:10', 'observe', '!custom'), 'loop.yaml:11:28: observe[0].command: expected a non-empty string, found ""'],
    ],
    [
      'a tagged item of a flow list: named by its index, the other items still checked',
      'approval: {allow: ["", !foo x, !!str y, !<tag:yaml.org,2002:str> z]}\n',
      [
        'loop.yaml:10:20: approval.allow[0]: expected a tool name, "shell: <words>", "shell-exact: <command>" or "shell-read-only: <command>", found ""',
        TAG('10:24', 'approval.allow[1]', '!foo'),
        TAG('10:32', 'approval.allow[2]', '!!str'),
        TAG('10:41', 'approval.allow[3]', '!<tag:yaml.org,2002:str>'),
      ],
    ],
    [
      'a standard tag its value does not fit, which the parser warns of too: listed once',
      'tools: {shell_timeout: !!float 5}\n',
      [TAG('10:24', 'tools.shell_timeout', '!!float')],
    ],
  ])('tags: %s', (_what, block, expected) => {
    expect(errors(block)).toEqual(expected);
  });

  it("a tag in a transcript names the transcript, not loop.yaml", () => {
    // A script's keys written twice, at every depth: each block's errors at their lines.
    const script = 'turns:\n  - thought: one\n    thought: 2\n    tool_calls:\n      - { id: t1, id: 5, name: shell, args: {} }\nturns:\n  - { thought: 3 }\n';
    expect(() => ScriptedAgent.fromYaml(script, 'script.yaml')).toThrow(
      [
        'script.yaml:3:5: turns[0].thought: Map keys must be unique: expected "thought" once, found it again (first at 2:5)',
        'script.yaml:3:14: turns[0].thought: expected a string, found 2',
        'script.yaml:5:19: turns[0].tool_calls[0].id: Map keys must be unique: expected "id" once, found it again (first at 5:11)',
        'script.yaml:5:23: turns[0].tool_calls[0].id: expected a string, found 5',
        'script.yaml:6:1: turns: Map keys must be unique: expected "turns" once, found it again (first at 1:1)',
        'script.yaml:7:16: turns[0].thought: expected a string, found 3',
      ].join('\n'),
    );
    expect(() => ScriptedAgent.fromYaml('turns:\n  - final: !done x\n', 'script.yaml')).toThrow(
      'script.yaml:2:12: turns[0].final: expected a plain YAML value, found the tag !done (script.yaml takes no tags: remove it)',
    );
  });
});

describe('files that are not UTF-8', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-one-pass-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a Latin-1 loop.yaml is refused at the line of its first byte that is not UTF-8', () => {
    const file = path.join(dir, 'loop.yaml');
    writeFileSync(file, Buffer.concat([Buffer.from('goal:\n  objective: caf'), Buffer.from([0xe9]), Buffer.from(' fix\n')]));
    expect(() => loadPolicy(file)).toThrow(`${file}:2:17: expected UTF-8 text, found the byte 0xe9 that is not UTF-8 (save the file as UTF-8; Latin-1 and other encodings are not read)`);
  });

  it('a byte order mark an editor saved takes no column: line 1 is counted as the editor shows it', () => {
    const file = path.join(dir, 'bom.yaml');
    writeFileSync(file, `\ufeffgoal: !!str x\n${BASE.slice(BASE.indexOf('agent:'))}bogus: 1\n`);
    // (The files it names are not there: their errors are of lines 4 and 6.)
    expect(errorsOf(() => loadPolicy(file)).filter((line) => !/:[46]:\d+: /.test(line))).toEqual([
      `${file}:1:7: goal: expected a plain YAML value, found the tag !!str (bom.yaml takes no tags: remove it)`,
      `${file}:1:13: goal: expected a mapping, found "x"`,
      `${file}:9:1: bogus: unknown key "bogus"; expected one of: goal, pattern, patterns, task, agent, workspace, budget, pricing, checkpoint, observe, progress, stagnation, repetition, verify, approval, laps, hooks, hook_timeout, on_abort, tools`,
    ]);
    writeFileSync(file, Buffer.concat([Buffer.from('\ufeffgoal: caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    expect(() => loadPolicy(file)).toThrow(`${file}:1:10: expected UTF-8 text, found the byte 0xe9`);
  });
});

/** The messages of the ConfigErrors `work` throws. */
function errorsOf(work: () => unknown): string[] {
  try {
    work();
  } catch (error) {
    if (error instanceof ConfigErrors) return error.message.split('\n');
    throw error;
  }
  return [];
}

describe("what a run asks of a transcript at its start", () => {
  const start = (yaml: string, pattern: 'react' | 'plan-and-execute', laps = false) =>
    ScriptedAgent.fromYaml(yaml, 'script.yaml').startProblems({ pattern, laps, maxLaps: 1 });

  it('an empty plan ends the run no_plan before any turn: no turn is needed', () => {
    expect(start('plan: []\nturns: []\n', 'plan-and-execute')).toEqual({ errors: [], warnings: [] });
  });

  it('a plan with steps needs a turn to carry them out', () => {
    expect(start('plan: [fix it]\n', 'plan-and-execute').errors.map((e) => e.message)).toEqual([
      'expected at least one entry in turns: (laps.enabled is false, so the run plays turns:), found none',
    ]);
  });

  it('laps play laps:, and a first lap without a turn is an error', () => {
    expect(start('laps:\n  - []\n', 'react', true).errors).toEqual([
      { path: ['laps', 0], message: 'expected laps: with at least one turn in the first lap (laps.enabled is true, so each lap plays its list in laps:), found no turn in the first lap' },
    ]);
  });
});
