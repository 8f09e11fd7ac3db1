// The console store: the progress panel's data comes from the fold as each event is
// folded (never from a walk over the held events), and a panel is drawn again only when
// the data it selects changes. A long laps run is built from the frozen corpus's
// laps-command log, its lap repeated with fresh numbers.
import { describe, test, expect, beforeAll, afterEach } from 'vitest';

import { readFileSync } from 'node:fs';
import React, { Profiler } from 'react';
import { fold, type LoopEvent } from '../../src/engine/index.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { ProgressPanel } from '../../src/ui/ProgressPanel.js';
import { selectProgress } from '../../src/ui/progress.js';
import { createConsoleStore, LIVE_EVENTS, type ConsoleStore } from '../../src/ui/store.js';
import { inAct, waitUntil } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';
import { renderTerminal, type Terminal } from '../support/terminal.js';

const CORPUS = new URL('../fixtures/logs/laps-command.jsonl', import.meta.url);
const TOTAL = 50_000;

/**
 * The corpus's laps run (up to the end of lap 2), then its lap repeated with fresh lap,
 * step and turn numbers, a hand-over file and a tree that changes every other lap, then
 * notices within the last lap until `TOTAL` events: the last lap.start is long let go
 * from the events a live console holds.
 */
function longLapsRun(): LoopEvent[] {
  const corpus = readFileSync(CORPUS, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as LoopEvent);
  const events = corpus.slice(0, 22); // through lap 2's lap.end
  const lap = corpus.slice(13, 22); // lap.start … lap.end of lap 2
  const next = (e: LoopEvent, data: unknown): LoopEvent => ({ ...e, seq: events.length, at: e.at + events.length, data }) as LoopEvent;
  const add = (n: number, progress: string) => {
    for (const e of lap) {
      const d = e.data as Record<string, unknown>;
      if (e.type === 'lap.start') events.push(next(e, { ...d, lap: n, max_laps: 99_999, progress }));
      else if (e.type === 'lap.end') events.push(next(e, { ...d, lap: n }));
      else if (e.type === 'step.start') events.push(next(e, { ...d, step: n, turn: n }));
      else if (e.type === 'step.end') events.push(next(e, { ...d, step: n }));
      else if (e.type === 'model.call') events.push(next(e, { ...d, turn: n, request_chars: 1000 + n, long_session_chars: 1000 * n }));
      else if (e.type === 'workspace.snapshot') events.push(next(e, { ...d, tree: `tree-${n >> 1}` }));
      else events.push(next(e, d));
    }
  };
  let n = 3;
  while (events.length < TOTAL - LIVE_EVENTS - 2_000) add(n, `done: ${n - 1} slice(s)\n`), n++;
  add(n, 'the last hand-over');
  events.pop(); // the last lap goes on: no lap.end
  const last = events.at(-1)!;
  while (events.length < TOTAL) events.push({ seq: events.length, at: last.at + events.length, session: last.session, type: 'agent.notice', data: { text: `notice ${events.length}` } });
  return events;
}

/** An array that throws on any use: a stand-in for the held events that nothing may read. */
function untouchable(): LoopEvent[] {
  return new Proxy([] as LoopEvent[], {
    get(_, key) {
      throw new Error(`the event array was read (${String(key)})`);
    },
  });
}

let events: LoopEvent[];
beforeAll(() => {
  events = longLapsRun();
});

describe('the progress panel reads the fold', () => {
  test('after 50,000 events fed in batches, the progress data equals a fold from scratch, with the last hand-over long let go', () => {
    expect(events).toHaveLength(TOTAL);
    const store = createConsoleStore();
    for (let i = 0; i < events.length; i += 100) {
      store.getState().apply(events.slice(i, i + 100));
      if ((i + 100) % 10_000 === 0) expect(selectProgress(store.getState())).toEqual(selectProgress({ session: fold(events.slice(0, i + 100)) }));
    }
    const live = store.getState();
    expect(live.events).toHaveLength(LIVE_EVENTS);
    expect(live.events.some((e) => e.type === 'lap.start')).toBe(false);
    expect(selectProgress(live)).toEqual(selectProgress({ session: fold(events) }));
    expect(selectProgress(live)).toMatchObject({ handover: 'the last hand-over', maxLaps: 99_999 });
  });

  test('selecting the progress data never reads the event array', () => {
    const store = createConsoleStore(events);
    const expected = selectProgress(store.getState());
    store.setState({ events: untouchable() });
    expect(selectProgress(store.getState())).toEqual(expected);
  });
});

const terminals: Terminal[] = [];
afterEach(() => {
  for (const t of terminals.splice(0)) t.unmount();
});

/** The progress panel alone over `store`, counting its renders. */
async function progressPanel(store: ConsoleStore): Promise<{ terminal: Terminal; renders: () => number }> {
  let renders = 0;
  const terminal = renderTerminal(
    <ConsoleProvider store={store} controller={READ_ONLY_CONTROLLER}>
      <Profiler id="progress" onRender={() => renders++}>
        <ProgressPanel height={12} width={100} />
      </Profiler>
    </ConsoleProvider>,
    { columns: 100, rows: 14 },
  );
  terminals.push(terminal);
  await waitUntil(() => terminal.frame().includes('laps'), 'the progress panel');
  return { terminal, renders: () => renders };
}

describe('the progress panel is drawn from the store, not the events', () => {
  test('it draws and follows the fold while the held events cannot be read at all', async () => {
    const head = events.slice(0, 30);
    const store = createConsoleStore(head);
    store.setState({ events: untouchable() });
    const { terminal } = await progressPanel(store);
    expect(terminal.frame()).toContain('lap 3/99999');
    // The session moves on (as a replay cursor moves it); the panel follows without the events.
    await inAct(() => store.setState({ session: fold(events.slice(30, 60), store.getState().session) }));
    await waitUntil(() => terminal.frame().includes('lap 7/99999'), 'lap 7', () => terminal.frame());
    expect(terminal.frame()).toContain('done: 6 slice(s)');
  });

  test('events and keys that leave its data alone do not draw it again; a change of its data does', async () => {
    const head = events.slice(0, 40);
    const store = createConsoleStore(head);
    const { terminal, renders } = await progressPanel(store);
    const before = renders();
    let seq = head.at(-1)!.seq;
    const notice = (): LoopEvent => ({ seq: ++seq, at: head.at(-1)!.at + seq, session: head[0]!.session, type: 'agent.notice', data: { text: `n${seq}` } });
    for (let batch = 0; batch < 5; batch++) await inAct(() => store.getState().apply([notice(), notice(), notice()]));
    await inAct(() => {
      const s = store.getState();
      s.select(3);
      s.showFilter('all');
      s.openBar('/');
      s.showPane('goal');
      s.acknowledgeAlerts(0);
    });
    expect(renders()).toBe(before);
    const snapshot = head.findLast((e) => e.type === 'workspace.snapshot')!;
    expect(terminal.frame()).toContain('files changed in the last step');
    await inAct(() => store.getState().apply([{ ...snapshot, seq: ++seq }]));
    await waitUntil(() => terminal.frame().includes('no file changed in 1 step'), 'the workspace row to change');
    expect(renders()).toBe(before + 1);
  });
});
