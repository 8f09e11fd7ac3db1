import type { DecisionPolicy, Step } from '../decide.js';
import { verifiedThisStep } from '../decide.js';
import type { SessionState } from '../fold.js';

/**
 * Reflexion (Shinn et al., 2023) after a step: an attempt ends with a claim, which the
 * verifier judges (`endOfTurn`: a pass ends the run); a refuted claim is reflected on and
 * retried with the lesson, until `max_attempts` (then `exhausted`, `max_attempts`).
 */
export function reflexionStep(state: SessionState, policy: DecisionPolicy): Step {
  const verdict = state.lastVerify;
  if (!verifiedThisStep(state) || verdict?.trigger !== 'claim' || verdict.passed) return { kind: 'execute' };
  const attempt = state.plans;
  const max = policy.maxAttempts;
  if (attempt >= max) {
    return { kind: 'finish', finish: { reason: 'exhausted', summary: `the verifier still fails after ${attempt} of ${max} attempts`, limit: 'max_attempts' } };
  }
  if (state.reflections.some((r) => r.attempt === attempt)) return { kind: 'replan' };
  return { kind: 'reflect', attempt, failure: failedCommands(state) };
}

/** The verify commands that failed, with their exit codes and output tails. */
export function failedCommands(state: SessionState): string {
  const v = state.lastVerify;
  if (!v) return 'the verifier failed';
  return v.commands
    .filter((c) => !c.passed)
    .map((c) => `${c.command} exited ${c.exit_code}: ${c.output.slice(-400)}`)
    .join('\n');
}
