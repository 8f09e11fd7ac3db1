import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
const fixture = path.join(root, 'fixtures/workspaces/payload-bug');

/** sha256 of every file under `dir`, by relative path. */
function treeHash(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[path.relative(dir, full)] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

interface Event {
  seq: number;
  type: string;
  data: Record<string, any>;
}

function parseEvents(stdout: string): Event[] {
  return stdout.trim().split('\n').map((line) => JSON.parse(line) as Event);
}

describe('loopdeck run --headless on the demo', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-e2e-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('detects stagnation, meets the goal through the verifier and leaves the fixture untouched', async () => {
    const before = treeHash(fixture);
    const result = await execa('node', [cli, 'run', '--config', path.join(root, 'loop.yaml'), '--headless', '--approve', 'all', '--on-pause', 'continue'], {
      cwd,
      reject: false,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const events = parseEvents(result.stdout);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'stagnation.detected').map((e) => e.data.iteration)).toEqual([9]);
    const last = events[events.length - 1]!;
    expect(last.type).toBe('session.complete');
    expect(last.data.reason).toBe('goal_met');
    const checkpoints = events.filter((e) => e.type === 'checkpoint.recorded').map((e) => e.data.checkpoint);
    // The baseline at the run start, then every 3 turns: three without progress pause at turn 9.
    expect(checkpoints.map((c) => [c.iteration, c.status, c.counter, c.observed['tests.failing']])).toEqual([
      [0, 'BASELINE', 0, 3],
      [3, 'NO_OBSERVED_PROGRESS', 1, 3],
      [6, 'NO_OBSERVED_PROGRESS', 2, 3],
      [9, 'NO_OBSERVED_PROGRESS', 3, 3],
      [12, 'PROGRESS_OBSERVED', 0, 2],
      [15, 'PROGRESS_OBSERVED', 0, 1],
      // the last turn claims the goal is met: the verifier passes before its checkpoint is due
    ]);

    const workspace = events[0]!.data.workspace as string;
    expect(workspace).not.toBe(fixture);
    const suite = await execa('node', ['--test'], { cwd: workspace, reject: false });
    expect(suite.exitCode).toBe(0);
    expect(treeHash(fixture)).toEqual(before);

    const session = events[0]!.data as { schemaVersion: number };
    expect(session.schemaVersion).toBe(1);
    const log = readFileSync(path.join(cwd, '.loopdeck/runs', readdirSync(path.join(cwd, '.loopdeck/runs'))[0]!, 'events.jsonl'), 'utf8');
    expect(log.trim().split('\n')).toHaveLength(events.length);
    rmSync(workspace, { recursive: true, force: true });
  });

  it('stops at the stagnation pause by default and exits 2', async () => {
    const result = await execa('node', [cli, 'run', '--config', path.join(root, 'loop.yaml'), '--headless', '--approve', 'all'], {
      cwd,
      reject: false,
    });
    expect(result.exitCode).toBe(2);
    const events = parseEvents(result.stdout);
    const last = events[events.length - 1]!;
    expect(last.type).toBe('session.complete');
    expect(last.data.reason).toBe('stopped');
    expect(events.filter((e) => e.type === 'session.pause').map((e) => e.data.reason)).toEqual(['stagnation']);
    rmSync(events[0]!.data.workspace as string, { recursive: true, force: true });
  });

  it('rejects an invalid config with exit 1 and names the file and path', async () => {
    const bad = path.join(cwd, 'loop.yaml');
    const text = readFileSync(path.join(root, 'loop.yaml'), 'utf8').replace(
      '- { signal: observed.tests.failing, direction: decrease }',
      '- { signal: reported.remaining_hypotheses, direction: decrease }',
    );
    await import('node:fs').then((fs) => fs.writeFileSync(bad, text));
    const result = await execa('node', [cli, 'run', '--config', bad, '--headless'], { cwd, reject: false });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${bad}:`);
    expect(result.stderr).toContain('progress.observed[0].signal');
    expect(result.stdout).toBe('');
  });
});
