/**
 * Claude Code `claude -p --output-format stream-json --verbose`: one JSON object per line.
 * - `{type:"system", subtype:"init", session_id, model, tools, cwd}` opens the session.
 * - `{type:"assistant", message:{id, content:[blocks], usage}}`: blocks `text`, `thinking`,
 *   `tool_use {id, name, input}`. One API message may arrive as several lines (one per
 *   block) repeating the same `message.id` and `usage`: it is one turn, its usage counted once.
 * - `{type:"user", message:{content:[{type:"tool_result", tool_use_id, content, is_error}]}}`.
 * - `{type:"result", subtype, is_error, result, total_cost_usd, usage, num_turns}` ends the
 *   run; its `usage` and `total_cost_usd` are totals of the run, added as deltas over what the
 *   messages already counted.
 * Input tokens include the cache reads and writes the API reports beside `input_tokens`.
 * Session files (`~/.claude/projects/<project>/<session>.jsonl`) hold the same `assistant`
 * and `user` records; their other record types (`summary`, ...) are skipped quietly.
 */
import {
  addCumulative, addIncrement, argsOf, bounded, contentText, count, emptyTotals, isRecord, notice, readJsonLine, str,
  type JsonRecord,
} from './common.js';
import type { ReportedUsage, TranscriptEntry, TranscriptParser } from './types.js';

const FORMAT = 'claude-stream-json';

/** Record types of session files and partial streams that carry nothing loopdeck shows. */
const QUIET_TYPES = new Set(['stream_event', 'summary', 'file-history-snapshot', 'queue-operation']);

/** Usage of one API message or of the whole run, input including cache reads and writes. */
function usageOf(value: unknown, cost: unknown): ReportedUsage {
  const u = isRecord(value) ? value : {};
  const input = count(u.input_tokens);
  const cacheWrite = count(u.cache_creation_input_tokens) ?? 0;
  const cacheRead = count(u.cache_read_input_tokens) ?? 0;
  return {
    input_tokens: input === null ? null : input + cacheWrite + cacheRead,
    output_tokens: count(u.output_tokens),
    cost_usd: count(cost),
  };
}

/** A parser of Claude Code stream-json (and session files). */
export function claudeParser(): TranscriptParser {
  return new ClaudeParser();
}

class ClaudeParser implements TranscriptParser {
  readonly format = FORMAT;
  private readonly seenMessages = new Set<string>();
  private readonly toolNames = new Map<string, string>();
  private readonly totals = emptyTotals();
  private anonymous = 0;

  line(text: string): TranscriptEntry[] {
    const read = readJsonLine(text, FORMAT);
    if (!read) return [];
    if ('notice' in read) return [read.notice];
    const { record } = read;
    switch (record.type) {
      case 'system':
        if (record.subtype === 'init') return [{ kind: 'session', id: str(record.session_id) || null, model: str(record.model) || null }];
        return [notice(`${FORMAT}: system record "${str(record.subtype, '?')}"`)];
      case 'assistant':
        return this.assistant(record);
      case 'user':
        return this.user(record);
      case 'result':
        return this.result(record);
      default:
        if (typeof record.type === 'string' && QUIET_TYPES.has(record.type)) return [];
        return [notice(`${FORMAT}: unknown record type "${str(record.type, typeof record.type)}" kept as text`)];
    }
  }

  end(): TranscriptEntry[] {
    return [];
  }

  private assistant(record: JsonRecord): TranscriptEntry[] {
    const message = isRecord(record.message) ? record.message : null;
    if (!message) return [notice(`${FORMAT}: an assistant record without a message`)];
    const id = str(message.id) || `anonymous-${++this.anonymous}`;
    const first = !this.seenMessages.has(id);
    this.seenMessages.add(id);
    const blocks = Array.isArray(message.content) ? message.content : [{ type: 'text', text: contentText(message.content) }];
    const text: string[] = [];
    const reasoning: string[] = [];
    const calls: TranscriptEntry[] = [];
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block.type === 'text') text.push(str(block.text));
      else if (block.type === 'thinking') reasoning.push(str(block.thinking));
      else if (block.type === 'tool_use') {
        const callId = str(block.id) || `${id}-tool-${calls.length + 1}`;
        const name = str(block.name, 'unknown');
        this.toolNames.set(callId, name);
        calls.push({ kind: 'tool_call', id: callId, name, args: argsOf(block.input) });
      }
    }
    const out: TranscriptEntry[] = [];
    if (first || text.length > 0 || reasoning.length > 0) {
      out.push({ kind: 'message', starts_turn: first, text: bounded(text.join('\n')), reasoning: bounded(reasoning.join('\n')) });
    }
    if (first) {
      const usage = addIncrement(this.totals, usageOf(message.usage, null));
      if (usage) out.push(usage);
    }
    return [...out, ...calls];
  }

  private user(record: JsonRecord): TranscriptEntry[] {
    const message = isRecord(record.message) ? record.message : null;
    if (!message || !Array.isArray(message.content)) return [];
    const out: TranscriptEntry[] = [];
    for (const block of message.content) {
      if (!isRecord(block) || block.type !== 'tool_result') continue;
      const id = str(block.tool_use_id);
      const name = this.toolNames.get(id);
      if (!name) {
        out.push(notice(`${FORMAT}: a tool result for an unknown tool use "${id}"`));
        continue;
      }
      const failed = block.is_error === true;
      out.push({ kind: 'tool_result', id, name, status: failed ? 'failed' : 'ok', output: bounded(contentText(block.content)), exit_code: null });
    }
    return out;
  }

  private result(record: JsonRecord): TranscriptEntry[] {
    const out = addCumulative(this.totals, usageOf(record.usage, record.total_cost_usd), FORMAT);
    const subtype = str(record.subtype, 'unknown');
    const ok = record.is_error !== true && subtype === 'success';
    const errors = Array.isArray(record.errors) ? record.errors.map((e) => contentText(e)).join('; ') : '';
    const text = str(record.result) || errors || (ok ? '' : `the run ended with ${subtype}`);
    out.push({ kind: 'result', ok, text: bounded(text) });
    return out;
  }
}
