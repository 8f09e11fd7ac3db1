// Built-in operator policies and command hooks, through a real HookRegistry.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookRegistry } from '../../src/engine/hooks.js';
import { commandHook } from '../../src/hooks/command-hook.js';
import { destructiveDeny } from '../../src/hooks/destructive-deny.js';
import { traceWriter } from '../../src/hooks/trace-writer.js';
import type { ToolCall } from '../../src/engine/types.js';

const shell = (command: string): ToolCall => ({ id: 't', name: 'shell', args: { command } });
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-hooks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('destructive-deny', () => {
  it.each([
    ['rm -rf build', true],
    ['ls && rm -rf /', true],
    ['echo $(git reset --hard)', true],
    ["sh -c 'git push --force origin main'", true],
    ['git push origin main', false],
    ['rm notes.txt', false],
    ['node --test', false],
  ])('%s → denied: %s', async (command, denied) => {
    const registry = new HookRegistry();
    destructiveDeny(registry);
    const outcome = await registry.call('before_tool_call', { call: shell(command), granted: [] });
    expect(outcome.decision?.type === 'deny').toBe(denied);
  });
});

describe('command hooks', () => {
  function script(name: string, body: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('get the payload as JSON on stdin and answer a decision on stdout', async () => {
    const file = script('deny.sh', `cat > ${dir}/payload.json; echo '{"decision":"deny","reason":"no curl"}'`);
    const registry = new HookRegistry();
    commandHook(registry, { name: 'audit', topic: 'before_tool_call', command: file }, { cwd: dir, workspace: dir });
    const outcome = await registry.call('before_tool_call', { call: shell('curl x'), granted: [] });
    expect(outcome).toEqual({ decision: { type: 'deny', reason: 'no curl' }, failures: [] });
    expect(JSON.parse(readFileSync(path.join(dir, 'payload.json'), 'utf8'))).toEqual({ call: shell('curl x'), granted: [] });
  });

  it('a failing hook is a hook error with its stderr, not a deny; on_hook_error decides what follows', async () => {
    const file = script('broken.sh', 'echo "boom on stderr" >&2; exit 4');
    const blocking = new HookRegistry();
    commandHook(blocking, { name: 'broken', topic: 'before_tool_call', command: file }, { cwd: dir, workspace: dir });
    const blocked = await blocking.call('before_tool_call', { call: shell('ls'), granted: [] });
    expect(blocked.decision).toEqual({ type: 'deny', reason: 'hook broken failed: exited with 4; stderr: boom on stderr\n' });
    expect(blocked.failures).toEqual([{ topic: 'before_tool_call', hook: 'broken', error: 'exited with 4; stderr: boom on stderr\n' }]);

    const lenient = new HookRegistry();
    commandHook(lenient, { name: 'broken', topic: 'before_tool_call', command: file, on_hook_error: 'allow' }, { cwd: dir, workspace: dir });
    const allowed = await lenient.call('before_tool_call', { call: shell('ls'), granted: [] });
    expect(allowed.decision).toBeNull();
    expect(allowed.failures).toHaveLength(1);
  });

  it('unparsable output and a timeout are hook errors', async () => {
    const registry = new HookRegistry();
    commandHook(registry, { name: 'chatty', topic: 'after_step', command: script('chatty.sh', 'echo hello') }, { cwd: dir, workspace: dir });
    commandHook(registry, { name: 'slow', topic: 'after_step', command: script('slow.sh', 'sleep 5'), timeout: 0.3 }, { cwd: dir, workspace: dir });
    const started = Date.now();
    const outcome = await registry.call('after_step', { step: 1, outcome: 'ok' });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(outcome.failures.map((f) => f.hook)).toEqual(['chatty', 'slow']);
    expect(outcome.failures[0]!.error).toContain('not JSON');
    expect(outcome.failures[1]!.error).toContain('timed out');
  });
});

it('trace-writer appends one line per hook call to trace.log in the run directory', async () => {
  const registry = new HookRegistry();
  traceWriter(registry, dir);
  await registry.call('before_step', { step: 1, turn: 1 });
  await registry.call('after_step', { step: 1, outcome: 'ok' });
  expect(readFileSync(path.join(dir, 'trace.log'), 'utf8')).toBe('before_step {"step":1,"turn":1}\nafter_step {"step":1,"outcome":"ok"}\n');
});
