// What a watch applies with and without --config, read from a real file as it is written:
// no budget limits and no checkpoints without one (session.start says so), and a notice
// naming what is missing when checkpoints were asked for in part.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { parsePolicy, type LoopPolicy } from '../../src/engine/policy.js';
import { watchSource } from '../../src/watch/watch.js';
import { toolUse } from '../support/claude-lines.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-watch-source-'));
  dirs.push(dir);
  return dir;
}

/** A loop.yaml in `dir`: `observes` adds an observer and the signal progress tracks. */
function config(dir: string, observes: boolean): LoopPolicy {
  const lines = ['goal: { objective: watch }', "agent: { kind: command, command: 'true' }", 'workspace: { path: . }', "verify: [{ command: 'true' }]", 'checkpoint: { every_iterations: 2 }'];
  if (observes) lines.push('observe: [{ name: files, command: "ls | wc -l", parser: regex, pattern: "(?<count>\\\\d+)" }]', 'progress: { observed: [{ signal: observed.files.count, direction: increase }] }');
  return parsePolicy(lines.join('\n'), path.join(dir, 'loop.yaml'));
}

/** The events a watch of a file with one turn makes, once that turn is read. */
async function watched(policy: LoopPolicy | null, workspace: string | null): Promise<LoopEvent[]> {
  const dir = tempDir();
  const file = path.join(dir, 'session.jsonl');
  writeFileSync(file, '');
  const events: LoopEvent[] = [];
  const stop = watchSource({ file, policy, workspace, pollMs: 10 }).start((e) => events.push(e), () => undefined);
  appendFileSync(file, `${toolUse('a', 'Read', { file_path: 'x' })}\n`);
  const started = Date.now();
  while (!events.some((e) => e.type === 'tool.call')) {
    if (Date.now() - started > 10_000) throw new Error('the turn was not read');
    await new Promise((r) => setTimeout(r, 10));
  }
  await stop();
  return events;
}

const startOf = (events: LoopEvent[]) => events.find((e) => e.type === 'session.start')!.data as { budget: Record<string, number | null>; checkpoint_every: number };
const notices = (events: LoopEvent[]) => events.filter((e) => e.type === 'agent.notice').map((e) => (e.data as { text: string }).text).filter((t) => t.startsWith('no checkpoints'));

it('without --config: no budget limit and no checkpoint interval in session.start; with --workspace, a notice that nothing is observed', async () => {
  const events = await watched(null, null);
  expect(startOf(events).budget).toEqual({ turns: null, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null });
  expect(startOf(events).checkpoint_every).toBe(0);
  expect(notices(events)).toEqual([]);
  const workspace = tempDir();
  expect(notices(await watched(null, workspace))).toEqual(['no checkpoints: without --config nothing is observed (a loop.yaml with observe and progress.observed is needed)']);
});

it('with --config: its limits; its checkpoint interval only when checkpoints are taken, else a notice of what is missing', async () => {
  const dir = tempDir();
  const workspace = path.join(dir, 'ws');
  mkdirSync(workspace);
  const observing = config(dir, true);
  const taking = await watched(observing, workspace);
  expect(startOf(taking).budget).toMatchObject({ turns: 50, tool_calls: 100, wall_clock_seconds: null });
  expect(startOf(taking).checkpoint_every).toBe(2);
  expect(notices(taking)).toEqual([]);

  const noWorkspace = await watched(observing, null);
  expect(startOf(noWorkspace).checkpoint_every).toBe(0);
  expect(notices(noWorkspace)).toEqual([`no checkpoints: ${path.join(dir, 'loop.yaml')} observes, but no --workspace says where its observers run`]);

  const blind = await watched(config(dir, false), workspace);
  expect(startOf(blind).checkpoint_every).toBe(0);
  expect(notices(blind)).toEqual([`no checkpoints: ${path.join(dir, 'loop.yaml')} observes nothing (observe and progress.observed are needed)`]);
});
