/**
 * A call the built-in tools could only fail (an unknown tool, arguments its schema refuses)
 * is refused by the engine before approval: the operator is never asked about it, and the
 * agent is told why.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { definePolicy, fold, newGoal, ScriptedAgent, Session, type LoopEvent, type LoopYield } from '../../src/engine/index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const CALLS: Array<[string, { name: string; args: Record<string, unknown> }, RegExp]> = [
  ['an unknown tool', { name: 'deploy', args: { env: 'prod' } }, /unknown tool \(known: [a-z_, ]*read_file/],
  ['a name from the object prototype', { name: 'constructor', args: {} }, /unknown tool/],
  ['a missing argument', { name: 'read_file', args: {} }, /bad arguments: path/],
  ['an unknown argument', { name: 'shell', args: { command: 'ls', sudo: true } }, /bad arguments/],
  ['an argument of the wrong type', { name: 'write_file', args: { path: 'a.txt', content: 42 } }, /bad arguments: content/],
  // Every problem at once, so one answer can fix them all.
  ['several problems in one call', { name: 'shell', args: { command: 1, timeout: 'x' } }, /bad arguments: command: [^;]*number; args: Unrecognized key: \\?"timeout/],
  ['a command longer than sh -c takes', { name: 'shell', args: { command: `echo ${'x'.repeat(200_000)}` } }, /command is 200005 bytes; sh -c takes at most 131071/],
  // Blank: nothing to show the operator. Invisible characters draw as nothing too.
  ['a command of spaces and a tab', { name: 'shell', args: { command: '  \t ' } }, /bad arguments: command: expected more than spaces/],
  ['a path of one zero-width space', { name: 'write_file', args: { path: '\u200b', content: 'x' } }, /bad arguments: path: expected something visible/],
  ['a command of joiners and a no-break space', { name: 'shell', args: { command: '\u200d\u00a0\u2060' } }, /bad arguments: command: expected something visible/],
  // Paths the tool would refuse whatever the files hold.
  ['a path with a NUL byte', { name: 'read_file', args: { path: 'v\u0000.txt' } }, /path "v\\u0000\.txt" contains a NUL byte/],
  ['an absolute path', { name: 'read_file', args: { path: '/etc/passwd' } }, /must be relative to the workspace/],
  ['a path out through ..', { name: 'read_file', args: { path: 'src/../../../etc/passwd' } }, /is outside the workspace/],
  ['a listing out through ..', { name: 'list_files', args: { path: '..' } }, /is outside the workspace/],
  ['a diff of a path outside', { name: 'git_diff', args: { path: '../x' } }, /is outside the workspace/],
  ['a path too long', { name: 'read_file', args: { path: 'a/'.repeat(2100) } }, /is too long \(4200 bytes; at most 4096\)/],
  ['a name too long', { name: 'edit', args: { path: `${'n'.repeat(300)}.txt`, find: 'a', replace: 'b' } }, /a name longer than 255 bytes/],
  ["a write into git's own files", { name: 'write_file', args: { path: '.git/config', content: '[core]' } }, /will not write "\.git\/config"/],
  ["a write into git's files, spelled otherwise", { name: 'write_file', args: { path: './.GIT/hooks/pre-commit', content: 'x' } }, /will not write/],
  ["a write into loopdeck's own folder", { name: 'edit', args: { path: 'sub/.loopdeck/runs/x/events.jsonl', find: 'a', replace: 'b' } }, /will not write/],
];

describe('calls the tools cannot run', () => {
  it.each(CALLS)('%s: refused before approval, the agent is told, the run goes on', async (_, call, reason) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-invalid-'));
    dirs.push(dir);
    const policy = definePolicy({ goal: { objective: 'x' }, verify: [{ command: 'true' }], pattern: 'react', approval: { default: 'ask' } });
    const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ tool_calls: [{ id: 'c1', ...call }] }, { final: 'done' }] }));
    const events: LoopEvent[] = [];
    const session = new Session({ id: 'i', agent, policy, workspace: dir, sinks: [(e) => void events.push(e)] });
    const run = session.run(newGoal('x'));
    const asked: LoopYield[] = [];
    for (let step = await run.next(); !step.done; ) {
      asked.push(step.value);
      step = await run.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' });
    }
    expect(asked.filter((y) => y.kind === 'tool')).toEqual([]);
    expect(events.some((e) => e.type === 'tool.call')).toBe(false);
    const error = events.find((e) => e.type === 'tool.error');
    expect(error?.type === 'tool.error' && error.data.error).toMatch(reason);
    expect(fold(events).history.map((m) => m.content).join('\n')).toMatch(reason);
    expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
  });
});

describe('a path that leaves the workspace by a symlink', () => {
  it.each([
    ['read_file', { path: 'out/passwd' }],
    ['write_file', { path: 'out/evil', content: 'x' }],
    ['list_files', { path: 'out' }],
  ])('%s %j: refused before approval', async (name, args) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-invalid-'));
    dirs.push(dir);
    symlinkSync('/etc', path.join(dir, 'out'));
    const policy = definePolicy({ goal: { objective: 'x' }, verify: [{ command: 'true' }], pattern: 'react', approval: { default: 'ask' } });
    const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ tool_calls: [{ id: 'c1', name, args }] }, { final: 'done' }] }));
    const events: LoopEvent[] = [];
    const session = new Session({ id: 'i', agent, policy, workspace: dir, sinks: [(e) => void events.push(e)] });
    const run = session.run(newGoal('x'));
    let asked = 0;
    for (let step = await run.next(); !step.done; ) {
      if (step.value.kind === 'tool') asked += 1;
      step = await run.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' });
    }
    expect(asked).toBe(0);
    const error = events.find((e) => e.type === 'tool.error');
    expect(error?.type === 'tool.error' && error.data.error).toMatch(/refused before approval: path "out[^"]*" is outside the workspace/);
  });
});
