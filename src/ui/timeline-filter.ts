import type { EventType, LoopEvent } from '../engine/events.js';
import type { TimelineFilter } from './view.js';

/** Event types hidden by the default `activity` filter: bookkeeping, not activity. */
const BOOKKEEPING = new Set<EventType>(['state.transition', 'step.start', 'workspace.snapshot', 'process.start']);

const GROUPS: Record<Exclude<TimelineFilter, 'activity' | 'all'>, ReadonlySet<EventType>> = {
  tools: new Set(['tool.call', 'tool.ask', 'tool.decision', 'tool.result', 'tool.error']),
  model: new Set(['model.call', 'agent.message', 'plan.draft', 'plan.commit', 'reflection.recorded', 'verify.result', 'context.compacted']),
  checkpoints: new Set(['checkpoint.recorded', 'progress.assessed', 'stagnation.detected', 'checkpoint.unknown', 'workspace.snapshot']),
  alerts: new Set(['stagnation.detected', 'checkpoint.unknown', 'repetition.detected', 'tool.error', 'hook.error', 'budget.warn', 'abort.recorded', 'process.reaped']),
  goal: new Set(['goal.revised', 'session.start', 'verify.result', 'session.complete', 'acceptance.checked']),
  budget: new Set(['agent.usage', 'budget.warn', 'budget.extended', 'session.pause', 'session.resume', 'context.compacted']),
  flow: new Set(['state.transition', 'session.start', 'session.pause', 'session.resume', 'session.complete', 'lap.start', 'lap.end', 'process.reaped']),
};

/** Whether the filter shows an event of this type. */
export function shows(filter: TimelineFilter, type: EventType): boolean {
  if (filter === 'all') return true;
  if (filter === 'activity') return !BOOKKEEPING.has(type);
  return GROUPS[filter].has(type);
}

/** The events a filter shows among the first `count` of `events`. */
export function filtered(events: readonly LoopEvent[], count: number, filter: TimelineFilter): LoopEvent[] {
  const out: LoopEvent[] = [];
  const end = Math.min(count, events.length);
  for (let i = 0; i < end; i++) if (shows(filter, events[i]!.type)) out.push(events[i]!);
  return out;
}

/** Events that mark an alert in the timeline's gutter. */
export function isAlert(event: LoopEvent): boolean {
  return (
    event.type === 'stagnation.detected' ||
    event.type === 'checkpoint.unknown' ||
    event.type === 'repetition.detected' ||
    (event.type === 'checkpoint.recorded' && event.data.checkpoint.stagnation_detected)
  );
}

/** The index in `list` of the event with `seq`, or of the last event before it; -1 when none. */
export function indexAtOrBefore(list: readonly LoopEvent[], seq: number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.seq <= seq) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * The rows of `list` a timeline of `height` rows shows: the newest ones while following,
 * else a window that keeps the selected event in view (near the bottom when it can).
 * @returns the window `[start, end)` and the index of the selected row (-1 when following)
 */
export function windowOf(list: readonly LoopEvent[], height: number, follow: boolean, selected: number | null): { start: number; end: number; selected: number } {
  const rows = Math.max(0, height);
  if (follow || selected === null) return { start: Math.max(0, list.length - rows), end: list.length, selected: -1 };
  const index = Math.max(0, indexAtOrBefore(list, selected));
  const end = Math.min(list.length, Math.max(index + 1, rows));
  return { start: Math.max(0, end - rows), end, selected: list.length === 0 ? -1 : index };
}

/** The selection after moving `delta` rows in `list` (from the newest while following). */
export function moveSelection(list: readonly LoopEvent[], follow: boolean, selected: number | null, delta: number): { follow: boolean; selected: number | null } {
  if (list.length === 0) return { follow, selected };
  const from = follow || selected === null ? list.length - 1 : Math.max(0, indexAtOrBefore(list, selected));
  const index = Math.max(0, Math.min(list.length - 1, from + delta));
  return { follow: false, selected: list[index]!.seq };
}
