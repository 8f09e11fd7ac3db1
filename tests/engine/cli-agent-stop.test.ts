// Limits applied to a CLI agent while its lap runs: a fake Claude Code prints stream-json
// slowly (usage on every message, a tool call each time), starts a grandchild, ignores
// SIGTERM and never exits by itself. The record that crosses a limit stops its process
// group (SIGKILL after the grace period), the run pauses with the limit's reason, and a
// continue starts a new lap.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CommandAgent } from '../../src/engine/agents/command.js';
import { drive } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import type { LoopYield, ResumePayload } from '../../src/engine/run/types.js';
import { Session } from '../../src/engine/session.js';

/**
 * argv[2]: `distinct` (a new command each call) or `same` (the same failing command). Writes
 * "<pid> <grandchild pid>" to pids.txt, then one assistant message (150 tokens, one Bash
 * call) and its tool result every 25 ms, forever, ignoring SIGTERM (unless argv[3] is
 * `term-ok`).
 */
const FAKE_CLAUDE = `
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
if (process.argv[3] !== 'term-ok') process.on('SIGTERM', () => {});
const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
appendFileSync('pids.txt', process.pid + ' ' + grandchild.pid + '\\n');
const out = (record) => process.stdout.write(JSON.stringify(record) + '\\n');
out({ type: 'system', subtype: 'init', session_id: 's-' + process.pid, model: 'fake' });
let i = 0;
setInterval(() => {
  i += 1;
  const command = process.argv[2] === 'same' ? 'npm test' : 'ls dir' + i;
  out({ type: 'assistant', message: { id: 'msg' + i, content: [{ type: 'text', text: 'step ' + i }, { type: 'tool_use', id: 'tu' + i, name: 'Bash', input: { command } }], usage: { input_tokens: 100, output_tokens: 50 } } });
  out({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 'tu' + i, content: process.argv[2] === 'same' ? '1 failing' : 'file' + i, is_error: process.argv[2] === 'same' } ] } });
}, 25);
`;

const GRACE_MS = 300;

/** Each test takes a few seconds; a CLI that is never stopped would run for its 60 s timeout. */
const TEST_MS = 15_000;

const dirs: string[] = [];
const sessions: Session[] = [];
afterEach(() => {
  // A run that failed its test is aborted, and whatever it left running killed, before its folder goes.
  for (const run of sessions.splice(0)) run.stop({ abort: true });
  for (const dir of dirs.splice(0)) {
    if (existsSync(path.join(dir, 'pids.txt'))) for (const pid of pids(dir).flat()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

function workspace(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cli-stop-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'fake-claude.mjs'), FAKE_CLAUDE);
  return dir;
}

/** Whether `pid` runs (a zombie, dead and waiting to be reaped by its parent, does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ...".
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The pids each lap's fake CLI wrote: [cli, grandchild] per run. */
function pids(dir: string): Array<[number, number]> {
  return readFileSync(path.join(dir, 'pids.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' ').map(Number) as [number, number]);
}

interface Setup {
  mode: 'distinct' | 'same' | 'distinct term-ok';
  budget: Record<string, unknown>;
  repetition?: Record<string, unknown>;
  pricing?: Record<string, unknown>;
  output?: string;
  script?: string;
  /** Extra keys of loop.yaml. */
  extra?: Record<string, unknown>;
}

function session(dir: string, setup: Setup, events: LoopEvent[]) {
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Fix the parser' },
      pattern: 'react',
      agent: { kind: 'command', command: 'node fake-claude.mjs', output: setup.output ?? 'claude-stream-json' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      laps: { enabled: true, max_laps: 5, max_consecutive_failures: 2 },
      budget: { max_iterations: 'unlimited', max_tool_calls: 'unlimited', max_wall_clock: '10m', ...setup.budget },
      ...(setup.repetition ? { repetition: setup.repetition } : {}),
      ...(setup.pricing ? { pricing: setup.pricing } : {}),
      on_abort: { stash: false, report: false },
      ...setup.extra,
    }),
    path.join(dir, 'loop.yaml'),
  );
  const agent = () =>
    new CommandAgent({
      command: setup.script ?? `node fake-claude.mjs ${setup.mode}`,
      prompt: 'stdin',
      cwd: dir,
      timeoutSeconds: 60,
      outputLimit: 64 * 1024,
      graceMs: GRACE_MS,
      output: (setup.output ?? 'claude-stream-json') as 'claude-stream-json',
      ...(setup.pricing ? { pricing: { input_per_million_usd: 0, output_per_million_usd: 0, ...setup.pricing } } : {}),
    });
  const run = new Session({ id: 's1', agent: agent(), agentFactory: agent, policy, workspace: dir, sinks: [(e) => events.push(e)] });
  sessions.push(run);
  return run;
}

const laps = (events: LoopEvent[]) => events.flatMap((e) => (e.type === 'lap.start' ? [e.data.lap] : []));

it('a token limit crossed mid-lap kills the CLI (grandchild too) within the grace period, pauses on the budget, and continue starts lap 2', async () => {
  const dir = workspace();
  const events: LoopEvent[] = [];
  const run = session(dir, { mode: 'distinct', budget: { max_tokens: 1000 } }, events);
  const pauses: Array<{ y: LoopYield; afterCrossMs: number; gone: boolean[]; laps: number[] }> = [];
  const started = Date.now();
  const outcome = await drive(run.run(newGoal('Fix the parser')), (y): ResumePayload => {
    if (y.kind !== 'pause') throw new Error(`unexpected yield ${y.kind}`);
    // The usage record that took tokens to the limit, and the time since it was recorded.
    const crossing = events.filter((e) => e.type === 'agent.usage' && e.data.input_tokens !== null).at(-1)!;
    const last = pids(dir).at(-1)!;
    pauses.push({ y, afterCrossMs: Date.now() - crossing.at, gone: last.map((pid) => !alive(pid)), laps: laps(events) });
    if (pauses.length === 1) {
      expect(run.extendBudget('tokens', 2000).ok).toBe(true);
      return { action: 'continue' };
    }
    return { action: 'stop' };
  });
  expect(Date.now() - started).toBeLessThan(20_000);
  expect(pauses.map((p) => p.y.kind === 'pause' && p.y.cause)).toEqual([
    { kind: 'budget_exceeded', dimension: 'tokens' },
    { kind: 'budget_exceeded', dimension: 'tokens' },
  ]);
  // What was used once the process was gone: it printed on through the grace period.
  // Counts as the console writes them: exact, short only when exact (`3k`).
  const count = (text: string | undefined) => (text?.endsWith('k') ? Number(text.slice(0, -1)) * 1000 : Number(text));
  const used = (p: (typeof pauses)[number]) => count(/^The tokens budget is spent \(([\d.]+k?) of ([\d.]+k?)\)/.exec(p.y.kind === 'pause' ? p.y.prompt : '')?.[1]);
  expect(used(pauses[0]!)).toBeGreaterThanOrEqual(1050);
  expect(used(pauses[1]!)).toBeGreaterThanOrEqual(1000 + 2000);
  // Killed (SIGTERM ignored: SIGKILL after the grace) soon after the crossing record, the whole group gone.
  for (const pause of pauses) {
    expect(pause.gone).toEqual([true, true]);
    expect(pause.afterCrossMs).toBeLessThan(GRACE_MS + 1500);
  }
  expect(pauses.map((p) => p.laps)).toEqual([[1], [1, 2]]);
  // Each lap ended by the stop (not as a failure of the agent); lap 2 at the raised limit.
  const ends = events.flatMap((e) => (e.type === 'lap.end' ? [`${e.data.lap} ${e.data.outcome} ${e.data.note?.replace(/[\d.]+k? of/, 'N of')}`] : []));
  expect(ends).toEqual(['1 not_done stopped by loopdeck: the tokens budget is spent (N of 1k)', '2 not_done stopped by loopdeck: the tokens budget is spent (N of 3k)']);
  expect(outcome.reason).toBe('exhausted');
  const state = run.snapshot;
  expect(state.usage.tokens).toBe(used(pauses[1]!));
  // Claude Code reports its cost in the result record, which a stopped lap never printed: unknown, not $0.
  expect(state.unreported).toEqual(['cost_usd']);
  // Each parsed message was one turn; the stopped turn is not counted a second time.
  expect(state.usage.turns + state.failedTurns).toBe(events.filter((e) => e.type === 'agent.message' && e.data.starts_turn).length);
}, TEST_MS);

it('a repeated failing call mid-lap is detected on the parsed calls: the CLI is killed, the run pauses on repetition, continue starts lap 2', async () => {
  const dir = workspace();
  const events: LoopEvent[] = [];
  const run = session(dir, { mode: 'same', budget: { max_tokens: 100_000 }, repetition: { threshold: 3, on_detect: 'pause' } }, events);
  const pauses: Array<{ y: LoopYield; gone: boolean[]; laps: number[] }> = [];
  const outcome = await drive(run.run(newGoal('Fix the parser')), (y): ResumePayload => {
    if (y.kind !== 'pause') throw new Error(`unexpected yield ${y.kind}`);
    pauses.push({ y, gone: pids(dir).at(-1)!.map((pid) => !alive(pid)), laps: laps(events) });
    return { action: pauses.length === 1 ? 'continue' : 'stop' };
  });
  expect(pauses.map((p) => p.y.kind === 'pause' && p.y.cause)).toEqual([{ kind: 'repetition' }, { kind: 'repetition' }]);
  expect(pauses[0]!.y.kind === 'pause' && pauses[0]!.y.prompt).toMatch(/the agent's process was stopped\. Continue with a new lap/);
  for (const pause of pauses) expect(pause.gone).toEqual([true, true]);
  expect(pauses.map((p) => p.laps)).toEqual([[1], [1, 2]]);
  // Detected at the third identical call of lap 1: the kill came before many more.
  const detected = events.filter((e) => e.type === 'repetition.detected');
  expect(detected.length).toBeGreaterThanOrEqual(2);
  const lap1Calls = events.filter((e) => e.type === 'tool.call' && e.seq < detected[0]!.seq);
  expect(lap1Calls).toHaveLength(3);
  expect(outcome.reason).toBe('stopped');
}, TEST_MS);

it('repetition.on_detect: stop ends the run stopped at the detection, the CLI killed', async () => {
  const dir = workspace();
  const events: LoopEvent[] = [];
  const run = session(dir, { mode: 'same', budget: { max_tokens: 100_000 }, repetition: { threshold: 3, on_detect: 'stop' } }, events);
  const outcome = await drive(run.run(newGoal('Fix the parser')), (y) => {
    throw new Error(`unexpected yield ${y.kind}`);
  });
  expect(outcome.reason).toBe('stopped');
  expect(outcome.summary).toMatch(/^repetition: /);
  expect(pids(dir).at(-1)!.map((pid) => !alive(pid))).toEqual([true, true]);
  expect(laps(events)).toEqual([1]);
}, TEST_MS);

it.each([
  ['max_tool_calls', 'tool_calls'],
  ['max_iterations', 'turns'],
] as const)('%s allows exactly its count: the CLI is killed at the record past it', async (key, dimension) => {
  const dir = workspace();
  const events: LoopEvent[] = [];
  // Each message is one turn with one call; a CLI that honours SIGTERM prints nothing more once stopped.
  const run = session(dir, { mode: 'distinct term-ok', budget: { [key]: 4 } }, events);
  const causes: unknown[] = [];
  await drive(run.run(newGoal('Fix the parser')), (y) => {
    causes.push(y.kind === 'pause' ? y.cause : y.kind);
    return { action: 'stop' };
  });
  expect(causes).toEqual([{ kind: 'budget_exceeded', dimension }]);
  expect(run.snapshot.usage[dimension]).toBe(5);
  expect(pids(dir).at(-1)!.map((pid) => !alive(pid))).toEqual([true, true]);
}, TEST_MS);

/** Codex: a command, the turn's tokens (no cost), then a second command that never ends. */
const FAKE_CODEX = `
const out = (record) => process.stdout.write(JSON.stringify(record) + '\\n');
out({ type: 'thread.started', thread_id: 't-1' });
out({ type: 'item.started', item: { id: 'item_1', type: 'command_execution', command: 'npm test', aggregated_output: '', exit_code: null, status: 'in_progress' } });
out({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution', command: 'npm test', aggregated_output: '1 failing', exit_code: 1, status: 'failed' } });
out({ type: 'turn.completed', usage: { input_tokens: 1200, cached_input_tokens: 0, output_tokens: 345 } });
out({ type: 'item.started', item: { id: 'item_2', type: 'command_execution', command: 'npm run build', aggregated_output: '', exit_code: null, status: 'in_progress' } });
setInterval(() => {}, 1000);
`;

it('a cost limit crossed by priced tokens of a CLI that reports no cost stops it', async () => {
  const dir = workspace();
  writeFileSync(path.join(dir, 'fake-codex.mjs'), FAKE_CODEX);
  const events: LoopEvent[] = [];
  const pricing = { input_per_million_usd: 100, output_per_million_usd: 200 };
  const run = session(dir, { mode: 'distinct', budget: { max_cost_usd: 0.1 }, pricing, output: 'codex-json', script: 'node fake-codex.mjs' }, events);
  const prompts: string[] = [];
  const started = Date.now();
  await drive(run.run(newGoal('Fix the parser')), (y) => {
    prompts.push(y.kind === 'pause' ? y.prompt : y.kind);
    return { action: 'stop' };
  });
  expect(Date.now() - started).toBeLessThan(10_000);
  // 1200 × $100/M + 345 × $200/M
  expect(prompts).toEqual(['The cost budget is spent ($0.189 of $0.100). Raise it (/budget cost +$1.00) and continue, or stop.']);
  expect(run.snapshot.unreported).toEqual([]);
}, TEST_MS);

it('the wall-clock limit kills a running lap; continue starts a new lap', async () => {
  const dir = workspace();
  const events: LoopEvent[] = [];
  const run = session(dir, { mode: 'distinct', budget: { max_wall_clock: '1s', increments: { wall_clock: '1s' } } }, events);
  const pauses: Array<{ cause: unknown; gone: boolean[]; laps: number[] }> = [];
  const outcome = await drive(run.run(newGoal('Fix the parser')), (y): ResumePayload => {
    if (y.kind !== 'pause') throw new Error(`unexpected yield ${y.kind}`);
    pauses.push({ cause: y.cause, gone: pids(dir).at(-1)!.map((pid) => !alive(pid)), laps: laps(events) });
    if (pauses.length === 1) {
      expect(run.extendBudget('wall_clock_seconds', 1).ok).toBe(true);
      return { action: 'continue' };
    }
    return { action: 'stop' };
  });
  expect(pauses).toEqual([
    { cause: { kind: 'budget_exceeded', dimension: 'wall_clock_seconds' }, gone: [true, true], laps: [1] },
    { cause: { kind: 'budget_exceeded', dimension: 'wall_clock_seconds' }, gone: [true, true], laps: [1, 2] },
  ]);
  expect(outcome.reason).toBe('exhausted');
}, TEST_MS);

it('a stagnation verdict at a checkpoint taken mid-lap kills the CLI and pauses; continue starts lap 2', async () => {
  const dir = workspace();
  const events: LoopEvent[] = [];
  // The same failing test count at every checkpoint: no observed progress.
  const extra = {
    checkpoint: { every_iterations: 2 },
    observe: [{ name: 'tests', command: "printf '# pass 1\\n# fail 1\\n'", parser: 'tap' }],
    progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }] },
    stagnation: { checkpoints_without_observed_progress: 2, on_detect: 'pause' },
  };
  const run = session(dir, { mode: 'distinct', budget: { max_tokens: 1_000_000 }, extra }, events);
  const pauses: Array<{ cause: unknown; gone: boolean[]; laps: number[] }> = [];
  const outcome = await drive(run.run(newGoal('Fix the parser')), (y): ResumePayload => {
    if (y.kind !== 'pause') throw new Error(`unexpected yield ${y.kind}`);
    pauses.push({ cause: y.cause, gone: pids(dir).at(-1)!.map((pid) => !alive(pid)), laps: laps(events) });
    return { action: pauses.length === 1 ? 'continue' : 'stop' };
  });
  expect(pauses).toEqual([
    { cause: { kind: 'stagnation' }, gone: [true, true], laps: [1] },
    { cause: { kind: 'stagnation' }, gone: [true, true], laps: [1, 2] },
  ]);
  // Checkpoints were taken while lap 1 ran, every second parsed turn.
  const lap2 = events.find((e) => e.type === 'lap.start' && e.data.lap === 2)!.seq;
  const lap1Checkpoints = events.flatMap((e) => (e.type === 'checkpoint.recorded' && e.seq < lap2 ? [e.data.checkpoint.iteration % 2] : []));
  expect(lap1Checkpoints.length).toBeGreaterThanOrEqual(2);
  expect(new Set(lap1Checkpoints)).toEqual(new Set([0]));
  expect(outcome.reason).toBe('stopped');
}, TEST_MS);

it('a CLI run that fails after two parsed messages spent two turns, not three', async () => {
  const dir = workspace();
  const message = (i: number) => JSON.stringify({ type: 'assistant', message: { id: `m${i}`, content: [{ type: 'text', text: `step ${i}` }], usage: { input_tokens: 10, output_tokens: 5 } } });
  writeFileSync(path.join(dir, 'failing.sh'), `printf '%s\\n' '${message(1)}' '${message(2)}'\nexit 1\n`);
  const events: LoopEvent[] = [];
  const run = session(dir, { mode: 'distinct', budget: { max_iterations: 100 }, script: 'sh failing.sh', extra: { laps: { enabled: true, max_laps: 1 } } }, events);
  const outcome = await drive(run.run(newGoal('Fix the parser')), (y) => {
    throw new Error(`unexpected yield ${y.kind}`);
  });
  expect(outcome.reason).toBe('exhausted');
  expect(events.filter((e) => e.type === 'lap.end').map((e) => e.type === 'lap.end' && e.data.outcome)).toEqual(['error']);
  const state = run.snapshot;
  expect(state.usage.turns + state.failedTurns).toBe(2);
}, TEST_MS);

it('repetition.on_detect: alert records the repeats and lets the CLI work on (until a limit stops it)', async () => {
  const dir = workspace();
  const events: LoopEvent[] = [];
  const run = session(dir, { mode: 'same', budget: { max_tool_calls: 8 }, repetition: { threshold: 3, on_detect: 'alert' } }, events);
  const causes: unknown[] = [];
  await drive(run.run(newGoal('Fix the parser')), (y) => {
    causes.push(y.kind === 'pause' ? y.cause : y.kind);
    return { action: 'stop' };
  });
  expect(causes).toEqual([{ kind: 'budget_exceeded', dimension: 'tool_calls' }]);
  // The third identical call and every one after it in the window, until the ninth call stopped the CLI.
  const detectedAt = events.flatMap((e) => (e.type === 'repetition.detected' ? [events.filter((x) => x.type === 'tool.call' && x.seq < e.seq).length] : []));
  expect(detectedAt.slice(0, 7)).toEqual([3, 4, 5, 6, 7, 8, 9]);
}, TEST_MS);
