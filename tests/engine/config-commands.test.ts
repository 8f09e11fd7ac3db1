/**
 * What loop.yaml says about commands and rules, checked against how they really run:
 * hook and agent commands run through `sh -c`, so built-ins, keywords and subshells are
 * accepted and the first program that would run is what must exist; an `exact:` rule takes
 * the sha256 of the arguments' canonical JSON, all 64 hex digits or the first 32.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApprovalRuleSet, parseRule } from '../../src/engine/approval/approval-rules.js';
import { ConfigErrors } from '../../src/engine/errors.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { firstProgram } from '../../src/engine/shell-program.js';

describe('the first program sh -c would start', () => {
  it.each([
    ['cd . && true', { kind: 'unknown' }],
    ['exit 0', { kind: 'none' }],
    [': ok', { kind: 'none' }],
    ['read x; echo "$x"', { kind: 'none' }],
    ['if true; then :; fi', { kind: 'none' }],
    ['set -e; true', { kind: 'none' }],
    ['set -e; nosuchprog x', { kind: 'program', word: 'nosuchprog' }],
    ['exec cat', { kind: 'program', word: 'cat' }],
    ['(cat)', { kind: 'program', word: 'cat' }],
    ['{ cat; }', { kind: 'program', word: 'cat' }],
    ['FOO=1 ./deny.sh --strict', { kind: 'program', word: './deny.sh' }],
    ['if grep -q x f; then :; fi', { kind: 'program', word: 'grep' }],
    ['command -v jq >/dev/null && jq .', { kind: 'program', word: 'jq' }],
    ['export PATH=/opt/bin:$PATH; tool', { kind: 'unknown' }],
    ['$RUNNER test', { kind: 'unknown' }],
    ['f() { x; }; f', { kind: 'unknown' }],
  ])('%s', (command, expected) => {
    const found = firstProgram(command);
    // Where the program's word is written: the text between those bytes is the word as written.
    if (found.kind === 'program') expect(Buffer.from(command).subarray(...found.at).toString()).toBe(found.word);
    expect(found.kind === 'program' ? { kind: found.kind, word: found.word } : found).toEqual(expected);
  });
});

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

function errors(text: string): string[] {
  try {
    parsePolicy(text, 'loop.yaml');
  } catch (error) {
    if (error instanceof ConfigErrors) return error.message.split('\n');
    throw error;
  }
  return [];
}

describe('hook and agent commands in loop.yaml', () => {
  it('accepts built-ins, keywords and subshells, and names the first program that is missing', () => {
    const hooks = ['cd . && true', 'exit 0', ': ok', 'read x; echo $x', 'if true; then :; fi', 'set -e; true', 'set -e; nosuchprog-9 x']
      .map((command, i) => `  - {name: h${i}, topic: on_complete, command: '${command}'}\n`)
      .join('');
    expect(errors(`${BASE}hooks:\n${hooks}`)).toEqual([
      `loop.yaml:17:45: hooks[6].command: expected an executable program or a shell built-in (the command runs through sh -c), found none for "nosuchprog-9" (relative paths resolve against ${process.cwd()})`,
    ]);
  });

  it('an agent command may start with exec or a subshell', () => {
    const agent = (command: string) => BASE.replace('kind: scripted\n  script: script.yaml', `kind: command\n  command: '${command}'`);
    expect(errors(agent('exec cat'))).toEqual([]);
    expect(errors(agent('(cat)'))).toEqual([]);
    expect(errors(agent('exec nosuchprog-9'))).toEqual([
      'loop.yaml:5:12: agent.command: expected an executable program or a shell built-in (the command runs through sh -c), found none for "nosuchprog-9"',
    ]);
  });
});

describe('exact: rules', () => {
  const args = { path: 'src/a.ts' };
  const full = createHash('sha256').update('{"path":"src/a.ts"}').digest('hex');
  const call = { id: 'c1', name: 'read_file', args };
  const decide = (rule: string) => new ApprovalRuleSet({ default: 'ask', allow: [rule], deny: [] }).decide(call).decision;

  it('takes the whole sha256 of the canonical JSON, or its first 32 digits (as the console stores it)', () => {
    expect(decide(`exact: read_file sha256:${full}`)).toBe('allow');
    expect(decide(`exact: read_file sha256:${full.slice(0, 32)}`)).toBe('allow');
    expect(decide(`exact: read_file sha256:${full.toUpperCase()}`)).toBe('allow');
    // Other arguments, or another tool: no match.
    expect(decide(`exact: read_file sha256:${createHash('sha256').update('{"path":"src/b.ts"}').digest('hex')}`)).toBe('ask');
    expect(decide(`exact: write_file sha256:${full}`)).toBe('ask');
  });

  it('a digest of another length is refused, saying what is hashed', () => {
    expect(() => parseRule(`exact: read_file sha256:${full.slice(0, 40)}`)).toThrow(
      'expected "exact: <tool> sha256:<digest>", the digest being the sha256 of the arguments as canonical JSON (keys sorted at every level, no spaces: {"path":"src/a.ts"}) in hex, all 64 digits or the first 32 (as the console\'s a key stores it)',
    );
  });
});
