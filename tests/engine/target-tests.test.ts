// Observed progress is about the target tests frozen at the baseline, not about counts the
// agent can move (docs/design.md, "Checkpoints and stagnation"). A scripted agent edits a
// real workspace whose tests node's own runner runs (TAP reporter) at every checkpoint.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy, type LoopPolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { evaluateAll, type ProgressPolicy } from '../../src/engine/checkpoint.js';
import { advanceTargets, targetsHold, targetVerdicts, type TargetState } from '../../src/engine/target-tests.js';
import type { CheckpointInput, CheckpointRecord } from '../../src/engine/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `add` is right; `sub`, `mul` and `div` have a bug each. */
const LIB = `export const add = (a, b) => a + b;
export const sub = (a, b) => a + b;
export const mul = (a, b) => a + b;
export const div = (a, b) => a + b;
`;
const FIXED_SUB = LIB.replace('export const sub = (a, b) => a + b;', 'export const sub = (a, b) => a - b;');

const HEADER = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { add, sub, mul, div } from './lib.mjs';
`;
const PASSING = ['add 1', 'add 2', 'add 3', 'add 4'].map((name, i) => `test('${name}', () => assert.equal(add(${i}, 1), ${i + 1}));\n`).join('');
const SUB = "test('sub', () => assert.equal(sub(5, 3), 2));\n";
const MUL = "test('mul', () => assert.equal(mul(2, 3), 6));\n";
const DIV = "test('div', () => assert.equal(div(6, 3), 2));\n";
/** 4 passing, 3 failing. */
const SUITE = HEADER + PASSING + SUB + MUL + DIV;

/** A workspace with the library and its tests: failing 3, passing 4. */
function workspace(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-targets-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(dir, 'lib.mjs'), LIB);
  writeFileSync(path.join(dir, 'lib.test.mjs'), SUITE);
  return dir;
}

function policyFor(dir: string, turns: number): LoopPolicy {
  return parsePolicy(
    stringify({
      goal: { objective: 'Fix sub, mul and div' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      budget: { max_iterations: turns },
      verify: [{ command: 'node --test lib.test.mjs' }],
      hooks: [],
      checkpoint: { every_iterations: 1 },
      observe: [{ name: 'tests', command: 'node --test --test-reporter=tap', parser: 'tap', timeout: '60s' }],
      progress: {
        observed: [
          { signal: 'observed.tests.failing', direction: 'decrease' },
          { signal: 'observed.tests.passing', direction: 'increase' },
        ],
      },
      stagnation: { checkpoints_without_observed_progress: 2, on_detect: 'alert' },
    }),
    path.join(dir, 'loop.yaml'),
  );
}

const write = (id: string, file: string, content: string) => ({ tool_calls: [{ id, name: 'write_file', args: { path: file, content } }] });
const look = (id: string) => ({ tool_calls: [{ id, name: 'read_file', args: { path: 'lib.mjs' } }] });

interface Ran {
  events: LoopEvent[];
  checkpoints: CheckpointRecord[];
}

async function run(dir: string, scripted: object[], prior?: LoopEvent[]): Promise<Ran> {
  // One more turn than the checkpoints looked at: the budget ends the run at that turn,
  // before its checkpoint, so every scripted turn's checkpoint is recorded.
  const turns = [...scripted, look('tail')];
  const events: LoopEvent[] = [...(prior ?? [])];
  let now = 1_700_000_000_000;
  const session = new Session({
    id: 's1',
    agent: ScriptedAgent.fromYaml(stringify({ turns })),
    policy: policyFor(dir, turns.length),
    workspace: dir,
    clock: () => (now += 1000),
    sinks: [(e) => events.push(e)],
    ...(prior ? { prior } : {}),
  });
  const answerer = headlessAnswerer({ approve: 'all', onPause: 'stop' });
  await drive(prior ? session.resume() : session.run(newGoal('Fix sub, mul and div')), answerer);
  return { events, checkpoints: events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint] : [])) };
}

/** Status, counter, each signal's before → after and move, per checkpoint. */
const verdicts = (records: CheckpointRecord[]) =>
  records.map((r) => ({
    status: r.status,
    counter: r.counter,
    stagnation: r.stagnation_detected,
    signals: r.signals.map((s) => `${s.signal.replace('observed.', '')} ${s.before ?? '—'} → ${s.after ?? 'missing'} ${s.move}`),
  }));

/** The agent's extra tests, all trivially passing. */
const TRIVIAL = `import { test } from 'node:test';
test('trivial 1', () => {});
test('trivial 2', () => {});
test('trivial 3', () => {});
`;

describe('progress over the target tests frozen at the baseline', () => {
  it('adding trivial passing tests (passing 4 → 7, the same 3 failing) is no progress, and stagnation follows as configured', async () => {
    const dir = workspace();
    const { events, checkpoints } = await run(dir, [write('w1', 'extra.test.mjs', TRIVIAL), look('r2')]);
    // The runner itself counts 7 passing: the added tests are measured and shown...
    expect(checkpoints.map((c) => [c.observed['tests.failing'], c.observed['tests.passing']])).toEqual([
      [3, 4],
      [3, 7],
      [3, 7],
    ]);
    // ...but only the target tests count.
    expect(verdicts(checkpoints)).toEqual([
      { status: 'BASELINE', counter: 0, stagnation: false, signals: ['tests.failing — → 3 baseline', 'tests.passing — → 4 baseline'] },
      { status: 'NO_OBSERVED_PROGRESS', counter: 1, stagnation: false, signals: ['tests.failing 3 → 3 flat', 'tests.passing 4 → 4 flat'] },
      { status: 'NO_OBSERVED_PROGRESS', counter: 2, stagnation: true, signals: ['tests.failing 3 → 3 flat', 'tests.passing 4 → 4 flat'] },
    ]);
    // The baseline checkpoint records the frozen set by name in the log.
    expect(checkpoints[0]!.target_tests).toEqual([
      {
        observer: 'tests',
        frozen_at: 0,
        frozen: { failing: ['div', 'mul', 'sub'], passing: ['add 1', 'add 2', 'add 3', 'add 4'] },
        measured: true,
        failing: 3,
        passing: 4,
        total: 7,
        fixed: [],
        broken: [],
        lost: [],
        untracked: { count: 0, names: [] },
      },
    ]);
    expect(checkpoints[1]!.target_tests).toEqual([
      {
        observer: 'tests',
        frozen_at: 0,
        measured: true,
        failing: 3,
        passing: 4,
        total: 7,
        fixed: [],
        broken: [],
        lost: [],
        untracked: { count: 3, names: ['trivial 1', 'trivial 2', 'trivial 3'] },
      },
    ]);
    // The tests were added in the first interval: the baseline taken at the start had frozen the set already.
    expect(events.filter((e) => e.type === 'stagnation.detected').map((e) => e.data)).toEqual([{ counter: 2, threshold: 2, iteration: 2, action: 'alert' }]);
  });

  it('deleting or skipping failing tests (failing 3 → 1) is a regression, never progress', async () => {
    const dir = workspace();
    const fewer = HEADER + PASSING + SUB.replace("test('sub'", "test.skip('sub'") + DIV;
    const { checkpoints } = await run(dir, [write('w1', 'lib.test.mjs', fewer), look('r2')]);
    expect(checkpoints.map((c) => c.observed['tests.failing'])).toEqual([3, 1, 1]);
    expect(verdicts(checkpoints)).toEqual([
      { status: 'BASELINE', counter: 0, stagnation: false, signals: ['tests.failing — → 3 baseline', 'tests.passing — → 4 baseline'] },
      { status: 'NO_OBSERVED_PROGRESS', counter: 1, stagnation: false, signals: ['tests.failing 3 → 3 regressed', 'tests.passing 4 → 4 flat'] },
      { status: 'NO_OBSERVED_PROGRESS', counter: 2, stagnation: true, signals: ['tests.failing 3 → 3 flat', 'tests.passing 4 → 4 flat'] },
    ]);
    expect(checkpoints[1]!.target_tests![0]!.lost).toEqual([
      { name: 'mul', was: 'failing', now: 'gone' },
      { name: 'sub', was: 'failing', now: 'skipped' },
    ]);
  });

  it('deleting a passing test and adding a passing one of another name lowers passing: a regression', async () => {
    const dir = workspace();
    const swapped = HEADER + PASSING.replace("test('add 4'", "test('add four'") + SUB + MUL + DIV;
    const { checkpoints } = await run(dir, [write('w1', 'lib.test.mjs', swapped)]);
    expect(verdicts(checkpoints)[1]).toEqual({
      status: 'NO_OBSERVED_PROGRESS',
      counter: 1,
      stagnation: false,
      signals: ['tests.failing 3 → 4 regressed', 'tests.passing 4 → 3 regressed'],
    });
    expect(checkpoints[1]!.target_tests![0]).toMatchObject({ lost: [{ name: 'add 4', was: 'passing', now: 'gone' }], untracked: { count: 1, names: ['add four'] } });
  });

  it('a passing test added under the name of a failing target does not fix it', async () => {
    const dir = workspace();
    const shadowed = `${SUITE}test('sub', () => {});\n`;
    const { checkpoints } = await run(dir, [write('w1', 'lib.test.mjs', shadowed)]);
    expect(verdicts(checkpoints)[1]!.status).toBe('NO_OBSERVED_PROGRESS');
    expect(checkpoints[1]!.target_tests![0]).toMatchObject({ failing: 3, passing: 4, fixed: [] });
  });

  it('a genuine fix is PROGRESS_OBSERVED, naming the test that went from failing to passing', async () => {
    const dir = workspace();
    const { checkpoints } = await run(dir, [write('w1', 'lib.mjs', FIXED_SUB)]);
    expect(verdicts(checkpoints)[1]).toEqual({
      status: 'PROGRESS_OBSERVED',
      counter: 0,
      stagnation: false,
      signals: ['tests.failing 3 → 2 wanted', 'tests.passing 4 → 5 wanted'],
    });
    expect(checkpoints[1]!.target_tests![0]).toMatchObject({ failing: 2, passing: 5, fixed: ['sub'], broken: [], lost: [] });
  });

  it('a resumed run rebuilds the frozen set from the log: tests added before the restart still do not count', async () => {
    const dir = workspace();
    const turns = [write('w1', 'extra.test.mjs', TRIVIAL), look('r2')];
    const first = await run(dir, turns);
    // The log as a crash would leave it after the first step's checkpoint (the second only reads a file).
    const ends = first.events.flatMap((e, i) => (e.type === 'checkpoint.recorded' ? [i] : []));
    const cut = first.events.slice(0, ends[1]! + 1);
    expect(cut.filter((e) => e.type === 'checkpoint.recorded')).toHaveLength(2);
    expect(fold(cut).evaluator.targets).toEqual([
      {
        observer: 'tests',
        frozen_at: 0,
        last: [
          ['add 1', 'passing'],
          ['add 2', 'passing'],
          ['add 3', 'passing'],
          ['add 4', 'passing'],
          ['div', 'failing'],
          ['mul', 'failing'],
          ['sub', 'failing'],
        ],
      },
    ]);
    const resumed = await run(dir, turns, cut);
    const third = resumed.checkpoints.at(-1)!;
    expect(verdicts([third])).toEqual([
      { status: 'NO_OBSERVED_PROGRESS', counter: 2, stagnation: true, signals: ['tests.failing 3 → 3 flat', 'tests.passing 4 → 4 flat'] },
    ]);
    expect(third.target_tests![0]).toMatchObject({ frozen_at: 0, untracked: { count: 3 } });
  });
});

describe('the evaluator over frozen target tests (pure)', () => {
  const POLICY: ProgressPolicy = {
    observed: [
      { signal: 'observed.tests.failing', direction: 'decrease' },
      { signal: 'observed.tests.passing', direction: 'increase' },
    ],
    reported: [],
    threshold: 2,
  };
  const EMPTY = { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] };
  /** A checkpoint of observer `tests` with `[name, ok]` outcomes and skipped names; `null`: the observer gave no report. */
  const cp = (iteration: number, tests: Array<[string, boolean]> | null, skipped: string[] = []): CheckpointInput => {
    if (tests === null) return { iteration, observed: { 'tests.failing': null, 'tests.passing': null }, reported: EMPTY };
    const failing = tests.filter(([, ok]) => !ok).length;
    return {
      iteration,
      observed: { 'tests.failing': failing, 'tests.passing': tests.length - failing },
      tests: tests.map(([name, ok]) => ({ name, ok, observer: 'tests' })),
      skipped_tests: skipped.map((name) => ({ name, observer: 'tests' })),
      reported: EMPTY,
    };
  };
  const moves = (records: CheckpointRecord[]) => records.map((r) => [r.status, ...r.signals.map((s) => `${s.before ?? '—'}→${s.after ?? '?'} ${s.move}`)]);

  it('an observer that gives no report leaves its targets unmeasured, never gone; they are compared with the last report', () => {
    const base: Array<[string, boolean]> = [['a', false], ['b', true]];
    const records = evaluateAll([cp(1, base), cp(2, null), cp(3, [['a', true], ['b', true]])], POLICY);
    expect(moves(records)).toEqual([
      ['BASELINE', '—→1 baseline', '—→1 baseline'],
      ['UNKNOWN', '1→? missing', '1→? missing'],
      ['PROGRESS_OBSERVED', '1→0 wanted', '1→2 wanted'],
    ]);
    expect(records[1]!.target_tests![0]).toMatchObject({ measured: false, failing: null, lost: [] });
    expect(records[2]!.target_tests![0]).toMatchObject({ fixed: ['a'], lost: [] });
  });

  it('a name reported twice is failing while any of its runs fails; hostile names stay plain data', () => {
    const base: Array<[string, boolean]> = [['__proto__', false], ['constructor', true], ['toString', false]];
    const records = evaluateAll([cp(1, base), cp(2, [...base, ['__proto__', true], ['toString', true]])], POLICY);
    expect(moves(records)[1]).toEqual(['NO_OBSERVED_PROGRESS', '2→2 flat', '1→1 flat']);
    expect(records[1]!.target_tests![0]).toMatchObject({ fixed: [], untracked: { count: 0 } });
  });

  it('a skipped target that runs again and passes is progress; one that was skipped at the baseline is no target', () => {
    const records = evaluateAll([cp(1, [['a', false], ['b', true]], ['c']), cp(2, [['b', true]], ['a']), cp(3, [['a', true], ['b', true], ['c', true]])], POLICY);
    expect(moves(records)).toEqual([
      ['BASELINE', '—→1 baseline', '—→1 baseline'],
      ['NO_OBSERVED_PROGRESS', '1→1 regressed', '1→1 flat'],
      ['PROGRESS_OBSERVED', '1→0 wanted', '1→2 wanted'],
    ]);
    expect(records[1]!.target_tests![0]!.lost).toEqual([{ name: 'a', was: 'failing', now: 'skipped' }]);
    expect(records[2]!.target_tests![0]).toMatchObject({ fixed: ['a'], untracked: { count: 1, names: ['c'] } });
  });

  it('tests without an observer name (checkpoint files) are counted as they are', () => {
    const plain = (iteration: number, failing: number, passing: number): CheckpointInput => ({
      iteration,
      observed: { 'tests.failing': failing, 'tests.passing': passing },
      tests: [{ name: 'a', ok: false }],
      reported: EMPTY,
    });
    const records = evaluateAll([plain(1, 3, 4), plain(2, 1, 4)], POLICY);
    expect(moves(records)[1]).toEqual(['PROGRESS_OBSERVED', '3→1 wanted', '4→4 flat']);
    expect(records.map((r) => r.target_tests)).toEqual([undefined, undefined]);
  });
});

// A test file that cannot be loaded (an import error, pytest's collection error) is reported
// as one failing entry in place of its tests: once it loads, its tests stand in for it, so an
// honest fix can meet the goal, and a test failing in it keeps it from being met.
describe('a target that was a test file failing to load', () => {
  const POLICY: ProgressPolicy = { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }], reported: [], threshold: 2 };
  const EMPTY = { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] };
  type Outcome = { name: string; ok: boolean; load_error?: true; in?: string };
  const cp = (iteration: number, tests: Outcome[]): CheckpointInput => {
    const failing = tests.filter((t) => !t.ok).length;
    return { iteration, observed: { 'tests.failing': failing, 'tests.passing': tests.length - failing }, tests: tests.map((t) => ({ ...t, observer: 'tests' })), reported: EMPTY };
  };
  /** The target sets after the checkpoints, and the verdict a last observation gives over them. */
  const verdictAfter = (checkpoints: CheckpointInput[], now: CheckpointInput) => {
    const records = evaluateAll(checkpoints, POLICY);
    const targets = records.reduce<TargetState[]>((sets, record) => advanceTargets(sets, record), []);
    return { records, verdict: targetVerdicts(targets, now, ['tests'])[0]! };
  };
  const BROKEN: Outcome[] = [{ name: 'tests.test_x', ok: false, load_error: true, in: 'tests.test_x' }];
  const loads = (a: boolean, b: boolean): Outcome[] => [
    { name: 'tests.test_x > test_a', ok: a, in: 'tests.test_x' },
    { name: 'tests.test_x > test_b', ok: b, in: 'tests.test_x.TestB' },
    { name: 'tests.test_y > test_c', ok: true, in: 'tests.test_y' },
  ];

  it('loads and every test of it passes: the target passes, its tests are not untracked, and that is progress', () => {
    const { records, verdict } = verdictAfter([cp(1, BROKEN), cp(2, loads(true, true))], cp(3, loads(true, true)));
    expect(verdict).toMatchObject({ of: 1, passing: 1, not_passing_count: 0 });
    expect(targetsHold([verdict])).toBe(true);
    expect(records[1]!.status).toBe('PROGRESS_OBSERVED');
    expect(records[1]!.target_tests![0]).toMatchObject({ fixed: ['tests.test_x'], untracked: { count: 1, names: ['tests.test_y > test_c'] } });
  });

  it('loads with a test of it failing (one in a class of it included): the target is failing, and no pass', () => {
    for (const [a, b] of [[false, true], [true, false]] as const) {
      const { verdict } = verdictAfter([cp(1, BROKEN), cp(2, loads(a, b))], cp(3, loads(a, b)));
      expect(verdict).toMatchObject({ passing: 0, not_passing: [{ name: 'tests.test_x', now: 'failing' }] });
      expect(targetsHold([verdict])).toBe(false);
    }
  });

  it('removed, or loading with no test in it: the target is gone, and no pass', () => {
    const { verdict } = verdictAfter([cp(1, BROKEN)], cp(2, [{ name: 'tests.test_y > test_c', ok: true, in: 'tests.test_y' }]));
    expect(verdict).toMatchObject({ passing: 0, not_passing: [{ name: 'tests.test_x', now: 'gone' }] });
  });

  it('an ordinary failing test is never stood in for: passing tests beside it in its file, or named under it, do not fix it', () => {
    const base: Outcome[] = [{ name: 'parses', ok: false, in: '/p/x.test.ts' }, { name: 'prints', ok: true, in: '/p/x.test.ts' }];
    const walkedAround: Outcome[] = [{ name: 'prints', ok: true, in: '/p/x.test.ts' }, { name: 'parses > trivially', ok: true, in: 'parses' }, { name: 'x', ok: true, in: 'parses' }];
    const { verdict } = verdictAfter([cp(1, base)], cp(2, walkedAround));
    expect(verdict).toMatchObject({ passing: 1, not_passing: [{ name: 'parses', now: 'gone' }] });
  });

  it("a report that does not say where its tests are from (node's TAP): nothing stands in, so deleting the file and adding a trivial test is no pass", () => {
    const file = '/p/greet.test.mjs';
    const base: Outcome[] = [{ name: file, ok: false, load_error: true, in: file }, { name: 'other', ok: true }];
    const { verdict } = verdictAfter([cp(1, base)], cp(2, [{ name: 'trivial', ok: true }, { name: 'other', ok: true }]));
    expect(verdict).toMatchObject({ passing: 1, not_passing: [{ name: file, now: 'gone' }] });
  });

  it('a file or module whose name merely starts like the one that failed never stands in for it', () => {
    const vitest = verdictAfter(
      [cp(1, [{ name: '/p/tests/a.test.ts', ok: false, load_error: true, in: '/p/tests/a.test.ts' }])],
      cp(2, [{ name: 't', ok: true, in: '/p/tests/a.test.ts.x.test.ts' }, { name: 'u', ok: true, in: '/p/tests/a.test.ts/x.test.ts' }]),
    );
    expect(vitest.verdict).toMatchObject({ not_passing: [{ name: '/p/tests/a.test.ts', now: 'gone' }] });
    // tests/test_x.py deleted, a package tests/test_x/ with test_ok.py in its place.
    const pytest = verdictAfter([cp(1, BROKEN)], cp(2, [{ name: 'tests.test_x.test_ok > test_ok', ok: true, in: 'tests.test_x.test_ok' }]));
    expect(pytest.verdict).toMatchObject({ not_passing: [{ name: 'tests.test_x', now: 'gone' }] });
  });

  it("a folder whose conftest.py failed stands for every test under it once it loads; a module named like a class stands in for nothing", () => {
    const folder: Outcome[] = [{ name: 'tests.sub', ok: false, load_error: true, in: 'tests.sub.' }];
    const under = (ok: boolean): Outcome[] => [{ name: 'tests.sub.test_a > test_a', ok: true, in: 'tests.sub.test_a' }, { name: 'tests.sub.deep.test_b > TestB > test_b', ok, in: 'tests.sub.deep.test_b.TestB' }];
    expect(verdictAfter([cp(1, folder)], cp(2, under(true))).verdict).toMatchObject({ of: 1, passing: 1 });
    expect(verdictAfter([cp(1, folder)], cp(2, under(false))).verdict).toMatchObject({ passing: 0, not_passing: [{ name: 'tests.sub', now: 'failing' }] });
    // tests/test_x.py deleted; tests/test_x/Ok_test.py and TestOk_test.py (pytest collects *_test.py), and a jest file a.test.ts.X.
    const modules: Outcome[] = [{ name: 'tests.test_x.Ok_test > test_ok', ok: true, in: 'tests.test_x.Ok_test' }, { name: 'tests.test_x.TestOk_test > test_ok', ok: true, in: 'tests.test_x.TestOk_test' }];
    expect(verdictAfter([cp(1, BROKEN)], cp(2, modules)).verdict).toMatchObject({ not_passing: [{ name: 'tests.test_x', now: 'gone' }] });
    const jest = verdictAfter([cp(1, [{ name: '/p/a.test.ts', ok: false, load_error: true, in: '/p/a.test.ts' }])], cp(2, [{ name: 't', ok: true, in: '/p/a.test.ts.TestX' }]));
    expect(jest.verdict).toMatchObject({ not_passing: [{ name: '/p/a.test.ts', now: 'gone' }] });
  });

  it('a class pytest could not collect stands for the tests of that class once it is collected', () => {
    const base: Outcome[] = [{ name: 'tests.test_c > TestC', ok: false, load_error: true, in: 'tests.test_c.TestC' }, { name: 'tests.test_c > test_f', ok: true, in: 'tests.test_c' }];
    const fixed = (ok: boolean): Outcome[] => [{ name: 'tests.test_c.TestC > test_m[1]', ok, in: 'tests.test_c.TestC' }, { name: 'tests.test_c > test_f', ok: true, in: 'tests.test_c' }];
    expect(verdictAfter([cp(1, base)], cp(2, fixed(true))).verdict).toMatchObject({ of: 2, passing: 2, not_passing_count: 0 });
    expect(verdictAfter([cp(1, base)], cp(2, fixed(false))).verdict).toMatchObject({ passing: 1, not_passing: [{ name: 'tests.test_c > TestC', now: 'failing' }] });
  });

  it('a file that fails to load after the baseline leaves its targets gone: no pass', () => {
    const { verdict } = verdictAfter([cp(1, loads(true, false))], cp(2, [BROKEN[0]!, loads(true, true)[2]!]));
    expect(verdict).toMatchObject({ passing: 1, not_passing_count: 2 });
  });
});
