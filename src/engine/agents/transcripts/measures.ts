/**
 * What each CLI agent's structured output reports over a run (docs/design.md, "CLI
 * agents"): the budget can count only what the format carries, and what it never carries
 * is unknown, never 0.
 */
import type { TranscriptFormat } from './types.js';

/** Whether a format reports tokens, cost in USD and the agent's own tool calls. */
export interface FormatMeasures {
  tokens: boolean;
  cost: boolean;
  tools: boolean;
}

/**
 * The measures of each format: Claude Code reports tokens per message and the run's cost in
 * its `result` record; Codex and Gemini CLI report tokens but no cost; `text` reports nothing.
 */
export const FORMAT_MEASURES: Readonly<Record<TranscriptFormat, FormatMeasures>> = {
  'claude-stream-json': { tokens: true, cost: true, tools: true },
  'codex-json': { tokens: true, cost: false, tools: true },
  'gemini-stream-json': { tokens: true, cost: false, tools: true },
  text: { tokens: false, cost: false, tools: false },
};
