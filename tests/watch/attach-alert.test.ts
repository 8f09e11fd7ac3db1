// What an attached console says follows an alert: what the run does about it, as the
// event's action says, never that loopdeck cannot pause the session (a watch's wording).
import { expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { alertOf } from '../../src/watch/alerts.js';
import { attachedAlertNote } from '../../src/watch/attach.js';

const event = (type: string, data: Record<string, unknown>) => ({ seq: 1, at: 0, session: 's', type, data }) as LoopEvent;

it('says the run pauses, stops or goes on as the action of the detection says, and that it acts by its own policy otherwise', () => {
  const stagnation = (action: string) => event('stagnation.detected', { counter: 3, threshold: 3, iteration: 9, action });
  expect(attachedAlertNote(stagnation('pause'))).toBe('the run pauses on it, and answers the pause by its own --on-pause');
  expect(attachedAlertNote(stagnation('stop'))).toBe('the run stops on it');
  expect(attachedAlertNote(event('checkpoint.unknown', { iteration: 9, in_row: 2, why: 'x', action: 'alert' }))).toBe('the run goes on: its policy only alerts');
  const repetition = event('repetition.detected', { hash: 'h', count: 3, calls: [] });
  const budget = event('budget.warn', { dimension: 'turns', used: 50, limit: 50, exceeded: true });
  for (const alert of [repetition, budget]) {
    expect(alertOf(alert)).not.toBeNull();
    expect(attachedAlertNote(alert)).toBe('the run acts on it by its own policy, not this console');
  }
});
