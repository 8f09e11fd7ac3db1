// The pure part of live reload (src/engine/reload.ts): what each difference may do mid-run,
// the policy in force after the applied changes, and a fold that never trusts a damaged
// `policy.reloaded`.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { applyChanges, pathSegments, planReload } from '../../src/engine/reload.js';

const file = path.resolve('/tmp/reload-plan/loop.yaml');
const base = {
  goal: { objective: 'o' },
  agent: { kind: 'command', command: 'sh' },
  workspace: { path: '.' },
  verify: [{ command: 'true' }],
  budget: { max_iterations: 5 },
};
const policy = (extra: Record<string, unknown> = {}) => parsePolicy(stringify({ ...base, ...extra }), file);

describe('planReload', () => {
  it('gives each section its effect; a loop.yaml the agent can write holds every change', () => {
    const next = policy({
      budget: { max_iterations: 9 },
      observe: [{ name: 'tests', command: 'npm test', parser: 'tap' }],
      approval: { allow: ['read_file'] },
      hooks: ['trace-writer'],
      agent: { kind: 'command', command: 'bash' },
      pattern: 'reflexion',
      goal: { objective: 'p' },
    });
    const plan = planReload(policy(), next, { inside: false, gatesWithoutKey: false });
    const effects = Object.fromEntries(plan.map((c) => [c.path, c.effect]));
    expect(effects).toEqual({
      'budget.limits.turns': 'applied',
      observe: 'applied',
      'approval.allow': 'awaiting_key',
      hooks: 'awaiting_key',
      'agent.command': 'needs_new_run',
      pattern: 'needs_new_run',
      'goal.objective': 'goal_only',
    });
    expect(planReload(policy(), next, { inside: false, gatesWithoutKey: true }).find((c) => c.path === 'hooks')?.effect).toBe('applied');
    const inside = planReload(policy(), next, { inside: true, gatesWithoutKey: true });
    expect(inside.filter((c) => c.effect === 'applied')).toEqual([]);
    expect(inside.find((c) => c.path === 'budget.limits.turns')?.effect).toBe('awaiting_key');
    expect(planReload(policy(), policy(), { inside: false, gatesWithoutKey: false })).toEqual([]);
  });

  it('a key added or removed is a change with no from or no to; applying it adds or removes the key', () => {
    const before = policy();
    const after = policy({ pricing: { cached_input_per_million_usd: 1 } });
    const [added] = planReload(before, after, { inside: false, gatesWithoutKey: false });
    expect(added).toEqual({ path: 'pricing.cached_input_per_million_usd', to: 1, effect: 'applied' });
    expect(applyChanges(before, [added!]).pricing.cached_input_per_million_usd).toBe(1);
    const [removed] = planReload(after, before, { inside: false, gatesWithoutKey: false });
    expect(removed).toEqual({ path: 'pricing.cached_input_per_million_usd', from: 1, effect: 'applied' });
    expect('cached_input_per_million_usd' in applyChanges(after, [removed!]).pricing).toBe(false);
  });
});

describe('applyChanges and paths from a log', () => {
  it('reads keys and indexes, and refuses paths that could reach a prototype or are not paths', () => {
    expect(pathSegments('observe[1].timeout')).toEqual(['observe', 1, 'timeout']);
    for (const bad of ['__proto__.x', 'budget.constructor', 'a..b', 'a[x]', '', 'Budget', 'a.b[-1]']) expect(() => pathSegments(bad), bad).toThrow(/expected keys like/);
    expect(() => pathSegments(42 as unknown as string)).toThrow(/names no path/);
    expect(() => applyChanges(policy(), [{ path: 'verify[3].command', to: 'x' }])).toThrow(/does not have/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never changes the policy it was given', () => {
    const before = policy();
    const after = applyChanges(before, [{ path: 'budget.limits.turns', to: 7 }]);
    expect(after.budget.limits.turns).toBe(7);
    expect(before.budget.limits.turns).toBe(5);
  });
});

describe('the fold of policy.reloaded', () => {
  const start: LoopEvent = {
    seq: 0,
    at: 0,
    session: 's',
    type: 'session.start',
    data: { schemaVersion: 1, goal: { objective: 'o', success_criteria: [], constraints: [], status: 'active', notes: [], revision: 0, priority: 'normal', sub_goals: [] } as never, pattern: 'react', pattern_reason: '', budget: { turns: 5, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, workspace: '/w', checkpoint_every: 3, stagnation_threshold: 3 },
  };
  const reloaded = (seq: number, data: unknown): LoopEvent => ({ seq, at: seq, session: 's', type: 'policy.reloaded', data: data as never });

  it('keeps the limits, the interval and the applied changes', () => {
    const state = fold([
      start,
      reloaded(1, { file, trigger: 'command', diff: [{ path: 'budget.limits.turns', from: 5, to: 8, effect: 'applied' }, { path: 'checkpoint.every_iterations', from: 3, to: 2, effect: 'applied' }, { path: 'hooks', from: [], to: ['trace-writer'], effect: 'awaiting_key' }] }),
    ]);
    expect(state.limits.turns).toBe(8);
    expect(state.checkpointEvery).toBe(2);
    expect(state.policyChanges).toEqual([
      { seq: 1, path: 'budget.limits.turns', to: 8 },
      { seq: 1, path: 'checkpoint.every_iterations', to: 2 },
    ]);
    expect(state.reloadPending?.seq).toBe(1);
  });

  it('refuses a damaged diff, naming what is wrong, and changes nothing: resume applies to the policy only what the fold took', () => {
    const before = fold([start]);
    const damaged: Array<[unknown, string]> = [
      ['nonsense', 'data.diff is the text "nonsense"; it holds the list of changes the reload found'],
      [[null], 'data.diff[0] is null; it holds one change: path, effect, from, to'],
      [[{ path: 'hooks', to: [] }], 'data.diff[0].effect is missing; it holds one of applied, awaiting_key, declined, needs_new_run, goal_only'],
      [[{ effect: 'applied' }], 'data.diff[0].path is missing; it holds the path of the setting changed: a text'],
      [[{ path: 'budget.limits.turns', effect: 'applied' }], 'data.diff[0].to is missing; it holds the new limit of turns (null: none): a number, 0 or more'],
      [[{ path: 'budget.limits.tokens', to: '9', effect: 'applied' }], 'data.diff[0].to is the text "9"; it holds the new limit of tokens (null: none): a number, 0 or more'],
      [[{ path: 'hooks', to: [], effect: 'declined' }, { path: 'checkpoint.every_iterations', to: -5, effect: 'applied' }], 'data.diff[1].to is the number -5; it holds the new checkpoint interval: a whole number of iterations, 1 or more'],
    ];
    for (const [diff, message] of damaged) {
      expect(() => fold([reloaded(1, { file, trigger: 'watch', diff })], before), JSON.stringify(diff)).toThrow(message);
    }
    // A limit removed is `to: null`: no limit.
    expect(fold([reloaded(1, { file, trigger: 'command', diff: [{ path: 'budget.limits.turns', from: 5, to: null, effect: 'applied' }] })], before).limits.turns).toBeNull();
  });

  it('a refused file leaves what waits for a key; an answer to another reload changes nothing', () => {
    const held = fold([start, reloaded(1, { file, trigger: 'command', diff: [{ path: 'hooks', from: [], to: ['trace-writer'], effect: 'awaiting_key' }] })]);
    expect(held.reloadPending?.seq).toBe(1);
    const refused = fold([reloaded(2, { file, trigger: 'watch', diff: [], errors: ['bad'] })], held);
    expect(refused.reloadPending?.seq).toBe(1);
    const stray = fold([reloaded(3, { file, trigger: 'key', answers: 9, diff: [] })], refused);
    expect(stray.reloadPending?.seq).toBe(1);
    const answered = fold([reloaded(4, { file, trigger: 'key', answers: 1, diff: [{ path: 'hooks', to: ['trace-writer'], effect: 'declined' }] })], stray);
    expect(answered.reloadPending).toBeNull();
    expect(answered.policyChanges).toEqual([]);
  });
});
