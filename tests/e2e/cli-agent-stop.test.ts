// A CLI agent stopped at a limit in a real headless run: the built CLI runs a fake Claude
// Code that never ends; the token limit stops its lap, the headless policy answers the
// budget pause (`--on-pause stop`), and the run ends exhausted within seconds, not at the
// agent's 60 s timeout.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
let dir: string;

/** One assistant message of 150 tokens every 25 ms, forever. */
const FAKE_CLAUDE = `
import { readFileSync } from 'node:fs';
readFileSync(0);
const out = (record) => process.stdout.write(JSON.stringify(record) + '\\n');
out({ type: 'system', subtype: 'init', session_id: 's', model: 'fake' });
let i = 0;
setInterval(() => {
  i += 1;
  out({ type: 'assistant', message: { id: 'msg' + i, content: [{ type: 'text', text: 'step ' + i }], usage: { input_tokens: 100, output_tokens: 50 } } });
}, 25);
`;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cli-stop-e2e-'));
  writeFileSync(path.join(dir, 'claude.mjs'), FAKE_CLAUDE);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('headless: a token limit stops the lap, the pause is answered by --on-pause, the run ends exhausted', async () => {
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: fix the parser }',
      'agent: { kind: command, command: node claude.mjs, output: claude-stream-json, timeout: 60s }',
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "false" }]',
      'laps: { enabled: true, max_laps: 3 }',
      'budget: { max_tokens: 1000 }',
      'on_abort: { stash: false, report: false }',
    ].join('\n'),
  );
  const started = Date.now();
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--on-pause', 'stop'], { cwd: dir, reject: false, timeout: 25_000 });
  expect(Date.now() - started).toBeLessThan(20_000);
  const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> });
  const pause = events.find((e) => e.type === 'session.pause');
  expect(pause?.data.reason).toBe('budget_exceeded:tokens');
  expect(events.filter((e) => e.type === 'lap.end').map((e) => e.data.outcome)).toEqual(['not_done']);
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'exhausted' } });
}, 30_000);
