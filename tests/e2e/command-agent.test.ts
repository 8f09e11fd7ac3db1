// An external CLI agent run lap after lap: the built CLI with agent.kind command and
// fresh laps. A small script stands in for the external agent: each lap it reads the
// prompt on stdin, does one slice of the work and updates the progress file.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-cmd-'));
  mkdirWorkspace();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function mkdirWorkspace() {
  writeFileSync(
    path.join(dir, 'agent.sh'),
    [
      '#!/bin/sh',
      'prompt=$(cat)',
      'case "$prompt" in *"Lap "*) ;; *) echo "no lap in the prompt" >&2; exit 3;; esac',
      'n=$(cat slices 2>/dev/null | wc -l)',
      'echo "slice $((n+1))" >> slices',
      'printf "done: %s slice(s)\\n" "$((n+1))" > PROGRESS.md',
      'echo "added slice $((n+1))"',
    ].join('\n'),
  );
  chmodSync(path.join(dir, 'agent.sh'), 0o755);
}

it('runs the external agent once per lap until the verifier passes', async () => {
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: add three slices }',
      'agent: { kind: command, command: ./agent.sh, prompt: stdin, timeout: 30s }',
      'workspace: { path: ., copy: none }',
      'laps: { enabled: true, max_laps: 5 }',
      'verify: [{ command: "test $(wc -l < slices) -ge 3" }]',
    ].join('\n'),
  );
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless'], { cwd: dir, reject: false });
  expect(result.exitCode, result.stderr).toBe(0);
  const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(events.filter((e) => e.type === 'lap.start').map((e) => e.data.lap)).toEqual([1, 2, 3]);
  expect(events.filter((e) => e.type === 'lap.start')[2].data.handover).toMatchObject({ path: 'PROGRESS.md', excerpt: 'done: 2 slice(s)\n' });
  expect(events.filter((e) => e.type === 'model.call').map((e) => e.data.response.final)).toEqual(['added slice 1', 'added slice 2', 'added slice 3']);
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
  expect(readFileSync(path.join(dir, 'slices'), 'utf8')).toBe('slice 1\nslice 2\nslice 3\n');
});
