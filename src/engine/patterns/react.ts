import type { Step } from '../decide.js';
import { verifiedThisStep } from '../decide.js';
import type { SessionState } from '../fold.js';

/**
 * ReAct (Yao et al., 2022) after a step: a claim that the goal is met goes to the
 * verifier, whose pass ends the run; otherwise the next step.
 */
export function reactStep(state: SessionState): Step {
  if (state.finalClaim !== null) return { kind: 'verify', trigger: 'claim' };
  const verdict = state.lastVerify;
  if (verifiedThisStep(state) && verdict?.passed) {
    return { kind: 'finish', finish: { reason: 'goal_met', summary: verdict.claim ?? 'the verifier passed' } };
  }
  return { kind: 'execute' };
}
