// Rows cut by the console, never by Ink: Ink's own `truncate-end` lets a wide character at
// the cut overflow by one cell (the row wraps, the frame grows taller than the terminal and
// every redraw leaves a copy in the scrollback). The header at every width, the header after
// a /goal revision (the revision mark and the run id stay), and the command bar's notice.
import { describe, test, expect } from 'vitest';

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { LoopEvent } from '../../src/engine/events.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { cellWidth } from '../../src/ui/text.js';
import { KEY } from '../support/console-rig.js';
import { terminalWidth } from '../support/terminal-width.js';
import { fits, open, renderStore, WAITING } from '../support/ui-helpers.js';

const EMOJI_GOAL = `Fix ${'🙂'.repeat(30)} ${'漢字 '.repeat(20)}`;

/** Every row measured as drawn and no wider than the terminal; the frame no taller than it. */
function expectFits(frame: string, columns: number, rows: number): void {
  expect(fits(frame, columns, rows), frame).toMatchObject({ ok: true });
  for (const line of frame.split('\n')) {
    expect(cellWidth(line), line).toBe(terminalWidth(line));
    expect(terminalWidth(line), line).toBeLessThanOrEqual(columns);
  }
}

test('no component hands a row to Ink to cut: no wrap="truncate…" in src/ui', () => {
  const dir = path.resolve(import.meta.dirname, '../../src/ui');
  const users = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.tsx'))
    .filter((file) => /wrap=\{?\s*["'`]truncate/.test(readFileSync(path.join(dir, file), 'utf8')));
  expect(users).toEqual([]);
});

describe('the header', () => {
  for (const columns of [78, 76, 60, 40, 38, 36]) {
    test(`compact, ${columns} columns, wide characters in the objective: one row, cut with …`, async () => {
      const rig = await open({ transcript: WAITING, columns, rows: 24, policy: { objective: EMOJI_GOAL } });
      const frame = await rig.waitForFrame('Approve tool call shell');
      expectFits(frame, columns, 24);
      const header = frame.split('\n')[0]!;
      expect(header).toMatch(/^AWAITING_TOOL · it 1\/20 · Fix 🙂+…$/u);
      expect(terminalWidth(header)).toBeGreaterThanOrEqual(columns - 2);
    });
  }

  test('wide, after a /goal revision: the objective is cut with …, the revision mark and the run id stay', async () => {
    const rig = await open({ transcript: WAITING, columns: 100, rows: 30, policy: { objective: EMOJI_GOAL } });
    await rig.waitForFrame('Approve tool call shell');
    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar');
    const line = `goal modify Fix ${'🙂'.repeat(40)} and more ${'漢字'.repeat(10)}`;
    await rig.press(`\u001b[200~${line}\u001b[201~`); // pasted
    await rig.waitFor(() => rig.store.getState().line.text === `/${line}`, 'the typed line');
    await rig.press(KEY.enter);
    await rig.waitForFrame('[rev 1, revised]');
    const frame = rig.frame();
    expectFits(frame, 100, 30);
    expect(frame.split('\n')[0]).toMatch(/^loopdeck Fix 🙂+… \[rev 1, revised\] +run ui-test$/u);
  });
});

describe('the header of a revised goal', () => {
  // A run id as loopdeck makes them (20 characters), a goal revised once, a long objective.
  const revised = readFileSync(path.resolve(import.meta.dirname, '../fixtures/logs/goal-revised.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l.replaceAll('corpus-goal-revised', '20261203-192940-t3x4').replace(/"objective":"create done\.txt[^"]*"/g, `"objective":"${'Names with accents must survive the payload round trip '.repeat(3)}"`)) as LoopEvent);
  // Below 80 columns the header is one row without the mark (the compact tests above).
  for (const columns of [200, 120, 100, 90, 80]) {
    test(`${columns} columns: the revision mark and the run id stay whole, the objective gives way`, async () => {
      const c = await renderStore(createConsoleStore(revised), { columns, rows: 30 });
      const frame = await c.waitForFrame('[rev ');
      const title = frame.split('\n')[0]!;
      expect(title).toMatch(/^loopdeck Names with.*… \[rev \d+, [a-z]+\] +run 20261203-192940-t3x4$/);
      expect(terminalWidth(title)).toBeLessThanOrEqual(columns);
    });
  }
});

describe('the command bar', () => {
  test('a notice quoting a wide unknown command wraps within the rows, the whole command readable', async () => {
    for (const columns of [80, 61]) {
      const rig = await open({ transcript: WAITING, columns, rows: 24 });
      await rig.waitForFrame('Approve tool call shell');
      await rig.press('/');
      await rig.waitFor(() => rig.bar() === '/', 'the command bar');
      await rig.press(`\u001b[200~${'Ｗ'.repeat(60)}\u001b[201~`); // pasted
      await rig.waitFor(() => rig.store.getState().line.text === `/${'Ｗ'.repeat(60)}`, 'the typed line');
      await rig.press(KEY.enter);
      const frame = await rig.waitForFrame('unknown command');
      expectFits(frame, columns, 24);
      // The notice wraps (a word too wide for a row is broken between its characters): every
      // row fits, and the whole command is there to read.
      const rows = frame.split('\n');
      const at = rows.findIndex((line) => line.includes('unknown command'));
      expect(rows[at]).toMatch(/^✗ unknown command/u);
      expect(rows.slice(at, at + 5).join(''), frame).toContain(`"/${'Ｗ'.repeat(60)}"`);
      await rig.close();
    }
  });
});
