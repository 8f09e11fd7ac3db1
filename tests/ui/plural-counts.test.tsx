// Counts the console prints agree with their nouns: `one every iteration`, `1 step`,
// `1 checkpoint in a row`, `the transcript has 1 turn`, never `1 iterations` or `step(s)`.
import { test, expect } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { describeEvent } from '../../src/ui/describe.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { renderStore } from '../support/ui-helpers.js';

/** The checkpoint panel's rows before the run's first checkpoint, with one every `every` iterations. */
async function beforeFirstCheckpoint(every: number): Promise<string> {
  const { events } = await runHeadless('turns:\n  - final: Done.\n', { every });
  const start = events.findIndex((e) => e.type === 'session.start');
  const c = await renderStore(createConsoleStore(events.slice(0, start + 1)), { rows: 30 });
  const frame = await c.waitForFrame('No checkpoint yet');
  return frame.split('\n').find((r) => r.startsWith('No checkpoint yet'))!.trimEnd();
}

test('the checkpoint panel before the first checkpoint: one every iteration, one every 2 iterations', async () => {
  expect(await beforeFirstCheckpoint(1)).toBe('No checkpoint yet (one every iteration).');
  expect(await beforeFirstCheckpoint(2)).toBe('No checkpoint yet (one every 2 iterations).');
});

test('a script of one turn that runs out says it has 1 turn, in the status line', async () => {
  const { events } = await runHeadless('turns:\n  - thought: One.\n', { verify: 'node -e "process.exit(1)"' });
  const c = await renderStore(createConsoleStore(events), { rows: 30 });
  const frame = await c.waitForFrame('the transcript has');
  expect(frame).toContain('the transcript has 1 turn and turn 2 was asked for');
  // The plan of one step, in the timeline.
  expect(frame).toContain('plan drafted: 1 step\n');
});

test('event summaries: one checkpoint in a row, one new commit, one turn kept', () => {
  const at = { seq: 1, at: 0, session: 's' };
  expect(describeEvent({ ...at, type: 'checkpoint.unknown', data: { iteration: 1, in_row: 1, why: 'nothing measured', action: 'alert' } } as LoopEvent)).toBe('UNKNOWN 1 checkpoint in a row → alert: nothing measured');
  expect(describeEvent({ ...at, type: 'checkpoint.unknown', data: { iteration: 2, in_row: 2, why: 'nothing measured', action: 'pause' } } as LoopEvent)).toBe('UNKNOWN 2 checkpoints in a row → pause: nothing measured');
  expect(describeEvent({ ...at, type: 'plan.commit', data: { kind: 'initial', steps: ['a'] } } as unknown as LoopEvent)).toBe('plan committed (initial): 1 step');
  expect(describeEvent({ ...at, type: 'plan.draft', data: { steps: ['a', 'b'] } } as unknown as LoopEvent)).toBe('plan drafted: 2 steps');
});
