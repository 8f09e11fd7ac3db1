// Help and an opened event in a small terminal, over a prompt that takes most of the rows:
// whatever height is left, each row says one thing (none drawn over another) and the frame fits.
import { describe, expect, test } from 'vitest';

import { KEY } from '../support/console-rig.js';
import { fits, normalize, openAtPrompt } from '../support/ui-helpers.js';

const COMPOUND = `
turns:
  - tool_calls:
      - { id: t1, name: shell, args: { command: "touch ran.txt && echo marked" } }
  - final: Done.
`;

/** Rows of the frame that hold two of the overlay's own rows run together. */
function mashed(frame: string): string[] {
  return frame.split('\n').filter((row) => /more \(↓\)\S|end of help\S|closes\S/.test(row.trimEnd()) || /\S.*── (Help|Event)/.test(row));
}

describe('overlays in a small terminal', () => {
  test.each([
    [40, 12],
    [60, 14],
    [50, 16],
  ])('%i×%i: help over a prompt fits, and no two of its rows run together', async (columns, rows) => {
    const rig = await openAtPrompt({ transcript: COMPOUND, columns, rows });
    await rig.press('?');
    await rig.waitFor(() => rig.store.getState().overlay === 'help', 'help to open');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const frame = normalize(rig.frame());
    expect(fits(rig.frame(), columns, rows).ok, frame).toBe(true);
    expect(mashed(frame), frame).toEqual([]);
    await rig.press(KEY.escape);
  });

  test.each([
    [40, 12],
    [60, 14],
  ])('%i×%i: an event opened over a prompt fits, and no two of its rows run together', async (columns, rows) => {
    const rig = await openAtPrompt({ transcript: COMPOUND, columns, rows });
    await rig.press(KEY.up);
    await rig.press(KEY.enter);
    await rig.waitFor(() => rig.store.getState().overlay === 'event', 'the event to open');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const frame = normalize(rig.frame());
    expect(fits(rig.frame(), columns, rows).ok, frame).toBe(true);
    expect(mashed(frame), frame).toEqual([]);
  });
});
