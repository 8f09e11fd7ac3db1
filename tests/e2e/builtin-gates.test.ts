// The approval gate and the destructive-command guard always run first in before_tool_call,
// whatever `hooks:` lists; only `approval.builtin_gates: off` removes them, and then
// `validate` and headless runs say so on stderr. Real CLI, real child processes.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parsePolicy } from '../../src/engine/policy.js';
import { hooksFor } from '../../src/hooks/index.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');

interface Event {
  type: string;
  data: Record<string, any>;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-gates-'));
  mkdirSync(path.join(dir, 'workspace', 'sub'), { recursive: true });
  writeFileSync(path.join(dir, 'workspace', 'sub', 'keep.txt'), 'keep me\n');
  // An audit hook that logs each call and always answers allow.
  writeFileSync(path.join(dir, 'audit.sh'), `#!/bin/sh\ncat >> "${dir}/audit.log"; echo >> "${dir}/audit.log"\necho '{"decision":"allow"}'\n`);
  chmodSync(path.join(dir, 'audit.sh'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const AUDIT = { name: 'audit', topic: 'before_tool_call', command: './audit.sh' };

/** Writes loop.yaml (scripted agent: one turn of `commands` as shell calls, then a final claim). */
function writeLoop(approval: Record<string, unknown>, hooks: unknown[] | undefined, commands: string[]): string {
  const file = path.join(dir, 'loop.yaml');
  writeFileSync(
    path.join(dir, 'transcript.yaml'),
    stringify({ turns: [{ tool_calls: commands.map((command, i) => ({ id: `t${i + 1}`, name: 'shell', args: { command } })) }, { final: 'done' }] }),
  );
  writeFileSync(
    file,
    stringify({
      goal: { objective: 'Leave no mark' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'transcript.yaml' },
      workspace: { path: 'workspace', copy: 'none' },
      verify: [{ command: 'true' }],
      approval,
      ...(hooks ? { hooks } : {}),
    }),
  );
  return file;
}

/** stderr without the warnings that these loops measure nothing (they have no observer) and that their workspace is in no git repository. */
const gateLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => !/nothing to measure|is in no git repository/.test(line))
    .join('\n');

/** `loopdeck run --headless` with no --approve: prompts are denied, hooks decide the rest. */
async function runHeadless(file: string) {
  const result = await execa('node', [cli, 'run', '--config', file, '--headless'], { cwd: dir, reject: false });
  const events = result.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Event);
  return { result, events };
}

describe('a hooks list never switches approval off', () => {
  it.each<[string, unknown[] | undefined]>([
    ['hooks: [trace-writer]', ['trace-writer']],
    ['hooks: [an audit command hook that answers allow]', [AUDIT]],
  ])('approval.default: deny with %s: headless, `touch MARK` is denied and never runs', async (_, hooks) => {
    const { result, events } = await runHeadless(writeLoop({ default: 'deny' }, hooks, ['touch MARK']));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'workspace', 'MARK'))).toBe(false);
    const error = events.find((e) => e.type === 'tool.error');
    expect(error?.data).toMatchObject({ call_id: 't1', name: 'shell' });
    expect(error?.data.error).toMatch(/^cancelled before dispatch: /);
    expect(events.filter((e) => e.type === 'tool.result')).toEqual([]);
    expect(events[0]!.data.builtin_gates).toBe('on');
    expect(result.stderr).not.toContain('builtin_gates');
  });

  it('approval.default: allow with an allowing audit hook: the destructive-command guard still denies `rm -rf sub`; a plain call runs', async () => {
    const { result, events } = await runHeadless(writeLoop({ default: 'allow' }, [AUDIT], ['rm -rf sub', 'touch OK']));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'workspace', 'sub', 'keep.txt'))).toBe(true);
    expect(existsSync(path.join(dir, 'workspace', 'OK'))).toBe(true);
    expect(events.find((e) => e.type === 'tool.error')?.data).toMatchObject({ call_id: 't1', error: expect.stringMatching(/^cancelled before dispatch: destructive command/) });
    // The audit hook ran after the gates: it saw only the call they let through.
    expect(existsSync(path.join(dir, 'audit.log'))).toBe(true);
  });

  it('the gates register first and once, then the hooks in the order written', () => {
    const names = (approval: Record<string, unknown>, hooks: unknown[]) => {
      const policy = parsePolicy(stringify({ goal: { objective: 'x' }, agent: { kind: 'scripted', script: 't.yaml' }, workspace: { path: '.' }, verify: [{ command: 'true' }], approval, hooks }), path.join(dir, 'loop.yaml'));
      return hooksFor(policy, { runDir: path.join(dir, 'run'), workspace: dir }).names('before_tool_call');
    };
    expect(names({}, [])).toEqual(['approval-gate', 'destructive-deny']);
    expect(names({}, [AUDIT, 'trace-writer', 'destructive-deny', 'approval-gate'])).toEqual(['approval-gate', 'destructive-deny', 'audit', 'trace-writer']);
    expect(names({ builtin_gates: 'off' }, ['trace-writer'])).toEqual(['trace-writer']);
    expect(names({ builtin_gates: 'off' }, [AUDIT, 'approval-gate'])).toEqual(['audit', 'approval-gate']);
  });
});

describe('approval.builtin_gates: off', () => {
  it('validate prints a loud warning on stderr (and none when the gates are on)', async () => {
    const off = await execa('node', [cli, 'validate', writeLoop({ default: 'deny', builtin_gates: 'off' }, ['trace-writer'], ['true'])], { cwd: dir, reject: false });
    expect(off.exitCode, off.stderr).toBe(0);
    expect(gateLines(off.stderr)).toBe(
      `loopdeck: WARNING: approval.builtin_gates is off in ${path.join(dir, 'loop.yaml')}: the built-in approval gate and destructive-command guard do not run; tool calls are checked only by the hooks listed (trace-writer)`,
    );
    expect(JSON.parse(off.stdout).approval.builtin_gates).toBe('off');

    const none = await execa('node', [cli, 'validate', writeLoop({ default: 'deny', builtin_gates: 'off' }, [], ['true'])], { cwd: dir, reject: false });
    expect(none.stderr).toContain('tool calls are checked by no hook at all: every tool call runs without approval');

    const on = await execa('node', [cli, 'validate', writeLoop({ default: 'deny' }, ['trace-writer'], ['true'])], { cwd: dir, reject: false });
    expect(on.exitCode, on.stderr).toBe(0);
    expect(gateLines(on.stderr)).toBe('');
  });

  it('a headless run warns on stderr at start, records it in session.start, and the gates are gone', async () => {
    const { result, events } = await runHeadless(writeLoop({ default: 'deny', builtin_gates: 'off' }, ['trace-writer'], ['touch MARK']));
    expect(result.exitCode, result.stderr).toBe(0);
    expect(gateLines(result.stderr).split('\n')[0]).toMatch(/^loopdeck: WARNING: approval.builtin_gates is off in .*loop.yaml: the built-in approval gate and destructive-command guard do not run/);
    expect(events[0]!.data.builtin_gates).toBe('off');
    expect(existsSync(path.join(dir, 'workspace', 'MARK'))).toBe(true);
  });

  it('a value other than on or off is a config error naming file, path and line', async () => {
    const result = await execa('node', [cli, 'validate', writeLoop({ default: 'deny', builtin_gates: false }, [], ['true'])], { cwd: dir, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('loop.yaml:');
    expect(result.stderr).toContain('approval.builtin_gates: expected one of on, off, found false');
  });
});
