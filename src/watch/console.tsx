/**
 * The console over a session loopdeck does not run (docs/design.md, "Watching a session"):
 * `loopdeck watch` (a CLI agent's transcript) and `loopdeck attach` (a loopdeck run started
 * headless elsewhere). It shows what the source writes as it is written; nothing can be
 * paused, stopped or changed from here. Each alert ({@link alertOf}) rings the terminal bell
 * and is said on the notice line with what the source says follows it
 * ({@link FollowSource.alertNote}); the banner and the timeline's alert filter list them.
 */
import React from 'react';
import type { Instance } from 'ink';
import type { LoopEvent } from '../engine/events.js';
import { goalStatusText } from '../engine/goal.js';
import type { ResumePayload } from '../engine/session.js';
import type { CommandResult } from '../engine/operator-command.js';
import { ConsoleProvider, type ConsoleController } from '../ui/context.js';
import { App } from '../ui/App.js';
import { draw, guardExits, restoreTerminal } from '../ui/run-console.js';
import { createConsoleStore, LIVE_BATCH_MS, type ConsoleStore } from '../ui/store.js';
import { suspendSelf } from '../ui/suspend.js';
import { alertOf, BEL } from './alerts.js';
import { guardedFeed } from './store-feed.js';

/**
 * How a notice of a followed source reads: `warning` (the default: something went wrong or
 * was refused, marked `✗`), `success` (an action of the operator's that worked, `✓`), or
 * `info` (how things stand, no mark).
 */
export type NoticeTone = 'warning' | 'success' | 'info';

/** Says `text` on the notice line, as `tone` (default `warning`). */
export type NoticeSink = (text: string, tone?: NoticeTone) => void;

/** What a followed source offers the console. */
export interface FollowSource {
  /**
   * Starts following: `push` each event as it is read, `notice` what the operator should
   * read on the notice line. @returns a function that stops following (awaited on quit)
   */
  start: (push: (event: LoopEvent) => void, notice: NoticeSink) => () => Promise<void> | void;
  /** What the operator is told when a key would change the session. */
  readOnly: string;
  /**
   * What follows an alert ({@link alertOf}) once the bell rang: who acts on it, true for
   * this source (a watched session: nobody can pause it; an attached run: the run itself).
   */
  alertNote: (event: LoopEvent) => string;
  /**
   * Answers the prompt shown (a tool approval or a pause the source is waiting on), named
   * by the `seq` of the event that raised it. Absent: prompts are shown, not answered.
   */
  answer?: (payload: ResumePayload, pendingSeq: number) => void;
}

/**
 * The controller of a followed session: `/goal status` reads the goal; every command that
 * would change it answers `readOnly`; `q` quits; prompts go to `source.answer` when there is one.
 */
export function followController(source: Pick<FollowSource, 'readOnly' | 'answer'>, store: ConsoleStore, quit: () => void): ConsoleController {
  const refuse = (): CommandResult => ({ ok: false, refused: true, message: source.readOnly });
  return {
    answer: source.answer ?? (() => store.getState().setNotice({ ok: false, text: source.readOnly })),
    // Reading is allowed: the goal as the events read so far show it.
    goalStatus: () => {
      const goal = store.getState().session.goal;
      return goal ? { ok: true, message: goalStatusText(goal) } : { ok: false, message: 'no goal yet in the events read so far' };
    },
    reviseGoal: async () => refuse(),
    extendBudget: refuse,
    stop: refuse,
    quit,
    requestPause: quit,
    extend: async () => refuse(),
    suspend: suspendSelf,
  };
}

/**
 * Milliseconds between two bells at least: alerts found together (the backlog of a session
 * read at start, a burst of repeats) ring once; each is still listed.
 */
export const BELL_GAP_MS = 1000;

/**
 * Draws the console over `source` until the operator quits (q, or Ctrl+C).
 * @param bell where the bell and nothing else is written (the terminal); default stdout
 */
export async function followConsole(source: FollowSource, bell: (text: string) => void = (text) => void process.stdout.write(text)): Promise<void> {
  const store = createConsoleStore([], { following: true });
  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => (quit = resolve));
  const notice: NoticeSink = (text, tone = 'warning') => store.getState().setNotice(tone === 'info' ? { ok: true, info: true, text } : { ok: tone === 'success', text });
  let rungAt = -Infinity;
  const feed = guardedFeed(store, LIVE_BATCH_MS, (event, why) => notice(`left out event ${event.seq} (${event.type}): ${why}`));
  const push = (event: LoopEvent) => {
    feed.push(event);
    const alert = alertOf(event);
    if (alert === null) return;
    if (Date.now() - rungAt >= BELL_GAP_MS) {
      rungAt = Date.now();
      bell(BEL);
    }
    notice(`⚠ ${alert} (bell rung: ${source.alertNote(event)})`);
  };
  const controller = followController(source, store, () => quit());
  let ink: Instance | null = null;
  const unguard = guardExits(() => ink, () => feed.flush());
  const drawn = draw((hidden) => (
    <ConsoleProvider store={store} controller={controller}>
      <App hidden={hidden} />
    </ConsoleProvider>
  ));
  ink = drawn.ink;
  ink.waitUntilExit().catch(() => quit());
  let stopFollowing: () => Promise<void> | void = () => undefined;
  try {
    stopFollowing = source.start(push, notice);
    await quitting;
  } finally {
    await stopFollowing();
    feed.stop();
    ink.unmount();
    await ink.waitUntilExit().catch(() => undefined);
    drawn.unsuspend();
    restoreTerminal();
    unguard();
  }
}
