/**
 * Turns transcript entries into loopdeck events, for a live CLI agent (the command agent)
 * and for `loopdeck import`: messages become `agent.message`, usage `agent.usage`, tool
 * uses and results `tool.call`/`tool.result` marked `by: 'agent'`, notices `agent.notice`.
 */
import type { EventDataMap } from '../../events.js';
import type { AgentTurn } from '../../types.js';
import type { TranscriptEntry, TranscriptFormat } from './types.js';

/** Event types a CLI agent's transcript produces. */
export type AgentEventType = 'agent.message' | 'agent.usage' | 'agent.notice' | 'tool.call' | 'tool.result';

/** An event to append, without its envelope. */
export type AgentEventDraft = { [T in AgentEventType]: { type: T; data: EventDataMap[T] } }[AgentEventType];

/** Longest piece of the agent's own call id kept in loopdeck's call id. */
const MAX_AGENT_ID = 64;

/** Longest tool name kept (a hostile agent may print any string as a name). */
const MAX_TOOL_NAME = 200;

/**
 * Stateful, for one run of a CLI agent (one loopdeck turn). Call ids are made unique per
 * run (`t<turn>.<n>:<agent's id>`): agents reuse ids across runs (Codex numbers its items
 * from `item_0` each time) and a hostile one may repeat them within a run. A result goes to
 * the latest open call with its id. `now` (milliseconds, monotonic) measures a call's
 * duration from its use to its result; without it durations are 0 (not measured).
 */
export class TranscriptRecorder {
  private calls = 0;
  private readonly open = new Map<string, { id: string; name: string; at: number }>();
  private messages = 0;
  private readonly reported = { tokens: false, cost_usd: false };
  /** The last `result` entry seen, if any. */
  result: { ok: boolean; text: string } | null = null;
  /** The last message text seen (the answer when no result record came). */
  lastText = '';

  constructor(
    private readonly turn: number,
    private readonly now: (() => number) | null = null,
  ) {}

  /** The events of one entry (none for `result`, which the caller acts on). */
  record(entry: TranscriptEntry): AgentEventDraft[] {
    switch (entry.kind) {
      case 'session':
        return [{ type: 'agent.notice', data: { text: `agent session ${entry.id ?? '(no id)'}${entry.model ? ` (${entry.model})` : ''}` } }];
      case 'message':
        if (entry.starts_turn) this.messages += 1;
        if (entry.text) this.lastText = entry.starts_turn ? entry.text : `${this.lastText}${entry.text}`;
        return [{ type: 'agent.message', data: { turn: this.turn, starts_turn: entry.starts_turn, text: entry.text, reasoning: entry.reasoning } }];
      case 'tool_call': {
        const id = `t${this.turn}.${++this.calls}:${entry.id.slice(0, MAX_AGENT_ID)}`;
        const name = entry.name.slice(0, MAX_TOOL_NAME);
        this.open.set(entry.id, { id, name, at: this.now?.() ?? 0 });
        return [{ type: 'tool.call', data: { call: { id, name, args: entry.args }, by: 'agent' } }];
      }
      case 'tool_result': {
        const call = this.open.get(entry.id);
        if (!call) return [{ type: 'agent.notice', data: { text: `the agent reported a result for a call it never made (${entry.id.slice(0, MAX_AGENT_ID)})` } }];
        this.open.delete(entry.id);
        const duration = this.now ? Math.max(0, Math.round(this.now() - call.at)) : 0;
        const result = { call_id: call.id, name: call.name, status: entry.status, output: entry.output, exit_code: entry.exit_code, duration_ms: duration };
        return [{ type: 'tool.result', data: { result, by: 'agent' } }];
      }
      case 'usage': {
        const { input_tokens, output_tokens, cost_usd } = entry.usage;
        if (input_tokens !== null || output_tokens !== null) this.reported.tokens = true;
        if (cost_usd !== null) this.reported.cost_usd = true;
        return [{ type: 'agent.usage', data: { turn: this.turn, input_tokens, output_tokens, cost_usd } }];
      }
      case 'result':
        this.result = { ok: entry.ok, text: entry.text };
        return [];
      case 'notice':
        return [{ type: 'agent.notice', data: { text: entry.text } }];
    }
  }

  /** What the run's `model.call` carries about it ({@link AgentTurn.agent_run}). */
  summary(format: string): NonNullable<AgentTurn['agent_run']> {
    return { format, messages: this.messages, reported: { ...this.reported } };
  }
}
