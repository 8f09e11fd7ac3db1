import { estimateTokens } from '../engine/agents/context.js';
import type { LoopEvent } from '../engine/events.js';

/** The console's estimate of the agent's next request against its context window, in tokens. */
export interface ContextGauge {
  tokens: number;
  window: number;
}

/** Tokens a message adds besides its text, as the agent's estimator counts them. */
const MESSAGE_OVERHEAD = 4;

function plus(gauge: ContextGauge | null, text: string): ContextGauge | null {
  return gauge && { ...gauge, tokens: gauge.tokens + estimateTokens(text) + MESSAGE_OVERHEAD };
}

/**
 * The gauge after one event. A turn of an agent that measures its requests (`openai`) sets
 * it: its last request plus its own answer; tool results and harness notes add to it until
 * the next request; a compaction sets it to the compacted size; a new lap clears it (a
 * fresh conversation, measured at its first turn). Agents that send no conversation
 * (scripted, command) leave it `null`.
 */
export function nextGauge(gauge: ContextGauge | null, e: LoopEvent): ContextGauge | null {
  switch (e.type) {
    case 'model.call': {
      const { context, thought, final, tool_calls } = e.data.response;
      if (!context) return null;
      const answer = JSON.stringify({ role: 'assistant', content: final ?? thought ?? null, tool_calls });
      return plus({ tokens: context.tokens, window: context.window }, answer);
    }
    case 'tool.result':
      return plus(gauge, e.data.result.output);
    case 'tool.error':
      return plus(gauge, e.data.error);
    case 'goal.revised':
      return plus(gauge, e.data.revision.text);
    case 'reflection.recorded':
      return plus(gauge, e.data.text);
    case 'context.compacted':
      return { tokens: e.data.after_tokens, window: e.data.window_tokens };
    case 'lap.start':
      return null;
    default:
      return gauge;
  }
}

/** The gauge after `events`, from `gauge` (live: each batch folds into the last value). */
export function foldGauge(events: readonly LoopEvent[], gauge: ContextGauge | null = null): ContextGauge | null {
  let next = gauge;
  for (const event of events) next = nextGauge(next, event);
  return next;
}

/**
 * The gauge as of `events[index]` (a replay's cursor): folded from the last event at or
 * before it that sets the gauge outright (a measured turn, a compaction, a new lap), so a
 * cursor move costs the events since that turn, not the whole log.
 */
export function gaugeAt(events: readonly LoopEvent[], index: number): ContextGauge | null {
  let start = Math.min(index, events.length - 1);
  while (start > 0) {
    const e = events[start]!;
    if (e.type === 'context.compacted' || e.type === 'lap.start' || e.type === 'model.call') break;
    start -= 1;
  }
  return foldGauge(events.slice(Math.max(0, start), index + 1));
}
