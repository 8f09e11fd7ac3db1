/**
 * The `openai` agent: a model behind any OpenAI-compatible chat-completions endpoint
 * (OpenAI, Ollama, vLLM, LM Studio, OpenRouter), driven through the official SDK with
 * native tool calling.
 *
 * How a turn is decided (see {@link OpenAIAgent}):
 * - a response that calls at least one of loopdeck's tools is a tool turn;
 * - a response with no tool call at all (not even `report_progress`) and non-empty text
 *   is `final`: the model claims the goal is met, and the verifier decides;
 * - a response that only calls `report_progress` is acknowledged and the model is asked
 *   again within the same turn (a report does not act on the workspace);
 * - a response that is not valid (arguments that are not JSON or fail the tool's schema,
 *   an unknown tool, nothing at all) is recorded in `thought` and handed back to the model
 *   once; a second invalid response in the same turn is an {@link AgentError}.
 */
import OpenAI, { APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { AgentError, ConfigError, ConfigErrors, describeError } from '../errors.js';
import { envValue } from '../secrets.js';
import { renderGoalForAgent } from '../goal.js';
import { clampTimerMs } from '../timer.js';
import type { AgentTurn, Goal, ReportedClaims, TokenUsage, ToolCall } from '../types.js';
import { mergeReports } from '../reported.js';
import { HARNESS_TOOL_ARGS } from '../tool-args.js';
import type { Agent, AgentContext, AgentMessage } from './agent.js';
import { ContextKeeper, contextPolicyFor, type ContextSettings } from './context.js';

/** Name of the tool through which the model files its reported claims. Not a harness tool. */
export const REPORT_TOOL = 'report_progress';

const nonEmpty = z.string().min(1);

/**
 * Argument schemas of the tools the model may call: the harness's own tools (one source,
 * tool-args.ts, also used by the tools to check their arguments) and `report_progress`.
 */
export const TOOL_ARG_SCHEMAS = {
  ...HARNESS_TOOL_ARGS,
  [REPORT_TOOL]: z
    .strictObject({
      new_evidence: z
        .array(
          z.strictObject({
            claim: nonEmpty.describe('What you found out.'),
            evidence_ref: nonEmpty.describe('What backs it, as the harness can see it (e.g. a test name).'),
          }),
        )
        .optional()
        .describe('New facts established since your last report.'),
      eliminated_hypotheses: z.array(z.string()).optional().describe('Explanations you ruled out.'),
      remaining_hypotheses: z.array(z.string()).optional().describe('Explanations still open.'),
    })
    .describe(
      'Report progress: evidence found and hypotheses eliminated or remaining. Not an action on the workspace; ' +
        'loopdeck records it and compares it with what it observes itself.',
    ),
} as const;

type ToolName = keyof typeof TOOL_ARG_SCHEMAS;

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, description: _description, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** The `tools` list sent with every request: loopdeck's four tools and `report_progress`. */
export const OPENAI_TOOLS: ChatCompletionFunctionTool[] = (Object.keys(TOOL_ARG_SCHEMAS) as ToolName[]).map((name) => ({
  type: 'function',
  function: {
    name,
    description: TOOL_ARG_SCHEMAS[name].description ?? name,
    parameters: jsonSchemaOf(TOOL_ARG_SCHEMAS[name]),
  },
}));

/** The default system prompt: what loopdeck asks of the model. */
export const DEFAULT_SYSTEM_PROMPT = [
  'You are a coding agent supervised by loopdeck, a harness that runs you turn by turn towards a goal.',
  'Work towards the goal by calling the tools shell, read_file, write_file and edit; paths are relative to the workspace root.',
  'Each tool result comes back to you as a tool message. The operator may deny a call or revise the goal; notes from the harness arrive as user messages.',
  `Whenever you learn something, call ${REPORT_TOOL} with new evidence (a claim and a reference the harness can check, such as a test name) and the hypotheses you eliminated or still hold.`,
  'When you believe the goal is met, answer with a final message and no tool call, summarising what you did. Loopdeck then runs its own verification: your claim alone does not end the run.',
].join('\n');

/** A retry the SDK is about to make, for the console ("retrying after 429"). */
export interface RetryInfo {
  /** 1-based number of this retry. */
  attempt: number;
  max_retries: number;
  /** HTTP status that caused it; `null` for a connection failure or timeout. */
  status: number | null;
  /** One line: `429 Too Many Requests`, `connection failed: ...`. */
  reason: string;
  /** Delay the server asked for (`retry-after-ms`, `retry-after`); `null` when the SDK picks its own backoff. */
  delay_ms: number | null;
}

/** One line for the console, e.g. `retrying after 429 Too Many Requests (retry 1 of 3, in 10 ms)`. */
export function formatRetry(info: RetryInfo): string {
  const wait = info.delay_ms === null ? '' : `, in ${Math.round(info.delay_ms)} ms`;
  return `retrying after ${info.reason} (retry ${info.attempt} of ${info.max_retries}${wait})`;
}

/** Options of {@link OpenAIAgent}. */
export interface OpenAIAgentOptions {
  model: string;
  /** Endpoint base, e.g. `http://localhost:11434/v1`. Default: `OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  /**
   * The key sent as `Authorization: Bearer <key>`. Default: `OPENAI_API_KEY`, but only to
   * the OpenAI API ({@link isOpenAIEndpoint}); another endpoint without a key gets no
   * `Authorization` header at all (local servers need none).
   */
  apiKey?: string;
  temperature?: number;
  /** Retries of 408/409/429/5xx and connection failures, with the SDK's backoff. Default 3. */
  maxRetries?: number;
  /** Replaces {@link DEFAULT_SYSTEM_PROMPT}; the goal is always sent as its own message. */
  system?: string;
  /** Called before each retry the SDK makes. */
  onRetry?: (info: RetryInfo) => void;
  /** Milliseconds before one request times out (then it is retried). SDK default: 10 minutes. */
  timeoutMs?: number;
  /** Name shown in the console. Default `openai:<model>`. */
  name?: string;
  /** The context window and when to compact (agent.context_tokens, compact_at, keep_turns); defaults per model. */
  context?: ContextSettings;
}

/** The host of the OpenAI API: the only one `OPENAI_API_KEY` is sent to unless a policy names it for another. */
export const OPENAI_API_HOST = 'api.openai.com';

/** Whether `baseURL` (absent: the SDK's default) is the OpenAI API, over https. */
export function isOpenAIEndpoint(baseURL: string | undefined): boolean {
  if (baseURL === undefined || baseURL === '') return true;
  try {
    const url = new URL(baseURL);
    return url.protocol === 'https:' && url.hostname.toLowerCase() === OPENAI_API_HOST && url.port === '';
  } catch {
    return false;
  }
}

/**
 * Which key an `openai` agent sends: the variable `apiKeyEnv` names when given (a key goes
 * where the operator said), else `OPENAI_API_KEY` when the endpoint is the OpenAI API, else
 * none. `read` looks a variable up (e.g. `envValue`).
 * @returns the key, or `undefined` when none is to be sent
 * @throws ConfigErrors (at `agent.api_key_env`) when the named variable is unset or empty
 */
export function selectApiKey(
  options: { baseURL?: string; apiKeyEnv?: string; file?: string },
  read: (name: string) => string | undefined,
): string | undefined {
  if (options.apiKeyEnv !== undefined) {
    const key = read(options.apiKeyEnv);
    if (!key) {
      const found = key === '' ? 'it is empty' : 'it is not set';
      throw new ConfigErrors([
        new ConfigError(options.file ?? 'loop.yaml', 'agent.api_key_env', `expected the environment variable ${options.apiKeyEnv} to hold the API key, found ${found}`),
      ]);
    }
    return key;
  }
  return isOpenAIEndpoint(options.baseURL) ? read('OPENAI_API_KEY') || undefined : undefined;
}

/** Times in a row within one turn that a response may only call `report_progress`. */
const MAX_REPORT_ONLY = 2;
/** Characters of an invalid response quoted back to the model. */
const QUOTE_LIMIT = 400;

interface RawCall {
  id: string;
  name: string;
  arguments: string;
}

interface RawResponse {
  text: string;
  calls: RawCall[];
  usage: TokenUsage;
}

/** SDK rule for retryable responses (`OpenAI.shouldRetry`), mirrored to report retries. */
function retryable(response: Response): boolean {
  const header = response.headers.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  return response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
}

/** Delay the server asked for, read as the SDK reads it (`OpenAI.retryRequest`). */
function requestedDelay(headers: Headers): number | null {
  const ms = parseFloat(headers.get('retry-after-ms') ?? '');
  if (!Number.isNaN(ms)) return ms;
  const after = headers.get('retry-after');
  if (!after) return null;
  const seconds = parseFloat(after);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function quote(text: string): string {
  return text.length <= QUOTE_LIMIT ? text : `${text.slice(0, QUOTE_LIMIT)}... (${text.length} characters)`;
}

function renderToolResult(entry: Extract<AgentMessage, { role: 'tool' }>): string {
  return `status: ${entry.status}\n${entry.content}`;
}

/**
 * An agent backed by a chat-completions model with native tool calling.
 *
 * It keeps its own message list: the system prompt, the goal (rendered again for every
 * request, so a revision between turns is what the model reads), then the conversation.
 * Entries of `context.history` it has not sent yet become `tool` messages (results of its
 * own pending calls, matched by `tool_call_id`) followed by one `user` message of harness
 * notes; a pending call with no result gets a placeholder so the conversation stays valid.
 *
 * Text deltas go to `context.onText` as they stream; usage from the final chunk becomes
 * `AgentTurn.usage` (summed over the requests of the turn). `context.signal` aborts the
 * request. One instance serves one run (one lap): history must only grow.
 *
 * Turn rule: a response calling harness tools is a tool turn (its text is the `thought`);
 * a response with text and no tool call at all is `final`; see the module comment for
 * `report_progress`-only and invalid responses.
 */
export class OpenAIAgent implements Agent {
  readonly name: string;
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly temperature?: number;
  private readonly system: string;
  private readonly maxRetries: number;
  private readonly onRetry?: (info: RetryInfo) => void;
  /** The conversation after the system prompt and the goal message. */
  private readonly conversation: ChatCompletionMessageParam[] = [];
  /** History entries already turned into messages. */
  private historySent = 0;
  /** Harness tool calls of the last assistant message still waiting for a result. */
  private pending: string[] = [];
  private signal?: AbortSignal;
  /** False when no key was given: requests then carry no `Authorization` header. */
  private readonly sendsKey: boolean;
  /** Measures each request and compacts the conversation to fit the context window. */
  private readonly window: ContextKeeper;

  /** @throws AgentError when no API key is given for the default (OpenAI) endpoint */
  constructor(options: OpenAIAgentOptions) {
    this.model = options.model;
    this.name = options.name ?? `openai:${options.model}`;
    this.temperature = options.temperature;
    this.system = options.system ?? DEFAULT_SYSTEM_PROMPT;
    this.maxRetries = options.maxRetries ?? 3;
    this.onRetry = options.onRetry;
    this.window = new ContextKeeper(contextPolicyFor(options.model, options.context));
    const baseURL = options.baseURL ?? (process.env.OPENAI_BASE_URL || undefined);
    const apiKey = options.apiKey ?? selectApiKey(baseURL === undefined ? {} : { baseURL }, envValue);
    if (!apiKey && isOpenAIEndpoint(baseURL)) {
      throw new AgentError(`${this.name}: no API key: set OPENAI_API_KEY or name the variable holding it in agent.api_key_env of loop.yaml`);
    }
    this.sendsKey = Boolean(apiKey);
    this.client = new OpenAI({
      // The SDK requires a key; a placeholder is never sent (see fetchReportingRetries).
      apiKey: apiKey || 'no-key',
      ...(baseURL ? { baseURL } : {}),
      maxRetries: this.maxRetries,
      ...(options.timeoutMs !== undefined ? { timeout: clampTimerMs(options.timeoutMs) } : {}),
      fetch: (input, init) => this.fetchReportingRetries(input, init),
    });
  }

  async nextTurn(context: AgentContext): Promise<AgentTurn> {
    this.syncHistory(context.history);
    this.signal = context.signal;
    const usage: TokenUsage = { input_tokens: 0, output_tokens: 0 };
    const thoughts: string[] = [];
    const reports: Partial<ReportedClaims>[] = [];
    let rejection: string | null = null;
    let reportOnly = 0;
    for (;;) {
      const response = await this.request(context);
      usage.input_tokens += response.usage.input_tokens;
      usage.output_tokens += response.usage.output_tokens;
      const problem = this.check(response);
      if (problem) {
        if (rejection !== null) {
          throw new AgentError(
            `${this.name}: turn ${context.turn}: a second invalid response (${problem}) after the first was handed back (${rejection})`,
          );
        }
        rejection = problem;
        thoughts.push(`[loopdeck] rejected an invalid response and asked again: ${problem}`);
        this.handBack(response);
        continue;
      }
      const harness: ToolCall[] = [];
      const reportIds: string[] = [];
      for (const call of response.calls) {
        const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
        if (call.name === REPORT_TOOL) {
          reports.push(TOOL_ARG_SCHEMAS[REPORT_TOOL].parse(args));
          reportIds.push(call.id);
        } else {
          harness.push({ id: call.id, name: call.name, args });
        }
      }
      this.conversation.push(this.assistantMessage(response, false));
      for (const id of reportIds) {
        this.conversation.push({ role: 'tool', tool_call_id: id, content: 'Progress report recorded.' });
      }
      const report = mergeReports(reports);
      if (harness.length > 0) {
        if (response.text) thoughts.push(response.text);
        this.pending = harness.map((call) => call.id);
        return this.turn(thoughts, harness, report, usage);
      }
      if (response.calls.length === 0) {
        return { ...this.turn(thoughts, [], report, usage), final: response.text };
      }
      if (response.text) thoughts.push(response.text);
      reportOnly += 1;
      if (reportOnly > MAX_REPORT_ONLY) {
        throw new AgentError(
          `${this.name}: turn ${context.turn}: ${reportOnly} responses in a row only called ${REPORT_TOOL}, neither acting nor finishing`,
        );
      }
    }
  }

  private turn(thoughts: string[], tool_calls: ToolCall[], report: Partial<ReportedClaims> | undefined, usage: TokenUsage): AgentTurn {
    return {
      ...(thoughts.length > 0 ? { thought: thoughts.join('\n') } : {}),
      tool_calls,
      ...(report ? { report } : {}),
      usage,
      ...this.window.report(),
    };
  }

  /** The messages before the conversation: the system prompt and the goal as it stands. */
  private requestHead(goal: Goal): ChatCompletionMessageParam[] {
    const revised = goal.revision > 0 ? ` (revision ${goal.revision})` : '';
    return [
      { role: 'system', content: this.system },
      { role: 'user', content: `The goal${revised}:\n${renderGoalForAgent(goal)}` },
    ];
  }

  /** Turns history entries not sent yet into messages; answers every pending call. */
  private syncHistory(history: readonly AgentMessage[]): void {
    if (history.length < this.historySent) {
      throw new AgentError(
        `${this.name}: the history shrank from ${this.historySent} to ${history.length} entries; an agent serves one run (lap)`,
      );
    }
    const fresh = history.slice(this.historySent);
    this.historySent = history.length;
    const notes: string[] = [];
    for (const entry of fresh) {
      if (entry.role === 'tool' && this.pending.includes(entry.call_id)) {
        this.pending = this.pending.filter((id) => id !== entry.call_id);
        this.conversation.push({ role: 'tool', tool_call_id: entry.call_id, content: renderToolResult(entry) });
      } else if (entry.role === 'tool') {
        notes.push(`Result of ${entry.name} (call ${entry.call_id}):\n${renderToolResult(entry)}`);
      } else {
        notes.push(entry.content);
      }
    }
    for (const id of this.pending) {
      this.conversation.push({ role: 'tool', tool_call_id: id, content: 'status: not run\nThe harness did not run this call.' });
    }
    this.pending = [];
    if (notes.length > 0) this.conversation.push({ role: 'user', content: `Notes from the harness:\n\n${notes.join('\n\n')}` });
  }

  /** What is wrong with a response, or `null` when every call is known and valid. */
  private check(response: RawResponse): string | null {
    if (response.calls.length === 0) return response.text.trim() ? null : 'the response had neither text nor a tool call';
    const problems = response.calls.map((call) => this.checkCall(call)).filter((p): p is string => p !== null);
    return problems.length > 0 ? problems.join('; ') : null;
  }

  private checkCall(call: RawCall): string | null {
    if (!Object.hasOwn(TOOL_ARG_SCHEMAS, call.name)) {
      return `${call.name || '(no name)'}: unknown tool (known: ${Object.keys(TOOL_ARG_SCHEMAS).join(', ')})`;
    }
    let args: unknown;
    try {
      args = JSON.parse(call.arguments || '{}');
    } catch (error) {
      return `${call.name}: arguments are not valid JSON (${describeError(error)}): ${quote(call.arguments)}`;
    }
    const parsed = TOOL_ARG_SCHEMAS[call.name as ToolName].safeParse(args);
    if (parsed.success) return null;
    const issue = parsed.error.issues[0];
    return `${call.name}: arguments do not fit the schema: ${issue?.path.join('.') || 'arguments'}: ${issue?.message}`;
  }

  /** Records a rejected response in the conversation and tells the model what was wrong. */
  private handBack(response: RawResponse): void {
    if (response.calls.length === 0) {
      if (response.text) this.conversation.push({ role: 'assistant', content: response.text });
      this.conversation.push({
        role: 'user',
        content: 'Your last response was empty. Call a tool, or answer with a final message if the goal is met.',
      });
      return;
    }
    this.conversation.push(this.assistantMessage(response, true));
    for (const call of response.calls) {
      const problem = this.checkCall(call);
      const content = problem
        ? `error: ${problem}\nNothing was run. Send a corrected call.`
        : 'error: not run, because another call of the same response was invalid. Send it again if you still need it.';
      this.conversation.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }

  /**
   * The assistant message as the model sent it. When `sanitize` is set, arguments that
   * are not JSON are replaced by `{}` (servers such as Ollama parse them and would reject
   * the whole request); the tool message quotes the original.
   */
  private assistantMessage(response: RawResponse, sanitize: boolean): ChatCompletionAssistantMessageParam {
    const message: ChatCompletionAssistantMessageParam = { role: 'assistant', content: response.text || null };
    if (response.calls.length > 0) {
      message.tool_calls = response.calls.map((call) => {
        let args = call.arguments || '{}';
        if (sanitize) {
          try {
            JSON.parse(args);
          } catch {
            args = '{}';
          }
        }
        return { id: call.id, type: 'function', function: { name: call.name, arguments: args } };
      });
    }
    return message;
  }

  /** One streamed request; text deltas go to `onText` as they arrive. */
  private async request(context: AgentContext): Promise<RawResponse> {
    const text: string[] = [];
    const calls: RawCall[] = [];
    const usage: TokenUsage = { input_tokens: 0, output_tokens: 0 };
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.model,
          messages: this.window.prepare(this.requestHead(context.goal), this.conversation, context, OPENAI_TOOLS),
          tools: OPENAI_TOOLS,
          stream: true,
          stream_options: { include_usage: true },
          ...(this.temperature !== undefined ? { temperature: this.temperature } : {}),
        },
        { signal: context.signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) {
          usage.input_tokens = chunk.usage.prompt_tokens ?? 0;
          usage.output_tokens = chunk.usage.completion_tokens ?? 0;
        }
        const delta = chunk.choices?.[0]?.delta;
        if (!delta) continue;
        const piece = delta.content ?? delta.refusal ?? '';
        if (piece) {
          text.push(piece);
          context.onText?.(piece);
        }
        for (const part of delta.tool_calls ?? []) {
          const index = part.index ?? (part.id ? calls.length : Math.max(0, calls.length - 1));
          const call = (calls[index] ??= { id: '', name: '', arguments: '' });
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name += part.function.name;
          if (part.function?.arguments) call.arguments += part.function.arguments;
        }
      }
      // The SDK ends the iteration quietly when the request is aborted mid-stream.
      if (context.signal?.aborted) throw new APIUserAbortError();
    } catch (error) {
      throw this.wrap(error, context);
    }
    const dense = calls.filter((call): call is RawCall => call !== undefined);
    dense.forEach((call, i) => {
      if (!call.id) call.id = `call_${context.turn}_${this.conversation.length}_${i}`;
    });
    return { text: text.join(''), calls: dense, usage };
  }

  private wrap(error: unknown, context: AgentContext): AgentError {
    if (error instanceof APIUserAbortError || context.signal?.aborted) {
      return new AgentError(`${this.name}: turn ${context.turn}: the request was aborted`, { cause: error });
    }
    if (error instanceof APIError && error.status !== undefined) {
      const status = error.status;
      const gaveUp = status === 408 || status === 409 || status === 429 || status >= 500;
      const retried = gaveUp && this.maxRetries > 0 ? ` (after ${this.maxRetries} retries)` : '';
      return new AgentError(`${this.name}: turn ${context.turn}: HTTP ${error.status}${retried}: ${error.message}`, { cause: error });
    }
    return new AgentError(`${this.name}: turn ${context.turn}: ${describeError(error)}`, { cause: error });
  }

  /**
   * The SDK's `fetch`, wrapped to report the retries it is about to make. The SDK marks
   * each attempt with `X-Stainless-Retry-Count`; a retryable answer below `maxRetries`
   * means another attempt follows.
   */
  private async fetchReportingRetries(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const headers = new Headers(init?.headers);
    const attempt = Number(headers.get('x-stainless-retry-count') ?? 0);
    if (!this.sendsKey) {
      headers.delete('authorization');
      init = { ...init, headers };
    }
    const report = (info: Omit<RetryInfo, 'attempt' | 'max_retries'>) => {
      if (attempt < this.maxRetries && !this.signal?.aborted) {
        this.onRetry?.({ attempt: attempt + 1, max_retries: this.maxRetries, ...info });
      }
    };
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      const timedOut = init?.signal?.aborted === true;
      report({ status: null, reason: timedOut ? 'a timeout' : `connection failed: ${describeError(error)}`, delay_ms: null });
      throw error;
    }
    if (!response.ok && retryable(response)) {
      const reason = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
      report({ status: response.status, reason, delay_ms: requestedDelay(response.headers) });
    }
    return response;
  }
}
