// Bursts: thousands of events arriving at once cost one store update (and one render) per
// batch interval, not one per event, and a key pressed in the middle is handled at once.
// A long run: the console holds a bounded number of events; the fold still sees them all.
import { test, expect } from 'vitest';

import React from 'react';
import { stripVTControlCharacters } from 'node:util';
import { fold } from '../../src/engine/index.js';
import { App } from '../../src/ui/App.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { batchInto, createConsoleStore, LIVE_EVENTS } from '../../src/ui/store.js';
import { recordSession } from '../../bench/make-log.js';
import { inAct, KEY, runHeadless, waitUntil } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER, renderStore } from '../support/ui-helpers.js';
import { renderTerminal } from '../support/terminal.js';

test('a burst of events is batched: few store updates and renders; a key in the middle is handled at once', async () => {
  const turns = Array.from({ length: 400 }, (_, i) => `  - thought: turn ${i + 1}`).join('\n');
  const { events } = await runHeadless(`turns:\n${turns}\n  - final: Done.\n`, { maxTurns: 500 });
  expect(events.length).toBeGreaterThan(2000);

  const store = createConsoleStore();
  let updates = 0;
  store.subscribe(() => updates++);
  let renders = 0;
  const terminal = renderTerminal(
    <ConsoleProvider store={store} controller={READ_ONLY_CONTROLLER}>
      <App />
    </ConsoleProvider>,
    { columns: 100, rows: 30, onRender: () => renders++ },
  );
  await waitUntil(() => terminal.stdin.listenerCount('readable') > 0, 'the console to listen');
  const feed = batchInto(store, 16);
  updates = 0;
  renders = 0;

  // The events arrive in groups of 50 every few milliseconds (~20 000 events/s), with a
  // keypress half-way through.
  const started = performance.now();
  let keyAt = 0;
  let keyLatency = Infinity;
  let overlayAtOnce: string | null = null;
  for (let i = 0; i < events.length; i += 50) {
    for (const event of events.slice(i, i + 50)) feed.push(event);
    if (i === 1000) {
      keyAt = performance.now();
      await inAct(() => terminal.stdin.write('?'));
      keyLatency = performance.now() - keyAt;
      // Handled as it arrived, events still pending in the batch.
      overlayAtOnce = store.getState().overlay;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  feed.flush();
  const elapsed = performance.now() - started;

  const batches = Math.ceil(events.length / 50);
  // One update per 16 ms batch at most (plus the key's view change), far fewer than events.
  expect(updates).toBeLessThanOrEqual(Math.ceil(elapsed / 16) + 4);
  expect(updates).toBeLessThan(batches);
  expect(renders).toBeLessThan(events.length / 20);
  expect(overlayAtOnce).toBe('help');
  expect(keyLatency).toBeLessThan(250);
  expect(store.getState().session).toEqual(fold(events));
  expect(store.getState().events).toHaveLength(events.length);
  terminal.unmount();
});

test('a long run: the console holds the newest events, says how many older ones are in the log, and every panel still counts them all', async () => {
  const total = 2 * LIVE_EVENTS + 500;
  const { events } = await recordSession(total);
  const first = events.slice(0, LIVE_EVENTS + 500);
  const store = createConsoleStore();
  const c = await renderStore(store, { columns: 100, rows: 30 });
  await inAct(() => {
    for (let i = 0; i < first.length; i += 1000) store.getState().apply(first.slice(i, i + 1000));
  });

  const held = store.getState();
  expect(held.events).toHaveLength(LIVE_EVENTS);
  expect(held.dropped).toBe(500);
  expect(held.events[0]!.seq).toBe(500);
  expect(held.session).toEqual(fold(first));
  await c.waitForFrame(/ \d+ events \(500 older in the log\) · following/);

  // Open the event before the newest; it stays open while newer events arrive, until the
  // console lets it go, and then says where it is.
  await c.press(KEY.up);
  await c.press(KEY.enter);
  const opened = store.getState().opened!;
  const type = events[opened]!.type;
  expect(opened).toBeGreaterThan(first.at(-1)!.seq - 10);
  await c.waitForFrame(`Event #${opened} ${type}`);
  await inAct(() => store.getState().apply(events.slice(first.length, first.length + 1000)));
  expect(c.frame()).toContain(`Event #${opened} ${type}`);
  await inAct(() => store.getState().apply(events.slice(first.length + 1000)));
  await c.waitForFrame(`Event #${opened} is no longer held by the console`);
  expect(store.getState().session).toEqual(fold(events));
  expect(events.length).toBeGreaterThanOrEqual(total);
  expect(store.getState().session.eventCount).toBe(events.length);
});

test('a key read while a batch was due gets its frame first; the batch follows in the next', async () => {
  const turns = Array.from({ length: 40 }, (_, i) => `  - thought: turn ${i + 1}`).join('\n');
  const { events } = await runHeadless(`turns:\n${turns}\n  - final: Done.\n`, { maxTurns: 100 });
  const store = createConsoleStore(events.slice(0, 10));
  const terminal = renderTerminal(
    <ConsoleProvider store={store} controller={READ_ONLY_CONTROLLER}>
      <App />
    </ConsoleProvider>,
    { columns: 100, rows: 30 },
  );
  await waitUntil(() => terminal.stdin.listenerCount('readable') > 0, 'the console to listen');
  const order: string[] = [];
  store.subscribe((now, before) => {
    if (now.overlay !== before.overlay) order.push('key');
    if (now.session.eventCount !== before.session.eventCount) order.push('batch');
  });
  const feed = batchInto(store, 20);
  for (const event of events.slice(10)) feed.push(event);
  // The key arrives 5 ms after the batch is due, while the event loop is busy (a frame
  // being drawn): when it is free, both are waiting.
  setTimeout(() => terminal.stdin.write('?'), 25);
  const busyUntil = performance.now() + 60;
  while (performance.now() < busyUntil) {
    // busy
  }
  await waitUntil(() => store.getState().session.eventCount === events.length && store.getState().overlay === 'help', 'the key and the batch');
  expect(order).toEqual(['key', 'batch']);
  // Its frame is on screen: help over the body.
  expect(stripVTControlCharacters(terminal.stdout.frames.at(-1) ?? '')).toContain('Help · keys and commands');
  terminal.unmount();
});
