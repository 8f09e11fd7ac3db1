// "Always allow" never widens, at the engine: a real Session with the approval gate and the
// destructive-command guard, a scripted agent, real shell tools in a temporary workspace,
// answered through the yield protocol as the console answers it.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { ResumeError } from '../../src/engine/errors.js';
import { newGoal } from '../../src/engine/goal.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session, type LoopRun, type LoopYield, type ResumePayload } from '../../src/engine/session.js';
import { alwaysAllowChoices } from '../../src/engine/approval/always-allow.js';
import { headlessAnswerer } from '../../src/engine/drive.js';
import { approvalGate } from '../../src/hooks/approval-gate.js';
import { destructiveDeny } from '../../src/hooks/destructive-deny.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A workspace with `tmp/` and `src/`, an outside folder, and a session asking about every call. */
function setup(commands: string[]) {
  const dir = tempDir('loopdeck-always-');
  const outside = tempDir('loopdeck-outside-');
  for (const sub of ['tmp', 'src']) {
    mkdirSync(path.join(dir, sub));
    writeFileSync(path.join(dir, sub, 'keep.txt'), sub);
  }
  writeFileSync(path.join(outside, 'keep.txt'), 'outside');
  const turns = [
    ...commands.map((command, i) => ({ tool_calls: [{ id: `t${i + 1}`, name: 'shell', args: { command: command.replaceAll('<outside>', outside) } }] })),
    { final: 'Done.' },
  ];
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Tidy up' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      hooks: [],
      checkpoint: { every_iterations: 50 },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const registry = new HookRegistry();
  approvalGate(registry, policy);
  destructiveDeny(registry);
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({
    id: 's1',
    agent: ScriptedAgent.fromYaml(stringify({ turns })),
    policy,
    workspace: dir,
    clock: () => (now += 1000),
    hooks: registry,
    sinks: [(e) => void events.push(e)],
  });
  return { dir, outside, session, events };
}

async function nextYield(run: LoopRun, payload?: ResumePayload): Promise<LoopYield> {
  const step = payload === undefined ? await run.next() : await run.next(payload);
  if (step.done) throw new Error(`expected a yield, the run ended: ${JSON.stringify(step.value)}`);
  return step.value;
}

const toolYield = (y: LoopYield) => (y.kind === 'tool' ? y.call : null);

describe('always allow stores the exact command', () => {
  it('a on "rm -r ./tmp", then "rm -r ./tmp ./src <outside>" is asked about again', async () => {
    const { dir, outside, session, events } = setup(['rm -r ./tmp', 'rm -r ./tmp ./src <outside>']);
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    const first = await nextYield(run);
    const rule = alwaysAllowChoices(toolYield(first)!).exact.rule!;
    expect(rule).toBe('shell-exact: rm -r ./tmp');

    const second = await nextYield(run, { decision: 'approve', always: rule });
    expect(existsSync(path.join(dir, 'tmp'))).toBe(false);
    expect(toolYield(second)?.args.command).toBe(`rm -r ./tmp ./src ${outside}`);
    expect(session.snapshot.granted).toEqual(['shell-exact: rm -r ./tmp']);

    const end = await run.next({ decision: 'deny' });
    expect(end.done).toBe(true);
    expect(existsSync(path.join(dir, 'src', 'keep.txt'))).toBe(true);
    expect(existsSync(path.join(outside, 'keep.txt'))).toBe(true);
    const decisions = events.filter((e) => e.type === 'tool.decision').map((e) => e.data);
    expect(decisions).toEqual([
      { call_id: 't1', decision: 'approve', by: 'operator', always: 'shell-exact: rm -r ./tmp' },
      { call_id: 't2', decision: 'deny', by: 'operator' },
    ]);
  });

  it('the same command again, however quoted, runs without asking', async () => {
    const { session } = setup(['mkdir -p ./tmp/a', "mkdir  -p  './tmp/a'"]);
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    const first = await nextYield(run);
    const end = await run.next({ decision: 'approve', always: alwaysAllowChoices(toolYield(first)!).exact.rule! });
    expect(end.done).toBe(true);
    expect(session.snapshot.tools.get('t2')?.decision).toEqual({ decision: 'approve', by: 'policy' });
  });

  it('refuses an answer that stores a wider rule than the prompt offers, and changes nothing', async () => {
    const { session } = setup(['rm -r ./tmp', 'rm -r ./tmp ./src']);
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    await nextYield(run);
    for (const always of ['shell: rm -r', 'shell: rm', 'shell', 'shell-read-only: ls', 'shell-exact: rm -r ./tmp ./src']) {
      await expect(run.next({ decision: 'approve', always })).rejects.toThrow(ResumeError);
    }
    expect(session.snapshot.granted).toEqual([]);
    expect(session.snapshot.tools.get('t1')?.decision).toBeNull();
  });

  it('a wider rule is stored only for a read-only command, and keeps its refused options asked about', async () => {
    const { session } = setup(['git diff --stat', 'git diff src', 'git diff --output=/tmp/x']);
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    const first = await nextYield(run);
    const { wider } = alwaysAllowChoices(toolYield(first)!);
    expect(wider.map((w) => w.rule)).toEqual(['shell-read-only: git diff']);
    const second = await nextYield(run, { decision: 'approve', always: 'shell-read-only: git diff' });
    expect(toolYield(second)?.args.command).toBe('git diff --output=/tmp/x');
    expect(session.snapshot.tools.get('t2')?.decision).toEqual({ decision: 'approve', by: 'policy' });
    await run.next({ decision: 'deny' });
  });

  it('a destructive command is denied by the guard, never asked about, so nothing can be stored for it', async () => {
    const { dir, session, events } = setup(['rm --recursive --force ./tmp', 'rm -f -r ./src']);
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    const end = await run.next();
    expect(end.done).toBe(true);
    expect(events.filter((e) => e.type === 'tool.error').map((e) => e.data.error)).toEqual([
      'cancelled before dispatch: destructive command: rm -r -f (deletes recursively without asking)',
      'cancelled before dispatch: destructive command: rm -r -f (deletes recursively without asking)',
    ]);
    expect(existsSync(path.join(dir, 'tmp', 'keep.txt'))).toBe(true);
    expect(existsSync(path.join(dir, 'src', 'keep.txt'))).toBe(true);
    expect(alwaysAllowChoices({ id: 'x', name: 'shell', args: { command: 'rm --recursive --force ./tmp' } }).exact.rule).toBeNull();
  });

  it('a command that runs a nested script stores nothing: after the agent rewrites the list, the same text is asked about again', async () => {
    const command = "sh -c 'rm -r -- $(cat targets.txt)'";
    const { dir, session } = setup([command, command]);
    writeFileSync(path.join(dir, 'targets.txt'), 'tmp\n');
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    const first = await nextYield(run);
    expect(alwaysAllowChoices(toolYield(first)!)).toEqual({
      exact: { rule: null, why: 'sh runs other code: what it runs can change after approval' },
      wider: [],
    });
    await expect(run.next({ decision: 'approve', always: `shell-exact: ${command}` })).rejects.toThrow(ResumeError);
    const second = await nextYield(run, { decision: 'approve' });
    expect(existsSync(path.join(dir, 'tmp'))).toBe(false);
    writeFileSync(path.join(dir, 'targets.txt'), 'src\n');
    expect(toolYield(second)?.args.command).toBe(command);
    expect(session.snapshot.granted).toEqual([]);
    const end = await run.next({ decision: 'deny' });
    expect(end.done).toBe(true);
    expect(existsSync(path.join(dir, 'src', 'keep.txt'))).toBe(true);
  });
});

describe('who decided: a decision no person made is never recorded as the operator’s', () => {
  it('headless answers (approve all, deny) are recorded by policy; an answer without by is the operator’s', async () => {
    const { session, events } = setup(['mkdir -p ./tmp/a', 'mkdir -p ./tmp/b', 'mkdir -p ./tmp/c']);
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    await nextYield(run);
    await nextYield(run, headlessAnswerer({ approve: 'all', onPause: 'stop' })(toolYield2(session)) as ResumePayload);
    await nextYield(run, headlessAnswerer({ approve: 'none', onPause: 'stop' })(toolYield2(session)) as ResumePayload);
    expect((await run.next({ decision: 'approve' })).done).toBe(true);
    const decisions = events.filter((e) => e.type === 'tool.decision').map((e) => [e.data.call_id, e.data.decision, e.data.by]);
    expect(decisions).toEqual([
      ['t1', 'approve', 'policy'],
      ['t2', 'deny', 'policy'],
      ['t3', 'approve', 'operator'],
    ]);
    // The agent is told who refused.
    expect(session.snapshot.tools.get('t2')?.result?.output).toBe('denied by the policy: headless run: tool calls are denied unless --approve all');
  });

  it('refuses an answer that names anyone else, and changes nothing', async () => {
    const { session } = setup(['mkdir -p ./tmp/a']);
    const run = session.run(newGoal('Tidy up', ['the workspace is tidy']));
    await nextYield(run);
    await expect(run.next({ decision: 'approve', by: 'agent' } as unknown as ResumePayload)).rejects.toThrow(/by\?: "operator" \| "policy"/);
    expect(session.snapshot.tools.get('t1')?.decision).toBeNull();
  });
});

/** The tool yield the session waits on now. */
function toolYield2(session: Session): LoopYield {
  const pending = session.snapshot.pending;
  if (pending?.kind !== 'tool') throw new Error('no tool yield pending');
  return { kind: 'tool', call: pending.call };
}
