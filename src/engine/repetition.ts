/**
 * The repetition guard (docs/design.md, "Ending a run"): notices an agent that calls the same
 * tool with the same arguments over and over, or walks a short cycle of calls
 * (A, B, A, B, …), and reports it as a `repetition.detected` event.
 *
 * Pure: no clock, no I/O. The state is a value; {@link observeCall} returns the next state
 * and at most one detection, in the style of `transition(state, event) -> { state, effects }`.
 * The idea of hashing a tool call's canonical arguments in a sliding window
 * follows the loop detectors of coding-agent CLIs (e.g. google-gemini/gemini-cli
 * `services/loopDetectionService.ts`, which hashes `name + JSON(args)` and counts repeats).
 *
 * ## When a call counts as a repeat
 * The check runs when a call is about to be dispatched, before its result is known.
 * - **Repeat**: among the last `window` observed calls (this one included), at least
 *   `threshold` have this call's canonical hash.
 * - **Cycle**: the last `p × threshold` observed calls are one block of `p` calls
 *   (2 ≤ p ≤ {@link MAX_CYCLE_PERIOD}, at least two distinct hashes in the block)
 *   repeated `threshold` times in a row. Cycles are looked for over that many calls
 *   whatever `window` is: a window of 5 can never hold three turns of a 2-cycle.
 *   When both rules hold for the same call, the cycle is reported.
 *
 * ## Result awareness (`include_result`, default true)
 * Results arrive after dispatch, so a decision about call N uses only the results of
 * earlier calls (recorded with {@link recordResult}, or passed as `resultHash` when
 * folding a log where the result is already known). A result is its status, exit code and
 * output with the noise replaced (`result-noise.ts`: timestamps, durations, hex ids,
 * temporary paths, pids, elapsed-time counters), so six tries of a failing call whose
 * error text carries a timestamp are one result repeated.
 * A repeat is **excused as progress polling** when every earlier identical call in the
 * window has a recorded result and those results are pairwise distinct (each try saw
 * something new: a job that advances). With `threshold: 2` a single earlier result passes
 * vacuously, so the loop is caught at the third identical call once two results are equal.
 * A repeat is also **excused as pacing** when every gap between the identical calls holds
 * one other call whose results in the window are pairwise distinct (identical `sleep`s
 * between polls of a job that advances).
 * A missing result (denied, failed to record, not yet back) never excuses. A cycle is
 * excused when at least one of its members got a pairwise-distinct result on each of its
 * earlier turns in the cycle (e.g. `check_job` advancing between identical `sleep`s).
 * With `include_result: false` results are ignored and only calls are compared.
 *
 * ## What a detection says
 * Its `span` is the number of calls it covers (a 3-call block turned three times spans 9
 * calls, whatever the window) and its `rule` one readable line naming the rule that fired.
 * A cycle's hash does not depend on which of its calls it was first seen to start with.
 *
 * ## Staying armed
 * A detection does not clear the window: after a pause and a `continue`, the next
 * identical call (or the next call that continues the cycle) is detected again.
 *
 * ## Exempt tools
 * Calls to `exempt_tools` are neither detected nor recorded: they take no place in the
 * window and do not break a cycle (A, wait, A, wait, A still counts A three times).
 */
import { createHash } from 'node:crypto';
import { InvariantError } from './errors.js';
import { normaliseOutput } from './result-noise.js';
import type { ToolCall } from './types.js';

/** Longest cycle (in calls) the guard looks for. */
export const MAX_CYCLE_PERIOD = 3;

/** The `repetition.*` settings of `loop.yaml`, with defaults applied (validated by the loop.yaml schema, policy.ts). */
export interface RepetitionOptions {
  /** Number of most recent non-exempt calls a repeat is counted in (this call included). Default 5. */
  window: number;
  /** Occurrences (repeat) or consecutive block turns (cycle) that make a detection. Default 3. */
  threshold: number;
  /** Tool names never detected nor recorded. Default `[]`. */
  exempt_tools: string[];
  /** Argument keys dropped before hashing, wherever they appear (any depth). Default `[]`. */
  ignore_arg_keys: string[];
  /** Excuse repeats whose earlier results all differ (progress polling). Default true. */
  include_result: boolean;
}

/** Defaults of `repetition.*` (docs/design.md, "Ending a run"). */
export const DEFAULT_REPETITION_OPTIONS: Readonly<RepetitionOptions> = Object.freeze({
  window: 5,
  threshold: 3,
  exempt_tools: [],
  ignore_arg_keys: [],
  include_result: true,
});

/**
 * sha256 hex of `text`, first 16 characters. The last text and its hash are kept: a call
 * is hashed before it is dispatched and again as its `tool.call` is recorded.
 */
function shortHash(text: string): string {
  if (lastHashed !== null && text === lastHashed.text) return lastHashed.hash;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  lastHashed = { text, hash };
  return hash;
}
let lastHashed: { text: string; hash: string } | null = null;

/**
 * Canonical JSON text of a value: object keys sorted (by UTF-16 code units) at every depth,
 * keys whose value is `undefined` (or a function or symbol) dropped as if absent, keys in
 * `ignore` dropped at every depth, array order kept. Otherwise JSON semantics: `undefined`
 * in an array becomes `null`, non-finite numbers become `null`, `toJSON` is honoured,
 * and a bigint is written as its decimal digits followed by `n`.
 *
 * @throws InvariantError when the value contains a reference cycle
 */
export function canonicalJson(value: unknown, ignore: ReadonlySet<string> = new Set()): string {
  const ancestors = new Set<object>();
  const walk = (v: unknown): string | undefined => {
    if (v === null) return 'null';
    switch (typeof v) {
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      case 'bigint':
        return JSON.stringify(`${v.toString()}n`);
      case 'number':
      case 'boolean':
      case 'string':
        return JSON.stringify(v);
      case 'object':
        break;
    }
    const obj = v as object & { toJSON?: () => unknown };
    if (typeof obj.toJSON === 'function') return walk(obj.toJSON());
    if (ancestors.has(obj)) throw new InvariantError('tool arguments contain a reference cycle');
    ancestors.add(obj);
    let text: string;
    if (Array.isArray(obj)) {
      text = `[${obj.map((item: unknown) => walk(item) ?? 'null').join(',')}]`;
    } else {
      const record = obj as Record<string, unknown>;
      const parts: string[] = [];
      for (const key of Object.keys(record).sort(compareCodeUnits)) {
        if (ignore.has(key)) continue;
        const item = walk(record[key]);
        if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`);
      }
      text = `{${parts.join(',')}}`;
    }
    ancestors.delete(obj);
    return text;
  };
  return walk(value) ?? 'null';
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The identity of a tool call: sha256 (hex, first 16 characters) of its name and its
 * {@link canonicalJson} arguments. Key order never matters, array order does, an
 * `undefined` value equals an absent key, and `ignoreKeys` are left out at every depth.
 *
 * @throws InvariantError when `args` contains a reference cycle
 */
export function canonicalHash(name: string, args: unknown, ignoreKeys: readonly string[] = []): string {
  return shortHash(`${JSON.stringify(name)}\n${canonicalJson(args, new Set(ignoreKeys))}`);
}

/**
 * The identity of a tool result for result awareness: sha256 (first 16 hex characters) of
 * its status, exit code and output with its noise replaced ({@link normaliseOutput}:
 * timestamps, durations, hex ids, temporary paths, pids, elapsed-time counters).
 * `duration_ms` and `call_id` are left out: they differ on every call. Two tries of a
 * failing call whose error text differs only in a timestamp are the same result.
 */
export function resultHash(result: { status: string; exit_code: number | null; output: string }): string {
  return shortHash(JSON.stringify([result.status, result.exit_code, normaliseOutput(result.output)]));
}

/** One observed (non-exempt) call and, once known, the hash of its result. */
export interface RepetitionEntry {
  hash: string;
  call: ToolCall;
  /** {@link resultHash} of the call's result; `null` until known (or never, e.g. denied). */
  result: string | null;
}

/** The guard's state: the most recent non-exempt calls, oldest first. Treat as immutable. */
export interface RepetitionState {
  readonly history: readonly RepetitionEntry[];
}

/** A guard that has seen nothing yet. */
export const INITIAL_REPETITION: RepetitionState = Object.freeze({ history: Object.freeze([]) as readonly RepetitionEntry[] });

/** What the guard found. `count` and `hash` go into the `repetition.detected` event. */
export type RepetitionDetection =
  | {
      kind: 'repeat';
      /** {@link canonicalHash} of the repeated call. */
      hash: string;
      /** Identical calls in the window, this one included. */
      count: number;
      /** Those calls, oldest first. */
      calls: ToolCall[];
      /** Calls from the oldest of them to this one, inclusive (at most `window`). */
      span: number;
      /** One line a person can read: which rule fired, on what, and why results did not excuse it. */
      rule: string;
    }
  | {
      kind: 'cycle';
      /** {@link cycleHash} of the block: the same wherever the cycle is first seen to start. */
      hash: string;
      /** Consecutive turns of the block ending at this call (at least `threshold`). */
      count: number;
      /** The last `threshold` turns of the block, oldest first (`period × threshold` calls). */
      calls: ToolCall[];
      /** Calls in one turn of the block. */
      period: number;
      /** Hashes of the block's calls, in order, starting with the oldest call in `calls`. */
      members: string[];
      /** Calls covered by the consecutive turns: `count × period` (a 3-call block turned 3 times spans 9 calls). */
      span: number;
      /** One line a person can read: which rule fired, on what, and why results did not excuse it. */
      rule: string;
    };

/** One call about to be dispatched; `resultHash` only when its result is already known (a recorded log). */
export interface CallObservation {
  call: ToolCall;
  resultHash?: string;
}

/**
 * The guard's settings a detection was made with, as its `repetition.detected` event
 * carries them (`exempt_tools` and `ignore_arg_keys` only when not empty): what clears the
 * alert is judged by the same rule (`alert-clearing.ts`).
 */
export interface RepetitionRuleSettings {
  window: number;
  threshold: number;
  exempt_tools?: string[];
  ignore_arg_keys?: string[];
}

/** The `data` of a `repetition.detected` event for a detection made with `options`: the rule that fired, its span and the settings. */
export function detectionEventData(
  detection: RepetitionDetection,
  options: RepetitionOptions,
): {
  hash: string;
  count: number;
  calls: ToolCall[];
  kind: RepetitionDetection['kind'];
  span: number;
  rule: string;
  settings: RepetitionRuleSettings;
} {
  const settings: RepetitionRuleSettings = {
    window: options.window,
    threshold: options.threshold,
    ...(options.exempt_tools.length > 0 ? { exempt_tools: [...options.exempt_tools] } : {}),
    ...(options.ignore_arg_keys.length > 0 ? { ignore_arg_keys: [...options.ignore_arg_keys] } : {}),
  };
  return { hash: detection.hash, count: detection.count, calls: detection.calls, kind: detection.kind, span: detection.span, rule: detection.rule, settings };
}

/**
 * Observes one call about to be dispatched and decides whether it repeats (see the module
 * comment for the exact rules). The returned state holds the call; the history keeps
 * `max(window, threshold × MAX_CYCLE_PERIOD)` calls.
 *
 * @param options resolved options (`repetitionSettings` in policy.ts)
 * @returns the next state and a detection, or `null` when the call is fine
 * @throws InvariantError when the call's arguments contain a reference cycle
 */
export function observeCall(
  state: RepetitionState,
  observation: CallObservation,
  options: RepetitionOptions,
): { state: RepetitionState; detection: RepetitionDetection | null } {
  const { call } = observation;
  if (options.exempt_tools.includes(call.name)) return { state, detection: null };
  const entry: RepetitionEntry = {
    hash: canonicalHash(call.name, call.args, options.ignore_arg_keys),
    call,
    result: observation.resultHash ?? null,
  };
  const keep = Math.max(options.window, options.threshold * MAX_CYCLE_PERIOD);
  const history = [...state.history, entry].slice(-keep);
  const detection = findCycle(history, options) ?? findRepeat(history, options);
  return { state: { history }, detection };
}

/**
 * Records the result of an observed call, found by `callId` (the most recent entry with
 * that id). Returns the state unchanged when the call is not held (exempt, or fallen out).
 */
export function recordResult(state: RepetitionState, callId: string, hash: string): RepetitionState {
  for (let i = state.history.length - 1; i >= 0; i--) {
    const entry = state.history[i]!;
    if (entry.call.id !== callId) continue;
    const history = [...state.history];
    history[i] = { ...entry, result: hash };
    return { history };
  }
  return state;
}

/** True when every result is known and no two are equal. */
function allDistinct(results: ReadonlyArray<string | null>): boolean {
  if (results.some((r) => r === null)) return false;
  return new Set(results).size === results.length;
}

function findRepeat(history: readonly RepetitionEntry[], options: RepetitionOptions): RepetitionDetection | null {
  const window = history.slice(-options.window);
  const current = window[window.length - 1]!;
  const same = window.filter((e) => e.hash === current.hash);
  if (same.length < options.threshold) return null;
  if (options.include_result && allDistinct(same.slice(0, -1).map((e) => e.result))) return null;
  if (options.include_result && pacesAdvancingPoll(window, current.hash)) return null;
  const span = window.length - window.findIndex((e) => e.hash === current.hash);
  const why = options.include_result ? `; ${repeatedResults(same.slice(0, -1))}` : '; results not compared (include_result: false)';
  return {
    kind: 'repeat',
    hash: current.hash,
    count: same.length,
    calls: same.map((e) => e.call),
    span,
    rule: `repeat rule: the same ${current.call.name} call ${same.length}× within the last ${span} calls (threshold ${options.threshold} in a window of ${options.window})${why}`,
  };
}

/** Why earlier results did not excuse a repeat: one is missing, or two are equal. */
function repeatedResults(earlier: readonly RepetitionEntry[]): string {
  if (earlier.some((e) => e.result === null)) return 'an earlier try has no result';
  return 'earlier tries gave the same result (exit code and output, times, ids, paths and pids ignored)';
}

/**
 * Whether the calls with `hash` in `window` alternate with another call whose results
 * there are all known and pairwise distinct: pacing (an identical `sleep`) between polls
 * that advance. Every gap between two identical calls must hold that other call.
 */
function pacesAdvancingPoll(window: readonly RepetitionEntry[], hash: string): boolean {
  const at = window.flatMap((e, i) => (e.hash === hash ? [i] : []));
  const gaps = at.slice(1).map((end, k) => window.slice(at[k]! + 1, end));
  if (gaps.length === 0 || gaps.some((gap) => gap.length === 0)) return false;
  for (const candidate of new Set(gaps[0]!.map((e) => e.hash))) {
    if (!gaps.every((gap) => gap.some((e) => e.hash === candidate))) continue;
    if (allDistinct(window.filter((e) => e.hash === candidate).map((e) => e.result))) return true;
  }
  return false;
}

/**
 * The hash of a cycle's block, whichever call it is seen to start with: the block is
 * rotated to its smallest form (by member hash) before hashing, so A,B,C and B,C,A are the
 * same cycle.
 */
export function cycleHash(members: readonly string[]): string {
  const rotations = members.map((_, i) => [...members.slice(i), ...members.slice(0, i)].join(','));
  return shortHash(rotations.sort(compareCodeUnits)[0] ?? '');
}

function findCycle(history: readonly RepetitionEntry[], options: RepetitionOptions): RepetitionDetection | null {
  for (let period = 2; period <= MAX_CYCLE_PERIOD; period++) {
    const span = period * options.threshold;
    if (history.length < span) break;
    const tail = history.slice(-span);
    const block = tail.slice(0, period).map((e) => e.hash);
    if (new Set(block).size < 2) continue;
    if (!tail.every((e, i) => e.hash === block[i % period])) continue;
    if (options.include_result && memberProgressed(tail, period)) continue;
    // Count further turns of the block before the span, within the kept history.
    let start = history.length - span;
    while (start - period >= 0 && history.slice(start - period, start).every((e, i) => e.hash === block[i])) start -= period;
    const count = (history.length - start) / period;
    const names = tail.slice(0, period).map((e) => e.call.name).join(', ');
    const why = options.include_result ? '; no call of the block saw a new result on each turn' : '; results not compared (include_result: false)';
    return {
      kind: 'cycle',
      hash: cycleHash(block),
      count,
      calls: tail.map((e) => e.call),
      period,
      members: block,
      span: count * period,
      rule: `cycle rule: a block of ${period} calls (${names}) repeated ${count}× in a row over the last ${count * period} calls (threshold ${options.threshold})${why}`,
    };
  }
  return null;
}

/** Some position of the block got pairwise-distinct results on all its earlier turns in `tail`. */
function memberProgressed(tail: readonly RepetitionEntry[], period: number): boolean {
  const last = tail.length - 1;
  for (let offset = 0; offset < period; offset++) {
    const earlier = tail.filter((_, i) => i % period === offset && i !== last).map((e) => e.result);
    if (earlier.length > 0 && allDistinct(earlier)) return true;
  }
  return false;
}
