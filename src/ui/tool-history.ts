import type { LoopEvent, ToolCall } from '../engine/index.js';
import type { KeyLayout } from './reducers/reduction.js';
import { eventBySeq, type ConsoleData } from './store.js';

/**
 * Which tool call the tool panel shows. Pure functions of the console's data: the calls
 * come from the session fold (`toolOrder`, `tools`), which keeps every call of the run, so
 * the panel can step back to the run's first call even after the console let the call's
 * events go (it holds the newest `LIVE_EVENTS`); only opening such a call's event needs
 * the log.
 */

/** What the choice of the call shown reads. */
export type ToolView = Pick<ConsoleData, 'session' | 'events' | 'follow' | 'selected' | 'toolCall'>;

/** The tool call an event is about, if any. */
export function callIdOf(event: LoopEvent | undefined): string | null {
  if (!event) return null;
  switch (event.type) {
    case 'tool.call':
      return event.data.call.id;
    case 'tool.ask':
    case 'tool.decision':
      return event.data.call_id;
    case 'tool.result':
      return event.data.result.call_id;
    case 'tool.error':
      return event.data.call_id;
    default:
      return null;
  }
}

/** The place (0-based, in `toolOrder`) of the call the timeline's selected event is about; `null` when following or it is about no recorded call. */
export function timelineCall(s: ToolView): number | null {
  if (s.follow || s.selected === null) return null;
  const id = callIdOf(eventBySeq(s.events, s.selected));
  const index = id === null ? -1 : s.session.toolOrder.indexOf(id);
  return index < 0 ? null : index;
}

/**
 * The place (0-based) of the call the tool panel shows, or `null` before the first call:
 * the call the operator stepped back to (`toolCall`; a replay stepped back before it shows
 * its newest call instead), else the call of the event selected in the timeline, else the newest.
 */
export function shownCall(s: ToolView): number | null {
  const count = s.session.toolOrder.length;
  if (count === 0) return null;
  if (s.toolCall !== null) return Math.min(s.toolCall, count - 1);
  return timelineCall(s) ?? count - 1;
}

/** The tool call panel is on screen: the panel beside the timeline, or the one view of a small terminal. */
export function toolPanelShown(s: Pick<ConsoleData, 'pane' | 'compactBody'>, layout: Pick<KeyLayout, 'single'>): boolean {
  return layout.single ? s.compactBody === 'tool' : s.pane === 'tool';
}

/** The call's `tool.call` event is still held by the console (a live console lets the oldest events go). */
export function callEventHeld(s: Pick<ConsoleData, 'session' | 'events'>, index: number): boolean {
  const id = s.session.toolOrder[index];
  const record = id === undefined ? undefined : s.session.tools.get(id);
  return record !== undefined && eventBySeq(s.events, record.seq) !== undefined;
}

/**
 * The call a pause is about when it was not made: a repetition pause stops before the
 * repeated call is dispatched, so the run's calls end with the one before it. `null` at any
 * other time (no such pause, or the call is the last one recorded: a CLI agent's).
 */
export function pausedCall(s: Pick<ConsoleData, 'session'>): ToolCall | null {
  const { pending, alerts, toolOrder } = s.session;
  if (pending?.kind !== 'pause' || pending.cause.kind !== 'repetition') return null;
  let i = alerts.length - 1;
  while (i >= 0 && alerts[i]!.kind !== 'repetition') i--;
  const call = i >= 0 ? alerts[i]!.call : undefined;
  if (!call) return null;
  return toolOrder[toolOrder.length - 1] === call.id ? null : call;
}

/** The live call the panel shows is a call not made yet ({@link pausedCall}): not stepped back, nothing selected in the timeline. */
export function unmadeCallShown(s: ToolView): ToolCall | null {
  return s.toolCall === null && timelineCall(s) === null ? pausedCall(s) : null;
}
