// A key goes only to the host it belongs to, and never into a file or stream: the built CLI
// against a loopback chat-completions server that records every request's headers.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ENVIRON_WALK } from '../support/environ-walk.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
/** Matches no known key format: only its value tells it is a secret. */
const LLM_KEY = 'llm-access-7c1f0e9d2b4a6e85';
const OPENAI_KEY = 'sk-proj-OnlyForOpenAI0123456789abcdefghijKLMN';

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

function stream(res: ServerResponse, parts: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const part of parts) res.write(`data: ${JSON.stringify(part)}\n\n`);
  res.end('data: [DONE]\n\n');
}

let server: Server;
let dir: string;
let url: string;
const requests: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
let answer: (index: number, res: ServerResponse) => void;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-keys-'));
  requests.length = 0;
  server = createServer(async (req, res) => {
    let body = '';
    for await (const part of req) body += part;
    requests.push({ headers: req.headers, body });
    answer(requests.length - 1, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterEach(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeLoop(agent: string): void {
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    ['goal: { objective: talk to the model }', `agent: ${agent}`, 'workspace: { path: ., copy: none }', 'verify: [{ command: "true" }]', 'approval: { default: allow }'].join('\n'),
  );
}

function run(env: Record<string, string>) {
  return execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'all'], { cwd: dir, env, reject: false });
}

it("sends OPENAI_API_KEY to no base_url but OpenAI's: a custom endpoint without api_key_env gets no key at all", async () => {
  answer = (_i, res) => stream(res, [chunk({ role: 'assistant', content: 'done' }), chunk({}, 'stop')]);
  writeLoop(`{ kind: openai, model: m, base_url: "${url}", max_retries: 0 }`);
  const result = await run({ OPENAI_API_KEY: OPENAI_KEY });
  expect(result.exitCode, result.stderr).toBe(0);
  expect(requests).toHaveLength(1);
  expect(requests[0]!.headers).not.toHaveProperty('authorization');
  expect(JSON.stringify(requests[0])).not.toContain(OPENAI_KEY);
});

it.skipIf(process.platform !== 'linux')(
  'sends the key api_key_env names to its base_url, hides it from tools and redacts it (an ordinary name) from the log and the final line echoing a 401',
  async () => {
    writeFileSync(path.join(dir, 'walk.sh'), ENVIRON_WALK);
    answer = (i, res) => {
      if (i === 0) {
        stream(res, [
          chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"command":"sh walk.sh dump.txt"}' } }] }),
          chunk({}, 'tool_calls'),
        ]);
        return;
      }
      // A server that echoes the key it was given in its error, as some do.
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${LLM_KEY}.`, type: 'invalid_request_error' } }));
    };
    writeLoop(`{ kind: openai, model: m, base_url: "${url}", api_key_env: LLM_ACCESS, max_retries: 0 }`);
    const result = await run({ LLM_ACCESS: LLM_KEY, OPENAI_API_KEY: OPENAI_KEY, LOOPDECK_TEST_MARKER: 'visible' });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${LLM_KEY}`, `Bearer ${LLM_KEY}`]);

    const dump = readFileSync(path.join(dir, 'dump.txt'), 'utf8');
    expect(dump).toContain('LOOPDECK_TEST_MARKER=visible'); // loopdeck's own environment was read
    const finalLines = result.stderr.split('\n').filter((line) => /^loopdeck: \w+: /.test(line));
    expect(finalLines.join('\n')).toMatch(/401/);
    const runs = path.join(dir, '.loopdeck/runs');
    const log = readFileSync(path.join(runs, readdirSync(runs)[0]!, 'events.jsonl'), 'utf8');
    expect(log).toContain('Incorrect API key provided: [REDACTED]');
    for (const [sink, text] of Object.entries({ dump, stdout: result.stdout, stderr: result.stderr, 'events.jsonl': log })) {
      expect(text, sink).not.toContain(LLM_KEY);
      expect(text, sink).not.toContain(OPENAI_KEY);
    }
  },
);

it('refuses a loop.yaml whose api_key_env names an unset variable, in validate and in run, naming it', async () => {
  answer = (_i, res) => stream(res, [chunk({ content: 'done' }), chunk({}, 'stop')]);
  writeLoop(`{ kind: openai, model: m, base_url: "${url}", api_key_env: MY_LLM_KEY_VAR }`);
  const validate = await execa('node', [cli, 'validate', 'loop.yaml'], { cwd: dir, env: { OPENAI_API_KEY: OPENAI_KEY }, reject: false });
  const started = await run({ OPENAI_API_KEY: OPENAI_KEY });
  for (const result of [validate, started]) {
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/agent\.api_key_env: expected the environment variable MY_LLM_KEY_VAR to hold the API key, found it is not set/);
  }
  expect(requests).toHaveLength(0);
});
