import type { DecisionPolicy, Step } from '../decide.js';
import { verifiedThisStep } from '../decide.js';
import type { SessionState } from '../fold.js';

/**
 * Fresh laps after a step, once the end of the turn is decided (`endOfTurn`: a claim or a
 * lap's end, `not_done` or `error` whatever the agent's exit, goes to the verifier, and a
 * pass ends the lap `done`): a refuted claim ends the lap `not_done`; a lap ended `done`
 * wins the run; otherwise the next lap starts until `max_laps` (`exhausted`) or
 * `max_consecutive_failures` errors in a row (`failed`: the agent could not go on; nothing
 * is parked, unlike the circuit breaker's `aborted`).
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
      return { kind: 'finish', finish: { reason: 'failed', summary, limit: 'max_consecutive_failures' } };
    }
    if (lap >= max_laps) {
      return { kind: 'finish', finish: { reason: 'exhausted', summary: `the goal is not met after ${lap} of ${max_laps} laps`, limit: 'max_laps' } };
    }
    return { kind: 'start_lap', lap: lap + 1 };
  }
  const verdict = state.lastVerify;
  if (verifiedThisStep(state) && verdict?.trigger === 'claim' && !verdict.passed) return { kind: 'end_lap', lap, outcome: 'not_done' };
  return { kind: 'execute' };
}
