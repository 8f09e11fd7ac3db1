/**
 * `replay --headless` of a damaged log names each problem once, in line order: a line cut
 * in two by NUL bytes is one torn line, and an unreadable line before a repeated `seq` is
 * named before it. Runs the built CLI (`npm run build`) on a log of the frozen corpus.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');
const corpusLog = path.resolve(import.meta.dirname, '../fixtures/logs/agent-error.jsonl');

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-replay-warnings-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

/** The corpus log with `change` applied to its lines, written as events.jsonl; replayed headless. */
async function replayChanged(change: (lines: string[]) => void) {
  const lines = readFileSync(corpusLog, 'utf8').split('\n');
  change(lines);
  writeFileSync(path.join(cwd, 'events.jsonl'), lines.join('\n'));
  const result = await execa('node', [cli, 'replay', '--headless', 'events.jsonl'], { cwd, reject: false, stdin: 'ignore' });
  return { exitCode: result.exitCode, warnings: result.stderr.split('\n'), logWarnings: (JSON.parse(result.stdout) as { log_warnings: string[] }).log_warnings };
}

describe('replay warnings', { timeout: 60_000 }, () => {
  it('a line with NUL bytes inside it: the NUL block, then one torn line', async () => {
    const { exitCode, warnings, logWarnings } = await replayChanged((ls) => ls.splice(5, 0, 'abc\0def'));
    const expected = [
      'events.jsonl:6: skipped 1 NUL bytes (a block of zeros a crash can leave)',
      'events.jsonl:6: dropped a torn line (not a JSON event); seq 5 follows without a gap',
    ];
    expect(exitCode).toBe(0);
    expect(warnings).toEqual(expected.map((w) => `loopdeck: ${w}`));
    expect(logWarnings).toEqual(expected);
  });

  it('an unreadable line, then a repeated seq: named in line order', async () => {
    const { warnings } = await replayChanged((ls) => ls.splice(5, 0, 'garbage', ls[3]!));
    expect(warnings).toEqual([
      'loopdeck: events.jsonl:6: dropped a torn line (not a JSON event); seq 5 follows without a gap',
      'loopdeck: events.jsonl:7: skipped a line whose seq 3 was already read (expected seq 5)',
    ]);
  });

  it('NUL blocks on a later line than a torn one come after it', async () => {
    const { warnings } = await replayChanged((ls) => {
      ls.splice(5, 0, 'garbage');
      ls[8] = `\0\0${ls[8]}`;
    });
    expect(warnings).toEqual([
      'loopdeck: events.jsonl:6: dropped a torn line (not a JSON event); seq 5 follows without a gap',
      'loopdeck: events.jsonl:9: skipped 2 NUL bytes (a block of zeros a crash can leave)',
    ]);
  });
});
