/**
 * Feeds a console store from events read off a file another program writes, in batches as
 * the live console does ({@link batchInto}), but guarded: an event the fold cannot take (a
 * log damaged or written by something else) is left out with a notice instead of ending
 * the console, and the events around it still show.
 */
import type { LoopEvent } from '../engine/events.js';
import { describeError } from '../engine/errors.js';
import { batchInto, type ConsoleStore } from '../ui/store.js';

/** What the feed reports about an event it left out. */
export type RejectListener = (event: LoopEvent, why: string) => void;

/**
 * @returns `push` for each event, `flush` to apply what is pending now, `stop` to drop the timer
 */
export function guardedFeed(store: ConsoleStore, intervalMs: number, onReject: RejectListener): ReturnType<typeof batchInto> {
  const applyOne = (event: LoopEvent) => {
    try {
      store.getState().apply([event]);
    } catch (error) {
      onReject(event, describeError(error));
    }
  };
  return batchInto(store, intervalMs, (batch) => {
    try {
      store.getState().apply(batch);
    } catch {
      // The fold applies a batch whole or not at all: find the event it cannot take.
      for (const event of batch) applyOne(event);
    }
  });
}
