/**
 * What a program driving the engine as a library relies on (docs/engine.md): a policy given
 * as an object, hooks subscribed by topic, command hooks written as a shell would take them.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigErrors, definePolicy, HookRegistry, newGoal, parsePolicy, ScriptedAgent, Session, UsageError, type LoopEvent } from '../../src/engine/index.js';
import { hooksFor } from '../../src/hooks/index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-library-'));
  dirs.push(dir);
  return dir;
}

const touch = { id: 'c1', name: 'shell', args: { command: 'echo ran >> MARK' } };

async function runWith(registry: HookRegistry, workspace: string): Promise<LoopEvent[]> {
  const policy = definePolicy({ goal: { objective: 'Leave a mark' }, verify: [{ command: 'true' }], pattern: 'react' });
  const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ tool_calls: [touch] }, { final: 'done' }] }));
  const events: LoopEvent[] = [];
  const session = new Session({ id: 'lib', agent, policy, workspace, hooks: registry, sinks: [(e) => void events.push(e)] });
  const run = session.run(newGoal('Leave a mark'));
  for (let step = await run.next(); !step.done; ) step = await run.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' });
  return events;
}

describe('definePolicy: a contract as an object', () => {
  it('needs no agent or workspace section, fills the defaults, and a session runs with it', async () => {
    const policy = definePolicy({ goal: { objective: 'Leave a mark' }, verify: [{ command: 'test -f MARK' }] });
    expect(policy.agent).toBeUndefined();
    expect(policy.workspace).toBeUndefined();
    expect(policy.budget.limits.turns).toBeGreaterThan(0);
    expect(policy.approval.default).toBe('ask');
    const dir = tempDir();
    const events = await runWith(new HookRegistry(), dir);
    expect(readFileSync(path.join(dir, 'MARK'), 'utf8')).toBe('ran\n');
    expect(events.at(-1)).toMatchObject({ type: 'session.complete' });
  });

  it('bad input names the object, every path and what was expected, in one error', () => {
    let thrown: unknown;
    try {
      definePolicy({ goal: { objective: 7 }, verify: [], budget: { max_iterations: -1 }, stagnation: { on_detect: 'explode' } }, 'my policy');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigErrors);
    const text = String((thrown as Error).message);
    for (const where of ['goal.objective', 'verify', 'budget.max_iterations', 'stagnation.on_detect']) expect(text).toContain(where);
    expect(text).toContain('my policy');
  });

  it('a hook that cannot be found is refused as in a file', () => {
    expect(() => definePolicy({ goal: { objective: 'x' }, verify: [{ command: 'true' }], hooks: [{ name: 'h', topic: 'on_error', command: './no-such-hook.sh' }] })).toThrow(/^policy: hooks\[0\]\.command: expected an executable program/);
  });
});

describe('hooks', () => {
  it('an unknown topic is a usage error naming the known topics, not an internal error', () => {
    const registry = new HookRegistry();
    const subscribe = () => registry.on('before_tool' as never, 'typo', () => undefined);
    expect(subscribe).toThrow(UsageError);
    expect(subscribe).toThrow(/unknown hook topic "before_tool": expected one of .*before_tool_call/);
  });

  it('a throwing before_tool_call hook cancels the call: on_error hears of it once, tool.error keeps its message', async () => {
    const registry = new HookRegistry();
    const heard: string[] = [];
    registry.on('before_tool_call', 'guard', () => {
      throw new Error('policy server unreachable');
    });
    registry.on('on_error', 'listener', ({ source, error }) => void heard.push(`${source}: ${error}`));
    const dir = tempDir();
    const events = await runWith(registry, dir);
    expect(events.some((e) => e.type === 'tool.call')).toBe(false);
    expect(events.find((e) => e.type === 'tool.error')?.data).toMatchObject({ error: expect.stringContaining('policy server unreachable') });
    expect(heard).toHaveLength(1);
    expect(heard[0]).toContain('policy server unreachable');
  });

  it('a command hook with an environment prefix is accepted and runs as a shell would run it', async () => {
    const dir = tempDir();
    const hook = path.join(dir, 'deny.sh');
    writeFileSync(hook, '#!/bin/sh\ncat > /dev/null\nif [ "$GUARD_MODE" = strict ]; then echo \'{"decision":"deny","reason":"strict mode"}\'; else echo \'{"decision":"allow"}\'; fi\n');
    chmodSync(hook, 0o755);
    const yaml = stringify({
      goal: { objective: 'Leave a mark' },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.' },
      verify: [{ command: 'true' }],
      hooks: [{ name: 'guard', topic: 'before_tool_call', command: 'GUARD_MODE=strict ./deny.sh' }],
    });
    const policy = parsePolicy(yaml, path.join(dir, 'loop.yaml'));
    const events = await runWith(hooksFor(policy, { runDir: dir, workspace: dir }), dir);
    expect(events.find((e) => e.type === 'tool.error')?.data).toMatchObject({ error: expect.stringContaining('strict mode') });
  });
});
