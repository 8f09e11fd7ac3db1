// A CLI agent's structured output in a real run: the built CLI runs a script that prints
// a Codex `exec --json` transcript; the log shows the agent's own calls, messages and usage,
// and the folded budget counts its messages as turns and its cost as unknown.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { foldLog } from '../../src/engine/log.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cli-output-'));
  copyFileSync(path.join(root, 'tests/fixtures/transcripts/codex-exec.jsonl'), path.join(dir, 'codex.jsonl'));
  writeFileSync(path.join(dir, 'codex.mjs'), "import { readFileSync } from 'node:fs'; readFileSync(0); process.stdout.write(readFileSync('codex.jsonl', 'utf8'));\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('records what a Codex run did as events the budget and the tool panel use', async () => {
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: fix the parser }',
      'agent: { kind: command, command: node codex.mjs, output: codex-json, timeout: 30s }',
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "true" }]',
    ].join('\n'),
  );
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless'], { cwd: dir, reject: false });
  expect(result.exitCode, result.stderr).toBe(0);
  const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
  const calls = events.filter((e) => e.type === 'tool.call');
  expect(calls.map((e) => [e.data.by, (e.data.call as { name: string }).name])).toEqual([
    ['agent', 'shell'],
    ['agent', 'file_change'],
    ['agent', 'shell'],
  ]);
  // loopdeck asked nobody about calls the agent ran itself.
  expect(events.filter((e) => e.type === 'tool.decision')).toEqual([]);
  const { state } = foldLog(result.stdout, 'stdout');
  expect(state.usage.turns).toBe(2);
  expect(state.usage.tool_calls).toBe(3);
  expect(state.usage.tokens).toBe(1545);
  expect(state.unreported).toEqual(['cost_usd']);
  expect([...state.tools.values()].map((t) => [t.by, t.result?.status, t.result?.exit_code])).toEqual([
    ['agent', 'failed', 1],
    ['agent', 'ok', null],
    ['agent', 'ok', 0],
  ]);
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
});
