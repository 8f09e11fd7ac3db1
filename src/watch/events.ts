/**
 * Numbering of the events a watch or an attached console makes itself: `seq` dense from 0,
 * `at` from the injected clock, one session id. Everything a watch shows goes through one
 * {@link EventSink}, so the timeline, the panels and the alerts read one ordered stream.
 */
import type { EventDataMap, EventType, LoopEvent } from '../engine/events.js';

/** Receives each event as it is made. */
export type EventListener = (event: LoopEvent) => void;

/** Makes events of one session and hands each to the listener. */
export class EventSink {
  private seq = 0;

  constructor(
    readonly session: string,
    private readonly now: () => number,
    private readonly listener: EventListener,
  ) {}

  /** Makes the next event of `type` and hands it on. @returns the event */
  emit<T extends EventType>(type: T, data: EventDataMap[T]): LoopEvent {
    const event = { seq: this.seq++, at: this.now(), session: this.session, type, data } as LoopEvent;
    this.listener(event);
    return event;
  }
}
