// Generates a realistic event log by running a real Session: an in-memory ReAct agent
// that alternates tool calls and thought-only turns, tools that answer at once, a
// simulated clock, no hooks and no observers, checkpoints out of reach, budgets too high
// to warn, and a verifier (`true`) that runs once, when the agent finally claims the goal.
// Every event comes from the engine itself, one JSON line each, as EventLog writes them.
//
// The engine's per-event cost grows with the length of the run, so a real run of 100k
// events takes minutes. Above SESSION_EVENT_LIMIT events the log is therefore a real run
// of SEED_EVENTS events whose steps are replicated with renumbered seq, at, step, turn and
// call ids (see `replicate`); `mode` forces one or the other.
//
//   tsx bench/make-log.ts [events] [file] [auto|session|replicated]
//   (default: 100000 events, a temporary file, auto)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import type { Agent, AgentContext } from '../src/engine/agents/agent.js';
import { drive, headlessAnswerer } from '../src/engine/drive.js';
import { newGoal } from '../src/engine/goal.js';
import type { LoopEvent } from '../src/engine/events.js';
import { parsePolicy, type LoopPolicy } from '../src/engine/policy.js';
import { Session, type LoopOutcome, type SessionOptions } from '../src/engine/session.js';
import type { AgentTurn, ToolCall } from '../src/engine/types.js';
import { detail } from './report.js';

export type ToolRunner = NonNullable<SessionOptions['runTool']>;

/**
 * The loop contract of every bench session: ReAct, no hooks, no observers, checkpoints
 * out of reach, limits high enough never to warn, and `true` as the verifier.
 */
export function benchPolicy(workspace: string): LoopPolicy {
  const config = {
    goal: {
      objective: 'Names with accents must survive the payload round trip',
      success_criteria: ['every test of node --test passes'],
      constraints: ['do not edit the tests'],
    },
    pattern: 'react',
    agent: { kind: 'scripted', script: 'unused.yaml' },
    workspace: { path: '.', copy: 'none' },
    budget: {
      max_iterations: 1e9,
      max_tool_calls: 1e9,
      max_wall_clock: '8000h',
      max_tokens: 1e15,
      max_cost_usd: 1e6, // the largest cost budget loop.yaml takes
    },
    pricing: { input_per_million_usd: 3, output_per_million_usd: 15 },
    checkpoint: { every_iterations: 1e9 },
    observe: [],
    hooks: [],
    verify: [{ command: 'true' }],
  };
  return parsePolicy(stringify(config), path.join(workspace, 'loop.yaml'));
}

/** A simulated clock: each reading is `stepMs` after the previous one. */
export function simulatedClock(start = 1_764_400_000_000, stepMs = 7): () => number {
  let now = start;
  return () => (now += stepMs);
}

const TEST_OUTPUT = [
  'TAP version 13',
  '# Subtest: payload round trip',
  'ok 1 - ascii names survive',
  'not ok 2 - names with accents survive',
  '  ---',
  "  expected: 'José Müller'",
  "  actual: 'JosÃ© MÃ¼ller'",
  '  ...',
  'ok 3 - empty payload',
  'not ok 4 - ascii-safe output keeps unicode',
  '1..4',
  '# tests 4',
  '# pass 2',
  '# fail 2',
].join('\n');

const SOURCE = [
  "import { Buffer } from 'node:buffer';",
  '',
  'export function encode(payload) {',
  "  const json = JSON.stringify(payload);",
  "  return Buffer.from(json, 'latin1').toString('base64');",
  '}',
  '',
  'export function decode(text) {',
  "  const json = Buffer.from(text, 'base64').toString('latin1');",
  '  return JSON.parse(json);',
  '}',
].join('\n');

/** The tool calls the realistic agent cycles through. */
const CALLS: Array<Omit<ToolCall, 'id'>> = [
  { name: 'shell', args: { command: 'node --test' } },
  { name: 'read_file', args: { path: 'src/payload.js' } },
  { name: 'shell', args: { command: 'grep -rn "latin1" src test' } },
  { name: 'edit', args: { path: 'src/payload.js', find: "toString('latin1')", replace: "toString('utf8')" } },
  { name: 'shell', args: { command: 'git diff --stat' } },
];

/** Answers a tool call at once with output shaped like the real tool's. */
export const instantTool: ToolRunner = async (call) => {
  switch (call.name) {
    case 'read_file':
      return { status: 'ok', output: SOURCE, exit_code: null };
    case 'edit':
      return { status: 'ok', output: `edited ${String(call.args.path)}`, exit_code: null };
    default: {
      const command = String(call.args.command ?? '');
      if (command.startsWith('node --test')) return { status: 'failed', output: TEST_OUTPUT, exit_code: 1 };
      if (command.startsWith('grep')) {
        return { status: 'ok', output: "src/payload.js:5:  return Buffer.from(json, 'latin1').toString('base64');\nsrc/payload.js:9:  const json = Buffer.from(text, 'base64').toString('latin1');", exit_code: 0 };
      }
      return { status: 'ok', output: ' src/payload.js | 4 ++--\n 1 file changed, 2 insertions(+), 2 deletions(-)', exit_code: 0 };
    }
  }
};

/** A tool that does nothing. */
export const noopTool: ToolRunner = async () => ({ status: 'ok', output: '', exit_code: 0 });

/** Events the engine writes after `nextTurn` returns, up to and including the next `step.start`. */
const EVENTS_AFTER = { thought: 5, tool: 9, final: 6 } as const;

/** The realistic agent repeats itself every this many turns (tool cycle and reports). */
export const AGENT_PERIOD = 20;

/**
 * A ReAct agent in memory: odd turns call a tool (cycling through {@link CALLS}), even
 * turns only think; every {@link AGENT_PERIOD}th turn reports claims. It claims the goal when the log has
 * reached `targetEvents` (read through `eventCount`), steering its last turns so the log
 * ends with exactly that many events.
 */
export class RealisticAgent implements Agent {
  readonly name = 'bench:realistic';
  turns = 0;

  constructor(
    private readonly targetEvents: number,
    private readonly eventCount: () => number,
  ) {}

  async nextTurn(context: AgentContext): Promise<AgentTurn> {
    this.turns += 1;
    const turn = context.turn;
    const usage = { input_tokens: 1200 + ((turn * 37) % 3000), output_tokens: 80 + ((turn * 13) % 400) };
    const left = this.targetEvents - this.eventCount() - EVENTS_AFTER.final;
    if (left <= 0) return { thought: 'The suite passes now.', tool_calls: [], final: 'Names with accents survive the round trip.', usage };
    // The endgame: thought turns cost 5 events, tool turns 9; land exactly on the target.
    const tool = left < 60 ? left % EVENTS_AFTER.thought !== 0 : turn % 2 === 1;
    const report =
      turn % AGENT_PERIOD === 0
        ? {
            report: {
              eliminated_hypotheses: [`hypothesis ${turn}: the client decodes the response`],
              remaining_hypotheses: ['the serializer uses latin1'],
              new_evidence: [{ claim: `turn ${turn}: decode is symmetric with encode`, evidence_ref: 'names with accents survive' }],
            },
          }
        : {};
    if (!tool) {
      return { thought: `Turn ${turn}: the output still shows mojibake, so the encoding is lost before base64.`, tool_calls: [], usage, ...report };
    }
    const call = CALLS[Math.floor(turn / 2) % CALLS.length]!;
    return {
      thought: `Turn ${turn}: ${call.name} to check where the accents are lost.`,
      tool_calls: [{ id: `call_${turn}`, name: call.name, args: structuredClone(call.args) }],
      usage,
      ...report,
    };
  }
}

/**
 * The smallest agent: every turn one call of a no-op tool, until `stop(turn)` says so,
 * then a final claim. `onTurn` is called at the start of every turn (for per-step timing).
 */
export class NoopAgent implements Agent {
  readonly name = 'bench:noop';

  constructor(
    private readonly stop: (turn: number) => boolean,
    private readonly onTurn: (turn: number) => void = () => {},
  ) {}

  async nextTurn(context: AgentContext): Promise<AgentTurn> {
    this.onTurn(context.turn);
    const usage = { input_tokens: 1, output_tokens: 1 };
    if (this.stop(context.turn)) return { tool_calls: [], final: 'done', usage };
    // Arguments differ every turn: identical calls would (rightly) trip the repetition guard.
    return { tool_calls: [{ id: `c${context.turn}`, name: 'noop', args: { turn: context.turn } }], usage };
  }
}

/** One line on what {@link makeLog} wrote. */
export function describeLog(made: MadeLog): string {
  const how =
    made.mode === 'session'
      ? `all from one real session (${made.outcome.reason})`
      : `a real session of ${made.sessionEvents} events (${made.outcome.reason}), its steps replicated with renumbered seq, at, step, turn and call ids`;
  return `${made.file}: ${made.events} events, ${made.turns} agent turns, ${(made.bytes / 2 ** 20).toFixed(1)} MiB; ${how}; made in ${(made.ms / 1000).toFixed(1)} s`;
}

/** A temporary workspace, removed by the returned function. */
export function tempWorkspace(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bench-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs one bench session to its end (headless answers: approve all, stop at pauses). */
export async function runBenchSession(options: {
  agent: Agent;
  runTool: ToolRunner;
  workspace: string;
  sinks: SessionOptions['sinks'];
  id?: string;
}): Promise<LoopOutcome> {
  const policy = benchPolicy(options.workspace);
  const session = new Session({
    id: options.id ?? 'bench-session',
    agent: options.agent,
    policy,
    workspace: options.workspace,
    clock: simulatedClock(),
    sinks: options.sinks ?? [],
    runTool: options.runTool,
  });
  const goal = newGoal(policy.goal.objective, policy.goal.success_criteria, policy.goal.constraints);
  return drive(session.run(goal), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
}

/** What {@link makeLog} wrote. */
export interface MadeLog {
  file: string;
  events: number;
  turns: number;
  bytes: number;
  /** `session`: every event from one real run; `replicated`: see {@link replicate}. */
  mode: 'session' | 'replicated';
  /** Events of the real run (all of them in `session` mode, the seed in `replicated` mode). */
  sessionEvents: number;
  outcome: LoopOutcome;
  ms: number;
}

/**
 * Above this many events {@link makeLog} replicates a smaller real run: the engine's
 * per-event cost grows with the length of the run, so a real
 * 100k-event run takes minutes.
 */
export const SESSION_EVENT_LIMIT = 20_000;
/** Size of the real run that a replicated log is made from. */
export const SEED_EVENTS = 4_000;

/** Runs a real session whose log ends with exactly `events` events (see {@link RealisticAgent}). */
export async function recordSession(events: number): Promise<{ events: LoopEvent[]; turns: number; outcome: LoopOutcome }> {
  const workspace = tempWorkspace();
  const recorded: LoopEvent[] = [];
  const agent = new RealisticAgent(events, () => recorded.length);
  try {
    const outcome = await runBenchSession({
      agent,
      runTool: instantTool,
      workspace: workspace.dir,
      id: 'bench-100k',
      sinks: [(event) => recorded.push(event)],
    });
    return { events: recorded, turns: agent.turns, outcome };
  } finally {
    workspace.remove();
  }
}

/**
 * Replicates the step pattern of a real run to `target` events. The real run's events
 * before its first step, its first agent period (which holds one-off events such as the
 * first workspace snapshot) and its last step (the final claim, the verifier, DONE) are
 * kept once; the steps of the following whole agent periods (before the seed's own
 * endgame) are repeated in order, so every copy repeats the step of a turn with the same
 * place in the agent's period. Each copy is renumbered: `seq` dense from 0, `at` shifted
 * by the seed's own step durations, the step and turn numbers, and the tool call ids
 * (`call_<turn>`) in `model.call`, `tool.call`, `tool.decision` and `tool.result`. The
 * last steps are chosen (thought-only or tool) so the log has exactly `target` events
 * when the step sizes allow it. Every step of a realistic run is one agent turn, so a copy
 * is too.
 *
 * @returns the JSONL lines, in order, and the number of agent turns they record
 */
export function replicate(seed: readonly LoopEvent[], target: number): { lines: string[]; turns: number } {
  const starts = seed.flatMap((e, i) => (e.type === 'step.start' ? [i] : []));
  const head = seed.slice(0, starts[0]);
  const tail = seed.slice(starts[starts.length - 1]);
  const all = starts.slice(0, -1).map((start, k) => seed.slice(start, starts[k + 1]));
  for (const step of all) {
    if (step.filter((e) => e.type === 'model.call').length !== 1) throw new Error('a seed step is not exactly one agent turn');
  }
  /** Clock time from the start of each part to the start of the next one, as in the seed. */
  const span = new Map<readonly LoopEvent[], number>(all.map((step, k) => [step, seed[starts[k + 1]!]!.at - step[0]!.at]));
  span.set(head, seed[starts[0]!]!.at - seed[0]!.at);
  // Leave out the seed's own endgame (its last few steps are steered to hit its size).
  const periods = Math.floor((all.length - 15) / AGENT_PERIOD) - 1;
  if (periods < 1) throw new Error(`the seed run has ${all.length} steps; need at least ${2 * AGENT_PERIOD + 15}`);
  const first = all.slice(0, AGENT_PERIOD);
  const cycle = all.slice(AGENT_PERIOD, AGENT_PERIOD * (periods + 1));
  const thought = cycle.find((s) => !s.some((e) => e.type === 'tool.call'));
  const tool = cycle.find((s) => s.some((e) => e.type === 'tool.call'));
  if (!thought || !tool) throw new Error('the seed run needs both thought-only and tool steps');
  /** For the last steps: a step after which the rest can still be made of thought and tool steps exactly. */
  const landing = (left: number): readonly LoopEvent[] | null => {
    for (let tools = 0; tools * tool.length <= left; tools += 1) {
      if ((left - tools * tool.length) % thought.length === 0) return tools > 0 ? tool : thought;
    }
    return null;
  };
  const lines: string[] = [];
  let at = seed[0]!.at;
  const write = (events: readonly LoopEvent[], step: number | null) => {
    const base = events[0]!.at;
    for (const event of events) {
      const copy = structuredClone(event) as LoopEvent;
      copy.seq = lines.length;
      copy.at = at + (event.at - base);
      if (step !== null) renumber(copy, step);
      lines.push(JSON.stringify(copy));
    }
    at += span.get(events) ?? 0;
  };
  write(head, null);
  const body = target - head.length - tail.length;
  const endgame = 8 * (thought.length + tool.length);
  if (body < endgame) throw new Error(`${target} events are too few to replicate from a seed of ${seed.length}`);
  let step = 0;
  for (let written = 0; written < body; ) {
    const left = body - written;
    const next =
      step < first.length ? first[step]! : left >= endgame ? cycle[(step - first.length) % cycle.length]! : landing(left) ?? (left >= thought.length ? thought : null);
    if (!next) break;
    step += 1;
    write(next, step);
    written += next.length;
  }
  write(tail, step + 1);
  return { lines, turns: step + 1 };
}

/** Gives one event of a copied step its new step number, turn number and call id. */
function renumber(e: LoopEvent, step: number): void {
  const id = `call_${step}`;
  switch (e.type) {
    case 'step.start':
      e.data.step = step;
      e.data.turn = step;
      break;
    case 'step.end':
      e.data.step = step;
      break;
    case 'model.call':
      e.data.turn = step;
      for (const call of e.data.response.tool_calls) call.id = id;
      break;
    case 'tool.call':
      e.data.call.id = id;
      break;
    case 'tool.decision':
      e.data.call_id = id;
      break;
    case 'tool.result':
      e.data.result.call_id = id;
      break;
    case 'tool.error':
      e.data.call_id = id;
      break;
    default:
      break;
  }
}

/**
 * Writes a realistic log of exactly `events` events to `file` (default: a new temporary
 * file): all from one real session up to {@link SESSION_EVENT_LIMIT} events (or with
 * `mode: 'session'`), else a real run of {@link SEED_EVENTS} events replicated.
 */
export async function makeLog(events = 100_000, file?: string, mode: 'auto' | 'session' | 'replicated' = 'auto'): Promise<MadeLog> {
  const start = performance.now();
  const target = file ?? path.join(mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bench-log-')), 'events.jsonl');
  const replicated = mode === 'replicated' || (mode === 'auto' && events > SESSION_EVENT_LIMIT);
  const run = await recordSession(replicated ? SEED_EVENTS : events);
  const { lines, turns } = replicated ? replicate(run.events, events) : { lines: run.events.map((e) => JSON.stringify(e)), turns: run.turns };
  // One line per event, exactly as EventLog.append writes them.
  const text = `${lines.join('\n')}\n`;
  writeFileSync(target, text);
  return {
    file: target,
    events: lines.length,
    turns,
    bytes: Buffer.byteLength(text),
    mode: replicated ? 'replicated' : 'session',
    sessionEvents: run.events.length,
    outcome: run.outcome,
    ms: performance.now() - start,
  };
}

/** Makes a log of `events` events (see {@link makeLog}), says what it is, hands it to `use`, and removes it afterwards. */
export async function withLog<T>(events: number, use: (made: MadeLog) => Promise<T> | T): Promise<T> {
  const made = await makeLog(events);
  try {
    detail(`log: ${describeLog(made)}`);
    return await use(made);
  } finally {
    rmSync(path.dirname(made.file), { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const events = Number(process.argv[2] ?? 100_000);
  const mode = (process.argv[4] ?? 'auto') as 'auto' | 'session' | 'replicated';
  const made = await makeLog(events, process.argv[3], mode);
  process.stdout.write(`${describeLog(made)}\n`);
}

