import { BUDGET_COMMAND_NAMES } from '../../engine/types.js';
import { alwaysAllowChoices } from '../../engine/approval/always-allow.js';
import type { ConsoleCommand } from '../keymap.js';
import type { ResumePayload } from '../../engine/session.js';
import { act, only, type KeyInput, type Reduction } from './reduction.js';
import { raisedPause } from '../budget-pause.js';

/**
 * The approval prompt's keys (scope `tool`): approve once, always allow the exact call or
 * the wider rule the prompt offers, deny, deny with a note, show every argument line.
 * Nothing happens when no tool call is pending.
 */
export function toolReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  const pending = input.session.pending;
  if (pending?.kind !== 'tool') return only();
  const answer = (payload: ResumePayload) => only({ kind: 'answer', payload, seq: pending.seq });
  switch (command) {
    case 'approve':
      return answer({ decision: 'approve' });
    case 'approve-always': {
      const { exact } = alwaysAllowChoices(pending.call);
      if (exact.rule === null) return only({ kind: 'notice', ok: false, text: `nothing can be stored for this call (${exact.why}); y approves it once` });
      return answer({ decision: 'approve', always: exact.rule });
    }
    case 'approve-wider': {
      const [wider] = alwaysAllowChoices(pending.call).wider;
      if (!wider) return only({ kind: 'notice', ok: false, text: 'no wider rule for this call: only read-only commands and tools have one; a stores the exact call' });
      return answer({ decision: 'approve', always: wider.rule });
    }
    case 'deny':
      return answer({ decision: 'deny' });
    case 'deny-with-note':
      return act([['openNote']]);
    case 'expand-args':
      return act([['openArgs']]);
    default:
      return only();
  }
}

/**
 * The keys of a pause (scopes `budget-pause`, `stagnation-pause`, `operator-pause`,
 * `pause`): continue (saying so when the spent limit will pause the run again at once),
 * extend a spent budget and continue, redirect the goal (opens the bar), stop.
 */
export function pauseReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  const { pending, exhausted } = input.session;
  switch (command) {
    case 'continue': {
      if (pending?.kind !== 'pause') return act([['clearInterrupted']]);
      const effects: Reduction['effects'] = [];
      if (exhausted !== null && raisedPause(input.session) === null) {
        const name = BUDGET_COMMAND_NAMES[exhausted];
        effects.push({ kind: 'notice', ok: false, text: `the ${name.replace('_', ' ')} budget is still spent, so the run pauses again: e raises it, or /budget ${name} +N` });
      }
      effects.push({ kind: 'answer', payload: { action: 'continue' }, seq: pending.seq });
      return act([['clearInterrupted']], ...effects);
    }
    case 'stop':
      return pending?.kind === 'pause' ? only({ kind: 'answer', payload: { action: 'stop' }, seq: pending.seq }) : only();
    case 'extend':
      if (pending?.kind !== 'pause' || exhausted === null) return only({ kind: 'notice', ok: false, text: 'e raises a spent budget; this pause is not a budget pause' });
      if (raisedPause(input.session)) return only({ kind: 'notice', ok: false, text: `the ${BUDGET_COMMAND_NAMES[exhausted]} limit is already above its use: c continues the run` });
      return only({ kind: 'extend', dimension: exhausted, seq: pending.seq });
    case 'redirect':
      return act([['openBar', '/goal redirect ']]);
    default:
      return only();
  }
}

/** The keys of a reload waiting for the operator (scope `reload`): `y` applies the changes shown, `n` keeps the policy in force. */
export function reloadReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  const pending = input.session.reloadPending;
  if (!pending || (command !== 'reload-apply' && command !== 'reload-keep')) return only();
  return only({ kind: 'answer-reload', seq: pending.seq, accept: command === 'reload-apply' });
}

/** The keys of a gate (scopes `gate`, `start-gate`): Enter resumes or starts the run, q quits without. */
export function gateReducer(command: ConsoleCommand): Reduction {
  if (command === 'confirm') return only({ kind: 'confirm' });
  if (command === 'quit') return only({ kind: 'quit' });
  return only();
}
