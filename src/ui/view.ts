import { INITIAL_DASHBOARD, type DashboardActions, type DashboardState } from './slices/dashboard.js';
import { INITIAL_INPUT, type InputActions, type InputState } from './slices/input.js';
import { INITIAL_OVERLAY, type OverlayActions, type OverlayState } from './slices/overlay.js';
import { INITIAL_PROMPT, type PromptActions, type PromptState } from './slices/prompt.js';

/**
 * What the operator is looking at, apart from the session itself: the open overlay or
 * input, the panel, the timeline's filter, selection and follow mode, the checkpoint
 * browsed, acknowledged alerts. The store holds it in four slices (slices/), each with its
 * named actions; keys change it only through the key reducers (reducers/), which return
 * the actions to take.
 */

/** The detail panels of the dashboard. */
export type Pane = 'checkpoint' | 'goal' | 'tool' | 'progress';
export const PANES: readonly Pane[] = ['checkpoint', 'goal', 'tool', 'progress'];

/** What a one-view body (compact layout, short terminal) shows: the timeline or one panel. */
export type CompactBody = 'timeline' | Pane;

/**
 * Everything the operator is looking at apart from the session: the four view slices'
 * data (slices/), which the store holds side by side at its top level.
 */
export type ViewState = OverlayState & InputState & DashboardState & PromptState;

/** The view slices' named actions: what the key reducers ask for. */
export type ViewActions = OverlayActions & InputActions & DashboardActions & PromptActions;

/** Timeline filters, in the order `f` cycles them. */
export const FILTERS = ['activity', 'all', 'tools', 'model', 'checkpoints', 'alerts', 'goal', 'budget', 'flow'] as const;
export type TimelineFilter = (typeof FILTERS)[number];

/** The view before any key: nothing open, the timeline following the newest event. */
export const INITIAL_VIEW: ViewState = { ...INITIAL_OVERLAY, ...INITIAL_INPUT, ...INITIAL_DASHBOARD, ...INITIAL_PROMPT };

/** The next (or previous) item of a cycle. */
export function cycle<T>(items: readonly T[], current: T, delta: number): T {
  const index = items.indexOf(current);
  return items[(((index + delta) % items.length) + items.length) % items.length]!;
}

/** Moves the checkpoint browsed by `delta` within `count` checkpoints; the latest is `null`. */
export function browseCheckpoint(current: number | null, delta: number, count: number): number | null {
  if (count === 0) return null;
  const from = current ?? count - 1;
  const next = Math.max(0, Math.min(count - 1, from + delta));
  return next === count - 1 ? null : next;
}
