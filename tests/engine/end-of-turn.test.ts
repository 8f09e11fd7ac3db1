// The end of a turn (docs/design.md, "The end of a turn"): a claim, a lap's end or a spent
// budget goes to the verifier before any other verdict, and work that passes wins over
// stagnation, the budget and a failing agent process. Real git repositories in temp dirs,
// the scripted agent, and a real command agent for laps.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Agent } from '../../src/engine/agents/agent.js';
import { CommandAgent } from '../../src/engine/agents/command.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy, type LoopPolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { git, gitRepo, tempDir } from '../support/git-workspace.js';

/** A git repository with one committed file, a local identity and a broken app to fix. */
function repo(): string {
  return gitRepo('loopdeck-eot-', { 'app.js': 'export const fixed = false;\n' });
}

/** The verifier: the app is fixed. */
const VERIFY = [{ command: 'grep -q "fixed = true" app.js' }];
const FIX = { id: 'w1', name: 'write_file', args: { path: 'app.js', content: 'export const fixed = true;\n' } };

function policyFor(dir: string, overrides: Record<string, unknown>): LoopPolicy {
  return parsePolicy(
    stringify({
      goal: { objective: 'Fix the app' },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: VERIFY,
      hooks: [],
      checkpoint: { every_iterations: 50 },
      ...overrides,
    }),
    path.join(dir, 'loop.yaml'),
  );
}

async function run(dir: string, agent: Agent, policy: LoopPolicy, extra: Partial<ConstructorParameters<typeof Session>[0]> = {}) {
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const runDir = tempDir('loopdeck-eot-run-');
  const session = new Session({ id: 's1', agent, policy, workspace: dir, runDir, clock: () => (now += 1000), sinks: [(e) => events.push(e)], ...extra });
  const outcome = await drive(session.run(newGoal('Fix the app')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  const types = events.map((e) => e.type);
  return { outcome, events, types, runDir };
}

/** The workspace was not parked: the fix is on disk and nothing was stashed. */
function expectFixKept(dir: string): void {
  expect(readFileSync(path.join(dir, 'app.js'), 'utf8')).toBe('export const fixed = true;\n');
  expect(git(dir, 'stash', 'list')).toBe('');
}

describe('a claim is verified before the checkpoint of its turn', () => {
  /**
   * The observer's counts never move: all 3 tests pass from the start (the fix is elsewhere).
   * After the baseline taken at the start, the checkpoints of turns 1 and 2 count 1 and 2; the
   * claim turn's (turn 3) would reach the threshold.
   */
  const flat = {
    checkpoint: { every_iterations: 1 },
    observe: [{ name: 'tests', command: "printf '# pass 3\\n# fail 0\\n'", parser: 'tap' }],
    progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }, { signal: 'observed.tests.passing', direction: 'increase' }] },
    stagnation: { checkpoints_without_observed_progress: 3, on_detect: 'stop' },
  };

  it.each(['react', 'plan-and-execute', 'reflexion'] as const)('%s: all tests passing, the checkpoint of the claim turn would reach the stagnation threshold, on_detect stop: the run ends goal_met, nothing stashed', async (pattern) => {
    const dir = repo();
    const agent = ScriptedAgent.fromYaml(
      stringify({
        plan: ['fix', 'look', 'claim'],
        reflections: [],
        turns: [{ tool_calls: [FIX] }, { thought: 'looks right' }, { final: 'the app is fixed' }],
      }),
    );
    const r = await run(dir, agent, policyFor(dir, { pattern, ...flat }));
    expect(r.outcome).toMatchObject({ reason: 'goal_met' });
    expect(r.types).not.toContain('stagnation.detected');
    expect(r.types).not.toContain('abort.recorded');
    // The baseline and two checkpoints before the claim turn; the claim turn's verdict comes from the verifier.
    const checkpoints = r.events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint.status] : []));
    expect(checkpoints).toEqual(['BASELINE', 'NO_OBSERVED_PROGRESS', 'NO_OBSERVED_PROGRESS']);
    expectFixKept(dir);
  });

  it('a refuted claim on a stagnating turn: the checkpoint then decides (on_detect stop aborts)', async () => {
    const dir = repo();
    const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ thought: 'look' }, { thought: 'look again' }, { final: 'fixed, trust me' }] }));
    const r = await run(dir, agent, policyFor(dir, { pattern: 'react', ...flat }));
    expect(r.outcome).toMatchObject({ reason: 'aborted' });
    const order = r.types.filter((t) => t === 'verify.result' || t === 'checkpoint.recorded' || t === 'stagnation.detected');
    expect(order).toEqual(['checkpoint.recorded', 'checkpoint.recorded', 'checkpoint.recorded', 'verify.result', 'checkpoint.recorded', 'stagnation.detected']);
  });
});

describe('a spent budget asks the verifier first, in every pattern', () => {
  it.each(['react', 'plan-and-execute'] as const)('%s: the budget runs out with the work done, on_exhausted abort: goal_met, nothing stashed', async (pattern) => {
    const dir = repo();
    const agent = ScriptedAgent.fromYaml(stringify({ plan: ['fix', 'tidy', 'test'], turns: [{ tool_calls: [FIX] }, { thought: 'tidy up' }] }));
    const r = await run(dir, agent, policyFor(dir, { pattern, budget: { max_iterations: 2, on_exhausted: 'abort' } }));
    expect(r.outcome).toMatchObject({ reason: 'goal_met', summary: 'the verifier passed when the turns budget ran out (2 of 2)' });
    expect(r.types).not.toContain('abort.recorded');
    const verdicts = r.events.flatMap((e) => (e.type === 'verify.result' ? [[e.data.trigger, e.data.passed]] : []));
    expect(verdicts).toEqual([['check', true]]);
    expectFixKept(dir);
  });

  it('react: the budget runs out with the work not done, on_exhausted abort: aborted after the verifier failed', async () => {
    const dir = repo();
    const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ thought: 'look' }, { thought: 'look again' }] }));
    const r = await run(dir, agent, policyFor(dir, { pattern: 'react', budget: { max_iterations: 2, on_exhausted: 'abort' } }));
    expect(r.outcome).toMatchObject({ reason: 'aborted', summary: 'the turns budget is spent (2 of 2)' });
    expect(r.types.filter((t) => t === 'verify.result')).toHaveLength(1);
  });

  it('react: a claim refuted on the last turn is not verified again when the budget then runs out', async () => {
    const dir = repo();
    const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ thought: 'look' }, { final: 'done, trust me' }] }));
    const r = await run(dir, agent, policyFor(dir, { pattern: 'react', budget: { max_iterations: 2, on_exhausted: 'abort' } }));
    expect(r.outcome).toMatchObject({ reason: 'aborted' });
    expect(r.events.flatMap((e) => (e.type === 'verify.result' ? [e.data.trigger] : []))).toEqual(['claim']);
  });
});

describe('a lap whose agent exits non-zero is verified', () => {
  /** Each lap runs this shell command as the agent; it counts its runs in runs.txt. */
  function lapRun(dir: string, command: string, maxLaps = 3) {
    const factory = (): Agent => new CommandAgent({ command, prompt: 'stdin', cwd: dir, timeoutSeconds: 10, outputLimit: 4096 });
    const policy = policyFor(dir, { pattern: 'react', laps: { enabled: true, max_laps: maxLaps, max_consecutive_failures: 3 } });
    return run(dir, factory(), policy, { agentFactory: factory });
  }
  const runs = (dir: string) => readFileSync(path.join(dir, 'runs.txt'), 'utf8').trim().split('\n').length;

  it('the agent fixes the app and exits 3: goal_met after lap 1, no second lap', async () => {
    const dir = repo();
    const r = await lapRun(dir, `echo run >> runs.txt; printf 'export const fixed = true;\\n' > app.js; exit 3`);
    expect(r.outcome).toMatchObject({ reason: 'goal_met', summary: expect.stringMatching(/^the verifier passed after lap 1 \(the lap ended in an error: .*exited with code 3/) });
    expect(r.events.flatMap((e) => (e.type === 'lap.end' ? [e.data.outcome] : []))).toEqual(['error']);
    expect(r.types.filter((t) => t === 'lap.start')).toHaveLength(1);
    expect(runs(dir)).toBe(1);
    expectFixKept(dir);
  });

  it('the agent fails without fixing, then fixes it in lap 2 and fails again: goal_met after lap 2', async () => {
    const dir = repo();
    const command = `echo run >> runs.txt; if [ "$(wc -l < runs.txt)" -ge 2 ]; then printf 'export const fixed = true;\\n' > app.js; fi; exit 1`;
    const r = await lapRun(dir, command);
    expect(r.outcome).toMatchObject({ reason: 'goal_met' });
    expect(r.events.flatMap((e) => (e.type === 'verify.result' ? [e.data.passed] : []))).toEqual([false, true]);
    expect(runs(dir)).toBe(2);
  });

  it('a lap killed by a signal that left the work done also wins', async () => {
    const dir = repo();
    const r = await lapRun(dir, `echo run >> runs.txt; printf 'export const fixed = true;\\n' > app.js; kill -9 $$`);
    expect(r.outcome).toMatchObject({ reason: 'goal_met' });
    expect(runs(dir)).toBe(1);
  });

  it('every lap fails and the work is never done: the failure cap still ends the run', async () => {
    const dir = repo();
    const r = await lapRun(dir, 'echo run >> runs.txt; exit 2', 5);
    expect(r.outcome).toMatchObject({ reason: 'failed', detail: 'max_consecutive_failures' });
    expect(runs(dir)).toBe(3);
    expect(existsSync(path.join(dir, 'app.js'))).toBe(true);
  });
});
