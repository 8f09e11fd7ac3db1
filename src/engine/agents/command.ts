/**
 * The `command` agent: an external CLI coding agent (`claude -p`, `codex exec`,
 * `aider --message`, `gemini -p`, ...) run once per turn. It acts on the workspace itself;
 * loopdeck still observes, checkpoints, verifies and laps around it.
 */
import type { Pricing } from '../budget.js';
import { AgentError, describeError } from '../errors.js';
import { withSpent, zeroUsage } from '../unmeasured-usage.js';
import { renderGoalForAgent } from '../goal.js';
import { childEnv, escapedNote, runShellProcess } from '../process.js';
import { envValue } from '../secrets.js';
import type { AgentTurn, Goal } from '../types.js';
import type { Agent, AgentContext, AgentMessage } from './agent.js';
import { LineSplitter, finishLines, parserFor, type OutputSetting, type TranscriptParser } from './transcripts/index.js';
import { TranscriptRecorder } from './transcripts/record.js';
import { UsageMeter } from './usage-meter.js';

/** Environment variable that carries the prompt with `prompt: 'argument'`. */
export const PROMPT_ENV = 'LOOPDECK_PROMPT';

/** Linux refuses a single argument or environment string above 128 KiB (MAX_ARG_STRLEN). */
const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

/** Options of {@link CommandAgent}. */
export interface CommandAgentOptions {
  /** Shell command run with `sh -c` in `cwd`, e.g. `claude -p` or `aider --yes --message`. */
  command: string;
  /**
   * How the prompt reaches the command.
   * - `stdin`: written to its standard input.
   * - `argument`: exported as `$LOOPDECK_PROMPT`; unless the command already mentions
   *   `LOOPDECK_PROMPT` (to place it itself, e.g. `aider --message "$LOOPDECK_PROMPT" --yes`),
   *   ` "$LOOPDECK_PROMPT"` is appended. A double-quoted expansion is one word and is
   *   never parsed again, so quotes, `$(...)` or backticks in the goal run nothing.
   */
  prompt: 'stdin' | 'argument';
  /** The workspace: the command's working directory. */
  cwd: string;
  /** Wall-clock limit of one turn; then the process group gets SIGTERM, SIGKILL after `graceMs`. */
  timeoutSeconds: number;
  /** Characters of stdout and of stderr kept (the tail becomes `final`, the stderr tail goes into errors). */
  outputLimit: number;
  /** Variables passed through from loopdeck's environment (e.g. `ANTHROPIC_API_KEY`); the rest is {@link childEnv}. */
  env_passthrough?: string[];
  /** Milliseconds between SIGTERM and SIGKILL. Default 2000. */
  graceMs?: number;
  /** Name shown in the console. Default `command:<command>`. */
  name?: string;
  /**
   * The structured output the command prints (`agent.output`): parsed as it arrives into
   * events ({@link CommandAgentOptions}). Default `auto`: detected from the first JSON line
   * that a known format starts with; `text` parses nothing.
   */
  output?: OutputSetting;
  /**
   * The per-run pre-tool hook configuration (docs/design.md, "Approvals of CLI agents"):
   * variables added to the command's environment, and words appended to the command (before
   * the prompt) unless it already names one of those variables (to place them itself).
   */
  approvalHook?: { env: Record<string, string>; append: string };
  /**
   * `pricing` of loop.yaml: prices the tokens of a format that reports no cost (Codex,
   * Gemini CLI) when a price is set ({@link UsageMeter}); otherwise their cost is unknown.
   */
  pricing?: Pricing;
}

/** One run's output as it is parsed: lines into entries into events. */
interface OutputReader {
  parser: TranscriptParser;
  splitter: LineSplitter;
  recorder: TranscriptRecorder;
  meter: UsageMeter;
}

/**
 * The prompt of one run of the external agent: the goal, the execution memory when it
 * changed since its last run (`memory`), the harness notes since its
 * last run, and what the harness expects of it.
 */
export function renderCommandPrompt(goal: Goal, notes: readonly string[], memory?: string | null): string {
  const parts = [
    'You are working in the current directory, a workspace supervised by loopdeck.',
    '',
    renderGoalForAgent(goal),
  ];
  if (memory) parts.push('', memory);
  if (notes.length > 0) parts.push('', 'Notes from the harness since your last run:', ...notes.map((n) => `- ${n}`));
  parts.push(
    '',
    'Make the changes in the workspace, then exit. loopdeck runs its own verification afterwards; your summary alone does not meet the goal.',
  );
  return parts.join('\n');
}

function noteOf(entry: AgentMessage): string {
  return entry.role === 'harness' ? entry.content : `${entry.name} (${entry.status}): ${entry.content}`;
}

/**
 * Runs an external CLI agent once per turn with the harness's shell runner
 * ({@link runShellProcess}), in its own process group, so a timeout or an abort kills the
 * whole tree: SIGTERM to the group, SIGKILL after the grace period. Its stdout streams to `context.onText`. The environment is {@link childEnv}
 * plus `env_passthrough` (plus `LOOPDECK_PROMPT` and `LOOPDECK_TURN`). Processes it leaves
 * behind in its group are killed once it exits (a short drain of its pipes first); one that left
 * the group and holds its output open is named in the turn (or its error) and killed.
 *
 * A turn never has tool calls for loopdeck to run: the external agent acts on the workspace
 * itself. With structured output (`output`), each line is parsed as it arrives and its
 * messages, tool uses and results, usage and notices go to `context.onEvent` as they come
 * (docs/design.md, "CLI agents"); the final result record ends the run (the process gets
 * `graceMs` to exit, then its group is stopped). Exit 0 makes the turn `final` with the
 * result's text, else the last message, else the tail of stdout (it claims it did its work;
 * the verifier decides). Its own usage is 0/0: what the agent reported was recorded as
 * `agent.usage`, and `agent_run` says what it did not report (unknown, not 0). A result
 * record reporting an error, a non-zero exit, a timeout, an abort or a failure to start is
 * an {@link AgentError} carrying the stderr tail.
 */
export class CommandAgent implements Agent {
  readonly name: string;
  private historySeen = 0;
  /** The execution memory last put in a prompt. */
  private memorySent: string | null = null;

  constructor(private readonly options: CommandAgentOptions) {
    this.name = options.name ?? `command:${options.command}`;
  }

  /**
   * One run of the command. When it fails after starting, the error carries the dimensions
   * its output did not report ({@link withSpent}): what it did report was already recorded.
   */
  async nextTurn(context: AgentContext): Promise<AgentTurn> {
    this.recorder = null;
    try {
      return await this.runOnce(context);
    } catch (error) {
      // Set by runOnce once the command started (narrowed to null by the assignment above).
      const run = (this.recorder as TranscriptRecorder | null)?.summary('');
      const unreported = run ? (['tokens', 'cost_usd'] as const).filter((d) => !run.reported[d]) : [];
      throw withSpent(error, { usage: zeroUsage(), unreported });
    }
  }

  /** The last run's recorder, once the command was started. */
  private recorder: TranscriptRecorder | null = null;
  /** Whether the command runs now (its hook may ask about calls). */
  private running = false;

  /** A call the command's pre-tool hook asks about, in the running turn's id space ({@link TranscriptRecorder.claim}). */
  claimCall(agentId: string | null, name: string, args: Record<string, unknown>): ReturnType<TranscriptRecorder['claim']> | null {
    if (!this.running || !this.recorder) return null;
    return this.recorder.claim(agentId, name, args);
  }

  /**
   * The command line and environment of one run: {@link childEnv}, `env_passthrough`, the
   * approval hook's variables and words, and the prompt as an argument when asked.
   * @throws AgentError for a prompt too long to be an argument
   */
  private launch(prompt: string, turn: number): { command: string; env: Record<string, string> } {
    const { options } = this;
    const env: Record<string, string> = { ...childEnv(), LOOPDECK_TURN: String(turn) };
    for (const key of options.env_passthrough ?? []) {
      const value = envValue(key);
      if (value !== undefined) env[key] = value;
    }
    let command = options.command;
    const hook = options.approvalHook;
    if (hook) {
      Object.assign(env, hook.env);
      if (hook.append && !Object.keys(hook.env).some((key) => command.includes(key))) command = `${command} ${hook.append}`;
    }
    if (options.prompt === 'argument') {
      if (Buffer.byteLength(prompt) > MAX_ARGUMENT_BYTES) {
        throw new AgentError(`${this.name}: the prompt (${Buffer.byteLength(prompt)} bytes) is too long for an argument; use prompt: stdin`);
      }
      env[PROMPT_ENV] = prompt;
      if (!command.includes(PROMPT_ENV)) command = `${command} "$${PROMPT_ENV}"`;
    }
    return { command, env };
  }

  private async runOnce(context: AgentContext): Promise<AgentTurn> {
    const fresh = context.history.slice(this.historySeen);
    // The execution memory goes in when a checkpoint changed it since the last run (it replaces the one before).
    const memory = context.memory && context.memory !== this.memorySent ? context.memory : null;
    const prompt = renderCommandPrompt(context.goal, fresh.map(noteOf), memory);
    const { options } = this;
    const { command, env } = this.launch(prompt, context.turn);
    if (context.signal?.aborted) throw new AgentError(`${this.name}: turn ${context.turn}: aborted before start`);
    this.historySeen = context.history.length;
    if (memory) this.memorySent = memory;

    const started = performance.now();
    const graceMs = options.graceMs ?? 2000;
    const reader: OutputReader = {
      parser: parserFor(options.output ?? 'auto'),
      splitter: new LineSplitter(),
      recorder: new TranscriptRecorder(context.turn, () => performance.now()),
      meter: new UsageMeter(context.turn, options.pricing ?? null),
    };
    this.recorder = reader.recorder;
    // A configured `text` reports nothing: its usage is unknown from the start.
    if (options.output === 'text') this.announce(reader, 'text', context);
    const ended = new AbortController();
    let endTimer: NodeJS.Timeout | undefined;
    const onResult = () => {
      endTimer ??= setTimeout(() => ended.abort(), graceMs);
    };
    const signal = context.signal ? AbortSignal.any([context.signal, ended.signal]) : ended.signal;
    this.running = true;
    const run = await runShellProcess(command, {
      cwd: options.cwd,
      timeoutSeconds: options.timeoutSeconds,
      graceMs,
      env,
      separateStderr: true,
      keep: 'tail',
      outputLimitBytes: options.outputLimit,
      stderrLimitBytes: options.outputLimit,
      ...(options.prompt === 'stdin' ? { input: prompt } : {}),
      signal,
      onOutput: (chunk) => this.readChunk(reader, chunk, context, onResult),
    }).finally(() => {
      this.running = false;
    });
    clearTimeout(endTimer);
    for (const entry of finishLines(reader.splitter.rest(), reader.parser)) this.emitEntry(reader, entry, context, onResult);
    const { result } = run;
    // Stopped by loopdeck after the agent's final result record: a normal end.
    const stopped = run.stopped === 'abort' && ended.signal.aborted && !context.signal?.aborted ? null : run.stopped;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);

    const errTail = [(result.stderr ?? '').trim(), escapedNote(result.escaped)].filter((t) => t !== '').join('\n');
    const withStderr = errTail ? `; stderr:\n${errTail}` : '';
    if (stopped === 'timeout') {
      throw new AgentError(`${this.name}: turn ${context.turn}: killed after the ${options.timeoutSeconds}s limit${withStderr}`);
    }
    if (stopped === 'budget') throw new AgentError(`${this.name}: turn ${context.turn}: killed (the wall-clock budget ran out)${withStderr}`);
    if (stopped === 'abort' || stopped === 'quit') throw new AgentError(`${this.name}: turn ${context.turn}: killed (the run was ${stopped === 'quit' ? 'quit' : 'aborted'})${withStderr}`);
    const answer = reader.recorder.result;
    if (answer && !answer.ok) throw new AgentError(`${this.name}: turn ${context.turn}: the agent reported an error: ${answer.text}${withStderr}`);
    if (stopped === null && answer && result.exit_code === null) return this.turnOf(reader, answer.text, result.output, `stopped ${seconds}s after its final result`);
    if (result.exit_code === null) {
      const why = run.signal ? `killed by ${run.signal}` : `could not start: ${describeError(result.spawn_error ?? 'unknown error')}`;
      throw new AgentError(`${this.name}: turn ${context.turn}: ${why}${withStderr}`);
    }
    if (result.exit_code !== 0) {
      throw new AgentError(`${this.name}: turn ${context.turn}: exited with code ${result.exit_code}${withStderr}`);
    }
    const escaped = escapedNote(result.escaped);
    return this.turnOf(reader, answer?.text ?? '', result.output, `exited 0 after ${seconds}s${escaped ? ` ${escaped}` : ''}`);
  }

  /** Feeds one chunk of stdout to the reader (and, while nothing is parsed, to `onText`). */
  private readChunk(reader: OutputReader, chunk: string, context: AgentContext, onResult: () => void): void {
    if (reader.parser.format === 'text') context.onText?.(chunk);
    for (const line of reader.splitter.push(chunk)) {
      for (const entry of reader.parser.line(line)) this.emitEntry(reader, entry, context, onResult);
    }
  }

  private emitEntry(reader: OutputReader, parsed: Parameters<TranscriptRecorder['record']>[0], context: AgentContext, onResult: () => void): void {
    const format = reader.parser.format;
    if (format !== 'text') this.announce(reader, format, context);
    const entry = parsed.kind === 'usage' ? { ...parsed, usage: reader.meter.price(parsed.usage, format) } : parsed;
    for (const draft of reader.recorder.record(entry)) context.onEvent?.(draft);
    if (entry.kind === 'result') onResult();
  }

  /** Marks what the run's format never reports as unknown, once, when the format is known. */
  private announce(reader: OutputReader, format: OutputReader['parser']['format'], context: AgentContext): void {
    const marker = reader.meter.announce(format);
    if (marker) context.onEvent?.(marker);
  }

  /** The finished turn: the answer from the result record, the last message or stdout's tail. */
  private turnOf(reader: OutputReader, answer: string, stdout: string, how: string): AgentTurn {
    const format = reader.parser.format;
    const final = (answer || reader.recorder.lastText || (format === 'text' ? stdout : '')).trim();
    return {
      thought: `${this.options.command} ${how}`,
      tool_calls: [],
      usage: { input_tokens: 0, output_tokens: 0 },
      final: final || '(the command exited 0 without output)',
      agent_run: reader.recorder.summary(format),
    };
  }
}
