import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { explainCheckpoint } from '../../src/engine/checkpoint-explain.js';
import { checkEvidence, evaluateAll, type ProgressPolicy } from '../../src/engine/checkpoint.js';
import type { CheckpointInput, CheckpointRecord, ReportedClaims, TestOutcome } from '../../src/engine/types.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));

const POLICY: ProgressPolicy = {
  observed: [
    { signal: 'observed.tests.failing', direction: 'decrease' },
    { signal: 'observed.tests.passing', direction: 'increase' },
  ],
  reported: ['new_evidence', 'eliminated_hypotheses', 'remaining_hypotheses'],
  threshold: 2,
};

function loadFolder(name: string): CheckpointInput[] {
  const dir = path.join(FIXTURES, name);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as CheckpointInput);
}

const EMPTY: ReportedClaims = { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] };

/** A checkpoint with failing/passing counts; `undefined` leaves a metric out, `null` marks it missing. */
function cp(
  iteration: number,
  failing: number | null | undefined,
  passing: number | null | undefined,
  reported: ReportedClaims = EMPTY,
): CheckpointInput {
  const observed: Record<string, number | null> = {};
  if (failing !== undefined) observed['tests.failing'] = failing;
  if (passing !== undefined) observed['tests.passing'] = passing;
  return { iteration, observed, reported };
}

const summary = (r: CheckpointRecord) => ({
  status: r.status,
  counter: r.counter,
  observed_progress: r.observed_progress,
  claimed_progress: r.claimed_progress,
  stagnation_detected: r.stagnation_detected,
});

describe('checkpoint fixtures', () => {
  it('each folder holds 01.json, 02.json, 03.json at iterations 3, 6, 9', () => {
    for (const name of ['productive', 'stagnant', 'claimed-only']) {
      expect(fs.readdirSync(path.join(FIXTURES, name)).sort()).toEqual(['01.json', '02.json', '03.json']);
      expect(loadFolder(name).map((c) => c.iteration)).toEqual([3, 6, 9]);
    }
  });

  it('productive: BASELINE, PROGRESS_OBSERVED, PROGRESS_OBSERVED with the counter at 0', () => {
    const records = evaluateAll(loadFolder('productive'), POLICY);
    expect(records.map(summary)).toEqual([
      { status: 'BASELINE', counter: 0, observed_progress: null, claimed_progress: false, stagnation_detected: false },
      { status: 'PROGRESS_OBSERVED', counter: 0, observed_progress: true, claimed_progress: true, stagnation_detected: false },
      { status: 'PROGRESS_OBSERVED', counter: 0, observed_progress: true, claimed_progress: true, stagnation_detected: false },
    ]);
    expect(records.map((r) => r.index)).toEqual([0, 1, 2]);
    expect(records.map((r) => r.threshold)).toEqual([2, 2, 2]);
    expect(records[0]!.signals).toEqual([
      { signal: 'observed.tests.failing', direction: 'decrease', before: null, after: 3, move: 'baseline' },
      { signal: 'observed.tests.passing', direction: 'increase', before: null, after: 4, move: 'baseline' },
    ]);
    expect(records[2]!.signals).toEqual([
      { signal: 'observed.tests.failing', direction: 'decrease', before: 2, after: 1, move: 'wanted' },
      { signal: 'observed.tests.passing', direction: 'increase', before: 5, after: 6, move: 'wanted' },
    ]);
    // Each claim points at a test the harness saw passing at that checkpoint.
    expect(records.map((r) => r.evidence.map((e) => e.status))).toEqual([
      ['found_passing'],
      ['found_passing'],
      ['found_passing'],
    ]);
  });

  it('stagnant: BASELINE, then NO_OBSERVED_PROGRESS twice; stagnation at counter 2', () => {
    const records = evaluateAll(loadFolder('stagnant'), POLICY);
    expect(records.map(summary)).toEqual([
      { status: 'BASELINE', counter: 0, observed_progress: null, claimed_progress: false, stagnation_detected: false },
      { status: 'NO_OBSERVED_PROGRESS', counter: 1, observed_progress: false, claimed_progress: false, stagnation_detected: false },
      { status: 'NO_OBSERVED_PROGRESS', counter: 2, observed_progress: false, claimed_progress: false, stagnation_detected: true },
    ]);
    expect(records[1]!.signals.map((s) => [s.before, s.after, s.move])).toEqual([
      [3, 3, 'flat'],
      [4, 4, 'flat'],
    ]);
    expect(records[2]!.evidence).toEqual([]);
  });

  it('claimed-only: claims without observed progress never reset the counter', () => {
    const inputs = loadFolder('claimed-only');
    expect(inputs.map((c) => c.reported.remaining_hypotheses.length)).toEqual([3, 2, 1]);
    expect(inputs.map((c) => c.reported.eliminated_hypotheses.length)).toEqual([0, 1, 2]);
    const records = evaluateAll(inputs, POLICY);
    expect(records.map(summary)).toEqual([
      { status: 'BASELINE', counter: 0, observed_progress: null, claimed_progress: false, stagnation_detected: false },
      { status: 'NO_OBSERVED_PROGRESS', counter: 1, observed_progress: false, claimed_progress: true, stagnation_detected: false },
      { status: 'NO_OBSERVED_PROGRESS', counter: 2, observed_progress: false, claimed_progress: true, stagnation_detected: true },
    ]);
    // The claim of checkpoint 2 points at nothing the harness ran; checkpoint 3 claims a fix
    // of a test that is still failing, and cites one that passes.
    expect(records[1]!.evidence).toEqual([
      { claim: 'the DTO is valid before serialization', evidence_ref: 'dto is valid', status: 'not_found' },
    ]);
    expect(records[2]!.evidence).toEqual([
      { claim: 'the round trip is fixed', evidence_ref: 'serializes utf-8 round trip', status: 'found_failing' },
      { claim: 'ascii names were never broken', evidence_ref: 'parses ascii names', status: 'found_passing' },
    ]);
  });

  it('keeps the input on the record (iteration, observed, reported)', () => {
    const inputs = loadFolder('claimed-only');
    const records = evaluateAll(inputs, POLICY);
    expect(records[2]!.iteration).toBe(9);
    expect(records[2]!.observed).toEqual({ 'tests.failing': 3, 'tests.passing': 4, 'tests.total': 7 });
    expect(records[2]!.reported).toEqual(inputs[2]!.reported);
  });
});

describe('evaluateAll inline', () => {
  it('3/4, 3/4, 2/5, 2/5, 2/5 -> BASELINE, NOP(1), PO(0), NOP(1), NOP+STAGNATION(2)', () => {
    const records = evaluateAll([cp(3, 3, 4), cp(6, 3, 4), cp(9, 2, 5), cp(12, 2, 5), cp(15, 2, 5)], POLICY);
    expect(records.map((r) => [r.status, r.counter, r.stagnation_detected])).toEqual([
      ['BASELINE', 0, false],
      ['NO_OBSERVED_PROGRESS', 1, false],
      ['PROGRESS_OBSERVED', 0, false],
      ['NO_OBSERVED_PROGRESS', 1, false],
      ['NO_OBSERVED_PROGRESS', 2, true],
    ]);
  });

  it('stays STAGNATION_DETECTED at every checkpoint above the threshold until observed progress', () => {
    const records = evaluateAll([cp(1, 3, 4), cp(2, 3, 4), cp(3, 3, 4), cp(4, 3, 4), cp(5, 2, 5)], POLICY);
    expect(records.map((r) => [r.counter, r.stagnation_detected])).toEqual([
      [0, false],
      [1, false],
      [2, true],
      [3, true],
      [0, false],
    ]);
  });

  it('3/4 then 4/3 is a regression: NO_OBSERVED_PROGRESS, counter 1, both signals regressed', () => {
    const records = evaluateAll([cp(3, 3, 4), cp(6, 4, 3)], POLICY);
    expect(summary(records[1]!)).toEqual({
      status: 'NO_OBSERVED_PROGRESS',
      counter: 1,
      observed_progress: false,
      claimed_progress: false,
      stagnation_detected: false,
    });
    expect(records[1]!.signals).toEqual([
      { signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: 4, move: 'regressed' },
      { signal: 'observed.tests.passing', direction: 'increase', before: 4, after: 3, move: 'regressed' },
    ]);
  });

  it('one signal moving as wanted is enough for PROGRESS_OBSERVED', () => {
    // A new passing test was added: passing 4 -> 5, failing stays 3.
    const records = evaluateAll([cp(3, 3, 4), cp(6, 3, 5)], POLICY);
    expect(records[1]!.status).toBe('PROGRESS_OBSERVED');
    expect(records[1]!.signals.map((s) => s.move)).toEqual(['flat', 'wanted']);
  });

  it.each([
    ['null', null],
    ['absent', undefined],
  ])('a %s metric is missing: never read as 0, and the last observed value is kept', (_label, value) => {
    const records = evaluateAll([cp(3, 3, 4), cp(6, value, value), cp(9, 3, 4), cp(12, 3, 4)], POLICY);
    // Read as 0, failing 3 -> 0 would look like progress at checkpoint 2, and 0 -> 3 / 0 -> 4 at checkpoint 3.
    // Nothing measured is UNKNOWN: the counter neither resets nor advances there.
    expect(records.map((r) => [r.status, r.counter, r.observed_progress])).toEqual([
      ['BASELINE', 0, null],
      ['UNKNOWN', 0, null],
      ['NO_OBSERVED_PROGRESS', 1, false],
      ['NO_OBSERVED_PROGRESS', 2, false],
    ]);
    expect(records[1]!.unknown_why).toBe('observed.tests.failing: no number was recorded for it; observed.tests.passing: no number was recorded for it');
    expect(records[1]!.signals).toEqual([
      { signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: null, move: 'missing' },
      { signal: 'observed.tests.passing', direction: 'increase', before: 4, after: null, move: 'missing' },
    ]);
    expect(records[2]!.signals).toEqual([
      { signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: 3, move: 'flat' },
      { signal: 'observed.tests.passing', direction: 'increase', before: 4, after: 4, move: 'flat' },
    ]);
    expect(records[3]!.stagnation_detected).toBe(true);
  });

  it('progress after a missing checkpoint compares with the last observed value', () => {
    const records = evaluateAll([cp(3, 3, 4), cp(6, null, null), cp(9, 2, 5)], POLICY);
    expect(records.map((r) => [r.status, r.counter])).toEqual([
      ['BASELINE', 0],
      ['UNKNOWN', 0],
      ['PROGRESS_OBSERVED', 0],
    ]);
    expect(records[2]!.signals.map((s) => [s.before, s.after, s.move])).toEqual([
      [3, 2, 'wanted'],
      [4, 5, 'wanted'],
    ]);
  });

  it('an unparsable metric (a string, NaN) is missing too', () => {
    const weird: CheckpointInput = {
      iteration: 6,
      observed: { 'tests.failing': '2' as unknown as number, 'tests.passing': Number.NaN },
      reported: EMPTY,
    };
    const records = evaluateAll([cp(3, 3, 4), weird], POLICY);
    expect(records[1]!.status).toBe('UNKNOWN');
    expect(records[1]!.signals.map((s) => [s.before, s.after, s.move])).toEqual([
      [3, null, 'missing'],
      [4, null, 'missing'],
    ]);
  });

  it('a missing metric at the first checkpoint is shown as missing', () => {
    const records = evaluateAll([cp(3, null, 4), cp(6, 2, 4)], POLICY);
    expect(records[0]!.status).toBe('BASELINE');
    expect(records[0]!.signals.map((s) => s.move)).toEqual(['missing', 'baseline']);
    // No earlier failing value to compare with: 2 is not progress over nothing.
    expect(records[1]!.status).toBe('NO_OBSERVED_PROGRESS');
    expect(records[1]!.signals[0]).toEqual({
      signal: 'observed.tests.failing',
      direction: 'decrease',
      before: null,
      after: 2,
      move: 'baseline',
    });
  });

  it('reported fields growing while observed stays flat never reset the counter', () => {
    const growing = (n: number): ReportedClaims => ({
      new_evidence: Array.from({ length: n }, (_, i) => ({ claim: `claim ${i}`, evidence_ref: `ref ${i}` })),
      eliminated_hypotheses: Array.from({ length: n }, (_, i) => `hypothesis ${i}`),
      remaining_hypotheses: [],
    });
    const inputs = [1, 2, 3, 4, 5].map((n) => cp(n * 3, 3, 4, growing(n)));
    const records = evaluateAll(inputs, POLICY);
    expect(records.map((r) => [r.status, r.counter, r.claimed_progress, r.stagnation_detected])).toEqual([
      ['BASELINE', 0, false, false],
      ['NO_OBSERVED_PROGRESS', 1, true, false],
      ['NO_OBSERVED_PROGRESS', 2, true, true],
      ['NO_OBSERVED_PROGRESS', 3, true, true],
      ['NO_OBSERVED_PROGRESS', 4, true, true],
    ]);
  });

  it('claimed_progress only looks at tracked reported fields', () => {
    const onlyRemaining: ReportedClaims = { ...EMPTY, remaining_hypotheses: ['serializer'] };
    const policy: ProgressPolicy = { ...POLICY, reported: ['new_evidence', 'eliminated_hypotheses'] };
    const [, withTracked] = evaluateAll([cp(3, 3, 4), cp(6, 3, 4, onlyRemaining)], POLICY);
    const [, untracked] = evaluateAll([cp(3, 3, 4), cp(6, 3, 4, onlyRemaining)], policy);
    expect(withTracked!.claimed_progress).toBe(true);
    expect(untracked!.claimed_progress).toBe(false);
  });
});

describe('evidence refs', () => {
  const tests: TestOutcome[] = [
    { name: 'dto is valid', ok: true },
    { name: 'serializer keeps utf-8', ok: false },
  ];
  const reported: ReportedClaims = {
    ...EMPTY,
    new_evidence: [
      { claim: 'the DTO is valid', evidence_ref: 'dto is valid' },
      { claim: 'the serializer is fixed', evidence_ref: 'serializer keeps utf-8' },
      { claim: 'the mapper is fine', evidence_ref: 'mapper maps' },
      { claim: 'case matters', evidence_ref: 'DTO IS VALID' },
    ],
  };

  it('marks each ref found_passing, found_failing or not_found against the observed tests', () => {
    expect(checkEvidence(reported, tests).map((e) => [e.evidence_ref, e.status])).toEqual([
      ['dto is valid', 'found_passing'],
      ['serializer keeps utf-8', 'found_failing'],
      ['mapper maps', 'not_found'],
      ['DTO IS VALID', 'not_found'],
    ]);
  });

  it('marks every ref not_found when the harness observed no tests', () => {
    expect(checkEvidence(reported, undefined).map((e) => e.status)).toEqual(['not_found', 'not_found', 'not_found', 'not_found']);
  });

  it('carries the marks on the evaluated checkpoint', () => {
    const input: CheckpointInput = { ...cp(3, 1, 1, reported), tests };
    const [record] = evaluateAll([input], POLICY);
    expect(record!.evidence).toEqual([
      { claim: 'the DTO is valid', evidence_ref: 'dto is valid', status: 'found_passing' },
      { claim: 'the serializer is fixed', evidence_ref: 'serializer keeps utf-8', status: 'found_failing' },
      { claim: 'the mapper is fine', evidence_ref: 'mapper maps', status: 'not_found' },
      { claim: 'case matters', evidence_ref: 'DTO IS VALID', status: 'not_found' },
    ]);
  });
});

describe('when the sources disagree (docs/design.md, "When the sources disagree")', () => {
  it('one metric missing while another improves: PROGRESS_OBSERVED, the missing one counts neither way, and the line says so', () => {
    const records = evaluateAll([cp(3, 3, 4), cp(6, 2, null)], POLICY);
    expect(summary(records[1]!)).toEqual({ status: 'PROGRESS_OBSERVED', counter: 0, observed_progress: true, claimed_progress: false, stagnation_detected: false });
    expect(explainCheckpoint(records[1]!)).toBe(
      'observed progress rule: observed.tests.failing 3 → 2 (decrease wanted) moved the declared way; observed.tests.passing not measured (unknown: counts neither way); counter 0/2 (reset)',
    );
    // The missing metric is compared with its last measured value when it comes back.
    const [, , third] = evaluateAll([cp(3, 3, 4), cp(6, 2, null), cp(9, 2, 5)], POLICY);
    expect(third!.signals.map((g) => [g.before, g.after, g.move])).toEqual([
      [2, 2, 'flat'],
      [4, 5, 'wanted'],
    ]);
  });

  it('one improving while another regresses (failing/passing 3/4 → 2/3): a regression cancels progress, the counter goes on', () => {
    const records = evaluateAll([cp(3, 3, 4), cp(6, 2, 3), cp(9, 1, 2)], POLICY);
    expect(records.map(summary).slice(1)).toEqual([
      { status: 'NO_OBSERVED_PROGRESS', counter: 1, observed_progress: false, claimed_progress: false, stagnation_detected: false },
      { status: 'NO_OBSERVED_PROGRESS', counter: 2, observed_progress: false, claimed_progress: false, stagnation_detected: true },
    ]);
    expect(explainCheckpoint(records[1]!)).toBe(
      'mixed, a regression cancels progress: observed.tests.failing 3 → 2 (decrease wanted) moved the declared way but observed.tests.passing 4 → 3, the wrong way (increase wanted); counter 1/2',
    );
    // The other way round (failing rises while passing rises) is the same decision.
    const [, other] = evaluateAll([cp(3, 3, 4), cp(6, 4, 6)], POLICY);
    expect(other!.status).toBe('NO_OBSERVED_PROGRESS');
    expect(explainCheckpoint(other!)).toMatch(/^mixed, a regression cancels progress: observed\.tests\.passing 4 → 6 \(increase wanted\) moved the declared way but observed\.tests\.failing 3 → 4, the wrong way/);
  });

  it('claims present in the first checkpoint: BASELINE with claimed_progress false; the claims are its starting point', () => {
    const claims: ReportedClaims = {
      new_evidence: [{ claim: 'the DTO is valid', evidence_ref: 'rejects empty payloads' }],
      eliminated_hypotheses: ['business validation'],
      remaining_hypotheses: ['serializer'],
    };
    const [first, second] = evaluateAll([cp(3, 3, 4, claims), cp(6, 3, 4, claims)], POLICY);
    expect(summary(first!)).toEqual({ status: 'BASELINE', counter: 0, observed_progress: null, claimed_progress: false, stagnation_detected: false });
    // Its evidence is still checked against what the harness ran.
    expect(first!.evidence).toEqual([{ claim: 'the DTO is valid', evidence_ref: 'rejects empty payloads', status: 'not_found' }]);
    expect(explainCheckpoint(first!)).toBe(
      'baseline rule: the first checkpoint has nothing to compare, and its 3 claims are the starting point, not progress (observed.tests.failing first measured at 3, observed.tests.passing first measured at 4); counter 0/2',
    );
    // The next checkpoint's claims are claims of progress, which never reset the counter.
    expect(summary(second!)).toMatchObject({ status: 'NO_OBSERVED_PROGRESS', counter: 1, claimed_progress: true });
  });
});
