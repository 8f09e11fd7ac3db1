// An openai agent under a real session against a chat-completions server on loopback: every
// request carries the execution memory of the last checkpoint after the goal (one, the
// newest), and with `progress.assess` each checkpoint sends an assessment request of its
// own (no tools, not part of the conversation) whose usage counts as tokens, not a turn.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { OpenAIAgent } from '../../src/engine/agents/openai.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { closeServer, listenOnLoopback } from '../support/loopback.js';

type Message = { role: string; content?: string | null };
interface Request {
  messages: Message[];
  tools?: unknown[];
}

const base = { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
const usage = (prompt_tokens: number, completion_tokens: number) => ({ ...base, choices: [], usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens } });
const text = (content: string, used: [number, number]) => [chunk({ role: 'assistant', content }), chunk({}, 'stop'), usage(...used)];
const call = (id: string, command: string) => [
  chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id, type: 'function', function: { name: 'shell', arguments: JSON.stringify({ command }) } }] }),
  chunk({}, 'tool_calls'),
  usage(100, 10),
];

let server: Server;
let url: string;
let dir: string;
const received: Request[] = [];

beforeEach(async () => {
  received.length = 0;
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-openai-memory-'));
  const turns = [call('t1', "printf 'failing: 2' > count.txt"), call('t2', "printf 'failing: 1' > count.txt"), text('count.txt is down to one failure.', [100, 10])];
  const assessments = [
    text('{"criteria": [{"criterion": 1, "verdict": "met", "reason": "only one failure left"}]}', [40, 7]),
    text('```json\n[{"criterion": "count.txt exists", "verdict": "met", "reason": "it does"}]\n```', [41, 8]),
  ];
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const request = JSON.parse(raw) as Request;
      received.push(request);
      // A request with tools is a turn; one without is an assessment.
      const reply = request.tools ? turns.shift() : assessments.shift();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const part of reply ?? text('nothing queued', [1, 1])) res.write(`data: ${JSON.stringify(part)}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  url = await listenOnLoopback(server);
});

afterEach(async () => {
  await closeServer(server);
  rmSync(dir, { recursive: true, force: true });
});

it('sends the newest execution memory after the goal in every request, and asks for the assessment in a request of its own', async () => {
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'bring the failures down', success_criteria: ['count.txt exists'] },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'test -f count.txt' }],
      checkpoint: { every_iterations: 1 },
      observe: [{ name: 'tests', command: 'cat count.txt', parser: 'regex', pattern: 'failing: (?<failing>\\d+)' }],
      progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }], assess: true },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const agent = new OpenAIAgent({ model: 'test-model', baseURL: url, apiKey: 'k', maxRetries: 0 });
  const events: LoopEvent[] = [];
  const session = new Session({ id: 's1', agent, policy, workspace: dir, sinks: [(e) => events.push(e)] });
  const outcome = await drive(session.run(newGoal('bring the failures down', ['count.txt exists'])), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  expect(outcome.reason).toBe('goal_met');

  // turn 1, assessment 1, turn 2, assessment 2, turn 3.
  expect(received.map((r) => (r.tools ? 'turn' : 'assess'))).toEqual(['turn', 'assess', 'turn', 'assess', 'turn']);
  const memories = (r: Request) => r.messages.filter((m) => String(m.content).startsWith('Execution memory of the run so far'));
  // No memory before the first interval checkpoint (the baseline at the start is not sent: nothing the
  // agent did is in it, and count.txt did not exist yet); then exactly one, the newest, right after the goal.
  expect(memories(received[0]!)).toEqual([]);
  expect(received[2]!.messages[2]!.content).toMatch(/^Execution memory of the run so far \(checkpoint 2, turn 1, BASELINE\)/);
  expect(received[4]!.messages[2]!.content).toMatch(/^Execution memory of the run so far \(checkpoint 3, turn 2, PROGRESS_OBSERVED\)/);
  expect(received[4]!.messages[2]!.content).toContain('- observed.tests.failing: missing → 2 → 1 (moved the wanted way)');
  expect(memories(received[4]!)).toHaveLength(1);

  // The assessment request: system, goal, memory, the question numbering the criteria; no tools.
  const ask = received[1]!;
  expect(ask.messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'user']);
  expect(ask.messages[3]!.content).toContain('For each criterion say whether it is met, partly met or not met, with a one-line reason.');
  expect(ask.messages[3]!.content).toContain('The criteria:\n1. count.txt exists');
  // Nothing of it joins the conversation.
  expect(JSON.stringify(received[2]!.messages)).not.toContain('loopdeck asks for your assessment');

  const assessed = events.flatMap((e) => (e.type === 'progress.assessed' ? [e.data] : []));
  expect(assessed.map((a) => [a.outcome, a.items, a.usage])).toEqual([
    ['parsed', [{ index: 0, verdict: 'met', reason: 'only one failure left' }], { input_tokens: 40, output_tokens: 7 }],
    ['parsed', [{ index: 0, verdict: 'met', reason: 'it does' }], { input_tokens: 41, output_tokens: 8 }],
  ]);
  // The harness's own view at each checkpoint: one failure is still measured.
  expect(assessed[1]!.harness).toEqual([{ verdict: 'not', basis: 'tests.failing = 1' }]);
  const state = fold(events);
  expect(state.usage.turns).toBe(3);
  expect(state.usage.tokens).toBe(3 * 110 + 47 + 49);
}, 30_000);
