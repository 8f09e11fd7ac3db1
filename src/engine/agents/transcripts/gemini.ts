/**
 * Gemini CLI `gemini -p --output-format stream-json`: one JSON object per line, each with
 * `type` and `timestamp` (packages/core/src/output/types.ts of google-gemini/gemini-cli).
 * - `init {session_id, model}`.
 * - `message {role: user|assistant, content, delta?}`: an assistant message streams as
 *   several `delta` records; consecutive assistant records are one message (one turn).
 * - `tool_use {tool_name, tool_id, parameters}`, `tool_result {tool_id, status:
 *   success|error, output?, error?:{type, message}}`.
 * - `error {severity: warning|error, message}`.
 * - `result {status, error?, stats?:{total_tokens, input_tokens, output_tokens, cached,
 *   input, duration_ms, tool_calls}}` ends the run; its stats are totals of the session
 *   (added as deltas). Output counts everything beyond the input (`total - input`: thoughts
 *   and tool tokens included) when both are given. No cost is reported: it stays unknown.
 */
import { addCumulative, argsOf, bounded, count, emptyTotals, isRecord, notice, readJsonLine, str, type JsonRecord } from './common.js';
import type { ReportedUsage, TranscriptEntry, TranscriptParser } from './types.js';

const FORMAT = 'gemini-stream-json';

function statsUsage(stats: unknown): ReportedUsage {
  const s = isRecord(stats) ? stats : {};
  const input = count(s.input_tokens);
  const total = count(s.total_tokens);
  const output = input !== null && total !== null && total >= input ? total - input : count(s.output_tokens);
  return { input_tokens: input, output_tokens: output, cost_usd: null };
}

/** A parser of Gemini CLI stream-json. */
export function geminiParser(): TranscriptParser {
  const toolNames = new Map<string, string>();
  const totals = emptyTotals();
  let inMessage = false;
  let lastMessage = '';

  function entries(record: JsonRecord): TranscriptEntry[] {
    switch (record.type) {
      case 'init':
        return [{ kind: 'session', id: str(record.session_id) || null, model: str(record.model) || null }];
      case 'message': {
        if (record.role !== 'assistant') return [];
        const startsTurn = !inMessage;
        inMessage = true;
        lastMessage = bounded((startsTurn ? '' : lastMessage) + str(record.content));
        return [{ kind: 'message', starts_turn: startsTurn, text: bounded(str(record.content)), reasoning: '' }];
      }
      case 'tool_use': {
        const id = str(record.tool_id) || `tool-${toolNames.size + 1}`;
        const name = str(record.tool_name, 'unknown');
        toolNames.set(id, name);
        return [{ kind: 'tool_call', id, name, args: argsOf(record.parameters) }];
      }
      case 'tool_result': {
        const id = str(record.tool_id);
        const name = toolNames.get(id);
        if (!name) return [notice(`${FORMAT}: a tool result for an unknown tool use "${id}"`)];
        const failed = record.status !== 'success';
        const error = isRecord(record.error) ? str(record.error.message) : '';
        const output = str(record.output) || error;
        return [{ kind: 'tool_result', id, name, status: failed ? 'failed' : 'ok', output: bounded(output), exit_code: null }];
      }
      case 'error':
        return [notice(`${FORMAT}: ${str(record.severity, 'error')}: ${str(record.message)}`)];
      case 'result': {
        const out = addCumulative(totals, statsUsage(record.stats), FORMAT);
        const ok = record.status === 'success';
        const error = isRecord(record.error) ? str(record.error.message) : '';
        out.push({ kind: 'result', ok, text: ok ? lastMessage : bounded(error || 'the run ended with an error') });
        return out;
      }
      default:
        return [notice(`${FORMAT}: unknown record type "${str(record.type, typeof record.type)}" kept as text`)];
    }
  }

  return {
    format: FORMAT,
    line(text) {
      const read = readJsonLine(text, FORMAT);
      if (!read) return [];
      if ('notice' in read) {
        inMessage = false;
        return [read.notice];
      }
      const out = entries(read.record);
      if (!(read.record.type === 'message' && read.record.role === 'assistant')) inMessage = false;
      return out;
    },
    end: () => [],
  };
}
