// A real run of the built CLI whose agent is `kind: openai`, against a loopback
// OpenAI-compatible server that streams each reply slowly, SIGKILLed while a model stream
// is in flight, then resumed to the end (docs/design.md, "Resume points"). The server
// counts the requests of each model turn, so a turn asked for again after it completed is
// seen where it happens. Used by tests/e2e/crash-stream.test.ts (a sample) and
// scripts/crash-sweep.mjs (every turn, at several points of its stream).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readEvents, runDir, survivors } from './crash-harness.mjs';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist/cli.js');
const APPENDS = 'appends.txt';

/** Chunks of one streamed reply; the server waits `delayMs` before each. */
export const CHUNKS_PER_REPLY = 6;

function chunk(delta, finish = null) {
  return { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}

const usage = { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } };

/**
 * A call that appends its id and prints `ran-<id>`; the command's own text never holds
 * that marker, so only a result that reached the conversation tells the server it ran.
 */
function toolReply(id) {
  const args = JSON.stringify({ command: `echo ${id} >> ${APPENDS} && echo "ran""-${id}"` });
  return [
    chunk({ role: 'assistant', content: `Appending ${id}` }),
    chunk({ content: ' now.' }),
    chunk({ tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: 'shell', arguments: args.slice(0, 12) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(12) } }] }),
    chunk({}, 'tool_calls'),
    usage,
  ];
}

const finalReply = [
  chunk({ role: 'assistant', content: 'Both ids ' }),
  chunk({ content: 'are ' }),
  chunk({ content: 'appended; ' }),
  chunk({ content: 'the goal is met.' }),
  chunk({}, 'stop'),
  usage,
];

/** The model's turns (0-based): two that call a tool, then the claim. */
const REPLIES = [toolReply('c1'), toolReply('c2'), finalReply];

/** The turn a request asks for: the count of tool results it carries (`ran-<id>` in the messages). */
function turnOf(request) {
  return new Set(JSON.stringify(request.messages ?? []).match(/ran-c\d/g) ?? []).size;
}

/**
 * The model server (not listening yet): replies stream one chunk every `delayMs` (a kill
 * comes at a count of chunks sent, never at a time: the next chunk is only sent after it,
 * so any pause keeps the stream in flight). It
 * records every request as `{ turn, phase }` in `requests` (`phase`: set by the caller,
 * before or after the kill), and calls `onChunk(turn, sent)` after each chunk.
 */
export function modelServer(delayMs = 10) {
  const state = { requests: [], phase: 'first', onChunk: () => {} };
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const part of req) body += part;
    const turn = turnOf(JSON.parse(body));
    state.requests.push({ turn, phase: state.phase });
    const reply = REPLIES[Math.min(turn, REPLIES.length - 1)];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [i, part] of reply.entries()) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(part)}\n\n`);
      state.onChunk(turn, i + 1);
    }
    res.end('data: [DONE]\n\n');
  });
  return { server, state };
}

/** A folder holding loop.yaml for the server at `baseUrl` and an empty workspace. */
function setup(baseUrl) {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-crash-stream-'));
  mkdirSync(path.join(cwd, 'work'));
  const loop = {
    goal: { objective: 'Append c1 and c2' },
    pattern: 'react',
    agent: { kind: 'openai', model: 'test-model', base_url: baseUrl },
    workspace: { path: 'work', copy: 'none' },
    checkpoint: { every_iterations: 2 },
    verify: [{ command: `grep -q c2 ${APPENDS}` }],
    on_abort: { stash: false, report: false },
  };
  writeFileSync(path.join(cwd, 'loop.yaml'), JSON.stringify(loop, null, 2));
  return cwd;
}

const ANSWERS = ['--headless', '--approve', 'all', '--on-pause', 'continue'];

function cli_(cwd, args) {
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENAI_API_KEY: '' } });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  return { child, exit };
}

function appended(cwd) {
  const file = path.join(cwd, 'work', APPENDS);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** The uncrashed run against `model`: its end and the requests each turn took. */
export async function uncrashedStreamRun(model) {
  const cwd = setup(model.baseUrl);
  try {
    model.state.requests.length = 0;
    const { code, stderr } = await cli_(cwd, ['run', '--config', 'loop.yaml', ...ANSWERS]).exit;
    if (code !== 0) throw new Error(`the uncrashed run failed (exit ${code}): ${stderr}`);
    return { reason: readEvents(cwd).at(-1)?.data.reason, turns: model.state.requests.map((r) => r.turn) };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * One crash: the run is SIGKILLed once the server has sent `chunks` chunks of turn
 * `turn`'s stream (0-based; fewer than {@link CHUNKS_PER_REPLY}, so the stream is in
 * flight), then resumed to the end.
 * @param model `{ baseUrl, state }` of a listening {@link modelServer}
 * @returns the cut, and violations: the end differs from `uncrashed`; the cut turn was not
 *   asked again; a turn whose `model.call` was recorded before the kill was asked again;
 *   a turn asked more than once apart from the cut; a call id appended twice; seqs not
 *   0..n-1; a process of the run alive after it ended
 */
export async function crashDuringStream(model, { turn, chunks }, uncrashed) {
  const cwd = setup(model.baseUrl);
  const out = [];
  try {
    model.state.requests.length = 0;
    model.state.phase = 'first';
    const run = cli_(cwd, ['run', '--config', 'loop.yaml', ...ANSWERS]);
    model.state.onChunk = (t, sent) => {
      if (t === turn && sent === chunks) run.child.kill('SIGKILL');
    };
    const killed = await run.exit;
    model.state.onChunk = () => {};
    const before = readEvents(cwd);
    const cut = `turn ${turn + 1}, ${chunks} of ${CHUNKS_PER_REPLY} chunks sent; ${before.length} events, last ${before.at(-1)?.type ?? '(none)'}`;
    if (killed.signal !== 'SIGKILL') return { cut, violations: [`the run was not killed (exit ${killed.code}: ${killed.stderr.trim().split('\n').at(-1)})`] };
    const recorded = new Set(before.flatMap((e) => (e.type === 'model.call' ? [e.data.turn - 1] : [])));
    if (recorded.has(turn) || model.state.requests.at(-1)?.turn !== turn) out.push(`the kill did not cut turn ${turn + 1}'s stream`);
    model.state.phase = 'resumed';
    const resumed = await cli_(cwd, ['resume', runDir(cwd), '--yes', ...ANSWERS]).exit;
    const events = readEvents(cwd);
    const reason = events.at(-1)?.type === 'session.complete' ? events.at(-1).data.reason : `no end (exit ${resumed.code}: ${resumed.stderr.trim().split('\n').at(-1)})`;
    if (reason !== uncrashed.reason) out.push(`ended ${reason}, uncrashed ${uncrashed.reason}`);
    const again = model.state.requests.filter((r) => r.phase === 'resumed');
    if (!again.some((r) => r.turn === turn)) out.push(`turn ${turn + 1}, cut mid-stream, was not asked again`);
    for (const t of recorded) if (again.some((r) => r.turn === t)) out.push(`turn ${t + 1} was asked again after its model.call was recorded`);
    const counts = new Map();
    for (const r of model.state.requests) counts.set(r.turn, (counts.get(r.turn) ?? 0) + 1);
    for (const [t, n] of counts) if (n > (t === turn ? 2 : 1)) out.push(`turn ${t + 1} was asked ${n} times`);
    const ids = appended(cwd);
    for (const id of new Set(ids)) if (ids.filter((a) => a === id).length > 1) out.push(`${id} ran ${ids.filter((a) => a === id).length} times`);
    if (events.some((e, i) => e.seq !== i)) out.push(`seqs are not 0..${events.length - 1}`);
    const alive = survivors(path.join(cwd, 'work'));
    if (alive.length > 0) out.push(`processes of the run alive: ${alive.join('; ')}`);
    return { cut, violations: out };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
