import { EMPTY_HISTORY, EMPTY_LINE, type HistoryState, type LineState } from './line-editor.js';

/**
 * What the operator is looking at, apart from the session itself: the open overlay or
 * input, the panel, the timeline's filter, selection and follow mode, the checkpoint
 * browsed, acknowledged alerts. Pure data and pure updates; the store holds it. Keys change
 * it only through the key reducers (reducers/), each owning one part.
 */

/** The detail panels of the dashboard. */
export type Pane = 'checkpoint' | 'goal' | 'tool' | 'progress';
export const PANES: readonly Pane[] = ['checkpoint', 'goal', 'tool', 'progress'];

/** What a one-view body (compact layout, short terminal) shows: the timeline or one panel. */
export type CompactBody = 'timeline' | Pane;

/** What covers the body, and where it is scrolled (the overlay reducer's part). */
export interface OverlayView {
  /** An overlay over the body: help, an opened event, the quit confirmation. */
  overlay: 'help' | 'event' | 'quit' | null;
  /** The event opened in the event overlay. */
  opened: number | null;
  /** Scroll offset of the overlay. */
  scroll: number;
}

/** The focused text input and its line (the bar and note reducers' part). */
export interface InputView {
  /** A focused text input: the command bar or the deny note. */
  input: 'bar' | 'note' | null;
  /** The text of the open input (command bar or deny note). */
  line: LineState;
  /** The command bar's completion list (empty: closed) and its highlighted row. */
  completions: readonly string[];
  highlight: number;
  /** Lines run from the command bar. */
  history: HistoryState;
  /** A command-bar line is running: Enter again does nothing. */
  busy: boolean;
}

/** The timeline and the panels beside it (the dashboard reducer's part). */
export interface DashboardView {
  pane: Pane;
  /** A one-view body (compact layout, short terminal): the timeline or a panel. */
  compactBody: CompactBody;
  filter: TimelineFilter;
  /** The timeline sticks to the newest event. */
  follow: boolean;
  /** The selected event's seq while not following. */
  selected: number | null;
  /** The checkpoint shown, by index; `null` for the latest. */
  checkpoint: number | null;
  /** How many of the session's alerts the operator has acknowledged. */
  acknowledged: number;
}

/** The pending prompt as the operator sees it (the prompt and global reducers' part). */
export interface PromptView {
  /** Show every line of a long tool argument. */
  expandArgs: boolean;
  /** Ctrl+C was pressed once: a pause was asked for; another Ctrl+C quits. */
  interrupted: boolean;
  /** The pending prompt whose keys are armed (its `seq`), after it has been on screen briefly. */
  armed: number | null;
}

/** Everything the operator is looking at apart from the session, in four parts. */
export type ViewState = OverlayView & InputView & DashboardView & PromptView;

/** Timeline filters, in the order `f` cycles them. */
export const FILTERS = ['activity', 'all', 'tools', 'model', 'checkpoints', 'alerts', 'goal', 'budget', 'flow'] as const;
export type TimelineFilter = (typeof FILTERS)[number];

export const INITIAL_VIEW: ViewState = {
  overlay: null,
  input: null,
  pane: 'checkpoint',
  compactBody: 'timeline',
  filter: 'activity',
  follow: true,
  selected: null,
  checkpoint: null,
  acknowledged: 0,
  expandArgs: false,
  interrupted: false,
  armed: null,
  opened: null,
  scroll: 0,
  line: EMPTY_LINE,
  completions: [],
  highlight: 0,
  history: EMPTY_HISTORY,
  busy: false,
};

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

/** A new prompt is shown (or the last one went): its argument lines start folded and a deny note being typed for the old one closes. */
export function promptChanged(view: ViewState): ViewState {
  if (!view.expandArgs && view.input !== 'note') return view;
  return { ...view, expandArgs: false, ...(view.input === 'note' ? { input: null, line: EMPTY_LINE } : {}) };
}
