// A console over a session loopdeck does not run quits at once: quitting stops nothing.
import { expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { isLive } from '../../src/ui/reducers/dashboard.js';
import { createConsoleStore } from '../../src/ui/store.js';

const started: LoopEvent[] = [
  { seq: 0, at: 0, session: 's', type: 'session.start', data: { schemaVersion: 1, goal: { objective: 'x', success_criteria: [], constraints: [], status: 'active', notes: [], revision: 0 }, pattern: 'react', pattern_reason: '', budget: { turns: null, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, workspace: '.', checkpoint_every: 3, stagnation_threshold: 3 } },
  { seq: 1, at: 0, session: 's', type: 'state.transition', data: { from: 'IDLE', to: 'PLANNING' } },
] as LoopEvent[];

it('a running session is live in a run console and not in a following one', () => {
  expect(isLive(createConsoleStore(started).getState())).toBe(true);
  expect(isLive(createConsoleStore(started, { following: true }).getState())).toBe(false);
});
