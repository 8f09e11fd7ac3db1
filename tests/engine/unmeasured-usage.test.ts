// Unmeasured usage is unknown, never 0 (docs/design.md, "Budget"): a chat-completions server on
// loopback that sends no usage, turns that fail after spending tokens, a CLI agent whose run
// failed; and a run whose only bounds its agent can never move refuses to start.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Agent } from '../../src/engine/agents/agent.js';
import { CommandAgent } from '../../src/engine/agents/command.js';
import { OpenAIAgent } from '../../src/engine/agents/openai.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import { ConfigErrors } from '../../src/engine/errors.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0)) await clean();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-usage-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A chat-completions server on 127.0.0.1 answering each request with the next list of SSE chunks. */
async function loopback(replies: unknown[][]): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const chunks = replies.shift();
      if (!chunks) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'no reply queued' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const base = { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm' };
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
const usage = (prompt_tokens: number, completion_tokens: number) => ({ ...base, choices: [], usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } });
const call = (name: string, args: string) => [
  delta({ role: 'assistant', content: null }),
  delta({ tool_calls: [{ index: 0, id: 'x1', type: 'function', function: { name, arguments: args } }] }),
  delta({}, 'tool_calls'),
];
const text = (content: string) => [delta({ role: 'assistant', content }), delta({}, 'stop')];

function policyFor(dir: string, agent: Record<string, unknown>, budget: Record<string, unknown> = {}) {
  return parsePolicy(
    stringify({
      goal: { objective: 'make done.txt' },
      agent,
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'test -f done.txt' }],
      hooks: [],
      budget: { max_iterations: 10, max_tokens: 100_000, max_cost_usd: 5, ...budget },
      pricing: { input_per_million_usd: 1000, output_per_million_usd: 2000 },
    }),
    path.join(dir, 'loop.yaml'),
  );
}

async function run(dir: string, agent: Agent, agentSpec: Record<string, unknown>) {
  const events: LoopEvent[] = [];
  const session = new Session({ id: 's1', agent, policy: policyFor(dir, agentSpec), workspace: dir, sinks: [(e) => events.push(e)] });
  const outcome = await drive(session.run(newGoal('make done.txt')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  return { outcome, events, state: fold(events) };
}

const openaiSpec = { kind: 'openai', model: 'm', base_url: 'http://127.0.0.1:1/v1' };
const openai = (url: string) => new OpenAIAgent({ model: 'm', baseURL: url, apiKey: 'k', maxRetries: 1, streamRetryDelayMs: 1 });

describe('usage nobody reported', () => {
  it('a server that never sends usage: tokens and cost are unknown, not 0', async () => {
    const dir = tempDir();
    const url = await loopback([call('write_file', JSON.stringify({ path: 'done.txt', content: 'ok' })), text('done')]);
    const { outcome, state } = await run(dir, openai(url), openaiSpec);
    expect(outcome.reason).toBe('goal_met');
    expect(state.usage.tokens).toBe(0);
    expect([...state.unreported].sort()).toEqual(['cost_usd', 'tokens']);
  });

  it('usage reported on some answers only: counted where known, the rest unknown (a lower bound)', async () => {
    const dir = tempDir();
    const url = await loopback([[...call('write_file', JSON.stringify({ path: 'done.txt', content: 'ok' })), usage(100, 20)], text('done')]);
    const { state } = await run(dir, openai(url), openaiSpec);
    expect(state.usage.tokens).toBe(120);
    expect(state.usage.cost_usd).toBeCloseTo(0.14, 6);
    expect([...state.unreported].sort()).toEqual(['cost_usd', 'tokens']);
  });
});

describe('usage spent on a failed turn', () => {
  it('two invalid answers end the turn in an error; the tokens both spent are recorded and counted', async () => {
    const dir = tempDir();
    const url = await loopback([
      [...call('no_such_tool', '{}'), usage(100, 20)],
      [...call('no_such_tool', '{}'), usage(110, 30)],
    ]);
    const { outcome, events, state } = await run(dir, openai(url), openaiSpec);
    expect(outcome.reason).toBe('failed');
    expect(events.flatMap((e) => (e.type === 'agent.usage' ? [[e.data.turn, e.data.input_tokens, e.data.output_tokens]] : []))).toEqual([[1, 210, 50]]);
    expect(state.usage.tokens).toBe(260);
    expect(state.usage.cost_usd).toBeCloseTo(0.31, 6);
    expect(state.unreported).toEqual([]);
  });

  it('an answer the server ended with finish_reason "error" after reporting usage: counted though the request is retried', async () => {
    const dir = tempDir();
    const url = await loopback([
      [delta({ role: 'assistant', content: 'partial' }), delta({}, 'error'), usage(40, 5)],
      [...call('write_file', JSON.stringify({ path: 'done.txt', content: 'ok' })), usage(50, 10)],
      [...text('done'), usage(60, 2)],
    ]);
    const { outcome, state } = await run(dir, openai(url), openaiSpec);
    expect(outcome.reason).toBe('goal_met');
    expect(state.usage.tokens).toBe(45 + 60 + 62);
    expect(state.unreported).toEqual([]);
  });

  it('a CLI agent without structured output whose run failed: tokens and cost are unknown, not 0', async () => {
    const dir = tempDir();
    const script = path.join(dir, 'agent.sh');
    writeFileSync(script, '#!/bin/sh\necho working\nexit 3\n');
    chmodSync(script, 0o755);
    const spec = { kind: 'command', command: script, output: 'text' };
    const agent = new CommandAgent({ command: script, cwd: dir, timeoutSeconds: 30, output: 'text', prompt: 'stdin', outputLimit: 65536 });
    const { outcome, state } = await run(dir, agent, spec);
    expect(outcome.reason).toBe('failed');
    expect(outcome.summary).toMatch(/exited with code 3/);
    expect([...state.unreported].sort()).toEqual(['cost_usd', 'tokens']);
  });
});

describe('a run bounded only by what its agent cannot measure', () => {
  const onlyTokensAndCost = { max_iterations: 'unlimited', max_tool_calls: 'unlimited', max_wall_clock: 'unlimited', max_tokens: 1000, max_cost_usd: 1 };
  const refusal = (dir: string, agent: Record<string, unknown>, budget: Record<string, unknown>, pricing?: Record<string, unknown>) => {
    try {
      parsePolicy(
        stringify({
          goal: { objective: 'x' },
          agent,
          workspace: { path: '.', copy: 'none' },
          verify: [{ command: 'true' }],
          budget,
          ...(pricing ? { pricing } : {}),
        }),
        path.join(dir, 'loop.yaml'),
      );
      return null;
    } catch (error) {
      if (!(error instanceof ConfigErrors)) throw error;
      return error.message;
    }
  };

  it.each([
    ['text', { kind: 'command', command: 'sh', output: 'text' }, onlyTokensAndCost, /budget\.max_tokens cannot be measured for this agent: agent\.output: text reports no tokens.*budget\.max_cost_usd cannot be measured/],
    ['auto', { kind: 'command', command: 'sh' }, onlyTokensAndCost, /budget\.max_tokens cannot be measured for this agent: agent\.output is auto/],
    ['codex-json (no cost)', { kind: 'command', command: 'sh', output: 'codex-json' }, { ...onlyTokensAndCost, max_tokens: 'unlimited' }, /budget\.max_cost_usd cannot be measured for this agent: agent\.output: codex-json reports no cost/],
    ['text, tool calls', { kind: 'command', command: 'sh', output: 'text' }, { ...onlyTokensAndCost, max_tokens: 'unlimited', max_cost_usd: 'unlimited', max_tool_calls: 5 }, /budget\.max_tool_calls cannot be measured/],
    ['openai without prices', { kind: 'openai', model: 'm', base_url: 'http://127.0.0.1:1/v1' }, { ...onlyTokensAndCost, max_tokens: 'unlimited' }, /budget\.max_cost_usd cannot be measured for this agent: every price in pricing is 0/],
  ])('refuses to start (%s), naming the dimension and what would measure it', (_case, agent, budget, why) => {
    const message = refusal(tempDir(), agent, budget);
    expect(message).toMatch(/budget: expected a bound this agent can be measured against/);
    expect(message).toMatch(why);
  });

  it.each([
    ['claude-stream-json measures tokens and cost', { kind: 'command', command: 'sh', output: 'claude-stream-json' }, onlyTokensAndCost, undefined],
    ['turns bound a text CLI agent', { kind: 'command', command: 'sh', output: 'text' }, { ...onlyTokensAndCost, max_iterations: 5 }, undefined],
    ['openai with prices', { kind: 'openai', model: 'm', base_url: 'http://127.0.0.1:1/v1' }, onlyTokensAndCost, { input_per_million_usd: 1 }],
  ])('starts when something bounds it: %s', (_case, agent, budget, pricing) => {
    expect(refusal(tempDir(), agent, budget, pricing)).toBeNull();
  });
});
