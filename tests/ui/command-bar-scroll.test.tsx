// The command bar with a line wider than itself, whole frames with the caret's cell (drawn
// inverse) marked: the caret is on the character it stands before, never under a `…`, and
// the window scrolls only when the caret passes one of its edges (src/ui/line-viewport.ts).
import { vi, describe, test, expect } from 'vitest';

vi.hoisted(() => {
  // Colours on, so the inverse caret cell is in the frames written.
  delete process.env.NO_COLOR;
  process.env.FORCE_COLOR = '1';
});

import { KEY, type ConsoleRig } from '../support/console-rig.js';
import { normalize, open, WAITING } from '../support/ui-helpers.js';

async function openBar(rig: ConsoleRig): Promise<void> {
  await rig.press('/');
  await rig.waitFor(() => rig.bar() === '/', 'the command bar to open with "/"');
}

describe('a line wider than the bar', () => {
  /** The frame with the caret's cell marked `[x]` (the inverse cell) and colours stripped. */
  function marked(rig: ConsoleRig): string {
    return normalize(rig.terminal.lastFrame().replace(/\u001b\[7m(.*?)\u001b\[27m/g, '[$1]').replace(/\u001b\[[0-9;]*m/g, ''));
  }
  const barRow = (rig: ConsoleRig) => marked(rig).split('\n').find((l) => l.startsWith('› '));

  test('80×24: at End, after one Left and after two, the caret is on the letter it is before; the view scrolls only at an edge', async () => {
    const rig = await open({ transcript: WAITING, columns: 80, rows: 24 });
    await rig.waitForFrame('Approve tool call shell (t1)');
    // The prompt's keys armed first: the frame below is the same however fast this runs.
    await rig.waitForArmed();
    await openBar(rig);
    const letters = 'abcdefghij'.repeat(10);
    await rig.press(`\u001b[200~goal add-constraint ${letters}\u001b[201~`);
    await rig.waitFor(() => rig.store.getState().line.text === `/goal add-constraint ${letters}`, 'the pasted line');
    // End: `…`, the last 76 letters and the caret's blank cell: 80 cells.
    await rig.waitFor(() => barRow(rig) === `› …${letters.slice(-76)}[ ]`, 'the end of the line');
    await rig.press(KEY.left);
    await rig.waitFor(() => barRow(rig)?.endsWith('[j]') === true, 'one Left');
    expect(barRow(rig)).toBe(`› …${letters.slice(-76, -1)}[j]`);
    await rig.press(KEY.left);
    await rig.waitFor(() => barRow(rig)?.endsWith('[i]j') === true, 'two Lefts');
    // The whole frame: the same window, the caret on the "i" before the last letter, no `…` over it.
    expect(marked(rig)).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING › [ AWAITING_TOOL ] › REFLECTING › DONE  ← EXECUTING …
      turns 5%        tool calls 5%   wall clock #%   tokens 0%       cost 0%
      █░░░░░░░░░ 1/20 █░░░░░░░░░ 1/20 ~~~~~~~~ #s/30m ░░░░░░░░ 0/100k ░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call shell (t1) · denied in ##m##s unless answered              │
      │ why  no allow rule matches                                                   │
      │ $ ls                                                                         │
      │ a stores shell-exact: ls                                                     │
      │ A stores shell-read-only: ls  = ls with any arguments                        │
      │ [y] approve once  [a] always allow  [A] wider rule  [n] deny                 │
      │ [d] deny with note  [v] all args                                             │
      ╰──────────────────────────────────────────────────────────────────────────────╯
      ── Timeline · filter activity (f) · 7 events · following (end)
          3 plan.draft          plan drafted: 1 step
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Look before changing anything. (0+0 tok)
          8 tool.call           tool call shell {"command":"ls"}
          9 step.end            step 1 awaiting_tool

      › …efghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefgh[i]j"
    `);
    // Left to the left edge (just after the `…`): still no scrolling; one more scrolls by one letter.
    for (let i = 0; i < 74; i++) await rig.press(KEY.left);
    await rig.waitFor(() => barRow(rig) === `› …[${letters.at(-76)}]${letters.slice(-75)}`, 'the left edge');
    await rig.press(KEY.left);
    await rig.waitFor(() => barRow(rig) === `› …[${letters.at(-77)}]${letters.slice(-76, -1)}…`, 'one step of scrolling');
  });
});
