import type { DecisionPolicy, Step } from '../decide.js';
import { verifiedThisStep } from '../decide.js';
import type { SessionState } from '../fold.js';

/**
 * Fresh laps after a step: a claim goes to the verifier (`isDone`); a lap ends `done`
 * (the run is won), `not_done` or `error`; the next lap starts until `max_laps`
 * (`exhausted`) or `max_consecutive_failures` errors in a row (`aborted`).
 */
export function lapStep(state: SessionState, policy: DecisionPolicy): Step {
  const lap = state.lap;
  const end = state.lapEnd?.lap === lap ? state.lapEnd : null;
  if (end) {
    if (end.outcome === 'done') {
      return { kind: 'finish', finish: { reason: 'goal_met', summary: state.lastVerify?.claim || `the verifier passed after lap ${lap}` } };
    }
    const { max_laps, max_consecutive_failures } = policy.laps;
    if (end.outcome === 'error' && state.lapFailures >= max_consecutive_failures) {
      const summary = `${state.lapFailures} laps in a row failed (last: ${end.note})`;
      return { kind: 'finish', finish: { reason: 'aborted', summary, limit: 'max_consecutive_failures' } };
    }
    if (lap >= max_laps) {
      return { kind: 'finish', finish: { reason: 'exhausted', summary: `the goal is not met after ${lap} of ${max_laps} laps`, limit: 'max_laps' } };
    }
    return { kind: 'start_lap', lap: lap + 1 };
  }
  if (state.finalClaim !== null) return { kind: 'verify', trigger: 'claim' };
  const verdict = state.lastVerify;
  if (verifiedThisStep(state) && verdict?.trigger === 'claim') return { kind: 'end_lap', lap, outcome: verdict.passed ? 'done' : 'not_done' };
  return { kind: 'execute' };
}
