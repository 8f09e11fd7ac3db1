// Shared by the console's UI tests: open a rig (closed after each test), normalize what
// varies between runs in a frame, and check a frame's shape.
import React from 'react';
import stringWidth from 'string-width';
import { afterEach, vi } from 'vitest';
import { App } from '../../src/ui/App.js';
import { ConsoleProvider, type ConsoleController } from '../../src/ui/context.js';
import type { ConsoleStore } from '../../src/ui/store.js';
import { inAct, KEY, pressInto, TEST_ESCAPE_MS, operatorSpies, startConsole, waitUntil, type ConsoleRig, type PolicyOptions, type RigOptions, type SpyController } from './console-rig.js';
import { renderTerminal, type Terminal } from './terminal.js';

/**
 * A run that stagnates: the agent reports claims and hypotheses each turn while the
 * measured test counts (the same TAP summary every time) never move. With
 * {@link STAGNANT_POLICY} the third checkpoint raises STAGNATION_DETECTED (an alert); the
 * fourth turn claims the goal is met, the verifier passes, and that wins (no fourth checkpoint).
 */
export const STAGNANT = `
turns:
  - thought: Look around.
    report:
      remaining_hypotheses: [the greeting is too short]
  - thought: Still looking.
    report:
      eliminated_hypotheses: [the name is wrong]
  - thought: Checking the greeting.
    report:
      new_evidence:
        - { claim: the greeting says hi, evidence_ref: greets by name }
  - final: The greeting is friendlier.
`;

/**
 * A checkpoint every turn, alert only; stagnation after three without observed progress: the
 * checkpoints of turns 1, 2 and 3 after the baseline taken at the start (one alert, at turn 3).
 */
export const STAGNANT_POLICY: PolicyOptions = {
  every: 1,
  threshold: 3,
  onDetect: 'alert',
  observe: [{ name: 'tests', command: "printf '# pass 1\\n# fail 1\\n'" }],
  signals: [
    { signal: 'observed.tests.failing', direction: 'decrease' },
    { signal: 'observed.tests.passing', direction: 'increase' },
  ],
};

/** A run that waits at its first prompt (a shell call) for as long as the test needs. */
export const WAITING = `
turns:
  - thought: Look before changing anything.
    tool_calls:
      - { id: t1, name: shell, args: { command: "ls" } }
  - final: Looked.
`;

const rigs: ConsoleRig[] = [];

/** Opens a console rig that is closed after the test. */
export async function open(options: RigOptions): Promise<ConsoleRig> {
  const rig = await startConsole(options);
  rigs.push(rig);
  return rig;
}

afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

/** Opens a rig and waits until the approval prompt of its first call (`t1`, a shell call) is on screen and armed. */
export async function openAtPrompt(options: RigOptions): Promise<ConsoleRig> {
  const rig = await open(options);
  await rig.waitForFrame('Approve tool call shell (t1)');
  await rig.waitForArmed();
  return rig;
}

/** Opens a rig at its first prompt, presses Ctrl+C (pause at the next safe point) and approves the call: the run then waits at the operator's pause. */
export async function openAtOperatorPause(options: RigOptions): Promise<ConsoleRig> {
  const rig = await openAtPrompt(options);
  await rig.press(KEY.ctrlC);
  await rig.press('y');
  await rig.waitForFrame('Paused by the operator');
  return rig;
}

const hash = (text: string) => text.replace(/\d/g, '#');

/**
 * The frame with what varies between runs masked so that columns and borders stay where
 * they were: digits become `#` (the approval countdown, percentages); the wall-clock gauge
 * (a fixed-width cell whose bar shrinks as the value grows) becomes `~` and `#s`; values
 * that end their line (elapsed time, durations in ms) become `T` and `N ms`. A log's
 * recorded clock is far from the test's: once the console's clock ticks, the elapsed time
 * of a run still active is hours (`8037h`), masked the same way.
 */
export function normalize(frame: string): string {
  return frame
    .replace(/\(\d+ ms\)/g, '(N ms)')
    .replace(/ · \d+ ms\b/g, ' · N ms')
    .replace(/(?:wall clock|clock) \d+%/g, hash)
    .replace(/[░█]+ (?=\d)(?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d)?s)?\/(\S+)/g, (m, limit: string) => `${'~'.repeat(Math.max(0, m.length - limit.length - 4))} #s/${limit}`)
    .replace(/ · \d+(?:h\d\dm|h|m\d\ds|m|s)(?= · |$)/gm, ' · T')
    .replace(/denied in \S+ unless answered/g, hash)
    .replace(/at \d{4}-\d\d-\d\dT[\d:.]+Z/g, hash);
}

/** The pending prompt's `seq`. */
export function pendingSeq(rig: ConsoleRig): number {
  const pending = rig.session.snapshot.pending;
  if (!pending) throw new Error('no pending yield');
  return pending.seq;
}

/** A console over a given store (a folded log, a replay), in a terminal of a chosen size. */
export interface StoreConsole extends Terminal {
  controller: SpyController;
  press: (key: string) => Promise<void>;
  waitForFrame: (text: string | RegExp) => Promise<string>;
}

/** A controller over a recorded run: every answer is ignored, every command refused. */
export const READ_ONLY_CONTROLLER: ConsoleController = {
  answer: () => undefined,
  goalStatus: () => ({ ok: false, message: 'read-only' }),
  reviseGoal: async () => ({ ok: false, message: 'read-only' }),
  extendBudget: () => ({ ok: false, message: 'read-only' }),
  stop: () => ({ ok: false, message: 'read-only' }),
  quit: () => undefined,
};

/** Renders the console over `store` with a spy controller (or the one given). */
export async function renderStore(
  store: ConsoleStore,
  options: { controller?: ConsoleController; columns?: number; rows?: number; noticeMs?: number; resumeCommand?: string } = {},
): Promise<StoreConsole> {
  const base: ConsoleController = options.controller ?? { ...READ_ONLY_CONTROLLER, quit: () => undefined };
  const controller: SpyController = {
    ...base,
    answer: vi.fn<ConsoleController['answer']>(base.answer),
    ...operatorSpies(base),
    quit: vi.fn<ConsoleController['quit']>(base.quit),
    requestPause: vi.fn<NonNullable<ConsoleController['requestPause']>>(base.requestPause ?? (() => undefined)),
  };
  const terminal = renderTerminal(
    <ConsoleProvider store={store} controller={controller} options={{ escapeMs: TEST_ESCAPE_MS, ...(options.noticeMs !== undefined ? { noticeMs: options.noticeMs } : {}), ...(options.resumeCommand ? { resumeCommand: options.resumeCommand } : {}) }}>
      <App />
    </ConsoleProvider>,
    { columns: options.columns ?? 100, rows: options.rows ?? 30 },
  );
  terminals.push(terminal);
  await waitUntil(() => terminal.stdin.listenerCount('readable') > 0, 'the console to listen to stdin');
  return {
    ...terminal,
    controller,
    press: (key) => pressInto(terminal.stdin, key),
    async waitForFrame(text) {
      const test = () => (typeof text === 'string' ? terminal.frame().includes(text) : text.test(terminal.frame()));
      await waitUntil(test, `the frame to show ${String(text)}`, () => `last frame:\n${terminal.frame()}`);
      return terminal.frame();
    },
  };
}

const terminals: Terminal[] = [];
afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.unmount();
});

/** Every row of a frame fits the terminal: at most `rows - 1` rows, none wider than `columns`. */
export function fits(frame: string, columns: number, rows: number): { height: number; widest: number; ok: boolean } {
  const lines = frame.split('\n');
  const widest = Math.max(0, ...lines.map((l) => stringWidth(l)));
  return { height: lines.length, widest, ok: lines.length <= rows - 1 && widest <= columns };
}
