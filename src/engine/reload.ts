/**
 * Live reload of loop.yaml, the pure part (docs/design.md, "Live reload"): what differs
 * between the policy in force and a loop.yaml read again, what each difference may do
 * mid-run, and the policy in force after the changes that took effect.
 *
 * Policies are compared in their saved form (`policy.json`: durations in seconds, the
 * budget as `budget.limits.<dimension>`, paths absolute), the form the engine reads, so a
 * path of the diff is a path of the policy the run acts on.
 */
import { isDeepStrictEqual } from 'node:util';
import { InvariantError } from './errors.js';
import type { EnginePolicy, LoopPolicy } from './policy.js';
import type { BudgetDimension, BudgetUsage } from './types.js';

/**
 * What a reload does with one difference:
 * - `applied`: in force from this event on;
 * - `awaiting_key`: held until the operator confirms the shown diff by key (approval rules
 *   and hooks, and every change of a loop.yaml the agent can write);
 * - `declined`: held, then refused by the operator (or by a headless run without
 *   `--watch-config-gates`); nothing changed;
 * - `needs_new_run`: `agent`, `workspace` and the other sections that shape the run from its
 *   start; shown, never applied;
 * - `goal_only`: the goal changes only through `/goal`; shown, never applied.
 */
export type ReloadEffect = 'applied' | 'awaiting_key' | 'declined' | 'needs_new_run' | 'goal_only';

/** One difference a reload found: `path` in the saved form (`budget.limits.turns`, `verify[0].command`); `from`/`to` absent for a key missing on that side. */
export interface PolicyChange {
  path: string;
  from?: unknown;
  to?: unknown;
  effect: ReloadEffect;
}

/** How a section of loop.yaml may change mid-run. */
type SectionRule = 'live' | 'key' | 'new_run' | 'goal';

/**
 * Every top-level section of the policy and how it may change mid-run; the compiler checks
 * that a section added to the schema is listed here. Live: what the run reads afresh at each
 * use (budget limits, pricing, the checkpoint interval, observers and the signals read from
 * them, stagnation, repetition, verify). Key: what decides which tool calls run (approval
 * rules, hooks and their timeout). New run: what shaped the run when it started.
 */
const SECTION_RULES: Record<Exclude<keyof LoopPolicy, 'file'>, SectionRule> = {
  budget: 'live',
  pricing: 'live',
  checkpoint: 'live',
  observe: 'live',
  progress: 'live',
  stagnation: 'live',
  repetition: 'live',
  verify: 'live',
  approval: 'key',
  hooks: 'key',
  hook_timeout: 'key',
  goal: 'goal',
  agent: 'new_run',
  workspace: 'new_run',
  pattern: 'new_run',
  patterns: 'new_run',
  task: 'new_run',
  laps: 'new_run',
  tools: 'new_run',
  on_abort: 'new_run',
};

/** The sections whose changes need the operator's key, for messages. */
export const KEY_SECTIONS = Object.entries(SECTION_RULES).filter(([, rule]) => rule === 'key').map(([name]) => name);
/** The sections a change of which needs a new run, for messages. */
export const NEW_RUN_SECTIONS = Object.entries(SECTION_RULES).filter(([, rule]) => rule === 'new_run').map(([name]) => name);

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A JSON copy of a policy as `policy.json` holds it (undefined keys dropped), without `file`. */
function savedForm(policy: EnginePolicy): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(policy)) as Record<string, unknown>;
  delete copy.file;
  return copy;
}

/** Differences between two JSON values below `at`: objects key by key, arrays of equal length item by item, anything else whole. */
function differences(before: unknown, after: unknown, at: string, out: Array<{ path: string; from?: unknown; to?: unknown }>): void {
  if (isDeepStrictEqual(before, after)) return;
  if (isRecord(before) && isRecord(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) differences(before[key], after[key], at ? `${at}.${key}` : key, out);
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, index) => differences(item, after[index], `${at}[${index}]`, out));
    return;
  }
  out.push({ path: at, ...(before === undefined ? {} : { from: before }), ...(after === undefined ? {} : { to: after }) });
}

/** Options of {@link planReload}. */
export interface ReloadOptions {
  /** The loop.yaml lies where the agent can write (inside the workspace): every change waits for the operator's key. */
  inside: boolean;
  /** Changes of approval rules and hooks apply without a key (headless `--watch-config-gates`); never for a file inside the workspace. */
  gatesWithoutKey: boolean;
}

/**
 * The differences between the policy in force and a loop.yaml read again, each with what
 * the reload does with it ({@link ReloadEffect}). Empty when nothing differs.
 */
export function planReload(current: EnginePolicy, next: EnginePolicy, options: ReloadOptions): PolicyChange[] {
  const found: Array<{ path: string; from?: unknown; to?: unknown }> = [];
  differences(savedForm(current), savedForm(next), '', found);
  return found.map((change) => ({ ...change, effect: effectOf(change.path, options) }));
}

function effectOf(path: string, options: ReloadOptions): ReloadEffect {
  const section = /^[a-z_]+/.exec(path)?.[0] ?? '';
  const rule: SectionRule = Object.hasOwn(SECTION_RULES, section) ? SECTION_RULES[section as keyof typeof SECTION_RULES] : 'new_run';
  if (rule === 'goal') return 'goal_only';
  if (rule === 'new_run') return 'needs_new_run';
  if (options.inside) return 'awaiting_key';
  return rule === 'key' && !options.gatesWithoutKey ? 'awaiting_key' : 'applied';
}

/** One step of a change's path: a key of an object or an index of an array. */
type Segment = string | number;

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The segments of a change's path (`observe[1].timeout` → `observe`, 1, `timeout`).
 * @throws InvariantError for a path that is not keys of lower-case letters, digits and `_` with `[n]` indexes
 */
export function pathSegments(path: string): Segment[] {
  if (typeof path !== 'string') throw new InvariantError(`a policy change names no path (found ${JSON.stringify(path) ?? String(path)}); expected keys like budget.limits.turns`);
  const segments: Segment[] = [];
  for (const part of path.split('.')) {
    const match = /^([a-z_][a-z0-9_]*)((?:\[\d+\])*)$/.exec(part);
    if (!match || UNSAFE_KEYS.has(match[1]!)) throw new InvariantError(`a policy change names the path ${JSON.stringify(path)}; expected keys like budget.limits.turns or verify[0].command`);
    segments.push(match[1]!);
    for (const index of match[2]!.matchAll(/\[(\d+)\]/g)) segments.push(Number(index[1]));
  }
  return segments;
}

/** Sets (or, for `undefined`, removes) the value at `segments` inside the JSON value `root`, which is changed in place. */
function setAt(root: Record<string, unknown>, segments: Segment[], value: unknown, path: string): void {
  let node: unknown = root;
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    const container = node as Record<string | number, unknown>;
    if (typeof segment === 'number' ? !Array.isArray(node) || segment >= node.length : !isRecord(node)) {
      throw new InvariantError(`a policy change names ${JSON.stringify(path)}, which the policy in force does not have`);
    }
    if (!last) {
      node = container[segment];
      continue;
    }
    if (value === undefined && typeof segment === 'string') delete container[segment];
    else container[segment] = structuredClone(value);
  }
}

/**
 * The policy in force after `changes` (in order; only `applied` ones count), as a new
 * object: `policy` is not changed.
 * @throws InvariantError for a change whose path is malformed or not in the policy (a damaged log)
 */
export function applyChanges<P extends EnginePolicy>(policy: P, changes: ReadonlyArray<Pick<PolicyChange, 'path' | 'to'> & { effect?: ReloadEffect }>): P {
  const applied = changes.filter((c) => c.effect === undefined || c.effect === 'applied');
  if (applied.length === 0) return policy;
  const copy = JSON.parse(JSON.stringify(policy)) as Record<string, unknown>;
  for (const change of applied) setAt(copy, pathSegments(change.path), change.to, change.path);
  return copy as P;
}

/** A value in one short piece for a line of the diff. */
function shortValue(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** What each effect says after a change, in the one-line description. */
const EFFECT_WORDS: Record<ReloadEffect, string> = {
  applied: 'applied',
  awaiting_key: 'waits for the operator’s key',
  declined: 'declined, not applied',
  needs_new_run: 'needs a new run, not applied',
  goal_only: 'ignored: the goal changes only through /goal',
};

/** One change as a short line: `budget.limits.turns 3 → 10 (applied)`. */
export function describeChange(change: PolicyChange): string {
  return `${change.path} ${shortValue(change.from)} → ${shortValue(change.to)} (${EFFECT_WORDS[change.effect]})`;
}

/** The order changes are listed in: what took effect first. */
const EFFECT_ORDER: readonly ReloadEffect[] = ['applied', 'awaiting_key', 'declined', 'needs_new_run', 'goal_only'];

/** The changes of a reload in one line, what took effect first, for the timeline and headless stderr. */
export function describeChanges(changes: readonly PolicyChange[]): string {
  if (changes.length === 0) return 'no change';
  const sorted = [...changes].sort((a, b) => EFFECT_ORDER.indexOf(a.effect) - EFFECT_ORDER.indexOf(b.effect));
  return sorted.map(describeChange).join('; ');
}

/**
 * The budget limits a reload sets (applied, or waiting for the key) that the run has
 * already reached: `budget.limits.<dimension>` to a number at or below what is used
 * (`usage`, in each dimension's unit: turns, tool calls, seconds, tokens, USD). The run
 * pauses for them at its next budget check; the operator is told so with the reload.
 */
export function reachedLimits(changes: readonly PolicyChange[], usage: Readonly<BudgetUsage>): Array<{ dimension: BudgetDimension; limit: number; used: number; effect: ReloadEffect }> {
  return changes.flatMap((change) => {
    if (change.effect !== 'applied' && change.effect !== 'awaiting_key') return [];
    const dimension = /^budget\.limits\.(turns|tool_calls|wall_clock_seconds|tokens|cost_usd)$/.exec(change.path)?.[1] as BudgetDimension | undefined;
    if (dimension === undefined || typeof change.to !== 'number' || change.to > usage[dimension]) return [];
    return [{ dimension, limit: change.to, used: usage[dimension], effect: change.effect }];
  });
}

