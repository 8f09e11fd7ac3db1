/**
 * Usage that was spent but not (fully) measured (docs/design.md, "Budget"). A missing
 * number is not 0: tokens and cost an agent did not report are unknown, counted where
 * known (a lower bound) and shown as such; usage spent on a turn that then failed is
 * kept and counted.
 */
import { FORMAT_MEASURES } from './agents/transcripts/measures.js';
import type { Pricing } from './budget.js';
import { AgentError } from './errors.js';
import type { AgentTurn, BudgetDimension, TokenUsage } from './types.js';

/** The usage dimensions an agent reports (or not). */
export type UsageDimension = Extract<BudgetDimension, 'tokens' | 'cost_usd'>;

/** What a turn spent before it failed: the reported usage and the dimensions nothing reported. */
export interface SpentUsage {
  usage: TokenUsage;
  unreported: UsageDimension[];
}

/** An empty {@link TokenUsage}, fresh for each caller to add to. */
export function zeroUsage(): TokenUsage {
  return { input_tokens: 0, output_tokens: 0 };
}

/**
 * Attaches what a failing turn spent to its error, so the runner records it as
 * `agent.usage` before the failure (the tokens were used whether or not the turn
 * succeeded). Only an {@link AgentError} carries it; any other error is returned unchanged.
 */
export function withSpent(error: unknown, spent: SpentUsage): unknown {
  if (error instanceof AgentError && error.spent === undefined) error.spent = { usage: { ...spent.usage }, unreported: [...spent.unreported] };
  return error;
}

/** True when `spent` is worth recording: some tokens were reported, or some usage is unknown. */
export function spentAnything(spent: SpentUsage): boolean {
  return spent.usage.input_tokens + spent.usage.output_tokens > 0 || spent.unreported.length > 0;
}

/**
 * The dimensions a recorded turn leaves unknown: a CLI agent's run that did not report
 * them (`agent_run.reported`), or a model server that sent no usage for some request of
 * the turn (`usage_unreported`: tokens, and so cost).
 */
export function unreportedOf(turn: AgentTurn): UsageDimension[] {
  if (!turn.agent_run && !turn.usage_unreported) return [];
  const out = new Set<UsageDimension>();
  if (turn.agent_run && !turn.agent_run.reported.tokens) out.add('tokens');
  if (turn.agent_run && !turn.agent_run.reported.cost_usd) out.add('cost_usd');
  if (turn.usage_unreported) {
    out.add('tokens');
    out.add('cost_usd');
  }
  return [...out];
}

/** The parts of a loop.yaml that decide which budget limits can be measured. */
export interface MeasurableConfig {
  agent: { kind: string; output?: string };
  budget: { max_iterations: number | null; max_tool_calls: number | null; max_wall_clock: number | null; max_tokens: number | null; max_cost_usd: number | null };
  pricing: { input_per_million_usd: number; output_per_million_usd: number; cached_input_per_million_usd?: number | undefined };
}

/** A bounded limit the run's agent cannot move: its loop.yaml key, and what would measure it. */
export interface UnmeasurableBound {
  key: 'max_tool_calls' | 'max_tokens' | 'max_cost_usd';
  /** Why this agent leaves it unmeasured, and what would measure it. */
  why: string;
}

/** Whether `pricing` sets any price: only then can loopdeck price tokens itself. */
export function isPriced(pricing: Pricing): boolean {
  return pricing.input_per_million_usd > 0 || pricing.output_per_million_usd > 0 || (pricing.cached_input_per_million_usd ?? 0) > 0;
}

/**
 * The bounded limits that cannot be measured for the configured agent (docs/design.md,
 * "Budget"): a command agent's tokens, cost and tool calls exist only in the structured
 * output it is told to print (`agent.output` naming a format; `auto` proves nothing before
 * the run, `text` has none), and only `claude-stream-json` reports cost (the other formats'
 * tokens are priced when `pricing` sets a price); for agents priced
 * by `pricing` (`openai`, `scripted`), cost is measured only when a price is set.
 */
export function unmeasurableBounds(config: MeasurableConfig): UnmeasurableBound[] {
  const { agent, budget, pricing } = config;
  const out: UnmeasurableBound[] = [];
  const priced = isPriced(pricing);
  if (agent.kind === 'command') {
    const output = agent.output ?? 'auto';
    const format = Object.hasOwn(FORMAT_MEASURES, output) ? FORMAT_MEASURES[output as keyof typeof FORMAT_MEASURES] : null;
    // A format that reports tokens but no cost is priced by `pricing` when a price is set.
    const measures = format ? { ...format, cost: format.cost || (format.tokens && priced) } : { tokens: false, cost: false, tools: false };
    const named = output === 'auto' ? 'agent.output is auto, which measures nothing unless the command happens to print a known format' : `agent.output: ${output} reports no`;
    const fix = 'set agent.output to the format the command prints (claude-stream-json reports tokens, cost and tool calls; codex-json and gemini-stream-json tokens and tool calls, priced by pricing when a price is set)';
    const say = (what: string) => (output === 'auto' ? `${named}; ${fix}` : output === 'text' ? `agent.output: text reports no ${what}; ${fix}` : `${named} ${what}; ${fix}`);
    if (budget.max_tool_calls !== null && !measures.tools) out.push({ key: 'max_tool_calls', why: say('tool calls') });
    if (budget.max_tokens !== null && !measures.tokens) out.push({ key: 'max_tokens', why: say('tokens') });
    if (budget.max_cost_usd !== null && !measures.cost) out.push({ key: 'max_cost_usd', why: say('cost') });
    return out;
  }
  if (budget.max_cost_usd !== null && !priced) {
    out.push({ key: 'max_cost_usd', why: `every price in pricing is 0, so cost stays $0; set pricing.input_per_million_usd and pricing.output_per_million_usd for the ${agent.kind} agent's model` });
  }
  return out;
}

/**
 * Why a run cannot start because none of its bounds can be measured for its agent, or
 * `null` when one can (turns and wall clock always can). A run bounded only by limits that
 * never move would never stop.
 */
export function unboundedRun(config: MeasurableConfig): string | null {
  const { budget } = config;
  if (budget.max_iterations !== null || budget.max_wall_clock !== null) return null;
  const unmeasurable = unmeasurableBounds(config);
  const bounded = (['max_tool_calls', 'max_tokens', 'max_cost_usd'] as const).filter((key) => budget[key] !== null);
  // No bound at all is the budget's own error.
  if (bounded.length === 0 || bounded.some((key) => !unmeasurable.some((u) => u.key === key))) return null;
  const lines = unmeasurable.map((u) => `budget.${u.key} cannot be measured for this agent: ${u.why}`);
  return `expected a bound this agent can be measured against, found only limits it never reports, so the run would never stop: ${lines.join('; ')}; or bound budget.max_iterations or budget.max_wall_clock`;
}
