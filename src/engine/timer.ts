/**
 * Timers that keep their word for any delay.
 *
 * Node stores a timer's delay as a signed 32-bit number of milliseconds: a delay above
 * 2^31 - 1 ms (about 24.8 days, so any duration of 597 hours or more) is replaced by 1 ms,
 * with only a warning on stderr. A shell timeout of 600h would then kill every command at
 * once. Every timer whose delay comes from a policy (process and hook timeouts, the
 * approval timeout) goes through {@link safeTimeout}, which waits in steps no longer than
 * {@link MAX_TIMER_MS}, so a delay from the engine API (not only from a validated
 * loop.yaml) can never fire early.
 */

/** Longest delay Node's `setTimeout` honours, in milliseconds (2^31 - 1, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A pending {@link safeTimeout}. */
export interface SafeTimer {
  /** Stops the timer; the callback never runs after this. Calling it twice is harmless. */
  cancel(): void;
}

/**
 * Runs `callback` once after `ms` milliseconds, however large: delays past
 * {@link MAX_TIMER_MS} are waited in steps, and `Infinity` never fires. A negative delay
 * fires as soon as possible, like `setTimeout(callback, 0)`.
 * @throws RangeError when `ms` is NaN (Node would fire it after 1 ms)
 */
export function safeTimeout(callback: () => void, ms: number): SafeTimer {
  if (Number.isNaN(ms)) throw new RangeError('a timer delay must be a number of milliseconds, found NaN');
  let remaining = Math.max(0, ms);
  let handle: NodeJS.Timeout | undefined;
  const arm = () => {
    const step = Math.min(remaining, MAX_TIMER_MS);
    remaining -= step;
    handle = setTimeout(remaining > 0 ? arm : callback, step);
  };
  arm();
  return { cancel: () => clearTimeout(handle) };
}

/** `ms` brought into the range a timer of Node or of a library built on it honours: 0 to {@link MAX_TIMER_MS}. */
export function clampTimerMs(ms: number): number {
  if (Number.isNaN(ms)) throw new RangeError('a timer delay must be a number of milliseconds, found NaN');
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}
