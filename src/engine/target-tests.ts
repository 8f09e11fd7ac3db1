/**
 * Target tests: progress measured on the tests that mattered when the run began, not on
 * counts the agent can move (docs/design.md, "Checkpoints and stagnation").
 *
 * When an observer's report names its tests (TAP, JUnit, vitest/jest JSON), the first
 * checkpoint at which it names at least one test that ran freezes that observer's target
 * set by name: the tests failing then and those passing then (to catch regressions). From
 * then on its count signals are computed over the frozen set only:
 *
 * - `<observer>.failing`: target tests not passing (failing, skipped or gone);
 * - `<observer>.passing`: target tests passing;
 * - `<observer>.total`: target tests that ran (passing or failing).
 *
 * Adding tests moves none of them (new tests are listed as untracked). Deleting or
 * skipping a target test cannot lower `failing`, and marks the `failing` and `total`
 * signals as regressed; a passing target test that fails marks `failing` regressed.
 * Progress is a target test going from not passing to passing. A target that was a test
 * file, module or class failing to load (`load_error`) stands for the tests read from it
 * once it loads, when the report says where its tests are from.
 *
 * The set lives in the evaluator state, which the fold rebuilds from the
 * `checkpoint.recorded` events ({@link advanceTargets}), so resume and replay keep it, and
 * an observer that is removed or changed keeps its set (keyed by observer name). Pure.
 */
import type { CheckpointInput, ObservedMetrics, TargetTestStatus, TargetTestsRecord, TargetVerdict, TestOutcome } from './types.js';

/** What a checkpoint observed, as far as target tests go. */
type Observed = Pick<CheckpointInput, 'observed' | 'tests' | 'skipped_tests'>;

/** Names of untracked tests kept on a record (the count is always exact). */
export const UNTRACKED_NAMES_SHOWN = 20;

/** Names of target tests not passing a verdict keeps ({@link targetVerdicts}; the count is always exact). */
export const NOT_PASSING_SHOWN = 20;

/** The frozen target set of one observer and each target's status at its last measured checkpoint. */
export interface TargetState {
  observer: string;
  /** Index of the checkpoint that froze the set. */
  frozen_at: number;
  /** `[name, status]` for every target test, sorted by name. */
  last: Array<[string, TargetTestStatus]>;
  /**
   * Targets that were a test file, module or class failing to load when the set was frozen
   * (`load_error` on its `TestOutcome`), with what each stood for (its `in`): once that
   * loads, the tests read from it stand in for the target.
   */
  load_errors?: Array<{ name: string; in: string }>;
}

/** What a test that ran or was skipped is now; a name that appears several times is failing if any instance fails. */
type SeenStatus = Exclude<TargetTestStatus, 'gone'>;

const RANK: Record<SeenStatus, number> = { skipped: 0, passing: 1, failing: 2 };

/**
 * What one observer reported at a checkpoint: the status of each test by name, and the
 * status of the tests read from each file, module or class (by their `in`), failing if any
 * of them fails.
 */
interface Seen {
  byName: Map<string, SeenStatus>;
  /** Built when first asked for: only a set with a load error among its targets reads it. */
  byFile: () => Map<string, { status: SeenStatus; names: string[] }>;
}

/**
 * What one observer reported at this checkpoint, or `null` when it gave no report (its
 * `<observer>.failing` metric is missing): then nothing can be said about its tests, and
 * none of them is gone.
 */
function seenBy(input: Observed, observer: string): Seen | null {
  const measured = input.observed[`${observer}.failing`];
  if (typeof measured !== 'number' || !Number.isFinite(measured)) return null;
  const byName = new Map<string, SeenStatus>();
  const note = (name: string, status: SeenStatus) => {
    const had = byName.get(name);
    if (had === undefined || RANK[status] > RANK[had]) byName.set(name, status);
  };
  const tests = (input.tests ?? []).filter((test) => test.observer === observer);
  for (const test of tests) note(test.name, test.ok ? 'passing' : 'failing');
  for (const test of input.skipped_tests ?? []) if (test.observer === observer) note(test.name, 'skipped');
  let byFile: ReturnType<Seen['byFile']> | undefined;
  return { byName, byFile: () => (byFile ??= filesOf(tests)) };
}

/** The tests of each file, module or class, by their `in` ({@link holders}), with their status (failing if any fails). */
function filesOf(tests: readonly TestOutcome[]): Map<string, { status: SeenStatus; names: string[] }> {
  const byFile = new Map<string, { status: SeenStatus; names: string[] }>();
  for (const test of tests) {
    if (typeof test.in !== 'string' || test.load_error) continue;
    const status = test.ok ? 'passing' : 'failing';
    for (const file of holders(test.in)) {
      const had = byFile.get(file);
      if (had === undefined) byFile.set(file, { status, names: [test.name] });
      else {
        had.names.push(test.name);
        if (RANK[status] > RANK[had.status]) had.status = status;
      }
    }
  }
  return byFile;
}

/**
 * What holds a test read from `where`: `where` itself, and for a class in a module (a
 * JUnit classname, dotted, no path) the module: `tests.test_x.TestA.TestB` is in
 * `tests.test_x.TestA` and `tests.test_x`, its trailing names being pytest's `Test*`
 * classes (a module `Test_ok_test.py`, which pytest collects as `*_test.py`, is no class).
 * Never a file or module whose name merely starts the same (`tests.test_x.test_y`, `a.test.ts.x`).
 */
function holders(where: string): string[] {
  const found = [where];
  if (where.includes('/')) return found;
  const isClass = (name: string) => name.startsWith('Test') && !name.endsWith('_test');
  for (let end = where.lastIndexOf('.'); end > 0 && isClass(where.slice(end + 1)); end = where.lastIndexOf('.', end - 1)) found.push(where.slice(0, end));
  return found;
}

/**
 * The tests read from what a load error stood for (`where`): those of that file, module or
 * class, or, for a folder (`where` ending in a dot: its conftest.py failed), those of every
 * module under it; with their status (failing if any fails). `undefined` when there is none.
 */
function standIns(seen: Seen, where: string): { status: SeenStatus; names: string[] } | undefined {
  if (!where.endsWith('.')) return seen.byFile().get(where);
  let status: SeenStatus | undefined;
  const names = new Set<string>();
  for (const [file, held] of seen.byFile()) {
    if (!file.startsWith(where)) continue;
    for (const name of held.names) names.add(name);
    if (status === undefined || RANK[held.status] > RANK[status]) status = held.status;
  }
  return status === undefined ? undefined : { status, names: [...names] };
}

/**
 * The status of the target `name` now: as reported by its name; a target that was a file
 * failing to load, and is not reported by name now, takes the status of the tests read
 * from what it stood for (none: gone). A report that does not say where its tests are from
 * (node's TAP) has none: such a target stays gone, since any new test could pose as its.
 */
function statusNow(state: Pick<TargetState, 'load_errors'>, seen: Seen, name: string): TargetTestStatus {
  const byName = seen.byName.get(name);
  if (byName !== undefined) return byName;
  const where = state.load_errors?.find((e) => e.name === name)?.in;
  return (where === undefined ? undefined : standIns(seen, where)?.status) ?? 'gone';
}

const ran = (status: TargetTestStatus) => status === 'passing' || status === 'failing';

/** The record of an observer's set compared with its last measured statuses. */
function compareSet(state: TargetState, seen: Seen | null): TargetTestsRecord {
  const base = { observer: state.observer, frozen_at: state.frozen_at };
  if (seen === null) {
    return { ...base, measured: false, failing: null, passing: null, total: null, fixed: [], broken: [], lost: [], untracked: { count: 0, names: [] } };
  }
  const flips: Pick<TargetTestsRecord, 'fixed' | 'broken' | 'lost'> = { fixed: [], broken: [], lost: [] };
  let passing = 0;
  let total = 0;
  for (const [name, was] of state.last) {
    const now = statusNow(state, seen, name);
    if (now === 'passing') passing += 1;
    if (ran(now)) total += 1;
    if (was !== 'passing' && now === 'passing') flips.fixed.push(name);
    if (was === 'passing' && now === 'failing') flips.broken.push(name);
    if ((was === 'passing' || was === 'failing') && (now === 'skipped' || now === 'gone')) flips.lost.push({ name, was, now });
  }
  return { ...base, measured: true, failing: state.last.length - passing, passing, total, ...flips, untracked: untracked(seen, state) };
}

/** Tests that ran and are not targets (nor stand in for a target file that loads now): a count and the first names, sorted. */
function untracked(seen: Seen, state: TargetState): TargetTestsRecord['untracked'] {
  const targets = new Set(state.last.map(([name]) => name));
  for (const e of state.load_errors ?? []) if (!seen.byName.has(e.name)) for (const name of standIns(seen, e.in)?.names ?? []) targets.add(name);
  const names = [...seen.byName].filter(([name, status]) => ran(status) && !targets.has(name)).map(([name]) => name).sort();
  return { count: names.length, names: names.slice(0, UNTRACKED_NAMES_SHOWN) };
}

/** Freezes an observer's set from what it reported now; `null` when no test of it ran. */
function freeze(observer: string, seen: Seen, index: number): TargetTestsRecord | null {
  const failing = [...seen.byName].filter(([, s]) => s === 'failing').map(([n]) => n).sort();
  const passing = [...seen.byName].filter(([, s]) => s === 'passing').map(([n]) => n).sort();
  if (failing.length + passing.length === 0) return null;
  return {
    observer,
    frozen_at: index,
    frozen: { failing, passing },
    measured: true,
    failing: failing.length,
    passing: passing.length,
    total: failing.length + passing.length,
    fixed: [],
    broken: [],
    lost: [],
    untracked: { count: 0, names: [] },
  };
}

/**
 * The target-test records of the checkpoint numbered `index` (0 for the first): one per
 * observer with a frozen set (compared with its last measured statuses, or `measured:
 * false` when it gave no report now), then one per observer that names tests for the first
 * time (its set frozen now, with `frozen` listing it). Observers in `input.tests` without
 * an `observer` name (checkpoint files) are never followed: counts are used as they are.
 */
export function measureTargets(previous: readonly TargetState[], input: CheckpointInput, index: number): TargetTestsRecord[] {
  const records = previous.map((state) => compareSet(state, seenBy(input, state.observer)));
  const known = new Set(previous.map((s) => s.observer));
  const candidates = new Set<string>();
  for (const test of [...(input.tests ?? []), ...(input.skipped_tests ?? [])]) {
    if (test.observer !== undefined && !known.has(test.observer)) candidates.add(test.observer);
  }
  for (const observer of candidates) {
    const seen = seenBy(input, observer);
    const record = seen && freeze(observer, seen, index);
    if (record) records.push(record);
  }
  return records;
}

/**
 * The target sets after a recorded checkpoint: a set frozen on it is added, and every set
 * its observer measured takes the statuses seen on it. Sets of observers the record does
 * not mention, or did not measure, are kept as they were. Used by the evaluator and by the
 * fold alike, so a resumed or replayed run follows the same set.
 */
export function advanceTargets(previous: readonly TargetState[], record: Observed & { target_tests?: TargetTestsRecord[] }): TargetState[] {
  const byObserver = new Map((record.target_tests ?? []).map((t) => [t.observer, t]));
  const input = record;
  const next = previous.map((state) => {
    const entry = byObserver.get(state.observer);
    const seen = entry?.measured ? seenBy(input, state.observer) : null;
    return seen ? { ...state, last: statusesOf(state, state.last.map(([name]) => name), seen) } : state;
  });
  for (const entry of record.target_tests ?? []) {
    if (!entry.frozen || previous.some((s) => s.observer === entry.observer)) continue;
    const names = [...entry.frozen.failing, ...entry.frozen.passing];
    const failing = new Set(entry.frozen.failing);
    const load_errors = (record.tests ?? [])
      .filter((t) => t.observer === entry.observer && t.load_error === true && typeof t.in === 'string' && failing.has(t.name))
      .map((t) => ({ name: t.name, in: t.in! }));
    const state = { observer: entry.observer, frozen_at: entry.frozen_at, ...(load_errors.length > 0 ? { load_errors } : {}) };
    next.push({ ...state, last: statusesOf(state, names, seenBy(input, entry.observer) ?? { byName: new Map(), byFile: () => new Map() }) });
  }
  return next;
}

function statusesOf(state: Pick<TargetState, 'load_errors'>, names: readonly string[], seen: Seen): Array<[string, TargetTestStatus]> {
  return [...new Set(names)].sort().map((name) => [name, statusNow(state, seen, name)]);
}

/** How a signal reads over the frozen sets: its value, and whether a target was lost or broken under it. */
export interface TargetSignal {
  value: number | null;
  regressed: boolean;
}

/**
 * The value of `observed.<observer>.failing|passing|total` over its observer's frozen set,
 * or `null` when no followed observer gives that metric (the signal is then read from the
 * observed counts as they are).
 */
export function targetSignal(records: readonly TargetTestsRecord[], metric: string): TargetSignal | null {
  for (const r of records) {
    const lost = r.lost.length > 0;
    if (metric === `${r.observer}.failing`) return { value: r.failing, regressed: lost || r.broken.length > 0 };
    if (metric === `${r.observer}.passing`) return { value: r.passing, regressed: false };
    if (metric === `${r.observer}.total`) return { value: r.total, regressed: lost };
  }
  return null;
}

/**
 * The frozen target sets as measured by an observation taken for a verdict (docs/design.md,
 * "Target tests"): per set, how many of its tests pass and those that do not (failing,
 * gone or skipped), or, when its observer gave no report, why (`failures`: the
 * observation's reasons by observer name). Sets of observers not in `observers` (removed
 * from loop.yaml since) are left out. Pure.
 */
export function targetVerdicts(targets: readonly TargetState[], input: Observed, observers: readonly string[], failures: Readonly<Record<string, string>> = {}): TargetVerdict[] {
  return targets
    .filter((state) => observers.includes(state.observer))
    .map((state) => {
      const seen = seenBy(input, state.observer);
      const base = { observer: state.observer, of: state.last.length };
      if (seen === null) return { ...base, passing: null, not_passing: [], not_passing_count: 0, unmeasured: failures[state.observer] ?? 'the observer gave no report' };
      const notPassing: TargetVerdict['not_passing'] = [];
      for (const [name] of state.last) {
        const now = statusNow(state, seen, name);
        if (now !== 'passing') notPassing.push({ name, now });
      }
      return { ...base, passing: state.last.length - notPassing.length, not_passing: notPassing.slice(0, NOT_PASSING_SHOWN), not_passing_count: notPassing.length };
    });
}

/** Whether a verdict's target sets allow a pass: every set measured, every one of its tests passing. */
export function targetsHold(verdicts: readonly TargetVerdict[]): boolean {
  return verdicts.every((v) => v.unmeasured === undefined && v.not_passing_count === 0);
}

/**
 * The metrics a verdict's signal checks read (the acceptance matrix): the observation's, with
 * `<observer>.failing|passing|total` of each followed observer counted over its frozen set,
 * as a checkpoint's signals are; and `<observer>.failing` of an observer with no set and no
 * test that ran (`<observer>.total` 0) missing, with why in `unmeasured`: zero failing tests
 * out of none is not a pass. Pure.
 */
export function verdictMetrics(targets: readonly TargetState[], input: Observed): { metrics: ObservedMetrics; unmeasured: Record<string, string> } {
  const metrics: ObservedMetrics = { ...input.observed };
  const unmeasured: Record<string, string> = {};
  for (const state of targets) {
    const record = compareSet(state, seenBy(input, state.observer));
    if (!record.measured) continue;
    metrics[`${state.observer}.failing`] = record.failing;
    metrics[`${state.observer}.passing`] = record.passing;
    metrics[`${state.observer}.total`] = record.total;
  }
  const followed = new Set(targets.map((s) => s.observer));
  for (const [metric, value] of Object.entries(input.observed)) {
    const observer = metric.endsWith('.total') ? metric.slice(0, -'.total'.length) : null;
    if (observer === null || followed.has(observer) || value !== 0 || typeof input.observed[`${observer}.failing`] !== 'number') continue;
    metrics[`${observer}.failing`] = null;
    unmeasured[`observed.${observer}.failing`] = `no test of observer "${observer}" ran (${observer}.total = 0): no failing test out of none is not a pass`;
  }
  return { metrics, unmeasured };
}

/** `2 of the 4 target tests of observer "tests" do not pass: "a" (failing), "b" (gone), …`. */
export function targetsNotPassing(t: TargetVerdict): string {
  const names = t.not_passing.map((m) => `"${m.name}" (${m.now})`).join(', ');
  const more = t.not_passing_count > t.not_passing.length ? `, and ${t.not_passing_count - t.not_passing.length} more` : '';
  return `${t.not_passing_count} of the ${t.of} target tests of observer "${t.observer}" do not pass: ${names}${more}`;
}
