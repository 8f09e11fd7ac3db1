// A run longer than the model's context window: the built CLI against a loopback server
// that speaks the chat-completions protocol, scripted to call a tool with a large output
// turn after turn. The window is small, so the agent must compact its conversation several
// times; the server measures every request with the agent's own estimator and checks that
// it is a conversation a real server accepts (every tool call answered, nothing orphaned).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { estimateRequestTokens } from '../../src/engine/agents/context.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');

/** The window of the run: small enough that a dozen large tool outputs need three compactions or more. */
const WINDOW = 8000;
const COMPACT_AT = 0.75;
/** Tool turns before the one that meets the goal. */
const LONG_TURNS = 12;

interface Message {
  role: string;
  content?: string | null;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

interface Received {
  messages: Message[];
  tools: unknown[];
  tokens: number;
}

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}

function toolTurn(index: number, calls: Array<{ id: string; name: string; args: unknown }>) {
  return [
    chunk({ role: 'assistant', content: `Step ${index}.` }),
    ...calls.map((call, i) => chunk({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] })),
    chunk({}, 'tool_calls'),
  ];
}

/** Reply `n` (0-based): a shell call printing 40 long lines, with a progress report every third turn; then the goal; then the claim. */
function reply(n: number) {
  if (n < LONG_TURNS) {
    const command = `seq -f "turn ${n} line %g: a long line of tool output to fill the window" 1 40`;
    const calls = [{ id: `call_${n}`, name: 'shell', args: { command } }];
    if (n % 3 === 2) calls.push({ id: `rp_${n}`, name: 'report_progress', args: { new_evidence: [{ claim: `turn ${n} output is complete`, evidence_ref: `line 40 of turn ${n}` }] } as never });
    return toolTurn(n, calls);
  }
  if (n === LONG_TURNS) return toolTurn(n, [{ id: 'call_done', name: 'shell', args: { command: 'echo done > done.txt' } }]);
  return [chunk({ role: 'assistant', content: 'done.txt exists; the goal is met.' }), chunk({}, 'stop')];
}

/** What a strict server refuses: a tool message that answers no call of the assistant message before it, or a call left unanswered. */
function conversationProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  let open: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      if (!open.includes(m.tool_call_id ?? '')) problems.push(`message ${i}: tool result for ${m.tool_call_id} answers no open call`);
      open = open.filter((id) => id !== m.tool_call_id);
      return;
    }
    if (open.length > 0) problems.push(`message ${i} (${m.role}): calls ${open.join(', ')} were never answered`);
    open = m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [];
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? []) {
        try {
          JSON.parse(call.function.arguments);
        } catch {
          problems.push(`message ${i}: arguments of ${call.id} are not JSON`);
        }
      }
    }
  });
  return problems;
}

let server: Server;
let dir: string;
const received: Received[] = [];

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const part of req) text += part;
  return text;
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-long-run-'));
  received.length = 0;
  server = createServer(async (req, res) => {
    const request = JSON.parse(await body(req)) as { messages: Message[]; tools: unknown[] };
    const tokens = estimateRequestTokens(request);
    received.push({ ...request, tokens });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const part of reply(received.length - 1)) res.write(`data: ${JSON.stringify(part)}\n\n`);
    const usage = { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [], usage: { prompt_tokens: tokens, completion_tokens: 30, total_tokens: tokens + 30 } };
    res.write(`data: ${JSON.stringify(usage)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterEach(async () => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

it('runs past the context window: at least three compactions, every request under the limit and valid, replay shows the same compactions', async () => {
  const { port } = server.address() as AddressInfo;
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: create done.txt after reading every report, success_criteria: [done.txt exists] }',
      `agent: { kind: openai, model: test-model, base_url: "http://127.0.0.1:${port}/v1", context_tokens: ${WINDOW}, compact_at: ${COMPACT_AT}, keep_turns: 2 }`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "test -f done.txt" }]',
      'stagnation: { on_detect: alert }',
    ].join('\n'),
  );
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'all'], { cwd: dir, reject: false, env: { OPENAI_API_KEY: '' } });
  expect(result.exitCode, result.stderr).toBe(0);
  expect(existsSync(path.join(dir, 'done.txt'))).toBe(true);
  expect(received).toHaveLength(LONG_TURNS + 2);

  // Without compaction the requests would have grown far past the window.
  const outputs = received.at(-1)!.messages.filter((m) => m.role === 'tool' && m.tool_call_id?.startsWith('call_')).length;
  expect(outputs).toBeLessThan(LONG_TURNS);

  // Every request fits (measured here, with the same estimator) and is a valid conversation
  // that starts with the system prompt and the current goal.
  for (const [i, request] of received.entries()) {
    expect(request.tokens, `request ${i}`).toBeLessThanOrEqual(WINDOW * COMPACT_AT);
    expect(conversationProblems(request.messages), `request ${i}`).toEqual([]);
    expect(request.messages[0]!.role).toBe('system');
    expect(request.messages[1]!.content).toContain('create done.txt after reading every report');
  }

  const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
  const compactions = events.filter((e) => e.type === 'context.compacted');
  expect(compactions.length).toBeGreaterThanOrEqual(3);
  const turnOf = (e: { seq: number }) => events.filter((x) => x.type === 'model.call' && x.seq > e.seq)[0].data.turn as number;
  for (const c of compactions) {
    expect(c.data.before_tokens).toBeGreaterThan(c.data.threshold_tokens);
    expect(c.data.after_tokens).toBeLessThanOrEqual(c.data.threshold_tokens);
    expect(c.data.window_tokens).toBe(WINDOW);
    expect(c.data.elided_count + c.data.dropped_turns).toBeGreaterThan(0);
    // The compaction is recorded before the turn whose request it shrank, and that request is
    // the size the event says (the server measured it).
    expect(turnOf(c)).toBe(c.data.turn);
    expect(received[c.data.turn - 1]!.tokens).toBe(c.data.after_tokens);
  }
  // Elided tool outputs keep their first and last lines with a note; a compacted request
  // says so, and carries the execution memory after the goal (the reported evidence of the
  // last checkpoint), as every request does.
  const late = received.at(-2)!.messages;
  expect(late.find((m) => m.role === 'user' && String(m.content).startsWith('loopdeck compacted this conversation'))).toBeDefined();
  const memory = late[2];
  expect(memory?.content).toMatch(/^Execution memory of the run so far \(checkpoint \d+, turn \d+/);
  expect(memory?.content).toMatch(/\n- turn \d+ output is complete \[/);
  const cut = received.flatMap((r) => r.messages).find((m) => m.role === 'tool' && String(m.content).includes('elided by loopdeck'));
  expect(cut?.content).toMatch(/line 1: a long line[\s\S]*lines elided by loopdeck to fit the context window[\s\S]*line 40: a long line/);
  // Each turn records the size of its request as the server saw it (the console's gauge).
  const calls = events.filter((e) => e.type === 'model.call');
  expect(calls.map((e) => e.data.response.context)).toEqual(received.map((r) => ({ tokens: r.tokens, window: WINDOW })));

  // Replay folds the log to the same compactions.
  const runs = path.join(dir, '.loopdeck/runs');
  const replay = await execa('node', [cli, 'replay', path.join(runs, readdirSync(runs)[0]!, 'events.jsonl'), '--headless']);
  const state = JSON.parse(replay.stdout);
  expect(state.compactions).toEqual(
    compactions.map((e) => ({
      seq: e.seq,
      turn: e.data.turn,
      before_tokens: e.data.before_tokens,
      after_tokens: e.data.after_tokens,
      dropped_turns: e.data.dropped_turns,
      elided_count: e.data.elided_count,
    })),
  );
  expect(state.done.reason).toBe('goal_met');
}, 60_000);

it('runs an openai agent in fresh laps: each lap a new conversation that starts from the progress file and the memory of the last checkpoint', async () => {
  const { port } = server.address() as AddressInfo;
  const laps: Array<ReturnType<typeof reply>> = [
    toolTurn(0, [
      { id: 'call_p', name: 'shell', args: { command: "printf 'Done: step one\\nNext: write done.txt\\n' > PROGRESS.md" } },
      { id: 'rp', name: 'report_progress', args: { new_evidence: [{ claim: 'step one works', evidence_ref: 'PROGRESS.md' }] } },
    ]),
    [chunk({ role: 'assistant', content: 'Lap one is finished.' }), chunk({}, 'stop')],
    toolTurn(2, [{ id: 'call_d', name: 'shell', args: { command: 'echo done > done.txt' } }]),
    [chunk({ role: 'assistant', content: 'done.txt exists.' }), chunk({}, 'stop')],
  ];
  server.removeAllListeners('request');
  server.on('request', async (req, res) => {
    const request = JSON.parse(await body(req)) as { messages: Message[]; tools: unknown[] };
    received.push({ ...request, tokens: estimateRequestTokens(request) });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const part of laps[received.length - 1] ?? laps[3]!) res.write(`data: ${JSON.stringify(part)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: create done.txt }',
      `agent: { kind: openai, model: test-model, base_url: "http://127.0.0.1:${port}/v1" }`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "test -f done.txt" }]',
      'checkpoint: { every_iterations: 2 }',
      'stagnation: { on_detect: alert }',
      'laps: { enabled: true, max_laps: 3 }',
    ].join('\n'),
  );
  const result = await execa('node', [cli, 'run', '--config', 'loop.yaml', '--headless', '--approve', 'all'], { cwd: dir, reject: false, env: { OPENAI_API_KEY: '' } });
  expect(result.exitCode, result.stderr).toBe(0);
  const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
  expect(events.filter((e) => e.type === 'lap.start').map((e) => e.data.lap)).toEqual([1, 2]);
  expect(received).toHaveLength(4);

  // Lap 2 starts a new conversation: nothing of lap 1's, only the execution memory and the
  // hand-over (the progress file and the same memory) after the goal.
  const second = received[2]!.messages;
  expect(second.map((m) => m.role)).toEqual(['system', 'user', 'user', 'user']);
  expect(second[2]!.content).toMatch(/^Execution memory of the run so far \(checkpoint 2, turn 2, [A-Z_]+\)/);
  expect(second[3]!.content).toContain('Lap 2 of 3: you start with no memory of earlier laps.');
  expect(second[3]!.content).toContain('The progress file PROGRESS.md says:\nDone: step one\nNext: write done.txt');
  expect(second[3]!.content).toMatch(/Execution memory of the run so far \(checkpoint 2, turn 2, [A-Z_]+\)/);
  expect(second[3]!.content).toContain('- step one works [PROGRESS.md: the harness did not see it]');
  expect(JSON.stringify(second)).not.toContain('Lap one is finished');
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
}, 60_000);
