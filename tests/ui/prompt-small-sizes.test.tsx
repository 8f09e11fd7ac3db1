// The approval prompt, the deny note, the arguments view and the quit confirmation in small
// terminals: every key whole (short labels where the full ones do not fit), the command the
// quit confirmation names shown whole, the footer's hints whole or left out with `…`, never
// cut in a word. Whole frames of the real console, over ranges of sizes.
import { describe, test, expect } from 'vitest';

import { footerLead } from '../../src/ui/CommandBar.js';
import { helpLines } from '../../src/ui/HelpOverlay.js';
import { fitKeyLine, footerHints, type FooterView } from '../../src/ui/keymap.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless } from '../support/console-rig.js';
import { fits, normalize, open, renderStore, STAGNANT, STAGNANT_POLICY } from '../support/ui-helpers.js';

const NODE_TEST = `
turns:
  - thought: Run the tests.
    tool_calls:
      - { id: t1, name: shell, args: { command: "node --test" } }
  - final: Done.
`;

/** A call whose arguments take 55 rows at 76 columns (and more when narrower). */
const LONG_ARGS = `
turns:
  - thought: Write it.
    tool_calls:
      - { id: t1, name: shell, args: { command: ${JSON.stringify(Array.from({ length: 55 }, (_, i) => `echo line-${String(i + 1).padStart(2, '0')}`).join('\n'))} } }
  - final: Done.
`;

const rowsOf = (frame: string) => normalize(frame).split('\n').map((row) => row.trimEnd());

/** Opens a console at its first approval prompt, armed (the title may have given its row up). */
async function atPrompt(transcript: string, columns: number, rows: number) {
  const rig = await open({ transcript, columns, rows });
  await rig.waitFor(() => rig.store.getState().session.pending?.kind === 'tool', 'the approval prompt');
  await rig.waitForArmed();
  return rig;
}

const FULL: Record<string, string> = { y: 'approve once', a: 'always allow', n: 'deny', d: 'deny with note', v: 'all args' };
const BRIEF: Record<string, string> = { y: 'once', a: 'always', n: 'deny', d: 'note', v: 'args' };

describe('the approval prompt lays its keys out first, at every small size', () => {
  test.each([
    [20, 5, [' [y] once [a] always', ' [n] deny [d] note', ' [v] args', '… [?] help [q] quit']],
    [25, 5, ['  [y] once  [a] always', '  [n] deny  [d] note', '  [v] args', '…  [?] help  [q] quit']],
    [30, 5, [' $ node --test', ' [y] once [a] always [n] deny', ' [d] note [v] args', '…  [?] help  [q] quit']],
  ] as const)('%i×%i: every key whole, by its brief label; the title and the command give their rows up first', async (columns, rows, expected) => {
    const rig = await atPrompt(NODE_TEST, columns, rows);
    expect(rowsOf(rig.frame())).toEqual(expected);
  });

  const sizes = [20, 22, 25, 28, 30, 34, 40, 50, 60].flatMap((columns) => [5, 6, 7, 8, 10].map((rows) => [columns, rows] as const));
  test.each(sizes)('%i×%i: the keys y a n d v all show whole, the footer keeps the last row, the frame fits', async (columns, rows) => {
    const rig = await atPrompt(NODE_TEST, columns, rows);
    const frame = rowsOf(rig.frame());
    const shown = frame.join('\n');
    expect(fits(rig.frame(), columns, rows).ok, shown).toBe(true);
    expect(frame.at(-1), shown).toMatch(/\[\?\] help {1,2}\[q\] quit$/);
    // The prompt's rows are indented (or boxed); the top and the footer are not.
    const keyRows = frame.slice(0, -1).map((row) => row.replace(/^│ (.*?) *│$/, '  $1')).filter((row) => /^ {1,2}\[/.test(row));
    const hints = keyRows.join(' ').trim().split(/ (?=\[)/).map((h) => h.trim());
    expect(hints.map((h) => h.slice(1, 2)), shown).toEqual(['y', 'a', 'n', 'd', 'v']);
    for (const hint of hints) {
      const key = hint.slice(1, 2);
      expect([`[${key}] ${FULL[key]}`, `[${key}] ${BRIEF[key]}`], shown).toContain(hint);
    }
    expect(keyRows.every((row) => !row.includes('…')), shown).toBe(true);
  });

  test.each([[20, 5], [30, 5], [40, 8]] as const)('%i×%i: the deny note keeps the bar row, its field and the footer fit', async (columns, rows) => {
    const rig = await atPrompt(NODE_TEST, columns, rows);
    await rig.press('d');
    await rig.waitFor(() => rig.store.getState().input === 'note', 'the note field');
    for (const ch of 'risky') await rig.press(ch);
    await rig.waitFor(() => rig.frame().includes('risky'), 'the note typed');
    const frame = rowsOf(rig.frame());
    expect(fits(rig.frame(), columns, rows).ok, frame.join('\n')).toBe(true);
    expect(frame.some((row) => /^ {2}note (to the agent )?› risky$/.test(row)), frame.join('\n')).toBe(true);
    expect(frame.at(-1), frame.join('\n')).toMatch(/^(…  \[enter\] deny  \[esc\] back|… \[enter\] deny( \[esc\] back)?|\[enter\] deny with this note {2}\[esc\/ctrl\+c\] back to the prompt)$/);
    await rig.press(KEY.escape);
  });
});

describe('the footer leaves a hint out whole, never cut in a word', () => {
  const views: Array<[string, FooterView]> = [
    ['the dashboard', { overlay: null, input: null, replaying: false, alert: true }],
    ['a replay', { overlay: null, input: null, replaying: true, alert: false }],
    ['the deny note', { overlay: null, input: 'note', replaying: false, alert: false }],
    ['the arguments view', { overlay: 'args', input: null, replaying: false, alert: false }],
    ['the quit confirmation', { overlay: 'quit', input: null, replaying: false, alert: false }],
    ['help', { overlay: 'help', input: null, replaying: false, alert: false }],
  ];
  test.each(views)('%s: at every width from 12 to 120, each hint shown is one of its forms, whole', (_, view) => {
    const { hints, kept, short } = footerHints(view);
    const forms = new Set([...hints, ...short]);
    for (let width = 12; width <= 120; width++) {
      const line = fitKeyLine('', hints, kept, width, short);
      expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      const parts = line.split(/ (?=\[|…)/).map((p) => p.trim()).filter((p) => p !== '' && p !== '…');
      for (const part of parts) expect(forms.has(part), `${width}: ${line}`).toBe(true);
      // Some hint was left out or shortened: `…` says so.
      if (parts.length < hints.length || parts.some((p) => !hints.includes(p))) expect(line, `${width}`).toMatch(/…/);
    }
  });

  test('the kept hints stay as long as a row holds them: help and quit at 20 columns, the way back in the arguments view at 14', () => {
    const dashboard = footerHints({ overlay: null, input: null, replaying: false, alert: false });
    expect(fitKeyLine('', dashboard.hints, dashboard.kept, 20, dashboard.short)).toBe('… [?] help [q] quit');
    const args = footerHints({ overlay: 'args', input: null, replaying: false, alert: false });
    expect(fitKeyLine('', args.hints, args.kept, 14, args.short)).toBe('…  [esc] back');
    const note = footerHints({ overlay: null, input: 'note', replaying: false, alert: false });
    expect(fitKeyLine('', note.hints, note.kept, 30, note.short)).toBe('…  [enter] deny  [esc] back');
    expect(fitKeyLine('', note.hints, note.kept, 40, note.short)).toBe('…  [enter] deny  [esc] back');
  });
});

describe("the footer's word on the run (finished, pausing, paused) is never cut in a word", () => {
  const dashboard = footerHints({ overlay: null, input: null, replaying: false, alert: false });
  const states: Array<[string, string[], RegExp]> = [
    ['pausing after one Ctrl+C', footerLead(null, 'pausing'), /^(Pausing|\^C)\b.*\bquits\. /],
    ['paused after one Ctrl+C', footerLead(null, 'paused'), /^(Paused|\^C)\b.*\bquits\. /],
    ['a finished run', footerLead('goal_met', null), /^(Run finished: |Finished: )?goal_met\. /],
    ['a run finished by an abort', footerLead('aborted', null), /^(Run finished: |Finished: )?aborted\. /],
  ];
  test.each(states)('%s: at every width from 12 to 120 one of its forms shows whole, then the hints that fit', (_, lead, shown) => {
    for (let width = 12; width <= 120; width++) {
      const line = fitKeyLine(lead, dashboard.hints, dashboard.kept, width, dashboard.short);
      expect(line.length, `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(`${line} `, `${width}: ${line}`).toMatch(shown);
      // The longest form that leaves room for help and quit is the one shown, and the last
      // form (the one that says least) only where no other fits the row.
      const form = lead.find((f) => line.startsWith(f))!;
      for (const longer of lead.slice(0, lead.indexOf(form))) {
        expect(longer.length + '… [?] help [q] quit'.length, `${width}: ${longer} would fit`).toBeGreaterThan(width);
      }
      if (form === lead.at(-1)) expect(lead.at(-2)!.length, `${width}: ${line}`).toBeGreaterThan(width);
    }
  });

  test('at 20 columns: the state in its short form, the keys after it where they fit', () => {
    expect(fitKeyLine(footerLead(null, 'pausing'), dashboard.hints, dashboard.kept, 20, dashboard.short)).toBe('Pausing; ^C quits. …');
    expect(fitKeyLine(footerLead(null, 'paused'), dashboard.hints, dashboard.kept, 20, dashboard.short)).toBe('Paused; ^C quits. …');
    expect(fitKeyLine(footerLead('goal_met', null), dashboard.hints, dashboard.kept, 20, dashboard.short)).toBe('Finished: goal_met. ');
    // Between 20 and 40 columns the state keeps its word before the hints get a row.
    expect(fitKeyLine(footerLead(null, 'pausing'), dashboard.hints, dashboard.kept, 30, dashboard.short)).toBe('Pausing; Ctrl+C again quits. …');
    expect(fitKeyLine(footerLead('goal_met', null), dashboard.hints, dashboard.kept, 33, dashboard.short)).toBe('Run finished: goal_met. …');
    expect(fitKeyLine(footerLead(null, 'pausing'), dashboard.hints, dashboard.kept, 80, dashboard.short)).toMatch(/^Pausing at the next safe point; Ctrl\+C again quits\. .*\[q\] quit$/);
  });
});

describe('the quit confirmation shows the resume command whole', () => {
  const resumeCommand = 'node dist/cli.js resume .loopdeck/runs/20261203-192940-t3x4';
  async function quitting(columns: number, rows: number) {
    let now = Date.UTC(2026, 0, 1);
    const { events } = await runHeadless(STAGNANT, STAGNANT_POLICY, () => (now += 250));
    const rig = await renderStore(createConsoleStore(events.slice(0, 12)), { columns, rows, resumeCommand });
    await rig.press('q');
    await rig.waitForFrame(/\[y[\]/]/);
    return rig;
  }

  test('30×8: the status and budget rows give their rows up for the command, its keys and the footer whole', async () => {
    const rig = await quitting(30, 8);
    expect(rowsOf(rig.frame())).toEqual([
      '  Quit the live run?',
      '  node dist/cli.js resume',
      '  .loopdeck/runs/20261203-19',
      '  2940-t3x4',
      '  [y/enter/ctrl+c] quit',
      '  [n/esc] stay',
      '…  [y] quit  [n] stay',
    ]);
  });

  const sizes = [24, 30, 36, 40, 50, 60].flatMap((columns) => [7, 8, 9, 10, 12].map((rows) => [columns, rows] as const));
  test.each(sizes)('%i×%i: the command whole, not cut in the middle; the keys and the footer whole', async (columns, rows) => {
    const rig = await quitting(columns, rows);
    const frame = rowsOf(rig.frame());
    const shown = frame.join('\n');
    expect(fits(rig.frame(), columns, rows).ok, shown).toBe(true);
    const box = frame.slice(frame.findIndex((row) => /Quit/.test(row)));
    expect(box.join('\n'), shown).not.toMatch(/ … /);
    expect(box.join('').replace(/[│╭╮╰╯─\s]+/g, ''), shown).toContain(resumeCommand.replace(/\s+/g, ''));
    expect(frame.at(-1), shown).toMatch(/quit {1,2}\[n(\/esc)?\] stay$/);
    expect(box.some((row) => /\[n(\/esc)?\] stay/.test(row)), shown).toBe(true);
  });
});

describe('the arguments view keeps at least three rows of arguments', () => {
  test.each([[80, 8], [40, 8], [30, 8], [60, 7], [100, 9]] as const)('%i×%i: three rows or more, no blank row above the footer; Home and End go to the first and the last row', async (columns, rows) => {
    const rig = await atPrompt(LONG_ARGS, columns, rows);
    await rig.press('v');
    await rig.waitFor(() => rig.store.getState().overlay === 'args', 'the arguments view');
    const frame = rowsOf(await rig.waitForFrame(/rows 1–\d+ of \d+/));
    const shown = frame.join('\n');
    expect(fits(rig.frame(), columns, rows).ok, shown).toBe(true);
    const [, last, total] = /rows 1–(\d+) of (\d+)/.exec(shown)!;
    expect(Number(last), shown).toBeGreaterThanOrEqual(3);
    expect(frame.filter((row) => /echo line-\d\d/.test(row)), shown).toHaveLength(Number(last));
    expect(frame.at(-2)!.trim(), shown).not.toBe('');
    expect(frame.at(-1), shown).toMatch(/back( to the prompt)?$/);
    await rig.press(KEY.end);
    await rig.waitForFrame(`rows ${Number(total) - Number(last) + 1}–${total} of ${total}`);
    expect(rig.frame()).toContain('echo line-55');
    await rig.press(KEY.home);
    await rig.waitForFrame(`rows 1–${last} of ${total}`);
    expect(rig.frame()).toContain('$ echo line-01');
    await rig.press(KEY.escape);
  });

  test('120×24: the footer lists Home and End with the other keys; help lists them', async () => {
    const rig = await atPrompt(LONG_ARGS, 120, 24);
    await rig.press('v');
    const frame = rowsOf(await rig.waitForFrame(/rows 1–\d+ of \d+/));
    expect(frame.at(-1)).toBe('[↑] up  [↓] down  [pgup] page up  [pgdn] page down  [home] first  [end] last  [esc/v] back to the prompt');
    expect(helpLines(120).map((line) => JSON.stringify(line)).join('\n')).toMatch(/home[\s\S]*the first row[\s\S]*end[\s\S]*the last row/);
  });
});

/** A write_file of 40 lines: what it writes to is its first row of arguments. */
const WRITE_40 = `
turns:
  - thought: Write it.
    tool_calls:
      - { id: w1, name: write_file, args: { path: src/new.js, content: ${JSON.stringify(Array.from({ length: 40 }, (_, i) => `line ${i + 1} of the new file`).join('\n') + '\n')} } }
  - final: Done.
`;

describe('a file write in few rows', () => {
  const sizes: Array<[number, number]> = [[80, 10], [100, 8], [40, 8], [60, 9], [120, 7], [30, 8]];
  test.each(sizes)('%i×%i: the path it writes to shows, with the end of the content', async (columns, rows) => {
    const rig = await atPrompt(WRITE_40, columns, rows);
    const frame = rig.frame();
    expect(fits(frame, columns, rows), frame).toMatchObject({ ok: true });
    expect(frame, frame).toContain(columns >= 40 ? 'path: src/new.js' : 'path: src/');
    expect(frame, frame).toMatch(/new file$|line 40/m); // the end of what it writes
  });
});
