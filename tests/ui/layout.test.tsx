// Layout: the full layout at 80×24 and above, the compact one below 80 columns; the frame
// is never taller than the terminal; resizing re-lays out; wide characters keep borders
// aligned.
import { describe, test, expect, beforeAll } from 'vitest';

import stringWidth from 'string-width';
import xterm from '@xterm/headless';
import type { LoopEvent } from '../../src/engine/index.js';
import { isCompact, planLayout } from '../../src/ui/layout.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless, waitUntil } from '../support/console-rig.js';
import { fits, normalize, renderStore } from '../support/ui-helpers.js';

const LONG = `
turns:
  - thought: Write the whole greeter at once.
    tool_calls:
      - { id: t1, name: write_file, args: { path: greet.js, content: ${JSON.stringify(Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n'))} } }
  - final: Written.
`;

const STAGNANT = `
turns:
  - thought: Look around.
  - thought: Still looking.
  - final: The greeting is friendlier.
    report:
      new_evidence:
        - { claim: the greeting says hi, evidence_ref: greets by name }
`;

/** The events of a run up to its first tool prompt (before its answer): a store that shows that prompt. */
function atFirstPrompt(events: LoopEvent[]): LoopEvent[] {
  return events.slice(0, events.findIndex((e) => e.type === 'tool.decision'));
}

let long: LoopEvent[];
let stagnant: LoopEvent[];
let wide: LoopEvent[];
beforeAll(async () => {
  long = atFirstPrompt((await runHeadless(LONG)).events);
  stagnant = (
    await runHeadless(STAGNANT, {
      every: 1,
      threshold: 2,
      observe: [{ name: 'tests', command: "printf '# pass 1\\n# fail 1\\n'" }],
      signals: [{ signal: 'observed.tests.failing', direction: 'decrease' }],
    })
  ).events;
  wide = atFirstPrompt(
    (
      await runHeadless(
        `
turns:
  - thought: 名前を保つ — keep names 🚀 intact.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo 名前を保つ José Núñez\\necho 🚀 ✅ 往復" } }
  - final: 完了 🎉
`,
        { objective: '名前を保つ: names with accents 🚀 survive the 往復 round trip', constraints: ['テストを変更しない 🚫'] },
      )
    ).events,
  );
});

describe('layouts', () => {
  test('below 80 columns the compact layout: one-row header and budget, one body view', async () => {
    const c = await renderStore(createConsoleStore(long), { columns: 70, rows: 20 });
    await c.waitForFrame('[y] approve once');
    expect(normalize(c.frame())).toMatchInlineSnapshot(`
      "AWAITING_TOOL · it 1/20 · Make the greeting friendlier
      turns 5% tools 5% clock #% tokens 0% cost 0%
      ╭────────────────────────────────────────────────────────────────────╮
      │ Approve tool call write_file (t1)                                  │
      │ why  no rule names tool "write_file" (default: ask)                │
      │ path: greet.js                                                     │
      │ content: |                                                         │
      │ ⋯ 342 more characters · v shows all                                │
      │   line 40                                                          │
      │ a stores exact: write_file sha256:a0d058da3717ebe13ccd4d362b636e68 │
      │ [y] approve once  [a] always allow  [n] deny  [d] deny with note   │
      │ [v] all args                                                       │
      ╰────────────────────────────────────────────────────────────────────╯
      ── Timeline · filter activity (f) · 7 events · following (end)
          7 turn 1: Write the whole greeter at once. (0+0 tok)
          8 tool call write_file {"path":"greet.js","content":"line 1\\nline…
          9 step 1 awaiting_tool

      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(fits(c.frame(), 70, 20).ok).toBe(true);
    await c.press(KEY.tab);
    await c.waitForFrame('── Checkpoint (tab: next view)');
  });

  test('at 80×24 the full layout: header, state strip, gauges, status line, prompt, timeline', async () => {
    const c = await renderStore(createConsoleStore(long), { columns: 80, rows: 24 });
    await c.waitForFrame('[y] approve once');
    expect(normalize(c.frame())).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING …
      turns 5%        tool calls 5%   wall clock #%   tokens 0%       cost 0%
      █░░░░░░░░░ 1/20 █░░░░░░░░░ 1/20 ~~~~~~~~ #s/30m ░░░░░░░░ 0/100k ░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call write_file (t1)                                            │
      │ why  no rule names tool "write_file" (default: ask)                          │
      │ path: greet.js                                                               │
      │ content: |                                                                   │
      │ ⋯ 342 more characters · v shows all                                          │
      │   line 40                                                                    │
      │ a stores exact: write_file sha256:a0d058da3717ebe13ccd4d362b636e68           │
      │ [y] approve once  [a] always allow  [n] deny  [d] deny with note             │
      │ [v] all args                                                                 │
      ╰──────────────────────────────────────────────────────────────────────────────╯
      ── Timeline · filter activity (f) · 7 events · following (end)
          7 model.call          turn 1: Write the whole greeter at once. (0+0 tok)
          8 tool.call           tool call write_file {"path":"greet.js","content":"li…
          9 step.end            step 1 awaiting_tool

      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(fits(c.frame(), 80, 24)).toEqual({ height: 23, widest: 80, ok: true });
  });

  test('the frame is never taller than the terminal, nor wider, whatever is open', async () => {
    const sizes: Array<[number, number]> = [
      [40, 10],
      [60, 16],
      [79, 24],
      [80, 24],
      [100, 30],
      [120, 50],
      [200, 12],
    ];
    for (const [columns, rows] of sizes) {
      for (const events of [long, stagnant]) {
        const store = createConsoleStore(events);
        const c = await renderStore(store, { columns, rows });
        const check = (what: string) => {
          const result = fits(c.frame(), columns, rows);
          expect(result.ok, `${columns}×${rows} ${what}: ${result.height} rows, ${result.widest} wide\n${c.frame()}`).toBe(true);
        };
        check('dashboard');
        store.getState().arm(store.getState().session.pending?.seq ?? null);
        await c.press('v'); // all arguments
        check('arguments expanded');
        await c.press('?');
        check('help');
        await c.press(KEY.escape);
        await c.press('/');
        await c.press(KEY.tab);
        check('completion list');
        await c.press(KEY.escape);
        await c.press(KEY.escape);
        await c.press(KEY.enter);
        check('an opened event');
        c.unmount();
      }
    }
  });

  test('resizing the terminal re-lays out the console', async () => {
    const c = await renderStore(createConsoleStore(stagnant), { columns: 100, rows: 30 });
    await c.waitForFrame('IDLE › PLANNING › EXECUTING');
    c.resize(70, 20);
    await waitUntil(() => c.frame().split('\n').length === 19, 'the compact layout', c.frame);
    expect(c.frame()).not.toContain('IDLE › PLANNING');
    expect(c.frame().split('\n')[0]).toMatch(/^DONE \(goal_met\) · it 3\/20 · Make the greeting friendlier/);
    expect(fits(c.frame(), 70, 20).ok).toBe(true);
    c.resize(120, 40);
    await waitUntil(() => c.frame().split('\n').length === 39, 'the full layout again', c.frame);
    expect(c.frame()).toContain('IDLE › PLANNING › EXECUTING');
    expect(fits(c.frame(), 120, 40).ok).toBe(true);
  });

  test('the plan: rows add up to the live region, one row shorter than the terminal', () => {
    for (const rows of [10, 16, 24, 30, 60]) {
      for (const prompt of [0, 7, 12]) {
        const plan = planLayout({ columns: 100, rows, prompt, banner: true, footer: 2 });
        expect(plan.live).toBe(rows - 1);
        const used = plan.top + 1 + prompt + 2 + plan.body;
        expect(used === plan.live || plan.body === 0).toBe(true);
        if (plan.pane > 0) expect(1 + plan.pane + plan.timeline).toBe(plan.body);
      }
    }
    expect(isCompact(79, 24)).toBe(true);
    expect(isCompact(80, 24)).toBe(false);
    expect(isCompact(120, 15)).toBe(true);
  });
});

describe('wide characters', () => {
  test('CJK and emoji in the goal, the arguments and the agent text keep borders aligned', async () => {
    const c = await renderStore(createConsoleStore(wide), { columns: 80, rows: 24 });
    await c.waitForFrame('Approve tool call shell (t1)');
    const lines = c.frame().split('\n');
    expect(lines[0]).toContain('名前を保つ: names with accents 🚀');
    const top = lines.findIndex((l) => l.startsWith('╭'));
    const bottom = lines.findIndex((l) => l.startsWith('╰'));
    const box = lines.slice(top, bottom + 1);
    expect(box.find((l) => l.includes('│ $ echo 名前を保つ José Núñez'))).toBeDefined();
    expect(box.find((l) => l.includes('│ echo 🚀 ✅ 往復'))).toBeDefined();
    for (const line of box) {
      expect(stringWidth(line), line).toBe(80);
      expect(line.endsWith('│') || line.endsWith('╮') || line.endsWith('╯'), line).toBe(true);
    }
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);

    // As a terminal lays the frame out: xterm counts CJK as two cells, as string-width does
    // (its default Unicode 6 tables count most emoji as one, so rows with emoji are left to
    // the string-width check above). Every such row of the box ends in the last column.
    const term = new xterm.Terminal({ cols: 80, rows: 24, allowProposedApi: true });
    await new Promise<void>((resolve) => term.write(c.frame().replace(/\n/g, '\r\n'), resolve));
    const rows = Array.from({ length: 23 }, (_, y) => term.buffer.active.getLine(y)?.translateToString(false) ?? '');
    const cjkRows = rows.map((r, y) => [r, y] as const).filter(([r, y]) => y >= top && y <= bottom && /[\u3040-\u9fff]/.test(r) && !/\p{Extended_Pictographic}/u.test(r));
    const framed = rows.filter((_, y) => y >= top && y <= bottom && !/\p{Extended_Pictographic}/u.test(rows[y]!));
    expect(framed.length).toBeGreaterThan(4);
    for (let y = top; y <= bottom; y++) {
      if (/\p{Extended_Pictographic}/u.test(rows[y]!)) continue;
      expect(term.buffer.active.getLine(y)?.getCell(79)?.getChars(), `row ${y}: ${rows[y]}`).toMatch(/[│╮╯]/);
    }
    expect(cjkRows.map(([r]) => r.slice(0, 20).trim())).toEqual(['│ $ echo 名前を保つ José']);
    term.dispose();
  });

  test('the compact layout with wide characters stays within 60 columns', async () => {
    const c = await renderStore(createConsoleStore(wide), { columns: 60, rows: 18 });
    await c.waitForFrame('Approve tool call shell (t1)');
    for (const line of c.frame().split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(60);
    expect(fits(c.frame(), 60, 18).ok).toBe(true);
  });
});
