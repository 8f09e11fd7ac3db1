// Console benchmarks (`npm run bench`, after `npm run build`). The real console
// (`<ConsoleProvider store controller><App/></ConsoleProvider>`) is rendered by Ink into a
// fake terminal: a Writable with a size and `isTTY`, which records every frame Ink writes,
// and a fake stdin in raw mode, so `useInput` reads keys. Each target is printed as a
// number measured in this run against its goal, with MISSED when it is not met; the process
// exits 0 either way (chain it after bench/engine.ts, or import `benchConsole`).
//
//   tsx bench/console.ts [burst] [frames] [history] [heap] [cold]     (default: all)
//
//   1. keypress-to-frame latency during a burst of 5,000 events/s: p95 ≤ 35 ms on an idle
//      machine, and ≤ 50 ms while two CPU-bound processes run beside it ("loaded": the
//      bench starts them itself and stops them after);
//   2. React commits during that (idle) burst ≤ 1.2× the frames Ink writes;
//      (frames: the CPU and wall time of one key frame and one batch frame, a detail line;)
//   3. with 5,000 events in history: < 4 KB written per frame, no full-screen clear after
//      the first frame;
//   4. heap after 100,000 events ≤ 20 MB above start-up (the console mounted, no events);
//   5. cold start (`node dist/cli.js run` of the demo in a pty; `replay` of a small log
//      too): the first screen (the outline drawn before React and Ink load) ≤ 0.5× a bare
//      Ink hello-world (bench/hello-ink.js) spawned the same way, the console's first whole
//      frame ≤ 1.5×.
//
// Ink reads the CI flag once, when it is first imported, and with CI set it writes no live
// frames at all (docs/stack.md, "Ink 6"): the flag is deleted before ink is imported, so
// nothing here imports ink or src/ui statically. React runs the build the CLI runs
// (production unless NODE_ENV says otherwise); in it <React.Profiler> reports nothing, so
// commits are counted where Ink ends each one. The store is fed and Ink is rendered with
// the settings of `runConsole` (src/ui/run-console.tsx): its batch interval (LIVE_BATCH_MS)
// and Ink options (RENDER_OPTIONS) are imported from it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import type { LoopEvent } from '../src/engine/events.js';
import { FakeStdin } from '../tests/support/fake-stdin.js';
import { makeLog, withLog } from './make-log.js';
import { collectGarbage, detail, header, median, namedParts, quantile, summary, target } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const HELLO = path.join(ROOT, 'bench', 'hello-ink.js');

/** The fake terminal: a common size for a console in its full layout. */
export const COLUMNS = 120;
export const ROWS = 40;
/** A large terminal, for the bytes per frame it costs (a detail line, no target). */
const LARGE = [200, 60] as const;
/** The burst: events per second, for how long, and a key every this many ms. */
const RATE = 5_000;
const BURST_MS = 10_000;
const KEY_EVERY_MS = 100;
const HISTORY_EVENTS = 5_000;
const HEAP_EVENTS = 100_000;

/** Keypress p95 on an idle machine, and beside {@link BURNERS} CPU-bound processes. */
const LATENCY_TARGET_MS = 35;
const LOADED_LATENCY_TARGET_MS = 50;
/** How many CPU-bound processes the loaded burst runs beside the console. */
const BURNERS = 2;
const COMMIT_RATIO_TARGET = 1.2;
const FRAME_BYTES_TARGET = 4 * 1024;
const HEAP_TARGET_MB = 20;
/** The first screen (the outline) at most half a bare Ink hello-world; the console's first whole frame at most 1.5×. */
const COLD_RATIO_TARGET = 0.5;
const COLD_FRAME_RATIO_TARGET = 1.5;

const BSU = '\u001b[?2026h';
const ESU = '\u001b[?2026l';
/** A full-screen clear: erase screen (Ink's `clearTerminal` is `ESC[2J ESC[3J ESC[H`), erase scrollback, or a reset. */
const CLEARS = ['\u001b[2J', '\u001b[3J', '\u001bc'];
/** On screen when the help overlay is open, and when it is closed (the timeline's title). */
const HELP_SHOWN = 'Help · keys and commands';
const TIMELINE_SHOWN = 'Timeline · filter';

const ms = (n: number, digits = 1) => n.toFixed(digits);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const mb = (bytes: number) => bytes / 2 ** 20;
const sleep = (t: number) => new Promise<void>((resolve) => setTimeout(resolve, t));

// ------------------------------------------------------------------ the fake terminal

/** One frame Ink wrote: everything between a begin- and end-synchronized-update, or one lone write. */
export interface Frame {
  /** performance.now() when the frame was complete. */
  at: number;
  bytes: number;
  text: string;
  /** It clears the whole screen (or the scrollback). */
  clear: boolean;
}

/**
 * A terminal's stdout for Ink: `isTTY`, a size, and a record of every frame written.
 * Ink wraps each frame of a TTY in synchronized-update marks (`ESC[?2026h` … `ESC[?2026l`),
 * written separately; those writes are grouped into one frame.
 */
export class FakeStdout extends Writable {
  readonly isTTY = true;
  readonly frames: Frame[] = [];
  /** Called with each frame as it is written (synchronously, inside Ink's write). */
  onFrame: ((frame: Frame) => void) | null = null;
  /** Keep each frame's text (off where memory is measured: only sizes are kept). */
  keepText = true;
  private group: string[] | null = null;

  constructor(
    public columns: number,
    public rows: number,
  ) {
    super({ decodeStrings: false });
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.record(typeof chunk === 'string' ? chunk : String(chunk));
    callback();
  }

  private record(text: string): void {
    if (text === BSU) {
      this.group = [text];
      return;
    }
    if (this.group) {
      this.group.push(text);
      if (text !== ESU) return;
      text = this.group.join('');
      this.group = null;
    }
    if (text === '') return;
    const frame: Frame = { at: performance.now(), bytes: Buffer.byteLength(text), text, clear: CLEARS.some((c) => text.includes(c)) };
    this.onFrame?.(frame);
    this.frames.push(this.keepText ? frame : { ...frame, text: '' });
  }
}

// ------------------------------------------------------------------ the console under test

/** Ink and the console's modules, imported once the CI flag is gone. */
export async function loadConsole() {
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  // The React build the CLI runs (src/cli.tsx: production unless NODE_ENV says otherwise).
  process.env.NODE_ENV ??= 'production';
  const { default: isInCi } = await import('is-in-ci');
  if (isInCi) throw new Error('ink was imported with CI set before bench/console.ts ran: it would write no live frames');
  const React = await import('react');
  const ink = await import('ink');
  const { App } = await import('../src/ui/App.js');
  const { ConsoleProvider } = await import('../src/ui/context.js');
  const { batchInto, createConsoleStore, LIVE_BATCH_MS } = await import('../src/ui/store.js');
  const { RENDER_OPTIONS } = await import('../src/ui/run-console.js');
  // Ink's instances by stdout (not exported): the root node is where every React commit
  // ends (Ink's reconciler calls `rootNode.onComputeLayout` in `resetAfterCommit`), which
  // counts commits in React's production build too, where <Profiler> reports nothing.
  const instancesUrl = new URL('./instances.js', import.meta.resolve('ink')).href;
  const { default: instances } = (await import(instancesUrl)) as { default: Map<unknown, { rootNode: { onComputeLayout?: () => void } }> };
  return { React, ink, instances, App, ConsoleProvider, batchInto, createConsoleStore, LIVE_BATCH_MS, RENDER_OPTIONS };
}
export type Console = Awaited<ReturnType<typeof loadConsole>>;
type Store = ReturnType<Console['createConsoleStore']>;

/** The console mounted in a fake terminal, with React commits of `<App/>` counted. */
export interface Mounted {
  store: Store;
  stdout: FakeStdout;
  stdin: FakeStdin;
  /** React commits so far, counted where each ends (Ink's root node). */
  commits: () => number;
  /** Commits of the `<App/>` subtree as `<React.Profiler>` reports them (development build only), and their render ms summed. */
  profiled: () => { count: number; ms: number };
  /** Ink's render passes (layout to text, `onRender`) so far, and their milliseconds summed. */
  inkRenders: () => { count: number; ms: number };
  /** What was written to stderr (React warnings, say). */
  stderr: () => string;
  unmount: () => Promise<void>;
}

/** Renders the real console, as `runConsole` does (`exitOnCtrlC: false`), into a fake terminal. */
export function mount(c: Console, columns = COLUMNS, rows = ROWS): Mounted {
  const { React } = c;
  const store = c.createConsoleStore();
  const stdout = new FakeStdout(columns, rows);
  const stdin = new FakeStdin();
  let errors = '';
  const stderr = new Writable({
    decodeStrings: false,
    write(chunk, _encoding, callback) {
      errors += String(chunk);
      callback();
    },
  });
  let commits = 0;
  const profiled = { count: 0, ms: 0 };
  const ink = { count: 0, ms: 0 };
  const controller = {
    answer: () => undefined,
    goalStatus: () => ({ ok: false, message: 'bench: no commands' }),
    reviseGoal: async () => ({ ok: false, message: 'bench: no commands' }),
    extendBudget: () => ({ ok: false, message: 'bench: no commands' }),
    stop: () => ({ ok: false, message: 'bench: no commands' }),
    quit: () => undefined,
  };
  const app = React.createElement(
    React.Profiler,
    {
      id: 'app',
      onRender: (_id: string, _phase: string, actualDuration: number) => {
        profiled.count += 1;
        profiled.ms += actualDuration;
      },
    },
    React.createElement(c.App),
  );
  const tree = React.createElement(c.ConsoleProvider, { store, controller, children: app });
  const instance = c.ink.render(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    ...c.RENDER_OPTIONS,
    patchConsole: false,
    onRender: ({ renderTime }) => {
      ink.count += 1;
      ink.ms += renderTime;
    },
  });
  const root = c.instances.get(stdout)?.rootNode;
  const layout = root?.onComputeLayout;
  if (!root || !layout) throw new Error("bench/console.ts: cannot find Ink's root node to count commits (has ink/build/instances.js changed?)");
  root.onComputeLayout = () => {
    commits += 1;
    layout();
  };
  return {
    store,
    stdout,
    stdin,
    commits: () => commits,
    profiled: () => ({ ...profiled }),
    inkRenders: () => ({ ...ink }),
    stderr: () => errors,
    async unmount() {
      instance.unmount();
      await instance.waitUntilExit().catch(() => undefined);
      instance.cleanup();
    },
  };
}

/** Waits until `test()` holds (polling), at most `timeoutMs`. */
async function waitFor(test: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!test()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(2);
  }
}

/** The frame shows `marker` (colours and cursor moves stripped). */
const shows = (frame: Frame, marker: string) => stripVTControlCharacters(frame.text).includes(marker);

/**
 * Pushes `events` into `push` at `rate` per second from now on, catching up when the event
 * loop was busy (as a session emits events whatever the console is doing).
 * @returns when every event is pushed
 */
function paced(events: readonly LoopEvent[], rate: number, push: (e: LoopEvent) => void): Promise<void> {
  return new Promise((resolve) => {
    const start = performance.now();
    let pushed = 0;
    const tick = () => {
      const due = Math.min(events.length, Math.floor(((performance.now() - start) * rate) / 1000));
      while (pushed < due) push(events[pushed++]!);
      if (pushed >= events.length) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 2);
  });
}

// ------------------------------------------------------------------ 1 and 2: the burst

/**
 * Starts `count` CPU-bound node processes (each spins in a loop), for the loaded burst.
 * They are killed by the returned `stop`, and also if this process exits first.
 * @returns `stop`, which kills them and resolves once they are gone
 */
async function startBurners(count: number): Promise<{ pids: number[]; stop: () => Promise<void> }> {
  const children: ChildProcess[] = [];
  const killAll = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.on('exit', killAll);
  const stop = async () => {
    const gone = children.map((child) => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()))));
    killAll();
    await Promise.all(gone);
    process.off('exit', killAll);
  };
  try {
    for (let i = 0; i < count; i++) {
      const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  await sleep(300); // past their start-up, spinning
  return { pids: children.map((c) => c.pid!), stop };
}

interface Press {
  /** When the key was due (it reaches the process then; a busy event loop reads it later). */
  due: number;
  /** When it was written to stdin. */
  written: number;
  marker: string;
  /** performance.now() of the first frame showing the change, or null. */
  shown: number | null;
}

/** 1 and 2: the burst on an idle machine, then beside {@link BURNERS} CPU burners (always stopped after). */
async function benchBursts(c: Console, lines: readonly string[]): Promise<void> {
  await benchBurst(c, lines, null);
  const burners = await startBurners(BURNERS);
  try {
    await benchBurst(c, lines, burners.pids.length);
  } finally {
    await burners.stop();
  }
}

/**
 * 1 and 2: keys every 100 ms during a 10 s burst of 5,000 events/s; latency, commits and
 * frames. `burners`: `null` on an idle machine, else how many CPU burners run beside it
 * (the latency target is then the loaded one, and commits are a detail line).
 */
async function benchBurst(c: Console, lines: readonly string[], burners: number | null): Promise<void> {
  const events = lines.slice(0, (RATE * BURST_MS) / 1000).map((line) => JSON.parse(line) as LoopEvent);
  const ui = mount(c);
  try {
    await waitFor(() => ui.stdout.frames.some((f) => shows(f, TIMELINE_SHOWN)), 'the first frame');
    await sleep(200);
    const presses: Press[] = [];
    let waiting: { press: Press; seen: () => void } | null = null;
    ui.stdout.onFrame = (frame) => {
      if (waiting && shows(frame, waiting.press.marker)) {
        waiting.press.shown = frame.at;
        waiting.seen();
        waiting = null;
      }
    };
    const feed = c.batchInto(ui.store, c.LIVE_BATCH_MS);
    const commits0 = ui.commits();
    const frames0 = ui.stdout.frames.length;
    const profiled0 = ui.profiled();
    const cpu0 = process.cpuUsage();
    const ink0 = ui.inkRenders();
    const updates = countUpdates(ui.store);
    const start = performance.now();
    // A key every 100 ms, or once the previous key's change is on screen if that is later
    // (as a person waits to see it): each key's change is then told from the one before.
    const keys = (async () => {
      let open = false;
      let due = start;
      while (due + KEY_EVERY_MS < start + BURST_MS) {
        due += KEY_EVERY_MS;
        await sleep(Math.max(0, due - performance.now()));
        open = !open;
        const press: Press = { due, written: performance.now(), marker: open ? HELP_SHOWN : TIMELINE_SHOWN, shown: null };
        presses.push(press);
        let giveUp: NodeJS.Timeout | undefined;
        const seen = new Promise<void>((resolve) => {
          waiting = { press, seen: resolve };
          giveUp = setTimeout(resolve, 5_000);
        });
        ui.stdin.write('?');
        await seen;
        clearTimeout(giveUp);
        due = Math.max(due, press.shown ?? performance.now());
      }
    })();
    await Promise.all([paced(events, RATE, feed.push), keys]);
    feed.flush();
    const fed = performance.now() - start;
    await sleep(300); // the last batch's trailing frame
    const commits = ui.commits() - commits0;
    const frames = ui.stdout.frames.length - frames0;
    const profiled = { count: ui.profiled().count - profiled0.count, ms: ui.profiled().ms - profiled0.ms };
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const inkRenders = ui.inkRenders().count - ink0.count;
    const inkMs = ui.inkRenders().ms - ink0.ms;
    const storeUpdates = updates.stop();
    ui.stdout.onFrame = null;

    const seen = presses.filter((p) => p.shown !== null);
    const fromDue = seen.map((p) => p.shown! - p.due);
    const fromWrite = seen.map((p) => p.shown! - p.written);
    // A key whose change never showed (within 5 s) counts as slower than any that did.
    const lost = presses.length - seen.length;
    const all = [...fromDue, ...Array<number>(lost).fill(Number.POSITIVE_INFINITY)];
    const p95 = quantile(all, 0.95);
    const goal = burners === null ? LATENCY_TARGET_MS : LOADED_LATENCY_TARGET_MS;
    target(
      burners === null ? 'latency' : 'latency-loaded',
      `keypress-to-frame latency during ${RATE} events/s, ${burners === null ? 'idle' : `loaded (${burners} CPU burners beside it)`}: ` +
        `p95 ${Number.isFinite(p95) ? `${ms(p95)} ms` : 'never shown'} (target ≤ ${goal} ms)`,
      p95 <= goal,
    );
    detail(
      `${presses.length} presses of ? (help open, closed) ${KEY_EVERY_MS} ms apart or once the last showed, ${COLUMNS}x${ROWS}; from the time each key was due: ` +
        `median ${ms(median(fromDue))}, max ${ms(Math.max(...fromDue))} ms; from its write to stdin (after the event loop was free): ` +
        `median ${ms(median(fromWrite))}, p95 ${ms(quantile(fromWrite, 0.95))} ms` +
        (lost > 0 ? `; ${lost} presses never showed` : ''),
    );
    const ratio = commits / Math.max(1, frames);
    if (burners === null) target('commits', `React commits per frame written during the burst: ${ratio.toFixed(2)} (target ≤ ${COMMIT_RATIO_TARGET})`, ratio <= COMMIT_RATIO_TARGET);
    const build = process.env.NODE_ENV === 'production' ? 'production' : 'development';
    detail(
      `${commits} React commits, ${frames} frames written by Ink in ${ms(fed / 1000, 2)} s ` +
        `(${events.length} events through batchInto(store, ${c.LIVE_BATCH_MS}), ${storeUpdates} store updates, ${presses.length} keys): ` +
        `${ms(commits / (fed / 1000), 0)} commits/s, ${ms(frames / (fed / 1000), 0)} frames/s` +
        (profiled.count > 0 ? `; <React.Profiler> around <App/> counted ${profiled.count} commits` : '') +
        (ui.stderr() ? `; stderr: ${ui.stderr().trim().split('\n')[0]}` : ''),
    );
    detail(
      `where the time went: this process used ${ms(cpuMs, 0)} ms of CPU in ${ms(fed + 300, 0)} ms (${ms(cpuMs / Math.max(1, frames))} ms per frame written)` +
        (profiled.count > 0 ? `; React rendered <App/> in ${ms(profiled.ms / profiled.count)} ms per commit (${ms(profiled.ms, 0)} ms)` : '') +
        `; Ink turned the tree into text ${inkRenders} times, ${ms(inkMs / Math.max(1, inkRenders))} ms each (${ms(inkMs, 0)} ms); React ${build} build (NODE_ENV ${process.env.NODE_ENV ?? 'unset'})`,
    );
  } finally {
    await ui.unmount();
  }
}

/** Counts the store's updates until `stop()`. */
function countUpdates(store: Store): { stop: () => number } {
  let count = 0;
  const unsubscribe = store.subscribe(() => void (count += 1));
  return {
    stop() {
      unsubscribe();
      return count;
    },
  };
}

// ------------------------------------------------------------------ the cost of one frame

/** How many frames of each kind `frames` measures. */
const FRAME_SAMPLES = 60;

/**
 * The CPU time (this process, user + system) and wall time of one frame, from the action
 * to the frame written: a key's (`?`, help open or closed) and a batch's (500 events, one
 * 100 ms batch at 5,000 events/s, through the store's `apply`), alternating, with 5,000
 * events in history. CPU time is less sensitive to other load on the machine than the
 * burst's latency, so it is the number to compare two versions of the console by.
 */
async function benchFrames(c: Console, lines: readonly string[]): Promise<void> {
  const batch = RATE / 10;
  const events = lines.slice(0, HISTORY_EVENTS + FRAME_SAMPLES * batch).map((line) => JSON.parse(line) as LoopEvent);
  const ui = mount(c);
  try {
    await waitFor(() => ui.stdout.frames.length > 0, 'the first frame');
    ui.store.getState().apply(events.slice(0, HISTORY_EVENTS));
    await sleep(200);
    const measure = async (act: () => void, marker: string | null): Promise<{ cpu: number; wall: number }> => {
      const shown = new Promise<void>((resolve) => {
        ui.stdout.onFrame = (frame) => {
          if (marker === null || shows(frame, marker)) resolve();
        };
      });
      const cpu0 = process.cpuUsage();
      const wall0 = performance.now();
      act();
      await shown;
      const wall = performance.now() - wall0;
      const cpu = process.cpuUsage(cpu0);
      ui.stdout.onFrame = null;
      await sleep(20);
      return { cpu: (cpu.user + cpu.system) / 1000, wall };
    };
    const keys: Array<{ cpu: number; wall: number }> = [];
    const batches: Array<{ cpu: number; wall: number }> = [];
    let open = false;
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const from = HISTORY_EVENTS + i * batch;
      batches.push(await measure(() => ui.store.getState().apply(events.slice(from, from + batch)), null));
      open = !open;
      keys.push(await measure(() => ui.stdin.write('?'), open ? HELP_SHOWN : TIMELINE_SHOWN));
    }
    const line = (what: string, runs: Array<{ cpu: number; wall: number }>) =>
      `${what}: CPU median ${ms(median(runs.map((r) => r.cpu)))} ms (p95 ${ms(quantile(runs.map((r) => r.cpu), 0.95))}), wall median ${ms(median(runs.map((r) => r.wall)))} ms`;
    detail(
      `one frame, ${COLUMNS}x${ROWS}, ${HISTORY_EVENTS} events in history, ${FRAME_SAMPLES} of each alternating: ` +
        `${line('a key (? help open or closed)', keys)}; ${line(`a batch of ${batch} events`, batches)}`,
    );
  } finally {
    await ui.unmount();
  }
}

// ------------------------------------------------------------------ 3: bytes per frame

/** The keys pressed while frames are measured: help open and closed, panels, selection, filters. */
const HISTORY_KEYS = ['?', '?', '\t', '\t', '\u001b[A', '\u001b[A', '\u001b[F', 'f', 'F'];

/**
 * A console of `columns` x `rows` with 5,000 events in history, then 1 s more of 5,000
 * events/s and {@link HISTORY_KEYS}: the frames written in that second, and every full clear.
 */
async function historyFrames(c: Console, events: readonly LoopEvent[], columns: number, rows: number): Promise<{ bytes: number[]; clears: number; first: Frame }> {
  const ui = mount(c, columns, rows);
  try {
    await waitFor(() => ui.stdout.frames.length > 0, 'the first frame');
    const feed = c.batchInto(ui.store, c.LIVE_BATCH_MS);
    // The history: 5,000 events, fed in batches as fast as the console takes them.
    for (let i = 0; i < HISTORY_EVENTS; i += 250) {
      for (const e of events.slice(i, Math.min(HISTORY_EVENTS, i + 250))) feed.push(e);
      feed.flush();
      await sleep(1);
    }
    await sleep(300);
    if (ui.store.getState().session.eventCount !== HISTORY_EVENTS) throw new Error('the history was not fed');
    const from = ui.stdout.frames.length;
    const typing = (async () => {
      for (const key of HISTORY_KEYS) {
        await sleep(100);
        ui.stdin.write(key);
      }
    })();
    await Promise.all([paced(events.slice(HISTORY_EVENTS), RATE, feed.push), typing]);
    feed.flush();
    await sleep(300);
    return {
      bytes: ui.stdout.frames.slice(from).map((f) => f.bytes),
      clears: ui.stdout.frames.slice(1).filter((f) => f.clear).length,
      first: ui.stdout.frames[0]!,
    };
  } finally {
    await ui.unmount();
  }
}

/** 3. 5,000 events in history, then more events and keys: bytes per frame and full clears. */
async function benchHistory(c: Console, lines: readonly string[]): Promise<void> {
  const events = lines.slice(0, HISTORY_EVENTS + RATE).map((line) => JSON.parse(line) as LoopEvent);
  const { bytes, clears, first } = await historyFrames(c, events, COLUMNS, ROWS);
  const largest = Math.max(...bytes);
  target(
    'frame',
    `bytes per frame with ${HISTORY_EVENTS} events in history: max ${kb(largest)}, full clears after the first frame: ${clears} (target < ${kb(FRAME_BYTES_TARGET)}, 0 clears)`,
    largest < FRAME_BYTES_TARGET && clears === 0,
  );
  detail(
    `${bytes.length} frames (${COLUMNS}x${ROWS}) while 5,000 more events arrived in 1 s and ${HISTORY_KEYS.length} keys were pressed (? ? tab tab ↑ ↑ end f F): ` +
      `median ${kb(median(bytes))}, p95 ${kb(quantile(bytes, 0.95))}; first frame ${kb(first.bytes)}${first.clear ? ' (a full clear)' : ''}`,
  );
  // Ink rewrites the whole live region every frame, so bytes grow with the terminal.
  const [wide, tall] = LARGE;
  const large = await historyFrames(c, events, wide, tall);
  detail(
    `the same at ${wide}x${tall}: ${large.bytes.length} frames, median ${kb(median(large.bytes))}, max ${kb(Math.max(...large.bytes))}; ` +
      `full clears after the first frame: ${large.clears}`,
  );
}

// ------------------------------------------------------------------ 4: heap

/**
 * Heap used after full GCs, and the part of it that is compiled code. Several GCs with
 * pauses between them: a single forced GC leaves garbage that is still being swept
 * (measured: up to ±10 MB from one run to the next; this way, within 0.3 MB).
 */
async function heapNow(): Promise<{ used: number; code: number }> {
  for (let i = 0; i < 4; i++) {
    collectGarbage();
    await sleep(20);
  }
  const code = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'code_space')?.space_used_size ?? 0;
  return { used: process.memoryUsage().heapUsed, code };
}

/** 4. Heap above start-up (console mounted, no events) after 100,000 events. */
async function benchHeap(c: Console, lines: readonly string[]): Promise<void> {
  // A warm-up on a console of its own, thrown away: code compiled and caches filled on
  // first use are start-up, not growth with the events.
  const warm = mount(c);
  const warmFeed = c.batchInto(warm.store, c.LIVE_BATCH_MS);
  for (const line of lines.slice(0, HISTORY_EVENTS)) warmFeed.push(JSON.parse(line) as LoopEvent);
  warmFeed.flush();
  for (const key of ['?', '?', '\t', '\u001b[A', '\u001b[F']) {
    await sleep(40);
    warm.stdin.write(key);
  }
  await sleep(100);
  await warm.unmount();
  const ui = mount(c);
  ui.stdout.keepText = false;
  let mounted = true;
  try {
    await waitFor(() => ui.stdout.frames.length > 0, 'the first frame');
    await sleep(200);
    // Performance entries from the runs before are start-up here (see the detail line).
    performance.clearMeasures();
    const before = await heapNow();
    const feed = c.batchInto(ui.store, c.LIVE_BATCH_MS);
    const start = performance.now();
    // Events are parsed as they are fed: each arrives as a new object, as from a session.
    for (let i = 0; i < HEAP_EVENTS; i += 1000) {
      for (const line of lines.slice(i, i + 1000)) feed.push(JSON.parse(line) as LoopEvent);
      feed.flush();
      await sleep(1);
    }
    const fed = performance.now() - start;
    await sleep(300);
    const after = await heapNow();
    const above = mb(after.used - before.used);
    const held = ui.store.getState().events.length;
    const { session } = ui.store.getState();
    if (session.eventCount !== HEAP_EVENTS) throw new Error(`the store folded ${session.eventCount} events, expected ${HEAP_EVENTS}`);
    target('heap', `heap after ${HEAP_EVENTS / 1000}k events: ${ms(above)} MB above start-up (target ≤ ${HEAP_TARGET_MB} MB)`, above <= HEAP_TARGET_MB);
    // Where it is: unmount the UI (the store stays), then drop the store's event list.
    await ui.unmount();
    mounted = false;
    const storeOnly = await heapNow();
    // React's development build records a performance entry for every component render,
    // and Node keeps every entry until it is cleared.
    const entries = performance.getEntriesByType('measure').length;
    performance.clearMeasures();
    const noEntries = await heapNow();
    ui.store.setState({ events: [], shown: 0 });
    const sessionOnly = await heapNow();
    detail(
      `start-up ${ms(mb(before.used))} MB (console mounted, empty store; the log's 100k JSON lines included), after ${ms(mb(after.used))} MB; ` +
        `fed in batches of 1,000 in ${ms(fed / 1000, 1)} s`,
    );
    detail(
      `of the ${ms(above)} MB: the store's \`events\` array of ${held} events ${ms(mb(noEntries.used - sessionOnly.used))} MB (${ms((noEntries.used - sessionOnly.used) / Math.max(1, held), 0)} B per event), ` +
        `the folded session ${ms(mb(sessionOnly.used - before.used - (storeOnly.code - before.code)))} MB, ` +
        `the mounted UI ${ms(mb(after.used - storeOnly.used))} MB, compiled code ${ms(mb(storeOnly.code - before.code))} MB, ` +
        `and ${entries} performance entries (${ms(mb(storeOnly.used - noEntries.used))} MB) left by React's ${process.env.NODE_ENV === 'production' ? 'production' : 'development'} build`,
    );
  } finally {
    if (mounted) await ui.unmount();
  }
}

// ------------------------------------------------------------------ 5: cold start

/** CPU time (user + system) a process has used so far, from /proc (Linux); `null` elsewhere. */
function cpuMsOf(pid: number): number | null {
  try {
    // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th, stime the 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms (CLK_TCK 100)
  } catch {
    return null;
  }
}

/** What one cold start measured, in ms from spawn. */
interface ColdRun {
  /** The first output with visible text (the outline, for the console). */
  ms: number;
  /** The first whole frame of Ink showing `marker` (the console's first frame; the same as `ms` for hello-ink). */
  frameMs: number;
  /** CPU time the process had used at its first visible output. */
  cpuMs: number | null;
}

/**
 * Spawns `node <args>` in a pty of COLUMNS x ROWS, as a terminal would, until Ink's first
 * whole frame showing `marker` (a frame ends with end-synchronized-update, ESU): the ms
 * from spawn to the first output with visible text, to that frame, and the CPU time the
 * process had used at the first output.
 */
async function firstFrame(args: string[], marker: string, cwd = ROOT): Promise<ColdRun> {
  const pty = await import('@lydell/node-pty');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'CI' && k !== 'CONTINUOUS_INTEGRATION') env[k] = v;
  env.TERM = 'xterm-256color';
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const term = pty.spawn(process.execPath, args, { name: 'xterm-256color', cols: COLUMNS, rows: ROWS, cwd, env });
    let output = '';
    let first: { ms: number; cpuMs: number | null } | null = null;
    let shown: ColdRun | null = null;
    const timer = setTimeout(() => term.kill('SIGKILL'), 20_000);
    term.onData((data) => {
      if (shown !== null) return;
      output += data;
      const now = performance.now() - start;
      if (first === null && /\S/.test(stripVTControlCharacters(output))) first = { ms: now, cpuMs: cpuMsOf(term.pid) };
      if (first !== null && stripVTControlCharacters(output).includes(marker) && output.lastIndexOf(ESU) > output.lastIndexOf(BSU)) {
        shown = { ...first, frameMs: now };
        term.kill('SIGTERM');
      }
    });
    term.onExit(({ exitCode }) => {
      clearTimeout(timer);
      if (shown !== null) resolve(shown);
      else reject(new Error(`node ${args.join(' ')} exited (${exitCode}) without a frame showing ${JSON.stringify(marker)}: ${JSON.stringify(output.slice(0, 300))}`));
    });
  });
}

/** What a cold start measured: the medians of {@link ColdRun}'s times. */
interface ColdStart {
  ms: number;
  frameMs: number;
  cpuMs: number | null;
  /** Each run's first-output time over hello-ink's in the same round (set by {@link coldStarts}). */
  ratios: number[];
  frameRatios: number[];
}

/**
 * Medians of `runs` cold starts of each command, alternating, after a warm-up of each. The
 * last command is the reference (hello-ink): each run is also divided by the reference's
 * run of the same round, so a burst of load from elsewhere weighs on both sides of a ratio.
 */
async function coldStarts(commands: ReadonlyArray<{ args: string[]; marker: string; cwd?: string }>, runs = 7): Promise<ColdStart[]> {
  const all: ColdRun[][] = commands.map(() => []);
  for (const c of commands) await firstFrame(c.args, c.marker, c.cwd);
  for (let i = 0; i < runs; i++) for (const [k, c] of commands.entries()) all[k]!.push(await firstFrame(c.args, c.marker, c.cwd));
  const reference = all[all.length - 1]!;
  return all.map((r) => ({
    ms: median(r.map((x) => x.ms)),
    frameMs: median(r.map((x) => x.frameMs)),
    cpuMs: r.every((x) => x.cpuMs !== null) ? median(r.map((x) => x.cpuMs!)) : null,
    ratios: r.map((x, i) => x.ms / reference[i]!.ms),
    frameRatios: r.map((x, i) => x.frameMs / reference[i]!.ms),
  }));
}

/**
 * 5. Cold start: `loopdeck run` of the demo (`npm start`), and `replay` of a small log,
 * against a bare Ink hello-world. Two times each: the first screen (the outline the CLI
 * writes before React and Ink are loaded; src/ui/outline.ts) and Ink's first whole frame of
 * the console. `run` draws the console before it loads loop.yaml and copies the
 * workspace; each start is ended at its first frame, so the demo copies it leaves in the
 * temp directory are removed afterwards.
 */
async function benchCold(): Promise<void> {
  if (!existsSync(CLI)) {
    target('cold', `cold start: not measured, ${path.relative(ROOT, CLI)} is missing (run npm run build)`, false);
    return;
  }
  const made = await makeLog(500, undefined, 'session');
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bench-cold-'));
  const before = new Set(readdirSync(os.tmpdir()));
  try {
    const [run, replay, hello] = await coldStarts([
      { args: [CLI, 'run', '--config', path.join(ROOT, 'loop.yaml')], marker: TIMELINE_SHOWN, cwd },
      { args: [CLI, 'replay', made.file], marker: TIMELINE_SHOWN },
      { args: [HELLO], marker: 'Hello, world' },
    ]);
    const ratio = run!.ms / hello!.ms;
    target('cold', `cold start to first screen: ${ratio.toFixed(2)}x a bare Ink hello-world (target ≤ ${COLD_RATIO_TARGET}x)`, ratio <= COLD_RATIO_TARGET);
    const frameRatio = run!.frameMs / hello!.ms;
    target('cold frame', `cold start to the console's first frame: ${frameRatio.toFixed(2)}x a bare Ink hello-world (target ≤ ${COLD_FRAME_RATIO_TARGET}x)`, frameRatio <= COLD_FRAME_RATIO_TARGET);
    const cpuRatio = (a: ColdStart) => (a.cpuMs !== null && hello!.cpuMs !== null ? `, CPU ${ms(a.cpuMs, 0)} ms = ${(a.cpuMs / hello!.cpuMs).toFixed(2)}x` : '');
    const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}x`;
    const line = (name: string, a: ColdStart) =>
      `${name}: first screen ${ms(a.ms, 0)} ms = ${(a.ms / hello!.ms).toFixed(2)}x (per round ${spread(a.ratios)})${cpuRatio(a)}; console frame ${ms(a.frameMs, 0)} ms = ${(a.frameMs / hello!.ms).toFixed(2)}x (per round ${spread(a.frameRatios)})`;
    detail(line('node dist/cli.js run (the demo)', run!));
    detail(line(`node dist/cli.js replay <${made.events}-event log>`, replay!));
    detail(
      `node bench/hello-ink.js ${ms(hello!.ms, 0)} ms` +
        (hello!.cpuMs !== null ? `, CPU ${ms(hello!.cpuMs, 0)} ms` : '') +
        `: spawn in a ${COLUMNS}x${ROWS} pty to the first output with visible text, and to Ink's first whole frame showing the console (its timeline's title); ` +
        `medians of 7 alternating runs after a warm-up of each, ratios also per round (CPU time at the first output is less sensitive to load)`,
    );
  } finally {
    rmSync(path.dirname(made.file), { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
    for (const name of readdirSync(os.tmpdir())) {
      if (!before.has(name) && name.startsWith('loopdeck-payload-bug-')) rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
  }
}

// ------------------------------------------------------------------ entry

/** The parts of the console benchmark, in the order they run. */
export const PARTS = ['burst', 'frames', 'history', 'heap', 'cold'] as const;
export type Part = (typeof PARTS)[number];

/** Runs the console benchmarks (all parts, or those named) and prints one line per target. */
export async function benchConsole(parts: readonly Part[] = PARTS): Promise<void> {
  header('console');
  if (parts.some((p) => p !== 'cold')) {
    const c = await loadConsole();
    await withLog(HEAP_EVENTS, async (made) => {
      const lines = readFileSync(made.file, 'utf8').split('\n').filter((line) => line !== '');
      if (parts.includes('burst')) await benchBursts(c, lines);
      if (parts.includes('frames')) await benchFrames(c, lines);
      if (parts.includes('history')) await benchHistory(c, lines);
      if (parts.includes('heap')) await benchHeap(c, lines);
    });
  }
  if (parts.includes('cold')) await benchCold();
}

// tsx bench/console.ts [burst] [frames] [history] [heap] [cold]   (default: all)
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchConsole(namedParts('bench/console.ts', PARTS));
  summary('console');
  // Ink leaves stdin listeners and timers behind on the fake terminals.
  process.exit(0);
}
