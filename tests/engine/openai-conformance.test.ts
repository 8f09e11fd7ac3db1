// Conformance of the `openai` agent with real OpenAI-compatible servers: each scenario is a
// small named replay of a behaviour documented in a server's own docs or bug reports, served
// by a chat-completions server on 127.0.0.1 in this process, and a whole run in-process
// (prepareRun + drive, as `loopdeck run --headless --approve all` does). Each asserts what
// ran (tool and arguments), the usage and cost recorded, the exit code and the message.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold, type SessionState } from '../../src/engine/fold.js';
import { readLog } from '../../src/engine/log.js';
import { loadPolicy } from '../../src/engine/policy.js';
import type { LoopOutcome } from '../../src/engine/session.js';
import { EXIT, exitCodeOfRun } from '../../src/exit-codes.js';
import { prepareRun } from '../../src/launch.js';
import { closeServer, listenOnLoopback } from '../support/loopback.js';

/** One line of an event stream: an object is sent as `data: <json>`, a string as written. */
type Line = unknown;

/** What the server answers to one request. */
type Reply =
  | { sse: Line[]; done?: boolean; cut?: boolean }
  | { status: number; body: unknown; headers?: Record<string, string> };

interface RequestBody {
  messages: Array<{
    role: string;
    content?: string | null;
    tool_call_id?: string;
    reasoning_content?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  max_tokens?: number;
}

/** Answers request `n` (0-based) of the run; `undefined`: the closing "Done." */
type Script = (n: number, body: RequestBody) => Reply | undefined;

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'test-model' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
const usage = (prompt_tokens: number, completion_tokens: number, extra: Record<string, unknown> = {}) => ({
  ...base,
  choices: [],
  usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens, ...extra },
});
const call = (index: number, id: string | undefined, name: string | undefined, args: unknown) => ({
  index,
  ...(id !== undefined ? { id, type: 'function' } : {}),
  function: { ...(name !== undefined ? { name } : {}), arguments: args },
});
const done = (text = 'Done.'): Reply => ({ sse: [chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), usage(10, 2)] });
const shell = (command: string) => JSON.stringify({ command });
/** A response that runs one shell call writing done.txt. */
const writeDone: Reply = { sse: [chunk({ tool_calls: [call(0, 'c1', 'shell', shell('echo d > done.txt'))] }), chunk({}, 'tool_calls'), usage(10, 1)] };

let server: Server;
let url = '';
let script: Script = () => undefined;
let received: RequestBody[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => (raw += part));
    req.on('end', () => {
      const body = JSON.parse(raw) as RequestBody;
      received.push(body);
      const reply = script(received.length - 1, body) ?? done();
      if ('status' in reply) {
        const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, { 'content-type': typeof reply.body === 'string' ? 'text/html' : 'application/json', ...reply.headers });
        res.end(text);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const line of reply.sse) res.write(typeof line === 'string' ? `${line}\n\n` : `data: ${JSON.stringify(line)}\n\n`);
      if (reply.cut) {
        // A connection reset mid-stream: the client sees `terminated`.
        setTimeout(() => res.socket?.destroy(), 5);
        return;
      }
      res.end(reply.done === false ? '' : 'data: [DONE]\n\n');
    });
  });
  url = await listenOnLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

interface Run {
  outcome: LoopOutcome;
  exit: number;
  events: LoopEvent[];
  /** `[tool, args]` of every call that was dispatched, in order. */
  ran: Array<[string, Record<string, unknown>]>;
  notices: string[];
  state: SessionState;
  dir: string;
}

/** loop.yaml additions: `agent` and `pricing` replace parts of the defaults, `lines` are appended. */
interface Setup {
  agent?: string;
  pricing?: string;
  lines?: string[];
}

/** Runs a whole loop against the scripted server. */
async function run(serve: Script, setup: Setup = {}): Promise<Run> {
  script = serve;
  received = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-conformance-'));
  dirs.push(dir);
  const file = path.join(dir, 'loop.yaml');
  writeFileSync(
    file,
    [
      'goal: { objective: create done.txt }',
      `agent: { kind: openai, model: test-model, base_url: "${url}", ${setup.agent ?? 'max_retries: 2'} }`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "test -f done.txt" }]',
      `pricing: { ${setup.pricing ?? 'input_per_million_usd: 3, output_per_million_usd: 15'} }`,
      'budget: { max_iterations: 8 }',
      ...(setup.lines ?? []),
    ].join('\n'),
  );
  const prepared = await prepareRun(loadPolicy(file), { cwd: dir });
  const outcome = await drive(prepared.session.run(prepared.goal), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  prepared.log.close();
  const { events } = readLog(prepared.log.file);
  return {
    outcome,
    exit: exitCodeOfRun(outcome),
    events,
    ran: events.flatMap((e) => (e.type === 'tool.call' ? [[e.data.call.name, e.data.call.args] as [string, Record<string, unknown>]] : [])),
    notices: events.flatMap((e) => (e.type === 'agent.notice' ? [e.data.text] : [])),
    state: fold(events),
    dir,
  };
}

const modelCalls = (r: Run) => r.events.flatMap((e) => (e.type === 'model.call' ? [e.data] : []));

describe('behaviours that worked before: still handled', () => {
  it('fragmented arguments (OpenAI): one call streamed in many pieces', async () => {
    const r = await run((n) =>
      n === 0
        ? {
            sse: [
              chunk({ role: 'assistant', content: null, tool_calls: [call(0, 'call_a', 'shell', '')] }),
              ...['{"comm', 'and": "echo hi', ' > done.txt"}'].map((a) => chunk({ tool_calls: [{ index: 0, function: { arguments: a } }] })),
              chunk({}, 'tool_calls'),
              usage(100, 10),
            ],
          }
        : undefined,
    );
    expect(r.ran).toEqual([['shell', { command: 'echo hi > done.txt' }]]);
    expect(r.exit).toBe(EXIT.goalMet);
    expect(r.outcome.summary).toBe('Done.');
    expect(r.state.usage.tokens).toBe(122);
    expect(r.state.usage.cost_usd).toBeCloseTo((110 * 3 + 12 * 15) / 1e6, 12);
  });

  it('parallel calls by index, text plus tool calls, usage in the last chunk', async () => {
    const r = await run((n) =>
      n === 0
        ? {
            sse: [
              chunk({ role: 'assistant', content: 'Two files.' }),
              chunk({ tool_calls: [call(0, 'call_1', 'write_file', '{"path":"a.txt",'), call(1, 'call_2', 'shell', '')] }),
              chunk({ tool_calls: [{ index: 1, function: { arguments: shell('echo b > done.txt') } }] }),
              chunk({ tool_calls: [{ index: 0, function: { arguments: '"content":"A"}' } }] }),
              chunk({}, 'tool_calls'),
              usage(50, 5),
            ],
          }
        : undefined,
    );
    expect(r.ran).toEqual([
      ['write_file', { path: 'a.txt', content: 'A' }],
      ['shell', { command: 'echo b > done.txt' }],
    ]);
    expect(modelCalls(r)[0]!.response.thought).toBe('Two files.');
    expect(modelCalls(r)[0]!.usage).toEqual({ input_tokens: 50, output_tokens: 5 });
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('Ollama: whole calls in one chunk, finish_reason "stop", no ids', async () => {
    const r = await run((n) =>
      n === 0
        ? {
            sse: [
              chunk({ role: 'assistant', content: '', tool_calls: [{ index: 0, function: { name: 'shell', arguments: shell('echo o > done.txt') } }] }, null),
              chunk({ content: '' }, 'stop'),
              usage(30, 3),
            ],
          }
        : undefined,
    );
    expect(r.ran).toEqual([['shell', { command: 'echo o > done.txt' }]]);
    // The result went back under an id that the assistant message carries too.
    const sent = received[1]!.messages;
    const assistant = sent.find((m) => m.tool_calls)!;
    expect(sent.find((m) => m.role === 'tool')!.tool_call_id).toBe(assistant.tool_calls![0]!.id);
    expect(assistant.tool_calls![0]!.id).not.toBe('');
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('429, 500 and 503 are retried with the server-given delay; the retries are told', async () => {
    const failures = [429, 500, 503];
    const r = await run((n) =>
      n < 3
        ? { status: failures[n]!, headers: { 'retry-after-ms': '5' }, body: { error: { message: `busy ${failures[n]}` } } }
        : n === 3
          ? { sse: [chunk({ tool_calls: [call(0, 'c', 'shell', shell('echo x > done.txt'))] }), chunk({}, 'tool_calls'), usage(10, 1)] }
          : undefined,
      { agent: 'max_retries: 3' },
    );
    expect(r.ran).toEqual([['shell', { command: 'echo x > done.txt' }]]);
    expect(r.notices).toEqual([
      expect.stringMatching(/^retrying after 429 Too Many Requests: busy 429 \(retry 1 of 3, in 5 ms\)$/),
      expect.stringMatching(/^retrying after 500 Internal Server Error: busy 500 \(retry 2 of 3/),
      expect.stringMatching(/^retrying after 503 Service Unavailable: busy 503 \(retry 3 of 3/),
    ]);
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('404 model: the run ends with the server\'s words and what they mean', async () => {
    const r = await run(() => ({ status: 404, body: { error: { message: 'The model `test-model` does not exist', type: 'invalid_request_error', code: 'model_not_found' } } }));
    expect(r.ran).toEqual([]);
    expect(r.exit).toBe(EXIT.notMet);
    expect(r.outcome.reason).toBe('failed');
    expect(r.outcome.summary).toMatch(/HTTP 404: The model `test-model` does not exist \(type invalid_request_error, code model_not_found\) — the server does not serve the model "test-model"/);
  });
});

describe('tool-call identity (ids are the server\'s, not unique)', () => {
  it('two calls with the same id in one response both run, and each result goes back under its own id', async () => {
    const r = await run((n) =>
      n === 0
        ? {
            sse: [
              chunk({ tool_calls: [call(0, 'call_0', 'write_file', JSON.stringify({ path: 'a.txt', content: 'A' }))] }),
              chunk({ tool_calls: [call(1, 'call_0', 'shell', shell('echo b > done.txt'))] }),
              chunk({}, 'tool_calls'),
              usage(10, 1),
            ],
          }
        : undefined,
    );
    expect(r.ran).toEqual([
      ['write_file', { path: 'a.txt', content: 'A' }],
      ['shell', { command: 'echo b > done.txt' }],
    ]);
    expect(readFileSync(path.join(r.dir, 'a.txt'), 'utf8')).toBe('A');
    const ids = r.events.flatMap((e) => (e.type === 'tool.call' ? [e.data.call.id] : []));
    expect(ids).toEqual(['t1.0', 't1.1']);
    const sent = received[1]!.messages;
    const answered = sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    const asked = sent.find((m) => m.tool_calls)!.tool_calls!.map((c) => c.id);
    expect(new Set(asked).size).toBe(2);
    expect(answered.sort()).toEqual([...asked].sort());
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('an id reused every turn: every call is recorded, replay keeps each, and the repetition guard sees the repeats', async () => {
    const readAgain: Reply = {
      sse: [chunk({ tool_calls: [call(0, 'read_file:0', 'read_file', JSON.stringify({ path: 'loop.yaml' }))] }), chunk({}, 'tool_calls'), usage(10, 1)],
    };
    const r = await run((n) => (n < 3 ? readAgain : undefined), { lines: ['repetition: { window: 5, threshold: 3, on_detect: stop }'] });
    expect(r.events.filter((e) => e.type === 'repetition.detected')).toHaveLength(1);
    expect(r.ran.map(([name]) => name)).toEqual(['read_file', 'read_file']);
    expect(r.state.toolOrder).toEqual(['t1.0', 't2.0']);
    expect(r.state.tools.size).toBe(2);
    expect(r.exit).toBe(EXIT.notMet);
    expect(r.outcome.reason).toBe('stopped');
  });
});

describe('stream merging by the protocol', () => {
  it('a server that repeats the function name in every delta', async () => {
    const r = await run((n) =>
      n === 0
        ? {
            sse: [
              ...['{"path":"done.txt",', '"content":"x"}'].map((a) => chunk({ tool_calls: [call(0, 'c1', 'write_file', a)] })),
              chunk({}, 'tool_calls'),
              usage(10, 1),
            ],
          }
        : undefined,
    );
    expect(r.ran).toEqual([['write_file', { path: 'done.txt', content: 'x' }]]);
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('arguments sent as a JSON object', async () => {
    const r = await run((n) =>
      n === 0 ? { sse: [chunk({ tool_calls: [call(0, 'c1', 'shell', { command: 'echo o > done.txt' })] }), chunk({}, 'tool_calls'), usage(10, 1)] } : undefined,
    );
    expect(r.ran).toEqual([['shell', { command: 'echo o > done.txt' }]]);
    expect(received[1]!.messages.find((m) => m.tool_calls)!.tool_calls![0]!.function.arguments).toBe('{"command":"echo o > done.txt"}');
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('a gateway that puts all parallel calls at index 0 (different ids, or the same name and no id)', async () => {
    const r = await run((n) =>
      n === 0
        ? {
            sse: [
              chunk({ tool_calls: [call(0, 'x1', 'write_file', JSON.stringify({ path: 'a.txt', content: 'A' }))] }),
              chunk({ tool_calls: [call(0, 'x2', 'write_file', JSON.stringify({ path: 'b.txt', content: 'B' }))] }),
              chunk({ tool_calls: [call(0, undefined, 'write_file', JSON.stringify({ path: 'done.txt', content: 'D' }))] }),
              chunk({}, 'tool_calls'),
              usage(10, 1),
            ],
          }
        : undefined,
    );
    expect(r.ran).toEqual([
      ['write_file', { path: 'a.txt', content: 'A' }],
      ['write_file', { path: 'b.txt', content: 'B' }],
      ['write_file', { path: 'done.txt', content: 'D' }],
    ]);
    expect(r.exit).toBe(EXIT.goalMet);
  });
});

describe('reasoning', () => {
  it('DeepSeek reasoning_content is kept, sent back (the server requires it), and recorded as reported', async () => {
    const r = await run((n, body) => {
      const dropped = body.messages.some((m) => m.role === 'assistant' && m.tool_calls && !m.reasoning_content);
      if (dropped) {
        return { status: 400, body: { error: { message: 'The reasoning_content in the thinking mode must be passed back to the API.', type: 'invalid_request_error' } } };
      }
      if (n > 0) return undefined;
      return {
        sse: [
          chunk({ role: 'assistant', content: null, reasoning_content: 'The file ' }),
          chunk({ reasoning_content: 'is missing.' }),
          chunk({ tool_calls: [call(0, 'c1', 'shell', shell('echo r > done.txt'))] }),
          chunk({}, 'tool_calls'),
          usage(10, 1),
        ],
      };
    });
    expect(r.ran).toEqual([['shell', { command: 'echo r > done.txt' }]]);
    expect(received[1]!.messages.find((m) => m.tool_calls)!.reasoning_content).toBe('The file is missing.');
    expect(modelCalls(r)[0]!.response.reasoning).toBe('The file is missing.');
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('<think> blocks are moved out of the content into the reasoning', async () => {
    const r = await run((n) =>
      n === 0
        ? {
            sse: [
              chunk({ content: '<thi' }),
              chunk({ content: 'nk>I should write it.</th' }),
              chunk({ content: 'ink>Writing done.txt.', tool_calls: [call(0, 'c1', 'shell', shell('echo t > done.txt'))] }),
              chunk({}, 'tool_calls'),
              usage(10, 1),
            ],
          }
        : done('<think>It exists.</think>All done.'),
    );
    expect(modelCalls(r)[0]!.response.thought).toBe('Writing done.txt.');
    expect(modelCalls(r)[0]!.response.reasoning).toBe('I should write it.');
    expect(r.outcome.summary).toBe('All done.');
    expect(modelCalls(r)[1]!.response.reasoning).toBe('It exists.');
    expect(r.exit).toBe(EXIT.goalMet);
  });
});

describe('failures after the stream started', () => {
  it('a connection reset mid-stream is retried, and nothing of the partial response runs', async () => {
    const r = await run((n) =>
      n === 0
        ? { sse: [chunk({ tool_calls: [call(0, 'c1', 'shell', shell('echo partial > partial.txt'))] })], cut: true }
        : n === 1
          ? writeDone
          : undefined,
    );
    expect(r.ran).toEqual([['shell', { command: 'echo d > done.txt' }]]);
    expect(r.notices).toEqual([expect.stringMatching(/^retrying after the connection closed before the response was complete \(terminated\) \(retry 1 of 2/)]);
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('an in-band error chunk after HTTP 200 (OpenRouter) is retried and explained', async () => {
    const inband = {
      ...base,
      error: { code: 502, message: 'Provider returned error', metadata: { provider_name: 'Example', raw: 'upstream overloaded' } },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    };
    const r = await run((n) => (n === 0 ? { sse: [chunk({ content: 'Let me' }), inband] } : n === 1 ? writeDone : undefined));
    expect(r.ran).toEqual([['shell', { command: 'echo d > done.txt' }]]);
    expect(r.notices[0]).toMatch(
      /^retrying after the server sent an error inside the stream after HTTP 200: Provider returned error \(code 502, provider Example, provider said: upstream overloaded\) — the model server .* is down or overloaded/,
    );
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('a keep-alive sent as `data: : ping` is skipped; nothing is printed to the terminal', async () => {
    const printed = vi.spyOn(console, 'error');
    const warned = vi.spyOn(console, 'warn');
    const r = await run((n) =>
      n === 0 ? { sse: ['data: : ping', ...writeDone.sse.slice(0, 1), 'data: : ping', ...writeDone.sse.slice(1)] } : undefined,
    );
    expect(r.ran).toEqual([['shell', { command: 'echo d > done.txt' }]]);
    expect(r.notices).toEqual([]);
    expect(printed).not.toHaveBeenCalled();
    expect(warned).not.toHaveBeenCalled();
    expect(r.exit).toBe(EXIT.goalMet);
  });

  it('an HTML page inside the stream is retried, said in words, and never printed by the SDK', async () => {
    const printed = vi.spyOn(console, 'error');
    const html = 'data: <html><head><title>502 Bad Gateway</title></head></html>';
    const r = await run(() => ({ sse: [chunk({ content: 'x' }), html] }));
    expect(printed).not.toHaveBeenCalled();
    expect(r.ran).toEqual([]);
    expect(r.notices).toHaveLength(2);
    expect(r.exit).toBe(EXIT.notMet);
    expect(r.outcome.summary).toMatch(
      /the server sent a line that is not JSON inside the event stream: an HTML page titled "502 Bad Gateway" instead of JSON .* \(after 2 retries\)/,
    );
  });

  it('a stream that ends with no finish_reason and no [DONE] after the first of two calls runs neither, and is retried', async () => {
    const r = await run((n) =>
      n === 0
        ? { sse: [chunk({ tool_calls: [call(0, 'a', 'shell', shell('echo 1 > one.txt'))] }), chunk({ tool_calls: [call(1, 'b', 'shell', '{"comm')] })], done: false }
        : n === 1
          ? {
              sse: [
                chunk({ tool_calls: [call(0, 'a', 'shell', shell('echo 1 > one.txt'))] }),
                chunk({ tool_calls: [call(1, 'b', 'shell', shell('echo 2 > done.txt'))] }),
                chunk({}, 'tool_calls'),
                usage(10, 2),
              ],
            }
          : undefined,
    );
    expect(r.ran).toEqual([
      ['shell', { command: 'echo 1 > one.txt' }],
      ['shell', { command: 'echo 2 > done.txt' }],
    ]);
    expect(r.notices[0]).toMatch(/^retrying after the stream ended with neither a finish_reason nor \[DONE\]/);
    expect(r.exit).toBe(EXIT.goalMet);
  });
});

describe('error bodies and finish reasons', () => {
  it('vLLM\'s older error shape (the error at the top level) is read and explained', async () => {
    const r = await run(() => ({
      status: 400,
      body: {
        object: 'error',
        message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    }));
    expect(r.exit).toBe(EXIT.notMet);
    expect(r.outcome.summary).toMatch(
      /HTTP 400: This model's maximum context length is 8192 tokens\. However, you requested 9000 tokens\. \(type BadRequestError, code 400\) — the conversation no longer fits the model's context window/,
    );
  });

  it('llama.cpp\'s exceed_context_size_error names the token counts', async () => {
    const r = await run(() => ({
      status: 400,
      body: { error: { code: 400, message: 'the request exceeds the available context size', type: 'exceed_context_size_error', n_prompt_tokens: 14429, n_ctx: 8192 } },
    }));
    expect(r.outcome.summary).toMatch(/14429 prompt tokens for a context of 8192\) — the conversation no longer fits/);
  });

  it('Ollama\'s string error', async () => {
    const r = await run(() => ({ status: 404, body: { error: "model 'test-model' not found" } }));
    expect(r.outcome.summary).toMatch(/HTTP 404: model 'test-model' not found — the server does not serve the model/);
  });

  it('finish_reason "length" in the middle of the arguments: nothing runs, the model is told, the operator is told to raise max_tokens', async () => {
    const r = await run(
      (n, body) =>
        n === 0
          ? { sse: [chunk({ tool_calls: [call(0, 'c1', 'write_file', '{"path":"done.txt","content":"aaaa')] }), chunk({}, 'length'), usage(10, 64)] }
          : n === 1
            ? body.messages.at(-1)!.content?.includes('cut off at the output limit')
              ? writeDone
              : { status: 400, body: { error: { message: 'the test server expected to be told about the cut-off call' } } }
            : undefined,
      { agent: 'max_retries: 2, max_tokens: 64' },
    );
    expect(received[0]!.max_tokens).toBe(64);
    expect(r.ran).toEqual([['shell', { command: 'echo d > done.txt' }]]);
    expect(r.notices).toEqual([expect.stringMatching(/cut off at its output limit; nothing in it was run; raise agent\.max_tokens in loop\.yaml \(now 64\)/)]);
    expect(modelCalls(r)[0]!.usage).toEqual({ input_tokens: 20, output_tokens: 65 });
    expect(r.exit).toBe(EXIT.goalMet);
  });
});

describe('costs', () => {
  it('cached input and reasoning tokens are priced as reported, never counted twice', async () => {
    const r = await run(
      (n) =>
        n === 0
          ? {
              sse: [
                chunk({ tool_calls: [call(0, 'c1', 'shell', shell('echo c > done.txt'))] }),
                chunk({}, 'tool_calls'),
                usage(1000, 300, { prompt_tokens_details: { cached_tokens: 800 }, completion_tokens_details: { reasoning_tokens: 200 } }),
              ],
            }
          : undefined,
      { pricing: 'input_per_million_usd: 3, cached_input_per_million_usd: 0.3, output_per_million_usd: 15' },
    );
    expect(modelCalls(r)[0]!.usage).toEqual({ input_tokens: 1000, output_tokens: 300, cached_input_tokens: 800, reasoning_tokens: 200 });
    expect(modelCalls(r)[0]!.cost_usd).toBeCloseTo((200 * 3 + 800 * 0.3 + 300 * 15) / 1e6, 12);
    // Tokens: 1300 for the first call and 12 for the closing one; reasoning is inside the 300.
    expect(r.state.usage.tokens).toBe(1312);
    expect(r.exit).toBe(EXIT.goalMet);
  });
});
