// A command agent's turn that fails (a non-zero exit) is an agent turn spent: it counts
// against budget.max_iterations like a turn that answered, so a CLI agent that keeps
// failing lap after lap stops at the turn budget, not only at max_laps.
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

it('failed command-agent turns are counted as turns: two failures spend max_iterations 2', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-failed-turns-'));
  dirs.push(dir);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Never done' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      budget: { max_iterations: 2, on_exhausted: 'abort' },
      laps: { enabled: true, max_laps: 6, max_consecutive_failures: 6 },
      on_abort: { stash: false, report: false },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const failing = () => new CommandAgent({ command: 'echo broken >&2; exit 3', prompt: 'stdin', cwd: dir, timeoutSeconds: 10, outputLimit: 4096 });
  const events: LoopEvent[] = [];
  const session = new Session({ id: 's1', agent: failing(), agentFactory: failing, policy, workspace: dir, sinks: [(e) => events.push(e)] });
  const outcome = await drive(session.run(newGoal('Never done')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  const failed = events.filter((e) => e.type === 'step.end' && e.data.outcome === 'error');
  expect(failed).toHaveLength(2);
  expect(events.find((e) => e.type === 'budget.warn' && e.data.exceeded)?.data).toMatchObject({ dimension: 'turns', used: 2, limit: 2 });
  expect(outcome.reason).toBe('aborted');
  expect(outcome.summary).toContain('turns budget is spent (2 of 2)');
  expect(session.snapshot.failedTurns).toBe(2);
});
