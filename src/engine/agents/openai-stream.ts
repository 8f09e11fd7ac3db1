/**
 * Merging a streamed chat-completions response (`chat.completion.chunk` deltas) into one
 * response, the way the protocol means it, for servers that follow it loosely.
 *
 * The `openai` package has its own accumulator (`ChatCompletionStream`, used by
 * `client.chat.completions.stream()`); loopdeck follows its rules (the function name is
 * *set* by a delta, not appended; `id` is set; arguments fragments are appended) but does
 * not use it, because on the servers loopdeck meets it goes wrong where this module must
 * not:
 * - it merges every delta at the same `index` into one call, so a gateway that sends all
 *   parallel calls at `index: 0` (with different ids or names) loses all but one;
 * - it appends `arguments` with `+=`, so a server that sends them as a JSON object yields
 *   `"[object Object]"`;
 * - it copies unknown delta fields with `Object.assign`, so `reasoning_content` keeps only
 *   its last fragment;
 * - its final snapshot throws on a call without an id or a choice without `finish_reason`
 *   (both normal on Ollama and llama.cpp), and it has no notion of a truncated stream.
 *
 * Chunks are read as untrusted JSON: every field is checked before use.
 */
import type { TokenUsage } from '../types.js';

/** One tool call as the server streamed it. */
export interface StreamedCall {
  /** The server's `id` for it: possibly empty, possibly shared with another call. */
  serverId: string;
  name: string;
  /** The arguments as JSON text (an object sent as an object is serialised). */
  arguments: string;
}

/** Where the server put its reasoning, so it can be sent back under the same field. */
export type ReasoningField = 'reasoning_content' | 'reasoning';

/** The merged response of one streamed request. */
export interface StreamedResponse {
  /** Visible text, with `<think>…</think>` blocks moved to `reasoning`. */
  text: string;
  /** Reasoning the server reported (`reasoning_content`, `reasoning`, `<think>` blocks). */
  reasoning: string;
  /** The delta field reasoning came in; `null` when none did (or only `<think>` tags). */
  reasoningField: ReasoningField | null;
  calls: StreamedCall[];
  /** `null` when the server reported no usage at all. */
  usage: TokenUsage | null;
  /** The last `finish_reason` of choice 0; `null` when the server sent none. */
  finishReason: string | null;
}

/** What one chunk added, for showing as it streams. */
export interface StreamPiece {
  text: string;
  reasoning: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A token count as reported: a non-negative integer, else `undefined` (missing is not zero). */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** `arguments` of a delta as text: strings as sent, objects and arrays serialised. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}

/** Whether `text` is a whole JSON object (cheap check first: it must end with `}`). */
function isWholeObject(text: string): boolean {
  if (!text.trimEnd().endsWith('}')) return false;
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

/**
 * Token usage from a `usage` object: `prompt_tokens` and `completion_tokens`, with the
 * parts servers report inside them: cached input (`prompt_tokens_details.cached_tokens`,
 * or DeepSeek's `prompt_cache_hit_tokens`) and reasoning output
 * (`completion_tokens_details.reasoning_tokens`). The parts are kept as parts: clamped to
 * their totals, never added to them. `null` when the totals are missing.
 */
export function usageOf(raw: unknown): TokenUsage | null {
  if (!isObject(raw)) return null;
  const input = tokenCount(raw.prompt_tokens);
  const output = tokenCount(raw.completion_tokens);
  if (input === undefined && output === undefined) return null;
  const usage: TokenUsage = { input_tokens: input ?? 0, output_tokens: output ?? 0 };
  const promptDetails = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const cached = tokenCount(promptDetails.cached_tokens) ?? tokenCount(raw.prompt_cache_hit_tokens);
  if (cached !== undefined && cached > 0) usage.cached_input_tokens = Math.min(cached, usage.input_tokens);
  const completionDetails = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const reasoning = tokenCount(completionDetails.reasoning_tokens);
  if (reasoning !== undefined && reasoning > 0) usage.reasoning_tokens = Math.min(reasoning, usage.output_tokens);
  return usage;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Splits streamed content into visible text and `<think>…</think>` reasoning, across
 * chunk boundaries (a tag cut in two is held back until the next piece decides it).
 */
export class ThinkSplitter {
  private inside = false;
  private carry = '';

  push(piece: string): StreamPiece {
    const out: StreamPiece = { text: '', reasoning: '' };
    let rest = this.carry + piece;
    this.carry = '';
    for (;;) {
      const tag = this.inside ? CLOSE : OPEN;
      const at = rest.indexOf(tag);
      if (at >= 0) {
        this.emit(out, rest.slice(0, at));
        rest = rest.slice(at + tag.length);
        this.inside = !this.inside;
        continue;
      }
      let keep = Math.min(tag.length - 1, rest.length);
      while (keep > 0 && !tag.startsWith(rest.slice(rest.length - keep))) keep -= 1;
      this.emit(out, rest.slice(0, rest.length - keep));
      this.carry = rest.slice(rest.length - keep);
      return out;
    }
  }

  /** What is held back at the end of the stream. */
  flush(): StreamPiece {
    const out: StreamPiece = { text: '', reasoning: '' };
    this.emit(out, this.carry);
    this.carry = '';
    return out;
  }

  private emit(out: StreamPiece, text: string): void {
    if (this.inside) out.reasoning += text;
    else out.text += text;
  }
}

interface Slot extends StreamedCall {
  index: number | null;
}

/**
 * Accumulates the chunks of one streamed response. Tool-call deltas are merged by
 * `index` (by `id` when a server sends none, else onto the last call), except that a delta
 * starts a new call when it collides with an existing one but cannot belong to it: a
 * different non-empty `id`, a different name, or new arguments after the call's arguments
 * already form a whole JSON object (a new call's first delta carries a name or an id).
 */
export class StreamAccumulator {
  private text = '';
  private reasoning = '';
  private reasoningField: ReasoningField | null = null;
  private readonly calls: Slot[] = [];
  private usage: TokenUsage | null = null;
  private finishReason: string | null = null;
  private readonly think = new ThinkSplitter();

  /** Adds one chunk; returns the text and reasoning it added (for the console). */
  push(chunk: unknown): StreamPiece {
    const added: StreamPiece = { text: '', reasoning: '' };
    if (!isObject(chunk)) return added;
    if (chunk.usage !== undefined) this.usage = usageOf(chunk.usage) ?? this.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((c) => isObject(c) && (c.index === undefined || c.index === 0));
    if (!isObject(choice)) return added;
    if (typeof choice.finish_reason === 'string' && choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : null;
    if (!delta) return added;
    for (const field of ['reasoning_content', 'reasoning'] as const) {
      const piece = str(delta[field]);
      if (!piece) continue;
      this.reasoningField ??= field;
      added.reasoning += piece;
    }
    const content = str(delta.content) || str(delta.refusal);
    if (content) {
      const split = this.think.push(content);
      added.text += split.text;
      added.reasoning += split.reasoning;
    }
    this.text += added.text;
    this.reasoning += added.reasoning;
    const parts = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
    parts.forEach((part, i) => {
      if (isObject(part)) this.mergeCall(part, Array.isArray(delta.tool_calls) && parts.length > 1 ? i : null);
    });
    return added;
  }

  /** The merged response; call once, after the last chunk. */
  result(): StreamedResponse {
    const rest = this.think.flush();
    this.text += rest.text;
    this.reasoning += rest.reasoning;
    return {
      text: this.text,
      reasoning: this.reasoning,
      reasoningField: this.reasoningField,
      calls: this.calls.map(({ serverId, name, arguments: args }) => ({ serverId, name, arguments: args })),
      usage: this.usage,
      finishReason: this.finishReason,
    };
  }

  /**
   * @param position the part's place in a delta that carries several parts: used as its
   *   index when the server gave none (several calls in one delta are several calls)
   */
  private mergeCall(part: Json, position: number | null): void {
    const index = tokenCount(part.index) ?? null;
    const id = str(part.id);
    const fn = isObject(part.function) ? part.function : {};
    const name = str(fn.name);
    const args = argumentsText(fn.arguments);
    let slot = this.slotFor(index, id, position);
    if (!slot || this.startsNew(slot, id, name, args)) {
      slot = { index: index ?? position, serverId: '', name: '', arguments: '' };
      this.calls.push(slot);
    }
    if (id) slot.serverId = id;
    if (name) slot.name = name;
    slot.arguments += args;
  }

  private slotFor(index: number | null, id: string, position: number | null): Slot | undefined {
    const key = index ?? position;
    if (key !== null) return this.calls.findLast((c) => c.index === key);
    if (id) return this.calls.findLast((c) => c.serverId === id);
    return this.calls.at(-1);
  }

  private startsNew(slot: Slot, id: string, name: string, args: string): boolean {
    if (id && slot.serverId && id !== slot.serverId) return true;
    if (name && slot.name && name !== slot.name) return true;
    return args !== '' && (name !== '' || id !== '') && isWholeObject(slot.arguments);
  }
}

/** What the filter saw of one event stream. */
export interface StreamMarks {
  /** The server sent `data: [DONE]`: the stream ended as the protocol says. */
  done: boolean;
}

/**
 * The body of an event stream, passed through line by line with two changes: a keep-alive
 * comment sent as a data line (`data: : ping`, which the SSE parser would hand to
 * `JSON.parse`) is dropped, and `data: [DONE]` is noted in `marks` (the SDK ends the
 * iteration the same way whether it came or the connection just closed). `onBytes` is
 * called for every piece received, keep-alive lines included (the server is there).
 */
export function filterEventStream(body: ReadableStream<Uint8Array>, marks: StreamMarks, onBytes?: () => void): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let rest = '';
  const keep = (line: string): boolean => {
    if (/^data:[ \t]*:/.test(line)) return false;
    if (/^data:[ \t]*\[DONE\]/.test(line)) marks.done = true;
    return true;
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onBytes?.();
        rest += decoder.decode(chunk, { stream: true });
        const lines = rest.split('\n');
        rest = lines.pop() ?? '';
        const kept = lines.filter(keep);
        if (kept.length > 0) controller.enqueue(encoder.encode(kept.map((line) => `${line}\n`).join('')));
      },
      flush(controller) {
        rest += decoder.decode();
        if (rest && keep(rest)) controller.enqueue(encoder.encode(rest));
      },
    }),
  );
}
