// `q` held down: its first press closes help; the terminal's first repeat comes about half a
// second later and looks like a press, then repeats every ~33 ms. None of it asks to quit.
// A `q` pressed again on purpose still does, once it did not repeat.
import { describe, expect, test } from 'vitest';
import { open, WAITING } from '../support/ui-helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('q held down after it closed help', () => {
  test('opens no quit confirmation; a single q after it is released asks to quit', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    rig.pressNow('?');
    await rig.waitFor(() => rig.store.getState().overlay === 'help', '? to open help');
    rig.pressNow('q');
    await rig.waitFor(() => rig.store.getState().overlay === null, 'q to close help');
    // The auto-repeat: a first repeat after the repeat delay, then one every 33 ms.
    await sleep(500);
    for (let i = 0; i < 12; i++) {
      rig.pressNow('q');
      await sleep(33);
    }
    await sleep(800);
    expect(rig.store.getState().overlay).toBe(null);
    expect(rig.frame()).not.toContain('Quit while the run is live?');
    // Released; a press after a pause asks to quit.
    await sleep(1500);
    rig.pressNow('q');
    await rig.waitFor(() => rig.store.getState().overlay === 'quit', 'a single q to ask to quit');
  }, 20_000);
});
