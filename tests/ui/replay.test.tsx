// Replay: a recorded run in the console without running anything. ←/→ step, Home/End
// jump, and every panel shows the state as of the selected event; nothing can be answered.
import { vi, describe, test, expect, beforeAll } from 'vitest';

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fold, type LoopEvent } from '../../src/engine/index.js';
import { LogIndex } from '../../src/engine/log-index.js';
import { createConsoleStore, LIVE_EVENTS } from '../../src/ui/store.js';
import { followController } from '../../src/watch/console.js';
import { toJson } from '../../src/text/json.js';
import { createReplay, ReplayIndex, SNAPSHOT_EVERY } from '../../src/ui/replay.js';
import { KEY, runHeadless } from '../support/console-rig.js';
import { renderStore } from '../support/ui-helpers.js';

const RUN = `
turns:
  - thought: Say hello through the shell first.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo hello-from-shell" } }
    report:
      remaining_hypotheses: [the greeting is too short]
  - thought: Look again.
  - final: The greeting is friendlier.
`;

let events: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  events = (await runHeadless(RUN, { every: 2, observe: [{ name: 'tests', command: "printf '# pass 1\\n# fail 0\\n'" }], signals: [{ signal: 'observed.tests.passing', direction: 'increase' }] }, () => (now += 1000))).events;
});

describe('replay console', () => {
  test('←/→ step, Home/End jump; the header and every panel show the state as of that event', async () => {
    const quit = vi.fn();
    const { store, controller } = createReplay(events, quit);
    const c = await renderStore(store, { controller, rows: 30 });
    const N = events.length;
    const expectAt = (index: number) => {
      expect(store.getState().replay).toEqual({ index, total: N });
      expect(store.getState().session).toEqual(fold(events.slice(0, index + 1)));
    };

    await c.waitForFrame(`replay ${N}/${N} #${N - 1} session.complete`);
    expectAt(N - 1);
    expect(c.frame()).toContain('DONE (goal_met)');

    await c.press(KEY.home);
    await c.waitForFrame(`replay 1/${N} #0 session.start`);
    expectAt(0);
    let frame = c.frame();
    expect(frame).toContain('loopdeck Make the greeting friendlier');
    expect(frame).toContain(' IDLE  › PLANNING');
    expect(frame).toContain('turns 0%');
    expect(frame).toContain('filter activity (f) · 1 event · at the replay cursor');

    // Step to the tool prompt: shown as recorded, not answerable.
    const prompt = events.findIndex((e) => e.type === 'step.end' && e.data.outcome === 'awaiting_tool');
    for (let i = 0; i < prompt; i++) await c.press(KEY.right);
    await c.waitForFrame(`replay ${prompt + 1}/${N} #${prompt} step.end`);
    expectAt(prompt);
    frame = c.frame();
    expect(frame).toContain('│ Approve tool call shell (t1)');
    expect(frame).toContain('│ replay: shown as recorded; nothing can be answered');
    expect(frame).not.toContain('denied in');
    for (const key of ['y', 'a', 'n', 'd', 'c', 's']) await c.press(key);
    expect(c.controller.answer).not.toHaveBeenCalled();
    expect(store.getState().input).toBeNull();

    // One step back: the prompt is not there yet.
    await c.press(KEY.left);
    await c.waitForFrame(`replay ${prompt}/${N}`);
    expectAt(prompt - 1);
    expect(c.frame()).not.toContain('Approve tool call');

    // The first interval checkpoint, as of its event: compared with the baseline taken at the start.
    const checkpoint = events.findIndex((e) => e.type === 'checkpoint.recorded' && !e.data.checkpoint.baseline);
    for (let i = prompt - 1; i < checkpoint; i++) await c.press(KEY.right);
    await c.waitForFrame(`replay ${checkpoint + 1}/${N} #${checkpoint} checkpoint.recorded`);
    expectAt(checkpoint);
    expect(c.frame()).toContain('#2/2 · iteration 2 · NO_OBSERVED_PROGRESS · counter 1/3');

    await c.press(KEY.end);
    await c.waitForFrame(`replay ${N}/${N}`);
    expectAt(N - 1);
    await c.press(KEY.right); // past the end stays at the end
    expectAt(N - 1);
    await c.press(KEY.home);
    await c.press(KEY.left); // before the start stays at the start
    expectAt(0);

    // The command bar reads (the goal as of the event shown) and changes nothing in a
    // replay; q quits without asking.
    await c.press('/');
    for (const ch of 'goal status') await c.press(ch);
    await c.press(KEY.enter);
    await c.waitForFrame('✓ active · revision 0 · 1 criterion');
    await c.press('/');
    for (const ch of 'stop') await c.press(ch);
    await c.press(KEY.enter);
    await c.waitForFrame('✗ this is a replay: nothing can be changed');
    await c.press(KEY.escape);
    await c.press('q');
    expect(quit).toHaveBeenCalledTimes(1);
  });
});

describe('the command bar in a replay', () => {
  test('an unknown command suggests only what a replay answers', async () => {
    const { store, controller } = createReplay(events, vi.fn());
    const c = await renderStore(store, { controller, rows: 30 });
    await c.waitForFrame('replay ');
    await c.press('/');
    for (const ch of 'nonsense') await c.press(ch);
    await c.press(KEY.enter);
    const frame = await c.waitForFrame('✗ unknown command');
    const rows = frame.split('\n');
    expect(rows.filter((r) => r.startsWith('✗'))).toEqual(['✗ unknown command "/nonsense"; only /goal status and /help are answered here: nothing can be changed']);
    expect(frame).not.toContain('/goal redirect');
    expect(frame).not.toContain('/budget');
  });

  test.each([
    ['a replay', () => createReplay(events, vi.fn())],
    [
      'a followed session',
      () => {
        const store = createConsoleStore(events, { following: true });
        return { store, controller: followController({ readOnly: 'following a session: nothing can be changed from here' }, store, vi.fn()) };
      },
    ],
  ])('in %s a paste with the bar closed opens it with the text, and Enter answers it', async (_, make) => {
    const { store, controller } = make();
    const c = await renderStore(store, { controller, rows: 30 });
    await c.waitForFrame('Checkpoint');
    await c.press('\u001b[200~goal status\u001b[201~');
    await c.waitForFrame('/goal status');
    expect(store.getState().input).toBe('bar');
    await c.press(KEY.enter);
    await c.waitForFrame('✓ achieved · revision 0 · 1 criterion'); // the goal as of the event shown: the last
  });

  test('a followed session suggests the same', async () => {
    const store = createConsoleStore(events, { following: true });
    const controller = followController({ readOnly: 'following a session: nothing can be changed from here' }, store, vi.fn());
    const c = await renderStore(store, { controller, rows: 30 });
    await c.press('/');
    for (const ch of 'nonsense') await c.press(ch);
    await c.press(KEY.enter);
    const frame = await c.waitForFrame('✗ unknown command');
    expect(frame.split('\n').filter((r) => r.startsWith('✗'))).toEqual(['✗ unknown command "/nonsense"; only /goal status and /help are answered here: nothing can be changed']);
  });
});

describe('replay index', () => {
  test('the state at any event equals the fold of the events up to it, through cached snapshots', async () => {
    // A long run of thought-only turns: a few thousand events.
    const turns = Array.from({ length: 450 }, (_, i) => `  - thought: turn ${i + 1}`).join('\n');
    const { events: many } = await runHeadless(`turns:\n${turns}\n  - final: Done.\n`, { maxTurns: 500 });
    expect(many.length).toBeGreaterThan(2 * SNAPSHOT_EVERY);
    const index = new ReplayIndex(many);
    for (const k of [0, 1, SNAPSHOT_EVERY - 2, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY + 17, many.length - 1]) {
      expect(index.stateAt(k)).toEqual(fold(many.slice(0, k + 1)));
    }
    expect(index.cached).toBe(Math.floor(many.length / SNAPSHOT_EVERY) + 1);
    // Going back folds at most SNAPSHOT_EVERY events from a cached snapshot.
    const started = performance.now();
    for (let k = many.length - 1; k > many.length - 200; k--) index.stateAt(k);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('a damaged log in the replay console', () => {
  test('the lines skipped and the seq gap are on screen, not only on stderr before the console opens', async () => {
    const file = '/runs/x/events.jsonl';
    const warnings = [`${file}:7: skipped an unreadable line (not a JSON event)`, `${file}:7: seq gap: expected seq 6, found 7 at line 8: seq 6 missing; line 7 unreadable`];
    const { store, controller } = createReplay(events, vi.fn(), warnings);
    const c = await renderStore(store, { controller, rows: 30, columns: 400 });
    await c.waitForFrame('the log is damaged (2 problems, listed again on exit): line 7: skipped an unreadable line (not a JSON event); line 7: seq gap: expected seq 6, found 7 at line 8: seq 6 missing; line 7 unreadable');
  });
});

describe('a replay over a log still being read', () => {
  test('the cursor follows the reading from snapshot to snapshot; Home stays at the start while it reads on; End follows again; the window holds the events up to the cursor', async () => {
    const turns = Array.from({ length: 450 }, (_, i) => `  - thought: turn ${i + 1}`).join('\n');
    const { events: many } = await runHeadless(`turns:\n${turns}\n  - final: Done.\n`, { maxTurns: 500 });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-replay-reading-'));
    try {
      const file = path.join(dir, 'events.jsonl');
      writeFileSync(file, many.map((e) => `${toJson(e)}\n`).join(''));
      const index = new LogIndex(file, { every: 100 });
      index.readMore(250);
      const { store, controller, refresh } = createReplay(index, vi.fn());
      const at = () => store.getState().replay!.index;
      const check = () => {
        const s = store.getState();
        expect(s.session).toEqual(fold(many.slice(0, at() + 1)));
        expect(s.events[s.shown - 1]).toEqual(many[at()]);
        expect(s.dropped).toBe(Math.max(0, at() - LIVE_EVENTS + 1));
      };
      // Opens at the last snapshot read: event 199 of the 250 read.
      expect(store.getState().replay).toEqual({ index: 199, total: 250 });
      check();
      index.readMore(300);
      refresh();
      expect(at()).toBe(499);
      check();
      controller.replay!.jump('start');
      index.readMore(300);
      refresh();
      expect(store.getState().replay).toEqual({ index: 0, total: 850 });
      controller.replay!.step(3);
      check();
      controller.replay!.jump('end');
      expect(at()).toBe(799);
      while (!index.readMore(500));
      refresh();
      expect(store.getState().replay).toEqual({ index: many.length - 1, total: many.length });
      check();
      controller.replay!.step(-1);
      check();
      index.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a replay over a long log', () => {
  test('End, after Home, shows the events of the end without reading them again', async () => {
    const { events: run } = await runHeadless('turns:\n  - thought: one\n  - final: Done.\n', { maxTurns: 5 });
    // A log longer than the window: the run's events repeated (the states shown are the run's own; this is about reading).
    const count = 3 * (LIVE_EVENTS + 1000);
    const eventAt = (i: number) => ({ ...run[i % run.length]!, seq: i });
    let read = 0;
    const source = {
      complete: true,
      count,
      read: (from: number, to: number) => {
        const events = Array.from({ length: Math.max(0, Math.min(to, count) - from) }, (_, k) => eventAt(from + k));
        read += events.length;
        return events;
      },
      stateAt: (at: number) => fold(run.slice(0, (at % run.length) + 1)),
    };
    const { store, controller } = createReplay(source, vi.fn());
    expect(store.getState().replay!.index).toBe(count - 1);
    controller.replay!.jump('start');
    expect(store.getState().events[0]).toEqual(eventAt(0));
    read = 0;
    controller.replay!.jump('end');
    expect(store.getState().replay!.index).toBe(count - 1);
    expect(store.getState().events.at(-1)).toEqual(eventAt(count - 1));
    expect(store.getState().events).toHaveLength(LIVE_EVENTS);
    expect(read).toBe(0);
  });
});
