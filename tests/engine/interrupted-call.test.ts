// A tool call approved before a crash whose result is not in the log may have run: resume
// asks about it again marked `interrupted`, with a prompt saying it may have had effects;
// a policy answer never runs it a second time, an operator's approval does.
import { rmSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { headlessAnswerer } from '../../src/engine/drive.js';
import { INTERRUPTED_REASON } from '../../src/engine/fold.js';
import { appended, makeSession, recordRun, workspace, workspaceAt } from '../support/crash-run.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function resumedAfterApproval(id: string) {
  const { events } = await recordRun('react');
  const cut = events.findIndex((e) => e.type === 'tool.decision' && e.data.call_id === id) + 1;
  const dir = workspace();
  dirs.push(dir);
  const prior = events.slice(0, cut);
  workspaceAt(dir, prior);
  const { session, events: written } = makeSession(dir, 'react', prior);
  const run = session.resume();
  return { run, written, dir };
}

it('resume asks about the interrupted call as such, and the headless policy denies it: it ran once', async () => {
  const { run, written, dir } = await resumedAfterApproval('a1');
  const first = await run.next();
  expect(first.value).toEqual({ kind: 'tool', call: expect.objectContaining({ id: 'a1' }), reason: INTERRUPTED_REASON, interrupted: true });
  const answer = headlessAnswerer({ approve: 'all', onPause: 'continue' });
  let step = await run.next(await answer(first.value as never));
  while (!step.done) step = await run.next(await answer(step.value));
  expect(step.value.reason).toBe('goal_met');
  const result = written.find((e) => e.type === 'tool.result' && e.data.result.call_id === 'a1');
  expect(result?.type === 'tool.result' && result.data.result).toMatchObject({ status: 'denied', output: expect.stringContaining('interrupted mid-run') });
  expect(appended(dir).filter((id) => id === 'a1')).toHaveLength(1);
});

it('an operator who approves the interrupted call runs it again, knowingly', async () => {
  const { run, dir } = await resumedAfterApproval('a1');
  const first = await run.next();
  expect(first.value).toMatchObject({ kind: 'tool', interrupted: true });
  let step = await run.next({ decision: 'approve' });
  while (!step.done) step = await run.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' });
  expect(appended(dir).filter((id) => id === 'a1')).toHaveLength(2);
});
