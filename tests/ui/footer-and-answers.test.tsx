// The footer shows the keys that work in the view in front (an overlay or the deny note
// takes every key: the dashboard's are not listed then); an answer to a command is never
// cut without a way to read it whole; a list of strings in an event's detail reads as lines;
// a well-formed command the run can no longer carry out closes the bar; a replay answers
// every read-only command.
import { describe, test, expect, beforeAll } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { eventRows } from '../../src/ui/EventDetail.js';
import { createReplay } from '../../src/ui/replay.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless } from '../support/console-rig.js';
import { open, openAtPrompt, renderStore } from '../support/ui-helpers.js';

const COMPOUND = `
turns:
  - thought: Mark the file.
    tool_calls:
      - { id: t1, name: shell, args: { command: "touch ran.txt && echo marked" } }
  - final: Done.
`;

const RUN = `
turns:
  - thought: Look around.
  - final: Done.
`;

/** The footer's key line: the last row of the frame. */
const footer = (frame: string) => frame.trimEnd().split('\n').at(-1)!;

describe('the footer lists the keys of the view in front', () => {
  test('help: its own keys, and no key it ignores', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND, rows: 40 });
    await rig.press('?');
    const frame = await rig.waitForFrame('── Help · keys and commands');
    expect(footer(frame)).toBe('[esc/?/q] close  [↑] up  [↓] down  [pgup] page up  [pgdn] page down');
    expect(frame).toContain('esc, ? or q closes');
  });

  test('an opened event: its keys, not the command bar, help or quit', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND, rows: 40 });
    await rig.press(KEY.enter);
    await rig.waitFor(() => rig.store.getState().overlay === 'event', 'the event to open');
    const frame = await rig.waitForFrame('[esc/enter] close');
    expect(footer(frame)).toBe('[esc/enter] close  [↑] up  [↓] down  [pgup] page up  [pgdn] page down');
  });

  test('the arguments view (v): back to the prompt and scrolling', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND, columns: 120, rows: 40 });
    await rig.press('v');
    await rig.waitFor(() => rig.store.getState().overlay === 'args', 'the arguments to open');
    const frame = await rig.waitForFrame('[esc/v] back to the prompt');
    expect(footer(frame)).toBe('[↑] up  [↓] down  [pgup] page up  [pgdn] page down  [home] first  [end] last  [esc/v] back to the prompt');
  });

  test('the quit confirmation: quit or stay', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND, rows: 40 });
    await rig.press('q');
    await rig.waitFor(() => rig.store.getState().overlay === 'quit', 'the quit confirmation');
    // Staying works at once; quitting once the question has armed.
    expect(footer(await rig.waitForFrame('[n/esc] stay'))).toMatch(/^(\[y\/enter\/ctrl\+c\] quit {2})?\[n\/esc\] stay$/);
    await rig.waitFor(() => rig.store.getState().quitArmed, 'the quit question to arm');
    const frame = await rig.waitForFrame('[y/enter/ctrl+c] quit  [n/esc] stay');
    expect(footer(frame)).toBe('[y/enter/ctrl+c] quit  [n/esc] stay');
  });

  test('closed again, the dashboard keys are back', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND, rows: 40 });
    await rig.press('?');
    await rig.waitForFrame('── Help');
    await rig.press('q');
    const frame = await rig.waitForFrame('[/] command');
    expect(footer(frame)).toBe('[tab] panel  [/] command  [?] help  [q] quit');
  });
});

describe('answers are read whole', () => {
  test('a /budget error longer than the row wraps over the rows it needs, at spaces', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND, rows: 40 });
    await rig.press('/');
    await rig.type('budget wall_clock +0.5m');
    await rig.press(KEY.enter);
    const frame = await rig.waitForFrame('✗ the wall_clock increment');
    const rows = frame.split('\n');
    const at = rows.findIndex((row) => row.startsWith('✗ the wall_clock increment'));
    expect(rows.slice(at, at + 1)).toEqual(['✗ the wall_clock increment must be a duration such as 90s, 10m or 1h30m, found "0.5m"']);
    // Longer still: the bound of the field, in its unit, over two rows and whole.
    await rig.press('\u0015');
    await rig.type('budget wall_clock +8761h');
    await rig.press(KEY.enter);
    const bound = await rig.waitForFrame('✗ the wall_clock limit');
    const lines = bound.split('\n');
    const first = lines.findIndex((row) => row.startsWith('✗ the wall_clock limit'));
    expect(lines.slice(first, first + 2).map((row) => row.trimEnd())).toEqual([
      '✗ the wall_clock limit can be at most 8760h (365 days, the longest duration loop.yaml takes for',
      'budget.max_wall_clock); an increment of more cannot be added',
    ]);
  });

  test('an event detail shows a list of strings as lines wrapped at spaces, not escaped JSON', () => {
    const errors = [
      'loop.yaml:3:19: budget.max_iterations: expected a positive integer or "unlimited", found "lots" (write a number, or unlimited to remove the limit)',
      'loop.yaml:4:7: verify[0].command: expected a command, found nothing',
    ];
    const event = { seq: 7, at: 0, session: 's', type: 'policy.reloaded', data: { file: 'loop.yaml', trigger: 'command', diff: [], errors } } as LoopEvent;
    const rows = eventRows(event, 60);
    expect(rows.join('\n')).not.toContain('\\"');
    expect(rows).toEqual([
      '{',
      '  "file": "loop.yaml",',
      '  "trigger": "command",',
      '  "diff": [],',
      '  "errors": [',
      '    - loop.yaml:3:19: budget.max_iterations: expected a',
      '      positive integer or "unlimited", found "lots" (write a',
      '      number, or unlimited to remove the limit)',
      '    - loop.yaml:4:7: verify[0].command: expected a command,',
      '      found nothing',
      '  ]',
      '}',
    ]);
  });
});

describe('refusals close the bar, read-only commands answer', () => {
  let events: LoopEvent[];
  beforeAll(async () => {
    events = (await runHeadless(RUN)).events;
  });

  test('/reload after the run ended: refused, the bar closes and says why', async () => {
    const rig = await open({ transcript: RUN });
    await rig.waitForFrame('Run finished: goal_met.');
    await rig.press('/');
    await rig.type('reload');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✗ no run is going');
    expect(rig.store.getState().input).toBeNull();
  });

  test('a replay opens help for /help, and answers /goal status', async () => {
    const { store, controller } = createReplay(events, () => undefined);
    const c = await renderStore(store, { controller });
    await c.waitForFrame('replay ');
    await c.press('/help');
    await c.press(KEY.enter);
    const frame = await c.waitForFrame('── Help · keys and commands');
    expect(frame).not.toContain('this is a replay');
    await c.press('q');
    await c.press('/goal status');
    await c.press(KEY.enter);
    await c.waitForFrame('✓ achieved');
  });

  test('a folded log without a console behind it refuses what would change it, and the bar closes', async () => {
    const store = createConsoleStore(events);
    const c = await renderStore(store, { controller: createReplay(events, () => undefined).controller });
    await c.press('/budget turns +5');
    await c.press(KEY.enter);
    await c.waitForFrame('✗ this is a replay: nothing can be changed; only /goal status and /help are answered');
    expect(store.getState().input).toBeNull();
  });
});
