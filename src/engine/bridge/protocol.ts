/**
 * The message protocol of a run's local socket (docs/design.md, "Approvals of CLI agents"):
 * one newline-terminated JSON object each way per connection. A client (`loopdeck bridge`,
 * run by a CLI agent's pre-tool hook) sends a {@link BridgeRequest}; the running loopdeck
 * answers with one {@link BridgeResponse} and closes the connection.
 *
 * Request (`v: 1`, `type: "approve"`):
 * `{"v":1,"type":"approve","run":"<run id>","token":"<hex>","cli":"claude","tool_name":"Bash","tool_input":{...},"tool_use_id":"toolu_1"}`
 *
 * Response: `{"v":1,"decision":"allow"|"deny","reason":"<text>"}`. Anything wrong with a
 * request (not JSON, wrong version or type, wrong run or token, a field of the wrong shape)
 * is answered `deny` with the reason; nothing the client sends makes the server throw.
 */

/** The CLIs whose pre-tool hooks the bridge speaks. */
export const BRIDGE_CLIS = ['claude', 'codex', 'gemini'] as const;
export type BridgeCli = (typeof BRIDGE_CLIS)[number];

/** Protocol version of both messages. */
export const BRIDGE_PROTOCOL = 1;

/** Longest request line read, in bytes: a bigger one is refused (memory stays bounded). */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** Longest agent call id or tool name kept from a request. */
const MAX_ID_CHARS = 200;

/** One tool call the agent is about to make, to approve or deny. */
export interface BridgeRequest {
  v: 1;
  type: 'approve';
  /** The run id the client was started for (`loopdeck bridge --run`). */
  run: string;
  /** The run's secret (hex), read from the 0600 file beside the socket. */
  token: string;
  cli: BridgeCli;
  /** The tool's name as the CLI calls it (`Bash`, `run_shell_command`, `apply_patch`, ...). */
  tool_name: string;
  /** The tool's arguments as the CLI sent them to its hook. */
  tool_input: Record<string, unknown>;
  /** The CLI's own id of the call, when its hook input carries one (Claude Code, Codex). */
  tool_use_id: string | null;
}

/** The answer to a {@link BridgeRequest}. `reason` is said to the agent on a deny. */
export interface BridgeResponse {
  v: 1;
  decision: 'allow' | 'deny';
  reason: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The request a line holds, or why it is not one (a sentence for the deny reason).
 * Checks shapes only; the run id and the token are checked by the server.
 */
export function parseRequest(line: string): { ok: true; request: BridgeRequest } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, problem: 'the request is not JSON' };
  }
  if (!isRecord(value)) return { ok: false, problem: 'the request is not a JSON object' };
  if (value.v !== BRIDGE_PROTOCOL) return { ok: false, problem: `unsupported protocol version ${JSON.stringify(value.v)} (expected ${BRIDGE_PROTOCOL})` };
  if (value.type !== 'approve') return { ok: false, problem: `unknown request type ${JSON.stringify(value.type)} (expected "approve")` };
  const { run, token, cli, tool_name, tool_input, tool_use_id } = value;
  if (typeof run !== 'string' || typeof token !== 'string') return { ok: false, problem: 'the request has no run id or token' };
  if (typeof cli !== 'string' || !(BRIDGE_CLIS as readonly string[]).includes(cli)) return { ok: false, problem: `unknown cli ${JSON.stringify(cli)} (expected one of ${BRIDGE_CLIS.join(', ')})` };
  if (typeof tool_name !== 'string' || tool_name === '' || tool_name.length > MAX_ID_CHARS) return { ok: false, problem: 'the request has no tool name (or one over 200 characters)' };
  if (!isRecord(tool_input)) return { ok: false, problem: 'tool_input is not a JSON object' };
  if (tool_use_id !== null && tool_use_id !== undefined && (typeof tool_use_id !== 'string' || tool_use_id === '' || tool_use_id.length > MAX_ID_CHARS)) {
    return { ok: false, problem: 'tool_use_id is not a string of 1 to 200 characters' };
  }
  return {
    ok: true,
    request: { v: 1, type: 'approve', run, token, cli: cli as BridgeCli, tool_name, tool_input, tool_use_id: typeof tool_use_id === 'string' ? tool_use_id : null },
  };
}

/** The response a line holds, or `null` when it is not one (the client then denies). */
export function parseResponse(line: string): BridgeResponse | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(value) || value.v !== BRIDGE_PROTOCOL) return null;
  if (value.decision !== 'allow' && value.decision !== 'deny') return null;
  return { v: 1, decision: value.decision, reason: typeof value.reason === 'string' ? value.reason : '' };
}

/**
 * An attached console's answer to the run's pending prompt (`loopdeck attach` of a run
 * started `--approve attached`): `{"v":1,"type":"answer","run":"<id>","token":"<hex>",
 * "seq":<n>,"answer":{"decision":"approve"|"deny","note"?:"…","always"?:"…"}}`. `seq` names
 * the event that raised the prompt; `answer` is checked by the run against that prompt.
 */
export interface AnswerMessage {
  v: 1;
  type: 'answer';
  run: string;
  token: string;
  seq: number;
  answer: Record<string, unknown>;
}

/** The run's reply to an {@link AnswerMessage}: `ok: false` says why it was refused. */
export interface AnswerReply {
  v: 1;
  type: 'answer';
  ok: boolean;
  reason: string;
}

/** Any message a run's socket takes. */
export type BridgeMessage = BridgeRequest | AnswerMessage;

/**
 * The message a line holds ({@link BridgeRequest} or {@link AnswerMessage}), or why it is
 * not one, with the type it claimed (`answer` problems are replied in the answer shape).
 */
export function parseMessage(line: string): { ok: true; message: BridgeMessage } | { ok: false; problem: string; type: 'approve' | 'answer' } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, problem: 'the request is not JSON', type: 'approve' };
  }
  if (!isRecord(value) || value.type !== 'answer') {
    const parsed = parseRequest(line);
    return parsed.ok ? { ok: true, message: parsed.request } : { ok: false, problem: parsed.problem.replace('(expected "approve")', '(expected "approve" or "answer")'), type: 'approve' };
  }
  const fail = (problem: string) => ({ ok: false as const, problem, type: 'answer' as const });
  if (value.v !== BRIDGE_PROTOCOL) return fail(`unsupported protocol version ${JSON.stringify(value.v)} (expected ${BRIDGE_PROTOCOL})`);
  const { run, token, seq, answer } = value;
  if (typeof run !== 'string' || typeof token !== 'string') return fail('the answer has no run id or token');
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return fail('seq is not the number of the event that raised the prompt');
  if (!isRecord(answer)) return fail('answer is not a JSON object');
  return { ok: true, message: { v: 1, type: 'answer', run, token, seq, answer } };
}

/** The reply a line holds, or `null` when it is not one (the console then says so). */
export function parseAnswerReply(line: string): AnswerReply | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isRecord(value) || value.v !== BRIDGE_PROTOCOL || value.type !== 'answer' || typeof value.ok !== 'boolean') return null;
  return { v: 1, type: 'answer', ok: value.ok, reason: typeof value.reason === 'string' ? value.reason : '' };
}
