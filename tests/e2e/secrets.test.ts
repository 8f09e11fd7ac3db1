import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
const KEY = 'sk-proj-Zq8f3LmN0pQrStUvWxYz0123456789abcdEFGH';
const TOKEN = 'mysvc-7f3a9c21e5b84d06';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('keeps an API key printed by a tool out of events.jsonl and stdout', async () => {
  writeFileSync(
    path.join(dir, 'script.yaml'),
    [
      'turns:',
      `  - { thought: print them, tool_calls: [{ id: t1, name: shell, args: { command: "echo key=${KEY} token=${TOKEN}" } }] }`,
      `  - { thought: "the key is ${KEY}", final: done }`,
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: print the secrets }',
      'agent: { kind: scripted, script: script.yaml }',
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "true" }]',
      'approval: { default: allow }',
    ].join('\n'),
  );
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless'], {
    cwd: dir,
    env: { OPENAI_API_KEY: KEY, MY_SERVICE_TOKEN: TOKEN },
    reject: false,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  const runs = path.join(dir, '.loopdeck/runs');
  const log = readFileSync(path.join(runs, readdirSync(runs)[0]!, 'events.jsonl'), 'utf8');
  expect(log).toContain('[REDACTED]');
  expect(log).toContain('"name":"shell"');
  for (const secret of [KEY, TOKEN]) {
    expect(log).not.toContain(secret);
    expect(result.stdout).not.toContain(secret);
  }
});
