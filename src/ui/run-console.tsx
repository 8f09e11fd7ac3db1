import React from 'react';
import { render, type Instance, type RenderOptions } from 'ink';
import { drive } from '../engine/drive.js';
import { guardConsole } from '../text/print.js';
import { sanitize } from '../text/sanitize.js';
import { describeError } from '../engine/errors.js';
import type { LoopEvent } from '../engine/events.js';
import type { LoopOutcome, LoopRun } from '../engine/session.js';
import type { PreparedRun } from '../launch.js';
import { App } from './App.js';
import { ConsoleProvider, type ConsoleController } from './context.js';
import { createLiveConsole } from './live.js';
import { EXIT } from '../exit-codes.js';
import { continueCommand, failedNote, restoreNote, whereLine } from '../continue-command.js';
import { RunInterrupted } from '../engine/errors.js';
import { createReplay, readingNotice } from './replay.js';
import { batchInto, createConsoleStore, LIVE_BATCH_MS, LIVE_EVENTS } from './store.js';
import { guardSuspend, suspendSelf } from './suspend.js';
import { heapBound } from './heap.js';
import { PASTE_OFF, PASTE_ON } from './terminal-input.js';
import { handOverOutline, type OutlineInfo } from './outline.js';
import { keepingScrollback } from './keep-scrollback.js';

/**
 * How Ink draws the console. Ctrl+C is the console's own key (once pauses, twice quits).
 * Ink holds a frame back until 1000 / `maxFps` ms after the one before (33 ms by
 * default). The console already limits its own updates: events reach the store ten times
 * a second at most ({@link LIVE_BATCH_MS}), keys and clocks come at human pace. Ink's cap
 * would only make a keypress that follows an event frame wait, so it is set out of the
 * way (1 ms); updates in the same tick still make one frame.
 */
export const RENDER_OPTIONS = { exitOnCtrlC: false, maxFps: 1000 } as const satisfies RenderOptions;

/** How the console ended: the run's outcome, or `null` when the operator quit first. */
export interface ConsoleResult {
  outcome: LoopOutcome | null;
  /** What to print after the console: quotes the run's summary, so print it with `printLine` (sanitized). */
  message: string;
  /** The warnings the run started (or resumed) with, shown in the notice line: print them again after the console (`printWarnings`). */
  warnings: readonly string[];
}

/** Waits for `promise`, at most `ms`; the timer never outlives the wait (it would keep the process alive). */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Raw mode off, bracketed paste off and the cursor shown, whatever state Ink was left in. */
export function restoreTerminal(stdin: NodeJS.ReadStream = process.stdin, stdout: NodeJS.WriteStream = process.stdout): void {
  try {
    if (stdin.isTTY && stdin.isRaw) stdin.setRawMode(false);
  } catch {
    // the terminal is gone: nothing to restore
  }
  if (stdout.isTTY) stdout.write(`${PASTE_OFF}\u001b[?25h`);
}

/** What {@link guardExits} acts on: the process and its standard streams (replaceable in tests). */
export interface ExitHost {
  on: (event: string, listener: (...args: unknown[]) => void) => unknown;
  off: (event: string, listener: (...args: unknown[]) => void) => unknown;
  exit: (code: number) => void;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: { write: (text: string) => unknown };
}

const PROCESS: ExitHost = {
  on: (event, listener) => process.on(event, listener),
  off: (event, listener) => process.off(event, listener),
  exit: (code) => process.exit(code),
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
};

/**
 * Every way out of the console restores the terminal: an exception or a rejected
 * promise anywhere, SIGTERM, SIGHUP, SIGINT or SIGQUIT unmount Ink, turn raw mode off, show the cursor,
 * flush the log, print what happened and exit non-zero.
 * @returns a function that removes the handlers
 */
export function guardExits(ink: () => Instance | null, flush: () => void, host: ExitHost = PROCESS): () => void {
  let exiting = false;
  const bail = (code: number, message: string) => {
    if (exiting) return;
    exiting = true;
    try {
      ink()?.unmount();
    } catch {
      // already unmounted
    }
    restoreTerminal(host.stdin, host.stdout);
    try {
      flush();
    } catch (error) {
      host.stderr.write(`${sanitize(`loopdeck: could not flush the log: ${describeError(error)}`)}\n`);
    }
    // A crash's message may quote an agent, a tool or a server.
    host.stderr.write(`${sanitize(message)}\n`);
    host.exit(code);
  };
  const onCrash = (error: unknown) => bail(EXIT.usage, `loopdeck: crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const onTerm = () => bail(EXIT.interrupted, 'loopdeck: terminated (SIGTERM); the log is kept');
  const onHup = () => bail(EXIT.interrupted, 'loopdeck: the terminal went away (SIGHUP); the log is kept');
  // In raw mode Ctrl+C is a key the console handles; a SIGINT comes from elsewhere, or
  // from a Ctrl+C pressed before the console took the keyboard.
  const onInt = () => bail(EXIT.interrupted, 'loopdeck: interrupted (SIGINT); the log is kept');
  // Ctrl+\ in a terminal not in raw mode, or `kill -QUIT`: a quit as the others, the terminal restored.
  const onQuit = () => bail(EXIT.interrupted, 'loopdeck: quit (SIGQUIT); the log is kept');
  host.on('uncaughtException', onCrash);
  host.on('unhandledRejection', onCrash);
  host.on('SIGTERM', onTerm);
  host.on('SIGHUP', onHup);
  host.on('SIGINT', onInt);
  host.on('SIGQUIT', onQuit);
  return () => {
    host.off('uncaughtException', onCrash);
    host.off('unhandledRejection', onCrash);
    host.off('SIGTERM', onTerm);
    host.off('SIGHUP', onHup);
    host.off('SIGINT', onInt);
    host.off('SIGQUIT', onQuit);
  };
}

/**
 * Draws `root` with Ink (`root(true)`: the tree with the frame taken off, while suspended).
 * Ink replaces `console` while it draws (a library's log line is printed above the
 * frame); that replacement is guarded too, so what a library logs (e.g. a server's
 * malformed stream line) reaches the terminal sanitized. Ctrl+Z and SIGTSTP suspend it;
 * `onContinue` is called on every SIGCONT, before the frame is drawn again.
 * @returns Ink's instance and a function that removes the suspend handlers
 */
export function draw(root: (hidden: boolean) => React.ReactElement, onContinue: () => void = () => undefined): { ink: Instance; unsuspend: () => void } {
  // Pasted text arrives marked as a paste (never as keys that could submit or answer).
  if (process.stdin.isTTY && process.stdout.isTTY) process.stdout.write(PASTE_ON);
  // The outline written before React and Ink were loaded is erased by Ink's first frame's own write.
  handOverOutline(process.stdout);
  const ink = render(root(false), { ...RENDER_OPTIONS, stdout: keepingScrollback(process.stdout) });
  guardConsole();
  const unsuspend = guardSuspend({
    hide: () => ink.rerender(root(true)),
    show: () => {
      onContinue();
      ink.rerender(root(false));
    },
  });
  return { ink, unsuspend };
}

/** What the console runs once it is on screen: a prepared session and how to start it. */
export interface ConsoleRun {
  prepared: PreparedRun;
  /** Starts the run (or resumes it from its log). */
  start: () => LoopRun;
  /** Said in the console before anything runs (e.g. a log's torn last line). */
  warnings?: readonly string[];
  /**
   * Those of {@link warnings} the operator confirms before the run starts (a workspace used
   * in place over uncommitted changes): the console shows every warning whole and waits
   * for Enter, or q. Headless, they are printed like the others.
   */
  confirm?: readonly string[];
}

/**
 * Draws the console first, then prepares the run behind it (loading loop.yaml, copying
 * and git-initialising the workspace, reading a log can take a second or more), then
 * runs it until the operator quits. Events reach the store in batches; yields wait for
 * the operator's keys (an approval no longer than `approval.timeout`). With
 * `confirmResume`, nothing runs until the operator confirms. With `preparing` (what the
 * outline showed: the goal and the run id), the header shows those from the first frame
 * until the run's `session.start` is folded. `resumeCommand` gives the command that
 * continues the run of a folder, which the quit confirmation names once the run is prepared.
 * @param prepare builds the run; `step` says what it is doing, shown while it works
 * @returns the outcome (`null` when the operator quit first), the closing message and
 *   the prepared run (its log is still open)
 * @throws whatever `prepare` throws (e.g. ConfigErrors), after the terminal is restored
 */
export async function runConsole(
  prepare: (step: (text: string) => void) => Promise<ConsoleRun>,
  options: { confirmResume?: boolean; preparing?: OutlineInfo; resumeCommand?: (runDir: string) => string } = {},
): Promise<ConsoleResult & { prepared: PreparedRun }> {
  const store = createConsoleStore([], options.preparing ? { preparing: options.preparing } : {});
  const feed = batchInto(store, LIVE_BATCH_MS);
  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => (quit = resolve));
  let confirmed!: () => void;
  const confirmation = new Promise<void>((resolve) => (confirmed = resolve));

  // Until the run is prepared there is nothing to answer or command; q and Ctrl+C quit.
  let live: ReturnType<typeof createLiveConsole> | null = null;
  const notYet = async () => ({ ok: false, refused: true as const, message: 'the run is still being prepared' });
  const controller: ConsoleController = {
    answer: (payload, seq) => live?.controller.answer(payload, seq),
    goalStatus: () => (live ? live.controller.goalStatus() : notYet()),
    reviseGoal: (directive, text) => (live ? live.controller.reviseGoal(directive, text) : notYet()),
    extendBudget: (dimension, by) => (live ? live.controller.extendBudget(dimension, by) : notYet()),
    stop: (options) => (live ? live.controller.stop(options) : notYet()),
    reload: () => (live?.controller.reload ? live.controller.reload() : notYet()),
    answerReload: (seq, accept) => live?.controller.answerReload?.(seq, accept) ?? { ok: false, message: 'the run is still being prepared' },
    quit: () => (live ? live.controller.quit() : quit()),
    requestPause: () => (live ? live.controller.requestPause?.() : quit()),
    extend: (dimension) => (live?.controller.extend ? live.controller.extend(dimension) : notYet()),
    confirm: () => {
      store.getState().setGate(null);
      confirmed();
    },
    suspend: suspendSelf,
    catchUp: () => feed.flush(),
  };

  let prepared: PreparedRun | null = null;
  let ink: Instance | null = null;
  const unguard = guardExits(() => ink, () => {
    feed.flush();
    prepared?.log.sync();
  });
  // The command the quit confirmation names, once the run (and so its folder) is prepared.
  let resumeCommand: string | null = null;
  let hiddenNow = false;
  const root = (hidden: boolean) => {
    hiddenNow = hidden;
    return (
      <ConsoleProvider store={store} controller={controller} options={resumeCommand ? { resumeCommand } : {}}>
        <App hidden={hidden} />
      </ConsoleProvider>
    );
  };
  // However the process was stopped, what waits for an answer arms anew once it continues.
  const drawn = draw(root, () => store.getState().woke());
  ink = drawn.ink;
  // A render error unmounts Ink and rejects this: quit the same way as the operator would.
  let renderFailure: unknown = null;
  ink.waitUntilExit().catch((error: unknown) => {
    renderFailure = error;
    quit();
  });

  let outcome: LoopOutcome | null = null;
  let failure: unknown = null;
  let run: LoopRun | null = null;
  let unsubscribe = () => {};
  let warnings: readonly string[] = [];
  let unprepared = true;
  try {
    store.getState().setNotice({ ok: true, text: 'preparing the run…', working: true });
    const preparing = prepare((text) => store.getState().setNotice({ ok: true, text, working: true }));
    const ready = await Promise.race([preparing, quitting.then(() => null)]);
    // Quit while preparing: let preparing finish (a half-made workspace helps nobody).
    const made = ready ?? (await preparing);
    unprepared = false;
    prepared = made.prepared;
    if (options.resumeCommand) {
      resumeCommand = options.resumeCommand(made.prepared.runDir);
      drawn.ink.rerender(root(hiddenNow));
    }
    const { session, policy } = made.prepared;
    store.getState().apply(made.prepared.prior);
    unsubscribe = session.subscribe(feed.push);
    made.prepared.onWait((wait) => store.getState().setWait(wait));
    live = createLiveConsole({
      session,
      store,
      approvalTimeoutSeconds: policy.approval.timeout,
      increments: policy.budget.increments,
      onQuit: () => quit(),
    });
    warnings = made.warnings ?? [];
    const confirm = (made.confirm ?? []).filter((w) => warnings.includes(w));
    // Every warning in the notice line, wrapped over its rows and counted, and again after the console; those to confirm also whole in the gate.
    store.getState().setNotice(startNotice(warnings));
    if (ready === null) {
      // The operator quit before the run was ready: nothing runs.
    } else if (options.confirmResume) {
      store.getState().setGate({ kind: 'resume', warnings });
    } else if (confirm.length > 0) {
      // The operator starts the run having read every warning, or quits.
      store.getState().setGate({ kind: 'start', warnings });
    } else {
      confirmed();
    }

    // Nothing runs before the operator confirms a resume (or quits instead).
    if (ready !== null) await Promise.race([confirmation, quitting]);
    if (ready !== null && !store.getState().gate) run = made.start();
    const drivingRun =
      run === null
        ? Promise.resolve()
        : drive(run, live.answerer).then(
            (result) => {
              outcome = result;
              feed.flush();
            },
            (error: unknown) => {
              // Quit: the run stopped where it was, as asked.
              if (error instanceof RunInterrupted) return;
              failure = error;
              feed.flush();
              store.getState().setNotice({ ok: false, text: `engine error: ${describeError(error)}` });
            },
          );

    await quitting;
    live.dispose();
    if (run && !outcome && !failure) await within(run.return(undefined as never), 5000);
    await within(drivingRun, 100);
    feed.flush();
  } finally {
    unsubscribe();
    // Preparing failed: take the console off the screen, so the error is all there is.
    // An empty tree first: a frame still pending in Ink's render throttle would otherwise be
    // drawn again by the unmount, after the clear.
    if (unprepared) {
      ink.rerender(<></>);
      ink.clear();
    }
    ink.unmount();
    await ink.waitUntilExit().catch(() => undefined);
    drawn.unsuspend();
    restoreTerminal();
    unguard();
  }
  if (renderFailure) throw renderFailure;
  if (failure) throw failure;
  const result = outcome as LoopOutcome | null;
  // The message is printed sanitized; the summary, which may quote the agent (its final
  // claim) or a server, is also kept to one line, so it cannot add lines of its own.
  const where = whereLine(prepared.log.file, prepared.workspace);
  if (result) return { outcome: result, message: `loopdeck: ${result.reason}: ${sanitize(result.summary, { oneLine: true })}\n${where}${restoreNote(prepared.session.snapshot.abort)}${failedNote(result.reason)}`, warnings, prepared };
  // A run that never started has nothing to resume; one quit at the resume gate still has.
  if (run === null && !options.confirmResume) return { outcome: null, message: `loopdeck: quit before the run started.\n${where}`, warnings, prepared };
  const what = run === null ? 'quit without resuming' : 'quit before the run ended';
  // The command alone on its own line: copyable whole however narrow the terminal.
  const again = continueCommand(prepared.runDir);
  return { outcome: null, message: `loopdeck: ${what}; the log is kept.\n${where}\ncontinue with:\n${again}`, warnings, prepared };
}

/**
 * The notice a run starts with when its preparation warned: the one warning, or how many
 * there are, each after it (the notice wraps over its rows), and that they are printed
 * again once the console closes; `null` for none.
 */
export function startNotice(warnings: readonly string[]): { ok: false; text: string } | null {
  if (warnings.length === 0) return null;
  if (warnings.length === 1) return { ok: false, text: warnings[0]! };
  return { ok: false, text: `${warnings.length} warnings (listed again on exit): ${warnings.map((w, i) => `${i + 1}. ${w}`).join(' · ')}` };
}

/**
 * Shows a recorded run read-only: ←/→ step through the events, Home/End jump, and
 * every panel shows the state as of the selected event; `q` quits.
 */
export async function replayConsole(events: readonly LoopEvent[], warnings: readonly string[] = []): Promise<void> {
  await showReplay(createReplay(events, () => undefined, warnings));
}

/** Lines of the log read before the first frame: the run's start and first steps, in a few milliseconds. */
const FIRST_LINES = 2000;
/** Milliseconds of reading between two turns of the event loop (keys and frames go between). */
const READ_SLICE_MS = 25;
/** Milliseconds between two updates of the console while the log is read. */
const READ_FRAME_MS = 250;
/**
 * MB the heap may grow past what it last held alive, before it is collected
 * ({@link heapBound}): while the log is read, and then every {@link HEAP_CHECK_MS} as the
 * cursor moves (each move folds a state and reads a window of events anew).
 */
const HEAP_HEADROOM_MB = 32;
const HEAP_CHECK_MS = 500;

/**
 * {@link replayConsole} of a log file of any length, in bounded memory: the log is read
 * through a {@link LogIndex} (line offsets and periodic fold snapshots; events are read
 * again from the file when shown). The first frame comes after the first
 * {@link FIRST_LINES} lines; the rest is read between frames while the cursor follows
 * it (a notice says how far), and the replay stands at the last event once it is read,
 * as for a short log. Keys work all along: Home goes to the start, End follows again.
 * @returns the warnings and notes of reading the log (shown in the notice line; print them after)
 * @throws LogError when the log cannot be read or has an unreadable schema version
 */
export async function replayLogConsole(file: string): Promise<{ warnings: string[]; notes: string[] }> {
  const { LogIndex } = await import('../engine/log-index.js');
  const index = new LogIndex(file);
  let checks: NodeJS.Timeout | undefined;
  try {
    index.readMore(FIRST_LINES);
    const replay = createReplay(index, () => undefined, index.warnings ?? [], index.notes);
    await showReplay(replay, async (stopped) => {
      // After the first frame: reaching the collector costs a few milliseconds.
      const bound = heapBound(HEAP_HEADROOM_MB);
      checks = setInterval(bound, HEAP_CHECK_MS);
      if (index.complete) return;
      const notice = () => {
        const share = index.size > 0 ? Math.floor((100 * index.bytesRead) / index.size) : 100;
        replay.store.getState().setNotice({ ok: true, working: true, text: `reading the log: ${index.count.toLocaleString('en-US')} events so far (${share}%)` });
      };
      notice();
      let shown = performance.now();
      while (!stopped()) {
        const until = performance.now() + READ_SLICE_MS;
        let done = false;
        while (!done && performance.now() < until) done = index.readMore(256);
        bound();
        if (done) break;
        if (performance.now() - shown >= READ_FRAME_MS) {
          replay.refresh();
          notice();
          shown = performance.now();
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (stopped()) return;
      replay.refresh();
      replay.store.getState().setNotice(readingNotice(index.warnings ?? [], index.notes));
    });
    return { warnings: index.warnings ?? [], notes: index.notes };
  } finally {
    clearInterval(checks);
    index.close();
  }
}

/**
 * Draws a replay until `q`; `meanwhile` runs beside it (reading the rest of a log) and is
 * told when the console has quit. An error of `meanwhile` ends the console and is thrown.
 */
async function showReplay(
  replay: ReturnType<typeof createReplay>,
  meanwhile: (stopped: () => boolean) => Promise<void> = async () => undefined,
): Promise<void> {
  let quit!: () => void;
  let failed: unknown = null;
  let over = false;
  const quitting = new Promise<void>((resolve) => (quit = resolve));
  const { store, controller } = replay;
  let ink: Instance | null = null;
  const unguard = guardExits(() => ink, () => undefined);
  const suspendable = { ...controller, quit: () => quit(), suspend: suspendSelf };
  const drawn = draw((hidden) => (
    <ConsoleProvider store={store} controller={suspendable}>
      <App hidden={hidden} />
    </ConsoleProvider>
  ));
  ink = drawn.ink;
  ink.waitUntilExit().catch(() => quit());
  const beside = meanwhile(() => over).catch((error: unknown) => {
    failed = error;
    quit();
  });
  try {
    await quitting;
  } finally {
    over = true;
    await beside;
    ink.unmount();
    await ink.waitUntilExit().catch(() => undefined);
    drawn.unsuspend();
    restoreTerminal();
    unguard();
  }
  if (failed !== null) throw failed;
}
