import { execa } from 'execa';
import { boundText, redactText, tailText, truncationMark } from './redact.js';
import { secretValues } from './secrets.js';
import { safeTimeout } from './timer.js';

/** Result of one shell command run by the harness or a tool. */
export interface CommandResult {
  command: string;
  /** `null` when the process was killed or could not start. */
  exit_code: number | null;
  timed_out: boolean;
  /** Combined stdout and stderr, head and tail kept, with a truncation marker between. */
  output: string;
  duration_ms: number;
  /** Set when the command could not be started at all. */
  spawn_error?: string;
  /** With `separateStderr`: the tail of stderr. */
  stderr?: string;
}

/** What {@link runShell} knows beyond the result it reports: why it stopped the process, if it did. */
export interface ShellRun {
  result: CommandResult;
  /** `timeout` or `abort` when runShell stopped the group, else `null`. */
  stopped: 'timeout' | 'abort' | null;
  /** The signal that ended the direct child, when one did. */
  signal: NodeJS.Signals | null;
}

/** Options of {@link runShell}. */
export interface RunShellOptions {
  cwd: string;
  /** Seconds before the process group is sent SIGTERM (then SIGKILL after `graceMs`). */
  timeoutSeconds: number;
  /** Characters of output kept in total (half head, half tail). */
  outputLimitBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  graceMs?: number;
  signal?: AbortSignal;
  /** Text written to the command's stdin (default: no stdin). */
  input?: string;
  /** Extra environment variables on top of {@link childEnv}. */
  env?: Record<string, string>;
  /** Keep stderr apart from stdout (`stderr` in the result); default: combined. */
  separateStderr?: boolean;
  /** Characters of stderr kept with `separateStderr` (head and tail). Default 8192. */
  stderrLimitBytes?: number;
  /** `tail`: keep only the last `outputLimitBytes` characters of the output; default head and tail. */
  keep?: 'head-tail' | 'tail';
  /** Called with each chunk of stdout (of the combined output without `separateStderr`), as it arrives. */
  onOutput?: (chunk: string) => void;
  /**
   * Once the direct child has exited, kill what it left running in its group after
   * `graceMs` (background processes holding its pipes open). Default: wait for the pipes
   * until the timeout.
   */
  reapAfterExit?: boolean;
}

/** Characters kept beyond each half, so a secret that straddles a cut is whole when redacted. */
const REDACT_MARGIN = 4096;

/**
 * Keeps the first and last `limit / 2` characters of a stream, counting what was dropped,
 * so a command printing hundreds of megabytes costs bounded memory. Binary output (NUL
 * bytes, undecodable sequences) is summarised by its size instead.
 *
 * Secrets are redacted before anything is cut: each half is kept with a margin of at least
 * {@link REDACT_MARGIN} characters (more for a longer secret value), the kept text is
 * redacted whole, and only then cut to `limit / 2`, so no fragment of a secret that
 * straddles a cut survives.
 */
export class HeadTail {
  private head = '';
  private tail = '';
  private dropped = 0;
  private total = 0;
  private binary = false;
  private readonly keep: number;
  /** @param redact redacts a text (default: this process's secrets, see `redactText`) */
  constructor(
    private readonly limit: number,
    private readonly redact: (text: string) => string = redactText,
  ) {
    this.keep = Math.floor(limit / 2) + Math.max(REDACT_MARGIN, secretValues()[0]?.length ?? 0);
  }

  push(chunk: string): void {
    this.total += chunk.length;
    // NUL bytes or undecodable sequences: binary output, summarised rather than shown.
    if (!this.binary && (chunk.includes('\u0000') || chunk.includes('\uFFFD'))) this.binary = true;
    if (this.head.length < this.keep) {
      const room = this.keep - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length === 0) return;
    this.tail += chunk;
    if (this.tail.length > this.keep) {
      this.dropped += this.tail.length - this.keep;
      this.tail = this.tail.slice(this.tail.length - this.keep);
    }
  }

  toString(): string {
    if (this.binary) return `[binary output: ${this.total} characters, not shown]`;
    if (this.dropped === 0) return boundText(this.head + this.tail, this.limit, this.redact);
    const half = Math.floor(this.limit / 2);
    const head = this.redact(this.head);
    const tail = this.redact(this.tail);
    return `${head.slice(0, half)}${truncationMark(this.total - 2 * half)}${tail.slice(Math.max(0, tail.length - half))}`;
  }
}

const SAFE_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'USER', 'SHELL', 'NODE_OPTIONS'];

/** A minimal environment for child processes: no API keys or tokens of loopdeck's own. */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of SAFE_ENV_KEYS) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** Sends `signal` to the process group `pid` leads; a group that is already gone is not an error. */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Runs `command` through `sh -c` in its own process group. On timeout or abort the whole
 * group gets SIGTERM, then SIGKILL after the grace period, so grandchildren cannot keep
 * the pipes open. Output is streamed into a bounded head and tail; it never rejects for
 * a non-zero exit, a timeout or a failure to start: all of these are in the result.
 */
export async function runShell(command: string, options: RunShellOptions): Promise<CommandResult> {
  return (await runShellProcess(command, options)).result;
}

/** A stream kept whole up to a limit: the last `limit` characters, secrets redacted before the cut. */
class Tail {
  private text = '';
  constructor(private readonly limit: number) {}
  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.limit * 3) this.text = this.text.slice(-this.limit * 2);
  }
  toString(): string {
    return tailText(this.text, this.limit);
  }
}

/** {@link runShell}, also saying whether it stopped the process itself (timeout, abort) and by which signal the child ended. */
export async function runShellProcess(command: string, options: RunShellOptions): Promise<ShellRun> {
  const started = performance.now();
  const limit = options.outputLimitBytes ?? 64 * 1024;
  const output = options.keep === 'tail' ? new Tail(limit) : new HeadTail(limit);
  const grace = options.graceMs ?? 2000;
  const child = execa('sh', ['-c', command], {
    cwd: options.cwd,
    detached: true,
    reject: false,
    all: !options.separateStderr,
    buffer: false,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
    env: { ...childEnv(), ...options.env },
    extendEnv: false,
  });
  let stopped: ShellRun['stopped'] = null;
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = () => {
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace);
  };
  const stop = (why: 'timeout' | 'abort') => {
    stopped ??= why;
    terminate();
  };
  const onAbort = () => stop('abort');
  const timer = safeTimeout(() => stop('timeout'), options.timeoutSeconds * 1000);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  let leftoverTimer: NodeJS.Timeout | undefined;
  if (options.reapAfterExit) child.once('exit', () => (leftoverTimer = setTimeout(terminate, grace)));
  const errors = new HeadTail(options.stderrLimitBytes ?? 8 * 1024);
  const out = options.separateStderr ? child.stdout : child.all;
  out?.setEncoding('utf8');
  out?.on('data', (chunk: string) => {
    output.push(chunk);
    options.onOutput?.(chunk);
  });
  if (options.separateStderr) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => errors.push(chunk));
  }
  const result = await child;
  timer.cancel();
  if (leftoverTimer) clearTimeout(leftoverTimer);
  if (killTimer) clearTimeout(killTimer);
  options.signal?.removeEventListener('abort', onAbort);
  const spawnError = result.failed && result.exitCode === undefined && !result.isTerminated && stopped !== 'timeout' ? result.shortMessage : undefined;
  return {
    stopped,
    signal: (result.signal as NodeJS.Signals | undefined) ?? null,
    result: {
      command,
      exit_code: result.exitCode ?? null,
      timed_out: stopped === 'timeout',
      output: output.toString(),
      duration_ms: Math.round(performance.now() - started),
      ...(spawnError ? { spawn_error: spawnError } : {}),
      ...(options.separateStderr ? { stderr: errors.toString() } : {}),
    },
  };
}
