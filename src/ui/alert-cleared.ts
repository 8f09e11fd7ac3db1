import type { Alert, SessionState } from '../engine/fold.js';

/**
 * Whether the condition behind an alert has cleared since it was raised, and why, from the
 * folded session (`null`: it still holds). A met goal clears every alert; a stagnation
 * alert clears when a later checkpoint observed progress (the counter went back to 0); an
 * UNKNOWN alert when a later checkpoint measured something.
 */
export function alertCleared(session: Pick<SessionState, 'checkpoints' | 'done'>, alert: Alert): string | null {
  if (session.done?.reason === 'goal_met') return 'the goal was met';
  const latest = session.checkpoints[session.checkpoints.length - 1];
  if (!latest) return null;
  const raisedAt = Number(/\(turn (\d+)\)/.exec(alert.message)?.[1] ?? Number.NaN);
  const later = Number.isNaN(raisedAt) || latest.iteration > raisedAt;
  if (!later) return null;
  if (alert.kind === 'stagnation' && latest.status === 'PROGRESS_OBSERVED') return `progress observed at checkpoint #${latest.index + 1} (turn ${latest.iteration})`;
  if (alert.kind === 'unknown' && latest.status !== 'UNKNOWN') return `checkpoint #${latest.index + 1} (turn ${latest.iteration}) measured again`;
  return null;
}
