import { describe, expect, it } from 'vitest';
import { ConfigErrors, InvariantError } from '../../src/engine/errors.js';
import {
  canonicalHash,
  canonicalJson,
  DEFAULT_REPETITION_OPTIONS,
  detectionEventData,
  INITIAL_REPETITION,
  observeCall,
  recordResult,
  resultHash,
  type RepetitionDetection,
  type RepetitionOptions,
  type RepetitionState,
} from '../../src/engine/repetition.js';
import type { ToolCall } from '../../src/engine/types.js';
import { repetitionSettings } from '../../src/engine/policy.js';
import { normaliseOutput } from '../../src/engine/result-noise.js';

/** Settings as the loop.yaml schema fills and checks them. */
const settings = (input: Record<string, unknown> = {}, file = 'loop.yaml') => repetitionSettings(input, file);

const DEFAULTS = settings();

let nextId = 0;
const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: `c${nextId++}`, name, args });

/** A call, and optionally the text its result will carry. */
interface Step {
  call: ToolCall;
  output?: string;
}

/**
 * Runs calls through the guard the way the harness does: observe before dispatch, record
 * the result after. Returns the detection (or null) for each call, 1-based positions aside.
 */
function run(steps: Step[], options: RepetitionOptions = DEFAULTS): { detections: Array<RepetitionDetection | null>; state: RepetitionState } {
  let state = INITIAL_REPETITION;
  const detections: Array<RepetitionDetection | null> = [];
  for (const step of steps) {
    const out = observeCall(state, { call: step.call }, options);
    state = out.state;
    detections.push(out.detection);
    if (step.output !== undefined) {
      state = recordResult(state, step.call.id, resultHash({ status: 'ok', exit_code: 0, output: step.output }));
    }
  }
  return { detections, state };
}

/** 1-based positions of the calls that were detected. */
const detectedAt = (detections: Array<RepetitionDetection | null>): number[] =>
  detections.flatMap((d, i) => (d ? [i + 1] : []));

const times = (n: number, make: (i: number) => Step): Step[] => Array.from({ length: n }, (_, i) => make(i));

describe('canonicalHash', () => {
  it('is 16 hex characters and stable', () => {
    const h = canonicalHash('read_file', { path: 'a' });
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(canonicalHash('read_file', { path: 'a' })).toBe(h);
  });

  it('ignores object key order at every depth', () => {
    expect(canonicalHash('t', { a: 1, b: { c: 1, d: 2 } })).toBe(canonicalHash('t', { b: { d: 2, c: 1 }, a: 1 }));
    expect(canonicalJson({ b: { d: 2, c: 1 }, a: 1 })).toBe('{"a":1,"b":{"c":1,"d":2}}');
  });

  it('keeps array order', () => {
    expect(canonicalHash('t', { files: ['a', 'b'] })).not.toBe(canonicalHash('t', { files: ['b', 'a'] }));
  });

  it('treats a key whose value is undefined as absent, at any depth', () => {
    expect(canonicalHash('t', { a: 1, b: undefined })).toBe(canonicalHash('t', { a: 1 }));
    expect(canonicalHash('t', { x: { a: 1, b: undefined } })).toBe(canonicalHash('t', { x: { a: 1 } }));
    // null is a value, not an absence
    expect(canonicalHash('t', { a: 1, b: null })).not.toBe(canonicalHash('t', { a: 1 }));
  });

  it('tells tool names apart, and names from arguments', () => {
    expect(canonicalHash('read_file', { path: 'a' })).not.toBe(canonicalHash('write_file', { path: 'a' }));
    expect(canonicalHash('a', {})).not.toBe(canonicalHash('a{}', {}));
  });

  it('drops ignored keys at every depth', () => {
    expect(canonicalHash('t', { q: 1, timestamp: 5 }, ['timestamp'])).toBe(canonicalHash('t', { q: 1, timestamp: 9 }, ['timestamp']));
    expect(canonicalHash('t', { r: { q: 1, timestamp: 5 } }, ['timestamp'])).toBe(canonicalHash('t', { r: { q: 1 } }, ['timestamp']));
    expect(canonicalHash('t', { q: 1, timestamp: 5 })).not.toBe(canonicalHash('t', { q: 1, timestamp: 9 }));
  });

  it('follows JSON for odd values and rejects reference cycles', () => {
    expect(canonicalJson([1, undefined, Number.NaN])).toBe('[1,null,null]');
    expect(canonicalJson({ d: new Date(0) })).toBe('{"d":"1970-01-01T00:00:00.000Z"}');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalHash('t', loop)).toThrow(InvariantError);
    // a shared (non-cyclic) object is fine
    const shared = { a: 1 };
    expect(canonicalJson({ x: shared, y: shared })).toBe('{"x":{"a":1},"y":{"a":1}}');
  });
});

describe('resultHash', () => {
  it('depends on status, exit code and output only', () => {
    const base = { status: 'ok', exit_code: 0, output: 'x' };
    expect(resultHash(base)).toBe(resultHash({ ...base }));
    expect(resultHash(base)).not.toBe(resultHash({ ...base, output: 'y' }));
    expect(resultHash(base)).not.toBe(resultHash({ ...base, exit_code: 1 }));
    expect(resultHash(base)).not.toBe(resultHash({ ...base, status: 'failed' }));
  });
});

describe('repetition settings (one schema: loop.yaml and a saved policy)', () => {
  it('fills the defaults', () => {
    expect(settings()).toEqual({ ...DEFAULT_REPETITION_OPTIONS });
    expect(DEFAULTS).toMatchObject({ window: 5, threshold: 3, include_result: true });
  });

  it('rejects a threshold above the window or below 2', () => {
    expect(() => settings({ window: 3, threshold: 4 }, 'x.yaml')).toThrow(ConfigErrors);
    expect(() => settings({ threshold: 1 })).toThrow(/repetition\.threshold/);
    expect(() => settings({ window: 2.5 })).toThrow(/repetition\.window/);
    expect(() => settings({ window: 3, threshold: 4 }, 'x.yaml')).toThrow(/^x\.yaml: repetition\.threshold: expected at most repetition\.window \(3\), found 4$/);
  });

  it('refuses what loop.yaml refuses: unknown keys and values of the wrong type', () => {
    expect(() => settings({ window: 5, treshold: 2 })).toThrow(ConfigErrors);
    expect(() => settings({ exempt_tools: 'wait' })).toThrow(/repetition\.exempt_tools/);
    expect(() => settings({ include_result: 'yes' })).toThrow(/repetition\.include_result/);
  });

  it('says it in the words of loop.yaml errors, never zod\'s (a saved policy on resume)', () => {
    expect(() => settings({ window: 5, treshold: 2 }, 'policy.json')).toThrow(/^policy\.json: repetition\.treshold: unknown key "treshold"; did you mean "threshold"\?$/);
    expect(() => settings({ exempt_tools: 'wait' }, 'policy.json')).toThrow(/^policy\.json: repetition\.exempt_tools: expected a list, found "wait"$/);
  });
});

describe('observeCall: repeats', () => {
  it('detects read_file {path: a} at the third of five calls, and at every one after', () => {
    const { detections } = run(times(5, () => ({ call: call('read_file', { path: 'a' }) })));
    expect(detectedAt(detections)).toEqual([3, 4, 5]);
    const third = detections[2]!;
    expect(third.kind).toBe('repeat');
    expect(third.hash).toBe(canonicalHash('read_file', { path: 'a' }));
    expect(third.count).toBe(3);
    expect(third.calls.map((c) => c.name)).toEqual(['read_file', 'read_file', 'read_file']);
    expect(detections.map((d) => d?.count ?? 0)).toEqual([0, 0, 3, 4, 5]);
  });

  it('gives the repetition.detected data', () => {
    const { detections } = run(times(3, () => ({ call: call('read_file', { path: 'a' }) })));
    const data = detectionEventData(detections[2]!, DEFAULT_REPETITION_OPTIONS);
    expect(Object.keys(data).sort()).toEqual(['calls', 'count', 'hash', 'kind', 'rule', 'settings', 'span']);
    expect(data.count).toBe(3);
    // The settings the detection was made with (what clears it is judged by them); empty lists are left out.
    expect(data.settings).toEqual({ window: 5, threshold: 3 });
    expect(detectionEventData(detections[2]!, { ...DEFAULT_REPETITION_OPTIONS, exempt_tools: ['sleep'], ignore_arg_keys: ['nonce'] }).settings).toEqual({
      window: 5,
      threshold: 3,
      exempt_tools: ['sleep'],
      ignore_arg_keys: ['nonce'],
    });
  });

  it('does not count calls that differ in array order', () => {
    const steps = times(6, (i) => ({ call: call('grep', { files: i % 3 === 0 ? ['a', 'b'] : i % 3 === 1 ? ['b', 'a'] : ['c'] }) }));
    // each variant occurs at most twice in any window of 5
    expect(detectedAt(run(steps).detections)).toEqual([]);
  });

  it('counts calls that differ only in key order or undefined values as the same', () => {
    const steps = [
      { call: call('t', { a: 1, b: { c: 1, d: 2 } }) },
      { call: call('t', { b: { d: 2, c: 1 }, a: 1 }) },
      { call: call('t', { a: 1, b: { c: 1, d: 2 }, e: undefined }) },
    ];
    expect(detectedAt(run(steps).detections)).toEqual([3]);
  });

  it('only counts within the window', () => {
    const a = (): Step => ({ call: call('read_file', { path: 'a' }) });
    const other = (i: number): Step => ({ call: call('read_file', { path: `o${i}` }) });
    // a at calls 1, 4, 7: never three within five calls
    const steps = [a(), other(1), other(2), a(), other(3), other(4), a()];
    expect(detectedAt(run(steps).detections)).toEqual([]);
    // a at calls 1, 3, 5: three within five
    expect(detectedAt(run([a(), other(1), a(), other(2), a()]).detections)).toEqual([5]);
  });

  it('stays armed after a detection: the next identical call detects again', () => {
    const steps = times(3, () => ({ call: call('read_file', { path: 'a' }) }));
    const first = run(steps);
    expect(detectedAt(first.detections)).toEqual([3]);
    // the operator continues from the pause; the guard state is kept
    const again = observeCall(first.state, { call: call('read_file', { path: 'a' }) }, DEFAULTS);
    expect(again.detection?.count).toBe(4);
  });

  it('never detects an exempt tool, which takes no place in the window', () => {
    const options = settings({ exempt_tools: ['wait'] });
    const waits = times(6, () => ({ call: call('wait', { seconds: 5 }) }));
    expect(detectedAt(run(waits, options).detections)).toEqual([]);
    // a, wait, a, wait, a, wait, a: the waits do not push a out of the window
    const mixed = times(7, (i) => ({ call: i % 2 === 0 ? call('read_file', { path: 'a' }) : call('wait', { seconds: 5 }) }));
    expect(detectedAt(run(mixed, options).detections)).toEqual([5, 7]);
  });

  it('ignores ignore_arg_keys such as timestamp', () => {
    const steps = times(3, (i) => ({ call: call('fetch', { url: 'u', timestamp: 1000 + i }) }));
    expect(detectedAt(run(steps).detections)).toEqual([]);
    const options = settings({ ignore_arg_keys: ['timestamp'] });
    expect(detectedAt(run(steps, options).detections)).toEqual([3]);
  });
});

describe('observeCall: result awareness', () => {
  const poll = (output?: string): Step => ({ call: call('job_status', { id: 7 }), output });

  it('does not detect polling whose results change each time', () => {
    const steps = ['10%', '20%', '30%', '40%', '50%', '60%'].map(poll);
    expect(detectedAt(run(steps).detections)).toEqual([]);
  });

  it('detects the same polling when include_result is false', () => {
    const steps = ['10%', '20%', '30%', '40%', '50%'].map(poll);
    const options = settings({ include_result: false });
    expect(detectedAt(run(steps, options).detections)).toEqual([3, 4, 5]);
  });

  it('detects polling once two earlier results in the window are equal', () => {
    // results of calls 1..3 are 10%, 20%, 20%: the fourth call sees a repeated result
    const steps = ['10%', '20%', '20%', '30%', '40%', '50%', '60%', '70%'].map(poll);
    // from call 7 on, the earlier results in the window (calls 3..6, 20..50%) are distinct again
    expect(detectedAt(run(steps).detections)).toEqual([4, 5, 6]);
  });

  it('detects when an earlier identical call has no result', () => {
    const steps = [poll('10%'), poll(undefined), poll('30%')];
    expect(detectedAt(run(steps).detections)).toEqual([3]);
  });

  it('uses a result passed with the observation (folding a recorded log) like a recorded one', () => {
    const h = (s: string) => resultHash({ status: 'ok', exit_code: 0, output: s });
    let state = INITIAL_REPETITION;
    const found: Array<RepetitionDetection | null> = [];
    for (const out of ['1', '2', '3', '3', '4']) {
      const step = observeCall(state, { call: call('job_status', { id: 7 }), resultHash: h(out) }, DEFAULTS);
      state = step.state;
      found.push(step.detection);
    }
    expect(detectedAt(found)).toEqual([5]);
  });

  it('leaves the state unchanged when recording a result for an unknown call', () => {
    const { state } = run([poll('1')]);
    expect(recordResult(state, 'nope', 'x')).toBe(state);
  });
});

describe('observeCall: cycles', () => {
  const A = (output?: string): Step => ({ call: call('read_file', { path: 'a' }), output });
  const B = (output?: string): Step => ({ call: call('read_file', { path: 'b' }), output });

  it('reports A, B, A, B, A, B as a cycle at the sixth call, when the pair has turned threshold times', () => {
    // window 3: the repeat rule never sees three A's, only the cycle rule fires
    const options = settings({ window: 3 });
    const { detections } = run([A(), B(), A(), B(), A(), B()], options);
    expect(detectedAt(detections)).toEqual([6]);
    const cycle = detections[5]!;
    expect(cycle.kind).toBe('cycle');
    if (cycle.kind !== 'cycle') throw new Error('unreachable');
    expect(cycle.period).toBe(2);
    expect(cycle.count).toBe(3);
    expect(cycle.calls.map((c) => c.args.path)).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect(cycle.members).toEqual([canonicalHash('read_file', { path: 'a' }), canonicalHash('read_file', { path: 'b' })]);
  });

  it('with the defaults, A is repeated three times within five calls first, then the cycle is named', () => {
    const { detections } = run([A(), B(), A(), B(), A(), B(), A()]);
    expect(detections.map((d) => d?.kind ?? null)).toEqual([null, null, null, null, 'repeat', 'cycle', 'cycle']);
    // the cycle stays armed and its count grows within the kept history
    expect(detections[6]!.count).toBe(3);
  });

  it('finds a 3-cycle that the window of 5 cannot see as a repeat', () => {
    const C = (): Step => ({ call: call('read_file', { path: 'c' }) });
    const { detections } = run([A(), B(), C(), A(), B(), C(), A(), B(), C()]);
    expect(detectedAt(detections)).toEqual([9]);
    expect(detections[8]).toMatchObject({ kind: 'cycle', period: 3, count: 3 });
  });

  it('does not call A, A, A, … a cycle (it is a repeat)', () => {
    const { detections } = run(times(6, () => A()), settings({ window: 3 }));
    expect(detections.every((d) => d === null || d.kind === 'repeat')).toBe(true);
  });

  it('excuses a cycle in which one member sees a new result on each turn', () => {
    const options = settings({ window: 3 });
    const check = (out: string): Step => ({ call: call('job_status', { id: 1 }), output: out });
    const sleep = (): Step => ({ call: call('shell', { command: 'sleep 5' }), output: '' });
    const steps = [check('1'), sleep(), check('2'), sleep(), check('3'), sleep(), check('4')];
    expect(detectedAt(run(steps, options).detections)).toEqual([]);
    expect(detectedAt(run(steps, { ...options, include_result: false }).detections)).toEqual([6, 7]);
  });
});

describe('retry loops whose output differs only in noise', () => {
  const failing = (i: number) =>
    [
      `[2026-12-01T00:0${i}:3${i}.12${i}Z] ERROR connect ECONNREFUSED 127.0.0.1:5432 (attempt took ${120 + i}ms)`,
      `request id 9f8e7d6c${i}b4a and ${['3f2a1c4e-9b8d-4c7a-a1b2-c3d4e5f6a7b8', '0a1b2c3d-4e5f-4a7b-8c9d-0e1f2a3b4c5d'][i % 2]}`,
      `wrote /tmp/loopdeck-tmp-${'AbC12'.slice(i % 3)}x/dump.json, pid ${4000 + i}, worker[${31000 + i}]: gave up`,
      `Tue Dec  1 00:0${i}:35 UTC 2026; elapsed ${i * 7}; retried after ${i}.5s (epoch ${1764547355 + i})`,
    ].join('\n');

  it('six identical failing calls whose error text carries timestamps, ids, paths and pids are caught at the third', () => {
    const steps = times(6, (i) => ({ call: call('shell', { command: 'psql -c "select 1"' }), output: failing(i) }));
    // outputs really differ as text
    expect(new Set(steps.map((s) => s.output)).size).toBe(6);
    const { detections } = run(steps);
    expect(detectedAt(detections)).toEqual([3, 4, 5, 6]);
    expect(detections[2]).toMatchObject({ kind: 'repeat', count: 3, span: 3 });
    expect(detections[2]!.rule).toBe(
      'repeat rule: the same shell call 3× within the last 3 calls (threshold 3 in a window of 5); earlier tries gave the same result (exit code and output, times, ids, paths and pids ignored)',
    );
  });

  it('compares the exit code and the normalised output', () => {
    const at = (time: string, exit_code: number) => resultHash({ status: exit_code === 0 ? 'ok' : 'error', exit_code, output: `${time} failed` });
    expect(at('2026-12-01T00:00:01Z', 1)).toBe(at('2026-12-01T00:07:59.999Z', 1));
    expect(at('2026-12-01T00:00:01Z', 1)).not.toBe(at('2026-12-01T00:00:01Z', 2));
  });

  it('keeps output that really advances apart: counts, percentages, test names, file paths inside a temp folder', () => {
    const differ = [
      ['3 failed, 4 passed', '2 failed, 5 passed'],
      ['progress 10%', 'progress 20%'],
      ['job 7: 4/10 steps done', 'job 7: 5/10 steps done'],
      ['not ok 3 - parses dates', 'not ok 3 - parses times'],
      ['/tmp/loopdeck-ws-1a2b/src/a.ts:12 error', '/tmp/loopdeck-ws-1a2b/src/b.ts:12 error'],
      ['processed 120 items in 3.2s', 'processed 240 items in 6.4s'],
      ['exit status 1', 'exit status 2'],
    ];
    for (const [a, b] of differ) expect(normaliseOutput(a!), `${a} / ${b}`).not.toBe(normaliseOutput(b!));
    const same = [
      ['took 1.2s', 'took 35 ms'],
      ['finished in 2m3s', 'finished in 1h 2m'],
      ['at 2026-12-01 00:02:35+01:00', 'at 2025/01/31 23:59'],
      ['commit 3fa4b21c9e', 'commit 0badc0de77'],
      ['segfault at 0x7ffd5e8c', 'segfault at 0x0000ab'],
      ['cd /var/folders/x1/y2z/T/tmp.AbCd/run', 'cd /var/folders/q9/w8e/T/tmp.XyZw/run'],
      ['PID: 12345 exited', 'PID: 9 exited'],
      ['waited 40 for the lock', 'waited 41 for the lock'],
      ['C:\\Users\\me\\AppData\\Local\\Temp\\abc123\\x', 'C:\\Users\\me\\AppData\\Local\\Temp\\zz9\\x'],
    ];
    for (const [a, b] of same) expect(normaliseOutput(a!), `${a} / ${b}`).toBe(normaliseOutput(b!));
  });

  it('identical sleeps between polls that advance trip neither rule; between polls that stand still they do', () => {
    const check = (out: string): Step => ({ call: call('shell', { command: 'curl -s localhost/job/7' }), output: out });
    const sleep = (): Step => ({ call: call('shell', { command: 'sleep 5' }), output: '' });
    const advancing = ['10%', '20%', '30%', '40%', '50%', '60%'].flatMap((p) => [check(`job 7 at ${p} (elapsed ${p.length}s)`), sleep()]);
    expect(detectedAt(run(advancing).detections)).toEqual([]);
    // the same polls with their time stamps only: the job stands still, the sleeps are a loop
    const stuck = Array.from({ length: 6 }, (_, i) => [check(`job 7 at 10% (checked at 00:0${i}:00)`), sleep()]).flat();
    expect(detectedAt(run(stuck).detections)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    expect(run(stuck).detections[5]).toMatchObject({ kind: 'cycle', period: 2, count: 3, span: 6 });
  });

  it('reports a 9-call cycle with its real span, and one hash wherever the cycle starts', () => {
    const A = (): Step => ({ call: call('read_file', { path: 'a' }) });
    const B = (): Step => ({ call: call('read_file', { path: 'b' }) });
    const C = (): Step => ({ call: call('read_file', { path: 'c' }) });
    const abc = run([A(), B(), C(), A(), B(), C(), A(), B(), C()]).detections;
    expect(detectedAt(abc)).toEqual([9]);
    expect(abc[8]).toMatchObject({ kind: 'cycle', period: 3, count: 3, span: 9 });
    expect(abc[8]!.rule).toBe(
      'cycle rule: a block of 3 calls (read_file, read_file, read_file) repeated 3× in a row over the last 9 calls (threshold 3); no call of the block saw a new result on each turn',
    );
    const bca = run([B(), C(), A(), B(), C(), A(), B(), C(), A()]).detections;
    const cab = run([C(), A(), B(), C(), A(), B(), C(), A(), B()]).detections;
    expect(bca[8]!.hash).toBe(abc[8]!.hash);
    expect(cab[8]!.hash).toBe(abc[8]!.hash);
    // a different cycle of the same calls (A, C, B) is another cycle
    const acb = run([A(), C(), B(), A(), C(), B(), A(), C(), B()]).detections;
    expect(acb[8]!.hash).not.toBe(abc[8]!.hash);
    expect(detectionEventData(abc[8]!, DEFAULT_REPETITION_OPTIONS)).toMatchObject({ kind: 'cycle', span: 9, rule: abc[8]!.rule });
  });
});
