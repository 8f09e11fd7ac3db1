import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateAll, type ProgressPolicy } from '../../src/engine/checkpoint.js';
import { diffCheckpoint, type CheckpointDiff } from '../../src/engine/checkpoint-diff.js';
import { loadCheckpointFile } from '../../src/engine/checkpoint-file.js';
import { ConfigErrors } from '../../src/engine/errors.js';
import type { CheckpointInput, ReportedClaims } from '../../src/engine/types.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));

const POLICY: ProgressPolicy = {
  observed: [
    { signal: 'observed.tests.failing', direction: 'decrease' },
    { signal: 'observed.tests.passing', direction: 'increase' },
  ],
  reported: ['new_evidence', 'eliminated_hypotheses', 'remaining_hypotheses'],
  threshold: 2,
};

const EMPTY: ReportedClaims = { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] };

function cp(iteration: number, failing: number | null, passing: number | null, reported: ReportedClaims = EMPTY): CheckpointInput {
  return { iteration, observed: { 'tests.failing': failing, 'tests.passing': passing }, reported };
}

function folder(name: string): CheckpointInput[] {
  const dir = path.join(FIXTURES, name);
  return ['01.json', '02.json', '03.json'].map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as CheckpointInput);
}

/** Diffs of each record against the ones before it. */
function diffs(inputs: CheckpointInput[]): CheckpointDiff[] {
  const records = evaluateAll(inputs, POLICY);
  return records.map((record, i) => diffCheckpoint(records.slice(0, i), record));
}

const NO_CHANGE = { added: [], repeated: [] };

describe('diffCheckpoint', () => {
  it('the baseline: every signal is a baseline, every reported item is added', () => {
    const [first] = diffs(folder('productive'));
    expect(first).toEqual({
      index: 0,
      iteration: 3,
      signals: [
        { signal: 'observed.tests.failing', direction: 'decrease', before: null, after: 3, move: 'baseline' },
        { signal: 'observed.tests.passing', direction: 'increase', before: null, after: 4, move: 'baseline' },
      ],
      regressions: [],
      missing: [],
      reported: {
        new_evidence: { added: [{ claim: 'the DTO is valid before serialization', evidence_ref: 'rejects empty payloads' }], repeated: [] },
        eliminated_hypotheses: { added: ['business validation'], repeated: [] },
        remaining_hypotheses: { added: ['http mapping', 'serializer'], repeated: [] },
      },
      evidence: [{ claim: 'the DTO is valid before serialization', evidence_ref: 'rejects empty payloads', status: 'found_passing' }],
      status: 'BASELINE',
      verdict: 'BASELINE',
      explanation: 'baseline rule: the first checkpoint has nothing to compare, and its 4 claims are the starting point, not progress (observed.tests.failing first measured at 3, observed.tests.passing first measured at 4); counter 0/2',
      observed_progress: null,
      // claims at the baseline are its starting point, not progress
      claimed_progress: false,
      counter: 0,
      threshold: 2,
      stagnation_detected: false,
    } satisfies CheckpointDiff);
  });

  it('observed progress: signals moved as wanted; hypotheses move from remaining to eliminated', () => {
    const [, second] = diffs(folder('productive'));
    expect(second).toEqual({
      index: 1,
      iteration: 6,
      signals: [
        { signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: 2, move: 'wanted' },
        { signal: 'observed.tests.passing', direction: 'increase', before: 4, after: 5, move: 'wanted' },
      ],
      regressions: [],
      missing: [],
      reported: {
        new_evidence: {
          added: [{ claim: 'the serializer now writes UTF-8', evidence_ref: 'serializes utf-8 round trip' }],
          repeated: [],
        },
        eliminated_hypotheses: { added: ['http mapping'], repeated: ['business validation'] },
        remaining_hypotheses: { added: [], repeated: ['serializer'] },
      },
      evidence: [{ claim: 'the serializer now writes UTF-8', evidence_ref: 'serializes utf-8 round trip', status: 'found_passing' }],
      status: 'PROGRESS_OBSERVED',
      verdict: 'PROGRESS_OBSERVED',
      explanation: 'observed progress rule: observed.tests.failing 3 → 2 (decrease wanted), observed.tests.passing 4 → 5 (increase wanted) moved the declared way; counter 0/2 (reset)',
      observed_progress: true,
      claimed_progress: true,
      counter: 0,
      threshold: 2,
      stagnation_detected: false,
    } satisfies CheckpointDiff);
  });

  it('claims without observed progress: flat signals, evidence found failing and not found, stagnation at the threshold', () => {
    const [, second, third] = diffs(folder('claimed-only'));
    expect(second!.evidence).toEqual([{ claim: 'the DTO is valid before serialization', evidence_ref: 'dto is valid', status: 'not_found' }]);
    expect(third).toEqual({
      index: 2,
      iteration: 9,
      signals: [
        { signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: 3, move: 'flat' },
        { signal: 'observed.tests.passing', direction: 'increase', before: 4, after: 4, move: 'flat' },
      ],
      regressions: [],
      missing: [],
      reported: {
        new_evidence: {
          added: [
            { claim: 'the round trip is fixed', evidence_ref: 'serializes utf-8 round trip' },
            { claim: 'ascii names were never broken', evidence_ref: 'parses ascii names' },
          ],
          repeated: [],
        },
        eliminated_hypotheses: { added: ['http mapping'], repeated: ['business validation'] },
        remaining_hypotheses: { added: [], repeated: ['serializer'] },
      },
      evidence: [
        { claim: 'the round trip is fixed', evidence_ref: 'serializes utf-8 round trip', status: 'found_failing' },
        { claim: 'ascii names were never broken', evidence_ref: 'parses ascii names', status: 'found_passing' },
      ],
      status: 'NO_OBSERVED_PROGRESS',
      verdict: 'NO_OBSERVED_PROGRESS + STAGNATION_DETECTED',
      explanation: 'no observed progress: observed.tests.failing stayed at 3, observed.tests.passing stayed at 4; counter 2/2 reached the threshold: STAGNATION_DETECTED; claims never reset the counter',
      observed_progress: false,
      claimed_progress: true,
      counter: 2,
      threshold: 2,
      stagnation_detected: true,
    } satisfies CheckpointDiff);
  });

  it('3/4 then 4/3: both signals regressed, and they are listed as regressions', () => {
    const [, second] = diffs([cp(3, 3, 4), cp(6, 4, 3)]);
    expect(second!.signals).toEqual([
      { signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: 4, move: 'regressed' },
      { signal: 'observed.tests.passing', direction: 'increase', before: 4, after: 3, move: 'regressed' },
    ]);
    expect(second!.regressions).toEqual(['observed.tests.failing', 'observed.tests.passing']);
    expect([second!.verdict, second!.counter, second!.observed_progress]).toEqual(['NO_OBSERVED_PROGRESS', 1, false]);
  });

  it('a missing value is missing (never 0), and the next checkpoint compares with the last observed value', () => {
    const [, second, third] = diffs([cp(3, 3, 4), cp(6, null, 5), cp(9, 2, 5)]);
    expect(second!.signals).toEqual([
      { signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: null, move: 'missing' },
      { signal: 'observed.tests.passing', direction: 'increase', before: 4, after: 5, move: 'wanted' },
    ]);
    expect(second!.missing).toEqual(['observed.tests.failing']);
    expect(third!.signals[0]).toEqual({ signal: 'observed.tests.failing', direction: 'decrease', before: 3, after: 2, move: 'wanted' });
    expect(third!.missing).toEqual([]);
  });

  it('without a previous checkpoint every reported item counts as added; nothing is said again', () => {
    const records = evaluateAll([cp(3, 3, 4), cp(6, 3, 4, { ...EMPTY, remaining_hypotheses: ['a'] })], POLICY);
    expect(diffCheckpoint([], records[1]!).reported).toEqual({
      new_evidence: NO_CHANGE,
      eliminated_hypotheses: NO_CHANGE,
      remaining_hypotheses: { added: ['a'], repeated: [] },
    });
  });

  it('is pure: the records are not changed and the result shares no arrays with them', () => {
    const records = evaluateAll(folder('claimed-only'), POLICY);
    const copy = structuredClone(records);
    const diff = diffCheckpoint(records.slice(0, 2), records[2]!);
    expect(records).toEqual(copy);
    expect(diff.signals).not.toBe(records[2]!.signals);
    expect(diff.evidence).not.toBe(records[2]!.evidence);
    expect(diffCheckpoint(records.slice(0, 2), records[2]!)).toEqual(diff);
  });

  it('a claim said again after a checkpoint that did not repeat it is said again, not new; one never said before is new', () => {
    const claim = { claim: 'v says bad', evidence_ref: 'v.txt' };
    const [, , , fourth] = diffs([
      cp(1, 3, 4, { new_evidence: [claim], eliminated_hypotheses: ['delta'], remaining_hypotheses: ['alpha', 'beta', 'gamma'] }),
      cp(2, 3, 4, { ...EMPTY, remaining_hypotheses: ['alpha'] }),
      cp(3, 3, 4, EMPTY),
      cp(4, 3, 4, { new_evidence: [claim], eliminated_hypotheses: ['beta'], remaining_hypotheses: ['alpha', 'gamma', 'epsilon'] }),
    ]);
    expect(fourth!.reported).toEqual({
      new_evidence: { added: [], repeated: [claim] },
      // Field by field: beta was said as remaining before, never as eliminated.
      eliminated_hypotheses: { added: ['beta'], repeated: [] },
      remaining_hypotheses: { added: ['epsilon'], repeated: ['alpha', 'gamma'] },
    });
  });
});

describe('loadCheckpointFile', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function write(name: string, text: string): string {
    dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cp-'));
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  }

  function errorOf(file: string): string {
    try {
      loadCheckpointFile(file);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigErrors);
      return (error as ConfigErrors).message;
    }
    throw new Error('expected ConfigErrors');
  }

  it('reads a fixture as it is', () => {
    const file = path.join(FIXTURES, 'claimed-only', '02.json');
    expect(loadCheckpointFile(file)).toEqual(JSON.parse(fs.readFileSync(file, 'utf8')));
  });

  it('fills missing reported fields with empty lists and ignores evaluation fields', () => {
    const file = write('01.json', '{"iteration": 3, "observed": {"tests.failing": 1}, "status": "BASELINE"}');
    expect(loadCheckpointFile(file)).toEqual({ iteration: 3, observed: { 'tests.failing': 1 }, reported: EMPTY });
  });

  it.each([
    ['a string metric', '{\n  "iteration": 3,\n  "observed": {"tests.failing": "3"}\n}', '01.json:3:33: observed.tests.failing: expected a number, found "3"'],
    ['no iteration', '{"observed": {}}', '01.json:1:1: iteration: expected an integer >= 0, found nothing (this key is required)'],
    ['a claim without a reference', '{"iteration": 1, "observed": {},\n "reported": {"new_evidence": [{"claim": "x"}]}}', '01.json:2:32: reported.new_evidence[0].evidence_ref: expected a string, found nothing (this key is required)'],
    ['a list for hypotheses', '{"iteration": 1, "observed": {}, "reported": {"remaining_hypotheses": "serializer"}}', '01.json:1:71: reported.remaining_hypotheses: expected a list, found "serializer"'],
  ])('names the file, path and line:column for %s', (_what, text, message) => {
    const file = write('01.json', text);
    expect(errorOf(file)).toBe(path.join(dir!, message));
  });

  it('names the file of text that is not JSON', () => {
    const file = write('01.json', '{"iteration": 3,');
    expect(errorOf(file)).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\(root\\): expected JSON, found text it cannot read \\(`));
  });
});
