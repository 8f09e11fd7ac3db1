// Damaged logs read back by the real CLI: a last line without its newline is a complete
// event; unreadable lines, seq gaps and NUL blocks are shown and named, and resume goes on
// only when what is missing cannot be a tool call or a decision.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');

interface Event {
  seq: number;
  type: string;
  data: Record<string, any>;
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
const readEvents = (file: string): Event[] => lines(file).map((line) => JSON.parse(line) as Event);

/** Runs `args` of the CLI headless and SIGKILLs it once it printed `after` more events. */
async function killAfter(cwd: string, args: string[], after: number): Promise<void> {
  const child: ChildProcess = spawn('node', [cli, ...args, '--headless', '--approve', 'all', '--on-pause', 'continue'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = 0;
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString().split('\n').length - 1;
      if (seen >= after && child.exitCode === null) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`ended before the kill (exit ${code})`))));
  });
}

describe('damaged logs through the CLI', () => {
  // One real run killed after 30 events; each test starts from its log as the kill left it.
  let cwd: string;
  let runDir: string;
  let file: string;
  let killed: string;
  let workspace: string;
  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-damaged-'));
    await killAfter(cwd, ['run', '--config', path.join(root, 'loop.yaml')], 30);
    const runs = path.join(cwd, '.loopdeck/runs');
    runDir = path.join(runs, readdirSync(runs)[0]!);
    file = path.join(runDir, 'events.jsonl');
    killed = readFileSync(file, 'utf8');
    workspace = readEvents(file)[0]!.data.workspace as string;
  });
  beforeEach(() => writeFileSync(file, killed));
  afterAll(() => {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it('a log cut by one byte (its last newline) keeps its last event; resume continues after it without a seq twice', async () => {
    const before = readEvents(file);
    truncateSync(file, statSync(file).size - 1); // `truncate -s -1 events.jsonl`
    const replay = await execa('node', [cli, 'replay', runDir, '--headless'], { cwd, reject: false });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stderr).toBe('');
    expect(JSON.parse(replay.stdout).eventCount).toBe(before.length);

    await killAfter(cwd, ['resume', runDir, '--yes'], 25);
    const after = readEvents(file);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i));
    const results = after.filter((e) => e.type === 'tool.result').map((e) => e.data.result.call_id as string);
    expect(new Set(results).size).toBe(results.length);
    const again = await execa('node', [cli, 'replay', runDir, '--headless'], { cwd, reject: false });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
  });

  it('a last line torn mid-write, then a real resume: the torn line is a note of the restart, not damage, in replay and runs', async () => {
    const all = lines(file);
    const torn = all.at(-1)!;
    const { seq } = JSON.parse(torn) as Event;
    const kept = torn.length - Math.floor(torn.length / 2);
    truncateSync(file, statSync(file).size - 1 - (torn.length - kept)); // a crash in the middle of the last write
    // The note names the type only when the cut left it legible: a short line can be cut inside it.
    const type = /"type":"([a-z_.]+)"/.exec(torn.slice(0, kept))?.[1];
    const line = all.length;

    await killAfter(cwd, ['resume', runDir, '--yes'], 5);
    const read = readFileSync(file, 'utf8').split('\n');
    const restart = JSON.parse(read[line]!) as Event;
    expect(restart).toMatchObject({ seq, type: 'session.resume', data: { restart: true } });

    const replay = await execa('node', [cli, 'replay', runDir, '--headless'], { cwd, reject: false });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stderr).toBe(`loopdeck: note: ${file}:${line}: ${type ? `a ${type} event` : 'an event'} cut off when loopdeck stopped (a torn write); the restart at line ${line + 1} took its seq ${seq} and continued from the event before it`);
    const shown = JSON.parse(replay.stdout);
    expect(shown.log_warnings).toBeUndefined();
    expect(shown.log_notes).toHaveLength(1);

    const runs = await execa('node', [cli, 'runs'], { cwd, reject: false });
    expect(runs.exitCode, runs.stderr).toBe(0);
    expect(runs.stdout).not.toContain('damaged');
    expect(runs.stdout).toMatch(/ resumable /);
  });

  it('an unreadable middle line with a seq gap: replay shows the rest and names both; resume says what is missing and how to continue', async () => {
    const all = lines(file);
    const callAt = all.findIndex((l) => l.includes('"type":"tool.call"'));
    const seq = (JSON.parse(all[callAt]!) as Event).seq;
    all.splice(callAt, 2, all[callAt]!.slice(0, 110)); // the call cut, the line after it lost
    writeFileSync(file, `${all.join('\n')}\n`);
    const line = callAt + 1;

    const replay = await execa('node', [cli, 'replay', runDir, '--headless'], { cwd, reject: false });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stderr).toContain(`${file}:${line}: skipped an unreadable line (not a JSON event)`);
    expect(replay.stderr).toContain(`${file}:${line}: seq gap: expected seq ${seq}, found ${seq + 2} at line ${line + 1}: seq ${seq}–${seq + 1} missing; line ${line} unreadable`);
    const shown = JSON.parse(replay.stdout);
    expect(shown.log_warnings).toHaveLength(2);
    expect(shown.lastSeq).toBeGreaterThan(seq);

    const before = readFileSync(file, 'utf8');
    const resume = await execa('node', [cli, 'resume', runDir, '--headless', '--yes'], { cwd, reject: false });
    expect(resume.exitCode).toBe(1);
    expect(resume.stderr).toContain(`seq ${seq}–${seq + 1} are missing (legible: tool.call) and may be a tool call, a decision or a state change (${file}:${line})`);
    expect(resume.stderr).toContain('Its replay shows everything readable; to continue, start a new run');
    // The commands it names run as printed, from the folder it was run in.
    const printed = /^replay it: (.+)$/m.exec(resume.stderr)?.[1];
    expect(printed, resume.stderr).toMatch(/ replay /);
    const replayed = await execa('sh', ['-c', `${printed} --headless`], { cwd, reject: false });
    expect(replayed.exitCode, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).lastSeq).toBe(shown.lastSeq);
    // A new run of the loop.yaml this run came from, not of whatever loop.yaml is where resume was typed.
    const started = /^start a new run: (.+) run -c (.+)$/m.exec(resume.stderr);
    expect(started, resume.stderr).not.toBeNull();
    const validated = await execa('sh', ['-c', `${started![1]} validate ${started![2]}`], { cwd, reject: false });
    expect(validated.exitCode, validated.stderr).toBe(0);
    const named = await execa('sh', ['-c', `realpath ${started![2]}`], { cwd });
    expect(named.stdout).toBe(realpathSync(path.join(root, 'loop.yaml')));
    expect(resume.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a block of NUL bytes is named by replay and resume, and resume goes on (nothing is missing)', async () => {
    const all = lines(file);
    const cut = 12;
    writeFileSync(file, `${all.slice(0, cut).join('\n')}\n${'\0'.repeat(4096)}\n${all.slice(cut).join('\n')}\n`);
    const replay = await execa('node', [cli, 'replay', runDir, '--headless'], { cwd, reject: false });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stderr).toContain(`${file}:${cut + 1}: skipped 4096 NUL bytes`);
    expect(JSON.parse(replay.stdout).eventCount).toBe(all.length);

    const child = spawn('node', [cli, 'resume', runDir, '--headless', '--yes', '--approve', 'all', '--on-pause', 'continue'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) => {
      child.stdout!.once('data', () => {
        child.kill('SIGKILL');
        resolve();
      });
      child.on('exit', () => resolve());
    });
    expect(stderr).toContain(`${file}:${cut + 1}: skipped 4096 NUL bytes`);
    expect(readFileSync(file, 'utf8').length).toBeGreaterThan(all.join('\n').length + 4096);
  });
});
