// Execution memory (docs/design.md, "Execution memory"): each checkpoint records a bounded
// memory of the run so far, the agent sees it at the start of every turn and a new lap
// starts from it. Real workspaces, real observer and tool commands, the scripted agent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Agent, AgentContext } from '../../src/engine/agents/agent.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { hooksFor } from '../../src/hooks/index.js';
import type { CheckpointRecord } from '../../src/engine/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-memory-'));
  dirs.push(dir);
  return dir;
}

/** Passes turns through to a scripted agent and keeps what each turn was given. */
class Recording implements Agent {
  readonly name = 'recording';
  readonly seen: Array<{ turn: number; memory: string | null | undefined; history: string }> = [];
  constructor(private readonly inner: ScriptedAgent) {}
  nextTurn(context: AgentContext) {
    this.seen.push({ turn: context.turn, memory: context.memory, history: JSON.stringify(context.history) });
    return this.inner.nextTurn(context);
  }
}

const write = (id: string, file: string, content: string, extra: Record<string, unknown> = {}) => ({
  tool_calls: [{ id, name: 'write_file', args: { path: file, content } }],
  ...extra,
});
const shell = (id: string, command: string, extra: Record<string, unknown> = {}) => ({ tool_calls: [{ id, name: 'shell', args: { command } }], ...extra });

function policyFor(dir: string, extra: Record<string, unknown> = {}) {
  return parsePolicy(
    stringify({
      goal: { objective: 'fix it', success_criteria: ['no failing test', 'done.txt exists'] },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'test -f done.txt' }],
      checkpoint: { every_iterations: 2 },
      observe: [{ name: 'tests', command: 'cat count.txt 2>/dev/null || echo none', parser: 'regex', pattern: 'failing: (?<failing>\\d+)' }],
      progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }] },
      stagnation: { checkpoints_without_observed_progress: 5, on_detect: 'alert' },
      approval: { deny: ['shell: curl'] },
      ...extra,
    }),
    path.join(dir, 'loop.yaml'),
  );
}

async function run(agent: Agent, dir: string, policy = policyFor(dir), options: Record<string, unknown> = {}) {
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  // The built-in approval gate, with the policy's deny rule (`shell: curl`).
  const hooks = hooksFor(policy, { runDir: path.join(dir, '.loopdeck-run'), workspace: dir });
  const session = new Session({ id: 's1', agent, policy, workspace: dir, hooks, clock: () => (now += 1000), sinks: [(e) => events.push(e)], ...options });
  const outcome = await drive(session.run(newGoal('fix it', ['no failing test', 'done.txt exists'])), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  const checkpoints = events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint as CheckpointRecord] : []));
  return { outcome, events, checkpoints };
}

/** Six turns over three checkpoints: the failing count moves 5 → 5 → 2, hypotheses are narrowed, calls fail and are denied, a claim is refuted. */
function story() {
  return {
    turns: [
      write('w1', 'count.txt', 'failing: 5', {
        report: {
          new_evidence: [{ claim: 'the DTO is valid before serialization', evidence_ref: 'dto is valid' }],
          eliminated_hypotheses: ['business validation'],
          remaining_hypotheses: ['http mapping', 'serializer', 'cache'],
        },
      }),
      shell('s1', 'echo boom >&2; exit 3'),
      shell('s2', 'echo boom >&2; exit 3', { report: { eliminated_hypotheses: ['http mapping'], remaining_hypotheses: ['serializer', 'http mapping'] } }),
      shell('c1', 'curl http://example.invalid'),
      { final: 'all fixed' },
      write('w2', 'count.txt', 'failing: 2'),
      write('w3', 'done.txt', 'ok'),
      { final: 'done' },
    ],
  };
}

describe('execution memory', () => {
  it('after several checkpoints holds the signal trend, the hypotheses, the evidence and what failed, deduplicated', async () => {
    const dir = tempDir();
    const { outcome, checkpoints, events } = await run(ScriptedAgent.fromYaml(stringify(story())), dir);
    expect(outcome, JSON.stringify(events.slice(-6))).toMatchObject({ reason: 'goal_met' });
    // The baseline at the start (count.txt not written yet: nothing measured), then every 2 turns.
    expect(checkpoints.map((c) => c.iteration)).toEqual([0, 2, 4, 6]);
    const memory = checkpoints[3]!.memory!;
    expect(memory.signals).toEqual([{ signal: 'observed.tests.failing', values: [null, 5, 5, 2], move: 'wanted' }]);
    expect(memory.eliminated).toEqual(['business validation', 'http mapping']);
    // The latest list of open hypotheses, without what was eliminated since.
    expect(memory.remaining).toEqual(['serializer']);
    expect(memory.evidence).toEqual([{ claim: 'the DTO is valid before serialization', ref: 'dto is valid', status: 'not_found', iteration: 2 }]);
    expect(memory.failures).toEqual([
      { kind: 'tool', what: 'shell echo boom >&2; exit 3', why: 'failed (exit 3): boom', turn: 3, count: 2 },
      { kind: 'denied', what: 'shell curl http://example.invalid', why: 'cancelled before dispatch: deny rule "shell: curl"', turn: 4, count: 1 },
      { kind: 'verify', what: 'test -f done.txt', why: 'exit 1', turn: 5, count: 1 },
    ]);
    expect(memory.dropped).toBe(0);
    expect(memory).not.toHaveProperty('acceptance');
    // The baseline's memory holds only what was measured; the first interval's knew only its own part.
    expect(checkpoints[0]!.memory).toMatchObject({ signals: [{ signal: 'observed.tests.failing', values: [null], move: 'missing' }], evidence: [], eliminated: [], remaining: [], failures: [] });
    expect(checkpoints[1]!.memory!.failures.map((f) => [f.what, f.count])).toEqual([['shell echo boom >&2; exit 3', 1]]);
    expect(checkpoints[1]!.memory!.remaining).toEqual(['http mapping', 'serializer', 'cache']);
    // Replay and resume fold the same memory from the log, and what failed since the last checkpoint.
    const folded = fold(events);
    expect(folded.checkpoints.map((c) => c.memory)).toEqual(checkpoints.map((c) => c.memory));
    expect(folded.failedSinceCheckpoint).toEqual([]);
  });

  it('is re-derived from the log on resume: a run cut between two checkpoints remembers what failed before the cut', async () => {
    const dir = tempDir();
    const whole = await run(ScriptedAgent.fromYaml(stringify(story())), dir);
    // Cut right after the second failing call of turn 3, before the checkpoint of turn 4.
    const cut = whole.events.findIndex((e) => e.type === 'tool.result' && e.data.result.call_id === 's2') + 1;
    const prior = whole.events.slice(0, cut);
    expect(prior.filter((e) => e.type === 'checkpoint.recorded')).toHaveLength(2);
    const again = tempDir();
    writeFileSync(path.join(again, 'count.txt'), 'failing: 5');
    const policy = policyFor(again);
    const events: LoopEvent[] = [...prior];
    let now = prior.at(-1)!.at;
    const hooks = hooksFor(policy, { runDir: path.join(again, '.loopdeck-run'), workspace: again });
    const session = new Session({ id: 's1', agent: ScriptedAgent.fromYaml(stringify(story())), policy, workspace: again, hooks, prior, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
    const outcome = await drive(session.resume(), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(outcome.reason).toBe('goal_met');
    const resumed = events.slice(cut).flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint.memory] : []));
    expect(resumed).toEqual(whole.checkpoints.slice(2).map((c) => c.memory));
    expect(resumed[0]!.failures[0]).toMatchObject({ what: 'shell echo boom >&2; exit 3', count: 2 });
  });

  it('stays within its cap with a huge input: the newest items kept, the rest counted as dropped', async () => {
    const dir = tempDir();
    const huge = 'x'.repeat(100_000);
    const evidence = Array.from({ length: 300 }, (_, i) => ({ claim: `claim ${i} ${'x'.repeat(2000)}`, evidence_ref: `ref ${i}` }));
    const turns = [
      write('w1', 'count.txt', 'failing: 5', { report: { new_evidence: evidence, eliminated_hypotheses: Array.from({ length: 300 }, (_, i) => `gone ${i}`), remaining_hypotheses: [huge] } }),
      ...Array.from({ length: 5 }, (_, i) => shell(`f${i}`, `echo ${i}-${'y'.repeat(3000)}; exit 1`)),
      write('w3', 'done.txt', 'ok'),
      { final: 'done' },
    ];
    const { checkpoints } = await run(ScriptedAgent.fromYaml(stringify({ turns })), dir);
    const last = checkpoints.at(-1)!;
    const text = await import('../../src/engine/memory.js').then((m) => m.renderMemory(last.memory!));
    expect(text.length).toBeLessThanOrEqual(4000);
    expect(last.memory!.dropped).toBeGreaterThan(500);
    expect(text).toMatch(/\(\d+ older item\(s\) left out to keep this memory under 4000 characters\)/);
    // Newest kept: the last evidence and the last failures are there, the first ones are not.
    expect(text).toContain('claim 299');
    expect(text).not.toContain('claim 0 ');
    expect(text).toContain('shell echo 4-');
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(400);
  });

  it('reaches the agent at the start of every turn, replaced at each checkpoint, never piled up in its history', async () => {
    const dir = tempDir();
    const agent = new Recording(ScriptedAgent.fromYaml(stringify(story())));
    const { checkpoints } = await run(agent, dir);
    const { renderMemory } = await import('../../src/engine/memory.js');
    const expected = (turn: number) => {
      // The baseline is not told to the agent: nothing it did is in it.
      const last = checkpoints.filter((c) => !c.baseline && c.iteration < turn).at(-1);
      return last ? renderMemory(last.memory!) : null;
    };
    expect(agent.seen.map((s) => s.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const seen of agent.seen) expect([seen.turn, seen.memory ?? null]).toEqual([seen.turn, expected(seen.turn)]);
    expect(agent.seen[2]!.memory).toContain('Execution memory of the run so far (checkpoint 2, turn 2');
    expect(agent.seen[6]!.memory).toContain('- observed.tests.failing: missing → 5 → 5 → 2 (moved the wanted way)');
    // The memory is given beside the history, not appended to it.
    for (const seen of agent.seen) expect(seen.history).not.toContain('Execution memory');
  });

  it('is the hand-over of a new lap, with the progress file', async () => {
    const dir = tempDir();
    const script = ScriptedAgent.fromYaml(stringify({
      laps: [
        [
          write('w1', 'count.txt', 'failing: 4', { report: { eliminated_hypotheses: ['cache'], remaining_hypotheses: ['serializer'] } }),
          shell('s1', 'exit 7'),
          { final: 'fixed' },
        ],
        [write('w3', 'done.txt', 'ok'), { final: 'done' }],
      ],
    }));
    const policy = policyFor(dir, { laps: { enabled: true, max_laps: 3 } });
    const { outcome, events } = await run(script.forLap(1), dir, policy, { agentFactory: (lap: number) => script.forLap(lap) });
    expect(outcome.reason).toBe('goal_met');
    const second = events.find((e) => e.type === 'lap.start' && e.data.lap === 2);
    const memory = second?.type === 'lap.start' ? second.data.memory : undefined;
    expect(memory).toContain('Execution memory of the run so far (checkpoint 2, turn 2');
    expect(memory).toContain('Hypotheses eliminated: cache');
    expect(memory).toContain('- shell exit 7: failed (exit 7): ');
    // The new lap's agent starts from it: the lap's first harness note carries it after the progress file.
    const state = fold(events.slice(0, events.indexOf(second!) + 1));
    expect(state.history[0]!.content).toMatch(/^Lap 2 of 3: you start with no memory of earlier laps\. There is no progress file yet \(PROGRESS\.md\)\.\nExecution memory of the run so far/);
  });
});
