// The baseline checkpoint in the console (docs/design.md, "The baseline"): the checkpoint
// panel shows the first interval's diff against the baseline taken when the run started
// (progress made in the first interval shows as progress), and `[` browses back to the
// baseline itself. Whole panel rows, over the events of a real run whose observer reads the
// workspace: 3 failing at the start, 1 after the agent's first turn.
import { describe, test, expect, beforeAll } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { normalize, renderStore } from '../support/ui-helpers.js';

/** Turn 1 fixes two tests (the observer then reads tap.txt), turn 2 only looks, turn 3 claims. */
const FIRST_INTERVAL = `
turns:
  - thought: Fix two of the three.
    tool_calls:
      - { id: w1, name: write_file, args: { path: tap.txt, content: "# pass 6\\n# fail 1\\n" } }
    report:
      eliminated_hypotheses: [the name is wrong]
  - thought: Look at what is left.
    tool_calls:
      - { id: r1, name: read_file, args: { path: greet.js } }
  - final: Nearly there.
`;

let events: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  const run = await runHeadless(
    FIRST_INTERVAL,
    {
      every: 2,
      threshold: 2,
      onDetect: 'alert',
      // Before the agent writes tap.txt the suite counts 3 failing, 4 passing.
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

/** The checkpoint panel's rows of a frame: from its title to the timeline. */
function checkpointRows(frame: string): string[] {
  const lines = frame.split('\n');
  const start = lines.findIndex((l) => l.startsWith('──  Checkpoint'));
  const end = lines.findIndex((l) => l.startsWith('── Timeline'));
  return lines.slice(start + 1, end).filter((l) => l.trim() !== '');
}

describe('the baseline in the checkpoint panel', () => {
  test('the first interval checkpoint shows the progress made since the start; [ shows the baseline itself', async () => {
    const upTo = events.findIndex((e) => e.type === 'checkpoint.recorded' && e.data.checkpoint.iteration === 2);
    expect(upTo).toBeGreaterThan(0);
    const c = await renderStore(createConsoleStore(events.slice(0, upTo + 1)), { rows: 34 });
    await c.waitForFrame('#2/2 · iteration 2');
    expect(checkpointRows(c.frame())).toEqual([
      '#2/2 · iteration 2 · PROGRESS_OBSERVED · counter 0/2 · [ earlier',
      'why observed progress rule: observed.tests.failing 3 → 1 (decrease wanted), observed.tests.passing 4',
      '→ 6 (increase wanted) moved the declared way; counter 0/2 (reset)',
      'observed (measured) observed_progress true        reported (claims) vs #1 claimed_progress true',
      'tests.failing 3 → 1 want ↓ moved as wanted        eliminated +the name is wrong',
      'tests.passing 4 → 6 want ↑ moved as wanted        remaining  no change',
      'evidence none claimed',
    ]);
    await c.press('[');
    await c.waitForFrame('#1/2 · baseline at the run start');
    expect(checkpointRows(c.frame())).toEqual([
      '#1/2 · baseline at the run start · BASELINE · counter 0/2 · browsing: ] later',
      'why baseline rule: taken at the run start, before the first turn: what the next checkpoint is',
      'compared with (observed.tests.failing first measured at 3, observed.tests.passing first measured at…',
      'observed (measured) observed_progress null        reported (claims) claimed_progress false',
      'tests.failing — → 3 want ↓ baseline               eliminated no change',
      'tests.passing — → 4 want ↑ baseline               remaining  no change',
      'evidence none claimed',
    ]);
    // The whole frame at the first checkpoint: only the key that moves (] later) is offered.
    expect(normalize(c.frame())).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      react · REFLECTING · iteration 2/20 · T
      IDLE › PLANNING › EXECUTING › AWAITING_TOOL ›  REFLECTING  › DONE  ← AWAITING_TOOL #24
      turns 10%           tool calls 10%      wall clock #######% tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 2/20 █░░░░░░░░░░░░░ 2/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress unknown (not git)
      ──  Checkpoint  │ Goal │ Tool call │ Progress (tab)
      #1/2 · baseline at the run start · BASELINE · counter 0/2 · browsing: ] later
      why baseline rule: taken at the run start, before the first turn: what the next checkpoint is
      compared with (observed.tests.failing first measured at 3, observed.tests.passing first measured at…
      observed (measured) observed_progress null        reported (claims) claimed_progress false
      tests.failing — → 3 want ↓ baseline               eliminated no change
      tests.passing — → 4 want ↑ baseline               remaining  no change
      evidence none claimed



      ── Timeline · filter activity (f) · 15 events · following (end)
          4 plan.draft          plan drafted: 1 step
          5 plan.commit         plan committed (initial): 1 step
          8 model.call          turn 1: Fix two of the three. (0+0 tok)
          9 tool.call           tool call write_file {"path":"tap.txt","content":"# pass 6\\n# fail 1\\n"}
         10 step.end            step 1 awaiting_tool
         12 tool.decision       approved by operator
         13 tool.result         write_file ok (N ms): wrote 18 bytes to tap.txt
         18 model.call          turn 2: Look at what is left. (0+0 tok)
         19 tool.call           tool call read_file {"path":"greet.js"}
         20 step.end            step 2 awaiting_tool
         22 tool.decision       approved by operator
         23 tool.result         read_file ok (N ms): export const greet = (name) => \`hi \${name}\`;
         26 checkpoint.recorded checkpoint #2 (turn 2): PROGRESS_OBSERVED, counter 0/2

      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    // ] goes back to the latest.
    await c.press(']');
    await c.waitForFrame('#2/2 · iteration 2 · PROGRESS_OBSERVED');
  });
});
