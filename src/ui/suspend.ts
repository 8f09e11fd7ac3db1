import { PASTE_OFF, PASTE_ON } from './terminal-input.js';

/**
 * Suspend and resume, as full-screen terminal programs do (see "Console input" in
 * docs/design.md). In raw mode the terminal does not turn Ctrl+Z into SIGTSTP: the console
 * reads it as a key and raises SIGTSTP itself, so Ctrl+Z and `kill -TSTP` take one path:
 * the frame is taken off the screen, the terminal is given back as the shell expects it
 * (raw mode off, bracketed paste off, cursor shown), and the process stops. On SIGCONT
 * (`fg`) raw mode and bracketed paste are turned on again, the terminal's size is read
 * again (a resize while stopped signalled the shell, not the console) and the frame is
 * drawn anew at that size.
 *
 * The process stops itself with SIGSTOP rather than SIGTSTP's default action: the kernel
 * ignores a SIGTSTP whose action is the default in an orphaned process group (a program
 * started by `sh -c`, a supervisor or a pty harness), which would leave the terminal given
 * back while the console still runs. It stops its whole process group, as `vi` and `less`
 * do with SIGTSTP: started through a wrapper (`npx loopdeck`, `npm start`), the wrapper is
 * in the same job and must stop too, or the shell never sees the job stop and gives no
 * prompt to type `fg` at.
 */

/** What {@link guardSuspend} acts on: the process, its terminal streams (replaceable in tests). */
export interface SuspendHost {
  on: (event: 'SIGTSTP' | 'SIGCONT', listener: () => void) => unknown;
  off: (event: 'SIGTSTP' | 'SIGCONT', listener: () => void) => unknown;
  /** Stops the process and its process group (SIGSTOP). */
  stop: () => void;
  /**
   * Reads the terminal's size again (stdout's `columns` and `rows` change and it emits
   * `resize` when the size did), then calls `done`.
   */
  refreshSize: (done: () => void) => void;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

const PROCESS: SuspendHost = {
  on: (event, listener) => process.on(event, listener),
  off: (event, listener) => process.off(event, listener),
  stop: () => process.kill(0, 'SIGSTOP'),
  refreshSize: raiseWinch,
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
};

const SHOW_CURSOR = '\u001b[?25h';
const HIDE_CURSOR = '\u001b[?25l';

/** How long the console waits for the frame to be taken off the screen before it stops (ms). */
const ERASE_MS = 30;

/**
 * The frame: `hide` takes it off the screen (Ink draws an empty tree), `show` draws it
 * again. `show` is called on every SIGCONT, however the process was stopped (Ctrl+Z, or a
 * `kill -STOP` it never saw): what was typed meanwhile arrives the moment it continues.
 */
export interface SuspendView {
  hide: () => void;
  show: () => void;
}

/**
 * Handles SIGTSTP and SIGCONT while the console is on screen.
 * @returns a function that removes the handlers
 */
export function guardSuspend(view: SuspendView, host: SuspendHost = PROCESS): () => void {
  let stopping = false;
  const onStop = () => {
    if (stopping) return;
    stopping = true;
    view.hide();
    // Ink writes the empty frame on its next render turn; then the terminal goes back.
    setTimeout(() => {
      try {
        if (host.stdin.isTTY && host.stdin.isRaw) host.stdin.setRawMode(false);
      } catch {
        // the terminal is gone: nothing to give back
      }
      if (host.stdout.isTTY) host.stdout.write(PASTE_OFF + SHOW_CURSOR);
      host.stop();
    }, ERASE_MS);
  };
  const onContinue = () => {
    stopping = false;
    if (host.stdin.isTTY) {
      try {
        // Off first: the shell may have changed the modes while we were stopped, and
        // turning raw mode on when Node believes it is on already does nothing.
        host.stdin.setRawMode(false);
        host.stdin.setRawMode(true);
      } catch {
        // the terminal is gone; SIGHUP follows
      }
    }
    if (!host.stdout.isTTY) {
      view.show();
      return;
    }
    host.stdout.write(PASTE_ON + HIDE_CURSOR);
    // A window resized while stopped signalled the shell in the foreground, not the
    // console: the size is read again before the frame is drawn, or it would be drawn at
    // the old width after `fg`.
    host.refreshSize(() => {
      if (!stopping) view.show();
    });
  };
  host.on('SIGTSTP', onStop);
  host.on('SIGCONT', onContinue);
  return () => {
    host.off('SIGTSTP', onStop);
    host.off('SIGCONT', onContinue);
  };
}

/** How long {@link raiseWinch} waits for its SIGWINCH before it goes on all the same (ms). */
const WINCH_MS = 200;

/**
 * Raises SIGWINCH at this process, so Node reads the terminal's size again (its own
 * handler, registered with stdout, updates `columns` and `rows` and emits `resize`), then
 * calls `done` from a listener that runs after Node's; after {@link WINCH_MS} without the
 * signal, `done` is called all the same.
 */
function raiseWinch(done: () => void): void {
  let timer: NodeJS.Timeout | undefined;
  const finish = () => {
    clearTimeout(timer);
    process.off('SIGWINCH', finish);
    done();
  };
  timer = setTimeout(finish, WINCH_MS);
  process.on('SIGWINCH', finish);
  process.kill(process.pid, 'SIGWINCH');
}

/** Raises SIGTSTP (Ctrl+Z): handled by {@link guardSuspend} while the console is up. */
export function suspendSelf(): void {
  process.kill(process.pid, 'SIGTSTP');
}
