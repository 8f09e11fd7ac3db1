/**
 * Turns transcript entries into loopdeck events, for a live CLI agent (the command agent)
 * and for `loopdeck import`: messages become `agent.message`, usage `agent.usage`, tool
 * uses and results `tool.call`/`tool.result` marked `by: 'agent'`, notices `agent.notice`.
 */
import { argsDigest } from '../../approval/always-allow.js';
import { mapAgentCall, shellScript } from '../../bridge/map.js';
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
 * What makes a hook's report of a call and the output's the same call when no id ties them:
 * the call in loopdeck's terms (docs/design.md, "Approvals of CLI agents"), so that they
 * agree where the CLI names the tool differently in each (Codex prints a
 * `command_execution` of `/bin/bash -lc '<script>'`, its hook says `Bash` with the script).
 */
function callKey(name: string, args: Record<string, unknown>): string {
  // An MCP tool: `mcp__<server>__<tool>` to the hook, `<server>.<tool>` in Codex's `mcp_tool_call` item.
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  if (mcp) return `${mcp[1]}.${mcp[2]}\0${argsDigest(args)}`;
  // A patch: `apply_patch` with the patch text to the hook, a `file_change` item listing the files in the output.
  if (name === 'file_change') return filesKey((Array.isArray(args.changes) ? args.changes : []).map((c) => (isRecord(c) && typeof c.path === 'string' ? c.path : '')));
  if (name === 'apply_patch') {
    const mapped = mapAgentCall('codex', name, args);
    if (mapped.ok) return filesKey(mapped.mapped.paths.map((p) => p.path));
  }
  const mapping = mapAgentCall('codex', name, args);
  const call = mapping.ok ? mapping.mapped.call : { name, args };
  if (call.name === 'shell' && typeof call.args.command === 'string') return `shell\0${shellScript(call.args.command)}`;
  return `${call.name}\0${argsDigest(call.args)}`;
}

const FILES = 'files\0';

/** The key of a patch by the files it changes (the hook's patch names them relative, the output may give them absolute). */
function filesKey(paths: readonly string[]): string {
  return `${FILES}${paths.map((p) => p.replace(/\\/g, '/')).join('\0')}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Whether two {@link callKey}s are the same call: equal, or two patches of the same files,
 * a path given relative on one side matching the end of the same path given absolute on the other.
 */
function sameCall(a: string, b: string): boolean {
  if (a === b) return true;
  if (!a.startsWith(FILES) || !b.startsWith(FILES)) return false;
  const left = a.slice(FILES.length).split('\0');
  const right = b.slice(FILES.length).split('\0');
  if (left.length !== right.length) return false;
  const same = (x: string, y: string) => x === y || x.endsWith(`/${y.replace(/^\.\//, '')}`) || y.endsWith(`/${x.replace(/^\.\//, '')}`);
  const unmatched = [...right];
  for (const x of left) {
    const at = unmatched.findIndex((y) => y !== '' && x !== '' && same(x, y));
    if (at === -1) return false;
    unmatched.splice(at, 1);
  }
  return true;
}

/**
 * Stateful, for one run of a CLI agent (one loopdeck turn). Call ids are made unique per
 * run (`t<turn>.<n>:<agent's id>`): agents reuse ids across runs (Codex numbers its items
 * from `item_0` each time) and a hostile one may repeat them within a run. A result goes to
 * the latest open call with its id. `now` (milliseconds, monotonic) measures a call's
 * duration from its use to its result; without it durations are 0 (not measured).
 */
export class TranscriptRecorder {
  private calls = 0;
  private readonly open = new Map<string, { id: string; name: string; at: number; key: string }>();
  /** Agent ids whose call its pre-tool hook reported before the output did: the parsed use adds no second `tool.call`. */
  private readonly hookFirst = new Set<string>();
  /** Agent ids whose call a hook already claimed (a call is asked about once). */
  private readonly claimed = new Set<string>();
  /** Hook calls without an agent id (Gemini CLI, Codex), waiting for their parsed use: matched by {@link callKey}. */
  private readonly unnamed: Array<{ key: string; agentId: string }> = [];
  private hookCalls = 0;
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
      case 'tool_call':
        return this.toolCall(entry);
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

  private toolCall(entry: Extract<TranscriptEntry, { kind: 'tool_call' }>): AgentEventDraft[] {
    const key = callKey(entry.name, entry.args);
    if (this.hookFirst.delete(entry.id) && this.open.has(entry.id)) return [];
    const waiting = this.unnamed.findIndex((u) => sameCall(u.key, key));
    if (waiting !== -1 && !this.open.has(entry.id)) {
      const { agentId } = this.unnamed.splice(waiting, 1)[0]!;
      const call = this.open.get(agentId);
      if (call) {
        this.open.delete(agentId);
        this.open.set(entry.id, call);
        this.claimed.add(entry.id);
        return [];
      }
    }
    const id = `t${this.turn}.${++this.calls}:${entry.id.slice(0, MAX_AGENT_ID)}`;
    const name = entry.name.slice(0, MAX_TOOL_NAME);
    this.open.set(entry.id, { id, name, at: this.now?.() ?? 0, key });
    return [{ type: 'tool.call', data: { call: { id, name, args: entry.args }, by: 'agent' } }];
  }

  /**
   * A call the agent's pre-tool hook asks about (docs/design.md, "Approvals of CLI agents"):
   * the id of its `tool.call` and the events to append. The call is the same one its
   * parsed output shows, whichever comes first: matched by the agent's id, or (a hook input
   * without one) by the call in loopdeck's terms ({@link callKey}). Its `tool.call` is
   * recorded once.
   */
  claim(agentId: string | null, name: string, args: Record<string, unknown>): { id: string; events: AgentEventDraft[] } {
    const key = callKey(name, args);
    if (agentId !== null) {
      const open = this.open.get(agentId);
      if (open && !this.claimed.has(agentId)) {
        this.claimed.add(agentId);
        return { id: open.id, events: [] };
      }
      const events = this.toolCall({ kind: 'tool_call', id: agentId, name, args });
      this.claimed.add(agentId);
      this.hookFirst.add(agentId);
      return { id: this.open.get(agentId)!.id, events };
    }
    for (const [seen, open] of this.open) {
      if (this.claimed.has(seen) || !sameCall(open.key, key)) continue;
      this.claimed.add(seen);
      return { id: open.id, events: [] };
    }
    const synthetic = `hook-${++this.hookCalls}`;
    const events = this.toolCall({ kind: 'tool_call', id: synthetic, name, args });
    this.claimed.add(synthetic);
    this.unnamed.push({ key, agentId: synthetic });
    return { id: this.open.get(synthetic)!.id, events };
  }

  /** What the run's `model.call` carries about it ({@link AgentTurn.agent_run}). */
  summary(format: string): NonNullable<AgentTurn['agent_run']> {
    return { format, messages: this.messages, reported: { ...this.reported } };
  }
}
