// Joined emoji (families, flags, skin tones), CJK and combining marks in every panel: each
// row is measured as Ink measures it (string-width) and also as a terminal that draws every
// code point on its own (tmux 3.3a, glibc's wcwidth): neither is wider than the terminal.
import { describe, test, expect, beforeAll } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { cellWidth, clipEnd, clipStart, graphemes, sanitize, splitJoinedEmoji, wrapCells } from '../../src/ui/text.js';
import { KEY, runHeadless } from '../support/console-rig.js';
import { terminalWidth } from '../support/terminal-width.js';
import { fits, renderStore } from '../support/ui-helpers.js';

const FAMILY = '👨‍👩‍👧‍👦';
const RAINBOW = '🏳️‍🌈';
const THUMB = '👍🏽';
const SCOTLAND = '🏴󠁧󠁢󠁳󠁣󠁴󠁿';
const MIXED = `${FAMILY} ${RAINBOW} ${THUMB} 🇫🇷 ${SCOTLAND} 名前を保つ e\u0301 Z\u0335\u0338 ✅`;

/** Cells a terminal that knows no joined emoji draws: every code point on its own (tmux 3.3a). */
const drawnApart = terminalWidth;

let events: LoopEvent[];
beforeAll(async () => {
  const run = await runHeadless(
    `
turns:
  - thought: ${JSON.stringify(`Keep ${MIXED} intact`)}
    tool_calls:
      - { id: t1, name: shell, args: { command: ${JSON.stringify(`echo ${MIXED} && echo ${MIXED} ${MIXED}`)} } }
    report:
      new_evidence:
        - { claim: ${JSON.stringify(`names ${MIXED} survive`)}, evidence_ref: ${JSON.stringify(MIXED)} }
  - final: ${JSON.stringify(`Done ${MIXED}`)}
`,
    { objective: `${MIXED}: names survive the round trip ${FAMILY}${FAMILY}${FAMILY}`, constraints: [`${MIXED} ${MIXED}`], every: 1 },
  );
  events = run.events;
});

describe('text measured as Ink measures it', () => {
  test('clusters are never split: widths, clipping and wrapping keep a family, a flag, a letter with its marks whole', () => {
    expect(cellWidth(FAMILY)).toBe(2);
    expect(cellWidth('名前')).toBe(4);
    expect(cellWidth('e\u0301')).toBe(1);
    expect(graphemes(`a${FAMILY}🇫🇷e\u0301`)).toEqual(['a', FAMILY, '🇫🇷', 'e\u0301']);
    expect(clipEnd(`ab${FAMILY}c`, 3)).toBe('ab');
    expect(clipStart(`a${FAMILY}bc`, 3)).toBe('bc');
    expect(wrapCells(`名前${FAMILY}e\u0301x`, 4)).toEqual(['名前', `${FAMILY}e\u0301x`]);
    // Joined sequences split into what every terminal draws at the width measured.
    expect(splitJoinedEmoji(`${FAMILY} ${THUMB} ${SCOTLAND} 🇫🇷 名前 e\u0301`)).toBe(
      '👨\\u{200d}👩\\u{200d}👧\\u{200d}👦 👍\\u{1f3fd} 🏴\\u{e0067}\\u{e0062}\\u{e0073}\\u{e0063}\\u{e0074}\\u{e007f} 🇫🇷 名前 e\u0301',
    );
    // In their screen form, drawn at the width measured.
    for (const text of [MIXED, splitJoinedEmoji(MIXED)]) expect(drawnApart(sanitize(text))).toBe(cellWidth(sanitize(text)));
  });
});

describe('joined emoji, CJK and combining marks in every panel', () => {
  // Each view the body can show (Tab cycles the panels; the compact layout adds the timeline),
  // then an event opened from the timeline, then help.
  const views = ['first view', 'second view', 'third view', 'fourth view', 'fifth view'] as const;
  const check = (frame: string, columns: number, rows: number, view: string) => {
    expect(fits(frame, columns, rows), `${view}\n${frame}`).toMatchObject({ ok: true });
    for (const line of frame.split('\n')) expect(drawnApart(line), `${view}: ${line}\n${frame}`).toBeLessThanOrEqual(columns);
  };
  for (const [columns, rows] of [
    [80, 24],
    [60, 18],
    [77, 30],
  ] as const) {
    test(`${columns}×${rows}: no row is wider than the terminal, measured either way`, async () => {
      for (const upTo of [events.findIndex((e) => e.type === 'tool.decision'), events.findIndex((e) => e.type === 'checkpoint.recorded'), events.length]) {
        const c = await renderStore(createConsoleStore(events.slice(0, upTo)), { columns, rows });
        await c.waitForFrame('[?] help');
        for (const view of views) {
          check(c.frame(), columns, rows, view);
          await c.press(KEY.tab);
        }
        // Every event of the timeline opened in turn: its description and data.
        for (let i = 0; i < 4; i++) {
          await c.press(KEY.up);
          await c.press(KEY.enter);
          check(c.frame(), columns, rows, `event detail ${i}`);
          await c.press(KEY.escape);
        }
        await c.press('?');
        check(c.frame(), columns, rows, 'help');
        await c.press(KEY.escape);
      }
    });
  }
});
