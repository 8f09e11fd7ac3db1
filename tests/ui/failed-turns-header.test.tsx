// A failed agent turn (here the script runs out) is spent for budget.max_iterations: the
// header's iteration count is the one the turns gauge and the budget use, and it says
// how many of them failed.
import { test, expect } from 'vitest';

import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { renderStore } from '../support/ui-helpers.js';

test('after a failed turn the header counts it as the turns gauge does: iteration 3/50 (1 failed), gauge 3/50', async () => {
  let now = Date.UTC(2026, 0, 1);
  const { events } = await runHeadless(
    `
turns:
  - thought: One.
  - thought: Two.
`,
    { verify: 'node -e "process.exit(1)"', maxTurns: 50 },
    () => (now += 250),
  );
  const store = createConsoleStore(events);
  expect(store.getState().session.failedTurns).toBe(1);
  const c = await renderStore(store, { columns: 100, rows: 30 });
  const rows = c.frame().split('\n');
  expect(rows.slice(0, 5)).toEqual([
    'loopdeck Make the greeting friendlier                                                    run ui-test',
    'react · DONE (failed) · iteration 3/50 (1 failed) · 6s',
    'IDLE › PLANNING › EXECUTING › AWAITING_TOOL › REFLECTING ›  DONE   ← REFLECTING #20',
    'turns 6%            tool calls 0%       wall clock 0%       tokens 0%           cost 0%',
    '█░░░░░░░░░░░░░ 3/50 ░░░░░░░░░░░░░░ 0/20 ░░░░░░░░░░░░ 6s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00',
  ]);
});
