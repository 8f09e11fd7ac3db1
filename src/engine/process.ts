import { StringDecoder } from 'node:string_decoder';
import { childEnded, childStarted } from './children.js';
import { newTag, TAG_VARIABLE, taggedProcesses } from './descendants.js';
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
  /** Set when loopdeck killed the command: at its time limit, because the run was quit or aborted, or the wall-clock budget ran out. */
  killed?: KilledBy;
  /** Set when output was dropped to keep it within the limit; `output_bytes` says how much there was. */
  truncated?: true;
  /** Bytes the command wrote to its output (stdout, with stderr unless kept apart), all of it, kept or not. */
  output_bytes?: number;
  /**
   * Processes outside the command's process group (started with `setsid`, say) that still
   * held its output open after it exited: named here, then killed.
   */
  escaped?: EscapedProcess[];
}

/** Why loopdeck killed a command: its time limit, the operator's quit, an abort, or the wall-clock budget running out during it. */
export type KilledBy = 'timeout' | 'quit' | 'abort' | 'budget';

/** A descendant that left the command's process group and kept its pipes open. */
export interface EscapedProcess {
  /** `null` where the platform cannot name the holder (no `/proc`). */
  pid: number | null;
  /** Its command line, bounded (or why it is unknown). */
  command: string;
}

/** What {@link runShell} knows beyond the result it reports: why it stopped the process, if it did. */
export interface ShellRun {
  result: CommandResult;
  /** Why runShell stopped the group (`timeout`, `quit`, `abort`), or `null` when it ended by itself. */
  stopped: KilledBy | null;
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
  /** Aborting it kills the command's group; a `reason` of `'quit'` records the kill as by quit, anything else as by abort. */
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
  /** Milliseconds the pipes are read after the direct child exited, before its group is killed. Default 200. */
  drainMs?: number;
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
  private byteCount = 0;
  private binary = false;
  private readonly keep: number;
  /** @param redact redacts a text (default: this process's secrets, see `redactText`) */
  constructor(
    private readonly limit: number,
    private readonly redact: (text: string) => string = redactText,
  ) {
    this.keep = Math.floor(limit / 2) + Math.max(REDACT_MARGIN, secretValues()[0]?.length ?? 0);
  }

  /** Adds `chunk`; `bytes` is its size as the command wrote it (default: its UTF-8 length). */
  push(chunk: string, bytes = Buffer.byteLength(chunk)): void {
    this.total += chunk.length;
    this.byteCount += bytes;
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

  /** Bytes pushed in all. */
  get bytes(): number {
    return this.byteCount;
  }

  /** Whether {@link toString} leaves anything out (binary output always does). */
  get truncated(): boolean {
    return this.binary || this.total > this.limit;
  }

  toString(): string {
    if (this.binary) return `[binary output: ${this.byteCount} bytes, not shown]`;
    if (this.dropped === 0) return boundText(this.head + this.tail, this.limit, this.redact);
    const half = Math.floor(this.limit / 2);
    const head = this.redact(this.head);
    const tail = this.redact(this.tail);
    return `${head.slice(0, half)}${truncationMark(this.total - 2 * half)}${tail.slice(Math.max(0, tail.length - half))}`;
  }
}

const SAFE_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'USER', 'SHELL', 'NODE_OPTIONS'];

/**
 * Set in every child's environment. `PYTHONDONTWRITEBYTECODE`: Python takes a cached `.pyc`
 * as current when its source has the same size and the same modification time in whole
 * seconds, so a fix of the same length made within the second after an observer or a
 * verify imported the file (an agent edits fast) would be measured as the old code, and
 * every run after it too. Without cache files written during the run, Python reads the
 * source as it is (cache files already in the workspace still serve unchanged sources).
 */
const CHILD_ENV_SETTINGS: Readonly<Record<string, string>> = { PYTHONDONTWRITEBYTECODE: '1' };

/**
 * A minimal environment for child processes (commands, observers, verify, hooks, a CLI
 * agent): no API keys or tokens of loopdeck's own, and {@link CHILD_ENV_SETTINGS}.
 */
export function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of SAFE_ENV_KEYS) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...CHILD_ENV_SETTINGS };
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
 * Runs `command` through `sh -c` in its own process group. On timeout, quit or abort the
 * whole group gets SIGTERM, then SIGKILL after the grace period. The result is taken when
 * the direct child exits ({@link runShellProcess}): background processes it left cannot
 * hold it open. Output is streamed into a bounded head and tail; it never rejects for
 * a non-zero exit, a timeout or a failure to start: all of these are in the result.
 */
export async function runShell(command: string, options: RunShellOptions): Promise<CommandResult> {
  return (await runShellProcess(command, options)).result;
}

/** A stream kept whole up to a limit: the last `limit` characters, secrets redacted before the cut. */
class Tail {
  private text = '';
  private total = 0;
  bytes = 0;
  constructor(private readonly limit: number) {}
  get truncated(): boolean {
    return this.total > this.limit;
  }
  push(chunk: string, bytes = Buffer.byteLength(chunk)): void {
    this.total += chunk.length;
    this.bytes += bytes;
    this.text += chunk;
    if (this.text.length > this.limit * 3) this.text = this.text.slice(-this.limit * 2);
  }
  toString(): string {
    return tailText(this.text, this.limit);
  }
}

/** Milliseconds to wait for `promise`; whether it settled in that time. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const done = await Promise.race([promise.then(() => true as const), late]);
  clearTimeout(timer);
  return done;
}

/** Whether the process group `pgid` still has a member. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills what is left of the group `pgid` once its leader exited: SIGTERM, then SIGKILL after `graceMs` if anything remains. */
async function reapGroup(pgid: number | undefined, graceMs: number): Promise<void> {
  if (pgid === undefined || !groupAlive(pgid)) return;
  killGroup(pgid, 'SIGTERM');
  const until = performance.now() + graceMs;
  while (groupAlive(pgid) && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  if (groupAlive(pgid)) killGroup(pgid, 'SIGKILL');
}

/**
 * Names and kills the processes of one command (found by its `tag`, {@link taggedProcesses})
 * that left its process group and still run after it exited, holding its output open.
 * Without `/proc`, one entry says that something held the output.
 */
function killEscaped(tag: string): EscapedProcess[] {
  const found = taggedProcesses(tag);
  if (found === null || found.length === 0) return [{ pid: null, command: 'a process loopdeck cannot name held the output open' }];
  for (const { pid } of found) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
  return found.map(({ pid, command }) => ({ pid, command }));
}

/**
 * The line that tells the agent, the log and the operator about processes that escaped a
 * command's group ({@link CommandResult.escaped}); empty when there were none.
 */
export function escapedNote(escaped: readonly EscapedProcess[] | undefined): string {
  if (!escaped || escaped.length === 0) return '';
  const named = escaped.map((p) => (p.pid === null ? p.command : `pid ${p.pid} (${p.command})`)).join(', ');
  return `[loopdeck: killed ${named}: it left the command's process group and kept its output open after the command exited]`;
}

/** How the direct child ended. */
interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * {@link runShell}, also saying whether it stopped the process itself (timeout, quit,
 * abort) and by which signal the child ended.
 *
 * "Finished" means the direct child (`sh`) exited, not that its pipes closed: the result
 * is taken at its exit plus a drain of `drainMs` for the output still in the pipes. Then
 * the rest of its process group (a `server &` it started) gets SIGTERM and, after at most
 * half a second, SIGKILL. A process that left the group (`setsid`) and still holds the
 * output open is named in `escaped` and killed, and the pipes are closed.
 */
export async function runShellProcess(command: string, options: RunShellOptions): Promise<ShellRun> {
  // Loaded on first use: the console's first frame does not wait for execa's modules.
  const { execa } = await import('execa');
  const started = performance.now();
  const limit = options.outputLimitBytes ?? 64 * 1024;
  const output = options.keep === 'tail' ? new Tail(limit) : new HeadTail(limit);
  const errors = new HeadTail(options.stderrLimitBytes ?? 8 * 1024);
  const grace = options.graceMs ?? 2000;
  const tag = newTag();
  const child = execa('sh', ['-c', command], {
    cwd: options.cwd,
    detached: true,
    reject: false,
    all: !options.separateStderr,
    buffer: false,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
    env: { ...childEnv(), ...options.env, [TAG_VARIABLE]: tag },
    extendEnv: false,
  });
  // Recorded before anything else happens, so a crash from here on leaves a trace to find it by.
  if (child.pid !== undefined) childStarted({ pid: child.pid, pgid: child.pid, tag, command: command.length > 200 ? `${command.slice(0, 199)}…` : command });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const settled = child.then((result) => result);
  let stopped: KilledBy | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (why: KilledBy) => {
    stopped ??= why;
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), grace);
  };
  const onAbort = () => {
    const reason: unknown = options.signal?.reason;
    stop(reason === 'quit' || reason === 'budget' ? reason : 'abort');
  };
  const timer = safeTimeout(() => stop('timeout'), options.timeoutSeconds * 1000);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  readInto(options.separateStderr ? child.stdout : child.all, (text, bytes) => {
    output.push(text, bytes);
    options.onOutput?.(text);
  });
  if (options.separateStderr) readInto(child.stderr, (text, bytes) => errors.push(text, bytes));

  const exit = await Promise.race([exited, settled.then(() => null)]);
  let escaped: EscapedProcess[] = [];
  if (exit !== null) {
    const drained = await settlesWithin(settled, options.drainMs ?? 200);
    await reapGroup(child.pid, Math.min(grace, 500));
    if (!drained && !(await settlesWithin(settled, 50))) {
      escaped = killEscaped(tag);
      for (const stream of [child.stdout, child.stderr, child.all]) stream?.destroy();
      await settlesWithin(settled, 1000);
    }
  }
  const result = exit === null ? await settled : null;
  if (child.pid !== undefined) childEnded(child.pid);
  timer.cancel();
  if (killTimer) clearTimeout(killTimer);
  options.signal?.removeEventListener('abort', onAbort);
  const spawnError = result && result.failed && result.exitCode === undefined && !result.isTerminated && stopped !== 'timeout' ? result.shortMessage : undefined;
  const exitCode = exit ? exit.code : (result?.exitCode ?? null);
  const signal = exit ? exit.signal : ((result?.signal as NodeJS.Signals | undefined) ?? null);
  return {
    stopped,
    signal,
    result: {
      command,
      exit_code: exitCode,
      timed_out: stopped === 'timeout',
      output: output.toString(),
      duration_ms: Math.round(performance.now() - started),
      ...(spawnError ? { spawn_error: spawnError } : {}),
      ...(options.separateStderr ? { stderr: errors.toString() } : {}),
      ...(stopped ? { killed: stopped } : {}),
      ...(output.truncated ? { truncated: true as const, output_bytes: output.bytes } : {}),
      ...(escaped.length > 0 ? { escaped } : {}),
    },
  };
}

/** Feeds a child's stream to `push` as text (UTF-8, split sequences kept whole) with the bytes each piece came from. */
function readInto(stream: NodeJS.ReadableStream | null | undefined, push: (text: string, bytes: number) => void): void {
  if (!stream) return;
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer | string) => {
    if (typeof chunk === 'string') push(chunk, Buffer.byteLength(chunk));
    else push(decoder.write(chunk), chunk.length);
  });
  stream.on('end', () => {
    const rest = decoder.end();
    if (rest !== '') push(rest, 0);
  });
}
