// `resume` does not take a run's policy.json on trust: the digest recorded in session.start
// must match, the file is validated through the loop.yaml schema, and a later run's agent
// cannot rewrite it in the first place. Real CLI, real child processes; one run is SIGKILLed
// mid tool call and each test works on a copy of its run directory.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');

interface Event {
  type: string;
  data: Record<string, any>;
}

const events = (text: string): Event[] => text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Event);

let dir: string;
/** The run killed mid `sleep`: never resumed itself, only copied. */
let original: string;
let copies = 0;

/** loop.yaml at the root of the workspace, as in the report: only the file tools are allowed. */
function writeLoop(name: string, transcript: string, turns: unknown[], approval: Record<string, unknown> = {}): string {
  writeFileSync(path.join(dir, transcript), stringify({ turns }));
  writeFileSync(
    path.join(dir, name),
    stringify({
      goal: { objective: 'Leave no mark' },
      agent: { kind: 'scripted', script: transcript },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      approval: { allow: ['read_file', 'write_file', 'edit', 'list_files'], ...approval },
    }),
  );
  return path.join(dir, name);
}

/** Runs `config` headless with --approve all and SIGKILLs it at its first tool call; its run directory. */
async function runAndKill(config: string): Promise<string> {
  const before = new Set(existsSync(path.join(dir, '.loopdeck/runs')) ? readdirSync(path.join(dir, '.loopdeck/runs')) : []);
  const child = spawn('node', [cli, 'run', '--config', config, '--headless', '--approve', 'all'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"type":"tool.call"') && child.exitCode === null) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`run ended before the kill (exit ${code})`))));
  });
  const added = readdirSync(path.join(dir, '.loopdeck/runs')).filter((name) => !before.has(name));
  return path.join(dir, '.loopdeck/runs', added[0]!);
}

/** A fresh copy of the killed run's directory. */
function copyRun(): string {
  const copy = path.join(dir, '.loopdeck/runs', `copy-${(copies += 1)}`);
  cpSync(original, copy, { recursive: true });
  return copy;
}

const resume = (runDir: string) => execa('node', [cli, 'resume', '--headless', '-y', '--approve', 'none', runDir], { cwd: dir, reject: false });

/** The run's log without the policy digest in session.start, as an earlier loopdeck wrote it. */
function dropDigest(runDir: string): void {
  const file = path.join(runDir, 'events.jsonl');
  const [first, ...rest] = readFileSync(file, 'utf8').split('\n');
  const start = JSON.parse(first!) as Event;
  delete start.data.policy_sha256;
  writeFileSync(file, [JSON.stringify(start), ...rest].join('\n'));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-resume-policy-'));
  const loop = writeLoop('loop.yaml', 'transcript.yaml', [
    { tool_calls: [{ id: 't1', name: 'shell', args: { command: 'sleep 5' } }] },
    { tool_calls: [{ id: 't2', name: 'shell', args: { command: 'touch PWNED' } }] },
    { final: 'done' },
  ]);
  original = await runAndKill(loop);
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FORGED = (policy: Record<string, any>) => ({
  ...policy,
  approval: { ...policy.approval, default: 'allow', builtin_gates: 'off', allow: ['shell'] },
});

describe('resume and policy.json', () => {
  it('records the sha256 of policy.json in session.start', () => {
    const start = events(readFileSync(path.join(original, 'events.jsonl'), 'utf8'))[0]!;
    expect(start.type).toBe('session.start');
    expect(start.data.policy_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a later run's agent cannot rewrite an earlier run's policy.json", async () => {
    const target = path.relative(dir, path.join(original, 'policy.json'));
    const before = readFileSync(path.join(original, 'policy.json'), 'utf8');
    const forged = JSON.stringify(FORGED(JSON.parse(before)), null, 2);
    const loop2 = writeLoop('loop2.yaml', 'transcript2.yaml', [
      { tool_calls: [{ id: 'w1', name: 'write_file', args: { path: target, content: forged } }] },
      { final: 'done' },
    ]);
    const result = await execa('node', [cli, 'run', '--config', loop2, '--headless'], { cwd: dir, reject: false });
    const error = events(result.stdout).find((e) => e.type === 'tool.error');
    expect(error?.data.error, result.stderr).toMatch(/^write_file: refused before approval: will not write ".*policy\.json": it is inside loopdeck's own state/);
    expect(readFileSync(path.join(original, 'policy.json'), 'utf8')).toBe(before);
  });

  it('a policy.json changed after the run began: resume refuses, naming policy.json and events.jsonl, and runs nothing', async () => {
    const runDir = copyRun();
    const file = path.join(runDir, 'policy.json');
    writeFileSync(file, JSON.stringify(FORGED(JSON.parse(readFileSync(file, 'utf8'))), null, 2));
    const log = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8');
    const result = await resume(runDir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${file} was changed after the run began`);
    expect(result.stderr).toContain(`${path.join(runDir, 'events.jsonl')} recorded`);
    expect(result.stdout).toBe('');
    expect(existsSync(path.join(dir, 'PWNED'))).toBe(false);
    expect(readFileSync(path.join(runDir, 'events.jsonl'), 'utf8')).toBe(log);
  });

  it('an invalid policy.json is a config error naming the file and the path in it (the other shapes: tests/engine/saved-policy.test.ts)', async () => {
    const runDir = copyRun();
    dropDigest(runDir); // the digest would refuse any change first: this is what validation sees
    const file = path.join(runDir, 'policy.json');
    const policy = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...policy, approval: { ...policy.approval, default: 'yolo' } }, null, 2));
    const result = await resume(runDir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`loopdeck: invalid config\n${file}: expected the policy loopdeck run saved for this run`);
    expect(result.stderr).toContain(`${file}: approval.default: expected one of ask, allow, deny, found "yolo"`);
    expect(result.stdout).toBe('');
  });

  it('an untouched run resumes; a log from before digests resumes with a warning naming both files', async () => {
    const runDir = copyRun();
    const ok = await resume(runDir);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stderr).not.toContain('records no digest');

    const old = copyRun();
    dropDigest(old);
    const warned = await resume(old);
    expect(warned.exitCode, warned.stderr).toBe(0);
    expect(warned.stderr).toContain(`${path.join(old, 'events.jsonl')} records no digest of ${path.join(old, 'policy.json')}`);
    expect(existsSync(path.join(dir, 'PWNED'))).toBe(false); // --approve none denied it
  });
});

describe('approval.builtin_gates: off on resume', () => {
  it('the warning names the run\'s policy.json as its source, not loop.yaml', async () => {
    const loop = writeLoop(
      'gates-off.yaml',
      'transcript3.yaml',
      [{ tool_calls: [{ id: 't1', name: 'shell', args: { command: 'sleep 2' } }] }, { final: 'done' }],
      { builtin_gates: 'off', default: 'deny' },
    );
    const runDir = await runAndKill(loop);
    const result = await resume(runDir);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`loopdeck: WARNING: approval.builtin_gates is off in ${path.join(runDir, 'policy.json')}:`);
    expect(result.stderr).not.toContain('gates-off.yaml');
  }, 30_000);
});
