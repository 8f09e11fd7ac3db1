// What a headless run says first about the tool calls its approval rules ask about: one
// line for its --approve mode, true for that mode and not contradicted by another line
// (the default, none, is in validate.test.ts).
// `run` and `resume` of the built CLI (`npm run build`) as child processes, on real files.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');

/** Every line of stderr that speaks of what happens to the calls the rules ask about. */
const APPROVAL_LINE = /tool calls the approval rules ask about|tool prompts wait for/;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-approve-modes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A loop.yaml in `dir` whose scripted agent plays `turns`; every shell call is asked about. */
function project(turns: unknown[]): void {
  writeFileSync(path.join(dir, 'transcript.yaml'), stringify({ turns }));
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    stringify({
      goal: { objective: 'say what happens to calls' },
      agent: { kind: 'scripted', script: 'transcript.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      approval: { default: 'ask', timeout: '1s' },
    }),
  );
}

/** The one run directory under `dir`. */
function runDir(): string {
  const [name] = readdirSync(path.join(dir, '.loopdeck/runs'));
  return path.join(dir, '.loopdeck/runs', name!);
}

const headless = (approve: string[]) => execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', ...approve], { cwd: dir, reject: false, stdin: 'ignore' });

const approvalLines = (stderr: string) => stderr.split('\n').filter((line) => APPROVAL_LINE.test(line));

describe('the first word of a headless run on tool calls, per --approve mode', { timeout: 60_000 }, () => {
  it('attached: they wait for loopdeck attach up to approval.timeout, and nothing says nobody can answer', async () => {
    project([{ final: 'done' }]);
    const result = await headless(['--approve', 'attached']);
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = approvalLines(result.stderr);
    expect(lines).toHaveLength(1);
    const [, attach] = /^loopdeck: --approve attached: tool calls the approval rules ask about wait for `(.+)` up to approval\.timeout, then are denied \(the agent is told\)$/.exec(lines[0]!) ?? [];
    // The command runs as printed, where it was printed: the words a shell makes of it are
    // this loopdeck (node and cli.js, as it was started), attach, and the run's folder.
    const words = (await execa('sh', ['-c', `printf '%s\\n' ${attach}`], { cwd: dir })).stdout.split('\n');
    expect([words[0], path.resolve(dir, words[1]!), words[2], path.resolve(dir, words[3]!)], lines[0]).toEqual(['node', cli, 'attach', runDir()]);
    expect(words).toHaveLength(4);
    expect(result.stderr).not.toContain('nobody to answer');
    expect(result.stderr).not.toContain('--approve all approves them');
  });

  it('all: approved; a resumed run adds that a call a restart interrupted is not run again, and it is denied', async () => {
    project([{ tool_calls: [{ id: 't1', name: 'shell', args: { command: 'sleep 5; touch slept' } }] }, { final: 'done' }]);
    // Killed while its one call runs: approved, with no result, it may have had effects.
    const child = spawn('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'all'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"type":"tool.decision"') && child.exitCode === null) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the run ended before the kill (exit ${code})`))));
    });
    expect(approvalLines(err)).toEqual(['loopdeck: --approve all: tool calls the approval rules ask about are approved (deny rules and the built-in guards still deny)']);
    const resumed = await execa('node', [cli, 'resume', runDir(), '--headless', '-y', '--approve', 'all'], { cwd: dir, reject: false, stdin: 'ignore' });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(approvalLines(resumed.stderr)).toEqual([
      'loopdeck: --approve all: tool calls the approval rules ask about are approved (deny rules and the built-in guards still deny; a call a restart interrupted is denied, not run again)',
    ]);
    const decisions = readFileSync(path.join(runDir(), 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
      .filter((e) => e.type === 'tool.decision');
    expect(decisions.at(-1)?.data).toMatchObject({ call_id: 't1', decision: 'deny' });
  });
});
