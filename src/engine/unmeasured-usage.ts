/**
 * Usage that was spent but not (fully) measured (docs/design.md, "Budget"). A missing
 * number is not 0: tokens and cost an agent did not report are unknown, counted where
 * known (a lower bound) and shown as such; usage spent on a turn that then failed is
 * kept and counted.
 */
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
  const out = new Set<UsageDimension>();
  if (turn.agent_run && !turn.agent_run.reported.tokens) out.add('tokens');
  if (turn.agent_run && !turn.agent_run.reported.cost_usd) out.add('cost_usd');
  if (turn.usage_unreported) {
    out.add('tokens');
    out.add('cost_usd');
  }
  return [...out];
}
