// The baseline checkpoint (docs/design.md, "Checkpoints and stagnation"): when a run starts,
// before its plan and its first agent turn, the harness runs its observers and records a
// checkpoint of the workspace as the agent found it (`baseline: true`, iteration 0). The
// first interval checkpoint is compared with it, so progress made in the first interval
// shows; it never counts towards stagnation or the UNKNOWN row, and a resumed log takes it
// once. Real git workspaces with a real `node --test` suite as the observer.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Agent, AgentContext } from '../../src/engine/agents/agent.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { nextStep, type DecisionPolicy } from '../../src/engine/decide.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import type { CheckpointRecord } from '../../src/engine/types.js';
import { gitRepo } from '../support/git-workspace.js';

/** Three functions, each wrong, and one `node --test` test for each: 3 failing, 0 passing. */
const PROJECT = {
  'calc.mjs': ['export const add = (a, b) => a - b;', 'export const mul = (a, b) => a ** b;', 'export const neg = (a) => a;', ''].join('\n'),
  'calc.test.mjs': [
    "import assert from 'node:assert/strict';",
    "import test from 'node:test';",
    "import { add, mul, neg } from './calc.mjs';",
    "test('add adds', () => assert.equal(add(2, 3), 5));",
    "test('mul multiplies', () => assert.equal(mul(2, 3), 6));",
    "test('neg negates', () => assert.equal(neg(2), -2));",
    '',
  ].join('\n'),
};

const edit = (id: string, find: string, replace: string) => ({ id, name: 'edit', args: { path: 'calc.mjs', find, replace } });
/** A turn that changes nothing the tests see (a different command each time: no repetition). */
const look = (id: string) => ({ id, name: 'shell', args: { command: `echo looking ${id}` } });
const FIX_ADD = edit('e1', 'a - b', 'a + b');
const FIX_MUL = edit('e2', 'a ** b', 'a * b');
const FIX_NEG = edit('e3', '(a) => a;', '(a) => -a;');

interface Setup {
  turns: unknown[];
  every?: number;
  threshold?: number;
  onDetect?: 'alert' | 'pause' | 'stop';
  observer?: string;
  onUnknown?: 'alert' | 'pause' | 'stop';
  acceptance?: boolean;
}

function policyOf(dir: string, setup: Setup) {
  return parsePolicy(
    stringify({
      goal: {
        objective: 'make calc right',
        success_criteria: setup.acceptance ? [{ text: 'the suite passes', check: { command: 'node --test' } }] : ['the suite passes'],
      },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'node --test' }],
      hooks: [],
      checkpoint: { every_iterations: setup.every ?? 1 },
      observe: [{ name: 'tests', command: setup.observer ?? 'node --test --test-reporter=tap', parser: 'tap' }],
      progress: {
        observed: [
          { signal: 'observed.tests.failing', direction: 'decrease' },
          { signal: 'observed.tests.passing', direction: 'increase' },
        ],
      },
      stagnation: { checkpoints_without_observed_progress: setup.threshold ?? 2, on_detect: setup.onDetect ?? 'alert', on_unknown: setup.onUnknown ?? 'alert' },
    }),
    `${dir}/loop.yaml`,
  );
}

/** Records what each turn of the agent was told as its execution memory. */
class Remembering implements Agent {
  readonly name = 'scripted';
  readonly memories: Array<string | null> = [];
  constructor(private readonly inner: ScriptedAgent) {}
  nextTurn(context: AgentContext) {
    this.memories.push(context.memory ?? null);
    return this.inner.nextTurn(context);
  }
  restore(...args: Parameters<NonNullable<ScriptedAgent['restore']>>) {
    this.inner.restore(...args);
  }
}

function session(dir: string, setup: Setup, prior?: LoopEvent[]) {
  const agent = new Remembering(ScriptedAgent.fromYaml(stringify({ turns: setup.turns })));
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000 + (prior?.length ?? 0) * 1000;
  const s = new Session({
    id: 's1',
    agent,
    policy: policyOf(dir, setup),
    workspace: dir,
    clock: () => (now += 1000),
    sinks: [(e) => events.push(e)],
    ...(prior ? { prior } : {}),
  });
  return { session: s, events, agent };
}

async function run(setup: Setup, dir = gitRepo('loopdeck-baseline-', PROJECT)) {
  const { session: s, events, agent } = session(dir, setup);
  const { goal } = policyOf(dir, setup);
  const outcome = await drive(s.run(newGoal(goal.objective, goal.success_criteria, goal.constraints)), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  return { outcome, events, agent, dir, checkpoints: checkpointsOf(events) };
}

const checkpointsOf = (events: readonly LoopEvent[]): CheckpointRecord[] => events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint] : []));
const moves = (c: CheckpointRecord) => c.signals.map((s) => `${s.signal.replace('observed.tests.', '')} ${s.before ?? '—'} → ${s.after ?? 'missing'} ${s.move}`);
const seqOf = (events: readonly LoopEvent[], type: LoopEvent['type']) => events.find((e) => e.type === type)?.seq ?? -1;

describe('the baseline checkpoint', () => {
  it('is recorded when the run starts, before the plan and the first turn, from the workspace as the agent found it', async () => {
    const { outcome, events, checkpoints, agent } = await run({ turns: [{ tool_calls: [FIX_ADD, FIX_MUL, FIX_NEG] }, { final: 'all fixed' }] });
    expect(outcome.reason).toBe('goal_met');
    const baseline = checkpoints[0]!;
    expect(baseline).toMatchObject({ baseline: true, iteration: 0, index: 0, status: 'BASELINE', counter: 0, stagnation_detected: false, observed_progress: null, claimed_progress: false });
    expect(baseline.observed).toMatchObject({ 'tests.failing': 3, 'tests.passing': 0 });
    expect(moves(baseline)).toEqual(['failing — → 3 baseline', 'passing — → 0 baseline']);
    // After session.start and the move to PLANNING; before anything the agent is asked.
    const at = events.findIndex((e) => e.type === 'checkpoint.recorded');
    // The observer's own process is recorded as it starts (resume looks for survivors).
    expect(events.slice(0, at).map((e) => e.type)).toEqual(['session.start', 'state.transition', 'process.start']);
    for (const type of ['plan.draft', 'plan.commit', 'step.start', 'model.call'] as const) expect(seqOf(events, type)).toBeGreaterThan(events[at]!.seq);
    // Only the checkpoint: no verdict, no acceptance check, no assessment follows it.
    expect(events[at + 1]).toMatchObject({ type: 'plan.draft' });
    // The agent's first turn is not told a memory: nothing it did is in the baseline.
    expect(agent.memories[0]).toBeNull();
    // The goal's notes say where the first value came from.
    expect(fold(events).goal?.notes[0]).toBe('run start: BASELINE (tests.failing — → 3, tests.passing — → 0)');
  }, 30_000);

  it('makes the progress of the first interval show: the first interval checkpoint is compared with it', async () => {
    const { checkpoints } = await run({ every: 2, turns: [{ tool_calls: [FIX_ADD, FIX_MUL] }, { tool_calls: [look('r1')] }, { tool_calls: [FIX_NEG] }, { final: 'all fixed' }] });
    expect(checkpoints.map((c) => [c.iteration, c.status, c.counter])).toEqual([
      [0, 'BASELINE', 0],
      [2, 'PROGRESS_OBSERVED', 0],
    ]);
    expect(moves(checkpoints[1]!)).toEqual(['failing 3 → 1 wanted', 'passing 0 → 2 wanted']);
    // The execution memory's trend starts at the baseline.
    expect(checkpoints[1]!.memory?.signals.map((s) => [s.signal, s.values])).toEqual([
      ['observed.tests.failing', [3, 1]],
      ['observed.tests.passing', [0, 2]],
    ]);
  }, 30_000);

  it('never counts towards stagnation: the threshold is reached by that many interval checkpoints without progress', async () => {
    const idle = [1, 2, 3, 4].map((i) => ({ tool_calls: [look(`r${i}`)] }));
    const { events, checkpoints } = await run({ threshold: 2, turns: [...idle, { tool_calls: [FIX_ADD, FIX_MUL, FIX_NEG] }, { final: 'all fixed' }] });
    expect(checkpoints.slice(0, 4).map((c) => [c.iteration, c.status, c.counter, c.stagnation_detected])).toEqual([
      [0, 'BASELINE', 0, false],
      [1, 'NO_OBSERVED_PROGRESS', 1, false],
      [2, 'NO_OBSERVED_PROGRESS', 2, true],
      [3, 'NO_OBSERVED_PROGRESS', 3, true],
    ]);
    expect(events.filter((e) => e.type === 'stagnation.detected').map((e) => (e.type === 'stagnation.detected' ? e.data.iteration : -1))).toEqual([2, 3, 4]);
  }, 30_000);

  it('at a threshold of 1 is not itself stagnation: the first interval without progress is', async () => {
    const { outcome, events } = await run({ threshold: 1, onDetect: 'pause', turns: [{ tool_calls: [look('r1')] }, { final: 'done?' }] });
    expect(outcome.reason).toBe('stopped');
    const detected = events.filter((e) => e.type === 'stagnation.detected');
    expect(detected.map((e) => (e.type === 'stagnation.detected' ? [e.data.iteration, e.data.counter] : []))).toEqual([[1, 1]]);
    expect(events.filter((e) => e.type === 'session.pause')).toHaveLength(1);
  }, 30_000);

  it('that measured nothing is UNKNOWN with the reason, not 0 and not a crash, and does not start the UNKNOWN row', async () => {
    // The runner script the observer calls does not exist until the agent writes it in turn 2.
    const script = { id: 'w1', name: 'write_file', args: { path: 'run-tests.sh', content: 'node --test --test-reporter=tap\n' } };
    const { outcome, events, checkpoints } = await run({
      observer: 'sh run-tests.sh',
      onUnknown: 'pause',
      turns: [{ tool_calls: [look('r1')] }, { tool_calls: [script] }, { tool_calls: [FIX_ADD] }, { tool_calls: [FIX_MUL, FIX_NEG] }, { final: 'all fixed' }],
    });
    expect(outcome.reason).toBe('goal_met');
    expect(checkpoints.map((c) => [c.iteration, c.status, c.counter, c.unknown_in_row ?? null])).toEqual([
      [0, 'UNKNOWN', 0, null],
      [1, 'UNKNOWN', 0, 1],
      [2, 'BASELINE', 0, null],
      [3, 'PROGRESS_OBSERVED', 0, null],
      [4, 'PROGRESS_OBSERVED', 0, null],
    ]);
    expect(checkpoints[0]!.baseline).toBe(true);
    expect(checkpoints[0]!.unknown_why).toMatch(/^observed\.tests\.failing: observer "tests" \(sh run-tests\.sh\): no tap report in its output \(exit 2\): sh: .*run-tests\.sh/);
    expect(moves(checkpoints[0]!)).toEqual(['failing — → missing missing', 'passing — → missing missing']);
    // Two UNKNOWN checkpoints in a row, but one of them the baseline: no alert, no pause.
    expect(events.filter((e) => e.type === 'checkpoint.unknown' || e.type === 'session.pause')).toEqual([]);
  }, 30_000);

  it('skips the acceptance matrix: the criteria are checked at interval checkpoints and verdicts only', async () => {
    const { events } = await run({ acceptance: true, turns: [{ tool_calls: [FIX_ADD, FIX_MUL, FIX_NEG] }, { final: 'all fixed' }] });
    const checked = events.flatMap((e) => (e.type === 'acceptance.checked' ? [[e.data.iteration, e.data.trigger]] : []));
    expect(checked).toEqual([
      [1, 'checkpoint'],
      [2, 'verify'],
    ]);
  }, 30_000);
});

describe('resuming around the baseline', () => {
  const TURNS = [{ tool_calls: [FIX_ADD, FIX_MUL] }, { tool_calls: [FIX_NEG] }, { final: 'all fixed' }];

  /** The uncrashed run, recorded once: each test cuts its events elsewhere and resumes them in a workspace of its own. */
  let recorded: ReturnType<typeof run> | undefined;

  async function resumeAt(cut: (events: LoopEvent[]) => number) {
    const uncrashed = await (recorded ??= run({ turns: TURNS }));
    const dir = gitRepo('loopdeck-baseline-resume-', PROJECT);
    const prior = uncrashed.events.slice(0, cut(uncrashed.events));
    const { session: s, events } = session(dir, { turns: TURNS }, prior);
    const outcome = await drive(s.resume(), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    return { uncrashed, prior, resumed: events, outcome, all: [...prior, ...events] };
  }

  it('takes the baseline on resume when the log was cut before it, once, before the plan', async () => {
    const { prior, resumed, outcome, all, uncrashed } = await resumeAt((events) => events.findIndex((e) => e.type === 'checkpoint.recorded'));
    // The observers had started (their `process.start` is recorded); the checkpoint was not.
    expect(prior.map((e) => e.type)).toEqual(['session.start', 'state.transition', 'process.start']);
    expect(outcome.reason).toBe('goal_met');
    expect(resumed.map((e) => e.type).slice(0, 4)).toEqual(['session.resume', 'process.start', 'checkpoint.recorded', 'plan.draft']);
    expect(checkpointsOf(all).map((c) => [c.iteration, c.status, c.baseline ?? false])).toEqual(checkpointsOf(uncrashed.events).map((c) => [c.iteration, c.status, c.baseline ?? false]));
    expect(checkpointsOf(all).filter((c) => c.baseline)).toHaveLength(1);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i));
  }, 60_000);

  it('never takes it again when the log has it', async () => {
    const { resumed, outcome, all, uncrashed } = await resumeAt((events) => events.findIndex((e) => e.type === 'checkpoint.recorded') + 1);
    expect(outcome.reason).toBe('goal_met');
    expect(resumed.map((e) => e.type).slice(0, 2)).toEqual(['session.resume', 'plan.draft']);
    expect(checkpointsOf(all).map((c) => [c.iteration, c.status])).toEqual(checkpointsOf(uncrashed.events).map((c) => [c.iteration, c.status]));
    expect(moves(checkpointsOf(all)[1]!)).toEqual(['failing 3 → 1 wanted', 'passing 0 → 2 wanted']);
  }, 60_000);

  it('is not taken for a log that began without one: a turn or a plan draft already recorded means the run is under way', () => {
    const policy: DecisionPolicy = {
      pattern: 'react',
      checkpointEvery: 3,
      maxReplans: 1,
      maxAttempts: 1,
      laps: { enabled: false, max_laps: 1, max_consecutive_failures: 1 },
      budget: { on_exhausted: 'pause', increments: { turns: 1, tool_calls: 1, wall_clock_seconds: 1, tokens: 1, cost_usd: 1 } },
    };
    const start: LoopEvent[] = [
      { seq: 0, at: 0, session: 's', type: 'session.start', data: { schemaVersion: 1, goal: newGoal('g'), pattern: 'react', budget: { turns: 5, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, workspace: '/w', checkpoint_every: 3, stagnation_threshold: 2 } },
      { seq: 1, at: 0, session: 's', type: 'state.transition', data: { from: 'IDLE', to: 'PLANNING' } },
    ] as LoopEvent[];
    expect(nextStep(fold(start), policy, 0)).toEqual({ kind: 'baseline' });
    const drafted = [...start, { seq: 2, at: 0, session: 's', type: 'plan.draft', data: { steps: ['s'] } } as LoopEvent];
    expect(nextStep(fold(drafted), policy, 0)).toEqual({ kind: 'plan', plan: 'initial' });
  });
});
