// `loopdeck attach` answering a headless run started `--approve attached`: a real headless
// run of the built CLI waits at each approval prompt while the built CLI, attached in a
// pseudo-terminal, answers over the run's socket: `y` runs one call, `d` with a note denies
// the other and the agent is told the note. Without a console the prompt is denied by policy
// once approval.timeout has passed; an answer with a wrong token or for a prompt not pending
// now is refused. Needs `npm run build` (dist/cli.js).
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { stringify } from 'yaml';
import { afterEach, expect, it } from 'vitest';
import { CLI, childEnv, KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';

interface LogEvent {
  seq: number;
  type: string;
  data: Record<string, any>;
}

const terminals: PtyTerminal[] = [];
const dirs: string[] = [];
const runs: ResultPromise[] = [];

afterEach(async () => {
  for (const t of terminals.splice(0)) await t.close();
  for (const r of runs.splice(0)) {
    r.kill('SIGKILL');
    await r.catch(() => undefined);
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Waits until `check` holds (polled), or fails naming `what`. */
async function until<T>(check: () => T | null | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A workspace whose scripted agent makes two shell calls, each needing approval. */
function project(timeout: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-attach-answer-'));
  dirs.push(dir);
  writeFileSync(
    path.join(dir, 'transcript.yaml'),
    stringify({
      turns: [
        { tool_calls: [{ id: 't1', name: 'shell', args: { command: 'echo one > one.txt' } }] },
        { tool_calls: [{ id: 't2', name: 'shell', args: { command: 'echo two > two.txt' } }] },
        { final: 'done' },
      ],
    }),
  );
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    stringify({
      goal: { objective: 'write two files' },
      agent: { kind: 'scripted', script: 'transcript.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      approval: { default: 'ask', timeout },
    }),
  );
  return dir;
}

function startRun(dir: string): ResultPromise {
  const run = execa('node', [CLI, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'attached'], { cwd: dir, env: childEnv(), reject: false });
  runs.push(run);
  return run;
}

function runDirOf(dir: string): string | undefined {
  const root = path.join(dir, '.loopdeck/runs');
  const [name] = existsSync(root) ? readdirSync(root) : [];
  return name === undefined ? undefined : path.join(root, name);
}

function logOf(runDir: string): LogEvent[] {
  const file = path.join(runDir, 'events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.endsWith('}'))
    .map((line) => JSON.parse(line) as LogEvent);
}

const decisionOf = (log: LogEvent[], id: string) => log.find((e) => e.type === 'tool.decision' && e.data.call_id === id)?.data;
const resultOf = (log: LogEvent[], id: string) => log.find((e) => e.type === 'tool.result' && e.data.result.call_id === id)?.data.result;

/** The run's socket record, once it says the run takes attached answers. */
async function bridgeOf(dir: string): Promise<{ runDir: string; socket: string; token_file: string; run: string }> {
  return until(() => {
    const runDir = runDirOf(dir);
    const file = runDir && path.join(runDir, 'bridge.json');
    if (!file || !existsSync(file)) return null;
    try {
      const record = JSON.parse(readFileSync(file, 'utf8'));
      return record.answers === true ? { runDir: runDir!, ...record } : null;
    } catch {
      return null; // written as we read
    }
  }, 'bridge.json saying the run takes attached answers');
}

/** One line sent to the socket, the reply line parsed. */
function ask(socket: string, message: unknown): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket);
    let text = '';
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(`${JSON.stringify(message)}\n`));
    conn.on('data', (chunk: string) => (text += chunk));
    conn.on('end', () => resolve(JSON.parse(text)));
    conn.on('error', reject);
  });
}

const PROMPT = /Approve tool call (\S+) \((\S+)\)/;

it('an attached console answers a headless run: y runs one call, d with a note denies the other and the agent gets the note', { timeout: 90_000 }, async () => {
  const dir = project('60s');
  const run = startRun(dir);
  const bridge = await bridgeOf(dir);

  const t = startPty({ args: ['attach', bridge.runDir], cols: 120, rows: 40, cwd: dir });
  terminals.push(t);
  // How the console stands is information, and an answer the run took a success: neither is marked as a failure.
  const opened = await t.waitFor("attached: your keys answer this run's prompts");
  expect(opened).not.toContain('✗ attached');
  await t.waitUntil((s) => PROMPT.test(s) && /\[y\] approve/.test(s) && s.includes('echo one > one.txt'), 'an armed prompt for t1', 30_000);
  t.press('y');
  await until(() => resultOf(logOf(bridge.runDir), 't1'), 'the result of t1');
  const taken = await t.waitFor('the run took the answer: approved call t1');
  expect(taken).toContain('✓ the run took the answer: approved call t1');
  await t.waitUntil((s) => PROMPT.test(s) && /\[y\] approve/.test(s) && s.includes('echo two > two.txt'), 'an armed prompt for t2', 30_000);
  t.press('d');
  await t.waitFor('note to the agent');
  await t.type('use the fixture instead', (typed) => `› ${typed}`);
  t.press(KEY.enter);

  const ended = await run;
  expect(ended.exitCode, String(ended.stderr)).toBe(0);
  const log = logOf(bridge.runDir);
  expect(decisionOf(log, 't1')).toMatchObject({ decision: 'approve' });
  expect(readFileSync(path.join(dir, 'one.txt'), 'utf8')).toBe('one\n');
  expect(decisionOf(log, 't2')).toMatchObject({ decision: 'deny', note: 'use the fixture instead' });
  expect(existsSync(path.join(dir, 'two.txt'))).toBe(false);
  // What the agent is handed back for the denied call carries the note.
  expect(JSON.stringify(resultOf(log, 't2'))).toContain('use the fixture instead');
  expect(ended.stderr).not.toContain('no attached console answered');
  t.press('q');
  expect((await t.exit).code).toBe(0);
});

it('with no console attached each prompt is denied by policy once approval.timeout has passed, and the log says why', { timeout: 30_000 }, async () => {
  const dir = project('1s');
  const started = Date.now();
  const ended = await startRun(dir);
  expect(ended.exitCode, String(ended.stderr)).toBe(0);
  expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  const log = logOf(runDirOf(dir)!);
  for (const id of ['t1', 't2']) {
    expect(decisionOf(log, id)).toMatchObject({ decision: 'deny', by: 'policy', note: expect.stringMatching(/^no attached console answered within 1s; denied by policy/) });
  }
  expect(existsSync(path.join(dir, 'one.txt'))).toBe(false);
  expect(ended.stderr).toContain('no attached console answered within 1s: call t1 (shell) answered by policy');
});

it('an answer with a wrong token, for a prompt not pending now, or not fitting the prompt is refused; the right one is taken', { timeout: 30_000 }, async () => {
  const dir = project('20s');
  const run = startRun(dir);
  const bridge = await bridgeOf(dir);
  const token = readFileSync(bridge.token_file, 'utf8').trim();
  const asked = await until(() => logOf(bridge.runDir).find((e) => e.type === 'step.end' && e.data.outcome === 'awaiting_tool'), 'the prompt for t1');
  const answer = (over: Record<string, unknown>) => ask(bridge.socket, { v: 1, type: 'answer', run: bridge.run, token, seq: asked.seq, answer: { decision: 'approve' }, ...over });

  expect(await answer({ token: '0'.repeat(64) })).toEqual({ v: 1, type: 'answer', ok: false, reason: 'wrong token for this run' });
  expect(await answer({ run: 'another-run' })).toMatchObject({ ok: false, reason: expect.stringContaining('this socket serves') });
  expect(await answer({ seq: asked.seq - 1 })).toMatchObject({ ok: false, reason: `event ${asked.seq - 1} is not the prompt pending now (event ${asked.seq} is)` });
  expect(await answer({ seq: 'latest' })).toMatchObject({ ok: false });
  expect(await answer({ answer: { decision: 'approve', always: 'shell' } })).toMatchObject({ ok: false, reason: expect.stringContaining('"always" must be a rule offered') });
  expect(await answer({ answer: { action: 'continue' } })).toMatchObject({ ok: false });
  expect(logOf(bridge.runDir).some((e) => e.type === 'tool.decision')).toBe(false);

  expect(await answer({ answer: { decision: 'deny', note: 'not now' } })).toMatchObject({ ok: true });
  // The same prompt answered again: it is no longer pending.
  expect(await answer({ answer: { decision: 'approve' } })).toMatchObject({ ok: false });
  await until(() => decisionOf(logOf(bridge.runDir), 't1'), 'the decision on t1');
  expect(decisionOf(logOf(bridge.runDir), 't1')).toMatchObject({ decision: 'deny', note: 'not now' });
  run.kill('SIGTERM');
  await run;
});

it('resume --approve attached opens a new socket with a new token and takes answers for the prompt asked again', { timeout: 40_000 }, async () => {
  const dir = project('20s');
  const first = startRun(dir);
  const before = await bridgeOf(dir);
  const oldToken = readFileSync(before.token_file, 'utf8').trim();
  await until(() => logOf(before.runDir).find((e) => e.type === 'step.end' && e.data.outcome === 'awaiting_tool'), 'the prompt for t1');
  // A quit while the prompt waits for a console does not wait for the answer.
  const quitAt = Date.now();
  first.kill('SIGTERM');
  expect((await first).exitCode).toBe(130);
  expect(Date.now() - quitAt).toBeLessThan(3000);
  expect(existsSync(path.join(before.runDir, 'bridge.json'))).toBe(false);

  const resumed = execa('node', [CLI, 'resume', before.runDir, '--headless', '-y', '--approve', 'attached'], { cwd: dir, env: childEnv(), reject: false });
  runs.push(resumed);
  const after = await bridgeOf(dir);
  expect(after.socket).not.toBe(before.socket);
  const reasked = await until(() => logOf(after.runDir).find((e) => e.type === 'session.resume'), 'the resume');
  const answer = (token: string, decision: string, seq: number) => ask(after.socket, { v: 1, type: 'answer', run: after.run, token, seq, answer: { decision } });
  // The old run's token does not answer the new one.
  expect(await until(async () => answer(oldToken, 'approve', reasked.seq), 'a reply')).toMatchObject({ ok: false, reason: 'wrong token for this run' });
  const token = readFileSync(after.token_file, 'utf8').trim();
  expect(await until(async () => {
    const reply = await answer(token, 'approve', reasked.seq);
    return reply.ok ? reply : null;
  }, 'the answer taken')).toMatchObject({ ok: true });
  const second = await until(() => logOf(after.runDir).find((e) => e.type === 'step.end' && e.data.outcome === 'awaiting_tool' && e.seq > reasked.seq), 'the prompt for t2');
  expect(await answer(token, 'deny', second.seq)).toMatchObject({ ok: true });
  const ended = await resumed;
  expect(ended.exitCode, String(ended.stderr)).toBe(0);
  expect(readFileSync(path.join(dir, 'one.txt'), 'utf8')).toBe('one\n');
  expect(existsSync(path.join(dir, 'two.txt'))).toBe(false);
});

it("a CLI agent's bridged calls wait for the attached answer on the same socket: one approved, one denied with the note the CLI hears", { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-attach-cli-'));
  dirs.push(dir);
  copyFileSync(path.join(import.meta.dirname, '../fixtures/bridge/fake-claude.mjs'), path.join(dir, 'fake-claude.mjs'));
  writeFileSync(
    path.join(dir, 'calls.json'),
    JSON.stringify([
      { id: 'toolu_01', command: 'echo approved > approved.txt' },
      { id: 'toolu_02', command: 'echo denied > denied.txt' },
    ]),
  );
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: write the two files }',
      'agent: { kind: command, command: node fake-claude.mjs, output: claude-stream-json, timeout: 60s }',
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "true" }]',
      'approval: { default: ask, timeout: 20s }',
    ].join('\n'),
  );
  const run = startRun(dir);
  const bridge = await bridgeOf(dir);
  const token = readFileSync(bridge.token_file, 'utf8').trim();
  const answer = (seq: number, decision: Record<string, unknown>) => ask(bridge.socket, { v: 1, type: 'answer', run: bridge.run, token, seq, answer: decision });
  const asks = () => logOf(bridge.runDir).filter((e) => e.type === 'tool.ask');
  const first = await until(() => asks()[0], 'the ask of toolu_01');
  expect(await answer(first.seq, { decision: 'approve' })).toMatchObject({ ok: true });
  const second = await until(() => asks()[1], 'the ask of toolu_02');
  expect(await answer(second.seq, { decision: 'deny', note: 'use the fixture instead' })).toMatchObject({ ok: true });
  const ended = await run;
  expect(ended.exitCode, String(ended.stderr)).toBe(0);
  expect(readFileSync(path.join(dir, 'approved.txt'), 'utf8')).toBe('approved\n');
  expect(existsSync(path.join(dir, 'denied.txt'))).toBe(false);
  const heard = readFileSync(path.join(dir, 'fake-claude.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(heard.map((h) => [h.id, h.answer?.permissionDecision])).toEqual([
    ['toolu_01', 'allow'],
    ['toolu_02', 'deny'],
  ]);
  expect(heard[1].answer.permissionDecisionReason).toContain('use the fixture instead');
});
