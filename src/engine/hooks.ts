import { describeError, LoopdeckError, UsageError } from './errors.js';
import type { DoneReason } from './machine.js';
import { safeTimeout, type SafeTimer } from './timer.js';
import type { BudgetDimension, Goal, ToolCall, ToolResult } from './types.js';
import { isBlank } from './blank.js';

/** The ten hook topics of docs/design.md, "Hooks". */
export const HOOK_TOPICS = [
  'before_plan', 'after_plan', 'before_tool_call', 'after_tool_call', 'before_step',
  'after_step', 'on_error', 'on_pause', 'on_budget_exceeded', 'on_complete',
] as const;
export type HookTopic = (typeof HOOK_TOPICS)[number];

/** One payload object per topic. Subscribers may mutate `steps` and `call.args`. */
export interface HookPayloads {
  before_plan: { goal: Goal };
  after_plan: { goal: Goal; steps: string[] };
  /** `granted`: rules the operator allowed for the rest of this run. */
  before_tool_call: { call: ToolCall; granted: readonly string[] };
  after_tool_call: { call: ToolCall; result: ToolResult | null; error: string | null };
  before_step: { step: number; turn: number };
  after_step: { step: number; outcome: string };
  on_error: { source: string; error: string };
  on_pause: { reason: string; prompt: string };
  on_budget_exceeded: { dimension: BudgetDimension; used: number; limit: number };
  on_complete: { reason: DoneReason };
}

/** What a subscriber may return. `undefined` means no opinion (same as allow). */
export type HookDecision =
  | { type: 'allow' }
  | { type: 'deny'; reason: string }
  | { type: 'pause'; prompt: string }
  | { type: 'skip' };

/** Return this from `before_step` to skip the next step. */
export const SKIP: HookDecision = Object.freeze({ type: 'skip' });

/** A subscriber returned something that is not a {@link HookDecision} (nor `undefined`). */
export class HookDecisionError extends LoopdeckError {}

/** The keys each decision type carries, besides `type`; the text ones must be non-empty strings. */
const DECISION_TEXT: Record<HookDecision['type'], 'reason' | 'prompt' | null> = { allow: null, deny: 'reason', pause: 'prompt', skip: null };

const EXPECTED_DECISION =
  "expected undefined (no opinion), { type: 'allow' }, { type: 'deny', reason: <text> }, { type: 'pause', prompt: <text> } or SKIP";

/** A short, safe rendering of any value for an error message (never throws, at most ~80 characters). */
function describeReturned(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'undefined';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? 'an array' : 'an object';
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Checks what a subscriber returned against the decision union, at run time: a hook written
 * in plain JavaScript (or cast past the types) can return anything, and a stray value must
 * never become a decision. Accepted: `undefined` (no opinion), or a plain object with exactly
 * the keys of one decision: `{ type: 'allow' }`, `{ type: 'skip' }`, `{ type: 'deny', reason }`,
 * `{ type: 'pause', prompt }` with a non-empty string. Everything else (`null`, `true`, a
 * number, a string, an array, `{ ok: true }`, `{ type: 'nonsense' }`, a deny without reason,
 * an extra key) is refused.
 *
 * @returns a fresh, frozen copy of the decision (later changes to the hook's object do not count), or `undefined`
 * @throws HookDecisionError naming the value returned and what was expected
 */
export function checkDecision(value: unknown): HookDecision | undefined {
  if (value === undefined) return undefined;
  const refuse = (why = ''): never => {
    throw new HookDecisionError(`returned ${describeReturned(value)}${why}; ${EXPECTED_DECISION}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse();
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return refuse(' (not a plain object)');
  const fields = { ...(value as Record<string, unknown>) };
  const type = fields.type;
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(DECISION_TEXT, type)) return refuse();
  const textKey = DECISION_TEXT[type as HookDecision['type']];
  const extra = Reflect.ownKeys(value).filter((key) => key !== 'type' && key !== textKey);
  if (extra.length > 0) return refuse(` (unexpected key ${String(extra[0])})`);
  if (textKey === null) return Object.freeze({ type }) as HookDecision;
  const text = fields[textKey];
  if (typeof text !== 'string' || isBlank(text)) return refuse(` (${type} needs a non-empty ${textKey})`);
  return Object.freeze({ type, [textKey]: text }) as HookDecision;
}

export type HookFn<T extends HookTopic> = (payload: HookPayloads[T]) => HookDecision | void | Promise<HookDecision | void>;

/** A hook that threw, timed out or misbehaved, as the registry reports it. */
export interface HookFailure {
  topic: HookTopic;
  hook: string;
  error: string;
}

/** What calling a topic's subscribers produced. */
export interface HookOutcome {
  /** The strongest decision returned: deny over pause over skip over allow; `null` when none had an opinion. */
  decision: HookDecision | null;
  /** Every subscriber that threw, ran past its time limit or returned something that is not a decision, in order. */
  failures: HookFailure[];
}

const STRENGTH: Record<HookDecision['type'], number> = { allow: 0, skip: 1, pause: 2, deny: 3 };

interface Subscriber {
  name: string;
  fn: (payload: never) => HookDecision | void | Promise<HookDecision | void>;
  options: SubscribeOptions;
}

/** Per-subscriber options. */
export interface SubscribeOptions {
  /** Milliseconds before the subscriber counts as having thrown (default: the registry's). */
  timeoutMs?: number;
  /**
   * What a throw means in `before_tool_call`: `block` (default) cancels the call, `allow`
   * lets the other subscribers decide. Elsewhere a throw is always recorded and skipped.
   */
  onError?: 'block' | 'allow';
}

/**
 * Registry of hook subscribers (docs/design.md, "Hooks").
 *
 * Subscribers of a topic run in registration order, each with the same payload object.
 * Every throw is caught here: in `before_tool_call` a throw or a deny stops the topic
 * (later subscribers do not run) and the call is cancelled by the engine; elsewhere a
 * throw is reported and the next subscriber runs. A subscriber running longer than
 * `timeoutMs`, or returning a value that is not a decision ({@link checkDecision}), counts
 * as a throw. Decisions combine by strength whatever the order: a deny from any subscriber
 * wins over every allow (an allow never stops the topic, so a later subscriber can still deny).
 */
export class HookRegistry {
  private readonly subscribers = new Map<HookTopic, Subscriber[]>();

  /** @param timeoutMs per-subscriber time limit in milliseconds (default 5 s) */
  constructor(private readonly timeoutMs = 5000) {}

  /** @throws UsageError for an unknown topic (naming the known ones) */
  on<T extends HookTopic>(topic: T, name: string, fn: HookFn<T>, options: SubscribeOptions = {}): void {
    if (!(HOOK_TOPICS as readonly string[]).includes(topic)) {
      throw new UsageError(`unknown hook topic ${JSON.stringify(topic)}: expected one of ${HOOK_TOPICS.join(', ')}`);
    }
    const list = this.subscribers.get(topic) ?? [];
    list.push({ name, fn: fn as Subscriber['fn'], options });
    this.subscribers.set(topic, list);
  }

  /** The names of the subscribers of `topic`, in firing order. */
  names(topic: HookTopic): string[] {
    return (this.subscribers.get(topic) ?? []).map((subscriber) => subscriber.name);
  }

  /** Whether `topic` has a subscriber. */
  has(topic: HookTopic): boolean {
    return (this.subscribers.get(topic)?.length ?? 0) > 0;
  }

  /** Calls the subscribers of `topic` in order; never throws (a topic without subscribers: no decision, no failure). */
  call<T extends HookTopic>(topic: T, payload: HookPayloads[T]): Promise<HookOutcome> {
    if (!this.has(topic)) return Promise.resolve({ decision: null, failures: [] });
    return this.callAll(topic, payload);
  }

  private async callAll<T extends HookTopic>(topic: T, payload: HookPayloads[T]): Promise<HookOutcome> {
    const failures: HookFailure[] = [];
    let decision: HookOutcome['decision'] = null;
    for (const subscriber of this.subscribers.get(topic) ?? []) {
      let result: HookDecision | undefined;
      try {
        result = checkDecision(await this.withTimeout(subscriber, payload as never));
      } catch (error) {
        failures.push({ topic, hook: subscriber.name, error: describeError(error) });
        if (topic === 'before_tool_call' && subscriber.options.onError !== 'allow') {
          return { decision: { type: 'deny', reason: `hook ${subscriber.name} failed: ${describeError(error)}` }, failures };
        }
        continue;
      }
      if (result === undefined) continue;
      if (decision === null || STRENGTH[result.type] > STRENGTH[decision.type]) decision = result;
      if (topic === 'before_tool_call' && result.type === 'deny') break;
    }
    return { decision, failures };
  }

  private async withTimeout(subscriber: Subscriber, payload: never): Promise<unknown> {
    let timer: SafeTimer | undefined;
    const limit = subscriber.options.timeoutMs ?? this.timeoutMs;
    const timeout = new Promise<never>((_, reject) => {
      timer = safeTimeout(() => reject(new Error(`ran past its ${limit} ms limit`)), limit);
    });
    try {
      return await Promise.race([Promise.resolve().then(() => subscriber.fn(payload)), timeout]);
    } finally {
      timer?.cancel();
    }
  }
}
