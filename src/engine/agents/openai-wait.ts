/**
 * Time limits of one model request of the `openai` agent (docs/design.md, "Nothing waits
 * forever"):
 * - `request_timeout`: the whole request, from sending it to its last chunk, retries and
 *   their waits included;
 * - `stream_idle_timeout`: silence, from sending the request or from the last bytes
 *   received (a keep-alive line counts: the server is there), to the next bytes;
 * - `max_retry_wait`: the longest wait before a retry, whatever `Retry-After` asks.
 *
 * Waits end early when the run is quit or aborted (the request's signal) and, for the
 * waits between retries, when the operator asks to pause (the interrupt signal).
 */
import { formatDuration } from '../duration.js';
import { safeTimeout, type SafeTimer } from '../timer.js';

/** A wait for people: `300 ms` below a second, else `1m12s` ({@link formatDuration}). */
export function formatWait(ms: number): string {
  return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : formatDuration(ms / 1000);
}

/** The limits, in milliseconds. */
export interface RequestLimits {
  requestMs: number;
  idleMs: number;
  maxRetryWaitMs: number;
}

/** Defaults of loop.yaml: 10 minutes in all, 2 minutes of silence, retry waits of at most 1 minute. */
export const DEFAULT_LIMITS: RequestLimits = { requestMs: 10 * 60_000, idleMs: 2 * 60_000, maxRetryWaitMs: 60_000 };

/** What a model request is waiting on now, for the console ("waiting for model 1m12s (idle 40s of 2m)"). */
export interface ModelWait {
  /** Epoch ms the request began (its first attempt). */
  since: number;
  /** The request's own limit (`request_timeout`), ms. */
  limit_ms: number;
  /** Epoch ms of the last bytes from the server (or of sending the attempt). */
  active_at: number;
  /** `stream_idle_timeout`, ms. */
  idle_ms: number;
  /** Set while waiting before a retry: until when (epoch ms) and why. */
  retry?: { until: number; reason: string; retry_after: boolean };
}

/** Why a {@link RequestWatch} cancelled its attempt. */
export type Expiry = 'idle' | 'deadline';

/**
 * Watches one attempt of a request: its signal aborts when the attempt has been silent for
 * `idleMs`, when the request's deadline passes, or when `parent` aborts. Call `touch` on
 * every piece of the response; `dispose` when the attempt is over.
 */
export class RequestWatch {
  readonly signal: AbortSignal;
  /** Why the watch cancelled the attempt; `null` while it has not (or the parent did). */
  expired: Expiry | null = null;
  /** Epoch ms of the last bytes (or of the start). */
  activeAt: number;
  private readonly controller = new AbortController();
  private reportedAt: number;
  private idleTimer: SafeTimer | null = null;
  private readonly deadlineTimer: SafeTimer;
  private readonly onParentAbort: () => void;

  constructor(
    private readonly limits: { deadline: number; idleMs: number },
    private readonly parent: AbortSignal | undefined,
    private readonly now: () => number = Date.now,
    private readonly onActive?: (at: number) => void,
  ) {
    this.signal = this.controller.signal;
    this.activeAt = now();
    this.reportedAt = this.activeAt;
    this.onParentAbort = () => this.controller.abort(parent?.reason);
    parent?.addEventListener('abort', this.onParentAbort, { once: true });
    if (parent?.aborted) this.onParentAbort();
    this.deadlineTimer = safeTimeout(() => this.expire('deadline'), limits.deadline - this.activeAt);
    this.armIdle(limits.idleMs);
  }

  /** Bytes arrived: the silence starts again. */
  touch(): void {
    const at = this.now();
    this.activeAt = at;
    // Reported at most once a second: the console needs no more, and chunks come fast.
    if (at - this.reportedAt >= 1000) {
      this.reportedAt = at;
      this.onActive?.(at);
    }
  }

  dispose(): void {
    this.idleTimer?.cancel();
    this.deadlineTimer.cancel();
    this.parent?.removeEventListener('abort', this.onParentAbort);
  }

  /** The idle timer is re-armed lazily: when it fires it checks the last activity. */
  private armIdle(ms: number): void {
    this.idleTimer = safeTimeout(() => {
      const silent = this.now() - this.activeAt;
      if (silent >= this.limits.idleMs) this.expire('idle');
      else this.armIdle(this.limits.idleMs - silent);
    }, ms);
  }

  private expire(why: Expiry): void {
    if (this.controller.signal.aborted) return;
    this.expired = why;
    this.dispose();
    this.controller.abort(why);
  }
}

/** Why a wait between retries ended early. */
export class WaitInterrupted extends Error {
  constructor(readonly by: 'interrupt' | 'abort') {
    super(by === 'interrupt' ? 'the wait before a retry was interrupted (a pause was asked for)' : 'the wait before a retry was aborted');
    this.name = new.target.name;
  }
}

/**
 * Resolves after `ms`; rejects with {@link WaitInterrupted} as soon as `signal` (quit,
 * abort) or `interrupt` (a pause asked for) aborts.
 */
export function waitBeforeRetry(ms: number, signal: AbortSignal | undefined, interrupt: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new WaitInterrupted('abort'));
    if (interrupt?.aborted) return reject(new WaitInterrupted('interrupt'));
    const cleanup = () => {
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
      interrupt?.removeEventListener('abort', onInterrupt);
    };
    const onAbort = () => {
      cleanup();
      reject(new WaitInterrupted('abort'));
    };
    const onInterrupt = () => {
      cleanup();
      reject(new WaitInterrupted('interrupt'));
    };
    const timer = safeTimeout(() => {
      cleanup();
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    interrupt?.addEventListener('abort', onInterrupt, { once: true });
  });
}

/** Delay a server asked for (`retry-after-ms`, `retry-after` in seconds or as a date), ms; `null` when none. */
export function requestedDelay(headers: Headers | undefined): number | null {
  if (!headers) return null;
  const ms = parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (!after) return null;
  const seconds = Number(after.trim());
  if (after.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/**
 * The wait before retry number `retry + 1` (0-based `retry`): the server's `Retry-After`
 * when it gave one, else an exponential backoff from `baseMs` (doubled each time, at most
 * 8 s, with up to a quarter of jitter, as the `openai` SDK does); never more than `capMs`.
 */
export function retryDelay(asked: number | null, retry: number, baseMs: number, capMs: number): { ms: number; capped: boolean } {
  if (asked !== null) return asked > capMs ? { ms: capMs, capped: true } : { ms: asked, capped: false };
  const backoff = Math.min(baseMs * 2 ** retry, 8_000) * (1 - Math.random() * 0.25);
  return { ms: Math.min(backoff, capMs), capped: false };
}
