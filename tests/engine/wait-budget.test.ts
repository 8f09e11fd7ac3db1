// The wall-clock budget is kept while the run waits on a model or a tool, not only between
// steps: a stalled stream or a long tool is cancelled when the budget runs out, and the run
// pauses or aborts as budget.on_exhausted says, as it would at the start of a step. A pause
// asked for during the wait before a retry pauses the run at once. Whole runs from a
// loop.yaml, against a chat-completions server on 127.0.0.1 that stalls.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { drive, headlessAnswerer, type Answerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { loadPolicy } from '../../src/engine/policy.js';
import type { RunWait } from '../../src/engine/run/wait-guard.js';
import type { LoopOutcome } from '../../src/engine/session.js';
import { prepareRun, type PreparedRun } from '../../src/launch.js';
import { closeServer, listenOnLoopback } from '../support/loopback.js';

type Handler = (n: number, res: ServerResponse) => void;

let server: Server;
let url = '';
let handler: Handler = () => undefined;
let count = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handler(count++, res));
  });
  url = await listenOnLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
const line = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** Writes done.txt with one shell call, then (on the next request) says it is done. */
function work(n: number, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const call = { index: 0, id: 'c1', type: 'function', function: { name: 'shell', arguments: JSON.stringify({ command: 'echo d > done.txt' }) } };
  const body = n === 0 ? `${line({ tool_calls: [call] })}${line({}, 'tool_calls')}` : `${line({ content: 'Done.' })}${line({}, 'stop')}`;
  res.end(`${body}data: [DONE]\n\n`);
}

/** Headers and a first word, then silence. */
function stall(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(line({ role: 'assistant', content: 'Thinking' }));
}

interface Setup {
  agent: string;
  budget: string;
  files?: Record<string, string>;
}

async function prepare(setup: Setup, serve: Handler): Promise<PreparedRun> {
  handler = serve;
  count = 0;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-wait-budget-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(setup.files ?? {})) writeFileSync(path.join(dir, name), text);
  const file = path.join(dir, 'loop.yaml');
  writeFileSync(
    file,
    [
      'goal: { objective: create done.txt }',
      `agent: ${setup.agent}`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "test -f done.txt" }]',
      `budget: ${setup.budget}`,
    ].join('\n'),
  );
  return prepareRun(loadPolicy(file), { cwd: dir });
}

async function runTo(prepared: PreparedRun, answer: Answerer): Promise<{ outcome: LoopOutcome; events: LoopEvent[]; ms: number }> {
  const events: LoopEvent[] = [];
  prepared.session.subscribe((e) => events.push(e));
  const started = performance.now();
  const outcome = await drive(prepared.session.run(prepared.goal), answer);
  prepared.log.close();
  return { outcome, events, ms: performance.now() - started };
}

// Only keys every version knows: the stalls here outlast the test unless the budget ends them.
const openai = (retries = 0) => `{ kind: openai, model: m, base_url: "${url}", max_retries: ${retries} }`;
const exceeded = (events: LoopEvent[]) => events.filter((e) => e.type === 'budget.warn' && e.data.exceeded).map((e) => (e.type === 'budget.warn' ? e.data.dimension : ''));

describe('the wall clock runs out while the model stalls', () => {
  it('on_exhausted pause: the request is cancelled and the run pauses at the spent budget', { timeout: 15_000 }, async () => {
    const prepared = await prepare({ agent: openai(), budget: '{ max_wall_clock: 2s, on_exhausted: pause }' }, (_n, res) => stall(res));
    const prompts: string[] = [];
    const r = await runTo(prepared, (y) => {
      if (y.kind === 'pause') prompts.push(y.prompt);
      return headlessAnswerer({ approve: 'all', onPause: 'stop' })(y);
    });
    expect(r.ms).toBeLessThan(6_000);
    expect(exceeded(r.events)).toEqual(['wall_clock_seconds']);
    expect(prompts).toEqual([expect.stringMatching(/^The wall_clock budget is spent \(2(\.\d)?s of 2s\)\. Raise it \(\/budget wall_clock \+10m\) and continue, or stop\.$/)]);
    expect(r.outcome.reason).toBe('exhausted');
    expect(r.events.some((e) => e.type === 'model.call')).toBe(false);
  });

  it('on_exhausted abort: the run aborts (stash and report) as it would between steps', { timeout: 15_000 }, async () => {
    const prepared = await prepare({ agent: openai(), budget: '{ max_wall_clock: 2s, on_exhausted: abort }' }, (_n, res) => stall(res));
    const r = await runTo(prepared, headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(r.ms).toBeLessThan(6_000);
    expect(r.outcome.reason).toBe('aborted');
    expect(r.outcome.summary).toMatch(/the wall_clock budget is spent \(2(\.\d)?s of 2s\)/);
    expect(r.events.some((e) => e.type === 'abort.recorded')).toBe(true);
  });

  it('raising the budget at the pause asks the model again, and the run reaches its goal', { timeout: 15_000 }, async () => {
    const prepared = await prepare({ agent: openai(), budget: '{ max_wall_clock: 2s, on_exhausted: pause }' }, (n, res) => (n === 0 ? stall(res) : work(n - 1, res)));
    const r = await runTo(prepared, (y) => {
      if (y.kind === 'tool') return { decision: 'approve' };
      prepared.session.extendBudget('wall_clock_seconds', 60);
      return { action: 'continue' };
    });
    expect(r.outcome.reason).toBe('goal_met');
    expect(count).toBe(3);
  });
});

describe('the wall clock runs out while a tool runs', () => {
  it('the tool is killed (by the budget, not by a quit or an abort) and the run pauses at the spent budget', { timeout: 15_000 }, async () => {
    const transcript = 'turns:\n  - tool_calls:\n      - { id: t1, name: shell, args: { command: "sleep 30" } }\n  - final: Done.\n';
    const prepared = await prepare(
      { agent: '{ kind: scripted, script: transcript.yaml }', budget: '{ max_wall_clock: 2s, on_exhausted: pause }', files: { 'transcript.yaml': transcript } },
      () => undefined,
    );
    const r = await runTo(prepared, headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    expect(r.ms).toBeLessThan(8_000);
    const result = r.events.find((e) => e.type === 'tool.result');
    expect(result?.type === 'tool.result' && result.data.result).toMatchObject({ status: 'killed', killed: 'budget' });
    expect(result?.type === 'tool.result' && result.data.result.output).toContain('[loopdeck: killed the command (the wall-clock budget ran out)]');
    expect(exceeded(r.events)).toEqual(['wall_clock_seconds']);
    expect(r.outcome.reason).toBe('exhausted');
  });
});

describe('a pause asked for while waiting to retry', () => {
  it('ends the wait at once and pauses the run; continuing asks the model again', { timeout: 15_000 }, async () => {
    const prepared = await prepare({ agent: openai(3), budget: '{ max_wall_clock: 10m }' }, (n, res) => {
      if (n > 0) return work(n - 1, res);
      // More than max_retry_wait (1m by default): the wait is the cap, which the pause cuts short.
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' });
      res.end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    prepared.session.subscribe((e) => {
      if (e.type === 'agent.notice' && e.data.text.startsWith('retrying after 429')) prepared.session.requestPause();
    });
    const pauses: string[] = [];
    const r = await runTo(prepared, (y) => {
      if (y.kind === 'tool') return { decision: 'approve' };
      pauses.push(y.reason);
      return { action: 'continue' };
    });
    expect(r.ms).toBeLessThan(8_000);
    expect(pauses).toEqual(['operator']);
    expect(r.outcome.reason).toBe('goal_met');
    const types = r.events.map((e) => e.type);
    // The pause came before any turn was recorded: the step stayed open and asked again.
    expect(types.indexOf('session.pause')).toBeLessThan(types.indexOf('model.call'));
  });
});

describe('what the run waits on, as it waits', () => {
  it('the model (with its request limits), then the tool (with its limit), then nothing', { timeout: 15_000 }, async () => {
    const waits: Array<RunWait | null> = [];
    const prepared = await prepare({ agent: openai(), budget: '{ max_wall_clock: 10m }' }, work);
    prepared.onWait((w) => waits.push(w));
    await runTo(prepared, headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    const kinds = waits.map((w) => (w === null ? null : w.kind));
    expect(kinds.slice(0, 3)).toEqual(['model', 'model', null]);
    expect(kinds).toContain('tool');
    expect(kinds.at(-1)).toBeNull();
    const model = waits.find((w) => w?.kind === 'model' && w.model !== undefined);
    expect(model?.kind === 'model' && model.model).toMatchObject({ limit_ms: 600_000, idle_ms: 120_000 });
    const tool = waits.find((w) => w?.kind === 'tool');
    expect(tool).toMatchObject({ kind: 'tool', name: 'shell', limit_ms: 120_000 });
  });
});
