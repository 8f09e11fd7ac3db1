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
    const data = detectionEventData(detections[2]!);
    expect(Object.keys(data).sort()).toEqual(['calls', 'count', 'hash']);
    expect(data.count).toBe(3);
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
