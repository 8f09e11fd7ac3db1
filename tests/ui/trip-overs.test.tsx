// Things a user trips over, whole frames: notices speak the console's units and go after a
// while; the footer never says "Pausing" once the run is over; a replay answers the
// read-only `/goal status`; budget rows in the timeline speak durations and dollars.
import { describe, test, expect, beforeAll } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { describeEvent } from '../../src/ui/describe.js';
import { eventRows } from '../../src/ui/EventDetail.js';
import { createReplay } from '../../src/ui/replay.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { cellWidth } from '../../src/ui/text.js';
import { KEY, runHeadless, waitUntil } from '../support/console-rig.js';
import { normalize, renderStore } from '../support/ui-helpers.js';

const RUN = `
turns:
  - thought: Look around.
  - final: Done.
`;

let events: LoopEvent[];
beforeAll(async () => {
  events = (await runHeadless(RUN)).events;
});

describe('things a user trips over', () => {
  test('the footer of a finished run never says "Pausing", even after a Ctrl+C that the end overtook', async () => {
    const store = createConsoleStore(events);
    store.getState().markInterrupted();
    const c = await renderStore(store);
    const frame = await c.waitForFrame('Run finished: goal_met.');
    expect(frame).not.toMatch(/Pausing|Paused; Ctrl\+C/);
  });

  test('a replay answers /goal status with the goal as of the event shown; changes stay refused', async () => {
    const { store, controller } = createReplay(events, () => undefined);
    const c = await renderStore(store, { controller });
    await c.waitForFrame('replay ');
    await c.press('/goal status');
    await c.press(KEY.enter);
    await c.waitForFrame('✓ achieved · revision 0 · 1 criterion ·');
    await c.press('/goal redirect something else');
    await c.press(KEY.enter);
    await c.waitForFrame('✗ this is a replay: nothing can be changed');
  });

  test('a command a replay refuses closes the command bar and shows the refusal as a notice, as a result does', async () => {
    const { store, controller } = createReplay(events, () => undefined);
    const c = await renderStore(store, { controller, rows: 24 });
    await c.waitForFrame('replay ');
    await c.press('/goal redirect something else');
    await c.press(KEY.enter);
    await c.waitForFrame('✗ this is a replay: nothing can be changed');
    expect(store.getState().input).toBeNull();
    expect(normalize(c.frame())).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      replay 20/20 #19 session.complete  react · DONE (goal_met) · iteration 2/20 · T
      IDLE › PLANNING › EXECUTING › AWAITING_TOOL › REFLECTING ›  DONE   ← REFLECTING #18
      turns 10%           tool calls 0%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 2/20 ░░░░░░░░░░░░░░ 0/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress unknown (not git) · ✓ claim verified
      ──  Checkpoint  │ Goal │ Tool call │ Progress (tab)
      #1/1 · baseline at the run start · UNKNOWN · counter 0/3
      why unknown rule: no tracked signal could be measured (nothing is tracked: no \`observe\` command, or
      no \`progress.observed\` signal); counter 0/3 (kept: unknown is not "no progress")
      observed (measured) observed_progress null        reported (claims) claimed_progress false
      UNKNOWN: nothing is tracked: no \`observe\` comman… eliminated no change
      no observed signals configured                    remaining  no change
      ── Timeline · filter activity (f) · 10 events · at the replay cursor
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Look around. (0+0 tok)
          8 step.end            step 1 ok: Look around.
         13 model.call          turn 2: claims done: Done. (0+0 tok)
         14 step.end            step 2 ok
         17 verify.result       verify passed: node -e "process.exit(0)" → 0
         19 session.complete    complete: goal_met: Done.
      ✗ this is a replay: nothing can be changed; only /goal status and /help are answered
      Run finished: goal_met. [←] back  [→] forward  [home] first  [end] last  …  [?] help  [q] quit"
    `);
    // The keys work again at once: no Esc is needed to leave a bar left open.
    await c.press(KEY.home);
    await c.waitForFrame('replay 1/');
  });

  test.each([100, 72, 48])('at %i columns the footer keeps [?] help and [q] quit and never cuts a key hint in two', async (columns) => {
    const { store, controller } = createReplay(events, () => undefined);
    const c = await renderStore(store, { controller, columns, rows: 24 });
    await c.waitForFrame('replay ');
    await waitUntil(() => c.frame().includes('Run finished'), 'the footer');
    const footer = normalize(c.frame()).split('\n').at(-1)!;
    expect(footer).toMatch(/^Run finished: goal_met\. .*\[\?\] help {2}\[q\] quit$/);
    expect(cellWidth(footer)).toBeLessThanOrEqual(columns);
    // Every hint shown is whole: an opening bracket, the key, the closing one and its label.
    for (const hint of footer.replace(/^Run finished: goal_met\. /, '').split('  ')) expect(hint).toMatch(/^(\[[^\]]+\] \S.*|…)$/);
  });

  test('the answer to a command goes after a while', async () => {
    const { store, controller } = createReplay(events, () => undefined);
    const c = await renderStore(store, { controller, noticeMs: 400 });
    await c.press('/goal status');
    await c.press(KEY.enter);
    await c.waitForFrame('✓ achieved');
    await waitUntil(() => !c.frame().includes('✓ achieved'), 'the notice to go');
    expect(store.getState().notice).toBeNull();
  });

  test('budget rows and notices speak durations and dollars, not seconds', () => {
    const at = { seq: 1, at: 0, session: 's' };
    expect(describeEvent({ ...at, type: 'budget.extended', data: { dimension: 'wall_clock_seconds', by: 600, limit: 2490 } } as LoopEvent)).toBe('budget raised: wall_clock +10m → 41m30s');
    expect(describeEvent({ ...at, type: 'budget.extended', data: { dimension: 'cost_usd', by: 0.5, limit: 1.5 } } as LoopEvent)).toBe('budget raised: cost +$0.50 → $1.50');
    expect(describeEvent({ ...at, type: 'budget.warn', data: { dimension: 'wall_clock_seconds', used: 1500, limit: 1800, exceeded: false } } as LoopEvent)).toBe('budget warning: wall_clock 25m of 30m');
  });

  test('budget amounts read the same in every row: the seconds of a long limit, the digits of a small raise, no float noise', () => {
    const at = { seq: 1, at: 0, session: 's' };
    const row = (type: string, data: object) => describeEvent({ ...at, type, data } as LoopEvent);
    // A raise of 1m30s to a limit of 17761h47m30s: the seconds are not dropped.
    expect(row('budget.extended', { dimension: 'wall_clock_seconds', by: 90, limit: 63942450 })).toBe('budget raised: wall_clock +1m30s → 17761h47m30s');
    // A tenth of a cent is shown, and so is a limit written with float noise.
    expect(row('budget.extended', { dimension: 'cost_usd', by: 0.001, limit: 2.003 })).toBe('budget raised: cost +$0.001 → $2.003');
    expect(row('budget.extended', { dimension: 'cost_usd', by: 0.0015, limit: 0.008499999999999999 })).toBe('budget raised: cost +$0.0015 → $0.0085');
    expect(row('budget.warn', { dimension: 'cost_usd', used: 0.01, limit: 0.006999999999999999, exceeded: true })).toBe('budget exhausted: cost $0.010 of $0.007');
    expect(row('budget.warn', { dimension: 'wall_clock_seconds', used: 3.63, limit: 3, exceeded: true })).toBe('budget exhausted: wall_clock 3.6s of 3s');
    // Counts are exact: short only when the short form is exact.
    expect(row('budget.extended', { dimension: 'tokens', by: 1, limit: 300001 })).toBe('budget raised: tokens +1 → 300001');
    expect(row('budget.extended', { dimension: 'tokens', by: 50000, limit: 300000 })).toBe('budget raised: tokens +50k → 300k');
  });

  test('an event detail shows a multi-line output as its lines, not one string with \\n', () => {
    const result = { call_id: 't1', name: 'shell', status: 'ok', output: 'ok 1 - adds\nnot ok 2 - "quotes" \u001b[31mred\n# fail 1\n', exit_code: 1, duration_ms: 5 };
    const rows = eventRows({ seq: 9, at: 0, session: 's', type: 'tool.result', data: { result } } as LoopEvent, 80);
    expect(rows.join('\n')).toContain(['    "output": |', '      ok 1 - adds', '      not ok 2 - "quotes" ^[[31mred', '      # fail 1', '    "exit_code": 1,'].join('\n'));
    expect(rows.join('\n')).not.toContain('\\n');
  });
});
