/**
 * How the console divides the terminal's rows. Pure: the same inputs give the same plan,
 * and the rows always add up to the live region, one row shorter than the terminal
 * (a live region as tall as the screen makes Ink clear and repaint everything).
 */

/** Narrower than this, or shorter than {@link COMPACT_ROWS}, the compact layout is used. */
export const COMPACT_COLUMNS = 80;
export const COMPACT_ROWS = 16;

export interface LayoutInput {
  columns: number;
  rows: number;
  /** Rows of the prompt box (0 when none). */
  prompt: number;
  /** The alert banner shows. */
  banner: boolean;
  /** Rows the footer asks for (notice, completion list, bar or keys); it gets what is left under the prompt, at least its last row. */
  footer: number;
  /**
   * Rows of the footer the top gives its own rows up for in a terminal too small for all
   * (default 1: the command bar or the key line; with the bar open, the answer above it too).
   */
  footerLeast?: number;
}

export interface LayoutPlan {
  compact: boolean;
  /** The live region's height: `rows - 1`. */
  live: number;
  width: number;
  /**
   * Rows for the fixed top: header, state strip, budget, status line; fewer in a terminal
   * too small for them, a prompt and one footer row ({@link topParts}).
   */
  top: number;
  /** Parts of the top drawn, in the order of {@link TOP_PARTS} (the later ones give their rows up first). */
  topParts: number;
  /** Whether the alert banner has its row (an alert is shown, and the prompt leaves room for it). */
  banner: boolean;
  /** Rows for the body: the panel tabs, the panel and the timeline, or an overlay. */
  body: number;
  /**
   * Of the body: the panel's rows and the timeline's rows (title included) when both
   * show; `pane` 0 when the body shows one view (the timeline or a panel, Tab cycles).
   */
  pane: number;
  timeline: number;
  /**
   * Rows of the footer: what it asks for, or what the top, the banner and the prompt leave
   * (a prompt's keys are never cut), and at least 1: the command bar or the key line is
   * always on screen, its completion list and the notice give their rows up first.
   */
  footer: number;
}

export function isCompact(columns: number, rows: number): boolean {
  return columns < COMPACT_COLUMNS || rows < COMPACT_ROWS;
}

/**
 * The rows of each part of the fixed top, in the order drawn: full, the header (2), the
 * state strip, the budget gauges (2) and the status line; compact, the header and the budget.
 */
export const TOP_PARTS = { full: [2, 1, 2, 1], compact: [1, 1] } as const;

/** Rows of the fixed top of each layout. */
export function topRows(compact: boolean): number {
  return (compact ? TOP_PARTS.compact : TOP_PARTS.full).reduce((sum, n) => sum + n, 0);
}

/**
 * The parts of the top that fit in `room` rows, the first ones first (the header stays
 * longest, the budget or status line goes first), and the rows they take.
 */
export function topParts(compact: boolean, room: number): { parts: number; rows: number } {
  let rows = 0;
  let parts = 0;
  for (const n of compact ? TOP_PARTS.compact : TOP_PARTS.full) {
    if (rows + n > room) break;
    rows += n;
    parts += 1;
  }
  return { parts, rows };
}

/** Rows a prompt may always take before the timeline keeps any: border, title, three rows of keys and two of the command. */
const PROMPT_FIRST = 8;
/** Rows the timeline keeps under a prompt once the prompt has {@link PROMPT_FIRST}. */
const TIMELINE_KEPT = 4;

/**
 * Rows a prompt may take at most (it takes only what it needs): what is left under the top,
 * the alert banner (when shown) and the footer, up to {@link PROMPT_FIRST} rows, and past
 * that all but {@link TIMELINE_KEPT} timeline rows. In a small terminal the command's end
 * matters more than a timeline of a row or two; the footer and the command bar are never
 * pushed off the screen.
 */
export function promptLimit(columns: number, rows: number, footer: number, banner = false): number {
  const live = Math.max(1, rows - 1);
  const under = live - topRows(isCompact(columns, rows)) - (banner ? 1 : 0) - footer;
  return Math.max(Math.min(PROMPT_FIRST, under), under - TIMELINE_KEPT);
}

/**
 * Rows a prompt may take, border included, with a one-row footer under it and no banner
 * (the banner gives its row up first): past this a prompt is drawn without its border, so
 * the command bar keeps the last row.
 */
export function promptRoom(columns: number, rows: number): number {
  return Math.max(1, rows - 1) - topRows(isCompact(columns, rows)) - 1;
}

/**
 * Whether the alert banner's row fits above a prompt of `promptRows` with the top and the
 * footer; when it does not (a terminal too small for both), the prompt, whose keys are
 * never cut, keeps its rows and the banner gives its row up.
 */
export function bannerFits(columns: number, rows: number, promptRows: number, footer: number): boolean {
  return topRows(isCompact(columns, rows)) + 1 + promptRows + footer <= Math.max(1, rows - 1);
}

export function planLayout(input: LayoutInput): LayoutPlan {
  const compact = isCompact(input.columns, input.rows);
  const live = Math.max(1, input.rows - 1);
  // A terminal too small for the top, the prompt and the footer's least rows: the top gives
  // its rows up (its last parts first), so the prompt's keys and the command bar stay on screen.
  const least = Math.max(1, Math.min(input.footer, input.footerLeast ?? 1));
  const { parts: topShown, rows: top } = topParts(compact, live - (input.banner ? 1 : 0) - input.prompt - least);
  const footer = Math.max(1, Math.min(input.footer, live - top - (input.banner ? 1 : 0) - input.prompt));
  const body = Math.max(0, live - top - (input.banner ? 1 : 0) - input.prompt - footer);
  let pane = 0;
  let timeline = body;
  // The compact layout, or too few rows for both: the body shows one view (pane 0).
  if (!compact && body >= 12) {
    pane = Math.min(10, Math.floor((body - 1) * 0.45));
    timeline = body - 1 - pane;
  }
  return { compact, live, width: input.columns, top, topParts: topShown, banner: input.banner, body, pane, timeline, footer };
}
