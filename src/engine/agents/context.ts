/**
 * The context window of an `openai` agent: how big a request is (estimated in tokens, the
 * same way everywhere), when it is too big, and how the conversation is compacted so a run
 * can be longer than the model's window (docs/design.md, "Context window and hand-over").
 *
 * Compaction keeps the system prompt, the goal (rendered fresh for every request, so its
 * revisions are in it), the execution memory of the last checkpoint, a memory message (the
 * revisions so far, what was dropped) and the last `keepTurns` turns whole. Older turns keep their
 * structure (every tool call still has its result, so servers accept the conversation) but
 * their tool outputs, notes and texts are cut to their first and last lines with a note.
 * Only when that is not enough are the oldest turns dropped, and then, as a last resort,
 * the kept turns cut too. A request that cannot fit even then is an {@link AgentError}.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { AgentError } from '../errors.js';
import type { EventDataMap, GoalRevision } from '../events.js';
import { elideMiddle, type ElideLimits } from '../handover.js';
import type { CheckpointRecord } from '../types.js';
import type { AgentContext } from './agent.js';

/** The context policy of one agent, from `agent.context_tokens`, `agent.compact_at` and `agent.keep_turns`. */
export interface ContextPolicy {
  /** The model's window in tokens: request and response together. */
  window: number;
  /** Fraction of the window a request may fill before the conversation is compacted (0.1 to 0.95). */
  compactAt: number;
  /** Newest turns kept whole by a compaction. */
  keepTurns: number;
}

/** The data of a `context.compacted` event. */
export type ContextCompacted = EventDataMap['context.compacted'];

/**
 * Window assumed for a model loopdeck does not know: small enough for a local server's
 * default (llama.cpp and Ollama start models with a few thousand tokens unless told more).
 */
export const DEFAULT_CONTEXT_TOKENS = 8192;
/** Default of `agent.compact_at`: a request may fill three quarters of the window; the rest is left for the answer. */
export const DEFAULT_COMPACT_AT = 0.75;
/** Default of `agent.keep_turns`. */
export const DEFAULT_KEEP_TURNS = 4;

/**
 * Windows of well-known model families, from their providers' model pages (the smallest
 * variant of the family where they differ). The name may carry a router's prefix
 * (`openai/gpt-4o`, `deepseek/deepseek-chat`); the first match wins.
 */
const KNOWN_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^gpt-4-turbo/, 128_000],
  [/^gpt-4(?!\d)/, 8_192],
  [/^gpt-3\.5-turbo/, 16_385],
  [/^o[134](?:-|$)/, 200_000],
  [/^claude/, 200_000],
  [/^gemini/, 1_048_576],
  [/^deepseek/, 64_000],
  [/^(?:mistral-large|codestral)/, 128_000],
];

/**
 * The window to assume for `model` when `agent.context_tokens` is not set: the known
 * family's window, else {@link DEFAULT_CONTEXT_TOKENS}.
 */
export function defaultContextTokens(model: string): number {
  const name = model.trim().toLowerCase().split('/').pop() ?? '';
  return KNOWN_WINDOWS.find(([pattern]) => pattern.test(name))?.[1] ?? DEFAULT_CONTEXT_TOKENS;
}

/**
 * Estimated tokens of `text`: one token per three bytes of UTF-8. Tokenizers give about four
 * characters of English a token and fewer for code, JSON and hex; a character outside
 * ASCII takes two to four bytes, so CJK text and emoji count one token or more each. An
 * estimate that errs on the large side, without a tokenizer per model.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}

/** Tokens a message costs besides its text (role, separators), as chat formats add them. */
const MESSAGE_OVERHEAD = 4;

/**
 * Estimated tokens of a chat-completions request: every message as JSON (its text, tool
 * calls and ids) plus a few tokens of framing each, and the tool definitions. The test
 * servers measure what they receive with this same function.
 */
export function estimateRequestTokens(body: { messages: readonly unknown[]; tools?: readonly unknown[] }): number {
  let total = 3;
  for (const message of body.messages) total += estimateTokens(JSON.stringify(message)) + MESSAGE_OVERHEAD;
  if (body.tools && body.tools.length > 0) total += estimateTokens(JSON.stringify(body.tools));
  return total;
}

/** Tokens a request may take before the conversation is compacted. */
export function thresholdTokens(policy: ContextPolicy): number {
  return Math.floor(policy.window * policy.compactAt);
}

type Message = ChatCompletionMessageParam;

/** One turn of the conversation: an assistant message and what followed it (or the messages before the first one). */
type Group = Message[];

/** The conversation cut into turns: each starts at an assistant message; what comes before the first is a turn of its own. */
export function turnsOf(conversation: readonly Message[]): Group[] {
  const groups: Group[] = [];
  for (const message of conversation) {
    if (message.role === 'assistant' || groups.length === 0) groups.push([message]);
    else groups[groups.length - 1]!.push(message);
  }
  return groups;
}

/** How hard older turns are cut: first the usual limits, then the last-resort ones. */
const ELIDE: ElideLimits = { headLines: 5, tailLines: 5, maxChars: 1200 };
const ELIDE_HARD: ElideLimits = { headLines: 2, tailLines: 2, maxChars: 240 };
/** Elided entries a `context.compacted` event lists (the count is always whole). */
const MAX_LISTED = 50;

type ElidedEntry = ContextCompacted['elided'][number];

/** Cuts the long texts of one turn in place of a copy; returns the copy and what was cut. */
function elideGroup(group: Group, limits: ElideLimits): { group: Group; elided: ElidedEntry[] } {
  const names = new Map<string, string>();
  const elided: ElidedEntry[] = [];
  const out = group.map((message): Message => {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) if (call.type === 'function') names.set(call.id, call.function.name);
      return elideAssistant(message, limits, elided);
    }
    if ((message.role === 'tool' || message.role === 'user') && typeof message.content === 'string') {
      const cut = elideMiddle(message.content, limits);
      if (cut.elidedChars === 0) return message;
      const id = message.role === 'tool' ? message.tool_call_id : undefined;
      elided.push({
        role: message.role,
        ...(id !== undefined ? { call_id: id, name: names.get(id) ?? 'unknown' } : {}),
        lines: cut.lines,
        elided_chars: cut.elidedChars,
      });
      return { ...message, content: cut.text } as Message;
    }
    return message;
  });
  return { group: out, elided };
}

/** The assistant message with long text (content, reasoning) and long call arguments cut. */
function elideAssistant(message: Extract<Message, { role: 'assistant' }>, limits: ElideLimits, elided: ElidedEntry[]): Message {
  const copy: Record<string, unknown> = { ...message };
  let cutChars = 0;
  for (const key of ['content', 'reasoning_content']) {
    const value = copy[key];
    if (typeof value !== 'string') continue;
    const cut = elideMiddle(value, limits);
    cutChars += cut.elidedChars;
    copy[key] = cut.text;
  }
  if (message.tool_calls) {
    copy.tool_calls = message.tool_calls.map((call) => {
      if (call.type !== 'function' || call.function.arguments.length <= limits.maxChars) return call;
      const cut = elideMiddle(call.function.arguments, limits);
      cutChars += cut.elidedChars;
      // Still JSON: servers that parse past arguments (Ollama) refuse anything else.
      return { ...call, function: { ...call.function, arguments: JSON.stringify({ elided_by_loopdeck: cut.text }) } };
    });
  }
  if (cutChars > 0) elided.push({ role: 'assistant', lines: 0, elided_chars: cutChars });
  return copy as unknown as Message;
}

/** What {@link compactConversation} needs besides the conversation. */
export interface CompactionInput {
  /** Messages sent before the conversation: the system prompt and the goal. */
  head: readonly Message[];
  /** Builds the memory message from how many turns were dropped so far (`null`: none to send). */
  memory: (droppedTurns: number) => Message | null;
  tools: readonly unknown[];
  policy: ContextPolicy;
  /** Turns dropped by earlier compactions of this conversation. */
  droppedBefore: number;
}

/** A compacted conversation and what it cost. */
export interface CompactionResult {
  conversation: Message[];
  memory: Message | null;
  droppedTurns: number;
  tokens: number;
  elided: ElidedEntry[];
  keptWhole: number;
}

/** Fraction of the threshold a compaction that has to drop turns brings the request down to, so the next one is a while off. */
const HEADROOM = 0.8;

/** A turn being compacted, with what was cut of it. */
interface Cutting {
  messages: Group;
  elided: ElidedEntry[];
}

/**
 * Compacts `conversation` until the request it makes fits: turns older than the newest
 * `keepTurns` are cut to their first and last lines; if the request still passes the
 * threshold, the oldest turns are dropped until it is at most {@link HEADROOM} of it; only if
 * the threshold is passed even then, the kept turns are cut as well (harder on a second
 * pass) and, last, all but the newest turn dropped. `elided` lists what was cut in the turns
 * that remain (a dropped turn is counted in `droppedTurns` only).
 * @throws AgentError when even the system prompt, the goal, the memory and the newest turn cut hard pass the threshold
 */
export function compactConversation(conversation: readonly Message[], input: CompactionInput): CompactionResult {
  const threshold = thresholdTokens(input.policy);
  let turns: Cutting[] = turnsOf(conversation).map((messages) => ({ messages, elided: [] }));
  const keep = Math.max(1, input.policy.keepTurns);
  let dropped = input.droppedBefore;
  const measure = () => {
    const memory = input.memory(dropped);
    const messages = [...input.head, ...(memory ? [memory] : []), ...turns.flatMap((t) => t.messages)];
    return { memory, tokens: estimateRequestTokens({ messages, tools: input.tools }) };
  };
  const cut = (count: number, limits: ElideLimits) => {
    for (const turn of turns.slice(0, count)) {
      const result = elideGroup(turn.messages, limits);
      turn.messages = result.group;
      turn.elided.push(...result.elided);
    }
  };
  const drop = (floor: number, limit: number) => {
    while (turns.length > floor && measure().tokens > limit) {
      turns = turns.slice(1);
      dropped += 1;
    }
  };
  cut(Math.max(0, turns.length - keep), ELIDE);
  if (measure().tokens > threshold) drop(keep, Math.floor(threshold * HEADROOM));
  let keptWhole = Math.min(keep, turns.length);
  if (measure().tokens > threshold) {
    cut(turns.length, ELIDE);
    keptWhole = 0;
  }
  if (measure().tokens > threshold) cut(turns.length, ELIDE_HARD);
  drop(1, threshold);
  const { memory, tokens } = measure();
  if (tokens > threshold) {
    throw new AgentError(
      `the request needs about ${tokens} tokens even after compaction (system prompt, goal, memory and the newest turn cut short), ` +
        `above ${threshold} (${Math.round(input.policy.compactAt * 100)}% of agent.context_tokens ${input.policy.window}); raise agent.context_tokens or shorten the goal and system prompt`,
    );
  }
  return { conversation: turns.flatMap((t) => t.messages), memory, droppedTurns: dropped, tokens, elided: turns.flatMap((t) => t.elided), keptWhole };
}

/** The event data of a compaction: sizes before and after, and what was elided (the first {@link MAX_LISTED} entries). */
export function compactionEvent(turn: number, before: number, result: CompactionResult, policy: ContextPolicy, droppedBefore: number): ContextCompacted {
  return {
    turn,
    before_tokens: before,
    after_tokens: result.tokens,
    window_tokens: policy.window,
    threshold_tokens: thresholdTokens(policy),
    kept_turns: result.keptWhole,
    dropped_turns: result.droppedTurns - droppedBefore,
    elided_count: result.elided.length,
    elided: result.elided.slice(0, MAX_LISTED),
  };
}

/** `agent.context_tokens`, `agent.compact_at`, `agent.keep_turns` as given (any may be absent). */
export interface ContextSettings {
  context_tokens?: number;
  compact_at?: number;
  keep_turns?: number;
}

/** The context policy of `model`: what the settings give, the rest from the defaults. */
export function contextPolicyFor(model: string, settings: ContextSettings = {}): ContextPolicy {
  return {
    window: settings.context_tokens ?? defaultContextTokens(model),
    compactAt: settings.compact_at ?? DEFAULT_COMPACT_AT,
    keepTurns: settings.keep_turns ?? DEFAULT_KEEP_TURNS,
  };
}

/** What the memory message of a compacted conversation is built from. */
export interface MemorySources {
  checkpoint?: CheckpointRecord | null;
  revisions?: readonly GoalRevision[];
}

/**
 * The memory message sent after the goal once a conversation has been compacted: that it
 * was, and the goal's revisions (the directives, oldest first). The execution memory of the
 * last checkpoint is in every request already (after the goal), compacted or not.
 */
export function memoryMessage(sources: MemorySources, droppedTurns: number): Message {
  const lines = [
    droppedTurns > 0
      ? `loopdeck compacted this conversation to fit the context window: ${droppedTurns} earlier turn(s) were left out and older tool outputs cut to their first and last lines.`
      : 'loopdeck compacted this conversation to fit the context window: older tool outputs were cut to their first and last lines.',
  ];
  const revisions = sources.revisions ?? [];
  if (revisions.length > 0) {
    lines.push('The operator revised the goal (oldest first; the goal above is the current one):');
    for (const r of revisions.slice(-MEMORY_REVISIONS)) lines.push(`- ${r.directive}: ${elideMiddle(r.text, ELIDE_HARD).text}`);
  }
  // The execution memory of the last checkpoint is not repeated here: every request carries it after the goal.
  return { role: 'user', content: lines.join('\n') };
}

/** Revisions the memory message lists, at most (the newest). */
const MEMORY_REVISIONS = 10;

/**
 * Keeps one agent's conversation within its context window. Before each request,
 * {@link prepare} measures the request; past the threshold it compacts the conversation in
 * place ({@link compactConversation}) and reports a `context.compacted` event through the
 * turn's `onCompacted`. From then on every request carries the memory message after the goal.
 */
export class ContextKeeper {
  private dropped = 0;
  private compacted = false;
  /** Estimated tokens of the last request prepared; `null` before the first. */
  private last: number | null = null;

  constructor(readonly policy: ContextPolicy) {}

  /**
   * The messages of the next request: `head` (system prompt and goal), the memory message
   * once compacted, and `conversation`, which is compacted in place first when needed.
   * @throws AgentError when the request cannot be brought under the threshold
   */
  prepare(head: readonly Message[], conversation: Message[], context: AgentContext, tools: readonly unknown[]): Message[] {
    const memory = (dropped: number) => memoryMessage(context, dropped);
    const build = () => [...head, ...(this.compacted ? [memoryMessage(context, this.dropped)] : []), ...conversation];
    let messages = build();
    const before = estimateRequestTokens({ messages, tools });
    if (before > thresholdTokens(this.policy)) {
      const droppedBefore = this.dropped;
      const result = compactConversation(conversation, { head, memory, tools, policy: this.policy, droppedBefore });
      conversation.splice(0, conversation.length, ...result.conversation);
      this.dropped = result.droppedTurns;
      this.compacted = true;
      messages = build();
      context.onCompacted?.(compactionEvent(context.turn, before, result, this.policy, droppedBefore));
    }
    this.last = estimateRequestTokens({ messages, tools });
    return messages;
  }

  /** The last request's estimate and the window, for `AgentTurn.context`; `{}` before any request. */
  report(): { context?: { tokens: number; window: number } } {
    return this.last === null ? {} : { context: { tokens: this.last, window: this.policy.window } };
  }
}
