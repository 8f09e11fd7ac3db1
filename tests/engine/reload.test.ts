// Live reload of loop.yaml under a running loop (docs/design.md, "Live reload"): whole runs
// from a loop.yaml with the scripted agent, wired as `loopdeck run` wires them (hooks built
// from the policy in force), the file rewritten and reloaded while the run goes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { drive, type Answerer } from '../../src/engine/drive.js';
import type { EventOf, LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { loadPolicy } from '../../src/engine/policy.js';
import { prepareResume, prepareRun, type PreparedRun } from '../../src/launch.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-reload-'));
  dirs.push(dir);
  return dir;
}

/** Eight turns, each running `echo turn <n>` in the shell; never a claim of being done. */
const SCRIPT = stringify({
  turns: Array.from({ length: 8 }, (_, i) => ({ thought: `turn ${i + 1}`, tool_calls: [{ id: `c${i + 1}`, name: 'shell', args: { command: `echo turn ${i + 1}` } }] })),
});

type Contract = Record<string, unknown>;

function contract(workspace: string, overrides: Contract = {}): Contract {
  return {
    goal: { objective: 'Keep going' },
    pattern: 'react',
    agent: { kind: 'scripted', script: 'script.yaml' },
    workspace: { path: workspace, copy: 'none' },
    budget: { max_iterations: 2, max_wall_clock: '10m' },
    approval: { default: 'allow' },
    verify: [{ command: 'false' }],
    checkpoint: { every_iterations: 5 },
    on_abort: { stash: false, report: false },
    ...overrides,
  };
}

interface Rig {
  dir: string;
  config: string;
  workspace: string;
  prepared: PreparedRun;
  events: LoopEvent[];
  write: (value: Contract | string) => void;
}

/** A run of `contract` from a loop.yaml in `configDir` (default: a folder of its own, outside the workspace). */
async function rig(overrides: Contract = {}, where: 'outside' | 'inside' = 'outside'): Promise<Rig> {
  const dir = tempDir();
  const workspace = path.join(dir, 'ws');
  mkdirSync(workspace);
  const configDir = where === 'inside' ? workspace : path.join(dir, 'cfg');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(path.join(configDir, 'script.yaml'), SCRIPT);
  const config = path.join(configDir, 'loop.yaml');
  const write = (value: Contract | string) => writeFileSync(config, typeof value === 'string' ? value : stringify(value));
  write(contract(workspace, overrides));
  const prepared = await prepareRun(loadPolicy(config), { cwd: dir, id: 'r1' });
  const events: LoopEvent[] = [];
  prepared.session.subscribe((e) => events.push(e));
  return { dir, config, workspace, prepared, events, write };
}

/** Runs `action` once, right after the tool call of turn `turn` is recorded (the tool is then running). */
function atTurn(r: Rig, turn: number, action: () => void): void {
  let done = false;
  r.prepared.session.subscribe((e) => {
    if (done || e.type !== 'tool.call' || e.data.call.id !== `c${turn}`) return;
    done = true;
    setImmediate(action);
  });
}

/** Stops at the first pause; approves nothing (no call asks). */
const stopAtPause: Answerer = (y) => (y.kind === 'pause' ? { action: 'stop' } : { decision: 'deny' });

const reloads = (events: LoopEvent[]) => events.filter((e): e is EventOf<'policy.reloaded'> => e.type === 'policy.reloaded');

describe('live reload under a running loop', () => {
  it('a raised budget limit applies mid-run: the run goes on past the old limit and pauses at the new one', async () => {
    const r = await rig();
    const said: string[] = [];
    atTurn(r, 1, () => {
      r.write(contract(r.workspace, { budget: { max_iterations: 4, max_wall_clock: '10m' } }));
      said.push(r.prepared.session.reload().message);
    });
    const outcome = await drive(r.prepared.session.run(r.prepared.goal), stopAtPause);
    expect(outcome.reason).toBe('exhausted');
    expect(r.prepared.session.snapshot.usage.turns).toBe(4);
    expect(r.prepared.session.snapshot.limits.turns).toBe(4);
    expect(said[0]).toContain('1 applied');
    const [reload] = reloads(r.events);
    expect(reload?.data).toMatchObject({ trigger: 'command', diff: [{ path: 'budget.limits.turns', from: 2, to: 4, effect: 'applied' }] });
    // The reload is recorded before turn 2, while turn 1's tool ran.
    const secondTurn = r.events.find((e) => e.type === 'model.call' && e.data.turn === 2)!;
    expect(reload!.seq).toBeLessThan(secondTurn.seq);
    // Replay folds the log to the state the run acted on.
    expect(fold(r.events)).toEqual(r.prepared.session.snapshot);
  });

  it('a limit set at or below what is used says so with the reload, in the console units, and the run pauses at its next budget check', async () => {
    for (const where of ['outside', 'inside'] as const) {
      const r = await rig({ budget: { max_iterations: 8, max_tool_calls: 8, max_wall_clock: '10m' } }, where);
      let said = '';
      atTurn(r, 3, () => {
        r.write(contract(r.workspace, { budget: { max_iterations: 2, max_tool_calls: 3, max_tokens: 1000000, max_wall_clock: '10m' } }));
        said = r.prepared.session.reload().message;
        if (where === 'inside') r.prepared.session.answerReload(r.prepared.session.snapshot.reloadPending!.seq, true);
      });
      const outcome = await drive(r.prepared.session.run(r.prepared.goal), stopAtPause);
      const when = where === 'outside' ? 'the run pauses at its next budget check' : 'if you apply it, the run pauses at its next budget check';
      // The limits reached first (a one-row answer on a small terminal keeps them), then what the reload did.
      expect(said).toMatch(new RegExp(`^turns limit 2 already reached \\(3 used\\): ${when}; tool_calls limit 3 already reached \\(3 used\\): ${when}; .*loop\\.yaml reloaded: `));
      // A limit the run has not reached is not named.
      expect(said).not.toContain('tokens limit');
      expect(outcome.reason).toBe('exhausted');
      expect(r.prepared.session.snapshot.usage.turns).toBe(3);
    }
  });

  it.each([
    ['a YAML error', 'goal: [unclosed\n', /loop\.yaml:\d+:\d+: /],
    ['a schema error', null, /loop\.yaml:\d+:\d+: budget\.max_iterations: expected a positive integer or "unlimited", found 0/],
    ['an unreadable file', 'dir', /loop\.yaml: expected a readable file|EISDIR|directory/],
    ['several schema errors', 'several', /loop\.yaml:\d+:\d+: budget\.max_iterations: expected a positive integer or "unlimited", found 0/],
  ] as const)('%s is refused with its errors and nothing changes', async (_name, text, error) => {
    const r = await rig();
    let said = '';
    atTurn(r, 1, () => {
      if (text === 'dir') {
        rmSync(r.config);
        mkdirSync(r.config);
      } else if (text === null) r.write(contract(r.workspace, { budget: { max_iterations: 0 } }));
      else if (text === 'several') r.write(contract(r.workspace, { budget: { max_iterations: 0, max_tool_calls: -1 } }));
      else r.write(text);
      const result = r.prepared.session.reload();
      // Nothing in the typed /reload to fix: a refusal (the console's command bar closes).
      expect(result).toMatchObject({ ok: false, refused: true });
      said = result.message;
    });
    const before = r.prepared.session.policy;
    const outcome = await drive(r.prepared.session.run(r.prepared.goal), stopAtPause);
    expect(outcome.reason).toBe('exhausted');
    expect(r.prepared.session.snapshot.usage.turns).toBe(2);
    expect(r.prepared.session.policy).toBe(before);
    expect(said).toMatch(/refused( with \d+ errors)?, the run goes on unchanged/);
    expect(said).toMatch(error);
    // A list says how many and where all of them are; one error is said whole.
    if (text === 'several') expect(said).toMatch(/ refused with 2 errors, the run goes on unchanged; the policy\.reloaded event lists all 2 \(the console opens it from the timeline\); the first: /);
    else expect(said).not.toContain('errors, the run goes on');
    const [reload] = reloads(r.events);
    expect(reload?.data.diff).toEqual([]);
    expect(reload?.data.errors?.join('\n')).toMatch(error);
    expect(r.prepared.session.snapshot.policyChanges).toEqual([]);
  });

  it('an approval-rule change waits for the operator’s key; declined, the calls go on; confirmed, the new rule decides', async () => {
    for (const accept of [false, true]) {
      const r = await rig({ budget: { max_iterations: 3, max_wall_clock: '10m' } });
      let pendingSeq = -1;
      atTurn(r, 1, () => {
        r.write(contract(r.workspace, { budget: { max_iterations: 3, max_wall_clock: '10m' }, approval: { default: 'allow', deny: ['shell: echo'] } }));
        r.prepared.session.reload();
        const pending = r.prepared.session.snapshot.reloadPending;
        expect(pending?.changes).toEqual([{ path: 'approval.deny', from: [], to: ['shell: echo'], effect: 'awaiting_key' }]);
        expect(r.prepared.session.policy.approval.deny).toEqual([]);
        pendingSeq = pending!.seq;
      });
      atTurn(r, 2, () => {
        expect(r.prepared.session.answerReload(pendingSeq, accept).ok).toBe(true);
      });
      await drive(r.prepared.session.run(r.prepared.goal), stopAtPause);
      // Turn 2's call passed the gates before the key: the held rule did not decide it.
      expect(r.events.find((e) => e.type === 'tool.result' && e.data.result.call_id === 'c2')).toBeDefined();
      const third = r.events.filter((e) => (e.type === 'tool.result' || e.type === 'tool.error') && (e.type === 'tool.result' ? e.data.result.call_id : e.data.call_id) === 'c3');
      expect(third.map((e) => e.type)).toEqual([accept ? 'tool.error' : 'tool.result']);
      const answer = reloads(r.events)[1]!;
      expect(answer.data).toMatchObject({ trigger: 'key', answers: pendingSeq, diff: [{ path: 'approval.deny', effect: accept ? 'applied' : 'declined' }] });
      expect(r.prepared.session.snapshot.reloadPending).toBeNull();
      expect(r.prepared.session.policy.approval.deny).toEqual(accept ? ['shell: echo'] : []);
    }
  });

  it('an agent change is shown and refused (it needs a new run) while the rest applies; a goal change is shown and ignored', async () => {
    const r = await rig();
    writeFileSync(path.join(path.dirname(r.config), 'other.yaml'), SCRIPT);
    let said = '';
    atTurn(r, 1, () => {
      r.write(contract(r.workspace, { agent: { kind: 'scripted', script: 'other.yaml' }, goal: { objective: 'Something else' }, budget: { max_iterations: 3, max_wall_clock: '10m' } }));
      said = r.prepared.session.reload().message;
    });
    await drive(r.prepared.session.run(r.prepared.goal), stopAtPause);
    const [reload] = reloads(r.events);
    const dir = path.dirname(r.config);
    expect(reload?.data.diff).toEqual(
      expect.arrayContaining([
        { path: 'goal.objective', from: 'Keep going', to: 'Something else', effect: 'goal_only' },
        { path: 'agent.script', from: path.join(dir, 'script.yaml'), to: path.join(dir, 'other.yaml'), effect: 'needs_new_run' },
        { path: 'budget.limits.turns', from: 2, to: 3, effect: 'applied' },
      ]),
    );
    expect(said).toMatch(/1 applied, 1 need a new run, 1 goal change ignored: use \/goal/);
    expect(r.prepared.session.policy.agent?.kind === 'scripted' && r.prepared.session.policy.agent.script).toBe(path.join(dir, 'script.yaml'));
    expect(r.prepared.session.snapshot.goal?.objective).toBe('Keep going');
    expect(r.prepared.session.snapshot.usage.turns).toBe(3);
  });

  it('a loop.yaml inside the workspace: every change, a budget limit too, waits for the operator’s key', async () => {
    const r = await rig({}, 'inside');
    let said = '';
    atTurn(r, 1, () => {
      r.write(contract(r.workspace, { budget: { max_iterations: 4, max_wall_clock: '10m' } }));
      said = r.prepared.session.reload().message;
      expect(r.prepared.session.snapshot.limits.turns).toBe(2);
    });
    // At the budget pause (turn 2, the old limit) the operator confirms, then continues.
    let answered = false;
    const answerer: Answerer = (y) => {
      if (y.kind !== 'pause') return { decision: 'deny' };
      if (answered) return { action: 'stop' };
      answered = true;
      const pending = r.prepared.session.snapshot.reloadPending!;
      expect(pending.inside).toBe(true);
      expect(r.prepared.session.answerReload(pending.seq, true).ok).toBe(true);
      return { action: 'continue' };
    };
    await drive(r.prepared.session.run(r.prepared.goal), answerer);
    expect(said).toContain('writable by the agent');
    const [held, confirmed] = reloads(r.events);
    expect(held?.data).toMatchObject({ inside_workspace: true, diff: [{ path: 'budget.limits.turns', effect: 'awaiting_key' }] });
    expect(confirmed?.data).toMatchObject({ trigger: 'key', diff: [{ path: 'budget.limits.turns', to: 4, effect: 'applied' }] });
    expect(r.prepared.session.snapshot.usage.turns).toBe(4);
  });

  it('a changed value that holds a secret is refused: the log could not record it for resume', async () => {
    process.env.RELOAD_TEST_API_TOKEN = 'rlT0k3n-9f8e7d6c5b4a3210';
    try {
      const r = await rig();
      let said = '';
      atTurn(r, 1, () => {
        r.write(contract(r.workspace, { verify: [{ command: 'test "$X" = rlT0k3n-9f8e7d6c5b4a3210' }], budget: { max_iterations: 3, max_wall_clock: '10m' } }));
        said = r.prepared.session.reload().message;
      });
      await drive(r.prepared.session.run(r.prepared.goal), stopAtPause);
      expect(said).toMatch(/verify\[0\]\.command: expected a value without a secret/);
      expect(r.prepared.session.snapshot.usage.turns).toBe(2);
      expect(JSON.stringify(r.events)).not.toContain('rlT0k3n-9f8e7d6c5b4a3210');
    } finally {
      delete process.env.RELOAD_TEST_API_TOKEN;
    }
  });

  it('a loop.yaml reached through a symlink into the workspace counts as inside it', async () => {
    const r = await rig({}, 'inside');
    const link = path.join(r.dir, 'linked.yaml');
    const { symlinkSync } = await import('node:fs');
    symlinkSync(r.config, link);
    const { writableFromWorkspace } = await import('../../src/engine/workspace-path.js');
    expect(writableFromWorkspace(r.workspace, link)).toMatch(/inside the workspace/);
    expect(writableFromWorkspace(r.workspace, path.join(r.dir, 'elsewhere.yaml'))).toBeNull();
  });

  it('resume after a reload goes on under the reloaded policy, not the start policy nor the file as it is now', async () => {
    const r = await rig();
    atTurn(r, 1, () => {
      r.write(contract(r.workspace, { budget: { max_iterations: 3, max_wall_clock: '10m' }, approval: { default: 'allow', deny: ['shell: echo turn 5'] } }));
      r.prepared.session.reload({ trigger: 'watch', gatesWithoutKey: true });
    });
    // Quit at the budget pause of turn 3: the log ends there, resumable.
    const run = r.prepared.session.run(r.prepared.goal);
    await drive(run, async (y) => {
      expect(y.kind).toBe('pause');
      await run.return(undefined as never);
      return { action: 'stop' };
    }).catch(() => undefined);
    r.prepared.log.close();
    expect(r.prepared.session.snapshot.usage.turns).toBe(3);
    // The file changes again; resume must not read it.
    r.write(contract(r.workspace, { budget: { max_iterations: 50, max_wall_clock: '10m' } }));
    const resumed = prepareResume(path.join(r.dir, '.loopdeck', 'runs', 'r1'));
    expect(resumed.session.snapshot.limits.turns).toBe(3);
    expect(resumed.session.policy.budget.limits.turns).toBe(3);
    expect(resumed.session.policy.approval.deny).toEqual(['shell: echo turn 5']);
    const events: LoopEvent[] = [];
    resumed.session.subscribe((e) => events.push(e));
    // Continue at the pause with the limit still spent: the run pauses again at once.
    let pauses = 0;
    const outcome = await drive(resumed.session.resume(), (y) => (y.kind === 'pause' && pauses++ === 0 ? { action: 'continue' } : { action: 'stop' }));
    resumed.log.close();
    expect(outcome.reason).toBe('exhausted');
    expect(events.filter((e) => e.type === 'model.call')).toEqual([]);
    expect(resumed.session.snapshot.usage.turns).toBe(3);
  });
});
