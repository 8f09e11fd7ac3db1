/**
 * What loopdeck reads from the structured output of a CLI coding agent (Claude Code
 * `stream-json`, Codex `exec --json`, Gemini CLI `stream-json`, a mini-SWE-agent trajectory),
 * in one shape whatever the format. Parsers turn records into entries; the command agent
 * and `loopdeck import` turn entries into events (docs/design.md, "CLI agents").
 */
import type { ToolStatus } from '../../types.js';

/** The structured outputs loopdeck parses; `text` means none (stdout is only shown). */
export const TRANSCRIPT_FORMATS = ['claude-stream-json', 'codex-json', 'gemini-stream-json', 'text'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** `agent.output` of loop.yaml: a format, or `auto` (detected from the first JSON line). */
export type OutputSetting = TranscriptFormat | 'auto';

/** Tokens and USD as the agent reported them; `null` is *not reported*, never 0. */
export interface ReportedUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
}

/** One thing the agent did or said, in the order it printed it. */
export type TranscriptEntry =
  /** The agent's session began (`system/init`, `thread.started`, `init`). */
  | { kind: 'session'; id: string | null; model: string | null }
  /**
   * An assistant message (or a part of one). `starts_turn`: the first part of a new
   * message, which counts as one turn of the budget; later parts of the same message
   * (another content block, a streamed delta) have it false.
   */
  | { kind: 'message'; starts_turn: boolean; text: string; reasoning: string }
  /** The agent ran (or asked to run) a tool itself. `id` is the agent's own, unique within the transcript. */
  | { kind: 'tool_call'; id: string; name: string; args: Record<string, unknown> }
  /** The outcome of an earlier `tool_call` with the same `id`. `exit_code` when the agent reports one. */
  | { kind: 'tool_result'; id: string; name: string; status: ToolStatus; output: string; exit_code: number | null }
  /** Usage to add: already a delta (cumulative counters are turned into deltas by the parser). */
  | { kind: 'usage'; usage: ReportedUsage }
  /** The final record of the agent's run: its answer, or the error it ended with. */
  | { kind: 'result'; ok: boolean; text: string }
  /** Something not understood (malformed or unknown line, an error record), kept as text. */
  | { kind: 'notice'; text: string };

/** A streaming parser of one transcript: fed one line at a time, in order. */
export interface TranscriptParser {
  readonly format: TranscriptFormat;
  /** The entries of one line (without its newline). Never throws: bad input becomes a `notice`. */
  line(text: string): TranscriptEntry[];
  /** The entries due at the end of the stream (a message still open, ...). */
  end(): TranscriptEntry[];
}
