/**
 * How `loopdeck attach` answers a run started `--approve attached` (docs/design.md,
 * "Attached answers"): the run's `bridge.json` names its socket and token file; the token
 * is read (only its owner can: 0600 in a 0700 folder) and each answer goes over the socket
 * as one `answer` message naming the prompt's `seq`. The run's reply (taken, or refused
 * with the reason) is said on the notice line.
 */
import { lstatSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describeError } from '../engine/errors.js';
import { BRIDGE_PROTOCOL, parseAnswerReply, type AnswerReply } from '../engine/bridge/protocol.js';
import { BRIDGE_FILE, TOKEN_FILE } from '../engine/bridge/server.js';
import type { ResumePayload } from '../engine/session.js';

/** Milliseconds an answer waits for the run's reply. */
const REPLY_WAIT_MS = 5000;

/** Longest reply line read, in bytes. */
const MAX_REPLY_BYTES = 64 * 1024;

/** Where and how to answer a run: its socket, id and token. */
export interface AnswerLine {
  socket: string;
  run: string;
  token: string;
}

/**
 * The way to answer the run of `runDir`, or why its keys stay read-only (a sentence): no
 * `bridge.json` (the run is over, or has no socket), a run that takes no attached answers,
 * a record of the wrong shape, an unreadable token file.
 */
export function answerLineOf(runDir: string): { ok: true; line: AnswerLine } | { ok: false; why: string } {
  const file = path.join(runDir, BRIDGE_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, why: `${file} does not exist: the run has no socket now (over, or not started with --approve attached)` };
    return { ok: false, why: `cannot read ${file}: ${describeError(error)}` };
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    return { ok: false, why: `${file} is not JSON` };
  }
  const r = record as Record<string, unknown> | null;
  if (typeof r !== 'object' || r === null || r.protocol !== BRIDGE_PROTOCOL) return { ok: false, why: `${file}: expected {"protocol":${BRIDGE_PROTOCOL},…}` };
  if (r.answers !== true) return { ok: false, why: 'the run answers its prompts by its own policy (it was not started with --approve attached)' };
  const { socket, token_file, run } = r;
  if (typeof socket !== 'string' || !path.isAbsolute(socket) || typeof token_file !== 'string' || !path.isAbsolute(token_file) || typeof run !== 'string') {
    return { ok: false, why: `${file}: expected absolute "socket" and "token_file" paths and a "run" id` };
  }
  const problem = privateTokenProblem(socket, token_file);
  if (problem) return { ok: false, why: `${file}: ${problem}; not answering through it` };
  let token: string;
  try {
    token = readFileSync(token_file, 'utf8').trim();
  } catch (error) {
    return { ok: false, why: `cannot read the run's token file ${token_file} (${describeError(error)}): only the user who started the run can answer it` };
  }
  if (!TOKEN_SHAPE.test(token)) return { ok: false, why: `${token_file} does not hold a run token (64 hex digits); not answering through it` };
  return { ok: true, line: { socket, run, token } };
}

/** A run's token: 32 random bytes in hex (server.ts). */
const TOKEN_SHAPE = /^[0-9a-f]{64}$/;

/**
 * Why the socket and token file a `bridge.json` names are not a run's private pair, or
 * `null`: the token file must be `token` beside the socket, in a `loopdeck-*` folder that
 * is no symlink, is this user's and closed to others, the file this user's and 0600. A
 * record naming any other file would have the console send that file's content to
 * whatever listens on the socket it names.
 */
function privateTokenProblem(socket: string, tokenFile: string): string | null {
  const dir = path.dirname(socket);
  if (path.dirname(tokenFile) !== dir || path.basename(tokenFile) !== TOKEN_FILE || !path.basename(dir).startsWith('loopdeck-')) {
    return `expected the token file to be ${path.join(dir, TOKEN_FILE)} beside the socket in a loopdeck-* folder, found ${tokenFile}`;
  }
  const uid = process.getuid?.();
  try {
    const folder = lstatSync(dir);
    if (!folder.isDirectory()) return `${dir} is not a folder`;
    if ((uid !== undefined && folder.uid !== uid) || (folder.mode & 0o077) !== 0) return `${dir} is not a folder of this user closed to others (0700)`;
    const token = lstatSync(tokenFile);
    if (!token.isFile()) return `${tokenFile} is not a file`;
    if ((uid !== undefined && token.uid !== uid) || (token.mode & 0o077) !== 0) return `${tokenFile} is not a file of this user readable by it alone (0600)`;
  } catch (error) {
    return `cannot check ${dir} (${describeError(error)}): the run is over or its socket is gone`;
  }
  return null;
}

/**
 * Sends one answer to the run and resolves with its reply; a socket that cannot be reached,
 * a reply that does not come within {@link REPLY_WAIT_MS} or is not one resolve a refusal
 * saying so (never a throw).
 */
export function sendAnswer(line: AnswerLine, payload: ResumePayload, seq: number): Promise<AnswerReply> {
  return new Promise((resolve) => {
    let settled = false;
    let buffered = '';
    const done = (ok: boolean, reason: string) => {
      if (settled) return;
      settled = true;
      conn.destroy();
      resolve({ v: 1, type: 'answer', ok, reason });
    };
    const conn = net.createConnection(line.socket);
    conn.setEncoding('utf8');
    conn.setTimeout(REPLY_WAIT_MS, () => done(false, `the run did not reply within ${REPLY_WAIT_MS / 1000}s`));
    conn.on('connect', () => conn.write(`${JSON.stringify({ v: BRIDGE_PROTOCOL, type: 'answer', run: line.run, token: line.token, seq, answer: payload })}\n`));
    conn.on('data', (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline === -1 && buffered.length <= MAX_REPLY_BYTES) return;
      const reply = parseAnswerReply(newline === -1 ? buffered : buffered.slice(0, newline));
      if (reply) done(reply.ok, reply.reason);
      else done(false, 'the run replied something that is not an answer reply');
    });
    conn.on('end', () => {
      const reply = buffered === '' ? null : parseAnswerReply(buffered);
      if (reply) done(reply.ok, reply.reason);
      else done(false, 'the run closed the socket without a reply');
    });
    conn.on('error', (error) => done(false, `cannot reach the run's socket ${line.socket}: ${describeError(error)}`));
  });
}
