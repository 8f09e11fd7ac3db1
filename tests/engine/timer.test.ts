// Durations past Node's 2^31 - 1 ms timer limit (about 24.8 days) used to fire after 1 ms:
// every shell call "timed out" at once and every hook ran "past its limit". A delay from
// the engine API is not validated like loop.yaml, so the timers themselves must hold.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookRegistry } from '../../src/engine/hooks.js';
import { runShell } from '../../src/engine/process.js';
import { MAX_TIMER_MS, safeTimeout } from '../../src/engine/timer.js';
import { runTool } from '../../src/engine/tools.js';

/** 600 hours: past the 597 h where Node's timers overflow. */
const HUGE_SECONDS = 600 * 3600;

let workspace: string;
beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-timer-'));
});
afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

describe('a huge timeout set through the engine API does not fire early', () => {
  it.each([
    ['600 hours', HUGE_SECONDS],
    ['Infinity', Infinity],
  ])('a shell tool call with a timeout of %s runs to its end', async (_name, seconds) => {
    const outcome = await runTool(
      { id: 't1', name: 'shell', args: { command: 'sleep 0.3; echo finished' } },
      { workspace, shellTimeoutSeconds: seconds, outputLimit: 16 * 1024 },
    );
    expect(outcome).toMatchObject({ status: 'ok', exit_code: 0 });
    expect(outcome.output.trim()).toBe('finished');
  });

  it('a command run by the harness (observe, verify, hooks) with a 600 h timeout is not killed', async () => {
    const result = await runShell('sleep 0.3; echo finished', { cwd: workspace, timeoutSeconds: HUGE_SECONDS });
    expect([result.timed_out, result.exit_code, result.output.trim()]).toEqual([false, 0, 'finished']);
  });

  it('a hook with a 600 h limit is not cut off as "ran past its limit"', async () => {
    const registry = new HookRegistry(HUGE_SECONDS * 1000);
    registry.on('before_tool_call', 'slow-but-fine', async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { type: 'allow' as const };
    });
    const outcome = await registry.call('before_tool_call', { call: { id: 't1', name: 'shell', args: {} } } as never);
    expect(outcome.failures).toEqual([]);
    expect(outcome.decision).toEqual({ type: 'allow' });
  });

  it('a short timeout still fires', async () => {
    const result = await runShell('sleep 5', { cwd: workspace, timeoutSeconds: 0.2, graceMs: 100 });
    expect(result.timed_out).toBe(true);
  });
});

describe('safeTimeout', () => {
  it('waits in steps no longer than the timer limit and can be cancelled', async () => {
    let fired = false;
    const timer = safeTimeout(() => (fired = true), MAX_TIMER_MS * 3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fired).toBe(false);
    timer.cancel();
  });

  it('fires a small delay', async () => {
    const fired = await new Promise<boolean>((resolve) => safeTimeout(() => resolve(true), 10));
    expect(fired).toBe(true);
  });

  it('refuses NaN, which Node would fire after 1 ms', () => {
    expect(() => safeTimeout(() => undefined, Number.NaN)).toThrow('a timer delay must be a number of milliseconds, found NaN');
  });
});
