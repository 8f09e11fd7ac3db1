// A log cut once the approval of a tool call is recorded as asked (step.end awaiting_tool)
// resumes into the same question: the call is asked about again before it runs, never
// skipped. The runner asks the pure decision table (docs/design.md, "Deciding the next
// step", row 1) after a restart as at any other point. (A cut right after tool.call, before
// the question is recorded, is the crash-resume work's: the call is then lost.)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const TRANSCRIPT = { turns: [{ tool_calls: [{ id: 'c1', name: 'shell', args: { command: 'touch made.txt' } }] }, { final: 'made it' }] };

function setup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cut-'));
  dirs.push(dir);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Make the file' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'test -f made.txt' }],
      hooks: [],
      checkpoint: { every_iterations: 50 },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const hooks = new HookRegistry();
  hooks.on('before_tool_call', 'ask', () => ({ type: 'pause', prompt: 'run it?' }));
  let now = 1_700_000_000_000;
  const make = (prior?: LoopEvent[]) => {
    const events: LoopEvent[] = [...(prior ?? [])];
    const session = new Session({
      id: 's1',
      agent: ScriptedAgent.fromYaml(stringify(TRANSCRIPT)),
      policy,
      workspace: dir,
      clock: () => (now += 1000),
      hooks,
      sinks: [(e) => events.push(e)],
      ...(prior ? { prior } : {}),
    });
    return { session, events };
  };
  return { dir, make };
}

it('a log cut after the question is recorded, in EXECUTING or AWAITING_TOOL, asks about the call again, and it runs once approved', async () => {
  const first = setup();
  const live = first.make();
  const run = live.session.run(newGoal('Make the file'));
  const asked = await run.next();
  expect(asked.value).toMatchObject({ kind: 'tool', call: { id: 'c1' } });
  await run.return({ reason: 'stopped', summary: 'killed' });
  const from = live.events.findIndex((e) => e.type === 'tool.call');
  const cuts = [from + 2, from + 3];
  expect(live.events.slice(from).map((e) => e.type)).toEqual(['tool.call', 'step.end', 'state.transition']);

  for (const cut of cuts) {
    const again = setup();
    const prior = live.events.slice(0, cut);
    const { session, events } = again.make(prior);
    const resumed = session.resume();
    const yielded = await resumed.next();
    const at = prior[prior.length - 1]!.type;
    expect(yielded.value, `cut after ${at}`).toMatchObject({ kind: 'tool', call: { id: 'c1' } });
    let step = await resumed.next({ decision: 'approve' });
    while (!step.done) step = await resumed.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' });
    expect(step.value.reason, `cut after ${at}`).toBe('goal_met');
    expect(events.filter((e) => e.type === 'tool.result').map((e) => e.type === 'tool.result' && e.data.result.call_id)).toEqual(['c1']);
    expect(existsSync(path.join(again.dir, 'made.txt'))).toBe(true);
  }
});
