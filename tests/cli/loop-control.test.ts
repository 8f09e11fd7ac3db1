// `loopdeck check` reads the original loop-control format as written (only progress and
// stagnation; `path`/`change`; one-level signals such as observed.failing_target_tests),
// through the built CLI (`npx tsc -p tsconfig.build.json` first), on fixtures in its shape.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
const fixtures = path.join(root, 'tests/fixtures/loop-control');
const contract = path.join(fixtures, 'loop-control.yaml');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function check(dir: string, config = contract) {
  return execa('node', [cli, 'check', dir, '--config', config, '--json'], { cwd: os.tmpdir(), reject: false });
}

type Verdict = [status: string, counter: number, observed: boolean | null, claimed: boolean, stagnation: boolean];

async function verdicts(dir: string): Promise<{ verdicts: Verdict[]; rules: string[] }> {
  const result = await check(path.join(fixtures, dir));
  expect([result.exitCode, result.stderr]).toEqual([0, '']);
  const rows = result.stdout.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    verdicts: rows.map((r) => [r.status, r.counter, r.observed_progress, r.claimed_progress, r.stagnation_detected] as Verdict),
    rules: rows.map((r) => r.rule as string),
  };
}

describe('loopdeck check with the original loop-control contract', () => {
  it('failing/passing 3/4, 2/5, 1/6: BASELINE, PROGRESS_OBSERVED, PROGRESS_OBSERVED, counter 0, 0, 0', async () => {
    const { verdicts: v, rules } = await verdicts('productive');
    expect(v).toEqual([
      ['BASELINE', 0, null, false, false],
      ['PROGRESS_OBSERVED', 0, true, true, false],
      ['PROGRESS_OBSERVED', 0, true, true, false],
    ]);
    expect(rules[1]).toBe(
      'observed progress rule: observed.failing_target_tests 3 → 2 (decrease wanted), observed.passing_target_tests 4 → 5 (increase wanted) moved the declared way; counter 0/2 (reset)',
    );
  });

  it('3/4 three times: BASELINE, NO_OBSERVED_PROGRESS (1), NO_OBSERVED_PROGRESS + STAGNATION_DETECTED (2)', async () => {
    const { verdicts: v, rules } = await verdicts('stagnant');
    expect(v).toEqual([
      ['BASELINE', 0, null, false, false],
      ['NO_OBSERVED_PROGRESS', 1, false, false, false],
      ['NO_OBSERVED_PROGRESS', 2, false, false, true],
    ]);
    expect(rules).toEqual([
      'baseline rule: the first checkpoint has nothing to compare (observed.failing_target_tests first measured at 3, observed.passing_target_tests first measured at 4); counter 0/2',
      'no observed progress: observed.failing_target_tests stayed at 3, observed.passing_target_tests stayed at 4; counter 1/2',
      'no observed progress: observed.failing_target_tests stayed at 3, observed.passing_target_tests stayed at 4; counter 2/2 reached the threshold: STAGNATION_DETECTED',
    ]);
  });

  it('3/4 three times while the agent eliminates hypotheses: the same, with claimed_progress at the second and third', async () => {
    const { verdicts: v, rules } = await verdicts('claimed');
    expect(v).toEqual([
      ['BASELINE', 0, null, false, false],
      ['NO_OBSERVED_PROGRESS', 1, false, true, false],
      ['NO_OBSERVED_PROGRESS', 2, false, true, true],
    ]);
    expect(rules[2]).toMatch(/STAGNATION_DETECTED; claims never reset the counter$/);
  });
});

describe('loopdeck check refuses what it cannot apply, naming the file and path', () => {
  function folderAnd(contractText: string): { dir: string; config: string } {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-loopcontrol-'));
    dirs.push(dir);
    const checkpoints = path.join(dir, 'cps');
    mkdirSync(checkpoints);
    writeFileSync(path.join(checkpoints, '01.json'), JSON.stringify({ iteration: 3, observed: { failing_target_tests: 3 } }));
    const config = path.join(dir, 'contract.yaml');
    writeFileSync(config, contractText);
    return { dir: checkpoints, config };
  }

  it.each([
    ['a misspelt signal', 'progress: { observed: [{ path: observed.failing_target_test, change: decrease }] }', /progress\.observed\[0\]: expected one of observed\.failing_target_tests, found "observed\.failing_target_test" in no checkpoint file; did you mean "observed\.failing_target_tests"\?/],
    ['a reported path', 'progress: { observed: [{ path: reported.eliminated_hypotheses, change: increase }] }', /only observed\.\* signals can/],
    ['path mixed with direction', 'progress: { observed: [{ path: observed.failing_target_tests, direction: decrease }] }', /progress\.observed\[0\]: expected \{ signal, direction \} or \{ path, change \}, found \{ direction, path \}/],
    ['a change that is not a direction', 'progress: { observed: [{ path: observed.failing_target_tests, change: down }] }', /progress\.observed\[0\]\.change: expected one of increase, decrease, found "down"/],
    ['an unknown section', 'progres: { observed: [] }', /progres/],
    ['claims that reset stagnation', 'progress: { reported: { resets_stagnation: true } }', /reported claims never reset stagnation/],
  ])('%s', async (_name, text, message) => {
    const { dir, config } = folderAnd(text);
    const result = await check(dir, config);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(config);
    expect(result.stderr).toMatch(message);
  });
});
