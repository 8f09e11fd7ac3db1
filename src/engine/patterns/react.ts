import type { Step } from '../decide.js';
import type { SessionState } from '../fold.js';

/**
 * ReAct (Yao et al., 2022) after a step, once the end of the turn is decided (a claim is
 * verified and a pass ends the run in `endOfTurn`): the next step.
 */
export function reactStep(_state: SessionState): Step {
  return { kind: 'execute' };
}
