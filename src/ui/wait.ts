import type { RunWait } from '../engine/run/wait-guard.js';

/** Seconds as `1h30m`, `1m12s`, `2m`, `40s`: the parts that are not zero (`0s` for nothing). */
export function shortDuration(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const parts = [h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : '', s > 0 ? `${s}s` : ''].join('');
  return parts || '0s';
}

/** Milliseconds as {@link shortDuration}, or `300 ms` below a second. */
function shortMs(ms: number): string {
  return ms > 0 && ms < 1000 ? `${Math.round(ms)} ms` : shortDuration(ms / 1000);
}

/**
 * What the run waits on, in one phrase for the status line, at `now` (epoch ms):
 * `waiting for model 1m12s of 10m (idle 40s of 2m)`, `retrying in 20s (Retry-After): 429 …`,
 * `waiting for tool shell 12s of 2m`. `late` is set once half of a limit is used (the
 * request's, the silence's or the tool's).
 */
export function waitText(wait: RunWait, now: number): { text: string; late: boolean } {
  const elapsed = Math.max(0, now - wait.since);
  if (wait.kind === 'tool') {
    const of = wait.limit_ms === null ? '' : ` of ${shortMs(wait.limit_ms)}`;
    return { text: `waiting for tool ${wait.name} ${shortMs(elapsed)}${of}`, late: wait.limit_ms !== null && elapsed * 2 >= wait.limit_ms };
  }
  const model = wait.model;
  if (!model) return { text: `waiting for agent ${wait.agent} ${shortMs(elapsed)}`, late: false };
  if (model.retry && model.retry.until > now) {
    const why = model.retry.retry_after ? 'Retry-After' : 'backoff';
    return { text: `retrying in ${shortDuration(Math.ceil((model.retry.until - now) / 1000))} (${why}): ${model.retry.reason}`, late: true };
  }
  const idle = Math.max(0, now - model.active_at);
  const late = elapsed * 2 >= model.limit_ms || idle * 2 >= model.idle_ms;
  return { text: `waiting for model ${shortMs(elapsed)} of ${shortMs(model.limit_ms)} (idle ${shortMs(idle)} of ${shortMs(model.idle_ms)})`, late };
}
