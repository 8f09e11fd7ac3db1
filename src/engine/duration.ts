/**
 * The duration grammar of loop.yaml as a JSON Schema / ECMAScript pattern: hours, minutes,
 * seconds, each at most once and in that order, without leading zeros (`90s`, `10m`,
 * `1h30m`, `1h2m3s`). It admits all-zero spellings (`0m`) that {@link parseDuration} refuses.
 */
export const DURATION_PATTERN = '^(?=\\d)(?:[1-9]\\d*h)?(?:(?:[1-9]\\d*|0)m)?(?:(?:[1-9]\\d*|0)s)?$';

const DURATION_RE = /^(?:([1-9]\d*)h)?(?:([1-9]\d*|0)m)?(?:([1-9]\d*|0)s)?$/;

/**
 * Parses a duration of the explicit grammar `1h30m`, `10m`, `90s`, `1h2m3s` (each unit at
 * most once, in that order) into seconds. Returns `null` for anything else, including a
 * bare number, an empty string, `0s` or a unit with a leading zero (`05m`).
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
