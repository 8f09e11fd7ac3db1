// The checkpoint panel says which rule produced the latest verdict, in one line, from the
// recorded checkpoint: here a real run whose last checkpoint has one signal improving
// while the other regresses (failing/passing 3/4 → 2/3), and whose first is the baseline taken
// at the run start. Whole frames, ink-testing-library.
import { describe, test, expect, beforeAll } from 'vitest';

import React from 'react';
import { render } from 'ink-testing-library';
import type { LoopEvent } from '../../src/engine/index.js';
import { CheckpointPanel } from '../../src/ui/CheckpointPanel.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';

/** The agent writes the TAP summary the observer reads (3 failing/4 passing before it does): 3/4, then 2/3; then it claims. */
const MIXED = `
turns:
  - tool_calls:
      - { id: w1, name: write_file, args: { path: tap.txt, content: "# pass 4\\n# fail 3\\n" } }
  - tool_calls:
      - { id: w2, name: write_file, args: { path: tap.txt, content: "# pass 3\\n# fail 2\\n" } }
  - final: Fewer failures.
`;

let events: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  const run = await runHeadless(
    MIXED,
    {
      every: 1,
      threshold: 3,
      observe: [{ name: 'tests', command: "cat tap.txt 2>/dev/null || printf '# pass 4\\n# fail 3\\n'" }],
      signals: [
        { signal: 'observed.tests.failing', direction: 'decrease' },
        { signal: 'observed.tests.passing', direction: 'increase' },
      ],
    },
    () => (now += 250),
  );
  events = run.events;
});

function frameOf(upTo: number): string {
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(events.slice(0, upTo))} controller={READ_ONLY_CONTROLLER}>
      <CheckpointPanel height={7} width={100} />
    </ConsoleProvider>,
  );
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

describe('the checkpoint panel names the rule behind the verdict', () => {
  test('the latest checkpoint: a regression cancels progress, said in the why line', () => {
    expect(frameOf(events.length)).toMatchInlineSnapshot(`
      "#3/3 · iteration 2 · NO_OBSERVED_PROGRESS · counter 2/3 · [ earlier
      why mixed, a regression cancels progress: observed.tests.failing 3 → 2 (decrease wanted) moved the
      declared way but observed.tests.passing 4 → 3, the wrong way (increase wanted); counter 2/3
      observed (measured) observed_progress false       reported (claims) vs #1–#2 claimed_progress false
      tests.failing 3 → 2 want ↓ moved as wanted        eliminated no change
      tests.passing 4 → 3 want ↑ REGRESSED              remaining  no change
      evidence none claimed"
    `);
  });

  test('the baseline taken at the run start: nothing to compare', () => {
    const first = events.findIndex((e) => e.type === 'checkpoint.recorded');
    expect(frameOf(first + 1)).toMatchInlineSnapshot(`
      "#1/1 · baseline at the run start · BASELINE · counter 0/3
      why baseline rule: taken at the run start, before the first turn: what the next checkpoint is
      compared with (observed.tests.failing first measured at 3, observed.tests.passing first measured at…
      observed (measured) observed_progress null        reported (claims) claimed_progress false
      tests.failing — → 3 want ↓ baseline               eliminated no change
      tests.passing — → 4 want ↑ baseline               remaining  no change
      evidence none claimed"
    `);
  });
});
