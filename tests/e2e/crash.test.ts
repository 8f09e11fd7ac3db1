// A real run of the built CLI, SIGKILLed at chosen event boundaries (exactly after a given
// line of its log, by a preloaded module) and at random times while a tool runs, then
// resumed to the end: the outcome equals the uncrashed run's, every tool call id ran at
// most once (appends counted), no once-only event is lost or recorded twice, seqs run on
// (docs/design.md, "Resume points"). A bounded sample; `npm run crash-sweep` kills at
// every boundary.
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with scripts/crash-sweep.mjs
import { crashAndResume, uncrashedRun } from '../../scripts/crash-harness.mjs';

type Uncrashed = { reason: string; count: number; types: string[]; keys: string[] };
type Result = { cut: string; violations: string[]; survivors: string[] };

let uncrashed: Uncrashed;
beforeAll(async () => {
  uncrashed = await uncrashedRun();
}, 60_000);

/** The line after which the log first holds `type` (1-based), the `nth` such. */
function lineOf(type: string, nth = 1): number {
  let seen = 0;
  const index = uncrashed.types.findIndex((t) => t === type && ++seen === nth);
  if (index < 0) throw new Error(`the uncrashed run has no ${type} #${nth}`);
  return index + 1;
}

describe('SIGKILL of a real run, then resume', () => {
  it('the uncrashed run meets the goal', () => {
    expect(uncrashed.reason).toBe('goal_met');
  });

  const boundaries: Array<[string, () => number]> = [
    ['session.start (nothing else)', () => 1],
    ['the first tool.call (before its question)', () => lineOf('tool.call')],
    ['the first tool.decision (the call may be running)', () => lineOf('tool.decision')],
    ['the last step.end (the final claim, before REFLECTING)', () => lineOf('step.end', uncrashed.types.filter((t) => t === 'step.end').length)],
    ['verify.result (passed, before the end)', () => lineOf('verify.result')],
    ['the transition to DONE (before session.complete)', () => uncrashed.count - 1],
  ];
  it.concurrent.each(boundaries)('killed right after %s', async (_name, line) => {
    const result: Result = await crashAndResume({ after: line() }, uncrashed);
    expect(result.violations, result.cut).toEqual([]);
  }, 90_000);

  it.concurrent('killed at a random time while a tool runs', async () => {
    const tool = Math.random() < 0.5 ? 'a1' : 'a2';
    const result: Result = await crashAndResume({ tool, delayMs: Math.floor(Math.random() * 300) }, uncrashed);
    expect(result.violations, result.cut).toEqual([]);
  }, 90_000);
});

describe('processes of a killed run', () => {
  // The tool a SIGKILLed loopdeck was running lives on under pid 1; resume finds it by the
  // process tag the log recorded and kills it before anything else runs.
  it('a tool running when loopdeck was killed is not alive once the resumed run ends', async () => {
    // a3 sleeps 20 s before it appends: it is still running when the resume begins.
    const result: Result = await crashAndResume({ tool: 'a3', delayMs: 150, slow: 20 }, uncrashed);
    expect(result.violations, result.cut).toEqual([]);
    expect(result.survivors, result.cut).toEqual([]);
  }, 90_000);
});
