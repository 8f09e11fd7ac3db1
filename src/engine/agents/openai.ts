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
 *   once; a second invalid response in the same turn is an {@link AgentError}. A response
 *   cut off at the output limit (`finish_reason: "length"`) is such a response: none of its
 *   calls run, whole or not.
 *
 * Identity: every call gets loopdeck's own id, `t<turn>.<index>` ({@link loopdeckCallId}),
 * used everywhere in the engine and the log. The server's `id` is only used to answer the
 * server, and only when it is usable: a missing id or one repeated within the response is
 * replaced by a unique one in the conversation loopdeck sends back.
 *
 * Streams are merged by `openai-stream.ts`; error bodies are read by `openai-errors.ts`;
 * the time limits of a request (`request_timeout`, `stream_idle_timeout`,
 * `max_retry_wait`) and the waits before retries are `openai-wait.ts`'s.
 */
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { Logger } from 'openai/client';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { AgentError, ConfigError, ConfigErrors, describeError } from '../errors.js';
import { withSpent, zeroUsage, type SpentUsage } from '../unmeasured-usage.js';
import { envValue } from '../secrets.js';
import { renderGoalForAgent } from '../goal.js';
import { clampTimerMs } from '../timer.js';
import type { AgentTurn, Goal, ReportedClaims, TokenUsage, ToolCall } from '../types.js';
import { mergeReports } from '../reported.js';
import { HARNESS_TOOL_ARGS } from '../tool-args.js';
import { TurnInterrupted, type Agent, type AgentContext, type AgentMessage, type AssessAnswer, type AssessContext } from './agent.js';
import { ContextKeeper, contextPolicyFor, type ContextSettings } from './context.js';
import { errorBodyText, errorObjectText, explain } from './openai-errors.js';
import { filterEventStream, StreamAccumulator, type StreamedCall, type StreamedResponse, type StreamMarks } from './openai-stream.js';
import { DEFAULT_LIMITS, RequestWatch, requestedDelay, retryDelay, formatWait, waitBeforeRetry, WaitInterrupted, type ModelWait, type RequestLimits } from './openai-wait.js';

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
  /** Delay the server asked for (`retry-after-ms`, `retry-after`), capped by `max_retry_wait`; `null` when loopdeck picks its own backoff. */
  delay_ms: number | null;
  /** What the server asked for when it was more than `max_retry_wait` (which was waited instead), ms. */
  asked_ms?: number;
}

/** One line for the console, e.g. `retrying after 429 Too Many Requests (retry 1 of 3, in 10 ms)`. */
export function formatRetry(info: RetryInfo): string {
  const capped = info.asked_ms === undefined ? '' : `: Retry-After asked for ${formatWait(info.asked_ms)}, capped by agent.max_retry_wait`;
  const wait = info.delay_ms === null ? '' : `, in ${Math.round(info.delay_ms)} ms${capped}`;
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
  /** Retries of 408/409/429/5xx, connection failures, timeouts and broken streams. Default 3. */
  maxRetries?: number;
  /** Replaces {@link DEFAULT_SYSTEM_PROMPT}; the goal is always sent as its own message. */
  system?: string;
  /** Called before each retry (the SDK's, and loopdeck's of a stream that broke off). */
  onRetry?: (info: RetryInfo) => void;
  /** Other things the operator should know (a truncated answer, the SDK's warnings). */
  onNotice?: (text: string) => void;
  /** Sent as `max_tokens`: the longest answer, in tokens. Default: the server's. */
  maxTokens?: number;
  /** First delay before a retry the server gave no `Retry-After` for, doubled each time (at most 8 s). Default 250. */
  streamRetryDelayMs?: number;
  /**
   * Time limits of a request, ms ({@link RequestLimits}): the whole request with its retries
   * (`agent.request_timeout`, default 10 min), silence while waiting for bytes
   * (`agent.stream_idle_timeout`, 2 min), and the longest wait before a retry
   * (`agent.max_retry_wait`, 1 min).
   */
  limits?: Partial<RequestLimits>;
  /** Name shown in the console. Default `openai:<model>`. */
  name?: string;
  /** The context window and when to compact (agent.context_tokens, compact_at, keep_turns); defaults per model. */
  context?: ContextSettings;
}

/** The host of the OpenAI API: the only one `OPENAI_API_KEY` is sent to unless a policy names it for another. */
export const OPENAI_API_HOST = 'api.openai.com';

/** The message of the deepest `cause` of a connection failure (`connect ECONNREFUSED 127.0.0.1:11434`, not the SDK's `Connection error.`). */
function innermostCause(error: Error): string {
  let inner: unknown = error;
  for (let depth = 0; depth < 8 && inner instanceof Error && inner.cause instanceof Error; depth++) inner = inner.cause;
  return describeError(inner);
}

/** What to check when the model server at `url` cannot be reached: a local Ollama is started and given the model; any other server is named in loop.yaml. */
function unreachableHint(url: string, model: string): string {
  const port = URL.canParse(url) ? new URL(url).port : '';
  if (port === '11434') return `is Ollama running here? Start it (ollama serve), fetch the model (ollama pull ${model}), or set agent.base_url in loop.yaml`;
  return 'is the server running, and is agent.base_url in loop.yaml its address?';
}

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
/** Characters of an error body kept to explain a failed request. */
const ERROR_BODY_LIMIT = 8_000;

/**
 * loopdeck's id of the `index`-th (0-based) harness tool call of run turn `turn`, e.g.
 * `t3.0`: unique within a run however the server numbers its calls.
 */
export function loopdeckCallId(turn: number, index: number): string {
  return `t${turn}.${index}`;
}

/** A streamed call with the id loopdeck answers it under in the conversation. */
interface Call extends StreamedCall {
  answerId: string;
}

interface ModelResponse extends Omit<StreamedResponse, 'calls'> {
  calls: Call[];
}

/** A failed attempt a retry may mend: the error, in words, its status and the delay the server asked for (ms). */
interface RetryableFailure {
  error: unknown;
  reason: string;
  status: number | null;
  asked: number | null;
}

/** A failure of a request whose stream had already begun, and whether a retry may help. */
class StreamFailure extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

function quote(text: string): string {
  return text.length <= QUOTE_LIMIT ? text : `${text.slice(0, QUOTE_LIMIT)}... (${text.length} characters)`;
}

function renderToolResult(entry: Extract<AgentMessage, { role: 'tool' }>): string {
  return `status: ${entry.status}\n${entry.content}`;
}

/**
 * Ids to answer `calls` under in the conversation sent back: the server's own id when it
 * is non-empty and not used by an earlier call of the same response, else a new one
 * (`call_<turn>_<n>`, made unique). Servers match tool results to calls by these ids.
 */
function answerIds(calls: readonly StreamedCall[], turn: number): string[] {
  const used = new Set<string>();
  const ids = calls.map((call) => {
    const own = call.serverId && !used.has(call.serverId) ? call.serverId : '';
    used.add(call.serverId);
    return own;
  });
  return ids.map((id, i) => {
    if (id) return id;
    let fresh = `call_${turn}_${i}`;
    while (used.has(fresh)) fresh = `${fresh}x`;
    used.add(fresh);
    return fresh;
  });
}

/** An assistant message as sent back, with the reasoning field servers such as DeepSeek require. */
type AssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_content?: string; reasoning?: string };

/**
 * An agent backed by a chat-completions model with native tool calling.
 *
 * It keeps its own message list: the system prompt, the goal (rendered again for every
 * request, so a revision between turns is what the model reads), then the conversation.
 * Entries of `context.history` it has not sent yet become `tool` messages (results of its
 * own pending calls, matched by loopdeck's call id and answered under the id the server
 * gave) followed by one `user` message of harness notes; a pending call with no result gets
 * a placeholder so the conversation stays valid.
 *
 * Text deltas go to `context.onText` as they stream; usage from the final chunk becomes
 * `AgentTurn.usage` (summed over the requests of the turn); reasoning becomes
 * `AgentTurn.reasoning` and is sent back with its assistant message. `context.signal`
 * aborts the request. One instance serves one run (one lap): history must only grow.
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
  private readonly maxTokens?: number;
  private readonly system: string;
  private readonly maxRetries: number;
  private readonly streamRetryDelayMs: number;
  private readonly onRetry?: (info: RetryInfo) => void;
  private readonly onNotice?: (text: string) => void;
  /** The conversation after the system prompt and the goal message. */
  private readonly conversation: ChatCompletionMessageParam[] = [];
  /** History entries already turned into messages. */
  private historySent = 0;
  /** Harness tool calls of the last assistant message still waiting for a result. */
  private pending: Array<{ id: string; answerId: string }> = [];
  /** False when no key was given: requests then carry no `Authorization` header. */
  private readonly sendsKey: boolean;
  /** Measures each request and compacts the conversation to fit the context window. */
  private readonly window: ContextKeeper;
  /** The body of the last failed HTTP response, to explain the SDK's error. */
  private lastErrorBody: { status: number; statusText: string; text: string } | null = null;
  /** Time limits of a request. */
  private readonly limits: RequestLimits;
  /** The watch of the attempt in flight: the fetch wrapper tells it when bytes arrive. */
  private watch: RequestWatch | null = null;
  /** What the stream filter saw of the current response. */
  private marks: StreamMarks = { done: false };
  /** The SDK's recent error lines (it reports unparsable stream lines there). */
  private sdkErrors: string[] = [];
  private usageMissingNoted = false;
  /** What the requests of the current turn reported, failed ones included. */
  private spent: SpentUsage = { usage: zeroUsage(), unreported: [] };

  /** @throws AgentError when no API key is given for the default (OpenAI) endpoint */
  constructor(options: OpenAIAgentOptions) {
    this.model = options.model;
    this.name = options.name ?? `openai:${options.model}`;
    this.temperature = options.temperature;
    this.maxTokens = options.maxTokens;
    this.system = options.system ?? DEFAULT_SYSTEM_PROMPT;
    this.maxRetries = options.maxRetries ?? 3;
    this.streamRetryDelayMs = options.streamRetryDelayMs ?? 250;
    this.onRetry = options.onRetry;
    this.limits = { ...DEFAULT_LIMITS };
    for (const [key, value] of Object.entries(options.limits ?? {}) as Array<[keyof RequestLimits, number | undefined]>) {
      if (value !== undefined) this.limits[key] = clampTimerMs(value);
    }
    this.window = new ContextKeeper(contextPolicyFor(options.model, options.context));
    this.onNotice = options.onNotice;
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
      // Retries are loopdeck's own (request()): the SDK's waits can be neither capped nor interrupted.
      maxRetries: 0,
      timeout: this.limits.requestMs,
      fetch: (input, init) => this.fetchFiltered(input, init),
      // Never the console: it would print over the terminal UI. OPENAI_LOG is not obeyed.
      logger: this.sdkLogger(),
      logLevel: 'warn',
    });
  }

  /**
   * One turn: requests until a valid response. What every request of the turn reported is
   * summed, whether or not the turn succeeds: a failing turn's error carries it
   * ({@link withSpent}), and a request with no usage makes the turn `usage_unreported`.
   */
  async nextTurn(context: AgentContext): Promise<AgentTurn> {
    this.spent = { usage: zeroUsage(), unreported: [] };
    try {
      const turn = await this.answer(context);
      return this.spent.unreported.length > 0 ? { ...turn, usage_unreported: true } : turn;
    } catch (error) {
      throw withSpent(error, this.spent);
    }
  }

  private async answer(context: AgentContext): Promise<AgentTurn> {
    this.syncHistory(context.history);
    const usage = this.spent.usage;
    const thoughts: string[] = [];
    const reasoning: string[] = [];
    const reports: Partial<ReportedClaims>[] = [];
    let rejection: string | null = null;
    let reportOnly = 0;
    for (;;) {
      const response = await this.request(context);
      if (response.reasoning.trim()) reasoning.push(response.reasoning.trim());
      const problem = this.check(response);
      if (problem) {
        if (rejection !== null) {
          throw new AgentError(
            `${this.name}: turn ${context.turn}: a second invalid response (${problem}) after the first was handed back (${rejection})${this.truncationHint(response)}`,
          );
        }
        rejection = problem;
        thoughts.push(`[loopdeck] rejected an invalid response and asked again: ${problem}`);
        if (response.finishReason === 'length') this.onNotice?.(`the model's answer was cut off at its output limit; nothing in it was run${this.truncationHint(response)}`);
        this.handBack(response, problem);
        continue;
      }
      const harness: ToolCall[] = [];
      this.conversation.push(this.assistantMessage(response, false));
      for (const call of response.calls) {
        const args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
        if (call.name === REPORT_TOOL) {
          reports.push(TOOL_ARG_SCHEMAS[REPORT_TOOL].parse(args));
          this.conversation.push({ role: 'tool', tool_call_id: call.answerId, content: 'Progress report recorded.' });
        } else {
          const id = loopdeckCallId(context.turn, harness.length);
          harness.push({ id, name: call.name, args });
          this.pending.push({ id, answerId: call.answerId });
        }
      }
      const report = mergeReports(reports);
      const turn = (final?: string) => this.turn(thoughts, reasoning, harness, report, usage, final);
      if (harness.length > 0) {
        if (response.text) thoughts.push(response.text);
        return turn();
      }
      if (response.calls.length === 0) return turn(response.text);
      if (response.text) thoughts.push(response.text);
      reportOnly += 1;
      if (reportOnly > MAX_REPORT_ONLY) {
        throw new AgentError(
          `${this.name}: turn ${context.turn}: ${reportOnly} responses in a row only called ${REPORT_TOOL}, neither acting nor finishing`,
        );
      }
    }
  }

  private turn(
    thoughts: string[],
    reasoning: string[],
    tool_calls: ToolCall[],
    report: Partial<ReportedClaims> | undefined,
    usage: TokenUsage,
    final?: string,
  ): AgentTurn {
    return {
      ...(thoughts.length > 0 ? { thought: thoughts.join('\n') } : {}),
      ...(reasoning.length > 0 ? { reasoning: reasoning.join('\n\n') } : {}),
      tool_calls,
      ...(report ? { report } : {}),
      usage,
      ...(final !== undefined ? { final } : {}),
      ...this.window.report(),
    };
  }

  /**
   * The messages before the conversation: the system prompt, the goal as it stands and the
   * execution memory of the last checkpoint (replaced at each checkpoint, never accumulated).
   */
  private requestHead(context: Pick<AgentContext, 'goal' | 'memory'>): ChatCompletionMessageParam[] {
    const goal = context.goal;
    const revised = goal.revision > 0 ? ` (revision ${goal.revision})` : '';
    return [
      { role: 'system', content: this.system },
      { role: 'user', content: `The goal${revised}:\n${renderGoalForAgent(goal)}` },
      ...(context.memory ? [{ role: 'user' as const, content: context.memory }] : []),
    ];
  }

  /**
   * `progress.assess`: one request with the system prompt, the goal, the memory and the
   * assessment request (no tools, no conversation: nothing of it joins the conversation).
   * Its text is the answer, parsed by the engine; its usage is summed as a turn's is.
   * @throws AgentError when the request fails (with what it spent)
   */
  async assess(context: AssessContext): Promise<AssessAnswer> {
    this.spent = { usage: zeroUsage(), unreported: [] };
    try {
      const response = await this.request(context, [...this.requestHead(context), { role: 'user', content: context.prompt }]);
      return { answer: response.text, usage: this.spent.usage, ...(this.spent.unreported.length > 0 ? { usage_unreported: true } : {}) };
    } catch (error) {
      throw withSpent(error, this.spent);
    }
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
      const pending = entry.role === 'tool' ? this.pending.find((p) => p.id === entry.call_id) : undefined;
      if (entry.role === 'tool' && pending) {
        this.pending = this.pending.filter((p) => p !== pending);
        this.conversation.push({ role: 'tool', tool_call_id: pending.answerId, content: renderToolResult(entry) });
      } else if (entry.role === 'tool') {
        notes.push(`Result of ${entry.name} (call ${entry.call_id}):\n${renderToolResult(entry)}`);
      } else {
        notes.push(entry.content);
      }
    }
    for (const { answerId } of this.pending) {
      this.conversation.push({ role: 'tool', tool_call_id: answerId, content: 'status: not run\nThe harness did not run this call.' });
    }
    this.pending = [];
    if (notes.length > 0) this.conversation.push({ role: 'user', content: `Notes from the harness:\n\n${notes.join('\n\n')}` });
  }

  /** What is wrong with a response, or `null` when it is complete and every call is known and valid. */
  private check(response: ModelResponse): string | null {
    if (response.finishReason === 'length') {
      return 'the response was cut off at the output limit (finish_reason: length) before it was complete, so nothing in it was run';
    }
    if (response.finishReason === 'content_filter') {
      return "the server's content filter stopped the response (finish_reason: content_filter), so nothing in it was run";
    }
    if (response.calls.length === 0) return response.text.trim() ? null : 'the response had neither text nor a tool call';
    const problems = response.calls.map((call) => this.checkCall(call)).filter((p): p is string => p !== null);
    return problems.length > 0 ? problems.join('; ') : null;
  }

  private checkCall(call: StreamedCall): string | null {
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

  /** For the operator: how to let a cut-off answer through next time. */
  private truncationHint(response: ModelResponse): string {
    if (response.finishReason !== 'length') return '';
    const now = this.maxTokens === undefined ? "unset, so the server's default applies" : `now ${this.maxTokens}`;
    return `; raise agent.max_tokens in loop.yaml (${now}) if the model needs longer answers`;
  }

  /** Records a rejected response in the conversation and tells the model what was wrong. */
  private handBack(response: ModelResponse, problem: string): void {
    const truncated = response.finishReason === 'length' || response.finishReason === 'content_filter';
    if (response.calls.length === 0) {
      if (response.text) this.conversation.push({ role: 'assistant', content: response.text });
      const ask = truncated
        ? `Your last response was not used: ${problem}. Answer again, shorter.`
        : 'Your last response was empty. Call a tool, or answer with a final message if the goal is met.';
      this.conversation.push({ role: 'user', content: ask });
      return;
    }
    this.conversation.push(this.assistantMessage(response, true));
    for (const call of response.calls) {
      const own = truncated ? problem : this.checkCall(call);
      const content = own
        ? `error: ${own}\nNothing was run. Send a corrected call${truncated ? ' (shorter: split a long file into several writes or edits)' : ''}.`
        : 'error: not run, because another call of the same response was invalid. Send it again if you still need it.';
      this.conversation.push({ role: 'tool', tool_call_id: call.answerId, content });
    }
  }

  /**
   * The assistant message as the model sent it, with its reasoning under the field the
   * server used. When `sanitize` is set, arguments that are not JSON are replaced by `{}`
   * (servers such as Ollama parse them and would reject the whole request); the tool
   * message quotes the original.
   */
  private assistantMessage(response: ModelResponse, sanitize: boolean): AssistantMessage {
    const message: AssistantMessage = { role: 'assistant', content: response.text || null };
    if (response.reasoningField && response.reasoning) message[response.reasoningField] = response.reasoning;
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
        return { id: call.answerId, type: 'function', function: { name: call.name, arguments: args } };
      });
    }
    return message;
  }

  /**
   * One request, retried (up to `maxRetries` times) when it failed in a way a retry may
   * mend and nothing of it was used: 408/409/429/5xx, a connection failure, a stream that
   * broke off or went silent for `stream_idle_timeout`. The wait before a retry is the
   * server's `Retry-After` (at most `max_retry_wait`), else a growing backoff; it ends early
   * on quit and abort (`context.signal`) and on a pause asked for (`context.interrupt`).
   * The whole of it, retries and waits included, takes at most `request_timeout`.
   * @throws AgentError when the request failed, every retry did, or time ran out;
   *   TurnInterrupted when a pause interrupted the wait before a retry
   */
  private async request(context: AgentContext, ask?: ChatCompletionMessageParam[]): Promise<ModelResponse> {
    const since = Date.now();
    const deadline = since + this.limits.requestMs;
    const wait: ModelWait = { since, limit_ms: this.limits.requestMs, active_at: since, idle_ms: this.limits.idleMs };
    for (let retry = 0; ; retry++) {
      let failure: RetryableFailure;
      try {
        return await this.attempt(context, retry, deadline, wait, ask);
      } catch (error) {
        const found = this.retryableFailure(error);
        if (!found || context.signal?.aborted) throw this.wrap(error, context);
        failure = found;
      }
      if (retry >= this.maxRetries) throw this.gaveUp(failure, retry, context);
      const { ms, capped } = retryDelay(failure.asked, retry, this.streamRetryDelayMs, this.limits.maxRetryWaitMs);
      if (Date.now() + ms >= deadline) {
        throw this.outOfTime(context, `a retry after ${failure.reason} would start after it (in ${formatWait(ms)})`);
      }
      const asked = failure.asked;
      this.onRetry?.({ attempt: retry + 1, max_retries: this.maxRetries, status: failure.status, reason: failure.reason, delay_ms: asked === null ? null : ms, ...(capped && asked !== null ? { asked_ms: asked } : {}) });
      context.onWait?.({ ...wait, retry: { until: Date.now() + ms, reason: failure.reason, retry_after: asked !== null } });
      try {
        await waitBeforeRetry(ms, context.signal, context.interrupt);
      } catch (error) {
        if (error instanceof WaitInterrupted && error.by === 'interrupt') throw new TurnInterrupted(`${this.name}: turn ${context.turn}: the wait before retry ${retry + 1} was interrupted`);
        throw this.wrap(error, context);
      }
    }
  }

  /**
   * One attempt of a request under a {@link RequestWatch}: cancelled after
   * `stream_idle_timeout` of silence (a retryable failure) or at the request's deadline.
   */
  private async attempt(context: AgentContext, retry: number, deadline: number, wait: ModelWait, ask?: ChatCompletionMessageParam[]): Promise<ModelResponse> {
    const watch = new RequestWatch({ deadline, idleMs: this.limits.idleMs }, context.signal, Date.now, (at) => context.onWait?.({ ...wait, active_at: at }));
    this.watch = watch;
    context.onWait?.({ ...wait, active_at: watch.activeAt });
    try {
      return await this.requestOnce(context, watch, retry, ask);
    } catch (error) {
      if (watch.expired === 'deadline') throw this.outOfTime(context, 'the answer was not complete by then');
      if (watch.expired === 'idle') {
        const silence = formatWait(this.limits.idleMs);
        throw new StreamFailure(`the server sent nothing for ${silence} (agent.stream_idle_timeout), so the request was cancelled and nothing of it was used`, true);
      }
      throw error;
    } finally {
      watch.dispose();
      if (this.watch === watch) this.watch = null;
    }
  }

  /** The request took all of `request_timeout`. */
  private outOfTime(context: AgentContext, why: string): AgentError {
    const limit = formatWait(this.limits.requestMs);
    return new AgentError(`${this.name}: turn ${context.turn}: no complete answer within ${limit} (agent.request_timeout): ${why}`);
  }

  /** The last failure once every retry is spent. */
  private gaveUp(failure: RetryableFailure, retry: number, context: AgentContext): AgentError {
    if (!(failure.error instanceof StreamFailure)) return this.wrap(failure.error, context);
    const after = retry > 0 ? ` (after ${retry} ${retry === 1 ? 'retry' : 'retries'})` : '';
    return new AgentError(`${this.name}: turn ${context.turn}: ${failure.error.message}${after}`, { cause: failure.error });
  }

  /** A failure a retry may mend, in words, with the delay the server asked for; `null` for any other. */
  private retryableFailure(error: unknown): RetryableFailure | null {
    if (error instanceof StreamFailure) return error.retryable ? { error, reason: error.message, status: error.status, asked: null } : null;
    if (error instanceof APIUserAbortError || !(error instanceof APIError)) return null;
    if (error instanceof APIConnectionError) {
      const timedOut = error.name === 'APIConnectionTimeoutError';
      return { error, reason: timedOut ? 'a timeout' : `connection failed: ${describeError(error.cause ?? error)}`, status: null, asked: null };
    }
    const status = error.status;
    if (status === undefined) return null;
    const header = error.headers?.get('x-should-retry');
    const retry = header === 'true' || (header !== 'false' && (status === 408 || status === 409 || status === 429 || status >= 500));
    if (!retry) return null;
    const last = this.lastErrorBody !== null && this.lastErrorBody.status === status ? this.lastErrorBody : null;
    const said = last ? errorBodyText(last.text) : '';
    const reason = `${status}${last?.statusText ? ` ${last.statusText}` : ''}${said ? `: ${said}` : ''}`;
    return { error, reason, status, asked: requestedDelay(error.headers) };
  }

  /**
   * One streamed request; text deltas go to `onText` as they arrive.
   * @throws StreamFailure when the stream broke off or ended incomplete; any other error
   *   when the request itself failed (the SDK has retried what it retries)
   */
  private async requestOnce(context: AgentContext, watch: RequestWatch, retry: number, ask?: ChatCompletionMessageParam[]): Promise<ModelResponse> {
    this.sdkErrors = [];
    const stream = await this.client.chat.completions.create(
      {
        model: this.model,
        // `ask`: a request of its own (an assessment), without the conversation or the tools.
        messages: ask ?? this.window.prepare(this.requestHead(context), this.conversation, context, OPENAI_TOOLS),
        ...(ask ? {} : { tools: OPENAI_TOOLS }),
        stream: true,
        stream_options: { include_usage: true },
        ...(this.temperature !== undefined ? { temperature: this.temperature } : {}),
        ...(this.maxTokens !== undefined ? { max_tokens: this.maxTokens } : {}),
      },
      { signal: watch.signal, headers: { 'X-Stainless-Retry-Count': String(retry) } },
    );
    const marks = this.marks;
    const merged = new StreamAccumulator();
    try {
      for await (const chunk of stream) {
        const piece = merged.push(chunk);
        if (piece.text) context.onText?.(piece.text);
      }
    } catch (error) {
      // The server was answering: what the broken-off answer spent was never reported.
      this.spent.unreported = ['tokens', 'cost_usd'];
      if (error instanceof APIUserAbortError || watch.signal.aborted) throw error;
      throw this.streamFailure(error);
    }
    const result = merged.result();
    // Spent as soon as the stream ended, whatever is wrong with the answer.
    addUsage(this.spent.usage, result.usage);
    if (result.usage === null) this.spent.unreported = ['tokens', 'cost_usd'];
    // The SDK ends the iteration quietly when the request is aborted mid-stream.
    if (watch.signal.aborted) throw new APIUserAbortError();
    if (result.finishReason === 'error') {
      throw new StreamFailure('the server ended the response with finish_reason "error" (it failed while answering)', true);
    }
    if (result.finishReason === null && !marks.done) {
      throw new StreamFailure(
        'the stream ended with neither a finish_reason nor [DONE]: the response is incomplete (the connection or the server broke off), so nothing in it was run',
        true,
      );
    }
    if (result.usage === null && !this.usageMissingNoted) {
      this.usageMissingNoted = true;
      this.onNotice?.(`${this.name}: the server reported no token usage; tokens and cost of its answers are unknown (shown as ?), and token and cost limits count only what was reported`);
    }
    const ids = answerIds(result.calls, context.turn);
    return { ...result, calls: result.calls.map((call, i) => ({ ...call, answerId: ids[i]! })) };
  }

  /** A mid-stream error in words, and whether retrying the request may help. */
  private streamFailure(error: unknown): StreamFailure {
    if (error instanceof APIError && error.status === undefined) {
      const raw: unknown = error.error;
      const code = typeof raw === 'object' && raw !== null ? (raw as { code?: unknown }).code : undefined;
      const status = typeof code === 'number' ? code : null;
      const said = errorObjectText(raw) || error.message;
      const meaning = explain(status, said, this.model);
      const fatal = status !== null && [400, 401, 402, 403, 404].includes(status);
      return new StreamFailure(`the server sent an error inside the stream after HTTP 200: ${meaning}`, !fatal && !/context window/.test(meaning), status);
    }
    if (error instanceof SyntaxError) {
      const line = this.sdkErrors.find((e) => e.startsWith('Could not parse message into JSON:'))?.replace(/^Could not parse message into JSON:\s*/, '') ?? '';
      const what = errorBodyText(line) || 'an empty line';
      return new StreamFailure(`the server sent a line that is not JSON inside the event stream: ${what}`, true);
    }
    const text = describeError(error);
    if (/terminated|other side closed|ECONNRESET|socket hang up|premature close/i.test(text) || error instanceof TypeError) {
      return new StreamFailure(`the connection closed before the response was complete (${text})`, true);
    }
    return new StreamFailure(`the stream failed: ${text}`, false);
  }

  private wrap(error: unknown, context: AgentContext): AgentError {
    if (error instanceof AgentError) return error;
    if (error instanceof APIUserAbortError || context.signal?.aborted) {
      return new AgentError(`${this.name}: turn ${context.turn}: the request was aborted`, { cause: error });
    }
    if (error instanceof APIError && error.status !== undefined) {
      const status = error.status;
      const gaveUp = status === 408 || status === 409 || status === 429 || status >= 500;
      const retried = gaveUp && this.maxRetries > 0 ? ` (after ${this.maxRetries} retries)` : '';
      const last = this.lastErrorBody;
      const body = last !== null && last.status === status ? errorBodyText(last.text) : '';
      const said = body || (error.error !== undefined ? errorObjectText(error.error) : '') || error.message;
      return new AgentError(`${this.name}: turn ${context.turn}: HTTP ${status}${retried}: ${explain(status, said, this.model)}`, { cause: error });
    }
    if (error instanceof StreamFailure) {
      return new AgentError(`${this.name}: turn ${context.turn}: ${error.message}`, { cause: error });
    }
    if (error instanceof APIConnectionError && error.name !== 'APIConnectionTimeoutError') {
      const retried = this.maxRetries > 0 ? ` (after ${this.maxRetries} ${this.maxRetries === 1 ? 'retry' : 'retries'})` : '';
      const url = this.client.baseURL;
      return new AgentError(`${this.name}: turn ${context.turn}: cannot connect to ${url}${retried}: ${innermostCause(error)}; ${unreachableHint(url, this.model)}`, { cause: error });
    }
    return new AgentError(`${this.name}: turn ${context.turn}: ${describeError(error)}`, { cause: error });
  }

  /** The SDK's logger: errors kept to explain a failure, warnings to the operator; never the console. */
  private sdkLogger(): Logger {
    const line = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : describeError(a))).join(' ');
    const warn = (...args: unknown[]) => this.onNotice?.(`openai SDK: ${line(args)}`);
    return {
      error: (...args: unknown[]) => void this.sdkErrors.push(line(args).slice(0, ERROR_BODY_LIMIT)),
      warn,
      info: () => undefined,
      debug: () => undefined,
    };
  }

  /**
   * The SDK's `fetch`, wrapped to keep the body of a failed response (the SDK reads only
   * some error shapes), to tell the attempt's watch when bytes arrive, and to filter the
   * event stream ({@link filterEventStream}).
   */
  private async fetchFiltered(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const watch = this.watch;
    if (!this.sendsKey) {
      const headers = new Headers(init?.headers);
      headers.delete('authorization');
      init = { ...init, headers };
    }
    const response = await fetch(input, init);
    watch?.touch();
    if (!response.ok) {
      const text = await response.clone().text().catch((error: unknown) => `(the body could not be read: ${describeError(error)})`);
      this.lastErrorBody = { status: response.status, statusText: response.statusText, text: text.slice(0, ERROR_BODY_LIMIT) };
      return response;
    }
    this.marks = { done: false };
    if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
    const { body, status, statusText } = response;
    return new Response(filterEventStream(body, this.marks, () => watch?.touch()), { status, statusText, headers: response.headers });
  }
}

/** Adds `more` (absent: nothing reported) to `sum`, parts included. */
function addUsage(sum: TokenUsage, more: TokenUsage | null): void {
  if (!more) return;
  sum.input_tokens += more.input_tokens;
  sum.output_tokens += more.output_tokens;
  if (more.cached_input_tokens) sum.cached_input_tokens = (sum.cached_input_tokens ?? 0) + more.cached_input_tokens;
  if (more.reasoning_tokens) sum.reasoning_tokens = (sum.reasoning_tokens ?? 0) + more.reasoning_tokens;
}
