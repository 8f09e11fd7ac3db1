// Before the run is prepared, the console's header shows what the launcher knew (the
// outline's goal and run id: the store's `preparing` seed); the folded session.start
// replaces it and the seed is cleared.
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

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('header before session.start', () => {
  test('shows the seeded goal and run id (sanitized) until the fold has session.start, which replaces them', async () => {
    const store = createConsoleStore([], { preparing: { objective: 'Seeded \u001b[2Jgoal', run: '20261201-000000-abcd' } });
    const { lastFrame, unmount } = render(
      <ConsoleProvider store={store} controller={READ_ONLY_CONTROLLER}>
        <Header width={100} />
      </ConsoleProvider>,
    );
    expect(lastFrame()).toBe(`loopdeck Seeded ^[[2Jgoal${' '.repeat(51)}run 20261201-000000-abcd\n- · IDLE · iteration 0 · -`);
    store.getState().apply(events.slice(0, 1));
    await tick();
    expect(lastFrame()!.split('\n')[0]).toMatch(/^loopdeck Make the greeting friendlier +run ui-test$/);
    expect(store.getState().preparing).toBeNull();
    unmount();
  });

  test.each([
    // 60 cells: half is 30, and ` run <id>` needs 40.
    ['a short goal: the run id is whole, past half the row', 'Fix it', /^loopdeck Fix it +run 20261203-011718-e5f0a1b2c3d4e5f6a7b8c9$/],
    ['a long goal: the goal gives way, the run id keeps half the row', 'Make every failing test in the parser suite pass', /^loopdeck Make every failing t… +run 20261203-011718-e5f0a1b2…$/],
  ])('%s', (_, objective, row) => {
    const store = createConsoleStore([], { preparing: { objective, run: '20261203-011718-e5f0a1b2c3d4e5f6a7b8c9' } });
    const { lastFrame, unmount } = render(
      <ConsoleProvider store={store} controller={READ_ONLY_CONTROLLER}>
        <Header width={60} />
      </ConsoleProvider>,
    );
    expect(lastFrame()!.split('\n')[0]).toMatch(row);
    unmount();
  });

  test('without a seed: "(not started)" and no run id, as before', () => {
    const { lastFrame, unmount } = render(
      <ConsoleProvider store={createConsoleStore()} controller={READ_ONLY_CONTROLLER}>
        <Header width={100} />
      </ConsoleProvider>,
    );
    expect(lastFrame()!.split('\n')[0]).toMatch(/^loopdeck \(not started\) +run -$/);
    unmount();
  });
});
