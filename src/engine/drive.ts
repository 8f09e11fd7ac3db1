import type { LoopOutcome, LoopRun, LoopYield, ResumePayload } from './session.js';

/** Answers a yield; may take as long as the operator needs. */
export type Answerer = (y: LoopYield) => Promise<ResumePayload> | ResumePayload;

/**
 * Runs a session's generator to the end, answering each yield with `answer`.
 * @returns how the run ended
 */
export async function drive(run: LoopRun, answer: Answerer): Promise<LoopOutcome> {
  let step = await run.next();
  while (!step.done) step = await run.next(await answer(step.value));
  return step.value;
}

/** The headless answers of docs/design.md, "Command line and exit codes". */
export interface HeadlessPolicy {
  /** `all` approves every tool call; `none` (the default) denies them. */
  approve: 'all' | 'none';
  /** `stop` (the default) ends the run at any pause; `continue` goes on. */
  onPause: 'continue' | 'stop';
}

/**
 * Answers yields by policy, for runs without an operator (tool answers say `by: 'policy'`). A budget pause is always
 * answered with stop: with nobody to raise the limit, continuing would pause again at once.
 */
export function headlessAnswerer(policy: HeadlessPolicy): Answerer {
  return (y): ResumePayload => {
    if (y.kind === 'tool') {
      // A call a crash interrupted may have had its effects: a policy never runs it twice.
      if (y.interrupted) return { decision: 'deny', by: 'policy', note: 'headless run: a call interrupted mid-run by a restart is not run again by policy' };
      return policy.approve === 'all'
        ? { decision: 'approve', by: 'policy', note: 'headless --approve all' }
        : { decision: 'deny', by: 'policy', note: 'headless run: tool calls are denied unless --approve all' };
    }
    if (y.cause.kind === 'budget_exceeded') return { action: 'stop', note: 'headless: nobody can raise the budget' };
    return policy.onPause === 'continue' ? { action: 'continue' } : { action: 'stop' };
  };
}
