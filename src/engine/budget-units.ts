/**
 * Budget amounts as the console speaks them, and the bounds of every limit: one formatting
 * function per unit (seconds as a duration, USD with the digits the amount needs, counts),
 * used by the pause prompt, `/budget` answers, the timeline, event summaries, the gauges
 * and the headless lines alike, so one amount reads the same everywhere. The bounds are
 * the ones loop.yaml's schema applies (policy.ts reads them from here), so `/budget`
 * cannot make a limit loop.yaml would refuse.
 */
import { MAX_BUDGET_SECONDS } from './duration.js';
import { BUDGET_COMMAND_NAMES, type BudgetDimension } from './types.js';

/**
 * Largest cost budget (`budget.max_cost_usd`, its increment): USD 1,000,000. A larger
 * amount means nothing for a loop and would print in exponent notation; write `unlimited`
 * to lift the limit.
 */
export const MAX_BUDGET_USD = 1_000_000;

/** The loop.yaml key of each dimension's limit (`budget.<key>`). */
export const BUDGET_YAML_KEYS: Readonly<Record<BudgetDimension, string>> = {
  turns: 'max_iterations',
  tool_calls: 'max_tool_calls',
  wall_clock_seconds: 'max_wall_clock',
  tokens: 'max_tokens',
  cost_usd: 'max_cost_usd',
};

/**
 * The largest limit of each dimension, in its unit (a count, seconds, tokens, USD): what
 * loop.yaml takes for `budget.<key>` and its increment. Counts are whole numbers up to
 * `Number.MAX_SAFE_INTEGER` (what the schema's integers take).
 */
export const BUDGET_LIMIT_MAX: Readonly<Record<BudgetDimension, number>> = {
  turns: Number.MAX_SAFE_INTEGER,
  tool_calls: Number.MAX_SAFE_INTEGER,
  wall_clock_seconds: MAX_BUDGET_SECONDS,
  tokens: Number.MAX_SAFE_INTEGER,
  cost_usd: MAX_BUDGET_USD,
};

/** Why the bound of a dimension is where it is, for messages. */
const BOUND_WHY: Readonly<Record<BudgetDimension, string>> = {
  turns: 'the largest whole number',
  tool_calls: 'the largest whole number',
  wall_clock_seconds: '365 days, the longest duration',
  tokens: 'the largest whole number',
  cost_usd: 'the largest amount',
};

/** The bound of a dimension in words, in its unit: `8760h (365 days, the longest duration loop.yaml takes for budget.max_wall_clock)`. */
export function budgetBoundText(dimension: BudgetDimension): string {
  return `${formatBudget(dimension, BUDGET_LIMIT_MAX[dimension])} (${BOUND_WHY[dimension]} loop.yaml takes for budget.${BUDGET_YAML_KEYS[dimension]})`;
}

/**
 * Seconds as a duration in loop.yaml's grammar, without zero parts: `3s`, `41m30s`, `1h`,
 * `1h5s`, `17761h47m30s`. Below a minute a fraction shows as tenths, cut down (`3.6s`
 * for 3.63 seconds: a limit is never shown as reached before it is); from a minute up,
 * whole seconds. Negative and not-a-number amounts read `0s`.
 */
export function formatSeconds(seconds: number): string {
  if (!(seconds > 0)) return '0s';
  if (seconds < 60) {
    const tenths = Math.floor(seconds * 10 + 1e-6) / 10;
    return `${Number.isInteger(tenths) ? tenths : tenths.toFixed(1)}s`;
  }
  const total = Math.floor(seconds + 1e-6);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
}

/** Most decimals a dollar amount shows beyond what its first two significant digits need. */
const USD_DECIMALS = 6;

/**
 * The decimals dollar amounts need to be shown side by side, exactly enough for each: at
 * least 2 (cents), as many as an amount written to 12 significant digits has (float noise
 * such as `0.006999999999999999` is `0.007`), but no more than 6 unless an amount needs
 * more to show its first two significant digits.
 */
export function usdDecimals(...amounts: number[]): number {
  let most = 2;
  for (const amount of amounts) {
    const abs = Math.abs(amount);
    if (!Number.isFinite(abs) || abs === 0) continue;
    const clean = Number(abs.toPrecision(12));
    const cap = Math.max(USD_DECIMALS, 1 - Math.floor(Math.log10(clean)));
    let d = 2;
    while (d < cap && Math.abs(Number(clean.toFixed(d)) - clean) > clean * 1e-12) d += 1;
    most = Math.max(most, d);
  }
  return most;
}

/**
 * Dollars with `decimals` decimals (default: what the amount needs, {@link usdDecimals}):
 * `$2.00`, `$2.001`, `$0.0015`, never in exponent notation.
 */
export function formatUsd(usd: number, decimals = usdDecimals(usd)): string {
  if (!Number.isFinite(usd)) return `$${usd}`;
  const sign = usd < 0 ? '-' : '';
  const abs = Math.abs(usd);
  if (abs >= 1e21) return `${sign}$${BigInt(Math.round(abs)).toString()}.${'0'.repeat(decimals)}`;
  return `${sign}$${abs.toFixed(decimals)}`;
}

const COUNT_UNITS: ReadonlyArray<readonly [number, string]> = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/**
 * A count (turns, tool calls, tokens) exactly: `950`, `1234`, and short only when the
 * short form is exact (`300k`, `1.5k`, `2M`), so a raise of one shows.
 */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const whole = Math.round(n);
  for (const [unit, suffix] of COUNT_UNITS) {
    const q = whole / unit;
    if (Math.abs(q) >= 1 && Math.abs(q) < 1000 && Math.round(q * 10) === q * 10) return `${Number.isInteger(q) ? q : q.toFixed(1)}${suffix}`;
  }
  return String(whole);
}

/**
 * Amounts of one dimension in its unit, shown side by side (`used of limit`, a raise and
 * the limit it makes): dollars share their decimals (`$0.0100 of $0.0070`), seconds are
 * durations, counts are counts.
 */
export function formatBudgetAmounts(dimension: BudgetDimension, amounts: readonly number[]): string[] {
  if (dimension === 'cost_usd') {
    const decimals = usdDecimals(...amounts);
    return amounts.map((a) => formatUsd(a, decimals));
  }
  if (dimension === 'wall_clock_seconds') return amounts.map(formatSeconds);
  return amounts.map(formatCount);
}

/** One amount of `dimension` in its unit (see {@link formatBudgetAmounts}). */
export function formatBudget(dimension: BudgetDimension, amount: number): string {
  return formatBudgetAmounts(dimension, [amount])[0]!;
}

/** `used of limit` in the dimension's unit: `3.6s of 3s`, `$0.0100 of $0.0070`, `12 of 10`. */
export function spentText(dimension: BudgetDimension, used: number, limit: number, alongside: readonly number[] = []): string {
  const [u, l] = formatBudgetAmounts(dimension, [used, limit, ...alongside]);
  return `${u} of ${l}`;
}

/** The name `/budget` and the console give a dimension: `wall_clock`, `cost`, `turns`. */
export function budgetName(dimension: BudgetDimension): string {
  return BUDGET_COMMAND_NAMES[dimension];
}

/**
 * Adds an increment to a limit as the log records it: a sum of dollars is written to 12
 * significant digits, so float noise (`0.006999999999999999`) never reaches the log.
 */
export function raisedLimit(dimension: BudgetDimension, limit: number, by: number): number {
  const sum = limit + by;
  return dimension === 'cost_usd' ? Number(sum.toPrecision(12)) : sum;
}

/**
 * A raise of `by` on the limit `current` as every message shows it (the pause prompt's
 * suggestion, `/budget`'s answer, `e`'s notice): the limit it makes (as the log records it,
 * {@link raisedLimit}) and the three amounts in the dimension's unit, dollars sharing their
 * decimals (`$0.02`, `$1.00`, `$1.02`), so one raise reads the same wherever it is named.
 */
export function raiseAmounts(dimension: BudgetDimension, current: number, by: number): { limit: number; was: string; added: string; made: string } {
  const limit = raisedLimit(dimension, current, by);
  const [was, added, made] = formatBudgetAmounts(dimension, [current, by, limit]);
  return { limit, was: was!, added: added!, made: made! };
}
