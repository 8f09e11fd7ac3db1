// Reported lists are what the agent said since the last checkpoint, not a state: a claim the
// agent did not repeat is not a removal, and the panel shows only what is new (and how many
// items were said again). Whole frames, ink-testing-library, over the events of a real run
// whose checkpoints carry the claims below.
import { describe, test, expect, beforeAll } from 'vitest';

import React from 'react';
import { render } from 'ink-testing-library';
import type { LoopEvent } from '../../src/engine/index.js';
import type { ReportedClaims } from '../../src/engine/types.js';
import { CheckpointPanel } from '../../src/ui/CheckpointPanel.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';

const TWO_STEPS = `
turns:
  - tool_calls:
      - { id: w1, name: write_file, args: { path: tap.txt, content: "# pass 4\\n# fail 3\\n" } }
  - tool_calls:
      - { id: w2, name: write_file, args: { path: tap.txt, content: "# pass 5\\n# fail 2\\n" } }
  - final: Fewer failures.
`;

/** What the agent said at each checkpoint: the second report repeats one item and drops two. */
const REPORTS: ReportedClaims[] = [
  {
    new_evidence: [{ claim: 'the DTO is valid', evidence_ref: 'rejects empty payloads' }],
    eliminated_hypotheses: ['business validation'],
    remaining_hypotheses: ['http mapping', 'serializer'],
  },
  {
    new_evidence: [],
    eliminated_hypotheses: ['http mapping'],
    remaining_hypotheses: ['serializer'],
  },
];

let events: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  const run = await runHeadless(
    TWO_STEPS,
    {
      every: 1,
      threshold: 3,
      // 3 failing, 4 passing at the start, before the agent writes tap.txt
      observe: [{ name: 'tests', command: "cat tap.txt 2>/dev/null || printf '# pass 4\\n# fail 3\\n'" }],
      signals: [
        { signal: 'observed.tests.failing', direction: 'decrease' },
        { signal: 'observed.tests.passing', direction: 'increase' },
      ],
    },
    () => (now += 250),
  );
  let n = 0;
  events = run.events.map((e) => {
    // The baseline at the run start comes before any turn: no claims there.
    if (e.type !== 'checkpoint.recorded' || e.data.checkpoint.baseline) return e;
    const reported = REPORTS[Math.min(n++, REPORTS.length - 1)]!;
    return { ...e, data: { checkpoint: { ...e.data.checkpoint, reported } } } as LoopEvent;
  });
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

describe('the reported side of the checkpoint diff', () => {
  test('a claim the agent did not repeat is not shown as removed; repeated items are counted, new ones marked', () => {
    const second = events.findIndex((e) => e.type === 'checkpoint.recorded' && e.data.checkpoint.iteration === 2);
    expect(second).toBeGreaterThan(0);
    const frame = frameOf(second + 1);
    expect(frame).toMatchInlineSnapshot(`
      "#3/3 · iteration 2 · PROGRESS_OBSERVED · counter 0/3 · [ earlier
      why observed progress rule: observed.tests.failing 3 → 2 (decrease wanted), observed.tests.passing 4
      → 5 (increase wanted) moved the declared way; counter 0/3 (reset)
      observed (measured) observed_progress true        reported (claims) vs #1–#2 claimed_progress false
      tests.failing 3 → 2 want ↓ moved as wanted        eliminated +http mapping
      tests.passing 4 → 5 want ↑ moved as wanted        remaining  no change (1 said again)
      evidence none claimed"
    `);
    expect(frame).not.toContain('−');
  });
});
