/**
 * The README's "Your first loop.yaml", run exactly as written: every file it shows is the
 * file in examples/first-loop/ (and it shows them all), and its commands, typed in a
 * checkout after `npm install`, validate the loop and run it to `goal_met` with the
 * checkpoints it describes. Needs the built CLI (`npm run build`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { installedCheckout, npmEnv, ROOT } from '../support/npx-checkout.js';

const EXAMPLE = 'examples/first-loop';
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const start = readme.indexOf('## Your first loop.yaml');
const section = readme.slice(start, readme.indexOf('\n## ', start + 1));

/** The section's code blocks: each with the file named on the line before it (`path`:), if any. */
function blocks(): Array<{ file: string | null; lang: string; text: string }> {
  const found: Array<{ file: string | null; lang: string; text: string }> = [];
  const fence = /(?:^`([^`]+)`:\n\n)?^```(\w*)\n([\s\S]*?)^```$/gm;
  for (const m of section.matchAll(fence)) found.push({ file: m[1] ?? null, lang: m[2]!, text: m[3]! });
  return found;
}

/** Files of a folder, recursively, relative to it. */
/**
 * The files of the example as the repository has them: git's list of its files (tracked,
 * or new and not ignored), so what running the walkthrough leaves there (its ignored
 * `.loopdeck/` runs) is not taken for a file the README should show. Outside a git
 * checkout, every file but those runs.
 */
function exampleFiles(): string[] {
  try {
    const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', EXAMPLE], { cwd: ROOT, encoding: 'utf8' });
    return listed.split('\n').filter((f) => f !== '');
  } catch {
    return filesOf(path.join(ROOT, EXAMPLE)).map((f) => `${EXAMPLE}/${f}`);
  }
}

function filesOf(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return e.name === '.loopdeck' ? [] : filesOf(path.join(dir, e.name), base);
    return [path.relative(base, path.join(dir, e.name))];
  });
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('the README walkthrough', { timeout: 120_000 }, () => {
  it('shows every file of examples/first-loop, each exactly as it is in the repository', () => {
    expect(start).toBeGreaterThan(0);
    const shown = blocks().filter((b) => b.file !== null);
    expect(shown.map((b) => b.file).sort()).toEqual(exampleFiles().sort());
    for (const b of shown) expect(b.text, b.file!).toBe(readFileSync(path.join(ROOT, b.file!), 'utf8'));
  });

  it('its commands, as written, validate the loop and run it to goal_met with the checkpoints it describes', async () => {
    const commands = blocks().filter((b) => b.lang === 'sh');
    expect(commands).toHaveLength(1);
    const dir = await installedCheckout();
    dirs.push(dir);
    cpSync(path.join(ROOT, EXAMPLE), path.join(dir, EXAMPLE), { recursive: true });
    // From a script (stdin not a terminal) `run` goes headless, as the section says.
    const run = await execa('sh', ['-e', '-c', commands[0]!.text], { cwd: dir, env: npmEnv(dir), stdin: 'ignore', reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain('goal_met');
    const runs = path.join(dir, EXAMPLE, '.loopdeck/runs');
    const [id] = readdirSync(runs);
    const events = readFileSync(path.join(runs, id!, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, any> });
    const workspace = events[0]!.data.workspace as string;
    if (workspace.startsWith(os.tmpdir())) dirs.push(workspace);
    // As the section says: the baseline at the run start (1 failing), iteration 1 (no change), iteration 2 (1 → 0).
    const checkpoints = events.filter((e) => e.type === 'checkpoint.recorded').map((e) => e.data.checkpoint);
    expect(checkpoints.map((c) => [c.iteration, c.baseline ?? false, c.observed['tests.failing'], c.status])).toEqual([
      [0, true, 1, 'BASELINE'],
      [1, false, 1, 'NO_OBSERVED_PROGRESS'],
      [2, false, 0, 'PROGRESS_OBSERVED'],
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
    // The example in the repository is untouched (the run worked on a temporary copy).
    expect(readFileSync(path.join(ROOT, EXAMPLE, 'project/greet.mjs'), 'utf8')).toContain('`hello ');
  });
});
