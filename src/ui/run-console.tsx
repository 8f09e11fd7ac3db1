import React from 'react';
import { render } from 'ink';
import {
  describeError,
  drive,
  type LoopEvent,
  type LoopOutcome,
  type LoopRun,
  type ResumePayload,
} from '../engine/index.js';
import type { PreparedRun } from '../launch.js';
import { App } from './App.js';
import { ConsoleProvider, type ConsoleController } from './context.js';
import { batchInto, createConsoleStore } from './store.js';

/** How the console ended: the run's outcome, or `null` when the operator quit first. */
export interface ConsoleResult {
  outcome: LoopOutcome | null;
  message: string;
}

/**
 * Runs a prepared session in the Ink console until the operator quits. Events reach
 * the store in batches; yields wait for the operator's keys.
 */
export async function runConsole(prepared: PreparedRun, start: () => LoopRun, options: { confirmResume?: boolean } = {}): Promise<ConsoleResult> {
  const { session } = prepared;
  const store = createConsoleStore(prepared.prior);
  const feed = batchInto(store);
  session.subscribe(feed.push);
  let confirmed!: () => void;
  const confirmation = new Promise<void>((resolve) => (confirmed = resolve));
  if (options.confirmResume) {
    store.getState().setGate('Resume this run from its log? Goal, budget used and the last checkpoint are shown above.');
  } else {
    confirmed();
  }

  let waiting: { seq: number; resolve: (payload: ResumePayload) => void } | null = null;
  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => (quit = resolve));

  const controller: ConsoleController = {
    answer(payload, pendingSeq) {
      if (!waiting || waiting.seq !== pendingSeq) return;
      const { resolve } = waiting;
      waiting = null;
      resolve(payload);
    },
    command: (line) => session.command(line).catch((error: unknown) => ({ ok: false, message: describeError(error) })),
    quit: () => quit(),
    confirm: () => {
      store.getState().setGate(null);
      confirmed();
    },
    extend: (dimension) => session.command(`/budget ${dimension} +${prepared.policy.budget.increments[dimension]}`),
  };

  const ink = render(
    <ConsoleProvider store={store} controller={controller}>
      <App />
    </ConsoleProvider>,
    { exitOnCtrlC: false },
  );

  let outcome: LoopOutcome | null = null;
  let failure: unknown = null;
  let run: LoopRun | null = null;
  // Nothing runs before the operator confirms a resume (or quits instead).
  await Promise.race([confirmation, quitting]);
  if (!store.getState().gate) run = start();
  const drivingRun = run === null ? Promise.resolve() : drive(run, () =>
    new Promise<ResumePayload>((resolve) => {
      const pending = session.snapshot.pending;
      waiting = { seq: pending?.seq ?? -1, resolve };
    }),
  ).then(
    (result) => {
      outcome = result;
      feed.flush();
    },
    (error: unknown) => {
      failure = error;
      feed.flush();
      store.getState().setNotice({ ok: false, text: `engine error: ${describeError(error)}` });
    },
  );

  await quitting;
  if (run && !outcome && !failure) {
    await Promise.race([run.return(undefined as never).catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
  }
  await Promise.race([drivingRun, new Promise((r) => setTimeout(r, 100))]);
  feed.flush();
  ink.unmount();
  await ink.waitUntilExit();
  if (failure) throw failure;
  const result = outcome as LoopOutcome | null;
  const where = `log: ${prepared.log.file}\nworkspace: ${prepared.workspace}`;
  return result
    ? { outcome: result, message: `loopdeck: ${result.reason}: ${result.summary}\n${where}` }
    : { outcome: null, message: `loopdeck: quit before the run ended; the log is kept.\n${where}` };
}

/** Shows a recorded run read-only; `q` quits. */
export async function replayConsole(events: readonly LoopEvent[]): Promise<void> {
  const store = createConsoleStore(events);
  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => (quit = resolve));
  const controller: ConsoleController = {
    answer: () => undefined,
    command: async () => ({ ok: false, message: 'this is a replay: nothing can be changed' }),
    quit: () => quit(),
  };
  const ink = render(
    <ConsoleProvider store={store} controller={controller}>
      <App />
    </ConsoleProvider>,
    { exitOnCtrlC: false },
  );
  await quitting;
  ink.unmount();
  await ink.waitUntilExit();
}
