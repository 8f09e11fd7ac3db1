// The resume screen shows the wall clock a crashed run used up to its last event: the
// hours between the crash and the resume are not time the run spent (issue: crash
// downtime counted as wall clock used).
import { expect, test } from 'vitest';

import React from 'react';
import { render } from 'ink-testing-library';
import type { LoopEvent } from '../../src/engine/index.js';
import { BudgetPanel } from '../../src/ui/BudgetPanel.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER, STAGNANT, STAGNANT_POLICY } from '../support/ui-helpers.js';

test('a log cut mid-run, behind the resume gate: the wall clock used is the time up to its last event', async () => {
  // The run happened three hours ago, 250 ms between events.
  let now = Date.now() - 3 * 3600_000;
  const { events } = await runHeadless(STAGNANT, STAGNANT_POLICY, () => (now += 250));
  const cut: LoopEvent[] = events.slice(0, events.findIndex((e) => e.type === 'checkpoint.recorded') + 1);
  const store = createConsoleStore(cut);
  store.getState().setGate({ kind: 'resume', warnings: [] });
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={store} controller={READ_ONLY_CONTROLLER}>
      <BudgetPanel width={100} />
    </ConsoleProvider>,
  );
  const frame = lastFrame() ?? '';
  unmount();
  // Under a minute the gauge shows tenths, cut down (as every budget amount of the console).
  const used = Math.floor((cut.at(-1)!.at - cut[0]!.at) / 100) / 10;
  expect(frame).toContain(`wall clock 0%`);
  expect(frame).toContain(` ${used}s/30m `);
});
