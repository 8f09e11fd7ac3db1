/**
 * A reader that goes away (`loopdeck runs | head -1`): every command that prints ends
 * quietly with its own exit code, never with a crash and a stack trace. The built CLI
 * (`npm run build` first) runs with its stdout a pipe whose reading end is closed before
 * it writes, so its first write fails with EPIPE whatever the output's size.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');
const demoLog = path.resolve(import.meta.dirname, '../fixtures/logs/demo.jsonl');
let dir = '';

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-closed-stdout-'));
  const runDir = path.join(dir, '.loopdeck/runs/20261130-000000-demo');
  mkdirSync(runDir, { recursive: true });
  cpSync(demoLog, path.join(runDir, 'events.jsonl'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI with its stdout's reader closed at once; its exit code and stderr. */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('stdout closed by its reader', () => {
  it.each([
    [['runs']],
    [['runs', '--json']],
    [['replay', '--headless', demoLog]],
    [['replay', '--headless', '.loopdeck/runs/20261130-000000-demo']],
  ])('loopdeck %s ends quietly with exit 0', async (args) => {
    const { code, stderr } = await withClosedStdout(args);
    expect(stderr).not.toContain('crashed');
    expect(stderr).not.toContain('EPIPE');
    expect(code, stderr).toBe(0);
  });
});

describe('a headless run whose stdout was closed', () => {
  it('stops at the next safe point and says why: not as if the operator typed /stop', async () => {
    const config = path.resolve(import.meta.dirname, '../../loop.yaml');
    const { code, stderr } = await withClosedStdout(['run', '--config', config, '--headless', '--approve', 'all', '--on-pause', 'continue']);
    expect(stderr).toContain('stdout was closed; stopping the run at the next safe point');
    expect(stderr).toContain('loopdeck: stopped: stdout was closed (its reader went away)');
    expect(stderr).not.toContain('/stop');
    expect(code, stderr).toBe(2);
  }, 60_000);
});
