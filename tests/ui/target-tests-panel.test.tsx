// The checkpoint panel lists which target tests flipped each way (docs/design.md,
// "Checkpoints and stagnation"). Whole frames, from a store folded from a real run whose
// observer reads the TAP report the scripted agent writes.
import { expect, test } from 'vitest';

import React from 'react';
import { render } from 'ink-testing-library';
import { stringify } from 'yaml';
import type { LoopEvent } from '../../src/engine/index.js';
import { CheckpointPanel } from '../../src/ui/CheckpointPanel.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';

const BASELINE = ['TAP version 13', 'not ok 1 - parses dates', 'ok 2 - formats dates', 'not ok 3 - rounds totals', 'ok 4 - adds totals', '1..4', '# pass 2', '# fail 2', ''].join('\n');
/** parses dates fixed, formats dates broken, rounds totals skipped, one test added. */
const LATER = [
  'TAP version 13',
  'ok 1 - parses dates',
  'not ok 2 - formats dates',
  'ok 3 - adds totals',
  'ok 4 - trivial',
  'ok 5 - rounds totals # SKIP',
  '1..5',
  '# pass 3',
  '# fail 1',
  '# skipped 1',
  '',
].join('\n');

const write = (id: string, content: string) => ({ tool_calls: [{ id, name: 'write_file', args: { path: 'report.tap', content } }] });

function frame(events: LoopEvent[], upTo: number): string {
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(events.slice(0, upTo))} controller={READ_ONLY_CONTROLLER}>
      <CheckpointPanel height={12} width={100} />
    </ConsoleProvider>,
  );
  const text = lastFrame() ?? '';
  unmount();
  return text;
}

test('the checkpoint panel names the target tests fixed, broken and lost, and the added tests it does not count', async () => {
  const transcript = stringify({ turns: [write('w1', BASELINE), write('w2', LATER), { final: 'done' }] });
  const { events } = await runHeadless(transcript, {
    every: 1,
    threshold: 3,
    allow: ['write_file'],
    observe: [{ name: 'tests', command: 'cat report.tap' }],
    signals: [
      { signal: 'observed.tests.failing', direction: 'decrease' },
      { signal: 'observed.tests.passing', direction: 'increase' },
    ],
  });
  // The baseline at the run start measured nothing (report.tap is written in turn 1): the set is frozen at turn 1.
  const recorded = events.flatMap((e, i) => (e.type === 'checkpoint.recorded' && !e.data.checkpoint.baseline ? [i + 1] : []));
  expect(frame(events, recorded[0]!)).toMatchInlineSnapshot(`
    "#2/2 · iteration 1 · first measured · BASELINE · counter 0/3 · [ earlier
    why baseline rule: the first measured checkpoint: the checkpoint before it measured nothing, so no
    measured value came before to compare with (observed.tests.failing first measured at 2, observed.te…
    observed (measured) observed_progress null        reported (claims) vs #1 claimed_progress false
    tests.failing — → 2 want ↓ baseline               eliminated no change
    tests.passing — → 2 want ↑ baseline               remaining  no change
    tests targets frozen here: 4 tests, 2 failing
    evidence none claimed



    "
  `);
  expect(frame(events, recorded[1]!)).toMatchInlineSnapshot(`
    "#3/3 · iteration 2 · NO_OBSERVED_PROGRESS · counter 1/3 · [ earlier
    why no observed progress: observed.tests.failing stayed at 2 but a target test broke or was lost (a
    regression), observed.tests.passing stayed at 2; counter 1/3
    observed (measured) observed_progress false       reported (claims) vs #1–#2 claimed_progress false
    tests.failing 2 → 2 want ↓ REGRESSED              eliminated no change
    tests.passing 2 → 2 want ↑ no change              remaining  no change
    tests targets 2 passing of 4 (frozen #2)
      fixed parses dates
      BROKEN formats dates
      LOST rounds totals (failing, now skipped)
      not counted (1 outside the set): trivial
    evidence none claimed"
  `);
});
