// Unknown through the built CLI (`npm run build` first): `check --json` says UNKNOWN with why for
// a checkpoint that measured nothing, and `validate` refuses a run its agent can never bound.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-unknown-cli-'));
  dirs.push(dir);
  return dir;
}

const checkpoint = (iteration: number, observed: Record<string, unknown>) =>
  JSON.stringify({ iteration, reported: { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] }, observed });

describe('loopdeck check --json', () => {
  it('a checkpoint file without the tracked number is UNKNOWN with why, and keeps the counter', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'loop.yaml'), 'progress:\n  observed:\n    - { path: observed.failing, change: decrease }\nstagnation: { checkpoints_without_observed_progress: 2 }\n');
    writeFileSync(path.join(dir, '1.json'), checkpoint(1, { failing: 3 }));
    writeFileSync(path.join(dir, '2.json'), checkpoint(2, { failing: 3 }));
    writeFileSync(path.join(dir, '3.json'), checkpoint(3, { failing: null }));
    writeFileSync(path.join(dir, '4.json'), checkpoint(4, { other: 1 }));
    const result = await execa('node', [cli, 'check', dir, '--config', path.join(dir, 'loop.yaml'), '--json'], { reject: false });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    const rows = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((r) => [r.file, r.status, r.counter, r.stagnation_detected])).toEqual([
      ['1.json', 'BASELINE', 0, false],
      ['2.json', 'NO_OBSERVED_PROGRESS', 1, false],
      ['3.json', 'UNKNOWN', 1, false],
      ['4.json', 'UNKNOWN', 1, false],
    ]);
    expect(rows[2]!.unknown_why).toBe('observed.failing: no number was recorded for it');
    expect(rows[2]!.rule).toBe('unknown rule: no tracked signal could be measured (observed.failing: no number was recorded for it); counter 1/2 (kept: unknown is not "no progress")');
  });
});

describe('loopdeck validate', () => {
  it('refuses a CLI agent without structured output bounded only by tokens and cost, naming both', async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'loop.yaml'),
      [
        'goal: { objective: x }',
        'agent: { kind: command, command: sh, output: text }',
        'workspace: { path: ., copy: none }',
        "verify: [{ command: 'true' }]",
        'budget: { max_iterations: unlimited, max_tool_calls: unlimited, max_wall_clock: unlimited, max_tokens: 1000, max_cost_usd: 1 }',
        '',
      ].join('\n'),
    );
    const result = await execa('node', [cli, 'validate', path.join(dir, 'loop.yaml')], { reject: false });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/loop\.yaml:\d+:\d+: budget: expected a bound this agent can be measured against/);
    expect(result.stderr).toMatch(/budget\.max_tokens cannot be measured for this agent: agent\.output: text reports no tokens/);
    expect(result.stderr).toMatch(/budget\.max_cost_usd cannot be measured for this agent: agent\.output: text reports no cost/);
  });
});
