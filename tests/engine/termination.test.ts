// Knowing when to stop (docs/design.md, "Ending a run"): the verifier judges claims, the
// repetition guard catches loops, /stop --abort parks the workspace with git stash and
// writes a failure report, and fresh laps hand over through a progress file.
// Real git repositories in temp dirs, real child processes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Agent, AgentContext, AgentMessage } from '../../src/engine/agents/agent.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy, type LoopPolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { fold } from '../../src/engine/fold.js';
import type { AgentTurn } from '../../src/engine/types.js';
import { FLAT_OBSERVER } from '../support/flat-observer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix = 'loopdeck-term-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** A git repo with one committed file and a local identity. */
function repo(): string {
  const dir = tempDir('loopdeck-repo-');
  git(dir, 'init', '-q');
  git(dir, 'config', 'user.name', 'test');
  git(dir, 'config', 'user.email', 'test@localhost');
  writeFileSync(path.join(dir, 'app.js'), 'export const x = 1;\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-qm', 'start');
  return dir;
}

function policyFor(dir: string, overrides: Record<string, unknown> = {}): LoopPolicy {
  return parsePolicy(
    stringify({
      goal: { objective: 'Make the check pass' },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'test -f done.txt' }],
      hooks: [],
      checkpoint: { every_iterations: 50 },
      ...overrides,
    }),
    path.join(dir, 'loop.yaml'),
  );
}

interface Run {
  session: Session;
  events: LoopEvent[];
  types: () => string[];
}

function session(dir: string, agent: Agent, policy: LoopPolicy, extra: Partial<ConstructorParameters<typeof Session>[0]> = {}): Run {
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const s = new Session({ id: 's1', agent, policy, workspace: dir, clock: () => (now += 1000), sinks: [(e) => events.push(e)], ...extra });
  return { session: s, events, types: () => events.map((e) => e.type) };
}

const script = (t: Record<string, unknown>) => ScriptedAgent.fromYaml(stringify(t));
const call = (id: string, name: string, args: Record<string, unknown>) => ({ tool_calls: [{ id, name, args }] });

describe('the verifier', () => {
  it('refutes a claim while a check still fails, tells the agent, and the loop goes on', async () => {
    const dir = tempDir();
    const seen: AgentMessage[][] = [];
    const turns: AgentTurn[] = [
      { final: 'done, trust me', tool_calls: [], usage: { input_tokens: 1, output_tokens: 1 } },
      { thought: 'fix it for real', tool_calls: [{ id: 't1', name: 'write_file', args: { path: 'done.txt', content: 'ok' } }], usage: { input_tokens: 1, output_tokens: 1 } },
      { final: 'now it is done', tool_calls: [], usage: { input_tokens: 1, output_tokens: 1 } },
    ];
    const agent: Agent = {
      name: 'claims-early',
      async nextTurn(ctx: AgentContext) {
        seen.push([...ctx.history]);
        return turns.shift()!;
      },
    };
    const run = session(dir, agent, policyFor(dir, { pattern: 'react' }));
    const outcome = await drive(run.session.run(newGoal('Make the check pass')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome.reason).toBe('goal_met');
    expect(outcome.summary).toBe('now it is done');
    const verdicts = run.events.filter((e) => e.type === 'verify.result').map((e) => (e.type === 'verify.result' ? [e.data.passed, e.data.commands[0]!.exit_code] : []));
    expect(verdicts).toEqual([
      [false, 1],
      [true, 0],
    ]);
    expect(seen[1]!.at(-1)).toEqual({ role: 'harness', content: 'Your claim that the goal is met was refuted: test -f done.txt (exit 1) failed.' });
  });
});

describe('the repetition guard in a run', () => {
  it('detects the third identical call, pauses, and stays armed after continuing', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a'), 'A');
    const read = (id: string) => call(id, 'read_file', { path: 'a' });
    const agent = script({ turns: [read('r1'), read('r2'), read('r3'), read('r4'), { final: 'done' }] });
    const run = session(dir, agent, policyFor(dir, { pattern: 'react', verify: [{ command: 'true' }] }));
    const gen = run.session.run(newGoal('read a'));
    let step = await gen.next();
    expect(step.value).toMatchObject({ kind: 'pause', reason: 'repetition' });
    const first = run.events.filter((e) => e.type === 'repetition.detected');
    expect(first).toHaveLength(1);
    expect(first[0]!.data).toMatchObject({ count: 3, calls: [{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }] });
    expect(run.events.filter((e) => e.type === 'tool.call').map((e) => (e.type === 'tool.call' ? e.data.call.id : ''))).toEqual(['r1', 'r2']);
    step = await gen.next({ action: 'continue' });
    expect(step.value).toMatchObject({ kind: 'pause', reason: 'repetition' });
    expect(run.events.filter((e) => e.type === 'tool.call').map((e) => (e.type === 'tool.call' ? e.data.call.id : ''))).toEqual(['r1', 'r2', 'r3']);
    step = await gen.next({ action: 'continue' });
    expect(step).toMatchObject({ done: true, value: { reason: 'goal_met' } });
    expect(run.events.filter((e) => e.type === 'repetition.detected')).toHaveLength(2);
  });

  it('catches A, B, A, B, A, B as a cycle', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'a'), 'A');
    writeFileSync(path.join(dir, 'b'), 'B');
    const a = (id: string) => call(id, 'read_file', { path: 'a' });
    const b = (id: string) => call(id, 'read_file', { path: 'b' });
    const agent = script({ turns: [a('1'), b('2'), a('3'), b('4'), a('5'), b('6'), { final: 'done' }] });
    const run = session(dir, agent, policyFor(dir, { pattern: 'react', verify: [{ command: 'true' }], repetition: { window: 3, on_detect: 'alert' } }));
    await drive(run.session.run(newGoal('read')), headlessAnswerer({ approve: 'all', onPause: 'continue' }));
    const detections = run.events.filter((e) => e.type === 'repetition.detected');
    expect(detections).toHaveLength(1);
    expect(detections[0]!.data).toMatchObject({ count: 3 });
    expect((detections[0]!.data as { calls: { id: string }[] }).calls.map((c) => c.id)).toEqual(['1', '2', '3', '4', '5', '6']);
  });
});

describe('the circuit breaker', () => {
  it('/stop --abort stashes tracked and untracked changes by SHA, writes the report outside the workspace, keeps older stashes', async () => {
    const dir = repo();
    writeFileSync(path.join(dir, 'app.js'), 'export const x = 0; // older work\n');
    git(dir, 'stash', 'push', '-m', 'older work');
    const older = git(dir, 'rev-parse', 'stash@{0}');
    const runDir = path.join(tempDir('loopdeck-rundir-'), 'runs', 's1');
    const agent = script({
      turns: [
        call('t1', 'write_file', { path: 'app.js', content: 'export const x = 2;\n' }),
        call('t2', 'write_file', { path: 'notes/new.txt', content: 'untracked\n' }),
        { thought: 'keep going' },
      ],
    });
    const run = session(dir, agent, policyFor(dir, { pattern: 'react' }), { runDir });
    const gen = run.session.run(newGoal('change files'));
    run.session.subscribe((e) => {
      if (e.type === 'tool.result' && e.data.result.call_id === 't2') void run.session.command('/stop --abort');
    });
    const step = await gen.next();
    expect(step).toMatchObject({ done: true, value: { reason: 'aborted' } });

    expect(git(dir, 'status', '--porcelain')).toBe('');
    const reportFile = path.join(runDir, 'failure-report.json');
    expect(path.relative(dir, reportFile).startsWith('..')).toBe(true);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    expect(report.stash.status).toBe('stashed');
    expect(report.stash.tracked).toEqual(['app.js']);
    expect(report.stash.untracked).toEqual(['notes/new.txt']);
    const shown = git(dir, 'stash', 'show', '--include-untracked', '--name-only', report.stash.sha);
    expect(shown.split('\n').sort()).toEqual(['app.js', 'notes/new.txt']);
    expect(git(dir, 'rev-parse', 'stash@{1}')).toBe(older);
    expect(report.restore).toContain(report.stash.sha);
    const recorded = run.events.find((e) => e.type === 'abort.recorded');
    expect(recorded?.data).toMatchObject({ report: reportFile, stash: `stashed as ${report.stash.sha}` });
    expect(run.events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'aborted' } });
  });

  it('/stop --abort while a tool call waits for approval: the call never runs, even if approved after; the run ends aborted', async () => {
    const dir = repo();
    const runDir = path.join(tempDir('loopdeck-rundir-'), 'runs', 's1');
    const agent = script({ turns: [call('t1', 'write_file', { path: 'app.js', content: 'export const x = 2;\n' }), { thought: 'never asked' }] });
    const hooks = new HookRegistry();
    hooks.on('before_tool_call', 'ask', () => ({ type: 'pause', prompt: 'approve?' }));
    const run = session(dir, agent, policyFor(dir, { pattern: 'react' }), { runDir, hooks });
    const gen = run.session.run(newGoal('change files'));
    const waiting = await gen.next();
    expect(waiting).toMatchObject({ done: false, value: { kind: 'tool', call: { id: 't1' } } });
    expect((await run.session.command('/stop --abort')).ok).toBe(true);
    const end = await gen.next({ decision: 'approve' });

    expect(end).toMatchObject({ done: true, value: { reason: 'aborted' } });
    expect(readFileSync(path.join(dir, 'app.js'), 'utf8')).toBe('export const x = 1;\n');
    const decision = run.events.find((e) => e.type === 'tool.decision');
    expect(decision?.data).toMatchObject({ call_id: 't1', decision: 'deny', by: 'operator', note: 'the operator aborted the run (/stop --abort)' });
    expect(run.events.filter((e) => e.type === 'tool.result').map((e) => e.type === 'tool.result' && e.data.result.status)).toEqual(['denied']);
    expect(run.events.filter((e) => e.type === 'model.call')).toHaveLength(1);
    expect(existsSync(path.join(runDir, 'failure-report.json'))).toBe(true);
    expect(run.events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'aborted' } });
  });

  it('says plainly when the workspace is not a git repo, and deletes nothing', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'keep.txt'), 'keep');
    const runDir = path.join(tempDir('loopdeck-rundir-'), 's1');
    const agent = script({ turns: [{ thought: 'one' }, { thought: 'two' }] });
    const run = session(dir, agent, policyFor(dir, { pattern: 'react', ...FLAT_OBSERVER, stagnation: { checkpoints_without_observed_progress: 1, on_detect: 'stop' }, checkpoint: { every_iterations: 1 } }), { runDir });
    const outcome = await drive(run.session.run(newGoal('x')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome.reason).toBe('aborted');
    const report = JSON.parse(readFileSync(path.join(runDir, 'failure-report.json'), 'utf8'));
    expect(report.stash.status).toBe('not_a_git_repo');
    // The report's usage is the budget's at the abort: the wall clock counted up to it (the clock here ticks a second a read).
    const state = fold(run.events);
    expect(report.budget.usage.wall_clock_seconds).toBeGreaterThan(state.usage.wall_clock_seconds - 5);
    expect(report.budget.usage.wall_clock_seconds).toBeLessThanOrEqual(state.usage.wall_clock_seconds);
    expect(report.budget.usage.turns).toBe(state.usage.turns + state.failedTurns);
    expect(readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

describe('fresh laps', () => {
  /** Each lap's agent appends one line to work.txt and the progress file; three lines make the goal. */
  function lapRun(dir: string, maxLaps: number, progressFile = 'PROGRESS.md', progress = (lap: number) => `done: ${lap} slice(s)\nnext: slice ${lap + 1}\n`) {
    const histories: AgentMessage[][] = [];
    const factory = (lap: number): Agent => {
      let turn = 0;
      return {
        name: `lap-agent-${lap}`,
        async nextTurn(ctx: AgentContext): Promise<AgentTurn> {
          turn += 1;
          if (turn === 1) {
            histories.push([...ctx.history]);
            const work = existsSync(path.join(dir, 'work.txt')) ? readFileSync(path.join(dir, 'work.txt'), 'utf8') : '';
            return {
              thought: `lap ${lap}: add a slice`,
              tool_calls: [{ id: `w${lap}`, name: 'write_file', args: { path: 'work.txt', content: `${work}slice ${lap}\n` } }],
              usage: { input_tokens: 10, output_tokens: 5 },
            };
          }
          if (turn === 2) {
            return {
              tool_calls: [{ id: `p${lap}`, name: 'write_file', args: { path: progressFile, content: progress(lap) } }],
              usage: { input_tokens: 10, output_tokens: 5 },
            };
          }
          return { final: `lap ${lap} done`, tool_calls: [], usage: { input_tokens: 10, output_tokens: 5 } };
        },
      };
    };
    const policy = policyFor(dir, {
      pattern: 'react',
      verify: [{ command: 'test "$(wc -l < work.txt)" -ge 3' }],
      laps: { enabled: true, max_laps: maxLaps, progress_file: progressFile },
    });
    const run = session(dir, factory(0), policy, { agentFactory: factory });
    return { run, histories };
  }

  it('a job that needs three laps ends goal_met after lap 3; each lap starts with no earlier history', async () => {
    const dir = tempDir();
    const { run, histories } = lapRun(dir, 5);
    const outcome = await drive(run.session.run(newGoal('three slices')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome.reason).toBe('goal_met');
    const laps = run.events.filter((e) => e.type === 'lap.start').map((e) => (e.type === 'lap.start' ? e.data : null));
    expect(laps.map((l) => l!.lap)).toEqual([1, 2, 3]);
    expect(laps[0]!.handover).toMatchObject({ path: 'PROGRESS.md', state: 'missing', bytes: null });
    expect(laps[2]!.handover).toMatchObject({ state: 'present', excerpt: 'done: 2 slice(s)\nnext: slice 3\n', truncated: false, bytes: 31 });
    expect(run.events.filter((e) => e.type === 'lap.end').map((e) => (e.type === 'lap.end' ? e.data.outcome : ''))).toEqual(['not_done', 'not_done', 'done']);
    for (const history of histories) {
      expect(history).toHaveLength(1);
      expect(history[0]!.role).toBe('harness');
    }
    expect(histories[2]![0]!.content).toContain('done: 2 slice(s)');
    const calls = run.events.filter((e) => e.type === 'model.call').map((e) => (e.type === 'model.call' ? e.data : null));
    const last = calls.at(-1)!;
    expect(last.long_session_chars!).toBeGreaterThan(last.request_chars!);
  });

  it('progress_file elsewhere: lap 2 is told its path and what lap 1 wrote in it', async () => {
    const dir = tempDir();
    const { run, histories } = lapRun(dir, 5, 'notes/HANDOVER.md');
    const outcome = await drive(run.session.run(newGoal('three slices')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome.reason).toBe('goal_met');
    expect(histories[0]![0]!.content).toContain('There is no progress file yet (notes/HANDOVER.md).');
    expect(histories[1]![0]!.content).toContain('The progress file notes/HANDOVER.md says:\ndone: 1 slice(s)\nnext: slice 2\n');
    expect(histories[1]![0]!.content).toContain('update the progress file notes/HANDOVER.md');
  });

  it('a 300 KB progress file: the lap gets its head and tail, the log its size and hash, not the whole text', async () => {
    const dir = tempDir();
    const big = (lap: number) => `HEAD lap ${lap}\n${'middle line of the hand-over\n'.repeat(10_500)}TAIL lap ${lap}\n`;
    const { run, histories } = lapRun(dir, 5, 'PROGRESS.md', big);
    const outcome = await drive(run.session.run(newGoal('three slices')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome.reason).toBe('goal_met');
    const text = big(2);
    expect(text.length).toBeGreaterThan(300_000);
    const start = run.events.filter((e) => e.type === 'lap.start')[2]!;
    expect(JSON.stringify(start).length).toBeLessThan(10_000);
    expect(start.type === 'lap.start' && start.data.handover).toMatchObject({
      state: 'present',
      bytes: Buffer.byteLength(text),
      sha256: createHash('sha256').update(text).digest('hex'),
      truncated: true,
    });
    const note = histories[2]![0]!.content;
    expect(note).toContain(`The progress file PROGRESS.md (${Buffer.byteLength(text)} bytes) begins and ends as follows; read the file itself for the rest:\nHEAD lap 2`);
    expect(note).toMatch(/TAIL lap 2\n\nBefore you finish this lap/);
    expect(note.length).toBeLessThan(9_000);
  });

  it('max_laps: 2 on the same work ends exhausted at max_laps', async () => {
    const dir = tempDir();
    const { run } = lapRun(dir, 2);
    const outcome = await drive(run.session.run(newGoal('three slices')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome).toMatchObject({ reason: 'exhausted', detail: 'max_laps' });
    expect(run.events.filter((e) => e.type === 'lap.start')).toHaveLength(2);
  });
});
