// The run's elapsed time leaves out only the time no process ran it (the fold's `offlineMs`):
// a quit or a crash and the resume later. The minutes the operator takes to answer a pause
// are the run's: the process waited for them. Real sessions with a clock the test moves.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { EventOf, LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session, type LoopRun, type LoopYield } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** A clock that moves 1 s per reading, and as far as `wait` says at once. */
function movingClock() {
  let now = 1_700_000_000_000;
  return { read: () => (now += 1000), wait: (ms: number) => void (now += ms) };
}

/** A session whose budget of one tool call pauses it after its first call; `prior` resumes one. */
function session(dir: string, clock: () => number, events: LoopEvent[], prior?: LoopEvent[]): Session {
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Ship the fix' },
      pattern: 'plan-and-execute',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      hooks: [],
      budget: { max_tool_calls: 1 },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const agent = ScriptedAgent.fromYaml(stringify({ plan: ['a', 'b'], turns: [{ tool_calls: [{ id: 't1', name: 'shell', args: { command: 'echo one' } }] }, { thought: 'b' }] }));
  return new Session({ id: 's1', agent, policy, workspace: dir, clock, sinks: [(e) => events.push(e)], ...(prior ? { prior } : {}) });
}

async function pauseOf(run: LoopRun, payload?: { action: 'continue' }): Promise<LoopYield> {
  const step = payload ? await run.next(payload) : await run.next();
  if (step.done) throw new Error(`expected a pause, the run ended: ${JSON.stringify(step.value)}`);
  expect(step.value.kind).toBe('pause');
  return step.value;
}

const resumes = (events: readonly LoopEvent[]) => events.filter((e): e is EventOf<'session.resume'> => e.type === 'session.resume');

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-offline-'));
  dirs.push(dir);
  return dir;
}

test('ten minutes at a pause before the operator answers are run time, not offline time', async () => {
  const clock = movingClock();
  const events: LoopEvent[] = [];
  const run = session(tempDir(), clock.read, events).run(newGoal('Ship the fix', ['the suite passes']));
  await pauseOf(run);
  clock.wait(10 * MINUTE);
  // Continued without raising the budget: it pauses again at once, after its resume.
  await pauseOf(run, { action: 'continue' });
  const [resume] = resumes(events);
  expect(resume!.data.restart).toBeUndefined();
  const state = fold(events);
  expect(state.offlineMs).toBe(0);
  expect(state.lastAt! - state.startedAt! - state.offlineMs).toBeGreaterThanOrEqual(10 * MINUTE);
});

test('a quit at a pause and a resume two days later: those days are offline, the answer after them is a restart', async () => {
  const dir = tempDir();
  const clock = movingClock();
  const before: LoopEvent[] = [];
  await pauseOf(session(dir, clock.read, before).run(newGoal('Ship the fix', ['the suite passes'])));
  // The process quits at the pause; another continues the run from the log two days later.
  clock.wait(2 * DAY);
  const after: LoopEvent[] = [];
  const run = session(dir, clock.read, after, before).resume();
  await pauseOf(run);
  await pauseOf(run, { action: 'continue' });
  const [first, ...rest] = resumes(after);
  expect(first!.data.restart).toBe(true);
  expect(rest).toEqual([]);
  const state = fold([...before, ...after]);
  expect(state.offlineMs).toBeGreaterThanOrEqual(2 * DAY);
  expect(state.offlineMs).toBeLessThan(2 * DAY + MINUTE);
});

test('a crash mid-step and a resume an hour later: the resume is a restart and the hour is offline', async () => {
  const dir = tempDir();
  const clock = movingClock();
  const before: LoopEvent[] = [];
  await pauseOf(session(dir, clock.read, before).run(newGoal('Ship the fix', ['the suite passes'])));
  // Cut after the tool call was recorded: the run was executing when it died.
  const cut = before.slice(0, before.findIndex((e) => e.type === 'tool.call') + 1);
  clock.wait(60 * MINUTE);
  const after: LoopEvent[] = [];
  await session(dir, clock.read, after, cut).resume().next();
  expect(resumes(after).map((e) => e.data.restart)).toEqual([true]);
  const state = fold([...cut, ...after]);
  expect(state.offlineMs).toBeGreaterThanOrEqual(60 * MINUTE);
  expect(state.offlineMs).toBeLessThan(61 * MINUTE);
});

test('a log written before resumes were marked: a resume that answers a pause is not offline, one that answers none is', () => {
  const base = { session: 's1' };
  const at = (seq: number, ms: number) => ({ ...base, seq, at: 1_700_000_000_000 + ms });
  const legacy = (events: LoopEvent[]) => fold(events).offlineMs;
  const head: LoopEvent[] = [
    { ...at(0, 0), type: 'session.start', data: { schemaVersion: 1, goal: newGoal('x', []), pattern: 'react', budget: { turns: 5, tool_calls: 5, wall_clock_seconds: 600, tokens: 1e6, cost_usd: 1 }, workspace: '/w', checkpoint_every: 5, stagnation_threshold: 3 } } as LoopEvent,
    { ...at(1, 1000), type: 'state.transition', data: { from: 'IDLE', to: 'PLANNING' } },
  ];
  const paused: LoopEvent[] = [
    ...head,
    { ...at(2, 2000), type: 'state.transition', data: { from: 'PLANNING', to: 'IDLE' } },
    { ...at(3, 3000), type: 'session.pause', data: { reason: 'operator', prompt: 'paused', from: 'PLANNING' } },
    { ...at(4, 3000 + 10 * MINUTE), type: 'session.resume', data: { action: 'continue', from: 'PLANNING' } },
  ];
  expect(legacy(paused)).toBe(0);
  const crashed: LoopEvent[] = [...head, { ...at(2, 1000 + 60 * MINUTE), type: 'session.resume', data: { action: 'continue', from: 'PLANNING', note: 'continued from the log' } }];
  expect(legacy(crashed)).toBe(60 * MINUTE);
});
