// `loopdeck audit` and `loopdeck import` on transcripts made from the documented shapes,
// through the built CLI.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
const FIXTURES = path.join(root, 'tests/fixtures/transcripts');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-audit-'));
  for (const name of readdirSync(FIXTURES)) copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const loopdeck = (...args: string[]) => execa('node', [cli, ...args], { cwd: dir, reject: false });

it('audit: a session with a retry loop reports the guard at the right call and the spend after it', async () => {
  const result = await loopdeck('audit', 'claude-retry-loop.jsonl');
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stdout.split('\n')).toEqual([
    "claude-retry-loop.jsonl (claude-stream-json): 13 turns, 12 tool calls, 14300 tokens and $1.3000; 6 test run(s) found in the agent's own tool output",
    '  repetition at turn 6, tool call 5: the same Bash call 3× in the last 5 calls (at call 6, Bash); after it: 7 turns, 7 tool calls, 7700 tokens and about $0.7000',
    "  stagnation at turn 8, tool call 8: 3 test runs in a row without fewer failing or more passing tests (1 failing; test results found in the agent's own tool output); after it: 5 turns, 4 tool calls, 5500 tokens and about $0.5000",
    '  verdict: repetition would have stopped this session at turn 6, tool call 5, saving 7 turns, 7 tool calls, 7700 tokens and about $0.7000',
  ]);
});

it('audit --config applies the budget of a loop.yaml; --json gives one object', async () => {
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    'goal: { objective: x }\nagent: { kind: command, command: "true" }\nworkspace: { path: . }\nverify: [{ command: "true" }]\nbudget: { max_iterations: 4 }\n',
  );
  const result = await loopdeck('audit', 'claude-retry-loop.jsonl', '--config', 'loop.yaml', '--json');
  expect(result.exitCode, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout) as { firings: Array<{ detector: string; at: unknown }> };
  expect(report.firings[0]).toMatchObject({ detector: 'budget', at: { turn: 4, tool_call: 3 } });
});

it('audit of a folder: one line per session and the total saved; unreadable files are skipped with a message', async () => {
  writeFileSync(path.join(dir, 'notes.json'), '{"not": "a transcript"}');
  const result = await loopdeck('audit', '.');
  expect(result.exitCode, result.stderr).toBe(0);
  const lines = result.stdout.split('\n');
  expect(lines).toHaveLength(6);
  expect(lines[0]).toBe('claude-retry-loop.jsonl: repetition would have stopped this session at turn 6, tool call 5, saving 7 turns, 7 tool calls, 7700 tokens and about $0.7000');
  expect(lines.at(-1)).toBe('5 session(s): would have saved 7 turns and about $0.70');
  expect(result.stderr).toMatch(/skipped notes\.json: not a transcript loopdeck reads/);
});

it('import writes a run log that replay folds; it never overwrites one', async () => {
  const imported = await loopdeck('import', 'claude-retry-loop.jsonl', '-o', 'run');
  expect(imported.exitCode, imported.stderr).toBe(0);
  expect(imported.stdout).toBe(`wrote ${path.join('run', 'events.jsonl')}`);
  const replay = await loopdeck('replay', '--headless', 'run');
  expect(replay.exitCode, replay.stderr).toBe(0);
  const state = JSON.parse(replay.stdout) as { usage: Record<string, number>; unreported: string[]; tools: Record<string, { by?: string }>; machine: { state: string } };
  expect(state.machine.state).toBe('DONE');
  expect(state.usage).toMatchObject({ turns: 13, tool_calls: 12, tokens: 14300, cost_usd: 1.3 });
  expect(state.unreported).toEqual([]);
  expect(Object.values(state.tools)).toHaveLength(12);
  expect(Object.values(state.tools).every((t) => t.by === 'agent')).toBe(true);
  const again = await loopdeck('import', 'claude-retry-loop.jsonl', '-o', 'run');
  expect(again.exitCode).not.toBe(0);
  expect(again.stderr).toMatch(/run\/events\.jsonl: a run log is already there/);
  const traj = await loopdeck('import', 'mini-swe.traj.json', '-o', 'traj');
  expect(traj.exitCode, traj.stderr).toBe(0);
  const trajState = JSON.parse((await loopdeck('replay', '--headless', 'traj')).stdout) as { usage: Record<string, number>; unreported: string[] };
  expect(trajState.usage).toMatchObject({ turns: 3, tool_calls: 3, tokens: 0, cost_usd: 0.05 });
  expect(trajState.unreported).toEqual(['tokens']);
});

it('a file that is no transcript is refused by name', async () => {
  writeFileSync(path.join(dir, 'notes.txt'), 'hello\n');
  const result = await loopdeck('audit', 'notes.txt');
  expect(result.exitCode).not.toBe(0);
  expect(result.stderr).toMatch(/notes\.txt: not a transcript loopdeck reads/);
});
