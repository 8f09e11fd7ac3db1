// The body under an overlay (help, an opened event) stays mounted and holds still while
// covered; whatever arrived meanwhile shows the moment the overlay closes, in the timeline
// and in the panel, at every layout.
import { vi, test, expect } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless } from '../support/console-rig.js';
import { renderStore } from '../support/ui-helpers.js';

/** The frame of a console freshly mounted over `events`, at the same size. */
async function freshFrame(events: LoopEvent[], columns: number, rows: number): Promise<string> {
  const ui = await renderStore(createConsoleStore(events), { columns, rows });
  const frame = await ui.waitForFrame('Timeline');
  ui.unmount();
  return frame;
}

test('events that arrive while help or an event is open show in the timeline and the panels once it closes', async () => {
  const turns = Array.from({ length: 30 }, (_, i) => `  - thought: step number ${i + 1} done`).join('\n');
  const { events } = await runHeadless(`turns:\n${turns}\n  - final: Done.\n`, { maxTurns: 40 });
  const last = events.at(-1)!;
  // The header's clock counts from the run's start to now: frames compared across a second
  // boundary would differ by it, so the date stands still (timers still run).
  vi.useFakeTimers({ toFake: ['Date'], now: new Date(last.at + 1000) });
  try {
    for (const [columns, rows] of [
      [120, 40],
      [70, 24],
    ] as const) {
      const store = createConsoleStore(events.slice(0, 20));
      const ui = await renderStore(store, { columns, rows });
      await ui.waitForFrame('Timeline');
      // Help open: more of the run arrives behind it; closed, the screen is the one a
      // console mounted over the same events shows.
      await ui.press('?');
      await ui.waitForFrame('Help');
      store.getState().apply(events.slice(20, 90));
      await ui.press(KEY.escape);
      const afterHelp = await ui.waitForFrame(new RegExp(`\\b${events[89]!.seq}\\b`));
      expect(afterHelp).toBe(await freshFrame(events.slice(0, 90), columns, rows));
      // An event open: the rest arrives behind it; closed and following the end again, the same.
      await ui.press(KEY.up);
      await ui.press(KEY.enter);
      await ui.waitForFrame(/Event|seq/);
      store.getState().apply(events.slice(90));
      await ui.press(KEY.escape);
      await ui.press(KEY.end);
      const end = await ui.waitForFrame(new RegExp(`\\b${last.seq}\\b`));
      expect(end).toBe(await freshFrame(events, columns, rows));
      ui.unmount();
    }
  } finally {
    vi.useRealTimers();
  }
});
