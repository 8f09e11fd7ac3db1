// A real terminal for end-to-end tests: the built CLI runs in a pseudo-terminal
// (@lydell/node-pty) and its output is fed to a terminal emulator (@xterm/headless) of the
// same size, so tests read the screen as a person would see it and press real key bytes.
//
// The CLI runs under a small `sh` wrapper that, once the CLI has exited, prints its exit
// code and `stty -a` of the same terminal: the modes a person's shell would get back
// (raw mode off means `icanon` and `echo` are on again).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pty from '@lydell/node-pty';
import xterm from '@xterm/headless';

const root = path.resolve(import.meta.dirname, '../..');
/** The built CLI (`npm run build`). */
export const CLI = path.join(root, 'dist/cli.js');

/** Key bytes as a terminal sends them. */
export const KEY = {
  enter: '\r',
  escape: '\u001b',
  ctrlC: '\u0003',
  tab: '\t',
  backspace: '\u007f',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
} as const;

const EXIT_MARK = '<<pty-exit ';
const END_MARK = '<<pty-end>>';
// `$1` is node, the rest the CLI and its arguments. After the end mark the wrapper waits
// for a newline from us before it exits: a pty can report the exit before everything
// written to it was read, and the `stty` report would be cut short.
const wrapper = (stdin: 'pty' | 'null') => `"$@"${stdin === 'null' ? ' </dev/null' : ''}; code=$?; printf '\\r\\n${EXIT_MARK}%s>>\\r\\n' "$code"; stty -a; printf '${END_MARK}\\r\\n'; read -r _; exit $code`;

/** The terminal modes after the CLI exited, as `stty -a` printed them. */
export interface TtyModes {
  /** Line editing on: raw mode was turned off. */
  icanon: boolean;
  echo: boolean;
  /** Ctrl+C raises SIGINT again. */
  isig: boolean;
  stty: string;
}

export interface PtyExit {
  /** The CLI's exit code (128 + n when a signal ended it). */
  code: number;
  /** `stty -a` after the CLI exited; `null` if the wrapper did not get to print it. */
  tty: TtyModes | null;
}

export interface PtyOptions {
  /** Arguments after `node dist/cli.js`. */
  args: string[];
  /** `null`: the CLI's stdin is /dev/null while stdout and stderr stay on the terminal. */
  stdin?: 'pty' | 'null';
  /** The script node runs instead of dist/cli.js (the helper's own tests use this). */
  script?: string;
  cols?: number;
  rows?: number;
  /** Working directory; a fresh temp directory when omitted (see {@link PtyTerminal.cwd}). */
  cwd?: string;
  /** Extra environment for the CLI. */
  env?: Record<string, string>;
  /**
   * `job-control`: the CLI is typed at an interactive bash, as a person starts it, and runs
   * as a job of its own: Ctrl+Z gives the terminal back to bash (a resize then signals bash,
   * not the CLI) and `fg` typed at its prompt continues it. There is no exit report:
   * {@link PtyTerminal.exit} settles when bash ends.
   */
  shell?: 'wrapper' | 'job-control';
}

/**
 * The CLI's environment: ours, without what would change how Ink draws. With `CI` or
 * `CONTINUOUS_INTEGRATION` set (CI runs with `CI=true`) Ink writes only `<Static>` output
 * and skips every live frame; terminal-program hints could switch Ink's keyboard protocol.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (['CI', 'CONTINUOUS_INTEGRATION', 'KITTY_WINDOW_ID', 'TERM_PROGRAM', 'TMUX', 'COLUMNS', 'LINES', 'NO_COLOR', 'FORCE_COLOR'].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, TERM: 'xterm-256color', LANG: process.env.LANG ?? 'C.UTF-8', ...extra };
}

function parseStty(text: string): TtyModes {
  const flag = (name: string) => new RegExp(`(^|\\s)${name}(\\s|$)`).test(text);
  return { icanon: flag('icanon'), echo: flag('echo'), isig: flag('isig'), stty: text.trim() };
}

export class PtyTerminal {
  readonly term: InstanceType<typeof xterm.Terminal>;
  readonly cwd: string;
  /** Everything the CLI wrote to the terminal, escape sequences included. */
  output = '';
  /** Settles when the CLI and the wrapper have exited. */
  readonly exit: Promise<PtyExit>;
  /** Whether the terminal shows its cursor (`ESC[?25h` / `ESC[?25l`), as far as the emulator has parsed. */
  cursorShown = true;
  private readonly proc: ReturnType<typeof pty.spawn>;
  /** Started at an interactive bash (`shell: 'job-control'`): no exit report, and bash outlives the CLI. */
  private readonly jobs: boolean;
  private exited = false;
  /** Called once the wrapper's end mark has been read. */
  private endMarkRead: (() => void) | null = null;
  private parsed: Promise<void> = Promise.resolve();
  private readonly frameListeners = new Set<() => void>();

  constructor(options: PtyOptions) {
    const cols = options.cols ?? 100;
    const rows = options.rows ?? 30;
    this.cwd = options.cwd ?? mkdtempSync(path.join(os.tmpdir(), 'loopdeck-pty-'));
    this.term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 5000 });
    const command = [process.execPath, options.script ?? CLI, ...options.args];
    const jobs = options.shell === 'job-control';
    this.jobs = jobs;
    this.proc = pty.spawn(jobs ? 'bash' : '/bin/sh', jobs ? ['--norc', '--noprofile', '-i'] : ['-c', wrapper(options.stdin ?? 'pty'), 'sh', ...command], {
      // node-pty sets TERM from the name: a test's own TERM (dumb) must win.
      name: options.env?.TERM ?? 'xterm-256color',
      cols,
      rows,
      cwd: this.cwd,
      env: jobs ? { ...childEnv(options.env), PS1: '$ ', HISTFILE: '/dev/null' } : childEnv(options.env),
    });
    if (jobs) this.proc.write(`${command.map(shellQuote).join(' ')}\r`);
    const cursorMode = (shown: boolean) => (params: (number | number[])[]) => {
      if (params.includes(25)) this.cursorShown = shown;
      return false; // the emulator handles the mode as well
    };
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, cursorMode(true));
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, cursorMode(false));
    let acknowledged = false;
    this.proc.onData((data) => {
      this.output += data;
      this.parsed = new Promise((resolve) =>
        this.term.write(data, () => {
          // Outside a synchronized update: a whole frame is on screen.
          if (!this.term.modes.synchronizedOutputMode) for (const listener of this.frameListeners) listener();
          resolve();
        }),
      );
      if (!acknowledged && this.output.slice(-(data.length + END_MARK.length)).includes(END_MARK)) {
        acknowledged = true;
        this.proc.write('\n');
        this.endMarkRead?.();
      }
    });
    this.exit = new Promise<PtyExit>((resolve) => {
      this.proc.onExit(({ exitCode, signal }) => {
        this.exited = true;
        // The pty may report the exit before the last bytes were read: wait for the
        // wrapper's end mark (briefly), then for the emulator to parse everything. A
        // wrapper ended by a signal, or bash (job control), prints none.
        void this.drained(!jobs && !signal).then(() => {
          const exitAt = this.output.lastIndexOf(EXIT_MARK);
          const endAt = this.output.lastIndexOf(END_MARK);
          const code = exitAt >= 0 ? Number(/^<<pty-exit (\d+)>>/.exec(this.output.slice(exitAt))?.[1]) : signal ? 128 + signal : exitCode;
          const tty = exitAt >= 0 && endAt > exitAt ? parseStty(this.output.slice(this.output.indexOf('\n', exitAt) + 1, endAt)) : null;
          resolve({ code, tty });
        });
      });
    });
  }

  /**
   * Calls `listener` each time the emulator has parsed a read of the CLI's output and no
   * frame is half drawn (outside a synchronized update): once after every frame, at least.
   * @returns a function that stops the calls
   */
  onFrame(listener: () => void): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  /** Has the wrapper (and so the CLI) exited? */
  get done(): boolean {
    return this.exited;
  }

  private async drained(endMark: boolean): Promise<void> {
    if (endMark && !this.output.includes(END_MARK)) {
      await within(
        new Promise<void>((resolve) => {
          this.endMarkRead = resolve;
        }),
        1_000,
      );
    }
    await this.settled();
  }

  /** Resolves once the emulator has parsed everything received so far. */
  async settled(): Promise<void> {
    let last: Promise<void> | null = null;
    while (last !== this.parsed) {
      last = this.parsed;
      await last;
    }
  }

  /** The visible rows, trailing spaces trimmed. */
  lines(): string[] {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  /** The visible screen, one row a line, trailing spaces trimmed. */
  screen(): string {
    return this.lines().join('\n');
  }

  /** Everything still in the emulator: the scrollback and the screen. */
  history(): string {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < buffer.length; y++) out.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return out.join('\n').replace(/\n+$/, '');
  }

  /** Visible rows that continue the row above because a line was wider than the terminal. */
  wrappedRows(): number[] {
    const buffer = this.term.buffer.active;
    const rows: number[] = [];
    for (let y = 0; y < this.term.rows; y++) if (buffer.getLine(buffer.viewportY + y)?.isWrapped) rows.push(y);
    return rows;
  }

  /** The screen framed for an assertion message. */
  describe(title = 'screen'): string {
    const rule = '─'.repeat(this.term.cols);
    return `\n── ${title} (${this.term.cols}×${this.term.rows})${this.exited ? ', exited' : ''}\n${rule}\n${this.screen()}\n${rule}`;
  }

  /**
   * Waits until `check` passes on the screen (polled, and checked on every output), or
   * fails after `timeoutMs` with the last screen in the message. Fails at once when the
   * CLI has exited without the screen passing.
   * @returns the screen that passed
   */
  async waitUntil(check: (screen: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
    const started = Date.now();
    let drawingSince: number | null = null;
    for (;;) {
      await this.settled();
      // Ink draws each frame between "begin/end synchronized update" (mode 2026), and a
      // frame can arrive in several reads: judge only whole frames (unless a frame never
      // ends, which a check then sees as it is).
      const drawing = this.term.modes.synchronizedOutputMode && !this.exited;
      drawingSince = drawing ? (drawingSince ?? Date.now()) : null;
      const screen = this.screen();
      if ((drawingSince === null || Date.now() - drawingSince > 1_000) && check(screen)) return screen;
      if (this.exited) {
        await this.settled();
        const last = this.screen();
        if (check(last)) return last;
        throw new Error(`the CLI exited while waiting for ${what}${this.describe('last screen')}`);
      }
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${this.describe('last screen')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 25);
        const sub = this.proc.onData(() => setImmediate(done));
        function done() {
          clearTimeout(timer);
          sub.dispose();
          resolve();
        }
      });
    }
  }

  /** The screen once no frame is half drawn. */
  frame(): Promise<string> {
    return this.waitUntil(() => true, 'a whole frame');
  }

  /** Waits until the screen contains `text` (or matches the pattern). */
  waitFor(pattern: string | RegExp, timeoutMs = 15_000): Promise<string> {
    const check = typeof pattern === 'string' ? (s: string) => s.includes(pattern) : (s: string) => pattern.test(s);
    return this.waitUntil(check, typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern), timeoutMs);
  }

  /** Waits until the screen no longer contains `text` (or matches the pattern). */
  waitForGone(pattern: string | RegExp, timeoutMs = 15_000): Promise<string> {
    const check = typeof pattern === 'string' ? (s: string) => !s.includes(pattern) : (s: string) => !pattern.test(s);
    return this.waitUntil(check, `${typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern)} to go away`, timeoutMs);
  }

  /** Writes key bytes as typed: `'y'`, `KEY.enter`, `KEY.ctrlC`, … (a multi-character string arrives as one chunk, like a paste). */
  press(keys: string): void {
    if (this.exited) throw new Error(`cannot press ${JSON.stringify(keys)}: the CLI has exited${this.describe('last screen')}`);
    this.proc.write(keys);
  }

  /**
   * Types `text` one key at a time, as a person does: each character is written after the
   * previous one showed on screen (`echo` picks the text that must be visible).
   */
  async type(text: string, echo: (typed: string) => string | RegExp = (typed) => typed): Promise<void> {
    for (let i = 1; i <= text.length; i++) {
      this.press(text[i - 1]!);
      await this.waitFor(echo(text.slice(0, i)), 5_000);
    }
  }

  /**
   * Sends `signal` to the CLI itself, not the wrapper, which then still reports how the
   * terminal was left. Linux: finds the CLI in /proc.
   */
  signalCli(signal: NodeJS.Signals): void {
    process.kill(this.cliPid(), signal);
  }

  /** The CLI's process id (the wrapper's only child). Linux: read from /proc. */
  cliPid(): number {
    const children = readFileSync(`/proc/${this.proc.pid}/task/${this.proc.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    if (children.length !== 1) throw new Error(`expected the CLI to be the wrapper's only child, found [${children.join(', ')}]`);
    return Number(children[0]);
  }

  /** The CLI's process state letter from /proc (`T`: stopped, `S`: sleeping, `R`: running). */
  cliState(): string {
    const pid = this.cliPid();
    const state = processState(pid);
    if (state === null) throw new Error(`the CLI (${pid}) has exited`);
    return state;
  }

  /** The terminal's modes now, as `stty -a` reads them from the pty the CLI runs on. */
  ttyModes(): TtyModes {
    const device = readlinkSync(`/proc/${this.cliPid()}/fd/1`);
    return parseStty(execFileSync('stty', ['-a', '-F', device], { encoding: 'utf8' }));
  }

  /** Resizes the terminal and the emulator, as a window resize does (SIGWINCH). */
  resize(cols: number, rows: number): void {
    this.proc.resize(cols, rows);
    this.term.resize(cols, rows);
  }

  /**
   * How the CLI left the terminal, from what it wrote: the cursor shown after the last
   * time it was hidden, the alternate screen left, bracketed paste, mouse tracking,
   * application cursor keys and synchronized output off.
   */
  async leftModes(): Promise<{
    cursorShown: boolean;
    alternateScreen: boolean;
    bracketedPaste: boolean;
    mouseTracking: string;
    applicationCursorKeys: boolean;
    synchronizedOutput: boolean;
  }> {
    await this.settled();
    const out = this.output;
    const hidden = out.lastIndexOf('\u001b[?25l');
    const shown = out.lastIndexOf('\u001b[?25h');
    const modes = this.term.modes;
    return {
      cursorShown: hidden === -1 || shown > hidden,
      alternateScreen: this.term.buffer.active.type === 'alternate',
      bracketedPaste: modes.bracketedPasteMode,
      mouseTracking: modes.mouseTrackingMode,
      applicationCursorKeys: modes.applicationCursorKeysMode,
      synchronizedOutput: modes.synchronizedOutputMode,
    };
  }

  /**
   * Ends the CLI if it still runs (SIGCONT, as it may be stopped, then SIGTERM to it; SIGKILL
   * to the whole process group if it is still there 3 s later) and frees the emulator.
   * Started at an interactive bash, the CLI is waited for and then bash is ended.
   */
  async close(): Promise<void> {
    if (!this.exited) {
      const group = -this.proc.pid;
      let cli: number | null = null;
      try {
        cli = this.cliPid();
      } catch {
        // exited already (or not started yet): only the wrapper or bash is left
      }
      // Ctrl+Z stops the terminal's foreground process group, the wrapper with the CLI: a
      // stopped CLI cannot act on SIGTERM, and a stopped wrapper cannot report the exit.
      // A job bash has stopped is no longer in the foreground: continued, it would stop
      // again as it restores the terminal, so it is killed.
      const stoppedJob = this.jobs && cli !== null && processState(cli) === 'T';
      signal(group, 'SIGCONT');
      if (cli !== null) signal(cli, 'SIGCONT');
      signal(cli ?? group, stoppedJob ? 'SIGKILL' : 'SIGTERM');
      // bash outlives its job: once the CLI is gone, it is ended too.
      if (this.jobs) {
        if (cli !== null) await within(gone(cli), 3_000);
        signal(this.proc.pid, 'SIGKILL');
      }
      if (!(await within(this.exit, 3_000))) {
        signal(group, 'SIGKILL');
        if (cli !== null) signal(cli, 'SIGKILL');
        await within(this.exit, 2_000);
      }
    }
    this.term.dispose();
  }
}

/** Sends `name` to a process (a negative `pid`: a process group), if it is still there. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

/** Whether `promise` settled within `ms` (it is not cancelled either way). */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A process's state letter from /proc (`T`: stopped, `Z`: exited, not yet reaped), or `null` once it is gone. */
function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** Resolves once process `pid` has exited (gone, or a zombie its parent has yet to reap). Linux: polls /proc. */
async function gone(pid: number): Promise<void> {
  for (let state = processState(pid); state !== null && state !== 'Z' && state !== 'X'; state = processState(pid)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `text` quoted for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Starts `node dist/cli.js <args>` in a pseudo-terminal of `cols` × `rows`. */
export function startPty(options: PtyOptions): PtyTerminal {
  return new PtyTerminal(options);
}
