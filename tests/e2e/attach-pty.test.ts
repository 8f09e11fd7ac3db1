// `loopdeck attach` as a person sees it: a real headless loopdeck run writes its log in one
// process while the built CLI, attached in a pseudo-terminal, shows its events as they
// come. The run's agent is a small script that waits for the test before each lap's work,
// so the test decides when the log grows. Needs `npm run build`.
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { afterEach, expect, it } from 'vitest';
import { CLI, childEnv, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const terminals: PtyTerminal[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const t of terminals.splice(0)) await t.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Waits until `check` holds (polled), or fails naming `what`. */
async function until<T>(check: () => T | null | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('shows the events of a headless run as the run writes them, read-only', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-attach-'));
  dirs.push(dir);
  writeFileSync(
    path.join(dir, 'agent.sh'),
    ['#!/bin/sh', 'cat > /dev/null', 'n=$(cat slices 2>/dev/null | wc -l)', 'n=$((n+1))', 'while [ ! -f "go$n" ]; do sleep 0.05; done', 'echo "slice $n" >> slices', 'echo "added slice $n"'].join('\n'),
  );
  chmodSync(path.join(dir, 'agent.sh'), 0o755);
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: add two slices }',
      'agent: { kind: command, command: ./agent.sh, prompt: stdin, timeout: 60s }',
      'workspace: { path: ., copy: none }',
      'laps: { enabled: true, max_laps: 4 }',
      'verify: [{ command: "test $(wc -l < slices) -ge 2" }]',
    ].join('\n'),
  );
  const run = execa('node', [CLI, 'run', '--config', 'loop.yaml', '--headless'], { cwd: dir, env: childEnv(), reject: false });
  const runs = path.join(dir, '.loopdeck/runs');
  const runDir = await until(() => existsSync(runs) && readdirSync(runs)[0], 'the run directory');

  const t = startPty({ args: ['attach', path.join(runs, runDir)], cols: 120, rows: 40, cwd: dir });
  terminals.push(t);
  // Read-only is how the console stands, said as information, not as a failure.
  const opened = await t.waitFor('attached read-only: ');
  expect(opened).not.toContain('✗ attached read-only');
  await t.waitFor('lap 1/4 started');
  expect(t.screen()).not.toContain('added slice 1');

  writeFileSync(path.join(dir, 'go1'), '');
  await t.waitFor('added slice 1');
  await t.waitFor('lap 2/4 started');
  expect(t.screen()).not.toContain('added slice 2');

  // Read-only: a command that would change the run is refused, the run goes on.
  t.press('/');
  await t.type('stop');
  t.press('\r');
  await t.waitFor('attached read-only');
  // A refused command closes the bar; the refusal stays as a notice.
  await t.waitForGone('› /stop');
  expect(t.screen()).not.toContain('complete: stopped');

  writeFileSync(path.join(dir, 'go2'), '');
  await t.waitFor('added slice 2');
  await t.waitFor(/goal_met/);
  const ended = await run;
  expect(ended.exitCode, ended.stderr).toBe(0);

  t.press('q');
  expect((await t.exit).code).toBe(0);
});

it("an alert of the attached run rings the bell and says the run acts on it by its own policy, not that loopdeck cannot pause it", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-attach-alert-'));
  dirs.push(dir);
  // The same call with the same result three times: the repetition guard pauses the run, and --on-pause stop ends it.
  const same = (id: string) => ({ tool_calls: [{ id, name: 'shell', args: { command: 'echo same' } }] });
  writeFileSync(path.join(dir, 'transcript.yaml'), stringify({ turns: [same('s1'), same('s2'), same('s3'), { final: 'done' }] }));
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    stringify({
      goal: { objective: 'repeat itself' },
      agent: { kind: 'scripted', script: 'transcript.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      approval: { allow: ['shell'] },
    }),
  );
  const run = await execa('node', [CLI, 'run', '--config', 'loop.yaml', '--headless'], { cwd: dir, env: childEnv(), reject: false });
  expect(run.stdout).toContain('"type":"repetition.detected"');
  const runs = path.join(dir, '.loopdeck/runs');

  const t = startPty({ args: ['attach', path.join(runs, readdirSync(runs)[0]!)], cols: 160, rows: 40, cwd: dir });
  terminals.push(t);
  // The notice wraps over rows: read as one text.
  const said = (screen: string) => screen.replace(/\s+/g, ' ');
  const screen = await t.waitUntil((s) => /⚠ repetition: .*\(bell rung: the run acts on it by its own policy, not this console\)/.test(said(s)), 'the alert on the notice line');
  expect(said(screen)).not.toContain('cannot pause this session');
  expect(t.output).toContain('\u0007');
  t.press('q');
  expect((await t.exit).code).toBe(0);
});
