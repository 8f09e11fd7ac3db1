import type { DecisionPolicy, Step } from '../decide.js';
import { verifiedThisStep } from '../decide.js';
import type { SessionState } from '../fold.js';

/**
 * Plan-and-Execute (Wang et al., 2023) after a step: a failed step replans; the next plan
 * step runs; a finished plan goes to the verifier (`endOfTurn`: a pass ends the run) and
 * its failure replans. Past `max_replans` the run ends `exhausted` (`replan_cap`).
 */
export function planAndExecuteStep(state: SessionState, policy: DecisionPolicy): Step {
  if (state.lastStepFailed) return replan(state, policy, failureNote(state));
  if (state.planDone < state.plan.length) return { kind: 'execute' };
  if (!verifiedThisStep(state)) return { kind: 'verify', trigger: 'check' };
  return replan(state, policy, 'the plan is done but the verifier failed');
}

function replan(state: SessionState, policy: DecisionPolicy, why: string): Step {
  const max = policy.maxReplans;
  if (state.plans - 1 >= max) {
    return { kind: 'finish', finish: { reason: 'exhausted', summary: `${why}; the replan cap (${max}) is reached`, limit: 'replan_cap' } };
  }
  return { kind: 'replan' };
}

/** One line on the step that failed, for the replan request and the end summary. */
export function failureNote(state: SessionState): string {
  const id = state.toolOrder[state.toolOrder.length - 1];
  const record = id === undefined ? undefined : state.tools.get(id);
  if (!record) return `step ${state.step} failed`;
  const outcome = record.error ?? `${record.result?.status} (exit ${record.result?.exit_code ?? '-'})`;
  return `step ${state.step} failed: ${record.call.name} ${outcome}`;
}
