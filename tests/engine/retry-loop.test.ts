// A retry loop whose error text differs only in noise (a timestamp, a pid, a temp folder)
// is caught by the repetition guard in a real run: the scripted agent retries a real
// failing command in a real workspace.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A program that fails the way a flaky connection does, with a fresh time stamp, pid and temp folder each time. */
const FAILING = `
const fs = require('node:fs'), os = require('node:os'), path = require('node:path');
const dump = fs.mkdtempSync(path.join(os.tmpdir(), 'retry-dump-'));
console.error(new Date().toISOString() + ' ERROR connect ECONNREFUSED 127.0.0.1:5432 (pid ' + process.pid + ')');
console.error('request ' + require('node:crypto').randomUUID() + ' failed after ' + process.uptime().toFixed(3) + 's; state in ' + dump);
fs.rmSync(dump, { recursive: true });
process.exit(3);
`;

async function runRetries(turns: unknown[]): Promise<{ events: LoopEvent[]; reason: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-retry-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'connect.cjs'), FAILING);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'Connect to the database' },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      hooks: [],
      pattern: 'react',
      checkpoint: { every_iterations: 50 },
      repetition: { on_detect: 'pause' },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({
    id: 's1',
    agent: ScriptedAgent.fromYaml(stringify({ turns })),
    policy,
    workspace: dir,
    clock: () => (now += 1000),
    sinks: [(e) => events.push(e)],
  });
  const outcome = await drive(session.run(newGoal('connect')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  return { events, reason: outcome.reason };
}

const retry = (i: number) => ({ tool_calls: [{ id: `r${i}`, name: 'shell', args: { command: 'node connect.cjs' } }] });

describe('a retry loop in a run', () => {
  it('six identical failing calls whose errors differ in time, pid, id and temp folder: caught at the third, before it runs', async () => {
    const { events, reason } = await runRetries([1, 2, 3, 4, 5, 6].map(retry));
    const outputs = events.flatMap((e) => (e.type === 'tool.result' ? [e.data.result] : []));
    expect(outputs.map((r) => r.exit_code)).toEqual([3, 3]);
    expect(outputs[0]!.output).not.toBe(outputs[1]!.output);
    const detected = events.filter((e) => e.type === 'repetition.detected');
    expect(detected).toHaveLength(1);
    expect(detected[0]!.data).toMatchObject({ kind: 'repeat', count: 3, span: 3, calls: [{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }] });
    expect(detected[0]!.data.rule).toMatch(/^repeat rule: the same shell call 3× within the last 3 calls .*earlier tries gave the same result/);
    const pause = events.find((e) => e.type === 'session.pause');
    expect(pause?.data).toMatchObject({ reason: 'repetition' });
    expect(reason).toBe('stopped');
  });
});
