// How `loopdeck attach` finds the way to answer a run: its bridge.json, checked before any
// file it names is read or sent anywhere, and one answer over a real socket.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startBridgeServer, type BridgeServer } from '../../src/engine/bridge/server.js';
import type { AnswerMessage } from '../../src/engine/bridge/protocol.js';
import { answerLineOf, sendAnswer } from '../../src/watch/attach-answer.js';

const dirs: string[] = [];
const servers: BridgeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-aa-'));
  dirs.push(dir);
  return dir;
}

function serve(runDir: string, answers?: (m: AnswerMessage) => { ok: boolean; reason: string }): BridgeServer {
  const server = startBridgeServer({ run: 'r1', runDir, base: tempDir(), ...(answers ? { answers } : {}) });
  servers.push(server);
  return server;
}

it('answers a run that takes attached answers: the message names the seq and carries the answer; the reply comes back', async () => {
  const runDir = tempDir();
  const got: AnswerMessage[] = [];
  serve(runDir, (message) => {
    got.push(message);
    return message.seq === 7 ? { ok: true, reason: 'denied call t1' } : { ok: false, reason: `event ${message.seq} is not the prompt pending now (event 7 is)` };
  });
  const line = answerLineOf(runDir);
  if (!line.ok) throw new Error(line.why);
  expect(await sendAnswer(line.line, { decision: 'deny', note: 'not that' }, 7)).toMatchObject({ ok: true, reason: 'denied call t1' });
  expect(await sendAnswer(line.line, { decision: 'approve' }, 6)).toMatchObject({ ok: false, reason: 'event 6 is not the prompt pending now (event 7 is)' });
  expect(got.map((m) => [m.seq, m.answer])).toEqual([
    [7, { decision: 'deny', note: 'not that' }],
    [6, { decision: 'approve' }],
  ]);
});

it('stays read-only, saying why, for a run without attached answers, without a socket, or with its socket gone', async () => {
  const runDir = tempDir();
  expect(answerLineOf(runDir)).toMatchObject({ ok: false, why: expect.stringContaining('bridge.json does not exist') });
  const server = serve(runDir);
  expect(answerLineOf(runDir)).toMatchObject({ ok: false, why: expect.stringContaining('not started with --approve attached') });
  // The socket's folder went (the run was killed) while bridge.json stayed.
  const record = JSON.parse(readFileSync(path.join(runDir, 'bridge.json'), 'utf8'));
  await server.close();
  writeFileSync(path.join(runDir, 'bridge.json'), JSON.stringify({ ...record, answers: true }));
  expect(answerLineOf(runDir)).toMatchObject({ ok: false, why: expect.stringContaining('the run is over or its socket is gone') });
  expect(await sendAnswer({ socket: server.socket, run: 'r1', token: 'a'.repeat(64) }, { decision: 'approve' }, 1)).toMatchObject({ ok: false, reason: expect.stringContaining("cannot reach the run's socket") });
});

it('never reads or sends a file a bridge.json names unless it is the token beside the socket in a private loopdeck folder', async () => {
  const runDir = tempDir();
  serve(runDir, () => ({ ok: true, reason: '' }));
  const record = JSON.parse(readFileSync(path.join(runDir, 'bridge.json'), 'utf8'));
  // Something listening where a forged record points: it must never get a connection.
  const trap = tempDir();
  let connections = 0;
  const listener = net.createServer(() => (connections += 1)).listen(path.join(trap, 's'));
  const secret = path.join(trap, 'secret.txt');
  writeFileSync(secret, 'a'.repeat(64), { mode: 0o600 });
  const forged = (over: Record<string, unknown>) => {
    writeFileSync(path.join(runDir, 'bridge.json'), JSON.stringify({ ...record, ...over }));
    return answerLineOf(runDir);
  };
  try {
    expect(forged({ token_file: secret, socket: path.join(trap, 's') })).toMatchObject({ ok: false, why: expect.stringContaining('expected the token file to be') });
    expect(forged({ token_file: secret })).toMatchObject({ ok: false, why: expect.stringContaining('expected the token file to be') });
    expect(forged({ socket: 'relative/s', token_file: 'relative/token' })).toMatchObject({ ok: false, why: expect.stringContaining('absolute') });
    // A loopdeck-* folder open to others, and a token file readable by others.
    const open = path.join(trap, 'loopdeck-open');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    writeFileSync(path.join(open, 'token'), 'b'.repeat(64), { mode: 0o600 });
    expect(forged({ socket: path.join(open, 's'), token_file: path.join(open, 'token') })).toMatchObject({ ok: false, why: expect.stringContaining('closed to others') });
    chmodSync(open, 0o700);
    chmodSync(path.join(open, 'token'), 0o644);
    expect(forged({ socket: path.join(open, 's'), token_file: path.join(open, 'token') })).toMatchObject({ ok: false, why: expect.stringContaining('(0600)') });
    chmodSync(path.join(open, 'token'), 0o600);
    writeFileSync(path.join(open, 'token'), 'not a token');
    expect(forged({ socket: path.join(open, 's'), token_file: path.join(open, 'token') })).toMatchObject({ ok: false, why: expect.stringContaining('does not hold a run token') });
    expect(forged({ protocol: 2 })).toMatchObject({ ok: false });
    writeFileSync(path.join(runDir, 'bridge.json'), '{"protocol":1,');
    expect(answerLineOf(runDir)).toMatchObject({ ok: false, why: expect.stringContaining('not JSON') });
    expect(connections).toBe(0);
  } finally {
    listener.close();
  }
});
