// What a hook returns is checked at run time: a stray value is a hook error naming the hook
// (handled by on_hook_error), never a decision; a deny from any subscriber wins over allows.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { checkDecision, HookDecisionError, HookRegistry, SKIP, type HookDecision } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import type { ToolCall } from '../../src/engine/types.js';
import { commandHook } from '../../src/hooks/command-hook.js';

const call: ToolCall = { id: 't1', name: 'shell', args: { command: 'touch MARK' } };
const payload = () => ({ call: structuredClone(call), granted: [] as string[] });

/** A value a hook written in plain JavaScript could return: anything. */
type Returned = () => unknown;

const STRAY: Array<[string, Returned]> = [
  ['a number', () => 42],
  ['zero', () => 0],
  ['NaN', () => Number.NaN],
  ['true', () => true],
  ['false', () => false],
  ['null', () => null],
  ['a string', () => 'allow'],
  ['an empty string', () => ''],
  ['a bigint', () => 10n],
  ['a symbol', () => Symbol('allow')],
  ['a function', () => () => ({ type: 'allow' })],
  ['{ ok: true }', () => ({ ok: true })],
  ["{ type: 'nonsense' }", () => ({ type: 'nonsense' })],
  ["{ type: 'ALLOW' }", () => ({ type: 'ALLOW' })],
  ["{ type: 'deny' } without reason", () => ({ type: 'deny' })],
  ["{ type: 'deny', reason: '' }", () => ({ type: 'deny', reason: '' })],
  ["{ type: 'deny', reason: 7 }", () => ({ type: 'deny', reason: 7 })],
  ["{ type: 'pause' } without prompt", () => ({ type: 'pause' })],
  ["{ type: 'allow', ok: true } (an extra key)", () => ({ type: 'allow', ok: true })],
  ["{ type: 'allow', reason } (a key of another decision)", () => ({ type: 'allow', reason: 'fine' })],
  ['an inherited type', () => Object.create({ type: 'allow' })],
  ['a class instance', () => new (class Decision { type = 'allow'; })()],
  ['an array', () => [{ type: 'allow' }]],
  ['an empty array', () => []],
  ['a getter that throws', () => ({ get type(): string { throw new Error('gotcha'); } })],
  ['a Promise of true', () => Promise.resolve(true)],
  ['a Promise of { ok: true }', () => Promise.resolve({ ok: true })],
  ["a Promise of { type: 'nonsense' }", () => Promise.resolve({ type: 'nonsense' })],
  ['a Promise of null', () => Promise.resolve(null)],
];

describe('a hook returning a value that is not a decision', () => {
  it.each(STRAY)('%s: in before_tool_call it is a hook error naming the hook, and the call is blocked', async (_, value) => {
    const registry = new HookRegistry();
    let later = 0;
    registry.on('before_tool_call', 'stray', value as never);
    registry.on('before_tool_call', 'later', () => void later++);
    const outcome = await registry.call('before_tool_call', payload());
    expect(outcome.decision).toMatchObject({ type: 'deny', reason: expect.stringMatching(/^hook stray failed: /) });
    expect(outcome.failures).toHaveLength(1);
    expect(outcome.failures[0]).toMatchObject({ topic: 'before_tool_call', hook: 'stray' });
    expect(outcome.failures[0]!.error).toMatch(/returned .*; expected undefined \(no opinion\)|gotcha/);
    expect(later).toBe(0);
  });

  it.each(STRAY)('%s: with on_hook_error allow it is still an error and never an allow; a later deny wins', async (_, value) => {
    const registry = new HookRegistry();
    registry.on('before_tool_call', 'stray', value as never, { onError: 'allow' });
    registry.on('before_tool_call', 'guard', () => ({ type: 'deny', reason: 'no touching' }));
    const outcome = await registry.call('before_tool_call', payload());
    expect(outcome.decision).toEqual({ type: 'deny', reason: 'no touching' });
    expect(outcome.failures.map((f) => f.hook)).toEqual(['stray']);

    const alone = new HookRegistry();
    alone.on('before_tool_call', 'stray', value as never, { onError: 'allow' });
    expect((await alone.call('before_tool_call', payload())).decision).toBeNull();
  });

  it.each(STRAY)('%s: in another topic it is recorded and skipped', async (_, value) => {
    const registry = new HookRegistry();
    registry.on('before_step', 'stray', value as never);
    registry.on('before_step', 'skipper', () => SKIP);
    const outcome = await registry.call('before_step', { step: 1, turn: 1 });
    expect(outcome.decision).toEqual({ type: 'skip' });
    expect(outcome.failures.map((f) => [f.topic, f.hook])).toEqual([['before_step', 'stray']]);
  });

  it('checkDecision names the value and what was expected', () => {
    expect(() => checkDecision({ ok: true })).toThrow(HookDecisionError);
    expect(() => checkDecision({ ok: true })).toThrow(
      "returned {\"ok\":true}; expected undefined (no opinion), { type: 'allow' }, { type: 'deny', reason: <text> }, { type: 'pause', prompt: <text> } or SKIP",
    );
    expect(() => checkDecision({ type: 'deny' })).toThrow('returned {"type":"deny"} (deny needs a non-empty reason)');
    expect(() => checkDecision('x'.repeat(500))).toThrow(/returned "x{76}\.\.\.; expected/);
  });
});

describe('valid decisions', () => {
  it.each<[string, unknown, HookDecision | undefined]>([
    ['undefined', undefined, undefined],
    ['allow', { type: 'allow' }, { type: 'allow' }],
    ['SKIP', SKIP, { type: 'skip' }],
    ['deny with a reason', { type: 'deny', reason: 'no' }, { type: 'deny', reason: 'no' }],
    ['pause with a prompt', { type: 'pause', prompt: 'sure?' }, { type: 'pause', prompt: 'sure?' }],
    ['a null-prototype allow', Object.assign(Object.create(null) as object, { type: 'allow' }), { type: 'allow' }],
  ])('%s is accepted', (_, value, expected) => {
    expect(checkDecision(value)).toEqual(expected);
  });

  it('the decision is a copy: a later subscriber changing the returned object does not change it', async () => {
    const registry = new HookRegistry();
    const returned = { type: 'pause', prompt: 'ask the operator' };
    registry.on('before_tool_call', 'asker', () => returned as HookDecision);
    registry.on('before_tool_call', 'meddler', () => void Object.assign(returned, { type: 'allow', prompt: undefined }));
    expect((await registry.call('before_tool_call', payload())).decision).toEqual({ type: 'pause', prompt: 'ask the operator' });
  });
});

describe('a deny from any hook wins over allows, whatever the order', () => {
  const allow = (): HookDecision => ({ type: 'allow' });
  const deny = (): HookDecision => ({ type: 'deny', reason: 'guard says no' });
  const pause = (): HookDecision => ({ type: 'pause', prompt: 'ask' });
  it.each<[string, Array<() => HookDecision | undefined>, HookDecision]>([
    ['allow, deny', [allow, deny], { type: 'deny', reason: 'guard says no' }],
    ['deny, allow', [deny, allow], { type: 'deny', reason: 'guard says no' }],
    ['allow, allow, deny', [allow, allow, deny], { type: 'deny', reason: 'guard says no' }],
    ['allow, pause, allow', [allow, pause, allow], { type: 'pause', prompt: 'ask' }],
    ['pause, allow', [pause, allow], { type: 'pause', prompt: 'ask' }],
    ['pause, deny', [pause, deny], { type: 'deny', reason: 'guard says no' }],
  ])('%s', async (_, hooks, expected) => {
    const registry = new HookRegistry();
    hooks.forEach((fn, i) => registry.on('before_tool_call', `h${i}`, fn));
    expect(await registry.call('before_tool_call', payload())).toEqual({ decision: expected, failures: [] });
  });
});

// ------------------------------------------------------------------ through the engine

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs one react turn calling `touch MARK` with `registry`, then a final claim; returns the events. */
async function runTouch(registry: HookRegistry): Promise<{ dir: string; events: LoopEvent[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-decisions-'));
  dirs.push(dir);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Leave no mark' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      hooks: [],
    }),
    path.join(dir, 'loop.yaml'),
  );
  const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ tool_calls: [call] }, { final: 'done' }] }));
  const events: LoopEvent[] = [];
  const session = new Session({ id: 's1', agent, policy, workspace: dir, hooks: registry, sinks: [(e) => void events.push(e)] });
  const run = session.run(newGoal('Leave no mark', ['verify passes']));
  // Every yield is approved: only the hooks stand between the call and the workspace.
  for (let step = await run.next(); !step.done; ) {
    step = await run.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' });
  }
  return { dir, events };
}

describe('in a session', () => {
  it.each<[string, Returned]>([
    ['true', () => true],
    ['{ ok: true }', () => ({ ok: true })],
    ["{ type: 'nonsense' }", () => ({ type: 'nonsense' })],
  ])('hook A returns %s and hook B denies: the call is cancelled and never runs', async (_, value) => {
    const registry = new HookRegistry();
    registry.on('before_tool_call', 'A', value as never, { onError: 'allow' });
    registry.on('before_tool_call', 'B', () => ({ type: 'deny', reason: 'B refuses' }));
    const { dir, events } = await runTouch(registry);
    expect(existsSync(path.join(dir, 'MARK'))).toBe(false);
    expect(events.some((e) => e.type === 'tool.call')).toBe(false);
    expect(events.find((e) => e.type === 'tool.error')?.data).toMatchObject({ call_id: 't1', error: 'cancelled before dispatch: B refuses' });
    expect(events.find((e) => e.type === 'hook.error')?.data).toMatchObject({ topic: 'before_tool_call', hook: 'A' });
  });

  it('hook A returns true (on_hook_error block by default): the call is cancelled, naming A', async () => {
    const registry = new HookRegistry();
    registry.on('before_tool_call', 'A', (() => true) as never);
    const { dir, events } = await runTouch(registry);
    expect(existsSync(path.join(dir, 'MARK'))).toBe(false);
    expect(events.find((e) => e.type === 'tool.error')?.data).toMatchObject({ error: expect.stringMatching(/^cancelled before dispatch: hook A failed: .*returned true/) });
    expect(events.find((e) => e.type === 'hook.error')?.data).toMatchObject({ hook: 'A', error: expect.stringContaining('returned true') });
  });
});

describe('a command hook printing a malformed decision', () => {
  it.each([
    ['an array', '[{"decision":"allow"}]', /not a JSON object/],
    ['a bare string', '"allow"', /not a JSON object/],
    ['true', 'true', /not a JSON object/],
    ['an unknown decision', '{"decision":"yes"}', /not one of allow, deny, pause, skip/],
    ['no decision', '{"ok":true}', /unknown key "ok"/],
    ['an unknown key', '{"decision":"allow","override":true}', /unknown key "override"/],
    ['a reason that is not text', '{"decision":"deny","reason":{"x":1}}', /"reason" is not a string/],
    ['two answers', '{"decision":"deny","reason":"a"}\n{"decision":"allow"}', /not JSON/],
    ['truncated JSON, quoted by its head', '{"decision":"deny","rea', /not JSON: "\{\\"decision\\":\\"deny\\",\\"rea/],
    ['a key given twice (the last would win)', '{"decision":"deny","decision":"allow"}', /a key appears twice/],
    ['a key given twice, spelt with an escape', '{"decision":"deny","decisio\\u006e":"allow"}', /a key appears twice/],
  ])('%s is a hook error naming the hook; a later deny still wins', async (_, printed, message) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-answer-'));
    dirs.push(dir);
    const file = path.join(dir, 'answer.sh');
    writeFileSync(file, `#!/bin/sh\ncat <<'EOF'\n${printed}\nEOF\n`);
    chmodSync(file, 0o755);
    const registry = new HookRegistry();
    commandHook(registry, { name: 'audit', topic: 'before_tool_call', command: file, on_hook_error: 'allow' }, { cwd: dir, workspace: dir });
    registry.on('before_tool_call', 'guard', () => ({ type: 'deny', reason: 'guard says no' }));
    const outcome = await registry.call('before_tool_call', payload());
    expect(outcome.decision).toEqual({ type: 'deny', reason: 'guard says no' });
    expect(outcome.failures.map((f) => f.hook)).toEqual(['audit']);
    expect(outcome.failures[0]!.error).toMatch(message);
  });
});

describe('a hook command that leaves a background process', () => {
  it('answers when its shell exits: `sleep 30 & echo allow` is an allow, not a timeout blocking the call', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bghook-'));
    dirs.push(dir);
    const registry = new HookRegistry();
    commandHook(registry, { name: 'audit', topic: 'before_tool_call', command: `sleep 30 & echo '{"decision":"allow"}'`, timeout: 3 }, { cwd: dir, workspace: dir });
    const started = Date.now();
    const outcome = await registry.call('before_tool_call', payload());
    expect(outcome.failures).toEqual([]);
    expect(outcome.decision).toEqual({ type: 'allow' });
    expect(Date.now() - started).toBeLessThan(2500);
  });
});
