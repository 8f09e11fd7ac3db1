import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_TOKENS, estimateRequestTokens } from '../../src/engine/agents/context.js';
import type { AgentContext, AgentMessage } from '../../src/engine/agents/agent.js';
import { formatRetry, OpenAIAgent, REPORT_TOOL, type RetryInfo } from '../../src/engine/agents/openai.js';
import { AgentError } from '../../src/engine/errors.js';
import { newGoal, reviseGoal } from '../../src/engine/goal.js';
import { mergeReport } from '../../src/engine/reported.js';

/** What the loopback server answers to one request. */
type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'sse'; chunks: unknown[]; hold?: boolean };

interface Received {
  /** `performance.now()` when the request arrived. */
  at: number;
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    temperature?: number;
    messages: Array<{ role: string; content?: string | null; tool_call_id?: string; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> }>;
    tools: Array<{ type: string; function: { name: string; parameters: Record<string, unknown> } }>;
  };
}

/** A chat-completions server on 127.0.0.1 that answers from a queue and records each request. */
class LoopbackServer {
  readonly received: Received[] = [];
  private readonly replies: Reply[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        this.received.push({ at: performance.now(), headers: req.headers, body: JSON.parse(raw) as Received['body'] });
        const reply = this.replies.shift();
        if (!reply) {
          res.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
          res.end(JSON.stringify({ error: { message: 'the test server has no reply queued' } }));
          return;
        }
        if (reply.kind === 'json') {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(JSON.stringify(reply.body));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        void (async () => {
          for (const chunk of reply.chunks) {
            res.write(`data: ${JSON.stringify(chunk)}\n\n`);
            await new Promise((resolve) => setTimeout(resolve, 2));
          }
          if (reply.hold) return; // never finishes: the client must abort
          res.write('data: [DONE]\n\n');
          res.end();
        })();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  reply(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'test-model' };

/** A chunk whose first choice carries `delta`. */
function delta(d: Record<string, unknown>, finish: string | null = null): unknown {
  return { ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] };
}

/** The final chunk with usage and no choices (`stream_options.include_usage`). */
function usageChunk(prompt_tokens: number, completion_tokens: number): unknown {
  return { ...base, choices: [], usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } };
}

/** A streamed response that says `pieces` and ends. */
function textReply(pieces: string[], usage: [number, number] = [10, 5]): Reply {
  return {
    kind: 'sse',
    chunks: [
      delta({ role: 'assistant', content: '' }),
      ...pieces.map((content) => delta({ content })),
      delta({}, 'stop'),
      usageChunk(...usage),
    ],
  };
}

/** A streamed response with tool calls, each call's arguments split into `pieces`. */
function toolReply(calls: Array<{ id: string; name: string; pieces: string[] }>, text = '', usage: [number, number] = [20, 8]): Reply {
  const chunks: unknown[] = [delta({ role: 'assistant', content: text || null })];
  calls.forEach((call, index) => {
    chunks.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of call.pieces) chunks.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(delta({}, 'tool_calls'), usageChunk(...usage));
  return { kind: 'sse', chunks };
}

function errorReply(status: number, headers: Record<string, string> = {}): Reply {
  return { kind: 'json', status, headers, body: { error: { message: `status ${status} from the test server`, type: 'test' } } };
}

const goal = newGoal('Names with accents must survive the payload round trip', ['every test passes'], ['do not edit the tests']);

function context(turn: number, history: AgentMessage[] = [], extra: Partial<AgentContext> = {}): AgentContext {
  return { turn, goal, history, ...extra };
}

let server: LoopbackServer;
let retries: RetryInfo[];

beforeEach(async () => {
  server = new LoopbackServer();
  await server.start();
  retries = [];
});

afterEach(async () => {
  await server.stop();
});

function agent(extra: Partial<ConstructorParameters<typeof OpenAIAgent>[0]> = {}): OpenAIAgent {
  return new OpenAIAgent({
    model: 'test-model',
    baseURL: server.url,
    apiKey: 'test-key',
    maxRetries: 2,
    temperature: 0.2,
    onRetry: (info) => retries.push(info),
    ...extra,
  });
}

describe('OpenAIAgent', () => {
  it('streams text to onText and makes a text-only response final, with usage', async () => {
    server.reply(textReply(['The serializer ', 'now keeps ', 'UTF-8 intact.'], [1200, 240]));
    const streamed: string[] = [];
    const turn = await agent().nextTurn(context(1, [], { onText: (chunk) => streamed.push(chunk) }));

    expect(streamed).toEqual(['The serializer ', 'now keeps ', 'UTF-8 intact.']);
    expect(turn).toEqual({
      tool_calls: [],
      usage: { input_tokens: 1200, output_tokens: 240 },
      final: 'The serializer now keeps UTF-8 intact.',
      // The request's estimated size and the window assumed for an unknown model.
      context: { tokens: estimateRequestTokens(server.received[0]!.body), window: DEFAULT_CONTEXT_TOKENS },
    });

    expect(server.received).toHaveLength(1);
    const request = server.received[0]!;
    expect(request.headers.authorization).toBe('Bearer test-key');
    expect(request.body.model).toBe('test-model');
    expect(request.body.stream).toBe(true);
    expect(request.body.stream_options).toEqual({ include_usage: true });
    expect(request.body.temperature).toBe(0.2);
    expect(request.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(request.body.messages[0]!.content).toContain(REPORT_TOOL);
    expect(request.body.messages[1]!.content).toContain('Objective: Names with accents must survive the payload round trip');
    expect(request.body.messages[1]!.content).toContain('1. every test passes');
    expect(request.body.messages[1]!.content).toContain('- do not edit the tests');
    expect(request.body.tools.map((t) => t.function.name)).toEqual(['shell', 'read_file', 'write_file', 'edit', 'list_files', 'git_status', 'git_diff', REPORT_TOOL]);
    const edit = request.body.tools.find((t) => t.function.name === 'edit')!;
    expect(edit.function.parameters).toMatchObject({
      type: 'object',
      required: ['path', 'find', 'replace'],
      additionalProperties: false,
    });
    const report = request.body.tools.find((t) => t.function.name === REPORT_TOOL)!;
    expect(Object.keys(report.function.parameters.properties as object)).toEqual([
      'new_evidence',
      'eliminated_hypotheses',
      'remaining_hypotheses',
    ]);
  });

  it('two progress reports in one turn: evidence accumulates, the remaining hypotheses are the later list (as between turns)', async () => {
    const a = agent();
    server.reply(
      toolReply([
        { id: 'call_r1', name: REPORT_TOOL, pieces: ['{"remaining_hypotheses": ["http mapping", "serializer"], "eliminated_hypotheses": ["validation"]}'] },
        { id: 'call_r2', name: REPORT_TOOL, pieces: ['{"remaining_hypotheses": ["serializer"], "eliminated_hypotheses": ["http mapping"]}'] },
        { id: 'call_r3', name: REPORT_TOOL, pieces: ['{"new_evidence": [{"claim": "dto ok", "evidence_ref": "dto is valid"}]}'] },
        { id: 'call_sh', name: 'shell', pieces: ['{"command": "node --test"}'] },
      ]),
    );
    const turn = await a.nextTurn(context(1));
    expect(turn.report).toEqual({
      remaining_hypotheses: ['serializer'],
      eliminated_hypotheses: ['validation', 'http mapping'],
      new_evidence: [{ claim: 'dto ok', evidence_ref: 'dto is valid' }],
    });
    const base = { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: ['old'] };
    const folded = [
      { remaining_hypotheses: ['http mapping', 'serializer'], eliminated_hypotheses: ['validation'] },
      { remaining_hypotheses: ['serializer'], eliminated_hypotheses: ['http mapping'] },
      { new_evidence: [{ claim: 'dto ok', evidence_ref: 'dto is valid' }] },
    ].reduce(mergeReport, base);
    expect(folded).toEqual(turn.report);
  });

  it('accumulates a tool call streamed in pieces, files report_progress as the report, and maps results back', async () => {
    const a = agent();
    server.reply(
      toolReply(
        [
          { id: 'call_sh', name: 'shell', pieces: ['{"comm', 'and": "node ', '--test"}'] },
          {
            id: 'call_rp',
            name: REPORT_TOOL,
            pieces: ['{"remaining_hypotheses": ["serializer"], ', '"new_evidence": [{"claim": "dto ok", "evidence_ref": "dto is valid"}]}'],
          },
        ],
        'Run the tests first.',
      ),
    );
    const first = await a.nextTurn(context(1));
    expect(first).toEqual({
      thought: 'Run the tests first.',
      // loopdeck's own id (turn 1, first call); the server's id only answers the server.
      tool_calls: [{ id: 't1.0', name: 'shell', args: { command: 'node --test' } }],
      report: {
        remaining_hypotheses: ['serializer'],
        new_evidence: [{ claim: 'dto ok', evidence_ref: 'dto is valid' }],
      },
      usage: { input_tokens: 20, output_tokens: 8 },
      context: { tokens: expect.any(Number), window: DEFAULT_CONTEXT_TOKENS },
    });

    // The operator revises the goal while the call runs; the harness notes it in the history.
    const revised = reviseGoal(goal, 'add-constraint', 'keep the public API');
    const history: AgentMessage[] = [
      { role: 'tool', call_id: 't1.0', name: 'shell', status: 'failed', content: 'not ok 1 - accents' },
      { role: 'harness', content: 'The operator revised the goal (add-constraint: keep the public API).' },
    ];
    server.reply(textReply(['Fixed.']));
    const second = await a.nextTurn({ turn: 2, goal: revised, history });
    expect(second.final).toBe('Fixed.');

    const messages = server.received[1]!.body.messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
    expect(messages[1]!.content).toContain('(revision 1)');
    expect(messages[1]!.content).toContain('- keep the public API');
    expect(messages[2]).toMatchObject({
      content: 'Run the tests first.',
      tool_calls: [
        { id: 'call_sh', type: 'function', function: { name: 'shell', arguments: '{"command": "node --test"}' } },
        { id: 'call_rp', type: 'function', function: { name: REPORT_TOOL } },
      ],
    });
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_rp', content: 'Progress report recorded.' });
    expect(messages[4]).toEqual({ role: 'tool', tool_call_id: 'call_sh', content: 'status: failed\nnot ok 1 - accents' });
    expect(messages[5]!.content).toContain('The operator revised the goal (add-constraint: keep the public API).');

    // History already sent is not sent again.
    server.reply(textReply(['Still fixed.']));
    await a.nextTurn({ turn: 3, goal: revised, history: [...history, { role: 'harness', content: 'claim refuted' }] });
    const third = server.received[2]!.body.messages;
    expect(third.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(third.at(-1)).toEqual({ role: 'user', content: 'Notes from the harness:\n\nclaim refuted' });
  });

  it('answers a pending call that got no result so the conversation stays valid', async () => {
    const a = agent();
    server.reply(toolReply([{ id: 'c1', name: 'read_file', pieces: ['{"path":"a.txt"}'] }]), textReply(['ok']));
    await a.nextTurn(context(1));
    await a.nextTurn(context(2, [{ role: 'harness', content: 'paused by the operator' }]));
    const messages = server.received[1]!.body.messages;
    expect(messages.slice(2).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(messages[3]).toMatchObject({ tool_call_id: 'c1', content: expect.stringContaining('not run') });
  });

  it('asks again after a report-only response and merges the reports into the final turn', async () => {
    server.reply(
      toolReply([{ id: 'r1', name: REPORT_TOOL, pieces: ['{"eliminated_hypotheses":["validation"]}'] }], '', [5, 1]),
      textReply(['Done.'], [7, 2]),
    );
    const turn = await agent().nextTurn(context(1));
    expect(turn).toEqual({
      tool_calls: [],
      report: { eliminated_hypotheses: ['validation'] },
      usage: { input_tokens: 12, output_tokens: 3 },
      final: 'Done.',
      context: { tokens: expect.any(Number), window: DEFAULT_CONTEXT_TOKENS },
    });
    expect(server.received[1]!.body.messages.slice(2)).toMatchObject([
      { role: 'assistant', tool_calls: [{ id: 'r1' }] },
      { role: 'tool', tool_call_id: 'r1', content: 'Progress report recorded.' },
    ]);
  });

  it('retries a 429 with the server-given delay and reports the retry', async () => {
    server.reply(errorReply(429, { 'retry-after-ms': '10' }), textReply(['ok']));
    const turn = await agent().nextTurn(context(1));

    expect(turn.final).toBe('ok');
    expect(server.received).toHaveLength(2);
    expect(server.received.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
    expect(retries).toEqual([{ attempt: 1, max_retries: 2, status: 429, reason: '429 Too Many Requests: status 429 from the test server (type test)', delay_ms: 10 }]);
    expect(formatRetry(retries[0]!)).toBe('retrying after 429 Too Many Requests: status 429 from the test server (type test) (retry 1 of 2, in 10 ms)');
    // The SDK's own first backoff is 375-500 ms; honouring retry-after-ms keeps this well below.
    expect(server.received[1]!.at - server.received[0]!.at).toBeLessThan(300);
  });

  it('gives up after maxRetries 5xx answers with an AgentError naming the status', async () => {
    const h = { 'retry-after-ms': '5' };
    server.reply(errorReply(503, h), errorReply(503, h), errorReply(503, h));
    const error = await agent().nextTurn(context(4)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as AgentError).message).toMatch(/turn 4: HTTP 503 \(after 2 retries\)/);
    expect(server.received).toHaveLength(3);
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([
      [1, 503],
      [2, 503],
    ]);
  });

  it('reports a connection failure as a retry without a status', async () => {
    const closed = `http://127.0.0.1:1/v1`;
    const a = agent({ baseURL: closed, maxRetries: 1 });
    await expect(a.nextTurn(context(1))).rejects.toThrow(AgentError);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, max_retries: 1, status: null, delay_ms: null });
    expect(retries[0]!.reason).toMatch(/^connection failed/);
  });

  it('gives up on a server nobody listens at with its address, the cause and what to check', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const error = await agent({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1 }).nextTurn(context(1)).catch((e: unknown) => e);
    expect((error as AgentError).message).toMatch(
      new RegExp(`turn 1: cannot connect to http://127\\.0\\.0\\.1:${port}/v1 \\(after 1 retry\\): connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; is the server running, and is agent\\.base_url in loop\\.yaml its address\\?$`),
    );
    // The address init writes for a local Ollama (nothing listens there on this machine).
    const ollama = await agent({ baseURL: 'http://127.0.0.1:11434/v1', maxRetries: 0 }).nextTurn(context(1)).catch((e: unknown) => e);
    expect((ollama as AgentError).message).toMatch(/cannot connect to http:\/\/127\.0\.0\.1:11434\/v1: .*; is Ollama running here\? Start it \(ollama serve\), fetch the model \(ollama pull \S+\)/);
  });

  it('sends no Authorization header to a custom base URL without a key, but needs a key for OpenAI itself', async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    try {
      expect(() => new OpenAIAgent({ model: 'gpt-x' })).toThrow(/no API key/);
      server.reply(textReply(['ok']));
      await new OpenAIAgent({ model: 'local', baseURL: server.url }).nextTurn(context(1));
      expect(server.received[0]!.headers).not.toHaveProperty('authorization');
    } finally {
      if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
    }
  });

  it('does not retry a 400 and fails with an AgentError', async () => {
    server.reply(errorReply(400));
    await expect(agent().nextTurn(context(1))).rejects.toThrow(/HTTP 400/);
    expect(server.received).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('hands invalid arguments back to the model once, records it, and takes the corrected call', async () => {
    server.reply(
      toolReply([{ id: 'bad', name: 'shell', pieces: ['{"command": "node --te'] }], '', [30, 4]),
      toolReply([{ id: 'good', name: 'shell', pieces: ['{"command": "node --test"}'] }], '', [40, 6]),
    );
    const turn = await agent().nextTurn(context(1));

    expect(turn.tool_calls).toEqual([{ id: 't1.0', name: 'shell', args: { command: 'node --test' } }]);
    expect(turn.usage).toEqual({ input_tokens: 70, output_tokens: 10 });
    expect(turn.thought).toMatch(/rejected an invalid response.*shell: arguments are not valid JSON/);

    const messages = server.received[1]!.body.messages;
    expect(messages.slice(2).map((m) => m.role)).toEqual(['assistant', 'tool']);
    // The echoed call carries `{}` (servers parse it); the tool message quotes the original.
    expect(messages[2]!.tool_calls).toEqual([{ id: 'bad', type: 'function', function: { name: 'shell', arguments: '{}' } }]);
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'bad' });
    expect(messages[3]!.content).toContain('not valid JSON');
    expect(messages[3]!.content).toContain('{"command": "node --te');
  });

  it('rejects arguments that fail the schema, and a second invalid response is an AgentError', async () => {
    server.reply(
      toolReply([{ id: 'w1', name: 'write_file', pieces: ['{"path": "a.txt"}'] }]),
      toolReply([{ id: 'x1', name: 'delete_everything', pieces: ['{}'] }]),
    );
    const error = await agent().nextTurn(context(3)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/turn 3: a second invalid response \(delete_everything: unknown tool/);
    expect((error as Error).message).toMatch(/write_file: arguments do not fit the schema: content/);
    expect(server.received).toHaveLength(2);
    expect(server.received[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'w1',
      content: expect.stringContaining('write_file: arguments do not fit the schema: content'),
    });
  });

  it('aborts a hanging stream when the signal fires', async () => {
    server.reply({ kind: 'sse', chunks: [delta({ role: 'assistant', content: 'thinking' })], hold: true });
    const controller = new AbortController();
    const streamed: string[] = [];
    const pending = agent().nextTurn(
      context(1, [], {
        signal: controller.signal,
        onText: (chunk) => {
          streamed.push(chunk);
          controller.abort();
        },
      }),
    );
    await expect(pending).rejects.toThrow(/the request was aborted/);
    expect(streamed).toEqual(['thinking']);
    expect(retries).toEqual([]);
  });

  it('refuses a shrinking history (one agent per run)', async () => {
    const a = agent();
    server.reply(toolReply([{ id: 'c1', name: 'read_file', pieces: ['{"path":"a"}'] }]));
    await a.nextTurn(context(1));
    server.reply(textReply(['x']));
    await a.nextTurn(context(2, [{ role: 'tool', call_id: 'c1', name: 'read_file', status: 'ok', content: 'a' }]));
    await expect(a.nextTurn(context(3))).rejects.toThrow(AgentError);
  });
});
