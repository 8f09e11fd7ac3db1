// Invisible, filler and terminal-dependent characters from the agent, a tool and the goal,
// in every panel: each row of each view is measured by Ink (string-width) at the width a
// terminal draws it (glibc's wcwidth, as tmux 3.3a), fits the terminal, and holds nothing
// invisible: what the operator reads (and approves) is all there is. The command bar shows
// such characters escaped, keeps its caret on the cell it draws, and submits what was typed.
import { vi, describe, test, expect, beforeAll } from 'vitest';

vi.hoisted(() => {
  // Colours on, so the command bar's caret (an inverse cell) can be found in the frame.
  process.env.FORCE_COLOR = '1';
  delete process.env.NO_COLOR;
});

import { stripVTControlCharacters } from 'node:util';
import type { LoopEvent } from '../../src/engine/index.js';
import { BAR_PREFIX } from '../../src/ui/CommandBar.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { cellWidth, graphemes, screenForm } from '../../src/ui/text.js';
import { KEY, runHeadless, waitUntil } from '../support/console-rig.js';
import { terminalWidth } from '../support/terminal-width.js';
import { fits, renderStore } from '../support/ui-helpers.js';

/** One of each kind: fillers, default-ignorables, spacing clusters, emoji with a selector, keycaps, conjuncts, a skin tone on a letter. */
const KINDS = [
  'ㅤᅟᅠﾠ\u00ad\u17b4\u180e\u2061\ufeff', // fillers and other default-ignorables
  'กำນຳ', // Thai and Lao SARA AM
  'a\u200bb\u2060c\u200cd\u200de', // zero-width characters between letters
  '❤️✔️☺️✌️✏️', // text-default emoji with VS16
  '1️⃣#️⃣*️⃣', // keycaps
  'हिन्दी স্ত্র', // Indic conjuncts
  'a\u{1f3fb} \u{1f1e6}\u{1f1e6}', // a skin tone on a letter, two regional indicators that are no flag
].join(' ');
const HOSTILE = `${KINDS} ${KINDS}`;

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cn}\p{Cs}]/u;

let events: LoopEvent[];
beforeAll(async () => {
  const run = await runHeadless(
    `
turns:
  - thought: ${JSON.stringify(`Think ${HOSTILE}`)}
    tool_calls:
      - { id: t1, name: shell, args: { command: ${JSON.stringify(`echo invisible\u200b\u2060\u200b rm ${HOSTILE} && echo ${'ab\u200b'.repeat(40)} ${'x\u001b]52;c;SGVsbG8=\u0007'.repeat(12)}`)} } }
    report:
      new_evidence:
        - { claim: ${JSON.stringify(`claim ${HOSTILE}`)}, evidence_ref: ${JSON.stringify(HOSTILE)} }
      eliminated_hypotheses: [${JSON.stringify(`gone ${KINDS}`)}]
  - thought: a command with a word break nobody can see
    tool_calls:
      - { id: t2, name: shell, args: { command: "echo invisible\u200b\u2060\u200b rm" } }
  - thought: a command whose blanks are not all spaces
    tool_calls:
      - { id: t3, name: shell, args: { command: "ls\u00a0-la\u2003/tmp\u3000x\u202fy && echo ok" } }
  - final: ${JSON.stringify(`Done ${HOSTILE}`)}
`,
    { objective: `Fillers ${HOSTILE} ${'o'.repeat(40)}`, constraints: [`keep ${HOSTILE}`], every: 1 },
  );
  events = run.events;
});

/** Every row measured as drawn, none wider than the terminal, the frame no taller than it, nothing invisible. */
function check(frame: string, columns: number, rows: number, view: string): void {
  expect(fits(frame, columns, rows), `${view}\n${frame}`).toMatchObject({ ok: true });
  for (const line of frame.split('\n')) {
    expect(terminalWidth(line), `${view}: ${line}\n${frame}`).toBe(cellWidth(line));
    expect(terminalWidth(line), `${view}: ${line}\n${frame}`).toBeLessThanOrEqual(columns);
    expect(INVISIBLE.test(line), `${view}: an invisible character in ${JSON.stringify(line)}`).toBe(false);
  }
}

describe('invisible, filler and terminal-dependent characters in every panel', () => {
  const views = ['first view', 'second view', 'third view', 'fourth view', 'fifth view'] as const;
  for (const [columns, rows] of [
    [80, 24],
    [60, 18],
    [100, 30],
  ] as const) {
    test(`${columns}×${rows}: every row is drawn at the width measured and fits`, async () => {
      for (const upTo of [events.findIndex((e) => e.type === 'tool.decision'), events.findIndex((e) => e.type === 'checkpoint.recorded' && e.seq > 5), events.length]) {
        const c = await renderStore(createConsoleStore(events.slice(0, upTo)), { columns, rows });
        await c.waitForFrame('[?] help');
        for (const view of views) {
          check(c.frame(), columns, rows, view);
          await c.press(KEY.tab);
        }
        for (let i = 0; i < 5; i++) {
          await c.press(KEY.up);
          await c.press(KEY.enter);
          check(c.frame(), columns, rows, `event detail ${i}`);
          await c.press(KEY.escape);
        }
        if (c.frame().includes('[v] all args')) {
          await c.press('v');
          await c.waitForFrame('Arguments of shell');
          for (let i = 0; i < 4; i++) {
            check(c.frame(), columns, rows, `arguments view ${i}`);
            // No escape form (^[, \u{200b}) is split across two rows.
            for (const line of c.frame().split('\n')) expect(line.replace(/ *│$/, ''), c.frame()).not.toMatch(/(\^|\\|\\u|\\u\{[0-9a-f]*)$/);
            await c.press(KEY.pageDown);
          }
          await c.press(KEY.escape);
        }
      }
    });
  }

  test('the approval prompt shows the hidden characters of the command and of the rule a stores, escaped, inside its box', async () => {
    const decisions = events.flatMap((e, i) => (e.type === 'tool.decision' ? [i] : []));
    /** The prompt's frame at 100×30 for the call decided at `decisions[n]`, checked to fit and show nothing invisible. */
    const promptOf = async (n: number, view: string) => {
      const rig = await renderStore(createConsoleStore(events.slice(0, decisions[n])), { columns: 100, rows: 30 });
      const frame = await rig.waitForFrame('[y] approve once');
      check(frame, 100, 30, view);
      rig.unmount();
      return frame;
    };
    expect(await promptOf(0, 'approval')).toContain('$ echo invisible\\u{200b}\\u{2060}\\u{200b} rm \\u{3164}\\u{115f}\\u{1160}\\u{ffa0}\\u{ad}');
    const simple = await promptOf(1, 'approval of a simple command');
    expect(simple).toContain('│ $ echo invisible\\u{200b}\\u{2060}\\u{200b} rm ');
    expect(simple).toContain('│ a stores shell-exact: echo invisible\\u{200b}\\u{2060}\\u{200b} rm ');
    // A shell splits words at spaces only: a no-break, em or ideographic space is shown for what it is.
    const spaces = await promptOf(2, 'approval of a command with other spaces');
    expect(spaces).toContain('$ ls\\u{a0}-la\\u{2003}/tmp\\u{3000}x\\u{202f}y && echo ok');
    expect(spaces).toContain('a stores shell-exact: ls\\u{a0}-la\\u{2003}/tmp\\u{3000}x\\u{202f}y && echo ok');
    // And wherever the call is shown after: the timeline and the tool call panel.
    const after = await renderStore(createConsoleStore(events.slice(0, decisions[2]! + 1)), { columns: 100, rows: 30 });
    const timeline = await after.waitForFrame('ls\\u{a0}-la');
    expect(timeline).toContain('tool call shell {"command":"ls\\u{a0}-la\\u{2003}/tmp\\u{3000}x');
    await after.press(KEY.tab);
    await after.press(KEY.tab);
    expect(await after.waitForFrame('$ ls\\u{a0}-la')).toContain('$ ls\\u{a0}-la\\u{2003}/tmp\\u{3000}x\\u{202f}y && echo ok');
    after.unmount();
  });
});

describe('the command bar with such characters typed or pasted', () => {
  test('shown escaped, the caret on the cell it draws, the text submitted as typed', async () => {
    const store = createConsoleStore(events);
    const c = await renderStore(store, { columns: 80, rows: 24 });
    await c.waitForFrame('[?] help');
    await c.press('/');
    const typed = `goal modify ${KINDS}`;
    await c.press(typed);
    await waitUntil(() => store.getState().line.text === `/${typed}`, 'the typed text in the bar', () => c.frame());
    const caretAt = () => {
      // The caret is the inverse cell; its column is the drawn width of what precedes it.
      const row = c.lastFrame().split('\n').find((line) => stripVTControlCharacters(line).startsWith(BAR_PREFIX))!;
      if (!row.includes("\u001b[7m")) throw new Error(`no caret in ${JSON.stringify(row)}`);
      const before = row.slice(0, row.indexOf("\u001b[7m"));
      return terminalWidth(stripVTControlCharacters(before));
    };
    for (let moves = 0; moves < 30; moves++) {
      const frame = c.frame();
      check(frame, 80, 24, `bar after ${moves} moves left`);
      // The caret is drawn on the character it is before, in that character's screen form, inside the row.
      const { text, cursor } = store.getState().line;
      const row = c.lastFrame().split('\n').find((line) => stripVTControlCharacters(line).startsWith(BAR_PREFIX))!;
      const cell = row.slice(row.indexOf('\u001b[7m') + 4, row.indexOf('\u001b[27m'));
      expect(cell, frame).toBe(screenForm(graphemes(text)[cursor] ?? ' '));
      expect(caretAt(), frame).toBeLessThan(80);
      await c.press(KEY.left);
    }
    await c.press(KEY.end);
    await c.press(KEY.enter);
    expect(c.controller.reviseGoal).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(c.controller.reviseGoal.mock.calls[0])).toContain(JSON.stringify(KINDS).slice(1, -1));
  });
});
