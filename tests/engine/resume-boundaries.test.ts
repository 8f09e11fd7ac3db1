// Every line boundary of a recorded run's log (ReAct, fresh laps, Plan-and-Execute with a
// replan, Reflexion with a reflection, a failing observer whose UNKNOWN checkpoints pause
// the run) is a crash point: the log cut there and
// resumed runs to the same end as the uncrashed run, runs no tool call twice, asks the
// model for no completed turn again, and writes seqs on without a gap or a repeat
// (docs/design.md, "Resume points"). The workspace is left as the crash left it at worst:
// a call approved before the cut has appended, whether or not its result was recorded.
// The suite cuts after the first and the last event of each type; CRASH_SWEEP=all (as
// `npm run crash-sweep` sets it) cuts at every boundary.
import { describe, expect, it } from 'vitest';
import { pool, recordRun, resumeCut, sampleCuts, SCENARIOS, violations, type ScenarioName } from '../support/crash-run.js';

describe.each(Object.keys(SCENARIOS) as ScenarioName[])('a %s run cut at every line boundary', (name) => {
  it('resumes to the uncrashed outcome, with every call run at most once and every seq once', async () => {
    const uncrashed = await recordRun(name);
    expect(uncrashed.outcome.reason).toBe('goal_met');
    expect(uncrashed.appends.length).toBeGreaterThanOrEqual(3);
    const cuts = sampleCuts(uncrashed.events, process.env.CRASH_SWEEP === 'all');
    const results = await pool(cuts, 4, (cut) => resumeCut(name, uncrashed.events, cut));
    expect(results.flatMap((result) => violations(result, uncrashed))).toEqual([]);
  }, process.env.CRASH_SWEEP === 'all' ? 300_000 : 60_000);
});
