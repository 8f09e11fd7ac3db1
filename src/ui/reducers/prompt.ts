import { BUDGET_COMMAND_NAMES } from '../../engine/types.js';
import { alwaysAllowChoices } from '../../engine/approval/always-allow.js';
import type { ConsoleCommand } from '../keymap.js';
import type { ResumePayload } from '../../engine/session.js';
import { EMPTY_LINE, lineOf } from '../line-editor.js';
import { change, only, type KeyInput, type Reduction } from './reduction.js';

/**
 * The approval prompt's keys (scope `tool`): approve once, always allow the exact call or
 * the wider rule the prompt offers, deny, deny with a note, show every argument line.
 * Nothing happens when no tool call is pending.
 */
export function toolReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  const pending = input.session.pending;
  if (pending?.kind !== 'tool') return only(input);
  const answer = (payload: ResumePayload) => only(input, { kind: 'answer', payload, seq: pending.seq });
  switch (command) {
    case 'approve':
      return answer({ decision: 'approve' });
    case 'approve-always': {
      const { exact } = alwaysAllowChoices(pending.call);
      if (exact.rule === null) return only(input, { kind: 'notice', ok: false, text: `nothing can be stored for this call (${exact.why}); y approves it once` });
      return answer({ decision: 'approve', always: exact.rule });
    }
    case 'approve-wider': {
      const [wider] = alwaysAllowChoices(pending.call).wider;
      if (!wider) return only(input, { kind: 'notice', ok: false, text: 'no wider rule for this call: only read-only commands and tools have one; a stores the exact call' });
      return answer({ decision: 'approve', always: wider.rule });
    }
    case 'deny':
      return answer({ decision: 'deny' });
    case 'deny-with-note':
      return change(input, { input: 'note', line: EMPTY_LINE });
    case 'expand-args':
      return change(input, { expandArgs: !input.view.expandArgs });
    default:
      return only(input);
  }
}

/**
 * The keys of a pause (scopes `budget-pause`, `stagnation-pause`, `operator-pause`,
 * `pause`): continue (saying so when the spent limit will pause the run again at once),
 * extend a spent budget and continue, redirect the goal (opens the bar), stop.
 */
export function pauseReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  const { pending, exhausted, limits, usage } = input.session;
  switch (command) {
    case 'continue': {
      const view = { ...input.view, interrupted: false };
      if (pending?.kind !== 'pause') return { view, effects: [] };
      const limit = exhausted === null ? null : limits[exhausted];
      const effects: Reduction['effects'] = [];
      if (exhausted !== null && limit !== null && usage[exhausted] >= limit) {
        const name = BUDGET_COMMAND_NAMES[exhausted];
        effects.push({ kind: 'notice', ok: false, text: `the ${name.replace('_', ' ')} budget is still spent, so the run pauses again: e raises it, or /budget ${name} +N` });
      }
      effects.push({ kind: 'answer', payload: { action: 'continue' }, seq: pending.seq });
      return { view, effects };
    }
    case 'stop':
      return pending?.kind === 'pause' ? only(input, { kind: 'answer', payload: { action: 'stop' }, seq: pending.seq }) : only(input);
    case 'extend':
      if (pending?.kind !== 'pause' || exhausted === null) return only(input, { kind: 'notice', ok: false, text: 'e raises a spent budget; this pause is not a budget pause' });
      return only(input, { kind: 'extend', dimension: exhausted, seq: pending.seq });
    case 'redirect':
      return change(input, { input: 'bar', line: lineOf('/goal redirect '), completions: [], highlight: 0 });
    default:
      return only(input);
  }
}

/** The resume gate's keys (scope `gate`): Enter resumes the run, q quits without resuming. */
export function gateReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  if (command === 'confirm') return only(input, { kind: 'confirm' });
  if (command === 'quit') return only(input, { kind: 'quit' });
  return only(input);
}
