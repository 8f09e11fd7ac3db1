/**
 * Codex `codex exec --json`: one JSON object per line (a `ThreadEvent`).
 * - `thread.started {thread_id}`, `turn.started`.
 * - `item.started` / `item.updated` / `item.completed {item:{id, type, ...}}` with item types
 *   `agent_message {text}`, `reasoning {text}`, `command_execution {command,
 *   aggregated_output, exit_code, status}`, `file_change {changes:[{path, kind}], status}`,
 *   `mcp_tool_call {server, tool, arguments, result, error, status}`, `web_search {query}`,
 *   `todo_list {items}`, `error {message}`.
 * - `turn.completed {usage:{input_tokens, cached_input_tokens, output_tokens}}`: totals since
 *   the thread began (the exec writer fills it from the thread's running total), so each
 *   report is added as the delta over the last; `cached_input_tokens` is part of
 *   `input_tokens`. Codex reports no cost: cost stays unknown. It ends the turn: the last
 *   agent message becomes the result.
 * - `turn.failed {error:{message}}` and `error {message}`.
 * Turns: a reasoning item or an agent message starts a turn, except an agent message right
 * after a reasoning item (one model response).
 */
import { addCumulative, argsOf, bounded, contentText, count, emptyTotals, isRecord, notice, readJsonLine, str, type JsonRecord } from './common.js';
import type { TranscriptEntry, TranscriptParser } from './types.js';
import type { ToolStatus } from '../../types.js';

const FORMAT = 'codex-json';

/** The tool call an item stands for, or `null` for items that are not tool calls. */
function callOf(item: JsonRecord, id: string): Extract<TranscriptEntry, { kind: 'tool_call' }> | null {
  switch (item.type) {
    case 'command_execution':
      return { kind: 'tool_call', id, name: 'shell', args: { command: str(item.command) } };
    case 'file_change':
      return { kind: 'tool_call', id, name: 'file_change', args: { changes: Array.isArray(item.changes) ? item.changes : [] } };
    case 'mcp_tool_call':
      return { kind: 'tool_call', id, name: `${str(item.server, 'mcp')}.${str(item.tool, 'unknown')}`, args: argsOf(item.arguments) };
    case 'web_search':
      return { kind: 'tool_call', id, name: 'web_search', args: { query: str(item.query) } };
    default:
      return null;
  }
}

/** The result of a completed tool item. */
function resultOf(item: JsonRecord, call: { id: string; name: string }): TranscriptEntry {
  const status = str(item.status);
  const exitCode = typeof item.exit_code === 'number' && Number.isInteger(item.exit_code) ? item.exit_code : null;
  let outcome: ToolStatus = status === 'failed' ? 'failed' : status === 'declined' ? 'denied' : 'ok';
  if (outcome === 'ok' && exitCode !== null && exitCode !== 0) outcome = 'failed';
  let output = '';
  if (item.type === 'command_execution') output = str(item.aggregated_output);
  else if (item.type === 'file_change' && Array.isArray(item.changes)) {
    output = item.changes.map((c) => (isRecord(c) ? `${str(c.kind, '?')} ${str(c.path, '?')}` : '')).join('\n');
  } else if (item.type === 'mcp_tool_call') {
    if (isRecord(item.error)) {
      outcome = 'failed';
      output = str(item.error.message);
    } else if (isRecord(item.result)) output = contentText(item.result.content);
  }
  return { kind: 'tool_result', id: call.id, name: call.name, status: outcome, output: bounded(output), exit_code: exitCode };
}

/** A parser of `codex exec --json`. */
export function codexParser(): TranscriptParser {
  const started = new Set<string>();
  const totals = emptyTotals();
  let afterReasoning = false;
  let lastMessage = '';
  let anonymous = 0;

  function item(record: JsonRecord, completed: boolean): TranscriptEntry[] {
    const it = isRecord(record.item) ? record.item : null;
    if (!it) return [notice(`${FORMAT}: ${str(record.type)} without an item`)];
    const id = str(it.id) || `item-${++anonymous}`;
    if (it.type === 'agent_message' || it.type === 'reasoning') {
      if (!completed) return [];
      const reasoning = it.type === 'reasoning';
      const startsTurn = reasoning || !afterReasoning;
      afterReasoning = reasoning;
      const text = bounded(str(it.text));
      if (!reasoning) lastMessage = text;
      return [{ kind: 'message', starts_turn: startsTurn, text: reasoning ? '' : text, reasoning: reasoning ? text : '' }];
    }
    if (it.type === 'error') return completed ? [notice(`${FORMAT}: error item: ${str(it.message)}`)] : [];
    if (it.type === 'todo_list') return [];
    const call = callOf(it, id);
    if (!call) return completed ? [notice(`${FORMAT}: unknown item type "${str(it.type, typeof it.type)}" kept as text`)] : [];
    afterReasoning = false;
    const out: TranscriptEntry[] = [];
    if (!started.has(id)) {
      started.add(id);
      out.push(call);
    }
    if (completed) out.push(resultOf(it, call));
    return out;
  }

  function turnCompleted(record: JsonRecord): TranscriptEntry[] {
    const usage = isRecord(record.usage) ? record.usage : {};
    const out = addCumulative(totals, { input_tokens: count(usage.input_tokens), output_tokens: count(usage.output_tokens), cost_usd: null }, FORMAT);
    out.push({ kind: 'result', ok: true, text: lastMessage });
    return out;
  }

  return {
    format: FORMAT,
    line(text) {
      const read = readJsonLine(text, FORMAT);
      if (!read) return [];
      if ('notice' in read) return [read.notice];
      const { record } = read;
      switch (record.type) {
        case 'thread.started':
          return [{ kind: 'session', id: str(record.thread_id) || null, model: null }];
        case 'turn.started':
          return [];
        case 'item.started':
        case 'item.updated':
          return item(record, false);
        case 'item.completed':
          return item(record, true);
        case 'turn.completed':
          return turnCompleted(record);
        case 'turn.failed': {
          const message = isRecord(record.error) ? str(record.error.message) : '';
          return [{ kind: 'result', ok: false, text: message || 'the turn failed' }];
        }
        case 'error':
          return [notice(`${FORMAT}: error: ${str(record.message)}`)];
        default:
          return [notice(`${FORMAT}: unknown record type "${str(record.type, typeof record.type)}" kept as text`)];
      }
    },
    end: () => [],
  };
}
