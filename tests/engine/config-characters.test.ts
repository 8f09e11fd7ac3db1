/**
 * Control characters in loop.yaml. Written raw, YAML 1.2 takes none but tab and line breaks
 * in a file (the yaml library reads them without a word): each is an error at its line and
 * column. Escaped in double quotes (`"\0"`, `"\e"`), the goal, commands, names and paths
 * still refuse them: a NUL cannot be passed to a process, and the others act on the
 * terminal. Each error names the path and the character.
 */
import { describe, expect, it } from 'vitest';
import { definePolicy, parsePolicy } from '../../src/engine/policy.js';
import { BASE, policyErrors } from '../support/loop-yaml-base.js';

const messages = policyErrors;

/** What a raw character's error says after `found`. */
const raw = (name: string, escape: string) =>
  `expected printable characters, found ${name} written raw (YAML takes no control character but tab and line breaks): remove it (a value that may hold one takes it escaped in double quotes: "${escape}")`;

const TEXT = 'expected text without control characters (tab and newline aside)';

describe('control characters written raw: an error at each line that holds one', () => {
  it.each([
    ['a NUL in a double-quoted goal', BASE.replace('objective: fix it', 'objective: "gr\0et"'), `loop.yaml:2:17: goal.objective: ${raw('U+0000 (NUL)', '\\x00')}`],
    ['a BEL in a plain command', BASE.replace('command: node --test', 'command: node --test\x07'), `loop.yaml:9:25: verify[0].command: ${raw('U+0007 (BEL)', '\\x07')}`],
    ['an ESC in a single-quoted path', BASE.replace('path: ws', "path: 'w\x1bs'"), `loop.yaml:7:11: workspace.path: ${raw('U+001B (ESC)', '\\x1b')}`],
    ['a DEL in a block scalar', BASE.replace('objective: fix it', 'objective: |\n    fix\x7f it'), `loop.yaml:3:8: goal.objective: ${raw('U+007F (DEL)', '\\x7f')}`],
    ['a C1 control (CSI)', BASE.replace('objective: fix it', 'objective: fix\u009b it'), `loop.yaml:2:17: goal.objective: ${raw('U+009B', '\\x9b')}`],
    ['a control character in a comment', `${BASE}# a note\x08\n`, `loop.yaml:10:9: (root): ${raw('U+0008 (BS)', '\\x08')}`],
    ['a control character in an extension key (ignored otherwise)', `${BASE}x-no\x01te: 1\n`, `loop.yaml:10:5: x-no\x01te: ${raw('U+0001 (SOH)', '\\x01')}`],
  ])('%s', (_kind, source, message) => {
    expect(messages(source)).toEqual([message]);
  });

  it('one error a line, each line its own', () => {
    expect(messages(BASE.replace('objective: fix it', 'objective: "a\0b\0c"').replace('command: node --test', 'command: "x\x02"'))).toEqual([
      `loop.yaml:2:16: goal.objective: ${raw('U+0000 (NUL)', '\\x00')}`,
      `loop.yaml:9:16: verify[0].command: ${raw('U+0002 (STX)', '\\x02')}`,
    ]);
  });
});

describe('control characters escaped: text, commands and paths refuse them', () => {
  it.each([
    ['a NUL in the goal', BASE.replace('objective: fix it', 'objective: "gr\\0et"'), `loop.yaml:2:14: goal.objective: ${TEXT}, found U+0000 (NUL) in "gr\\u0000et"`],
    ['an ESC in a verify command', BASE.replace('command: node --test', 'command: "node --test \\e[31m"'), `loop.yaml:9:14: verify[0].command: ${TEXT}, found U+001B (ESC) in "node --test \\u001b[31m"`],
    ['a BEL in the workspace path', BASE.replace('path: ws', 'path: "w\\as"'), `loop.yaml:7:9: workspace.path: ${TEXT}, found U+0007 (BEL) in "w\\u0007s"`],
    ['a CR in a success criterion', BASE.replace('objective: fix it', 'objective: fix it\n  success_criteria: ["ok\\rdone"]'), `loop.yaml:3:22: goal.success_criteria[0]: ${TEXT}, found U+000D (CR) in "ok\\rdone"`],
    ['a NUL in a constraint command', BASE.replace('objective: fix it', 'objective: fix it\n  constraints: [{ text: t, command: "test -f a\\0b" }]'), `loop.yaml:3:37: goal.constraints[0].command: ${TEXT}, found U+0000 (NUL) in "test -f a\\u0000b"`],
    ['a NUL in the transcript path', BASE.replace('script: s.yaml', 'script: "s\\0.yaml"'), `loop.yaml:5:11: agent.script: ${TEXT}, found U+0000 (NUL) in "s\\u0000.yaml"`],
    ['a DEL in a hook command', `${BASE}hooks:\n  - { name: h, topic: on_error, command: "echo \\x7f" }\n`, `loop.yaml:11:42: hooks[0].command: ${TEXT}, found U+007F (DEL) in "echo \x7f"`],
  ])('%s', (_kind, source, message) => {
    expect(messages(source)).toEqual([message]);
  });

  it('tab and newline are text: a multi-line command, a goal with a tab', () => {
    const policy = parsePolicy(BASE.replace('objective: fix it', 'objective: "fix\\tit"').replace('  - command: node --test\n', '  - command: |\n      npm ci\n      node --test\n'), 'loop.yaml');
    expect(policy.goal.objective).toBe('fix\tit');
    expect(policy.verify[0]!.command).toBe('npm ci\nnode --test');
  });

  it('a metric pattern may match an escape sequence written escaped', () => {
    const observe = 'observe:\n  - { name: t, command: "true", parser: regex, pattern: "\\e\\\\[(?<n>\\\\d+)m" }\n';
    expect(parsePolicy(`${BASE}${observe}`, 'loop.yaml').observe[0]!.pattern).toBe('\u001b\\[(?<n>\\d+)m');
  });

  it('a policy given as an object refuses them too, by path', () => {
    expect(() => definePolicy({ goal: { objective: 'fix it' }, verify: [{ command: 'test -f a\0b' }] })).toThrow(`policy: verify[0].command: ${TEXT}, found U+0000 (NUL) in "test -f a\\u0000b"`);
  });
});
