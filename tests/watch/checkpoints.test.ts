// Checkpoints of a watched session: loopdeck's observers run in the workspace given as the
// watched agent's turns arrive; what was measured stands beside what the agent says, and
// no measured progress raises the stagnation alert.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { alertOf } from '../../src/watch/alerts.js';
import { checkpointSettingsOf, WatchCheckpoints } from '../../src/watch/checkpoints.js';
import { EventSink } from '../../src/watch/events.js';
import { TranscriptFeed } from '../../src/watch/transcript-feed.js';
import { watchSettingsOf } from '../../src/watch/watch.js';
import { toolUse } from '../support/claude-lines.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 15_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('takes a checkpoint every N turns in the workspace, shows the agent\'s words beside it, and alerts on stagnation', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-watch-cp-'));
  dirs.push(dir);
  const workspace = path.join(dir, 'ws');
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'a'), '');
  const policy = parsePolicy(
    [
      'goal: { objective: grow }',
      "agent: { kind: command, command: 'true' }",
      'workspace: { path: ws }',
      'checkpoint: { every_iterations: 2 }',
      'observe: [{ name: files, command: "ls | wc -l", parser: regex, pattern: "(?<count>\\\\d+)" }]',
      'progress: { observed: [{ signal: observed.files.count, direction: increase }] }',
      'stagnation: { checkpoints_without_observed_progress: 2 }',
      "verify: [{ command: 'true' }]",
    ].join('\n'),
    path.join(dir, 'loop.yaml'),
  );
  const events: LoopEvent[] = [];
  const sink = new EventSink('w', () => 0, (e) => events.push(e));
  const feed = new TranscriptFeed(sink, watchSettingsOf(policy), () => 0);
  const checkpoints = new WatchCheckpoints(checkpointSettingsOf(policy, workspace)!, sink, () => feed.lastText);
  feed.onTurn = (turns) => checkpoints.turn(turns);
  feed.begin('session.jsonl', workspace);
  let n = 0;
  const turns = async (count: number, said: string) => {
    for (let i = 0; i < count; i++) feed.take([{ kind: 'line', text: toolUse(`c${++n}`, 'Read', { file_path: `f${n}` }, said) }]);
    const want = Math.floor(n / 2);
    await until(() => events.filter((e) => e.type === 'checkpoint.recorded').length >= want, `checkpoint ${want}`);
  };

  await turns(1, 'looking around');
  expect(events.filter((e) => e.type === 'checkpoint.recorded')).toHaveLength(0);
  await turns(1, 'first file read');
  writeFileSync(path.join(workspace, 'b'), '');
  await turns(2, 'added b');
  await turns(2, 'almost done, all tests pass');
  await turns(2, 'done');
  await checkpoints.stop();

  const notes = events.filter((e) => e.type === 'agent.notice').map((e) => (e.data as { text: string }).text).filter((t) => t.startsWith('checkpoint'));
  expect(notes).toEqual([
    'checkpoint at turn 2: BASELINE (files.count — → 1); the agent says: first file read',
    'checkpoint at turn 4: PROGRESS_OBSERVED (files.count 1 → 2); the agent says: added b',
    'checkpoint at turn 6: NO_OBSERVED_PROGRESS (files.count 2 → 2); the agent says: almost done, all tests pass',
    'checkpoint at turn 8: NO_OBSERVED_PROGRESS (files.count 2 → 2); the agent says: done',
  ]);
  expect(events.map(alertOf).filter(Boolean)).toEqual(['stagnation: 2/2 checkpoints without observed progress (turn 8)']);
});
