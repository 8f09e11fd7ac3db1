/**
 * `loopdeck bridge`: the program a CLI agent's pre-tool hook runs (docs/design.md,
 * "Approvals of CLI agents"). It reads the hook's JSON on stdin (Claude Code and Codex
 * `PreToolUse`, Gemini CLI `BeforeTool`), asks the running loopdeck over the run's socket,
 * and prints the decision in that CLI's hook format. Anything that goes wrong (no socket, a
 * wrong token, input it cannot read, no answer in time) is a deny with the reason: it fails
 * closed, and an unexpected error exits 2, which all three CLIs read as "block".
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describeError } from './engine/errors.js';
import { BRIDGE_PROTOCOL, MAX_REQUEST_BYTES, parseResponse, type BridgeCli, type BridgeRequest } from './engine/bridge/protocol.js';
import { TOKEN_FILE } from './engine/bridge/server.js';

/** The hook event each CLI calls the bridge for. */
const HOOK_EVENT: Record<BridgeCli, string> = { claude: 'PreToolUse', codex: 'PreToolUse', gemini: 'BeforeTool' };

/** Environment variable naming the socket when `--socket` is not given. */
export const SOCKET_ENV = 'LOOPDECK_BRIDGE_SOCKET';

/** What the bridge prints and exits with. */
export interface BridgeOutput {
  stdout: string;
  stderr: string;
  code: number;
}

export interface BridgeOptions {
  run: string;
  format: BridgeCli;
  /** The run's socket; default `$LOOPDECK_BRIDGE_SOCKET`. */
  socket?: string;
  /** Seconds to wait for loopdeck's answer before denying. */
  timeoutSeconds: number;
}

/**
 * The decision in `cli`'s hook format. Claude Code: `hookSpecificOutput.permissionDecision`
 * `allow`/`deny` with `permissionDecisionReason`, exit 0. Gemini CLI: `decision`
 * `allow`/`deny` with `reason`, exit 0. Codex: `{}` lets the call go on to Codex's own
 * approval settings (its hooks take no `allow`); a deny exits 2 with the reason on stderr,
 * which Codex shows its model.
 */
export function hookOutput(cli: BridgeCli, decision: 'allow' | 'deny', reason: string): BridgeOutput {
  switch (cli) {
    case 'claude':
      return {
        stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason } })}\n`,
        stderr: '',
        code: 0,
      };
    case 'gemini':
      return { stdout: `${JSON.stringify(decision === 'allow' ? { decision } : { decision, reason })}\n`, stderr: '', code: 0 };
    case 'codex':
      return decision === 'allow' ? { stdout: '{}\n', stderr: '', code: 0 } : { stdout: '', stderr: `${reason}\n`, code: 2 };
  }
}

function deny(cli: BridgeCli, why: string): BridgeOutput {
  return hookOutput(cli, 'deny', `loopdeck bridge: ${why} (denied: the bridge fails closed)`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The tool call of a hook's stdin, or why it is not one. */
export function readHookInput(cli: BridgeCli, text: string): { ok: true; tool_name: string; tool_input: Record<string, unknown>; tool_use_id: string | null } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the hook input on stdin is not JSON' };
  }
  if (!isRecord(value)) return { ok: false, problem: 'the hook input on stdin is not a JSON object' };
  const event = value.hook_event_name;
  if (event !== undefined && event !== HOOK_EVENT[cli]) return { ok: false, problem: `the hook input is for ${JSON.stringify(event)}, not ${HOOK_EVENT[cli]}` };
  const { tool_name, tool_input, tool_use_id } = value;
  if (typeof tool_name !== 'string' || tool_name === '') return { ok: false, problem: 'the hook input has no tool_name' };
  if (!isRecord(tool_input)) return { ok: false, problem: 'the hook input has no tool_input object' };
  return { ok: true, tool_name, tool_input, tool_use_id: typeof tool_use_id === 'string' && tool_use_id !== '' ? tool_use_id : null };
}

/** Sends one request line and reads one response line, within `ms`. */
function ask(socket: string, line: string, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket);
    let text = '';
    const timer = setTimeout(() => {
      conn.destroy();
      reject(new Error(`no answer from loopdeck within ${ms / 1000}s`));
    }, ms);
    const finish = (error: Error | null) => {
      clearTimeout(timer);
      conn.destroy();
      if (error) reject(error);
      else resolve(text);
    };
    conn.setEncoding('utf8');
    conn.on('connect', () => conn.write(line));
    conn.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) finish(null);
      else if (text.length > MAX_REQUEST_BYTES) finish(new Error('the answer is too long'));
    });
    conn.on('end', () => finish(text ? null : new Error('loopdeck closed the connection without an answer')));
    conn.on('error', (error: NodeJS.ErrnoException) => finish(new Error(`cannot reach loopdeck at ${socket}: ${error.code ?? error.message}`)));
  });
}

/**
 * One run of the bridge: `stdin` is the hook's input. Never throws: every failure is a deny
 * in the CLI's format.
 */
export async function runBridge(options: BridgeOptions, stdin: string): Promise<BridgeOutput> {
  const cli = options.format;
  const input = readHookInput(cli, stdin);
  if (!input.ok) return deny(cli, input.problem);
  const socket = options.socket ?? process.env[SOCKET_ENV];
  if (!socket) return deny(cli, `no socket given (--socket or $${SOCKET_ENV})`);
  let token: string;
  try {
    token = readFileSync(path.join(path.dirname(socket), TOKEN_FILE), 'utf8').trim();
  } catch (error) {
    return deny(cli, `cannot read the run's token beside ${socket}: ${describeError(error)}`);
  }
  const request: BridgeRequest = { v: BRIDGE_PROTOCOL, type: 'approve', run: options.run, token, cli, tool_name: input.tool_name, tool_input: input.tool_input, tool_use_id: input.tool_use_id };
  let answer: string;
  try {
    answer = await ask(socket, `${JSON.stringify(request)}\n`, options.timeoutSeconds * 1000);
  } catch (error) {
    return deny(cli, describeError(error));
  }
  const response = parseResponse(answer.split('\n')[0] ?? '');
  if (!response) return deny(cli, 'the answer from loopdeck is not a decision');
  return hookOutput(cli, response.decision, response.reason);
}

/** Reads all of stdin (at most {@link MAX_REQUEST_BYTES}: more is refused). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_REQUEST_BYTES) throw new Error(`the hook input is longer than ${MAX_REQUEST_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The `loopdeck bridge` command: reads stdin, asks, prints the decision and sets the exit
 * code. Whatever fails on the way, even an error nothing here expected, prints a deny and
 * exits 2 (a block for all three CLIs), never 1 (which Claude Code and Gemini CLI read as a
 * hook that failed and let the call go on).
 */
export async function bridgeCommand(options: { run: string; format: BridgeCli; socket?: string; timeout: string }): Promise<void> {
  const cli = options.format;
  const failClosed = (error: unknown) => {
    process.stderr.write(`loopdeck bridge: ${describeError(error)} (denied: the bridge fails closed)\n`);
    process.exit(2);
  };
  process.on('uncaughtException', failClosed);
  process.on('unhandledRejection', failClosed);
  const seconds = Number(options.timeout);
  let out: BridgeOutput;
  try {
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 7 * 24 * 3600) out = deny(cli, `--timeout ${JSON.stringify(options.timeout)} is not a number of seconds between 0 and 604800`);
    else out = await runBridge({ run: options.run, format: cli, ...(options.socket ? { socket: options.socket } : {}), timeoutSeconds: seconds }, await readStdin());
  } catch (error) {
    out = deny(cli, describeError(error));
  }
  if (out.code !== 0) out = { ...out, code: 2 };
  process.stdout.write(out.stdout);
  process.stderr.write(out.stderr);
  process.exitCode = out.code;
}
