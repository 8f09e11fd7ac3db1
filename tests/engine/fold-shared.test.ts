// The fold adds the agent's claims to its own draft in place (a long run between two
// checkpoints would otherwise copy the growing lists at every turn). A state someone
// holds stays as it was: `fold(events, state)` and `draftOf(state)` copy the claims before
// adding to them, and `foldLog` (replay) folds the same state as `fold`. Real session,
// scripted agent, real workspace.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { draftOf, fold, reduce } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { foldLog } from '../../src/engine/log.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const write = (id: string, file: string, report?: Record<string, unknown>) => ({
  tool_calls: [{ id, name: 'write_file', args: { path: file, content: id } }],
  ...(report ? { report } : {}),
});

/** A run of five turns, three of them with claims, and a checkpoint every `every` turns. */
async function run(every: number): Promise<{ events: LoopEvent[]; lines: string[]; snapshots: Array<{ seq: number; claims: string; held: unknown }> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-fold-shared-'));
  dirs.push(dir);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'fix it', success_criteria: ['done.txt exists'] },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'test -f done.txt' }],
      checkpoint: { every_iterations: every },
      observe: [{ name: 'files', command: 'ls | wc -l', parser: 'regex', pattern: '(?<files>\\d+)' }],
      progress: { observed: [{ signal: 'observed.files.files', direction: 'increase' }] },
      stagnation: { checkpoints_without_observed_progress: 50, on_detect: 'alert' },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const agent = ScriptedAgent.fromYaml(
    stringify({
      turns: [
        write('w1', 'a.txt', { new_evidence: [{ claim: 'a is written', evidence_ref: 'a.txt' }], eliminated_hypotheses: ['cache'], remaining_hypotheses: ['serializer', 'mapping'] }),
        write('w2', 'b.txt'),
        write('w3', 'c.txt', { new_evidence: [{ claim: 'c is written', evidence_ref: 'c.txt' }], eliminated_hypotheses: ['mapping'] }),
        write('w4', 'done.txt', { remaining_hypotheses: ['serializer'] }),
        { final: 'done' },
      ],
    }),
  );
  const events: LoopEvent[] = [];
  /** Each event as the log writes it, when it is emitted. */
  const lines: string[] = [];
  const snapshots: Array<{ seq: number; claims: string; held: unknown }> = [];
  let now = 1_700_000_000_000;
  // After every event, the session's snapshot: its claims as they were then, and the object itself.
  let session: Session | null = null;
  const sink = (e: LoopEvent) => {
    events.push(e);
    lines.push(JSON.stringify(e));
    if (session === null || e.type !== 'model.call') return;
    const held = session.snapshot.reportSinceCheckpoint;
    snapshots.push({ seq: e.seq, claims: JSON.stringify(held), held });
  };
  session = new Session({ id: 's1', agent, policy, workspace: dir, clock: () => (now += 1000), sinks: [sink] });
  const outcome = await drive(session.run(newGoal('fix it', ['done.txt exists'])), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  expect(outcome, JSON.stringify(events.slice(-4))).toMatchObject({ reason: 'goal_met' });
  return { events, lines, snapshots };
}

describe('the claims since the last checkpoint, added to in place', () => {
  it('fold(events, state) and draftOf(state) leave the state they start from as it was', async () => {
    const { events } = await run(100);
    const firstClaim = events.findIndex((e) => e.type === 'model.call' && e.data.response.report !== undefined);
    expect(firstClaim).toBeGreaterThan(0);
    const held = fold(events.slice(0, firstClaim + 1));
    const before = JSON.stringify(held.reportSinceCheckpoint);
    expect(held.reportSinceCheckpoint.eliminated_hypotheses).toEqual(['cache']);

    const later = fold(events.slice(firstClaim + 1), held);
    expect(JSON.stringify(held.reportSinceCheckpoint)).toBe(before);
    expect(later.reportSinceCheckpoint).toEqual({
      new_evidence: [
        { claim: 'a is written', evidence_ref: 'a.txt' },
        { claim: 'c is written', evidence_ref: 'c.txt' },
      ],
      eliminated_hypotheses: ['cache', 'mapping'],
      remaining_hypotheses: ['serializer'],
    });

    const draft = draftOf(held);
    for (const e of events.slice(firstClaim + 1)) reduce(draft, e);
    expect(JSON.stringify(held.reportSinceCheckpoint)).toBe(before);
    expect(draft.reportSinceCheckpoint).toEqual(later.reportSinceCheckpoint);
    // Folding in one go or in two gives the same state.
    expect(later).toEqual(fold(events));
  });

  it("the session's snapshots keep the claims they were taken with", async () => {
    const { snapshots } = await run(100);
    expect(snapshots.length).toBeGreaterThanOrEqual(4);
    for (const s of snapshots) expect(JSON.stringify(s.held), `snapshot after seq ${s.seq}`).toBe(s.claims);
    expect(JSON.parse(snapshots.at(-1)!.claims).eliminated_hypotheses).toEqual(['cache', 'mapping']);
  });

  it('replay folds the same state as fold, with a checkpoint every turn and with none', async () => {
    for (const every of [1, 100]) {
      const { events, lines } = await run(every);
      // Past the baseline taken at the run start.
      const checkpoints = events.filter((e) => e.type === 'checkpoint.recorded' && e.data.checkpoint.baseline !== true);
      expect(checkpoints.length > 0, `checkpoint every ${every}`).toBe(every === 1);
      const text = `${lines.join('\n')}\n`;
      const { state, warnings } = foldLog(text, 'events.jsonl');
      expect(warnings).toEqual([]);
      expect(state).toEqual(fold(events));
      // The events were not changed after they were written: the claims a checkpoint recorded stay the ones made before it.
      expect(events.map((e) => JSON.stringify(e))).toEqual(lines);
      if (every === 1) {
        // Each checkpoint recorded the claims of its own turn.
        const eliminated = state.checkpoints.map((c) => c.reported.eliminated_hypotheses);
        expect(eliminated.filter((list) => list.length > 0)).toEqual([['cache'], ['mapping']]);
      }
    }
  });
});
