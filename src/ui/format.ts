import { formatCount, formatSeconds, formatUsd, usdDecimals } from '../engine/budget-units.js';
import type { BudgetDimension } from '../engine/index.js';

/** A count in few characters: `950`, `1.2k`, `34k`, `1.5M`, `2.0G`, `1000.0T` (the largest unit). */
export function compactNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (abs < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (abs < 1e9) return `${(n / 1e6).toFixed(1)}M`;
  if (abs < 1e12) return `${(n / 1e9).toFixed(1)}G`;
  return `${(n / 1e12).toFixed(1)}T`;
}

/**
 * Used and limit (when there is one) as a gauge shows them, in few characters: counts
 * compact (`1.3k/200k`), the wall clock as a duration (`0.5s/30m`), dollars with the
 * decimals the limit needs, at least two (`$0.01/$2.00`, `$0.006/$0.007`). Amounts that
 * differ never read the same: when the short forms of used and limit are equal while the
 * amounts are not (`$0.02/$0.02` for $0.021 of $0.020), both are shown as precisely as
 * it takes (`$0.021/$0.020`, `10400/10k`, `30m0.5s/30m`), so a spent limit never looks
 * unspent, nor an unspent one spent. The exact amounts are in the prompt, the notices and
 * the timeline (`formatBudget`, budget-units.ts).
 */
export function gaugeAmounts(dimension: BudgetDimension, used: number, limit: number | null): string[] {
  if (limit === null) return [shortAmounts(dimension, [used], used)[0]!];
  const short = shortAmounts(dimension, [used, limit], limit);
  if (short[0] !== short[1] || used === limit) return short;
  const precise = preciseAmounts(dimension, used, limit);
  if (precise[0] !== precise[1]) return precise;
  // Closer than any form shows (a billionth of a dollar, a millisecond): which side it lies on.
  return [`${used > limit ? '>' : '<'}${precise[0]}`, precise[1]!];
}

/** The gauge's usual forms: counts compact, seconds as a duration, dollars with the decimals of `scale`. */
function shortAmounts(dimension: BudgetDimension, amounts: number[], scale: number): string[] {
  if (dimension === 'cost_usd') {
    const decimals = usdDecimals(scale);
    return amounts.map((a) => formatUsd(a, decimals));
  }
  if (dimension === 'wall_clock_seconds') return amounts.map(formatSeconds);
  return amounts.map(compactNumber);
}

/** Used and limit with the digits that tell them apart: dollars with the decimals both need, counts exact, seconds to the millisecond at most. */
function preciseAmounts(dimension: BudgetDimension, used: number, limit: number): string[] {
  if (dimension === 'cost_usd') {
    const decimals = usdDecimals(used, limit);
    return [formatUsd(used, decimals), formatUsd(limit, decimals)];
  }
  if (dimension === 'wall_clock_seconds') {
    for (let decimals = 0; decimals <= 3; decimals++) {
      const pair = [secondsWithDecimals(used, decimals), secondsWithDecimals(limit, decimals)];
      if (pair[0] !== pair[1]) return pair;
    }
    return [formatSeconds(used), formatSeconds(limit)];
  }
  return [formatCount(used), formatCount(limit)];
}

/** Seconds as a duration whose seconds part has `decimals` decimals, cut down (never rounded up to a limit): `30m0.5s`, `1h30m3.25s`, `45.125s`. */
function secondsWithDecimals(seconds: number, decimals: number): string {
  if (!(seconds > 0)) return '0s';
  const scale = 10 ** decimals;
  const units = Math.floor(seconds * scale + 1e-6);
  const whole = Math.floor(units / scale);
  const fraction = units % scale;
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  const secondsPart = fraction > 0 ? `${s}.${String(fraction).padStart(decimals, '0').replace(/0+$/, '')}s` : s > 0 ? `${s}s` : '';
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${secondsPart}` || '0s';
}

/** Used over limit as a whole percent; `null` when unlimited. */
export function percent(used: number, limit: number | null): number | null {
  if (limit === null || limit <= 0) return null;
  return Math.floor((used / limit) * 100);
}

/** A used/limit bar `████░░░░` of `width` cells; dots when unlimited. */
export function gauge(used: number, limit: number | null, width: number): string {
  if (width <= 0) return '';
  if (limit === null) return '·'.repeat(width);
  const filled = Math.max(0, Math.min(width, Math.round((used / limit) * width)));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** Seconds in few characters: `12s`, `4m05s`, `30m`, `1h30m`, `2h`. */
export function shortDuration(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${h}h`;
  if (m > 0) return s > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${m}m`;
  return `${s}s`;
}
