import type { StateCreator } from 'zustand/vanilla';
import type { ConsoleState } from '../store.js';
import type { CompactBody, Pane, TimelineFilter } from '../view.js';

/** The timeline and the panels beside it. */
export interface DashboardState {
  /** The detail panel shown beside the timeline. */
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
  /**
   * The tool call the tool panel shows, by its place in the run's calls (0-based, the
   * session's `toolOrder`); `null`: the live call (the one selected in the timeline, else
   * the newest). The calls only ever grow, so new calls never move it.
   */
  toolCall: number | null;
}

/** The dashboard slice's actions. */
export interface DashboardActions {
  /** Shows `pane` beside the timeline. */
  showPane: (pane: Pane) => void;
  /** Shows `body` in a one-view body; a panel is also the pane shown when the terminal grows. */
  showBody: (body: CompactBody) => void;
  /** Selects the event `seq` in the timeline, which stops following the newest. */
  select: (seq: number) => void;
  /** The timeline follows the newest event again. */
  followNewest: () => void;
  /** Shows the events of `filter` in the timeline. */
  showFilter: (filter: TimelineFilter) => void;
  /** Browses to the checkpoint at `index` (`null`: the latest). */
  showCheckpoint: (index: number | null) => void;
  /** The first `count` alerts have been seen. */
  acknowledgeAlerts: (count: number) => void;
  /** Shows the tool call at `index` of the run's calls in the tool panel (`null`: the live call). */
  showToolCall: (index: number | null) => void;
}

export const INITIAL_DASHBOARD: DashboardState = {
  pane: 'checkpoint',
  compactBody: 'timeline',
  filter: 'activity',
  follow: true,
  selected: null,
  checkpoint: null,
  acknowledged: 0,
  toolCall: null,
};

/** The dashboard slice: the timeline's filter and selection, the panel shown, the checkpoint and the tool call browsed, alerts seen. */
export const createDashboardSlice: StateCreator<ConsoleState, [], [], DashboardState & DashboardActions> = (set) => ({
  ...INITIAL_DASHBOARD,
  showPane: (pane) => set({ pane }),
  showBody: (compactBody) => set(compactBody === 'timeline' ? { compactBody } : { compactBody, pane: compactBody }),
  select: (selected) => set({ follow: false, selected }),
  followNewest: () => set({ follow: true, selected: null }),
  showFilter: (filter) => set({ filter }),
  showCheckpoint: (checkpoint) => set({ checkpoint }),
  acknowledgeAlerts: (acknowledged) => set({ acknowledged }),
  showToolCall: (toolCall) => set({ toolCall }),
});
