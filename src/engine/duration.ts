/**
 * The duration grammar of loop.yaml as a JSON Schema / ECMAScript pattern: hours, minutes,
 * seconds, each at most once and in that order, without leading zeros (`90s`, `10m`,
 * `1h30m`, `1h2m3s`). It admits all-zero spellings (`0m`) that {@link parseDuration} refuses.
 */
export const DURATION_PATTERN = '^(?=\\d)(?:[1-9]\\d*h)?(?:(?:[1-9]\\d*|0)m)?(?:(?:[1-9]\\d*|0)s)?$';

/**
 * Longest duration that sets a timer (timeouts of commands, hooks, the agent, approvals):
 * 576h, 24 days. Node keeps a timer's delay in 31 bits of milliseconds (24.8 days) and fires
 * a longer one after 1 ms.
 */
export const MAX_TIMER_SECONDS = 576 * 3600;

/**
 * Longest wall-clock budget (`budget.max_wall_clock`, its increment): 8760h, 365 days. It
 * is compared with the active time, not set as a timer; the bound keeps it a number that
 * means something.
 */
export const MAX_BUDGET_SECONDS = 8760 * 3600;

const DURATION_RE = /^(?:([1-9]\d*)h)?(?:([1-9]\d*|0)m)?(?:([1-9]\d*|0)s)?$/;

/**
 * Parses a duration of the explicit grammar `1h30m`, `10m`, `90s`, `1h2m3s` (each unit at
 * most once, in that order) into seconds. Returns `null` for anything else, including a
 * bare number, an empty string, `0s` or a unit with a leading zero (`05m`). No upper
 * bound: a 400-digit hour count is `Infinity` (callers bound it, e.g. {@link MAX_TIMER_SECONDS}).
 */
export function parseDuration(text: string): number | null {
  const match = DURATION_RE.exec(text.trim());
  if (!match || text.trim() === '') return null;
  const [, h, m, s] = match;
  const seconds = Number(h ?? 0) * 3600 + Number(m ?? 0) * 60 + Number(s ?? 0);
  return seconds > 0 ? seconds : null;
}

/** Formats seconds as `1h02m03s`, `4m05s` or `12s` for the console. */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h${pad(m)}m${pad(s)}s`;
  if (m > 0) return `${m}m${pad(s)}s`;
  return `${s}s`;
}
