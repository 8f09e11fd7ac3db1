// Panels on their own, rendered with ink-testing-library (its terminal is 100 columns,
// with no rows: the panels here take their size as props). Whole frames, from a store
// folded from a real run that stagnates.
import { describe, test, expect, beforeAll } from 'vitest';

import React, { type ReactNode } from 'react';
import { render } from 'ink-testing-library';
import type { LoopEvent } from '../../src/engine/index.js';
import { BudgetPanel } from '../../src/ui/BudgetPanel.js';
import { CheckpointPanel } from '../../src/ui/CheckpointPanel.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { Header } from '../../src/ui/Header.js';
import { StateStrip } from '../../src/ui/StateStrip.js';
import { Timeline } from '../../src/ui/Timeline.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER, STAGNANT, STAGNANT_POLICY } from '../support/ui-helpers.js';

let events: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  events = (await runHeadless(STAGNANT, STAGNANT_POLICY, () => (now += 250))).events;
});

/** The frame of `node` over a store holding the run's events up to `upTo` (a type; `null`: none). */
function frameOf(node: ReactNode, upTo?: LoopEvent['type'] | null): string {
  const end = upTo === null ? 0 : upTo ? events.findLastIndex((e) => e.type === upTo) + 1 : events.length;
  const controller = READ_ONLY_CONTROLLER;
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(events.slice(0, end))} controller={controller}>
      {node}
    </ConsoleProvider>,
  );
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

describe('panels, whole frames', () => {
  test('header and state strip: objective, pattern, state, iteration, elapsed, run id; the current state marked', () => {
    expect(frameOf(<Header width={100} />)).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      react · DONE (goal_met) · iteration 4/20 · 11s"
    `);
    expect(frameOf(<StateStrip width={100} />)).toMatchInlineSnapshot(`"IDLE › PLANNING › EXECUTING › AWAITING_TOOL › REFLECTING ›  DONE   ← REFLECTING #36"`);
  });

  test('budget gauges: all five dimensions, used/limit and percent', () => {
    expect(frameOf(<BudgetPanel width={100} />)).toMatchInlineSnapshot(`
      "turns 20%           tool calls 0%       wall clock 0%       tokens 0%           cost 0%
      ███░░░░░░░░░░░ 4/20 ░░░░░░░░░░░░░░ 0/20 ░░░░░░░░░░░ 11s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00"
    `);
  });

  test('checkpoint diff: observed against reported, with the counter and the stagnation verdict', () => {
    expect(frameOf(<CheckpointPanel height={8} width={100} />, 'stagnation.detected')).toMatchInlineSnapshot(`
      "#4/4 · iteration 3 · NO_OBSERVED_PROGRESS + STAGNATION_DETECTED · counter 3/3 · [ earlier
      why no observed progress: observed.tests.failing stayed at 1, observed.tests.passing stayed at 1;
      counter 3/3 reached the threshold: STAGNATION_DETECTED; claims never reset the counter
      observed (measured) observed_progress false       reported (claims) vs #1–#3 claimed_progress true
      tests.failing 1 → 1 want ↓ no change              eliminated no change
      tests.passing 1 → 1 want ↑ no change              remaining  no change
      evidence 1 claim, 1 new (not claimed at an earlier checkpoint)
       [not found] “greets by name” the greeting says hi"
    `);
  });

  test('timeline: one row per event, alerts marked in the gutter', () => {
    expect(frameOf(<Timeline height={8} width={100} />, 'stagnation.detected')).toMatchInlineSnapshot(`
      "── Timeline · filter activity (f) · 14 events · following (end)
         16 model.call          turn 2: Still looking. (0+0 tok)
         17 step.end            step 2 ok: Still looking.
         20 checkpoint.recorded checkpoint #3 (turn 2): NO_OBSERVED_PROGRESS, counter 2/3
         23 model.call          turn 3: Checking the greeting. (0+0 tok)
         24 step.end            step 3 ok: Checking the greeting.
      !  27 checkpoint.recorded checkpoint #4 (turn 3): NO_OBSERVED_PROGRESS + STAGNATION_DETECTED, count…
      !  28 stagnation.detected STAGNATION_DETECTED 3/3 → alert"
    `);
  });

  test('before the run starts (while it is prepared): no made-up limits or checkpoint interval', () => {
    expect(frameOf(<BudgetPanel width={100} />, null)).toMatchInlineSnapshot(`
      "budget: turns, tool calls, wall clock, tokens, cost, shown once the run starts
      "
    `);
    expect(frameOf(<CheckpointPanel height={2} width={100} />, null)).toMatchInlineSnapshot(`
      "No checkpoint yet.
      "
    `);
  });

  test('a session that takes no checkpoints (checkpoint_every 0: a watch that observes nothing, an import) says so, not that one is to come', () => {
    const start = {
      seq: 0,
      at: 0,
      session: 'w',
      type: 'session.start',
      data: { schemaVersion: 1, goal: { objective: 'watching s.jsonl', success_criteria: [], constraints: [], status: 'active', notes: [], revision: 0 }, pattern: 'react', pattern_reason: '', budget: { turns: null, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, workspace: '(not given)', checkpoint_every: 0, stagnation_threshold: 0 },
    } as LoopEvent;
    const { lastFrame, unmount } = render(
      <ConsoleProvider store={createConsoleStore([start])} controller={READ_ONLY_CONTROLLER}>
        <CheckpointPanel height={2} width={100} />
      </ConsoleProvider>,
    );
    expect(lastFrame()).toBe('No checkpoints: nothing is measured in this session.\n');
    unmount();
  });
});
