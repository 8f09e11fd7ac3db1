/**
 * How the budget gauges share a row of the console: each gauge is a column of two rows (its
 * label and percent; its bar and amounts) and every column keeps one blank cell at its right,
 * so two gauges never run into each other whatever the width and however long the amounts
 * (`1h30m3s`, `$0.021`, `9007199254740991`). Pure: widths in terminal cells.
 */
import { cellWidth } from './text.js';

/** One gauge's texts before layout. */
export interface GaugeText {
  /** The label as it reads when there is room (`wall clock`). */
  label: string;
  /** The label when there is not (`clock`). */
  short: string;
  /** The percent (`105%`, `≥3%`, `no limit`). */
  percent: string;
  /** The percent when even the short label leaves no room for it (`∞` for `no limit`); default: the percent. */
  percentShort?: string;
  /** Used over limit (`8.8s/1h30m3s`). */
  value: string;
}

/** One gauge's column: its width (its blank cell included) and what its two rows show. */
export interface GaugeCell {
  /** Cells of the column, the blank one at its right included. */
  width: number;
  /** The first row's label, the long one when it fits with the percent in `width - 1` cells, else the short one (the row cuts what still does not fit). */
  label: string;
  /** The first row's percent: the short form only when the short label leaves no room for the percent. */
  percent: string;
  /** Cells of the bar before the amounts; 0: no bar (too little room for one of {@link MIN_BAR}). */
  bar: number;
  value: string;
}

/** The narrowest bar drawn; with less room the amounts stand alone. */
export const MIN_BAR = 3;
/** The narrowest column: one cell of text and the blank one. */
const MIN_CELL = 2;

/**
 * The cells a gauge's column needs (its blank cell included): at least (the short label
 * and the short percent, the amounts), for its long label, and with a bar as well.
 */
function needs(g: GaugeText): [least: number, labelled: number, wanted: number] {
  const value = cellWidth(g.value);
  const least = Math.max(cellWidth(`${g.short} ${g.percentShort ?? g.percent}`), value) + 1;
  const labelled = Math.max(cellWidth(`${g.label} ${g.percent}`), value) + 1;
  return [least, labelled, Math.max(labelled, value + 1 + MIN_BAR + 1)];
}

/** `widths` grown a cell at a time, each column in turn, towards `goals` while `room` lasts. */
function grow(widths: number[], goals: number[], room: number): number[] {
  const out = [...widths];
  let left = room - out.reduce((a, b) => a + b, 0);
  while (left > 0 && out.some((w, i) => w < goals[i]!)) {
    for (let i = 0; i < out.length && left > 0; i++) {
      if (out[i]! < goals[i]!) {
        out[i]! += 1;
        left -= 1;
      }
    }
  }
  return out;
}

/** `extra` cells spread over `widths` as evenly as whole cells allow, the first columns taking the remainder. */
function spread(widths: number[], extra: number): number[] {
  const each = Math.floor(extra / widths.length);
  const rest = extra - each * widths.length;
  return widths.map((w, i) => w + each + (i < rest ? 1 : 0));
}

/**
 * The columns of `gauges` in `width` cells. Equal columns (`width / n`) when every gauge
 * fits in one with its bar; otherwise each column gets what its gauge needs at least, then
 * grows, a cell at a time and column by column, to fit its long label, then a bar, and what
 * is left is spread evenly; when even the least does not fit, the
 * widest columns give way first (their text is then cut with `…` by the row). Every column
 * ends in a blank cell, so the columns' texts are always apart. Columns add up to at most
 * `width` (more only when `width` is below two cells a gauge).
 */
export function layoutGauges(width: number, gauges: readonly GaugeText[]): GaugeCell[] {
  const n = gauges.length;
  if (n === 0) return [];
  const room = Math.max(width, n * MIN_CELL);
  const need = gauges.map(needs);
  const equal = Math.floor(room / n);
  const sum = (ws: number[]) => ws.reduce((a, b) => a + b, 0);
  let widths: number[];
  if (need.every((x) => x[2] <= equal)) widths = need.map(() => equal);
  else if (sum(need.map((x) => x[0])) <= room) {
    // From the least each needs, towards its long label, then its bar; what is left, evenly.
    widths = grow(grow(need.map((x) => x[0]), need.map((x) => x[1]), room), need.map((x) => x[2]), room);
    widths = spread(widths, room - sum(widths));
  } else {
    widths = need.map((x) => x[0]);
    // The widest give way one cell at a time until the columns fit.
    for (let over = sum(widths) - room; over > 0; over--) {
      const widest = widths.indexOf(Math.max(...widths));
      widths[widest] = Math.max(MIN_CELL, widths[widest]! - 1);
    }
  }
  return gauges.map((g, i) => {
    const w = widths[i]!;
    const inner = w - 1;
    const label = cellWidth(`${g.label} ${g.percent}`) <= inner ? g.label : g.short;
    const percent = cellWidth(`${label} ${g.percent}`) <= inner ? g.percent : (g.percentShort ?? g.percent);
    const bar = inner - cellWidth(g.value) - 1;
    return { width: w, label, percent, bar: bar >= MIN_BAR ? bar : 0, value: g.value };
  });
}
