// `/stop --abort` while a lap's agent works ends the run there: the killed turn ends the
// lap, and no further lap starts (issue: a lap.start was logged after the abort).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CommandAgent } from '../../src/engine/agents/command.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('/stop --abort during a lap agent turn: the run ends aborted and no lap.start follows the abort', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-abort-laps-'));
  dirs.push(dir);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Long work' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      laps: { enabled: true, max_laps: 5, max_consecutive_failures: 5 },
      on_abort: { stash: false, report: false },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const slow = () => new CommandAgent({ command: 'sleep 20', prompt: 'stdin', cwd: dir, timeoutSeconds: 30, outputLimit: 4096 });
  const events: LoopEvent[] = [];
  let aborted = -1;
  const session = new Session({ id: 's1', agent: slow(), agentFactory: slow, policy, workspace: dir, sinks: [(e) => events.push(e)] });
  session.subscribe((e) => {
    if (e.type === 'step.start' && aborted < 0) {
      aborted = e.seq;
      setTimeout(() => session.stop({ abort: true }), 100);
    }
  });
  const started = Date.now();
  const outcome = await drive(session.run(newGoal('Long work')), headlessAnswerer({ approve: 'all', onPause: 'continue' }));
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(outcome.reason).toBe('aborted');
  expect(events.filter((e) => e.type === 'lap.start' && e.seq > aborted)).toEqual([]);
  expect(events.filter((e) => e.type === 'lap.start').map((e) => e.type === 'lap.start' && e.data.lap)).toEqual([1]);
});
