// A verdict is a committed fact (docs/design.md, "Resume points"): a log cut between a
// stagnation, repetition, constraint or budget verdict and the pause or end it decides,
// or a restart at the pause of an earlier verdict of the same checkpoint, resumes into
// the same pauses, with the same prompts, and the same end as the uncrashed run.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { FLAT_OBSERVER } from '../support/flat-observer.js';
import { Session, type LoopOutcome, type LoopYield, type ResumePayload } from '../../src/engine/session.js';
import { pool } from '../support/crash-run.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const shell = (id: string, command: string) => ({ id, name: 'shell', args: { command } });

interface Scenario {
  policy: Record<string, unknown>;
  turns: Array<Record<string, unknown>>;
  /** Pauses answered `continue` before the next one is answered `stop`. */
  continues: number;
}

const SCENARIOS: Record<string, Scenario> = {
  'a stagnation pause': {
    policy: { stagnation: { checkpoints_without_observed_progress: 1, on_detect: 'pause' } },
    turns: [{ thought: 'one' }, { thought: 'two' }, { thought: 'three' }],
    continues: 1,
  },
  'a stagnation that ends the run': {
    policy: { stagnation: { checkpoints_without_observed_progress: 2, on_detect: 'stop' } },
    turns: [{ thought: 'one' }, { thought: 'two' }, { thought: 'three' }],
    continues: 0,
  },
  'a repetition pause': {
    policy: { repetition: { threshold: 2, window: 4, include_result: false } },
    turns: [{ tool_calls: [shell('r1', 'true')] }, { tool_calls: [shell('r2', 'true')] }, { tool_calls: [shell('r3', 'true')] }, { thought: 'x' }],
    continues: 1,
  },
  'a repetition that ends the run': {
    policy: { repetition: { threshold: 2, window: 4, include_result: false, on_detect: 'stop' } },
    turns: [{ tool_calls: [shell('r1', 'true')] }, { tool_calls: [shell('r2', 'true')] }, { thought: 'x' }],
    continues: 0,
  },
  'a constraint pause, then the stagnation pause of the same checkpoint': {
    policy: {
      goal: { objective: 'x', constraints: [{ text: 'the check holds', command: 'false' }], on_violation: 'pause' },
      stagnation: { checkpoints_without_observed_progress: 1, on_detect: 'pause' },
    },
    turns: [{ thought: 'one' }, { thought: 'two' }],
    continues: 2,
  },
  'a budget pause': {
    policy: { budget: { max_iterations: 2, on_exhausted: 'pause' } },
    turns: [{ thought: 'one' }, { thought: 'two' }, { thought: 'three' }],
    continues: 1,
  },
};

function policyFor(dir: string, scenario: Scenario) {
  return parsePolicy(
    stringify({
      goal: { objective: 'x' },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      hooks: [],
      pattern: 'react',
      checkpoint: { every_iterations: 1 },
      stagnation: { checkpoints_without_observed_progress: 50 },
      budget: { max_iterations: 8 },
      on_abort: { stash: false, report: false },
      ...FLAT_OBSERVER,
      ...scenario.policy,
    }),
    path.join(dir, 'loop.yaml'),
  );
}

interface Result {
  outcome: LoopOutcome;
  events: LoopEvent[];
}

/** Runs the scenario (or resumes `prior`): every pause is answered `continue` until `continues` are in the log, then `stop`. */
async function play(scenario: Scenario, prior?: LoopEvent[]): Promise<Result> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-verdict-'));
  dirs.push(dir);
  const events: LoopEvent[] = [...(prior ?? [])];
  let now = 1_700_000_000_000 + events.length * 1000;
  const session = new Session({
    id: 's1',
    agent: ScriptedAgent.fromYaml(stringify({ turns: scenario.turns })),
    policy: policyFor(dir, scenario),
    workspace: dir,
    clock: () => (now += 1000),
    sinks: [(e) => events.push(e)],
    ...(prior ? { prior } : {}),
  });
  const answer = (y: LoopYield): ResumePayload => {
    if (y.kind === 'tool') return { decision: 'approve' };
    const paused = events.filter((e) => e.type === 'session.pause').length;
    return { action: paused > scenario.continues ? 'stop' : 'continue' };
  };
  const outcome = await drive(prior ? session.resume() : session.run(newGoal('x')), answer);
  return { outcome, events };
}

const pauses = (events: readonly LoopEvent[]) => events.flatMap((e) => (e.type === 'session.pause' ? [`${e.data.reason}: ${e.data.prompt}`] : []));

/** Each verdict recorded, in order: none lost, none recorded twice. */
const verdicts = (events: readonly LoopEvent[]) =>
  events.flatMap((e) => {
    if (e.type === 'checkpoint.recorded') return [`checkpoint ${e.data.checkpoint.iteration}`];
    if (e.type === 'stagnation.detected' || e.type === 'checkpoint.unknown') return [`${e.type} ${e.data.iteration} ${e.data.action}`];
    if (e.type === 'constraint.violated') return [`${e.type} ${e.data.iteration} #${e.data.index}`];
    if (e.type === 'repetition.detected') return [`${e.type} ${e.data.calls.map((c) => c.id).join(',')}`];
    if (e.type === 'budget.warn' && e.data.exceeded) return [`budget exceeded ${e.data.dimension}`];
    return [];
  });

/** The cuts that matter here: after each verdict event, after the move to IDLE before each pause, and at each pause. */
function verdictCuts(events: readonly LoopEvent[]): number[] {
  const cuts: number[] = [];
  events.forEach((e, i) => {
    const verdict =
      e.type === 'checkpoint.recorded' ||
      e.type === 'stagnation.detected' ||
      e.type === 'checkpoint.unknown' ||
      e.type === 'constraint.violated' ||
      e.type === 'repetition.detected' ||
      (e.type === 'budget.warn' && e.data.exceeded) ||
      (e.type === 'state.transition' && (e.data.to === 'IDLE' || e.data.to === 'DONE')) ||
      e.type === 'session.pause' ||
      e.type === 'abort.recorded';
    if (verdict && i + 1 < events.length) cuts.push(i + 1);
  });
  return cuts;
}

describe.each(Object.entries(SCENARIOS))('%s, cut between the verdict and what it decides', (_name, scenario) => {
  it('resumes into the same pauses and the same end as the uncrashed run', async () => {
    const uncrashed = await play(scenario);
    expect(verdicts(uncrashed.events).filter((v) => !v.startsWith('checkpoint ')).length).toBeGreaterThan(0);
    const cuts = verdictCuts(uncrashed.events);
    const results = await pool(cuts, 3, async (cut) => {
      const resumed = await play(scenario, uncrashed.events.slice(0, cut));
      const last = uncrashed.events[cut - 1]!;
      const where = `cut after #${cut - 1} ${last.type}${last.type === 'state.transition' ? ` to ${last.data.to}` : ''}`;
      const seen = { reason: resumed.outcome.reason, pauses: pauses(resumed.events), verdicts: verdicts(resumed.events), seqsOk: resumed.events.every((e, i) => e.seq === i) };
      return { where, seen };
    });
    const want = { reason: uncrashed.outcome.reason, pauses: pauses(uncrashed.events), verdicts: verdicts(uncrashed.events), seqsOk: true };
    for (const r of results) expect(r.seen, r.where).toEqual(want);
  }, 60_000);
});
