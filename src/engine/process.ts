import { execa } from 'execa';
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
}

/**
 * Keeps the first and last `limit / 2` characters of a stream, counting what was dropped,
 * so a command printing hundreds of megabytes costs bounded memory. Binary output (NUL
 * bytes, undecodable sequences) is summarised by its size instead.
 */
export class HeadTail {
  private head = '';
  private tail = '';
  private dropped = 0;
  private total = 0;
  private binary = false;
  constructor(private readonly limit: number) {}

  push(chunk: string): void {
    this.total += chunk.length;
    // NUL bytes or undecodable sequences: binary output, summarised rather than shown.
    if (!this.binary && (chunk.includes('\u0000') || chunk.includes('\uFFFD'))) this.binary = true;
    const half = Math.floor(this.limit / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk.length === 0) return;
    this.tail += chunk;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  toString(): string {
    if (this.binary) return `[binary output: ${this.total} characters, not shown]`;
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.dropped} characters truncated ...]\n${this.tail}`;
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
  const started = performance.now();
  const output = new HeadTail(options.outputLimitBytes ?? 64 * 1024);
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
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace);
  };
  const timer = safeTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutSeconds * 1000);
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) stop();
  const errors = new HeadTail(8 * 1024);
  const out = options.separateStderr ? child.stdout : child.all;
  out?.setEncoding('utf8');
  out?.on('data', (chunk: string) => output.push(chunk));
  if (options.separateStderr) {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => errors.push(chunk));
  }
  const result = await child;
  timer.cancel();
  if (killTimer) clearTimeout(killTimer);
  options.signal?.removeEventListener('abort', stop);
  const spawnError = result.failed && result.exitCode === undefined && !result.isTerminated && !timedOut ? result.shortMessage : undefined;
  return {
    command,
    exit_code: result.exitCode ?? null,
    timed_out: timedOut,
    output: output.toString(),
    duration_ms: Math.round(performance.now() - started),
    ...(spawnError ? { spawn_error: spawnError } : {}),
    ...(options.separateStderr ? { stderr: errors.toString() } : {}),
  };
}
