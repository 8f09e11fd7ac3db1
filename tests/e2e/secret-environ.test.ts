// Secrets stay out of every file and stream, and out of reach of the processes loopdeck
// starts: the real CLI runs a tool and a hook that dump the environment of every ancestor
// process (/proc/<pid>/environ, walking PPid up) and of their own, and a run that aborts
// with the secret in its progress file. The canary must appear nowhere.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ENVIRON_WALK } from '../support/environ-walk.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
const CANARY = 'canary-5e1d9b0c7a3f4e28';
const OPENAI_KEY = 'sk-proj-Cn4ryOpenAIKeyValue0123456789abcdefXYZ';
/** A variable with an ordinary name: it must stay readable, which proves the dump reads loopdeck's environment. */
const MARKER = 'LOOPDECK_TEST_MARKER=visible-in-environ';


let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-environ-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it.skipIf(process.platform !== 'linux')('keeps the secret variables out of /proc/<pid>/environ of loopdeck, and out of every file and stream of an aborted run', async () => {
  writeFileSync(path.join(dir, 'walk.sh'), ENVIRON_WALK);
  // The tool copies it into the progress file (a secret in a command's arguments is redacted before it runs).
  writeFileSync(path.join(dir, 'notes.txt'), `notes: ${CANARY}\n`);
  writeFileSync(
    path.join(dir, 'script.yaml'),
    [
      'turns:',
      '  - thought: look around',
      '    tool_calls:',
      `      - { id: t1, name: shell, args: { command: "sh walk.sh tool-dump.txt; cp notes.txt PROGRESS.md" } }`,
      '  - { final: done }',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: dump the environment }',
      'agent: { kind: scripted, script: script.yaml }',
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "false" }]',
      'approval: { default: allow }',
      'budget: { max_iterations: 1, on_exhausted: abort }',
      'hooks:',
      '  - approval-gate',
      '  - destructive-deny',
      '  - trace-writer',
      '  - { name: dump, topic: before_tool_call, command: "sh walk.sh hook-dump.txt" }',
    ].join('\n'),
  );
  const [markerName, markerValue] = MARKER.split('=') as [string, string];
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'all'], {
    cwd: dir,
    env: { SECRET_CANARY_TOKEN: CANARY, OPENAI_API_KEY: OPENAI_KEY, [markerName]: markerValue },
    reject: false,
  });
  expect(result.exitCode, result.stderr).toBe(2);

  const runs = path.join(dir, '.loopdeck/runs');
  const runDir = path.join(runs, readdirSync(runs)[0]!);
  const read = (file: string) => readFileSync(file, 'utf8');
  const toolDump = read(path.join(dir, 'tool-dump.txt'));
  const hookDump = read(path.join(dir, 'hook-dump.txt'));
  // The dumps did read loopdeck's own environment (the marker is there) ...
  for (const dump of [toolDump, hookDump]) {
    expect(dump).toContain(MARKER);
    expect(dump).toMatch(/== pid \d+: node .*cli\.js run/);
  }
  const report = read(path.join(runDir, 'failure-report.json'));
  expect(JSON.parse(report).progress_file.content).toBe('notes: [REDACTED]\n');
  const sinks = {
    'tool-dump.txt': toolDump,
    'hook-dump.txt': hookDump,
    stdout: result.stdout,
    stderr: result.stderr,
    'events.jsonl': read(path.join(runDir, 'events.jsonl')),
    'trace.log': read(path.join(runDir, 'trace.log')),
    'failure-report.json': report,
  };
  expect(existsSync(path.join(runDir, 'trace.log'))).toBe(true);
  // ... and found neither secret anywhere, nor did any file or stream loopdeck wrote.
  for (const [sink, text] of Object.entries(sinks)) {
    expect(text, sink).not.toContain(CANARY);
    expect(text, sink).not.toContain(OPENAI_KEY);
  }
});
