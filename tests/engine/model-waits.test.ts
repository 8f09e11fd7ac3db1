// Nothing waits forever on a model: a request has a time limit in all and a limit of
// silence, a server's Retry-After is capped, and the wait before a retry ends at once on a
// pause, a quit or an abort. Real chat-completions servers on 127.0.0.1 that stall.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TurnInterrupted, type AgentContext, type ModelWait } from '../../src/engine/agents/agent.js';
import { formatRetry, OpenAIAgent, type RetryInfo } from '../../src/engine/agents/openai.js';
import { AgentError } from '../../src/engine/errors.js';
import { newGoal } from '../../src/engine/goal.js';
import { closeServer, listenOnLoopback } from '../support/loopback.js';

/** How the server answers request `n` (0-based): it may write, stall, or end. */
type Handler = (n: number, res: ServerResponse, req: IncomingMessage) => void;

let server: Server;
let url = '';
let handler: Handler = () => undefined;
let count = 0;
let arrivals: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(performance.now());
      handler(count++, res, req);
    });
  });
  url = await listenOnLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
});

const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm' };
const line = (delta: Record<string, unknown>, finish: string | null = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A whole answer saying `text`. */
function answer(res: ServerResponse, text = 'Done.'): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(`${line({ role: 'assistant', content: text })}${line({}, 'stop')}data: [DONE]\n\n`);
}

/** Headers and the first words, then silence (the connection stays open). */
function stallAfterStart(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(line({ role: 'assistant', content: 'Let me think' }));
}

function serve(h: Handler): void {
  handler = h;
  count = 0;
  arrivals = [];
}

const goal = newGoal('answer', [], []);

function agentWith(limits: { requestMs?: number; idleMs?: number; maxRetryWaitMs?: number }, maxRetries = 1) {
  const retries: RetryInfo[] = [];
  const agent = new OpenAIAgent({ model: 'm', baseURL: url, apiKey: 'k', maxRetries, streamRetryDelayMs: 10, limits, onRetry: (info) => retries.push(info) });
  return { agent, retries };
}

function context(extra: Partial<AgentContext> = {}): AgentContext {
  return { turn: 1, goal, history: [], ...extra };
}

describe('a model request that stalls', () => {
  it('a stream silent for stream_idle_timeout is cancelled and retried, and the retry says why', { timeout: 10_000 }, async () => {
    serve((n, res) => (n === 0 ? stallAfterStart(res) : answer(res)));
    const { agent, retries } = agentWith({ idleMs: 300 });
    const started = performance.now();
    const turn = await agent.nextTurn(context());
    expect(turn.final).toBe('Done.');
    expect(count).toBe(2);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(formatRetry(retries[0]!)).toMatch(/^retrying after the server sent nothing for 300 ms \(agent\.stream_idle_timeout\), so the request was cancelled/);
  });

  it('a server that never answers the request at all is silent too', { timeout: 10_000 }, async () => {
    serve(() => undefined);
    const { agent } = agentWith({ idleMs: 200 }, 0);
    const error = await agent.nextTurn(context()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/turn 1: the server sent nothing for .* \(agent\.stream_idle_timeout\)/);
  });

  it('a server that trickles keep-alives forever is ended by request_timeout, retries and their waits included', { timeout: 10_000 }, async () => {
    serve((_n, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write(': keep-alive\n\n'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const { agent } = agentWith({ requestMs: 1_000, idleMs: 300 }, 3);
    const started = performance.now();
    const error = await agent.nextTurn(context()).catch((e: unknown) => e);
    const took = performance.now() - started;
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/turn 1: no complete answer within 1s \(agent\.request_timeout\)/);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(3_000);
    expect(count).toBe(1);
  });

  it('what is waited on is told as it goes: since when, the limit, the last bytes, the idle limit', { timeout: 10_000 }, async () => {
    serve((n, res) => (n === 0 ? stallAfterStart(res) : answer(res)));
    const waits: ModelWait[] = [];
    const { agent } = agentWith({ requestMs: 60_000, idleMs: 300 });
    await agent.nextTurn(context({ onWait: (w) => waits.push(w) }));
    expect(waits[0]).toMatchObject({ limit_ms: 60_000, idle_ms: 300 });
    expect(waits.some((w) => w.retry !== undefined)).toBe(true);
    expect(waits.every((w) => w.since === waits[0]!.since)).toBe(true);
  });
});

describe('Retry-After', () => {
  const busy = (seconds: string) => (n: number, res: ServerResponse) => {
    if (n > 0) return answer(res);
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': seconds });
    res.end(JSON.stringify({ error: { message: 'slow down' } }));
  };

  it('is capped by max_retry_wait, and the notice says so', { timeout: 10_000 }, async () => {
    serve(busy('3600'));
    const { agent, retries } = agentWith({ maxRetryWaitMs: 200 });
    const turn = await agent.nextTurn(context());
    expect(turn.final).toBe('Done.');
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(180);
    expect(arrivals[1]! - arrivals[0]!).toBeLessThan(2_000);
    expect(formatRetry(retries[0]!)).toBe(
      'retrying after 429 Too Many Requests: slow down (retry 1 of 1, in 200 ms: Retry-After asked for 1h00m00s, capped by agent.max_retry_wait)',
    );
  });

  it('a wait that would pass request_timeout is not begun: the turn fails at once, saying why', { timeout: 10_000 }, async () => {
    serve(busy('30'));
    const { agent } = agentWith({ requestMs: 5_000, maxRetryWaitMs: 60_000 });
    const started = performance.now();
    const error = await agent.nextTurn(context()).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((error as Error).message).toMatch(/no complete answer within 5s \(agent\.request_timeout\): a retry after 429 Too Many Requests: slow down would start after it \(in 30s\)/);
  });

  it('a quit or an abort ends the wait at once', { timeout: 10_000 }, async () => {
    serve(busy('50'));
    const { agent } = agentWith({ maxRetryWaitMs: 60_000 });
    const stop = new AbortController();
    const started = performance.now();
    const pending = agent.nextTurn(context({ signal: stop.signal, onWait: (w) => w.retry && stop.abort('quit') })).catch((e: unknown) => e);
    const error = await pending;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/the request was aborted/);
    expect(count).toBe(1);
  });

  it('a pause asked for ends the wait at once: the turn is interrupted, nothing of it answered', { timeout: 10_000 }, async () => {
    serve(busy('50'));
    const { agent } = agentWith({ maxRetryWaitMs: 60_000 });
    const pause = new AbortController();
    const started = performance.now();
    const error = await agent.nextTurn(context({ interrupt: pause.signal, onWait: (w) => w.retry && pause.abort() })).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(TurnInterrupted);
    expect(count).toBe(1);
  });
});
