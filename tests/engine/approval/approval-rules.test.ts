import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/engine/errors.js';
import type { ToolCall } from '../../../src/engine/types.js';
import {
  ApprovalRuleSet,
  parseRule,
  type ApprovalDecision,
  type ApprovalRules,
} from '../../../src/engine/approval/approval-rules.js';

const shell = (command: unknown): ToolCall => ({ id: 't1', name: 'shell', args: { command } });
const tool = (name: string, args: Record<string, unknown> = { path: 'a.txt' }): ToolCall => ({ id: 't1', name, args });
const rules = (over: Partial<ApprovalRules> = {}): ApprovalRules => ({ default: 'ask', allow: [], deny: [], ...over });

/** Each call builds the rule set anew, as a policy load would. */
const decideApproval = (call: ToolCall, r: ApprovalRules, granted?: string[]): ApprovalDecision => new ApprovalRuleSet(r).decide(call, granted);

const GIT_LS = rules({ allow: ['shell: git status', 'shell: ls'] });
const decide = (command: string, r = GIT_LS, session?: string[]): ApprovalDecision => decideApproval(shell(command), r, session);

describe('decideApproval: shell commands against allow ["shell: git status", "shell: ls"]', () => {
  it.each([
    ['ls', 'shell: ls'],
    ['ls -la src', 'shell: ls'],
    ['git status', 'shell: git status'],
    ['git status --short', 'shell: git status'],
    ["ls 'a b' 'x$y' '$(id)'", 'shell: ls'],
    ['ls "plain words"', 'shell: ls'],
    ["'git' \"status\"", 'shell: git status'],
    ['ls a\\ b', 'shell: ls'],
    ['l\\s -la', 'shell: ls'],
    ['ls a\\$b "\\$(id)" "\\`id\\`"', 'shell: ls'],
    ['ls \\\n-la', 'shell: ls'],
    ["ls 'it'\\''s'", 'shell: ls'],
    ['ls HEAD~1', 'shell: ls'],
    ['ls # a comment', 'shell: ls'],
    ['  ls  ', 'shell: ls'],
  ])('allows the simple literal command %j', async (command, rule) => {
    expect(await decide(command)).toEqual({ decision: 'allow', rule, reason: `allow rule "${rule}"` });
  });

  it.each([
    ['ls && rm -rf x', 'compound command (&&)'],
    ['ls || x', 'compound command (||)'],
    ['ls; curl e | sh', 'compound command (;)'],
    ['ls;', 'compound command (;)'],
    ['ls\nrm -rf x', 'compound command (newline)'],
    ['ls & rm x', 'compound command (&)'],
    ['ls &', 'background command (&)'],
    ['ls | sh', 'pipeline (|)'],
    ['ls |& sh', 'pipeline (|&)'],
    ['ls > out', 'redirection (>)'],
    ['ls >> out', 'redirection (>>)'],
    ['ls 2>&1', 'redirection (>&)'],
    ['ls &> out', 'redirection (&>)'],
    ['ls < /etc/passwd', 'redirection (<)'],
    ['ls <<EOF\nhi\nEOF', 'redirection (<<)'],
    ['ls $(id)', 'command substitution ($(...))'],
    ['ls "$(id)"', 'command substitution ($(...))'],
    ['ls `id`', 'command substitution (`...`)'],
    ['ls $[1+1]', 'arithmetic expansion ($[...])'],
    ['ls $((1+1))', 'arithmetic expansion ($((...)))'],
    ['ls $HOME', 'parameter expansion ($HOME)'],
    ['ls ${HOME}', 'parameter expansion (${HOME})'],
    ['ls "a$VAR"', 'parameter expansion ($VAR)'],
    ['ls <(id)', 'process substitution (<(...))'],
    ["ls $'\\x41'", "ANSI-C quoting ($'\\x41')"],
    ['ls $"x"', 'locale quoting ($"x")'],
    ['ls *', 'glob (*)'],
    ['ls src/?.ts', 'glob (src/?.ts)'],
    ['ls [ab]', 'glob ([ab])'],
    ['ls {a,b}', 'brace expansion ({a,b})'],
    ['ls ~', 'tilde expansion (~)'],
    ['ls --dir=~/x', 'tilde expansion (--dir=~/x)'],
    ['ls @(a|b)', 'extended glob (@(a|b))'],
    ['FOO=1 ls', 'variable assignment (FOO=)'],
    ['./ls', 'path-qualified program (./ls)'],
    ['/bin/ls', 'path-qualified program (/bin/ls)'],
    ['git/status', 'path-qualified program (git/status)'],
    ['$LS', 'parameter expansion ($LS)'],
    ['! ls', 'negated command (!)'],
    ['(ls)', 'subshell ((ls))'],
    ['{ ls; }', 'command group ({ ls; })'],
    ['time ls', 'time command (time ls)'],
    ['if ls; then ls; fi', 'if statement (if ls; then ls; fi)'],
    ['ls() { rm -rf x; }', 'function definition (ls() { rm -rf x; })'],
    ['declare x=1', 'declaration (declare x=1)'],
    ['[[ -f x ]]', 'test expression ([[ -f x ]])'],
    ['# only a comment', 'empty command'],
  ])('asks about %j: %s', async (command, reason) => {
    expect(await decide(command)).toEqual({ decision: 'ask', rule: null, reason });
  });

  it('asks when no allow rule matches, by word and not by characters', async () => {
    for (const command of ['git statusx', 'git', 'lsof', 'rm -rf x', 'git log', 'ls\\']) {
      expect(await decide(command)).toEqual({ decision: 'ask', rule: null, reason: 'no allow rule matches' });
    }
  });

  it('asks about a command that does not parse', async () => {
    const result = await decide('ls "unterminated');
    expect(result.decision).toBe('ask');
    expect(result.rule).toBeNull();
    expect(result.reason).toMatch(/^parse error: 1:4: reached EOF without closing quote "/);
    expect((await decide('ls )')).reason).toMatch(/^parse error: /);
  });

  it('asks about a shell call without a command string', async () => {
    expect(await decideApproval(shell(42), GIT_LS)).toEqual({ decision: 'ask', rule: null, reason: 'shell call without a command' });
    expect(await decideApproval({ id: 't', name: 'shell', args: {} }, GIT_LS)).toMatchObject({ decision: 'ask' });
    expect(await decide('  ')).toEqual({ decision: 'ask', rule: null, reason: 'shell call without a command' });
    expect(await decide('ls\0; rm x')).toEqual({ decision: 'ask', rule: null, reason: 'NUL byte in command' });
  });
});

describe('decideApproval: deny rules win and see every part', () => {
  const withDeny = rules({ allow: ['shell: git status', 'shell: ls', 'shell: rm'], deny: ['shell: rm', 'shell: git push'] });

  it.each([
    ['ls && rm -rf x', 'shell: rm'],
    ['rm -rf x', 'shell: rm'],
    ['ls; curl e | rm x', 'shell: rm'],
    ['ls $(rm -rf x)', 'shell: rm'],
    ['ls "`rm -rf x`"', 'shell: rm'],
    ['ls <(rm x)', 'shell: rm'],
    ['(cd x && rm y)', 'shell: rm'],
    ['f() { rm x; }; f', 'shell: rm'],
    ['if true; then rm x; fi', 'shell: rm'],
    ['/bin/rm -rf x', 'shell: rm'],
    ["'r'm x", 'shell: rm'],
    ['FOO=1 rm x', 'shell: rm'],
    ['rm $X', 'shell: rm'],
    ['sudo -u root rm -rf /', 'shell: rm'],
    ['env A=1 xargs rm', 'shell: rm'],
    ['timeout 5 rm x', 'shell: rm'],
    ["sh -c 'ls && rm -rf x'", 'shell: rm'],
    ["bash -ec 'cd x; rm y'", 'shell: rm'],
    ["env bash -c 'rm y'", 'shell: rm'],
    ['eval rm -rf x', 'shell: rm'],
    ['cat <<EOF\n$(rm x)\nEOF', 'shell: rm'],
    ['X=$(rm y) ls', 'shell: rm'],
    ['[[ $(rm x) ]]', 'shell: rm'],
    ['echo $(( $(rm x) ))', 'shell: rm'],
    ['case $(rm x) in *) ls;; esac', 'shell: rm'],
    ['\\rm x', 'shell: rm'],
    ['command -p rm x', 'shell: rm'],
    ['git push --force', 'shell: git push'],
    ['ls && git push', 'shell: git push'],
  ])('denies %j by %s', async (command, rule) => {
    expect(await decide(command, withDeny)).toEqual({ decision: 'deny', rule, reason: `deny rule "${rule}"` });
  });

  it.each(['ls', 'git status', 'git pushx', 'echo rm', 'git rm x', 'rmdir x', 'ls rm'])('does not deny %j', async (command) => {
    expect((await decide(command, withDeny)).decision).not.toBe('deny');
  });

  it('denies over a session allow rule and an exact allow rule', async () => {
    const r = rules({ deny: ['shell: rm'] });
    expect((await decide('rm x', r, ['shell: rm'])).decision).toBe('deny');
    expect((await decide('ls && rm x', r, ['shell-exact: ls && rm x'])).decision).toBe('deny');
  });

  it('denies every shell call with a bare "shell" deny rule, and an exact text with a shell-exact one', async () => {
    expect(await decide('ls', rules({ allow: ['shell: ls'], deny: ['shell'] }))).toEqual({ decision: 'deny', rule: 'shell', reason: 'deny rule "shell"' });
    expect((await decide('make clean', rules({ deny: ['shell-exact: make clean'] }))).decision).toBe('deny');
  });

  it('asks rather than allows when a deny rule is invalid', async () => {
    expect(await decide('ls', rules({ allow: ['shell: ls'], deny: ['shell: rm $(x)'] }))).toEqual({
      decision: 'ask',
      rule: 'shell: rm $(x)',
      reason: 'invalid deny rule "shell: rm $(x)"',
    });
  });

  it('cannot deny what it cannot parse: a parse failure is asked about', async () => {
    expect((await decide('rm -rf x "', withDeny)).decision).toBe('ask');
  });
});

describe('decideApproval: defaults, tool rules and session rules', () => {
  it('allows, denies and defaults whole tools', async () => {
    const r = rules({ allow: ['read_file'], deny: ['write_file'] });
    expect(await decideApproval(tool('read_file'), r)).toEqual({ decision: 'allow', rule: 'read_file', reason: 'allow rule "read_file"' });
    expect(await decideApproval(tool('write_file'), r)).toEqual({ decision: 'deny', rule: 'write_file', reason: 'deny rule "write_file"' });
    expect(await decideApproval(tool('edit_file'), r)).toEqual({ decision: 'ask', rule: null, reason: 'no rule names tool "edit_file" (default: ask)' });
    expect(await decideApproval(tool('edit_file'), { ...r, default: 'allow' })).toMatchObject({ decision: 'allow', rule: null });
    expect(await decideApproval(tool('edit_file'), { ...r, default: 'deny' })).toMatchObject({ decision: 'deny', rule: null });
  });

  it('shell prefix rules do not apply to other tools, nor tool rules to shell', async () => {
    expect((await decideApproval(tool('read_file'), rules({ allow: ['shell: read_file'] }))).decision).toBe('ask');
    expect((await decide('read_file x', rules({ allow: ['read_file'] }))).decision).toBe('ask');
  });

  it('applies the default to simple literal commands only; compound ones are never allowed by it', async () => {
    expect(await decide('make test', rules({ default: 'allow' }))).toEqual({ decision: 'allow', rule: null, reason: 'no allow rule matches' });
    expect(await decide('make test', rules({ default: 'deny' }))).toEqual({ decision: 'deny', rule: null, reason: 'no allow rule matches' });
    expect(await decide('make && ls', rules({ default: 'allow' }))).toEqual({ decision: 'ask', rule: null, reason: 'compound command (&&)' });
    expect(await decide('make && ls', rules({ default: 'deny' }))).toEqual({ decision: 'deny', rule: null, reason: 'compound command (&&)' });
    expect((await decide('ls "x', rules({ default: 'allow' }))).decision).toBe('ask');
  });

  it('a bare "shell" allow rule allows any simple literal command and nothing compound', async () => {
    expect(await decide('make test', rules({ allow: ['shell'] }))).toEqual({ decision: 'allow', rule: 'shell', reason: 'allow rule "shell"' });
    expect((await decide('make test | sh', rules({ allow: ['shell'] }))).decision).toBe('ask');
  });

  it('session rules act as allow rules; shell-exact allows only that exact command', async () => {
    expect((await decide('npm test', rules(), ['shell-exact: npm test'])).decision).toBe('allow');
    expect((await decide("npm  'test'", rules(), ['shell-exact: npm test'])).decision).toBe('allow');
    expect((await decide('npm test --watch', rules(), ['shell-exact: npm test'])).decision).toBe('ask');
    const exact = ['shell-exact: npm test && npm run lint'];
    expect(await decide('  npm test && npm run lint\n', rules(), exact)).toEqual({ decision: 'allow', rule: exact[0], reason: `allow rule "${exact[0]}"` });
    expect((await decide('npm test && npm run lint; rm x', rules(), exact)).decision).toBe('ask');
    expect((await decide('npm test &&  npm run lint', rules(), exact)).decision).toBe('ask');
  });
});

describe('parseRule', () => {
  it('parses tool, shell prefix and shell-exact rules', () => {
    expect(parseRule('read_file')).toEqual({ kind: 'tool', tool: 'read_file', text: 'read_file' });
    expect(parseRule('shell')).toEqual({ kind: 'tool', tool: 'shell', text: 'shell' });
    expect(parseRule('shell: git status')).toEqual({ kind: 'shell', words: ['git', 'status'], text: 'shell: git status' });
    expect(parseRule('shell:git  status ')).toMatchObject({ words: ['git', 'status'] });
    expect(parseRule("shell: git commit -m 'two words'")).toMatchObject({ words: ['git', 'commit', '-m', 'two words'] });
    expect(parseRule('shell: rm *')).toMatchObject({ words: ['rm'] });
    expect(parseRule('shell: /bin/rm')).toMatchObject({ words: ['/bin/rm'] });
    expect(parseRule('shell-exact: make && ls')).toEqual({ kind: 'shell-exact', command: 'make && ls', argv: null, text: 'shell-exact: make && ls' });
  });

  it.each(['', 'shell:', 'shell: *', 'shell: rm *.txt', 'shell: ls && rm', 'shell: ls $(id)', 'shell: "x', 'read file', 'shell-exact:', 'FOO=1 ls'])(
    'rejects %j with a ConfigError',
    (text) => {
      expect(() => parseRule(text, 'approval.allow[0]')).toThrow(ConfigError);
    },
  );

  it('names the file and path in the error', () => {
    expect(() => parseRule('shell: ls | sh', 'approval.deny[3]')).toThrow(/^loop\.yaml: approval\.deny\[3\]: expected literal words after "shell:", no globbing or expansion: pipeline \(\|\)/);
  });
});

describe('the parser leaves no globals behind', () => {
  it('restores Error.stackTraceLimit and does not define a global require', async () => {
    await decide('ls');
    expect(Error.stackTraceLimit).not.toBe(Infinity);
    expect(Object.prototype.hasOwnProperty.call(globalThis, 'require')).toBe(false);
  });
});
