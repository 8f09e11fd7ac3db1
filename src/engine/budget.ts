import { BUDGET_DIMENSIONS, type BudgetDimension, type BudgetLimits, type BudgetUsage, type TokenUsage } from './types.js';

/** Prices in USD per million tokens (from `pricing` in loop.yaml). */
export interface Pricing {
  input_per_million_usd: number;
  output_per_million_usd: number;
  /** Price of input tokens read from the server's prompt cache; absent: the input price. */
  cached_input_per_million_usd?: number | undefined;
}

/** Usage of a run that has not done anything yet. */
export const ZERO_USAGE: BudgetUsage = { turns: 0, tool_calls: 0, wall_clock_seconds: 0, tokens: 0, cost_usd: 0 };

/**
 * Cost in USD of one model call's tokens at `pricing`. Cached input tokens are a part of
 * `input_tokens` (as servers report `prompt_tokens_details.cached_tokens`): they are priced
 * at the cached-input price and the rest at the input price. Reasoning tokens are a part of
 * `output_tokens` and priced with them, never added again.
 */
export function costOf(usage: TokenUsage, pricing: Pricing): number {
  const cached = Math.min(Math.max(0, usage.cached_input_tokens ?? 0), usage.input_tokens);
  const cachedPrice = pricing.cached_input_per_million_usd ?? pricing.input_per_million_usd;
  const input = (usage.input_tokens - cached) * pricing.input_per_million_usd + cached * cachedPrice;
  return (input + usage.output_tokens * pricing.output_per_million_usd) / 1e6;
}

/**
 * The first dimension, in priority order (turns, tool calls, wall clock, tokens, cost),
 * whose usage has reached its limit; `null` when every limited dimension has room.
 * A limit is reached at `used >= limit`: a budget of 1 tool call allows exactly one call.
 */
export function exceededDimension(usage: BudgetUsage, limits: BudgetLimits): BudgetDimension | null {
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = limits[dimension];
    if (limit !== null && usage[dimension] >= limit) return dimension;
  }
  return null;
}

/**
 * Dimensions whose usage crossed `warnFraction` of their limit and were not warned yet,
 * in priority order. `warned` lists dimensions already warned (each warns once per run).
 */
export function newWarnings(
  usage: BudgetUsage,
  limits: BudgetLimits,
  warnFraction: number,
  warned: readonly BudgetDimension[],
): BudgetDimension[] {
  return BUDGET_DIMENSIONS.filter((dimension) => {
    const limit = limits[dimension];
    return limit !== null && !warned.includes(dimension) && usage[dimension] >= limit * warnFraction;
  });
}

