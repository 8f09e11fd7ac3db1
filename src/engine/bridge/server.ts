/**
 * A run's local socket (docs/design.md, "Approvals of CLI agents"): a Unix socket in a fresh
 * 0700 folder under `$XDG_RUNTIME_DIR` (or the temp folder), beside a 0600 file holding the
 * run's secret token. Its path is recorded in the run directory (`bridge.json`). Each
 * connection carries one request and gets one response ({@link BridgeRequest},
 * {@link BridgeResponse}: newline-delimited JSON). The folder goes when the server closes,
 * and with the process if it exits first.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describeError, LoopdeckError } from '../errors.js';
import { BRIDGE_PROTOCOL, MAX_REQUEST_BYTES, parseMessage, type AnswerMessage, type BridgeRequest, type BridgeResponse } from './protocol.js';

/** Longest socket path accepted, in bytes: `sun_path` holds 108 (104 on macOS) with its NUL. */
export const MAX_SOCKET_PATH_BYTES = 100;

/** The file in the run directory that names the socket. */
export const BRIDGE_FILE = 'bridge.json';

/** The name of the token file beside the socket. */
export const TOKEN_FILE = 'token';

/** Milliseconds a connection may take to send its request line. */
const REQUEST_WAIT_MS = 10_000;

/** What the run does with a request whose run id and token are right. */
export type BridgeHandler = (request: BridgeRequest) => Promise<{ decision: 'allow' | 'deny'; reason: string }>;

/**
 * What the run does with an attached console's answer whose run id and token are right:
 * `ok: false` with the reason when it is refused (not the prompt pending now, a bad answer).
 */
export type AnswerHandler = (message: AnswerMessage) => { ok: boolean; reason: string };

/** A listening socket of a run. */
export interface BridgeServer {
  /** Absolute path of the Unix socket. */
  readonly socket: string;
  /** Absolute path of the 0600 file holding the token. */
  readonly tokenFile: string;
  /** Stops listening, answers open requests `deny`, removes the folder and `bridge.json`. */
  close(): Promise<void>;
}

export interface BridgeServerOptions {
  /** The run id requests must name. */
  run: string;
  /** The run directory, where `bridge.json` is written. */
  runDir: string;
  /** Approval requests of a CLI agent's hook; absent: they are denied (the run bridges no agent). */
  handle?: BridgeHandler;
  /**
   * Answers of an attached console (`--approve attached`); absent: they are refused.
   * When given, `bridge.json` says `"answers": true`.
   */
  answers?: AnswerHandler;
  /** The folder the socket's folder is made in; default `$XDG_RUNTIME_DIR`, else the temp folder. */
  base?: string;
  /** Told when the socket fails after it started (it then stops; its clients deny). */
  onError?: (text: string) => void;
}

/** Where a socket's folder may go, in order: `$XDG_RUNTIME_DIR` when it names a folder, the temp folder, `/tmp`. */
export function socketBases(): string[] {
  const bases: string[] = [];
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) {
    try {
      if (statSync(runtime).isDirectory()) bases.push(runtime);
    } catch {
      // not there: the temp folder serves
    }
  }
  bases.push(os.tmpdir());
  if (process.platform !== 'win32') bases.push('/tmp');
  return [...new Set(bases)];
}

/** The socket path a folder made in `base` would have (its name's six random letters as X). */
function probeOf(base: string): string {
  return path.join(base, 'loopdeck-XXXXXX', 's');
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function answer(conn: net.Socket, response: Omit<BridgeResponse, 'v'>): void {
  if (conn.destroyed) return;
  conn.end(`${JSON.stringify({ v: BRIDGE_PROTOCOL, ...response })}\n`);
}

function reply(conn: net.Socket, ok: boolean, reason: string): void {
  if (conn.destroyed) return;
  conn.end(`${JSON.stringify({ v: BRIDGE_PROTOCOL, type: 'answer', ok, reason })}\n`);
}

/**
 * Starts the socket of a run: listening when this returns.
 * The folder goes in the first of {@link socketBases} (or `options.base`) where the socket
 * path fits in {@link MAX_SOCKET_PATH_BYTES}.
 * @throws LoopdeckError when it fits in none (naming the path and the variables that move
 *   it), or the folder cannot be made or listened in
 */
export function startBridgeServer(options: BridgeServerOptions): BridgeServer {
  const bases = options.base ? [options.base] : socketBases();
  const base = bases.find((candidate) => Buffer.byteLength(probeOf(candidate)) <= MAX_SOCKET_PATH_BYTES);
  if (base === undefined) {
    const probe = probeOf(bases[0]!);
    throw new LoopdeckError(
      `the approval socket would be ${probe} (${Buffer.byteLength(probe)} bytes), longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket path may have; set XDG_RUNTIME_DIR or TMPDIR to a shorter folder`,
    );
  }
  const dir = mkdtempSync(path.join(base, 'loopdeck-'));
  chmodSync(dir, 0o700);
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  const socket = path.join(dir, 's');
  const tokenFile = path.join(dir, TOKEN_FILE);
  const token = randomBytes(32).toString('hex');
  const open = new Set<net.Socket>();
  let closing = false;
  try {
    writeFileSync(tokenFile, token, { mode: 0o600, flag: 'wx' });
    const server = net.createServer((conn) => serve(conn, { ...options, token, open, closing: () => closing }));
    // A Unix socket is bound and listening when listen() returns; a later failure stops it,
    // and a client that cannot connect denies (it fails closed).
    server.on('error', (error) => {
      options.onError?.(`the approval socket ${socket} failed: ${describeError(error)}; calls the agent asks about are denied`);
      server.close();
    });
    server.listen(socket);
    if (!existsSync(socket)) throw new Error(`listening on ${socket} made no socket`);
    chmodSync(socket, 0o600);
    const record = path.join(options.runDir, BRIDGE_FILE);
    writeFileSync(record, `${JSON.stringify({ protocol: BRIDGE_PROTOCOL, run: options.run, socket, token_file: tokenFile, pid: process.pid, answers: options.answers !== undefined }, null, 2)}\n`, { mode: 0o600 });
    return {
      socket,
      tokenFile,
      async close() {
        if (closing) return;
        closing = true;
        for (const conn of open) answer(conn, { decision: 'deny', reason: 'loopdeck stopped before answering' });
        await new Promise<void>((resolve) => server.close(() => resolve()));
        for (const conn of open) conn.destroy();
        if (existsSync(record)) rmSync(record, { force: true });
        removeDir();
        process.off('exit', removeDir);
      },
    };
  } catch (error) {
    removeDir();
    process.off('exit', removeDir);
    throw new LoopdeckError(`cannot open the approval socket in ${dir}: ${describeError(error)}`);
  }
}

interface ServeContext extends BridgeServerOptions {
  token: string;
  open: Set<net.Socket>;
  closing: () => boolean;
}

/** One connection: its request line, checked, handled once, answered. */
function serve(conn: net.Socket, ctx: ServeContext): void {
  ctx.open.add(conn);
  conn.on('close', () => ctx.open.delete(conn));
  conn.on('error', () => conn.destroy()); // the client went away: its answer has nowhere to go
  conn.setTimeout(REQUEST_WAIT_MS, () => {
    answer(conn, { decision: 'deny', reason: `no request within ${REQUEST_WAIT_MS / 1000}s` });
    conn.destroy();
  });
  let buffered = '';
  let bytes = 0;
  let done = false;
  conn.setEncoding('utf8');
  conn.on('data', (chunk: string) => {
    if (done) return;
    const newline = chunk.indexOf('\n');
    const part = newline === -1 ? chunk : chunk.slice(0, newline);
    bytes += Buffer.byteLength(part);
    buffered += part;
    if (bytes > MAX_REQUEST_BYTES) {
      done = true;
      return answer(conn, { decision: 'deny', reason: `the request is longer than ${MAX_REQUEST_BYTES} bytes` });
    }
    if (newline === -1) return;
    done = true;
    conn.setTimeout(0);
    void respond(conn, buffered, ctx);
  });
}

async function respond(conn: net.Socket, line: string, ctx: ServeContext): Promise<void> {
  const parsed = parseMessage(line);
  if (!parsed.ok) return parsed.type === 'answer' ? reply(conn, false, parsed.problem) : answer(conn, { decision: 'deny', reason: parsed.problem });
  const { message } = parsed;
  const refuse = message.type === 'answer' ? (reason: string) => reply(conn, false, reason) : (reason: string) => answer(conn, { decision: 'deny', reason });
  if (message.run !== ctx.run) return refuse(`the request names run ${JSON.stringify(message.run.slice(0, 100))}, this socket serves ${ctx.run}`);
  if (!sameToken(message.token, ctx.token)) return refuse('wrong token for this run');
  if (ctx.closing()) return refuse('loopdeck stopped before answering');
  if (message.type === 'answer') {
    if (!ctx.answers) return refuse('this run does not take answers from an attached console (it was not started with --approve attached)');
    try {
      const result = ctx.answers(message);
      return reply(conn, result.ok, result.reason);
    } catch (error) {
      return refuse(`loopdeck could not take the answer: ${describeError(error)}`);
    }
  }
  if (!ctx.handle) return refuse('this run bridges no agent approvals');
  try {
    answer(conn, await ctx.handle(message));
  } catch (error) {
    answer(conn, { decision: 'deny', reason: `loopdeck could not decide: ${describeError(error)}` });
  }
}
