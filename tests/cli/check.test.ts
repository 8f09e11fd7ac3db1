// `loopdeck check <dir>` through the built CLI (`npm run build` first), with
// tests/fixtures/check/loop.yaml: the demo's signals, stagnation threshold 2, tracked claims
// new_evidence and eliminated_hypotheses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
const config = path.join(root, 'tests/fixtures/check/loop.yaml');
const fixtures = path.join(root, 'fixtures/checkpoints');

interface Row {
  file: string;
  status: string;
  counter: number;
  observed_progress: boolean | null;
  claimed_progress: boolean;
  stagnation_detected: boolean;
}

async function check(dir: string, json = true) {
  return execa('node', [cli, 'check', dir, '--config', config, ...(json ? ['--json'] : [])], { cwd: os.tmpdir(), reject: false });
}

async function rows(dir: string): Promise<Row[]> {
  const result = await check(dir);
  expect([result.exitCode, result.stderr]).toEqual([0, '']);
  // each row also names the rule behind its verdict (tests/cli/loop-control.test.ts pins the text)
  return result.stdout.split('\n').map((line) => {
    const { rule, ...row } = JSON.parse(line) as Row & { rule: string };
    expect(rule).toMatch(/^(baseline rule|observed progress rule|no observed progress|mixed, a regression cancels progress): /);
    return row;
  });
}

const row = (file: string, status: string, counter: number, observed: boolean | null, claimed: boolean, stagnation: boolean): Row => ({
  file,
  status,
  counter,
  observed_progress: observed,
  claimed_progress: claimed,
  stagnation_detected: stagnation,
});

describe('loopdeck check on the fixture folders', () => {
  it('productive: BASELINE, PROGRESS_OBSERVED, PROGRESS_OBSERVED, counter 0', async () => {
    expect(await rows(path.join(fixtures, 'productive'))).toEqual([
      // claims at the baseline are its starting point, not progress
      row('01.json', 'BASELINE', 0, null, false, false),
      row('02.json', 'PROGRESS_OBSERVED', 0, true, true, false),
      row('03.json', 'PROGRESS_OBSERVED', 0, true, true, false),
    ]);
  });

  it('stagnant: BASELINE, NO_OBSERVED_PROGRESS (1), NO_OBSERVED_PROGRESS + STAGNATION_DETECTED (2)', async () => {
    expect(await rows(path.join(fixtures, 'stagnant'))).toEqual([
      row('01.json', 'BASELINE', 0, null, false, false),
      row('02.json', 'NO_OBSERVED_PROGRESS', 1, false, false, false),
      row('03.json', 'NO_OBSERVED_PROGRESS', 2, false, false, true),
    ]);
  });

  it('claimed-only: claims never reset the counter (01 claims only remaining hypotheses, which loop.yaml does not track)', async () => {
    expect(await rows(path.join(fixtures, 'claimed-only'))).toEqual([
      row('01.json', 'BASELINE', 0, null, false, false),
      row('02.json', 'NO_OBSERVED_PROGRESS', 1, false, true, false),
      row('03.json', 'NO_OBSERVED_PROGRESS', 2, false, true, true),
    ]);
  });

  it('prints one line per checkpoint without --json', async () => {
    const result = await check(path.join(fixtures, 'claimed-only'), false);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      '01.json  BASELINE  counter=0/2  observed_progress=null  claimed_progress=false',
      '02.json  NO_OBSERVED_PROGRESS  counter=1/2  observed_progress=false  claimed_progress=true',
      '03.json  NO_OBSERVED_PROGRESS STAGNATION_DETECTED  counter=2/2  observed_progress=false  claimed_progress=true',
    ]);
  });
});

describe('loopdeck check on folders of checkpoint files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-check-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes one checkpoint per failing/passing pair, named 01.json, 02.json, ... */
  function write(pairs: Array<[number, number]>): void {
    pairs.forEach(([failing, passing], i) => {
      const checkpoint = {
        iteration: 3 * (i + 1),
        observed: { 'tests.failing': failing, 'tests.passing': passing },
        reported: { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] },
      };
      writeFileSync(path.join(dir, `${String(i + 1).padStart(2, '0')}.json`), JSON.stringify(checkpoint, null, 2));
    });
  }

  it('3/4, 3/4, 2/5, 2/5, 2/5: BASELINE, NO_OBSERVED_PROGRESS (1), PROGRESS_OBSERVED (0), NO_OBSERVED_PROGRESS (1), NO_OBSERVED_PROGRESS + STAGNATION_DETECTED (2)', async () => {
    write([[3, 4], [3, 4], [2, 5], [2, 5], [2, 5]]);
    expect(await rows(dir)).toEqual([
      row('01.json', 'BASELINE', 0, null, false, false),
      row('02.json', 'NO_OBSERVED_PROGRESS', 1, false, false, false),
      row('03.json', 'PROGRESS_OBSERVED', 0, true, false, false),
      row('04.json', 'NO_OBSERVED_PROGRESS', 1, false, false, false),
      row('05.json', 'NO_OBSERVED_PROGRESS', 2, false, false, true),
    ]);
  });

  it('3/4 then 4/3 (a regression): NO_OBSERVED_PROGRESS, counter 1', async () => {
    write([[3, 4], [4, 3]]);
    expect(await rows(dir)).toEqual([row('01.json', 'BASELINE', 0, null, false, false), row('02.json', 'NO_OBSERVED_PROGRESS', 1, false, false, false)]);
  });

  it('3/4 then 2/3 (one improves, one regresses): NO_OBSERVED_PROGRESS, and the rule says a regression cancels progress', async () => {
    write([[3, 4], [2, 3]]);
    const result = await check(dir);
    const lines = result.stdout.split('\n').map((line) => JSON.parse(line) as Row & { rule: string });
    expect(lines.map((l) => [l.status, l.counter, l.rule])).toEqual([
      ['BASELINE', 0, 'baseline rule: the first checkpoint has nothing to compare (observed.tests.failing first measured at 3, observed.tests.passing first measured at 4); counter 0/2'],
      [
        'NO_OBSERVED_PROGRESS',
        1,
        'mixed, a regression cancels progress: observed.tests.failing 3 → 2 (decrease wanted) moved the declared way but observed.tests.passing 4 → 3, the wrong way (increase wanted); counter 1/2',
      ],
    ]);
  });

  it('evaluates in file-name order, whatever the iterations say', async () => {
    const cp = (iteration: number, failing: number) => JSON.stringify({ iteration, observed: { 'tests.failing': failing, 'tests.passing': 1 } });
    writeFileSync(path.join(dir, 'b.json'), cp(3, 2));
    writeFileSync(path.join(dir, 'a.json'), cp(6, 3));
    writeFileSync(path.join(dir, 'notes.txt'), 'not a checkpoint');
    expect((await rows(dir)).map((r) => [r.file, r.status])).toEqual([
      ['a.json', 'BASELINE'],
      ['b.json', 'PROGRESS_OBSERVED'],
    ]);
  });

  it('a checkpoint of the wrong shape: exit 1, naming the file, the path and line:column', async () => {
    write([[3, 4]]);
    const bad = path.join(dir, '02.json');
    writeFileSync(bad, '{\n  "iteration": 6,\n  "observed": {"tests.failing": "3"}\n}\n');
    const result = await check(dir);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`loopdeck: invalid checkpoint\n${bad}:3:33: observed.tests.failing: expected a number, found "3"`);
  });

  it('a file that is not JSON: exit 1, naming the file', async () => {
    const bad = path.join(dir, '01.json');
    writeFileSync(bad, '{"iteration": 3,');
    const result = await check(dir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.startsWith(`loopdeck: invalid checkpoint\n${bad}: (root): expected JSON, found text it cannot read (`)).toBe(true);
  });

  it('an empty folder: exit 1', async () => {
    const result = await check(dir);
    expect([result.exitCode, result.stderr]).toEqual([1, `loopdeck: ${dir}: no checkpoint .json files`]);
  });
});
