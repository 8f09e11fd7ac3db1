import type { SessionState } from '../engine/index.js';

/**
 * Workspace progress as words. `unknown` is said as unknown, never as "no progress": in a
 * git workspace it means one snapshot so far, nothing to compare it with.
 */
export function filesText(unchanged: SessionState['unchangedSteps'], git = false): string {
  if (unchanged === 'unknown') return git ? 'file changes shown from the next step' : 'file changes unknown';
  if (unchanged === 0) return 'files changed in the last step';
  return `no file changed in ${unchanged} step${unchanged === 1 ? '' : 's'}`;
}

export function commitsText(commits: SessionState['lapCommits'], laps: boolean): string {
  const scope = laps ? 'this lap' : 'this run';
  if (commits === 'unknown') return `commits ${scope} unknown`;
  return `${commits} commit${commits === 1 ? '' : 's'} ${scope}`;
}

/** The verifier's verdict on the agent's claim, in words, with the first failing command. */
export function verdictText(state: Pick<SessionState, 'lastVerify' | 'finalClaim'>): { ok: boolean | null; text: string } | null {
  if (state.finalClaim !== null) return { ok: null, text: 'claim awaiting verification' };
  const v = state.lastVerify;
  if (v === null) return null;
  const what = v.trigger === 'claim' ? 'claim' : 'check';
  if (v.passed) return { ok: true, text: `${what} verified` };
  const failed = v.commands.find((c) => !c.passed);
  return { ok: false, text: `${what} refuted${failed ? `: ${failed.command} exit ${failed.exit_code ?? 'none'}` : ''}` };
}
