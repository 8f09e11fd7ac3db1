// The console header learns from session.start (through the folded store) whether the
// run's loop.yaml switched the built-in approval gates off, and says so loudly.
import { describe, test, expect, beforeAll } from 'vitest';

import React from 'react';
import { render } from 'ink-testing-library';
import type { LoopEvent } from '../../src/engine/index.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { Header } from '../../src/ui/Header.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER, STAGNANT, STAGNANT_POLICY } from '../support/ui-helpers.js';

let events: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  events = (await runHeadless(STAGNANT, STAGNANT_POLICY, () => (now += 250))).events;
});

/** The header over the run's log, with session.start's `builtin_gates` set to `gates` (`undefined`: an older log without it). */
function headerWith(gates: 'on' | 'off' | undefined, compact = false): string {
  const [start, ...rest] = events as [LoopEvent & { type: 'session.start' }, ...LoopEvent[]];
  const { builtin_gates: _, ...data } = start.data;
  const log = [{ ...start, data: gates === undefined ? data : { ...data, builtin_gates: gates } }, ...rest] as LoopEvent[];
  const controller = READ_ONLY_CONTROLLER;
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(log)} controller={controller}>
      <Header compact={compact} width={100} />
    </ConsoleProvider>,
  );
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

describe('header: built-in approval gates', () => {
  test('a run records builtin_gates in session.start', () => {
    expect(events[0]!.type === 'session.start' && events[0]!.data.builtin_gates).toBe('on');
  });

  test('off: the state row starts with APPROVAL GATES OFF, in both layouts', () => {
    expect(headerWith('off')).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      APPROVAL GATES OFF · react · DONE (goal_met) · iteration 4/20 · 11s"
    `);
    expect(headerWith('off', true)).toMatchInlineSnapshot(`"APPROVAL GATES OFF · DONE (goal_met) · it 4/20 · Make the greeting friendlier"`);
  });

  test('on, or a log written before the setting: no marker', () => {
    const plain = `loopdeck Make the greeting friendlier                                                    run ui-test
react · DONE (goal_met) · iteration 4/20 · 11s`;
    expect(headerWith('on')).toBe(plain);
    expect(headerWith(undefined)).toBe(plain);
  });
});
