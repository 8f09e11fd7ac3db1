// A live console for UI tests: a real Session over a real temporary workspace, a scripted
// agent, the console store fed by batchInto, and the controller run-console.tsx uses
// (createLiveConsole), with spies on it. The terminal has a chosen size.
// Frames are read from that terminal (tests/support/terminal.tsx, built the way
// ink-testing-library is, with rows); waits are on conditions, never fixed sleeps.
import React, { act } from 'react';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { vi, type Mock } from 'vitest';
import { stringify } from 'yaml';
import {
  describeError,
  drive,
  newGoal,
  parsePolicy,
  ScriptedAgent,
  Session,
  type AgentContext,
  type AgentMessage,
  type Goal,
  type LoopEvent,
  type LoopOutcome,
  type LoopPolicy,
  type LoopRun,
} from '../../src/engine/index.js';
import { hooksFor } from '../../src/hooks/index.js';
import { App } from '../../src/ui/App.js';
import { ConsoleProvider, type ConsoleController } from '../../src/ui/context.js';
import { createLiveConsole } from '../../src/ui/live.js';
import { batchInto, createConsoleStore, type ConsoleStore } from '../../src/ui/store.js';
import { renderTerminal, type Terminal } from './terminal.js';

/** Real key strings as a terminal sends them. */
export const KEY = {
  enter: '\r',
  escape: '\u001b',
  ctrlC: '\u0003',
  backspace: '\u007f',
  tab: '\t',
  shiftTab: '\u001b[Z',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  home: '\u001b[H',
  end: '\u001b[F',
  pageUp: '\u001b[5~',
  pageDown: '\u001b[6~',
} as const;

const WAIT_MS = 10_000;

/** Polls `test` until it is true; throws with `what` (and `detail()`) after `timeoutMs`. */
export async function waitUntil(test: () => boolean, what: string, detail: () => string = () => '', timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * How long a lone ESC waits for the rest of a sequence in these tests (ms): short, so a
 * test that presses Escape waits only briefly for it to count as the Escape key.
 */
export const TEST_ESCAPE_MS = 20;

/**
 * Writes `key` as one read; a read that ends in a lone ESC is the Escape key only once
 * the terminal has sent nothing more for {@link TEST_ESCAPE_MS}, so that time is waited out.
 */
export async function pressInto(stdin: { write: (data: string) => void }, key: string): Promise<void> {
  await inAct(() => stdin.write(key));
  if (key.endsWith('\u001b')) await inAct(() => new Promise<void>((resolve) => setTimeout(resolve, TEST_ESCAPE_MS * 3)));
}

/** One turn of the event loop. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// Keys are sent inside React's act(): each key's render *and* passive effects finish
// before the next key, as with a person typing. Without it Ink re-subscribes `useInput`
// handlers only in a later effect, and a key sent in between reaches a stale handler
// (ink-text-input then drops or reorders characters). The act environment flag is on only
// while a key is being sent: the engine's own updates are not test actions.
export async function inAct(fn: () => void): Promise<void> {
  const scope = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
  scope.IS_REACT_ACT_ENVIRONMENT = true;
  try {
    await act(async () => fn());
  } finally {
    scope.IS_REACT_ACT_ENVIRONMENT = false;
  }
}

// ------------------------------------------------------------------ workspace and policy

export interface PolicyOptions {
  objective?: string;
  /** `goal.constraints`: text, or a checked constraint (`{ text, protect }`, `{ text, command }`). */
  constraints?: Array<string | { text: string; protect?: string[]; command?: string }>;
  /** `goal.on_violation` (default pause). */
  onViolation?: 'alert' | 'pause' | 'stop';
  /** `repetition.*` settings (default: the guard's defaults, `on_detect: pause`). */
  repetition?: { window?: number; threshold?: number; on_detect?: 'alert' | 'pause' | 'stop' };
  /** `stagnation.on_unknown` (default alert). */
  onUnknown?: 'alert' | 'pause' | 'stop';
  every?: number;
  threshold?: number;
  onDetect?: 'alert' | 'pause' | 'stop';
  observe?: Array<{ name: string; command: string }>;
  signals?: Array<{ signal: string; direction: 'increase' | 'decrease' }>;
  verify?: string;
  /** Approval allow rules (`read_file`, `shell: git status`); anything else is asked about. */
  allow?: string[];
  /** `approval.timeout` (a duration like `1s`, or `unlimited`). */
  approvalTimeout?: string;
  /** `budget.max_iterations` (default 20). */
  maxTurns?: number;
  /** Other `budget.*` keys, over the defaults (`max_cost_usd: 0.02`, `max_wall_clock: '1h'`). */
  budget?: Record<string, unknown>;
  /** `pricing.*` (default: none, every turn costs nothing). */
  pricing?: { input_per_million_usd: number; output_per_million_usd: number };
}

/** The text of a loop.yaml for a scripted agent running in place in `<dir>/workspace`. */
export function loopYaml(o: PolicyOptions = {}): string {
  return stringify({
    goal: {
      objective: o.objective ?? 'Make the greeting friendlier',
      success_criteria: ['the verify command exits 0'],
      constraints: o.constraints ?? ['do not touch README.md'],
      ...(o.onViolation ? { on_violation: o.onViolation } : {}),
    },
    ...(o.repetition ? { repetition: o.repetition } : {}),
    pattern: 'react',
    agent: { kind: 'scripted', script: 'transcript.yaml' },
    workspace: { path: 'workspace', copy: 'none' },
    budget: { max_iterations: o.maxTurns ?? 20, max_tool_calls: 20, max_wall_clock: '30m', max_tokens: 100000, max_cost_usd: 1, ...o.budget },
    ...(o.pricing ? { pricing: o.pricing } : {}),
    checkpoint: { every_iterations: o.every ?? 10 },
    observe: (o.observe ?? []).map((spec) => ({ ...spec, parser: 'tap', timeout: '30s' })),
    progress: { observed: o.signals ?? [] },
    stagnation: { checkpoints_without_observed_progress: o.threshold ?? 3, on_detect: o.onDetect ?? 'alert', ...(o.onUnknown ? { on_unknown: o.onUnknown } : {}) },
    verify: [{ command: o.verify ?? 'node -e "process.exit(0)"', timeout: '30s' }],
    approval: { default: 'ask', allow: o.allow ?? [], ...(o.approvalTimeout ? { timeout: o.approvalTimeout } : {}) },
    hooks: ['approval-gate'],
  });
}

export interface Workspace {
  /** The directory holding loop.yaml and transcript.yaml. */
  root: string;
  /** `<root>/workspace`, where tools and observers run. */
  dir: string;
  policy: LoopPolicy;
  remove: () => void;
}

/** A temporary run directory: loop.yaml, the transcript, and a small workspace. */
export function makeWorkspace(transcript: string, policy: PolicyOptions = {}): Workspace {
  const root = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-ui-'));
  const dir = path.join(root, 'workspace');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'README.md'), '# greeter\n\nSays hello.\n');
  writeFileSync(path.join(dir, 'greet.js'), "export const greet = (name) => `hi ${name}`;\n");
  const yaml = loopYaml(policy);
  const file = path.join(root, 'loop.yaml');
  writeFileSync(file, yaml);
  writeFileSync(path.join(root, 'transcript.yaml'), transcript);
  return { root, dir, policy: parsePolicy(yaml, file), remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** The goal a policy starts with. */
export function goalOf(policy: LoopPolicy): Goal {
  return newGoal(policy.goal.objective, policy.goal.success_criteria, policy.goal.constraints);
}

/** What an agent was given for one turn. */
export interface SeenTurn {
  turn: number;
  goal: Goal;
  history: AgentMessage[];
}

/** A scripted agent that also records what it was given each turn (every other method is the agent's own). */
export function recordingAgent(transcript: string, file?: string): { agent: ScriptedAgent; seen: SeenTurn[] } {
  const agent = ScriptedAgent.fromYaml(transcript, file);
  const seen: SeenTurn[] = [];
  const nextTurn = agent.nextTurn.bind(agent);
  agent.nextTurn = (context: AgentContext) => {
    seen.push(structuredClone({ turn: context.turn, goal: context.goal, history: [...context.history] }));
    return nextTurn(context);
  };
  return { agent, seen };
}

// ------------------------------------------------------------------ the console

export type SpyController = ConsoleController & {
  answer: Mock<ConsoleController['answer']>;
  goalStatus: Mock<ConsoleController['goalStatus']>;
  reviseGoal: Mock<ConsoleController['reviseGoal']>;
  extendBudget: Mock<ConsoleController['extendBudget']>;
  stop: Mock<ConsoleController['stop']>;
  quit: Mock<ConsoleController['quit']>;
  requestPause: Mock<NonNullable<ConsoleController['requestPause']>>;
};

/** Spies on the operator command methods of `controller`, calling through. */
export function operatorSpies(controller: ConsoleController): Pick<SpyController, 'goalStatus' | 'reviseGoal' | 'extendBudget' | 'stop'> {
  return {
    goalStatus: vi.fn<ConsoleController['goalStatus']>(() => controller.goalStatus()),
    reviseGoal: vi.fn<ConsoleController['reviseGoal']>((directive, text) => controller.reviseGoal(directive, text)),
    extendBudget: vi.fn<ConsoleController['extendBudget']>((dimension, by) => controller.extendBudget(dimension, by)),
    stop: vi.fn<ConsoleController['stop']>((options) => controller.stop(options)),
  };
}

/** Every operator command the console carried out through `controller`, in order: `[method, ...arguments]`. */
export function operatorCalls(controller: SpyController): unknown[][] {
  const spies = { goalStatus: controller.goalStatus, reviseGoal: controller.reviseGoal, extendBudget: controller.extendBudget, stop: controller.stop };
  return Object.entries(spies)
    .flatMap(([name, spy]) => spy.mock.calls.map((args, i) => ({ order: spy.mock.invocationCallOrder[i]!, call: [name, ...args] })))
    .sort((a, b) => a.order - b.order)
    .map((c) => c.call);
}

export interface ConsoleRig {
  session: Session;
  store: ConsoleStore;
  controller: SpyController;
  agent: ScriptedAgent;
  /** What the agent was given, turn by turn. */
  seen: SeenTurn[];
  workspace: Workspace;
  /** Every event, in order, as the session emitted it. */
  events: LoopEvent[];
  /** Starts the run (once); resolves with its outcome. */
  start: () => Promise<LoopOutcome>;
  /** Settles when the run ends: its outcome, or the engine's error. */
  readonly outcome: Promise<LoopOutcome> | null;
  /** The last frame with colours stripped. */
  frame: () => string;
  /** Waits until the frame contains `text` (or matches). @returns the frame */
  waitForFrame: (text: string | RegExp) => Promise<string>;
  waitFor: (test: () => boolean, what: string) => Promise<void>;
  /** Sends one key (or sequence) to stdin, as a terminal would, and lets React finish with it. */
  press: (key: string) => Promise<void>;
  /** Sends a key synchronously, outside act(): for keys that arrive while an event is being emitted. */
  pressNow: (key: string) => void;
  /** Waits until the pending prompt's keys are armed (it has been on screen briefly). */
  waitForArmed: () => Promise<void>;
  /** The terminal the console draws in (resize it with `terminal.resize`). */
  terminal: Terminal;
  /** Types `text` into the open command bar one key at a time, waiting for each to show. */
  type: (text: string) => Promise<void>;
  /** The text in the open command bar, or null when it is closed. */
  bar: () => string | null;
  close: () => Promise<void>;
}

export interface RigOptions {
  transcript: string;
  policy?: PolicyOptions;
  /** Start the run at once (default true). */
  start?: boolean;
  /** Terminal size (default 100 × 30). */
  columns?: number;
  rows?: number;
}

/** Builds and renders the real console; the run starts unless `start: false`. */
export async function startConsole(options: RigOptions): Promise<ConsoleRig> {
  const workspace = makeWorkspace(options.transcript, options.policy);
  const { agent, seen } = recordingAgent(options.transcript, path.join(workspace.root, 'transcript.yaml'));
  const session = new Session({ id: 'ui-test', agent, policy: workspace.policy, workspace: workspace.dir, runDir: path.join(workspace.root, 'run'), hooksFor: (policy) => hooksFor(policy, { runDir: workspace.root, workspace: workspace.dir }) });
  const events: LoopEvent[] = [];
  session.subscribe((event) => events.push(event));
  const store = createConsoleStore();
  const feed = batchInto(store);
  session.subscribe(feed.push);

  // The controller and answerer of run-console.tsx, with spies on the controller.
  const live = createLiveConsole({
    session,
    store,
    approvalTimeoutSeconds: workspace.policy.approval.timeout,
    increments: workspace.policy.budget.increments,
    onQuit: () => undefined,
  });
  const controller: SpyController = {
    ...live.controller,
    answer: vi.fn<ConsoleController['answer']>(live.controller.answer),
    ...operatorSpies(live.controller),
    quit: vi.fn<ConsoleController['quit']>(),
    requestPause: vi.fn<NonNullable<ConsoleController['requestPause']>>(live.controller.requestPause),
  };

  const ink = renderTerminal(
    <ConsoleProvider store={store} controller={controller} options={{ escapeMs: TEST_ESCAPE_MS }}>
      <App />
    </ConsoleProvider>,
    { columns: options.columns ?? 100, rows: options.rows ?? 30 },
  );
  const frame = () => ink.frame();
  const waitFor = (test: () => boolean, what: string) => waitUntil(test, what, () => `last frame:\n${frame()}`);
  // useInput attaches its stdin listener in an effect: keys sent before that are lost.
  await waitFor(() => ink.stdin.listenerCount('readable') > 0, 'the console to listen to stdin');

  let run: LoopRun | null = null;
  let outcome: Promise<LoopOutcome> | null = null;
  const start = () => {
    if (outcome) return outcome;
    run = session.run(goalOf(workspace.policy));
    outcome = drive(run, live.answerer).finally(() => feed.flush());
    return outcome;
  };
  if (options.start !== false) void start().catch(() => undefined);

  const bar = () => {
    const line = frame()
      .split('\n')
      .find((l) => /^\s*›(?: |$)/.test(l));
    return line === undefined ? null : line.trimStart().slice(2).trimEnd();
  };

  return {
    session,
    store,
    controller,
    agent,
    seen,
    workspace,
    events,
    start,
    get outcome() {
      return outcome;
    },
    frame,
    waitFor,
    async waitForFrame(text) {
      const test = () => (typeof text === 'string' ? frame().includes(text) : text.test(frame()));
      await waitFor(test, `the frame to show ${String(text)}`);
      return frame();
    },
    press: (key) => pressInto(ink.stdin, key),
    pressNow: (key) => {
      ink.stdin.write(key);
    },
    terminal: ink,
    async waitForArmed() {
      await waitFor(() => {
        const s = store.getState();
        return s.session.pending !== null && s.armed === s.session.pending.seq;
      }, 'the prompt to arm its keys');
    },
    async type(text) {
      if (bar() === null) throw new Error('type(): the command bar is not open');
      // What is typed goes where the cursor is: at the end of the line in these tests.
      let expected = store.getState().line.text;
      for (const ch of text) {
        expected += ch;
        await inAct(() => ink.stdin.write(ch));
        // The frame drops trailing spaces (and the cursor cell) from each line.
        const want = expected.trimEnd();
        await waitFor(() => bar() === want, `the command bar to read "${expected}"`);
      }
    },
    bar,
    async close() {
      if (run && outcome) {
        const settled = await Promise.race([outcome.then(() => true, () => true), settle().then(() => false)]);
        if (!settled) await Promise.race([run.return(undefined as never).catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
      }
      live.dispose();
      feed.flush();
      ink.unmount();
      workspace.remove();
    },
  };
}

/** Runs a session with no console, approving every tool call and continuing every pause (or answering each yield with `answer`). */
export async function runHeadless(
  transcript: string,
  policy: PolicyOptions = {},
  clock?: () => number,
  answer: Parameters<typeof drive>[1] = (y) => (y.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' }),
): Promise<{ events: LoopEvent[]; outcome: LoopOutcome; agent: ScriptedAgent }> {
  const workspace = makeWorkspace(transcript, policy);
  try {
    const agent = ScriptedAgent.fromYaml(transcript);
    const session = new Session({ id: 'ui-test', agent, policy: workspace.policy, workspace: workspace.dir, hooks: hooksFor(workspace.policy, { runDir: workspace.root, workspace: workspace.dir }), ...(clock ? { clock } : {}) });
    const events: LoopEvent[] = [];
    session.subscribe((event) => events.push(event));
    const outcome = await drive(session.run(goalOf(workspace.policy)), answer);
    return { events, outcome, agent };
  } finally {
    workspace.remove();
  }
}
