// The openai agent end to end: the built CLI against a loopback server that speaks the
// chat-completions protocol (streamed SSE, tool calls, usage, one 429). No mocked SDK.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** The scripted model: first a streamed shell tool call, then a streamed final answer. */
const replies = [
  [
    chunk({ role: 'assistant', content: 'I will create ' }),
    chunk({ content: 'the file.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"command":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"echo fixed > done.txt"}' } }] }),
    chunk({}, 'tool_calls'),
    { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [], usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 } },
  ],
  [
    chunk({ role: 'assistant', content: 'done.txt exists; ' }),
    chunk({ content: 'the goal is met.' }),
    chunk({}, 'stop'),
    { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [], usage: { prompt_tokens: 2000, completion_tokens: 200, total_tokens: 2200 } },
  ],
];

let server: Server;
let dir: string;
const received: Array<{ messages: Array<{ role: string; content?: unknown; tool_call_id?: string }>; tools?: unknown[] }> = [];
let rateLimited = false;

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const part of req) text += part;
  return text;
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-openai-'));
  received.length = 0;
  rateLimited = false;
  server = createServer(async (req, res) => {
    const request = JSON.parse(await body(req));
    if (!rateLimited) {
      rateLimited = true;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '10' });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }));
      return;
    }
    received.push(request);
    const reply = replies[received.length - 1] ?? replies[1]!;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const part of reply) res.write(`data: ${JSON.stringify(part)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterEach(async () => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

it('drives a run to goal_met with tool calls, streamed text and usage; the budget counts tokens and cost', async () => {
  const { port } = server.address() as AddressInfo;
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: create done.txt }',
      `agent: { kind: openai, model: test-model, base_url: "http://127.0.0.1:${port}/v1" }`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "test -f done.txt" }]',
      'pricing: { input_per_million_usd: 3, output_per_million_usd: 15 }',
    ].join('\n'),
  );
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'all'], { cwd: dir, reject: false, env: { OPENAI_API_KEY: '' } });
  expect(result.exitCode, result.stderr).toBe(0);
  expect(existsSync(path.join(dir, 'done.txt'))).toBe(true);

  const events = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const calls = events.filter((e) => e.type === 'model.call');
  expect(calls.map((e) => e.data.usage)).toEqual([
    { input_tokens: 1000, output_tokens: 100 },
    { input_tokens: 2000, output_tokens: 200 },
  ]);
  expect(calls[0].data.response.thought).toBe('I will create the file.');
  const notices = events.filter((e) => e.type === 'agent.notice').map((e) => e.data.text);
  expect(notices).toHaveLength(1);
  expect(notices[0]).toMatch(/^retrying after 429/);
  expect(calls[0].data.response.tool_calls).toEqual([{ id: 't1.0', name: 'shell', args: { command: 'echo fixed > done.txt' } }]);
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met', summary: 'done.txt exists; the goal is met.' } });

  // The second request carried the tool result back under the call's id.
  const toolMessage = received[1]!.messages.find((m) => m.role === 'tool');
  expect(toolMessage?.tool_call_id).toBe('call_1');

  const runs = path.join(dir, '.loopdeck/runs');
  const replay = await execa('node', [cli, 'replay', path.join(runs, readdirSync(runs)[0]!, 'events.jsonl'), '--headless']);
  const state = JSON.parse(replay.stdout);
  expect(state.usage.tokens).toBe(3300);
  expect(state.usage.cost_usd).toBeCloseTo((3000 * 3 + 300 * 15) / 1e6, 10);
  expect(state.usage.turns).toBe(2);
});
