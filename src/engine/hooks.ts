import { describeError, InvariantError } from './errors.js';
import type { DoneReason } from './machine.js';
import { safeTimeout, type SafeTimer } from './timer.js';
import type { BudgetDimension, Goal, ToolCall, ToolResult } from './types.js';

/** The ten hook topics of DESIGN.md, "Hook topics". */
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
  /** Every subscriber that threw or ran past its time limit, in order. */
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
 * Registry of hook subscribers (DESIGN.md, "Hook topics").
 *
 * Subscribers of a topic run in registration order, each with the same payload object.
 * Every throw is caught here: in `before_tool_call` a throw or a deny stops the topic
 * (later subscribers do not run) and the call is cancelled by the engine; elsewhere a
 * throw is reported and the next subscriber runs. A subscriber running longer than
 * `timeoutMs` counts as a throw.
 */
export class HookRegistry {
  private readonly subscribers = new Map<HookTopic, Subscriber[]>();

  /** @param timeoutMs per-subscriber time limit in milliseconds (default 5 s) */
  constructor(private readonly timeoutMs = 5000) {}

  /** @throws InvariantError for an unknown topic */
  on<T extends HookTopic>(topic: T, name: string, fn: HookFn<T>, options: SubscribeOptions = {}): void {
    if (!(HOOK_TOPICS as readonly string[]).includes(topic)) throw new InvariantError(`unknown hook topic "${topic}"`);
    const list = this.subscribers.get(topic) ?? [];
    list.push({ name, fn: fn as Subscriber['fn'], options });
    this.subscribers.set(topic, list);
  }

  /** Calls the subscribers of `topic` in order; never throws. */
  async call<T extends HookTopic>(topic: T, payload: HookPayloads[T]): Promise<HookOutcome> {
    const failures: HookFailure[] = [];
    let decision: HookOutcome['decision'] = null;
    for (const subscriber of this.subscribers.get(topic) ?? []) {
      let result: HookDecision | void;
      try {
        result = await this.withTimeout(subscriber, payload as never);
      } catch (error) {
        failures.push({ topic, hook: subscriber.name, error: describeError(error) });
        if (topic === 'before_tool_call' && subscriber.options.onError !== 'allow') {
          return { decision: { type: 'deny', reason: `hook ${subscriber.name} failed` }, failures };
        }
        continue;
      }
      if (!result) continue;
      if (decision === null || STRENGTH[result.type] > STRENGTH[decision.type]) decision = result;
      if (topic === 'before_tool_call' && result.type === 'deny') break;
    }
    return { decision, failures };
  }

  private async withTimeout(subscriber: Subscriber, payload: never): Promise<HookDecision | void> {
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
