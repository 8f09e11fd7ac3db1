// A run recorded in full, then cut at every line boundary of its log and resumed in
// process: the fixture of the crash tests (docs/design.md, "Resume points").
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session, type LoopOutcome, type LoopYield, type ResumePayload } from '../../src/engine/session.js';

/** The file every tool call appends its id to. */
export const APPENDS = 'appends.txt';

const append = (id: string) => ({ id, name: 'shell', args: { command: `echo ${id} >> ${APPENDS}` } });

/** A call that appends its id, then fails (exit 1): its step fails. */
const appendAndFail = (id: string) => ({ id, name: 'shell', args: { command: `echo ${id} >> ${APPENDS}; exit 1` } });

/**
 * Scripted transcripts: a ReAct run (`react`), one with two fresh laps (`laps`), a
 * Plan-and-Execute run whose failed step replans (`plan`), and a Reflexion run whose
 * refuted claim is reflected on and retried (`reflexion`).
 */
export const SCENARIOS = {
  react: {
    pattern: 'react',
    laps: false,
    transcripts: [
      {
        turns: [
          { thought: 'two appends', tool_calls: [append('a1'), append('a2')] },
          { thought: 'one more', tool_calls: [append('a3')] },
          { thought: 'no tool this turn' },
          { final: 'every append is there' },
        ],
      },
    ],
    verify: `grep -q a3 ${APPENDS}`,
  },
  laps: {
    pattern: 'react',
    laps: true,
    transcripts: [
      { turns: [{ tool_calls: [append('l1.1')] }, { final: 'lap one done?' }] },
      { turns: [{ tool_calls: [append('l2.1'), append('l2.2')] }, { final: 'lap two done' }] },
    ],
    verify: `grep -q l2.2 ${APPENDS}`,
  },
  plan: {
    pattern: 'plan-and-execute',
    laps: false,
    transcripts: [
      {
        plan: ['append p1', 'append p2'],
        // The second replan and the last turn serve a resume whose interrupted call was denied (its step failed).
        replans: [['append p2', 'append p3'], ['check the file']],
        turns: [{ thought: 'p1 fails', tool_calls: [appendAndFail('p1')] }, { tool_calls: [append('p2')] }, { tool_calls: [append('p3')] }, { thought: 'nothing left' }],
      },
    ],
    verify: `grep -q p3 ${APPENDS}`,
  },
  // The observer fails until u4 is appended: the checkpoints before are UNKNOWN and the
  // signal-checked criterion BLOCKED; two UNKNOWN in a row raise `checkpoint.unknown`, which
  // pauses (`on_unknown: pause`); after u4 the criterion is met and the verifier passes.
  unknown: {
    pattern: 'react',
    laps: false,
    transcripts: [
      {
        turns: [
          { thought: 'two appends', tool_calls: [append('u1'), append('u2')] },
          { thought: 'one more', tool_calls: [append('u3')] },
          { thought: 'look again' },
          { thought: 'and again' },
          { tool_calls: [append('u4')] },
          { final: 'every append is there' },
        ],
      },
    ],
    verify: `grep -q u4 ${APPENDS}`,
  },
  reflexion: {
    pattern: 'reflexion',
    laps: false,
    transcripts: [
      {
        reflections: ['x3 was never appended'],
        turns: [{ tool_calls: [append('x1')] }, { final: 'done, I think' }, { tool_calls: [append('x2'), append('x3')] }, { final: 'now x3 is there' }],
      },
    ],
    verify: `grep -q x3 ${APPENDS}`,
  },
} as const;

export type ScenarioName = keyof typeof SCENARIOS;

/** Calls asked about by a hook (the others by the built-in gates' decision). */
const ASKED = new Set(['a2', 'l2.1', 'p2', 'x2', 'u2']);

/**
 * Answers by policy: approve every question, but never run again a call that was
 * interrupted mid-run (it may have had its effect).
 */
export function policyAnswer(y: LoopYield): ResumePayload {
  if (y.kind === 'tool') return y.interrupted ? { decision: 'deny', note: 'interrupted: not run again' } : { decision: 'approve' };
  return { action: 'continue' };
}

/** What the `unknown` scenario adds to the policy: an observer that fails, a criterion checked on its signal, a pause at UNKNOWN. */
const FAILING_OBSERVER = {
  observe: [{ name: 'tests', command: `grep -q u4 ${APPENDS} 2>/dev/null && printf '# pass 1\\n# fail 0\\n' || { echo the runner crashed; exit 3; }`, parser: 'tap' }],
  progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }] },
  stagnation: { on_unknown: 'pause' },
};

function policyFor(dir: string, name: ScenarioName) {
  const scenario = SCENARIOS[name];
  const unknown = name === 'unknown';
  return parsePolicy(
    stringify({
      goal: unknown ? { objective: 'Append every id', success_criteria: [{ text: 'no test fails', check: { signal: 'observed.tests.failing', target: 0 } }] } : { objective: 'Append every id' },
      ...(unknown ? FAILING_OBSERVER : {}),
      pattern: scenario.pattern,
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: scenario.verify }],
      hooks: [],
      checkpoint: { every_iterations: 2 },
      laps: scenario.laps ? { enabled: true, max_laps: 3 } : { enabled: false },
      on_abort: { stash: false, report: false },
    }),
    path.join(dir, 'loop.yaml'),
  );
}

/**
 * A session of `name` in `dir`, continuing `prior` when given; its events are collected in
 * `events`. `withHooks` subscribes more hooks after the scenario's own.
 */
export function makeSession(dir: string, name: ScenarioName, prior?: LoopEvent[], withHooks?: (hooks: HookRegistry) => void) {
  const scenario = SCENARIOS[name];
  const hooks = new HookRegistry();
  hooks.on('before_tool_call', 'ask', (p) => (ASKED.has(p.call.id) ? { type: 'pause', prompt: `run ${p.call.id}?` } : undefined));
  withHooks?.(hooks);
  let now = 1_700_000_000_000 + (prior?.length ?? 0) * 1000;
  const events: LoopEvent[] = [];
  const agentFor = (lap: number) => ScriptedAgent.fromYaml(stringify(scenario.transcripts[Math.max(0, lap - 1)] ?? { turns: [] }));
  const session = new Session({
    id: 's1',
    agent: agentFor(0),
    policy: policyFor(dir, name),
    workspace: dir,
    clock: () => (now += 1000),
    hooks,
    sinks: [(e) => events.push(e)],
    ...(scenario.laps ? { agentFactory: agentFor } : {}),
    ...(prior ? { prior } : {}),
  });
  return { session, events };
}

/** A fresh workspace folder; `cleanup` removes it. */
export function workspace(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'loopdeck-crash-'));
}

/** The ids appended to the workspace's file, in order. */
export function appended(dir: string): string[] {
  const file = path.join(dir, APPENDS);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** Runs `name` to the end without a crash. */
export async function recordRun(name: ScenarioName): Promise<{ events: LoopEvent[]; outcome: LoopOutcome; appends: string[] }> {
  const dir = workspace();
  try {
    const { session, events } = makeSession(dir, name);
    // The goal as loop.yaml gives it: the `unknown` scenario's criterion is checked on the failing observer's signal.
    const goal = policyFor(dir, name).goal;
    const outcome = await drive(session.run(newGoal(goal.objective, goal.success_criteria)), policyAnswer);
    return { events, outcome, appends: appended(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The workspace as a crash after `prior` may have left it, at worst: every call approved
 * in `prior` has appended (one whose result is not recorded may have run to its end).
 */
export function workspaceAt(dir: string, prior: readonly LoopEvent[]): void {
  const ids = prior.flatMap((e) => (e.type === 'tool.decision' && e.data.decision === 'approve' ? [e.data.call_id] : []));
  if (ids.length > 0) writeFileSync(path.join(dir, APPENDS), ids.map((id) => `${id}\n`).join(''));
}

/** What one resume of a cut log gave. */
export interface CutResult {
  cut: number;
  lastType: string;
  outcome: LoopOutcome | null;
  error: string | null;
  events: LoopEvent[];
  appends: string[];
}

/** Cuts the recorded log after `cut` events, resumes it in a workspace as the crash left it, and drives it to the end. */
export async function resumeCut(name: ScenarioName, recorded: readonly LoopEvent[], cut: number): Promise<CutResult> {
  const dir = workspace();
  const prior = recorded.slice(0, cut);
  const lastType = prior[prior.length - 1]?.type ?? '(none)';
  try {
    workspaceAt(dir, prior);
    const { session, events } = makeSession(dir, name, prior);
    try {
      const outcome = await drive(session.resume(), policyAnswer);
      return { cut, lastType, outcome, error: null, events: [...prior, ...events], appends: appended(dir) };
    } catch (error) {
      return { cut, lastType, outcome: null, error: String(error), events: [...prior, ...events], appends: appended(dir) };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The crash invariants of one resumed cut, as messages (empty when all hold): it ended
 * without a throw and as the uncrashed run did; every call id appended at most once; no
 * completed model turn asked for again; seqs 0..n-1 without gaps or repeats.
 */
export function violations(result: CutResult, uncrashed: { outcome: LoopOutcome; events: readonly LoopEvent[] }): string[] {
  const out: string[] = [];
  const where = `cut after #${result.cut - 1} ${result.lastType}`;
  if (result.error) out.push(`${where}: threw ${result.error}`);
  else if (result.outcome?.reason !== uncrashed.outcome.reason) out.push(`${where}: ended ${result.outcome?.reason}, uncrashed ${uncrashed.outcome.reason}`);
  const counts = new Map<string, number>();
  for (const id of result.appends) counts.set(id, (counts.get(id) ?? 0) + 1);
  for (const [id, n] of counts) if (n > 1) out.push(`${where}: ${id} ran ${n} times`);
  const seqs = result.events.map((e) => e.seq);
  if (seqs.some((s, i) => s !== i)) out.push(`${where}: seqs are not 0..${seqs.length - 1}: ${seqs.join(',')}`);
  const turns = result.events.flatMap((e) => (e.type === 'model.call' ? [`${lapOf(result.events, e.seq)}:${e.data.turn}`] : []));
  if (new Set(turns).size !== turns.length) out.push(`${where}: a model turn was asked twice (${turns.join(' ')})`);
  // A denied interrupted call fails its step: Plan-and-Execute then replans and takes a turn more, never fewer.
  const want = uncrashed.events.filter((e) => e.type === 'model.call').length;
  if (result.error === null && turns.length < want) out.push(`${where}: ${turns.length} model turns, uncrashed ${want}`);
  const got = factKeys(result.events);
  // As docs/design.md, "Resume points" says: a verify trigger without its verify.result is judged again, matrix included.
  const judgedAgain = (k: string) => result.lastType === 'acceptance.checked' && / verify /.test(k);
  const dup = got.filter((k, i) => got.indexOf(k) !== i && !judgedAgain(k));
  if (dup.length > 0) out.push(`${where}: recorded twice: ${dup.join(', ')}`);
  if (result.error === null) {
    // A verdict is lost or repeated when the run's verdicts differ (a denied step may move one to a later step).
    // A cut between a checkpoint and its acceptance.checked leaves that matrix unchecked (the next check fills it).
    const unchecked = (k: string) => result.lastType === 'checkpoint.recorded' && / checkpoint /.test(k) && k.startsWith('acceptance.checked');
    const lost = factKeys(uncrashed.events).filter((k) => !got.includes(k) && !k.startsWith('verify.result') && !unchecked(k));
    if (lost.length > 0) out.push(`${where}: lost: ${lost.join(', ')}`);
    const verdicts = (events: readonly LoopEvent[]) => events.flatMap((e) => (e.type === 'verify.result' ? [e.data.passed ? 'passed' : 'failed'] : []));
    const [had, have] = [verdicts(uncrashed.events), verdicts(result.events)];
    if (have.join() !== had.join()) out.push(`${where}: verifier verdicts ${have.join(', ')}, uncrashed ${had.join(', ')}`);
  }
  return out;
}

/** The facts of a log that happen once in a run, as keys: a repeat is a duplicate, a missing one is lost. */
export function factKeys(events: readonly LoopEvent[]): string[] {
  let step = 0;
  // A plan drafted twice before its commit was asked of the agent twice.
  let commits = 0;
  return events.flatMap((e) => {
    if (e.type === 'step.start') step = e.data.step;
    switch (e.type) {
      case 'step.start':
        return [`step.start ${e.data.step}`];
      case 'model.call':
        return [`model.call ${e.data.turn}`];
      case 'tool.call':
        return [`tool.call ${e.data.call.id}`];
      case 'tool.result':
        return [`tool.result ${e.data.result.call_id}`];
      case 'checkpoint.recorded':
        return [`checkpoint ${e.data.checkpoint.iteration} ${e.data.checkpoint.status}`];
      case 'acceptance.checked':
        return [`acceptance.checked ${e.data.iteration} ${e.data.trigger} ${e.data.rows.map((r) => r.status).join('/')}`];
      case 'checkpoint.unknown':
      case 'stagnation.detected':
        return [`${e.type} ${e.data.iteration} ${e.data.action}`];
      case 'session.pause':
        return [`session.pause ${e.data.reason} at ${e.data.from} step ${step}`];
      case 'verify.result':
        return [`verify.result step ${step}`];
      case 'workspace.snapshot':
        return [`workspace.snapshot step ${step}`];
      case 'lap.start':
      case 'lap.end':
        return [`${e.type} ${e.data.lap}`];
      case 'plan.draft':
        return [`plan.draft of plan ${commits + 1}`];
      case 'plan.commit':
        return [`plan.commit ${++commits} (${e.data.steps.join(', ')})`];
      case 'reflection.recorded':
        return [`reflection ${e.data.attempt}`];
      case 'session.complete':
        return [e.type];
      default:
        return [];
    }
  });
}

function lapOf(events: readonly LoopEvent[], seq: number): number {
  let lap = 0;
  for (const e of events) {
    if (e.seq >= seq) break;
    if (e.type === 'lap.start') lap = e.data.lap;
  }
  return lap;
}

/** Runs `work` over `items` with at most `limit` at once, results in order of `items`. */
export async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      out[index] = await work(items[index]!);
    }
  });
  await Promise.all(lanes);
  return out;
}

/**
 * Where to cut a log of `events` (a cut keeps that many events, 1 to all but the last):
 * every boundary when `all`, else after the first and the last event of each type.
 */
export function sampleCuts(events: readonly LoopEvent[], all: boolean): number[] {
  const every = Array.from({ length: events.length - 1 }, (_, i) => i + 1);
  if (all) return every;
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  for (const cut of every) {
    const type = events[cut - 1]!.type;
    if (!first.has(type)) first.set(type, cut);
    last.set(type, cut);
  }
  return [...new Set([...first.values(), ...last.values()])].sort((a, b) => a - b);
}
