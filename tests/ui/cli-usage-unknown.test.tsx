// Usage a CLI agent does not report, while its lap runs: a fake Codex (`codex exec --json`)
// reports tokens and no cost, then keeps working. The budget gauges shown at that moment
// say the cost is unknown (not $0), unless `pricing` sets a price, which prices its tokens.
import { expect, it, afterEach } from 'vitest';

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { CommandAgent } from '../../src/engine/agents/command.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { unmeasurableBounds } from '../../src/engine/unmeasured-usage.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { renderStore } from '../support/ui-helpers.js';

/** One command, the turn's usage (1200 in, 345 out, no cost), then a second command that never ends. */
const FAKE_CODEX = `
const out = (record) => process.stdout.write(JSON.stringify(record) + '\\n');
out({ type: 'thread.started', thread_id: 't-1' });
out({ type: 'turn.started' });
out({ type: 'item.started', item: { id: 'item_1', type: 'command_execution', command: "bash -lc 'npm test'", aggregated_output: '', exit_code: null, status: 'in_progress' } });
out({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution', command: "bash -lc 'npm test'", aggregated_output: '1 failing', exit_code: 1, status: 'failed' } });
out({ type: 'turn.completed', usage: { input_tokens: 1200, cached_input_tokens: 0, output_tokens: 345 } });
out({ type: 'item.started', item: { id: 'item_2', type: 'command_execution', command: "bash -lc 'npm run build'", aggregated_output: '', exit_code: null, status: 'in_progress' } });
setInterval(() => {}, 1000);
`;

const dirs: string[] = [];
const sessions: Session[] = [];
afterEach(() => {
  for (const run of sessions.splice(0)) run.stop({ abort: true });
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const PRICED = { input_per_million_usd: 100, output_per_million_usd: 200 };

/** The events recorded up to the moment the CLI started its second command (mid-lap), and the run. */
async function midLap(pricing?: typeof PRICED): Promise<{ events: LoopEvent[]; done: Promise<unknown> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cli-usage-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'fake-codex.mjs'), FAKE_CODEX);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Fix the parser' },
      agent: { kind: 'command', command: 'node fake-codex.mjs', output: 'codex-json' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      laps: { enabled: true, max_laps: 2 },
      budget: { max_tokens: 100_000, max_cost_usd: 1 },
      ...(pricing ? { pricing } : {}),
      on_abort: { stash: false, report: false },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const agent = () =>
    new CommandAgent({ command: 'node fake-codex.mjs', prompt: 'stdin', cwd: dir, timeoutSeconds: 30, outputLimit: 64 * 1024, graceMs: 200, output: 'codex-json', ...(pricing ? { pricing } : {}) });
  const events: LoopEvent[] = [];
  let seen!: (events: LoopEvent[]) => void;
  const atSecondCall = new Promise<LoopEvent[]>((resolve) => (seen = resolve));
  const run = new Session({
    id: 's1',
    agent: agent(),
    agentFactory: agent,
    policy,
    workspace: dir,
    sinks: [
      (e) => {
        events.push(e);
        if (e.type === 'tool.call' && events.filter((x) => x.type === 'tool.call').length === 2) seen([...events]);
      },
    ],
  });
  sessions.push(run);
  const done = drive(run.run(newGoal('Fix the parser')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  return { events: await atSecondCall, done };
}

async function gauges(events: LoopEvent[]): Promise<string> {
  const c = await renderStore(createConsoleStore(events), { rows: 40 });
  await c.waitForFrame('── Timeline');
  return c.frame();
}

it('mid-lap, a CLI that reports tokens but no cost shows its cost as unknown, never $0', async () => {
  const { events } = await midLap();
  const frame = await gauges(events);
  expect(frame).toContain('1.5k/100k');
  expect(frame).toContain('unknown/$1.00');
  expect(frame).toContain('cost ?');
  expect(frame).not.toContain('$0.00/$1.00');
}, 15_000);

it('with pricing set, the same tokens are priced: the cost is known', async () => {
  const { events } = await midLap(PRICED);
  const frame = await gauges(events);
  // 1200 × $100/M + 345 × $200/M = $0.189
  expect(frame).toContain('$0.19/$1.00');
  expect(frame).not.toContain('unknown/$1.00');
}, 15_000);

it('the preflight says a Codex cost limit can be measured once pricing sets a price', () => {
  const config = (pricing: Record<string, number>) => ({
    agent: { kind: 'command', output: 'codex-json' },
    budget: { max_iterations: null, max_tool_calls: null, max_wall_clock: null, max_tokens: null, max_cost_usd: 1 },
    pricing: { input_per_million_usd: 0, output_per_million_usd: 0, ...pricing },
  });
  expect(unmeasurableBounds(config({})).map((u) => u.key)).toEqual(['max_cost_usd']);
  expect(unmeasurableBounds(config(PRICED))).toEqual([]);
});
