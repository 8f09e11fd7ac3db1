import { findSurvivors, killSurvivors, type Survivor } from '../children.js';
import type { RunContext } from './context.js';

/**
 * On resume, before anything else runs: finds the processes that an earlier process of
 * this run started (`process.start` in its log) and that still run after it died (a
 * `kill -9` leaves a tool's or a command agent's process group running under pid 1),
 * kills them, then lets `recover` write `session.resume`, and records what was killed as
 * `process.reaped` after it (so the crash's downtime stays out of the wall clock).
 * Only processes that carry a recorded tag in their environment, and the other members of
 * their groups, are touched: a recorded pid or group number alone may have been reused.
 */
export async function reapSurvivors(ctx: Pick<RunContext, 'options' | 'emit'>, recover: () => void): Promise<void> {
  const recorded = (ctx.options.prior ?? []).flatMap((e) => (e.type === 'process.start' ? [{ pgid: e.data.pgid, tag: e.data.tag }] : []));
  const found = recorded.length === 0 ? [] : findSurvivors(recorded);
  if (found && found.length > 0) await killSurvivors(found, recorded);
  recover();
  if (found === null) {
    ctx.emit('process.reaped', { processes: [], unchecked: true, note: 'could not look for processes the earlier run may have left running (this platform has no /proc): check for them before the run goes on' });
  } else if (found.length > 0) {
    ctx.emit('process.reaped', { processes: found, note: reapedNote(found) });
  }
}

/** One line on the survivors killed at resume. */
export function reapedNote(found: readonly Survivor[]): string {
  const named = found.slice(0, 5).map((p) => `pid ${p.pid} (${p.command})`).join(', ');
  const more = found.length > 5 ? ` and ${found.length - 5} more` : '';
  return `killed ${found.length} process(es) the earlier run left running: ${named}${more}`;
}
