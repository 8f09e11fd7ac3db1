import type { ExecutionMemory, SessionState } from '../engine/index.js';
import type { ConsoleData } from './store.js';

/**
 * What the progress panel shows, read from the session fold, which derives each of these
 * as it folds each event (the plan and its steps done, the attempts and their reflections,
 * the lap and the hand-over file it started from, workspace progress, the last verdict, an
 * abort). Selecting it costs the same after fifty events or fifty thousand: nothing here
 * walks the event list. Every field is a primitive or a reference the fold keeps while the
 * events leave it alone, so `useShallow(selectProgress)` draws the panel again only when
 * its data changes.
 */
export interface ProgressData {
  pattern: SessionState['pattern'];
  plan: SessionState['plan'];
  planDone: number;
  /** Plans committed (1 + replans) or attempts started. */
  plans: number;
  /** The plan step that failed last (`-1`: none). */
  failedAt: number;
  reflections: SessionState['reflections'];
  lap: number;
  maxLaps: number | null;
  unchanged: SessionState['unchangedSteps'];
  git: boolean;
  commits: SessionState['lapCommits'];
  verify: SessionState['lastVerify'];
  claim: string | null;
  abort: SessionState['abort'];
  /** The summary of a run that ended `failed` (the agent could not go on; nothing parked), else `null`. */
  failed: string | null;
  /** The hand-over file the current lap started from (untrusted: the agent wrote it); `null` without laps. */
  handover: string | null;
  /** This lap's request size and the same request in one long session, in characters. */
  request: number;
  long: number;
  /** The execution memory of the last checkpoint (`null` before the first, or in an older log). */
  memory: ExecutionMemory | null;
  /** The agent's last assessment of the criteria: reported, never measured. */
  assessment: SessionState['assessment'];
}

/** The progress panel's data from the console state; constant time (see {@link ProgressData}). */
export function selectProgress({ session: s }: Pick<ConsoleData, 'session'>): ProgressData {
  return {
    pattern: s.pattern,
    plan: s.plan,
    planDone: s.planDone,
    plans: s.plans,
    failedAt: s.lastStepFailed ? s.planDone - 1 : -1,
    reflections: s.reflections,
    lap: s.lap,
    maxLaps: s.maxLaps,
    unchanged: s.unchangedSteps,
    git: s.workspaceGit === true,
    commits: s.lapCommits,
    verify: s.lastVerify,
    claim: s.finalClaim,
    abort: s.abort,
    failed: s.done?.reason === 'failed' ? s.done.summary : null,
    handover: s.maxLaps === null ? null : s.lapProgress,
    request: s.requestChars,
    long: s.longSessionChars,
    memory: s.checkpoints[s.checkpoints.length - 1]?.memory ?? null,
    assessment: s.assessment,
  };
}

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
  const open = v.not_done ? `${v.not_done} success criteri${v.not_done === 1 ? 'on' : 'a'} not done` : '';
  const why = [failed ? `${failed.command} exit ${failed.exit_code ?? 'none'}` : '', open].filter((t) => t !== '').join('; ');
  return { ok: false, text: `${what} refuted${why ? `: ${why}` : ''}` };
}
