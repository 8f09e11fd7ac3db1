// The header's elapsed time is the run's: the hours between a quit and the resume, when no
// loopdeck process ran the session, are left out (the fold's `offlineMs`).
import { expect, test } from 'vitest';

import { readFileSync } from 'node:fs';
import path from 'node:path';
import React from 'react';
import { render } from 'ink-testing-library';
import { fold } from '../../src/engine/fold.js';
import type { LoopEvent } from '../../src/engine/index.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { Header } from '../../src/ui/Header.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';

const LOG = path.resolve(import.meta.dirname, '../fixtures/logs/resumed.jsonl');
const events = readFileSync(LOG, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as LoopEvent);

/** The log with the resume, and everything after it, `ms` later: the session sat quit that long. */
function resumedLater(ms: number): LoopEvent[] {
  const at = events.findIndex((e) => e.type === 'session.resume');
  return events.map((e, i) => (i >= at ? { ...e, at: e.at + ms } : e));
}

/** The header's state row (the one with the elapsed time) over `log`. */
function stateRow(log: LoopEvent[]): string {
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(log)} controller={READ_ONLY_CONTROLLER}>
      <Header width={120} />
    </ConsoleProvider>,
  );
  const frame = lastFrame() ?? '';
  unmount();
  return frame.split('\n').find((row) => row.includes('iteration')) ?? frame;
}

const GAP = (2 * 24 + 3) * 3600_000 + 17_000;

test('a resume two days after the quit adds nothing to the elapsed time shown', () => {
  expect(events.some((e) => e.type === 'session.resume')).toBe(true);
  expect(fold(resumedLater(GAP)).offlineMs - fold(events).offlineMs).toBe(GAP);
  const row = stateRow(resumedLater(GAP));
  expect(row).toBe(stateRow(events));
  expect(row).not.toMatch(/\b\d+[dh]\b|51h/);
});

test('the time the run spent before and after the gap still counts', () => {
  const at = events.findIndex((e) => e.type === 'session.resume');
  // Ninety seconds more of work after the resume: ninety seconds more elapsed.
  const longer = resumedLater(GAP).map((e, i) => (i > at ? { ...e, at: e.at + 90_000 } : e));
  expect(stateRow(events)).toMatch(/· 3s$/);
  expect(stateRow(longer)).toMatch(/· 1m33s$/);
});
