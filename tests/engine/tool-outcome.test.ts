/**
 * A tool runner that hands back something malformed (JSON text, truncated JSON, the wrong
 * shape, nothing) or throws: one failed tool result saying what was wrong with the head of
 * what came back; the agent is told, the run goes on to its end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { definePolicy, fold, newGoal, ScriptedAgent, Session, type LoopEvent, type ToolContext } from '../../src/engine/index.js';
import type { ToolCall } from '../../src/engine/types.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const truncated = JSON.stringify({ status: 'ok', output: 'x'.repeat(2000), exit_code: 0 }).slice(0, 1200);

const RETURNS: Array<[string, () => unknown, RegExp]> = [
  ['truncated JSON text', () => truncated, /malformed or truncated JSON/],
  ['JSON text of an outcome', () => '{"status":"ok","output":"hi","exit_code":0}', /returned JSON text, expected an object/],
  ['plain text', () => 'all good', /returned text, expected an object/],
  ['an object missing output', () => ({ status: 'ok', exit_code: 0 }), /wrong shape: output/],
  ['an unknown status', () => ({ status: 'great', output: '', exit_code: 0 }), /wrong shape: status/],
  ['a non-integer exit code', () => ({ status: 'ok', output: '', exit_code: '0' }), /wrong shape: exit_code/],
  ['undefined', () => undefined, /returned undefined, expected an object/],
  ['null', () => null, /returned null/],
  ['an array', () => [1, 2], /returned an array/],
  ['a thrown Error', () => { throw new Error('socket closed'); }, /the tool runner threw: socket closed/],
  ['a thrown string', () => { throw 'nope'; }, /the tool runner threw: nope/],
];

async function runWith(returned: () => unknown): Promise<LoopEvent[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-outcome-'));
  dirs.push(dir);
  const policy = definePolicy({ goal: { objective: 'x' }, verify: [{ command: 'true' }], pattern: 'react', approval: { default: 'allow' } });
  const call = { id: 'c1', name: 'shell', args: { command: 'true' } };
  const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ tool_calls: [call] }, { final: 'done' }] }));
  const events: LoopEvent[] = [];
  const runTool = async (_call: ToolCall, _ctx: ToolContext) => returned() as never;
  const session = new Session({ id: 'o', agent, policy, workspace: dir, runTool, sinks: [(e) => void events.push(e)] });
  const run = session.run(newGoal('x'));
  for (let step = await run.next(); !step.done; ) step = await run.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' });
  return events;
}

describe('a tool runner returning something malformed', () => {
  it.each(RETURNS)('%s: one failed result with the reason, the agent is told, the run ends normally', async (_, returned, reason) => {
    const events = await runWith(returned);
    const failures = events.filter((e) => (e.type === 'tool.result' && e.data.result.status !== 'ok') || e.type === 'tool.error');
    expect(failures).toHaveLength(1);
    const text = JSON.stringify(failures[0]!.data);
    expect(text).toMatch(reason);
    const state = fold(events);
    expect(JSON.stringify(state.history)).toMatch(reason);
    expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
  });

  it('quotes only the head of a long malformed answer', async () => {
    const events = await runWith(() => truncated);
    const result = events.find((e) => e.type === 'tool.result');
    expect(result?.type === 'tool.result' && result.data.result.output.length).toBeLessThan(900);
    expect(JSON.stringify(result?.data)).toContain('(1200 characters)');
  });
});
