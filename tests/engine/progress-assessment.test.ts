// Progress as the model sees it (docs/design.md, "Progress as the model sees it"): with
// `progress.assess`, each checkpoint asks the agent to assess the criteria; the answer is
// recorded as reported, counted in tokens and cost (never as a turn), never used as
// progress, and a malformed answer is recorded, never thrown. Real workspaces and commands.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CommandAgent } from '../../src/engine/agents/command.js';
import type { Agent } from '../../src/engine/agents/agent.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { parseAssessment } from '../../src/engine/assessment.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { EventOf, LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-assess-'));
  dirs.push(dir);
  return dir;
}

const CRITERIA = ['no failing test', 'done.txt exists'];

function policyFor(dir: string, extra: Record<string, unknown> = {}) {
  return parsePolicy(
    stringify({
      goal: { objective: 'fix it', success_criteria: CRITERIA },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'test -f done.txt' }],
      checkpoint: { every_iterations: 1 },
      observe: [{ name: 'tests', command: 'cat count.txt 2>/dev/null || echo none', parser: 'regex', pattern: 'failing: (?<failing>\\d+)' }],
      progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }], assess: true },
      stagnation: { checkpoints_without_observed_progress: 2, on_detect: 'stop' },
      ...extra,
    }),
    path.join(dir, 'loop.yaml'),
  );
}

async function run(agent: Agent, dir: string, policy = policyFor(dir)) {
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({ id: 's1', agent, policy, workspace: dir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
  const outcome = await drive(session.run(newGoal('fix it', CRITERIA)), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  const assessed = events.flatMap((e) => (e.type === 'progress.assessed' ? [(e as EventOf<'progress.assessed'>).data] : []));
  return { outcome, events, assessed, state: fold(events) };
}

const shell = (id: string, command: string) => ({ tool_calls: [{ id, name: 'shell', args: { command } }], usage: { input_tokens: 10, output_tokens: 1 } });

describe('the agent assesses the criteria at each checkpoint', () => {
  it('records each answer beside the harness measurement: parsed, not JSON, an unknown criterion; counted in tokens, never as a turn or progress', async () => {
    const dir = tempDir();
    const agent = ScriptedAgent.fromYaml(
      stringify({
        turns: [shell('a', "printf 'failing: 3' > count.txt"), shell('b', 'true'), shell('c', 'true')],
        assessments: [
          { answer: { criteria: [{ criterion: 1, verdict: 'met', reason: 'all green, trust me' }, { criterion: 'done.txt exists', verdict: 'partly', reason: 'half\nwritten' }] }, usage: { input_tokens: 100, output_tokens: 20 } },
          { answer: 'Everything is met!', usage: { input_tokens: 7, output_tokens: 3 } },
          { answer: '{"criteria": [{"criterion": 7, "verdict": "met", "reason": "x"}]}', usage: { input_tokens: 1, output_tokens: 1 } },
        ],
      }),
    );
    const { outcome, assessed, state, events } = await run(agent, dir);
    // Three met-saying answers did not stop the stagnation: two checkpoints without observed progress stop the run.
    expect(outcome).toMatchObject({ reason: 'aborted', summary: expect.stringContaining('STAGNATION_DETECTED: 2/2') });
    // The baseline at the start measured nothing (count.txt is written in turn 1) and is not assessed: turn 1 is the first value.
    expect(events.filter((e) => e.type === 'checkpoint.recorded').map((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint.status, e.data.checkpoint.counter] : []))).toEqual([
      ['UNKNOWN', 0],
      ['BASELINE', 0],
      ['NO_OBSERVED_PROGRESS', 1],
      ['NO_OBSERVED_PROGRESS', 2],
    ]);
    expect(assessed).toHaveLength(3);
    expect(assessed[0]).toEqual({
      iteration: 1,
      criteria: CRITERIA,
      harness: [
        { verdict: 'not', basis: 'tests.failing = 3' },
        { verdict: 'not', basis: 'tests.failing = 3' },
      ],
      outcome: 'parsed',
      items: [
        { index: 0, verdict: 'met', reason: 'all green, trust me' },
        { index: 1, verdict: 'partly', reason: 'half written' },
      ],
      usage: { input_tokens: 100, output_tokens: 20 },
      cost_usd: 0,
    });
    expect(assessed[1]).toMatchObject({ outcome: 'unparsed', reason: expect.stringMatching(/^not JSON/), raw_head: 'Everything is met!' });
    expect(assessed[2]).toMatchObject({ outcome: 'unparsed', reason: expect.stringContaining('criteria[0]: unknown criterion 7 (expected 1 to 2'), raw_head: expect.stringContaining('"criterion": 7') });
    // Tokens: 3 turns of 11 and the three assessments; turns: only the three model turns.
    expect(state.usage.tokens).toBe(33 + 120 + 10 + 2);
    expect(state.usage.turns).toBe(3);
    expect(state.assessment).toMatchObject({ outcome: 'unparsed', iteration: 3 });
  });

  it('a resumed run goes on with the next scripted answer, not the first again', async () => {
    const dir = tempDir();
    const script = () =>
      ScriptedAgent.fromYaml(
        stringify({
          turns: [shell('a', "printf 'failing: 3' > count.txt"), shell('b', "printf 'failing: 2' > count.txt"), shell('c', 'touch done.txt'), { final: 'done' }],
          assessments: [1, 2, 3].map((n) => ({ answer: [{ criterion: 1, verdict: 'partly', reason: `answer ${n}` }] })),
        }),
      );
    const whole = await run(script(), dir);
    expect(whole.assessed.map((a) => a.items?.[0]?.reason)).toEqual(['answer 1', 'answer 2', 'answer 3']);
    const cut = whole.events.findIndex((e) => e.type === 'progress.assessed') + 1;
    const prior = whole.events.slice(0, cut);
    const again = tempDir();
    const events: LoopEvent[] = [...prior];
    const session = new Session({ id: 's1', agent: script(), policy: policyFor(again), workspace: again, prior, sinks: [(e) => events.push(e)] });
    const outcome = await drive(session.resume(), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome.reason).toBe('goal_met');
    const resumed = events.slice(cut).flatMap((e) => (e.type === 'progress.assessed' ? [e.data.items?.[0]?.reason] : []));
    expect(resumed).toEqual(['answer 2', 'answer 3']);
  });

  it('counts against the token budget: an assessment past max_tokens ends the run at the next step', async () => {
    const dir = tempDir();
    const agent = ScriptedAgent.fromYaml(
      stringify({
        turns: [shell('a', 'true'), shell('b', 'true'), shell('c', 'true')],
        assessments: [{ answer: [{ criterion: 1, verdict: 'not', reason: 'nothing done' }], usage: { input_tokens: 400, output_tokens: 100 } }],
      }),
    );
    const { outcome, state, assessed } = await run(agent, dir, policyFor(dir, { budget: { max_tokens: 100, on_exhausted: 'abort' } }));
    expect(assessed.map((a) => a.outcome)).toEqual(['parsed']);
    expect(outcome).toMatchObject({ reason: 'aborted', summary: expect.stringContaining('tokens budget is spent') });
    expect(state.usage.turns).toBe(1);
  });

  it('an agent with no answer left records a failed assessment and the run goes on', async () => {
    const dir = tempDir();
    const agent = ScriptedAgent.fromYaml(stringify({ turns: [shell('a', 'touch done.txt'), { final: 'done' }] }));
    const { outcome, assessed } = await run(agent, dir);
    expect(outcome.reason).toBe('goal_met');
    expect(assessed[0]).toMatchObject({ outcome: 'failed', reason: expect.stringContaining('the transcript has 0 assessments and one more was asked for'), usage: { input_tokens: 0, output_tokens: 0 } });
  });

  it('a command agent cannot be asked: said once in a notice, nothing recorded', async () => {
    const dir = tempDir();
    const agent = new CommandAgent({ command: 'echo working', prompt: 'stdin', cwd: dir, timeoutSeconds: 10, outputLimit: 4096 });
    const { events, assessed } = await run(agent, dir, policyFor(dir, { budget: { max_iterations: 3, on_exhausted: 'abort' }, stagnation: { on_detect: 'alert' } }));
    expect(events.filter((e) => e.type === 'checkpoint.recorded').length).toBeGreaterThanOrEqual(2);
    expect(assessed).toEqual([]);
    const notices = events.flatMap((e) => (e.type === 'agent.notice' && e.data.text.startsWith('progress.assess') ? [e.data.text] : []));
    expect(notices).toEqual([expect.stringContaining('cannot be asked to assess the criteria')]);
  });
});

describe('parseAssessment', () => {
  it.each([
    ['not JSON', 'met, met', /^not JSON/],
    ['truncated JSON', '{"criteria": [{"criterion": 1, "verdict": "me', /^not JSON/],
    ['a number', 42, /^expected \{"criteria": \[\.\.\.\]\}/],
    ['null', null, /^expected \{"criteria"/],
    ['criteria not a list', { criteria: 'all' }, /^expected \{"criteria"/],
    ['an entry not an object', { criteria: ['met'] }, /^criteria\[0\]: expected an object/],
    ['an unknown verdict', { criteria: [{ criterion: 1, verdict: 'yes', reason: 'r' }] }, /^criteria\[0\]\.verdict: expected met, partly or not, found "yes"/],
    ['an unknown criterion text', { criteria: [{ criterion: 'the app is fast', verdict: 'met', reason: 'r' }] }, /^criteria\[0\]: unknown criterion "the app is fast"/],
    ['criterion 0', { criteria: [{ criterion: 0, verdict: 'met', reason: 'r' }] }, /^criteria\[0\]: unknown criterion 0/],
    ['a criterion twice', { criteria: [{ criterion: 1, verdict: 'met', reason: 'r' }, { criterion: '1', verdict: 'not', reason: 'r' }] }, /criterion 1 is assessed twice/],
    ['no reason', { criteria: [{ criterion: 2, verdict: 'not' }] }, /^criteria\[0\]\.reason: expected a string/],
  ])('records %s as unparsed with the reason and the raw head', (_case, raw, reason) => {
    const parsed = parseAssessment(raw, CRITERIA);
    expect(parsed).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('keeps only the head of a huge answer and cuts a long reason to one line', () => {
    const huge = `not json ${'z'.repeat(1_000_000)}`;
    const parsed = parseAssessment(huge, CRITERIA);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.raw_head.length).toBe(401);
    const long = parseAssessment('```json\n{"criteria":[{"criterion":2,"verdict":"not","reason":"' + 'r\\n'.repeat(500) + '"}]}\n```', CRITERIA);
    expect(long.ok && long.items[0]!.reason.length).toBe(200);
    expect(long.ok && long.items[0]!.reason.includes('\n')).toBe(false);
  });
});
