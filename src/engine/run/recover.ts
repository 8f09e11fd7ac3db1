import { InvariantError } from '../errors.js';
import type { SessionState, ToolRecord } from '../fold.js';
import type { EventDataMap } from '../events.js';
import type { RunContext } from './context.js';

/**
 * The tool call of the log that has no recorded outcome (neither `tool.result` nor
 * `tool.error`): the one a crash interrupted, if any. Calls run one at a time, so only the
 * last can be open. Calls a CLI agent ran itself (`by: 'agent'`) are never open here.
 */
export function openCall(state: SessionState): ToolRecord | undefined {
  // A CLI agent's own calls are not loopdeck's to run or ask about again: the last of loopdeck's counts.
  const id = state.toolOrder.findLast((call) => state.tools.get(call)?.by !== 'agent');
  const record = id === undefined ? undefined : state.tools.get(id);
  return record && record.result === null && record.error === null ? record : undefined;
}

/**
 * A run read from its log continues where it stopped (docs/design.md, "Resume points"):
 *
 * - a log holding only `session.start` goes on to PLANNING;
 * - a log that ends DONE or whose end is recorded is left to {@link nextStep}, which
 *   finishes it from the facts of the log (nothing is run again);
 * - otherwise `session.resume` is recorded (unless the run waits at a pause, which is
 *   answered), naming the open tool call (`reask`): a call with no decision is asked about
 *   again (it never ran: the decision is flushed before the tool starts); a call approved
 *   and without a result was interrupted mid-run and is asked about again as such; a call
 *   denied without its result gets the denied result now.
 * - a log cut between a move to IDLE and its `session.pause` goes back to the state it
 *   paused from, where a verdict (kept by the fold) pauses again.
 * @throws InvariantError for a log that ends IDLE after the start without a pause and not moved there from a running state, or AWAITING_TOOL without a call
 */
export function recover(ctx: Pick<RunContext, 'state' | 'emit' | 'go' | 'restarted'>): void {
  const s = ctx.state;
  const machine = s.machine.state;
  if (s.done || machine === 'DONE' || s.abort) return;
  if (machine === 'IDLE' && !s.machine.started) {
    ctx.emit('session.resume', resumeData(ctx, { action: 'continue', from: machine, note: 'continued from the log: the run had not started planning' }));
    ctx.go('PLANNING');
    return;
  }
  if (machine === 'IDLE' && s.pending?.kind !== 'pause') {
    // Cut between the move to IDLE and its `session.pause`: the pause is not recorded. Back to
    // where it paused from; a recorded verdict pauses again, a hook is asked again.
    const from = s.lastTransition?.to === 'IDLE' ? s.lastTransition.from : null;
    if (from === null || from === 'IDLE' || from === 'DONE') throw new InvariantError('the log ends IDLE without a pause to answer');
    ctx.emit('session.resume', resumeData(ctx, { action: 'continue', from, note: 'continued from the log: the pause was not recorded; it is decided again' }));
    ctx.go(from);
    return;
  }
  const open = machine === 'EXECUTING' || machine === 'AWAITING_TOOL' ? openCall(s) : undefined;
  if (machine === 'AWAITING_TOOL' && !open && s.toolOrder.length === 0) throw new InvariantError('the log is AWAITING_TOOL without a tool call');
  if (open?.decision?.decision === 'deny') {
    ctx.emit('session.resume', resumeData(ctx, { action: 'continue', from: machine, note: 'continued from the log' }));
    const { call } = open;
    const output = `denied by the ${open.decision.by}${open.decision.note ? `: ${open.decision.note}` : ''}`;
    ctx.emit('tool.result', { result: { call_id: call.id, name: call.name, status: 'denied', output, exit_code: null, duration_ms: 0 } });
    return;
  }
  if (machine === 'IDLE') return;
  ctx.emit('session.resume', resumeData(ctx, { action: 'continue', from: machine, note: 'continued from the log', ...(open ? { reask: open.call.id } : {}) }));
}

/**
 * The data of a `session.resume`, marked `restart` when it is the first one this process
 * records after it continued the run from its log (the fold counts the time before it as
 * time no process ran the run); clears {@link RunContext.restarted}.
 */
export function resumeData(ctx: Pick<RunContext, 'restarted'>, data: EventDataMap['session.resume']): EventDataMap['session.resume'] {
  if (!ctx.restarted) return data;
  ctx.restarted = false;
  return { ...data, restart: true };
}
