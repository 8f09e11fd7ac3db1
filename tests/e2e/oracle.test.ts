// The oracle: after the demo run, folding its log from disk gives exactly the state the
// live console store built from the same events in batches, and the session's own state.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import { fold } from '../../src/engine/fold.js';
import { readLog } from '../../src/engine/log.js';
import { loadPolicy } from '../../src/engine/policy.js';
import { prepareRun } from '../../src/launch.js';
import { batchInto, createConsoleStore } from '../../src/ui/store.js';

const root = path.resolve(import.meta.dirname, '../..');
let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-oracle-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

it('fold(events.jsonl) deep-equals the live store and the session after the demo run', async () => {
  const prepared = await prepareRun(loadPolicy(path.join(root, 'loop.yaml')), { cwd });
  const store = createConsoleStore();
  const feed = batchInto(store);
  prepared.session.subscribe(feed.push);
  const outcome = await drive(prepared.session.run(prepared.goal), headlessAnswerer({ approve: 'all', onPause: 'continue' }));
  feed.flush();
  prepared.log.close();
  expect(outcome.reason).toBe('goal_met');

  const { events, warnings } = readLog(prepared.log.file);
  expect(warnings).toEqual([]);
  const replayed = fold(events);
  expect(replayed.done?.reason).toBe('goal_met');
  // the baseline at the run start, then five: the last turn's claim passes the verifier
  // before its checkpoint is due
  expect(replayed.checkpoints).toHaveLength(6);
  expect(replayed.checkpoints[0]!.baseline).toBe(true);
  expect(store.getState().session).toEqual(replayed);
  expect(prepared.session.snapshot).toEqual(replayed);
  rmSync(prepared.workspace, { recursive: true, force: true });
});
