/**
 * mini-SWE-agent trajectories (`<instance>.traj.json`): one JSON document
 * `{info:{exit_status, submission, model_stats:{instance_cost, api_calls}}, messages:[...],
 * trajectory_format}` with chat messages `{role, content, extra?}`.
 * - An `assistant` message is one turn. Its command is `extra.actions[].command` (v2),
 *   OpenAI-style `tool_calls`, or the one fenced ```bash block of its text (v1).
 * - The next `user` or `tool` message is the command's observation:
 *   `<returncode>N</returncode>` and `<output>…</output>` (v1 template), or
 *   `extra.returncode` and the content (v2).
 * - `info.model_stats.instance_cost` is the run's total cost; tokens are not reported.
 * - `info.exit_status` (`Submitted`, `LimitsExceeded`, ...) and `submission` end the run.
 */
import { argsOf, bounded, contentText, count, isRecord, notice, str, type JsonRecord } from './common.js';
import type { TranscriptEntry } from './types.js';

const FORMAT = 'mini-swe-agent';

/** True when `value` looks like a mini-SWE-agent trajectory. */
export function isMiniSweTrajectory(value: unknown): value is JsonRecord {
  return isRecord(value) && Array.isArray(value.messages) && (typeof value.trajectory_format === 'string' || isRecord(value.info));
}

/** The commands an assistant message ran, in order. */
function commandsOf(message: JsonRecord, text: string): string[] {
  const extra = isRecord(message.extra) ? message.extra : {};
  if (Array.isArray(extra.actions)) {
    const commands = extra.actions.flatMap((a) => (isRecord(a) && typeof a.command === 'string' ? [a.command] : []));
    if (commands.length > 0) return commands;
  }
  if (Array.isArray(message.tool_calls)) {
    const commands = message.tool_calls.flatMap((c) => {
      const fn = isRecord(c) && isRecord(c.function) ? c.function : null;
      const args = fn ? argsOf(fn.arguments) : {};
      return typeof args.command === 'string' ? [args.command] : [];
    });
    if (commands.length > 0) return commands;
  }
  const blocks = [...text.matchAll(/```(?:bash|sh)?[^\n]*\n([\s\S]*?)```/g)].map((m) => (m[1] ?? '').trim());
  return blocks.length === 1 ? blocks : [];
}

/** Exit code and output of an observation message. */
function observationOf(message: JsonRecord): { exit_code: number | null; output: string } {
  const text = contentText(message.content);
  const extra = isRecord(message.extra) ? message.extra : {};
  const fromExtra = typeof extra.returncode === 'number' && Number.isInteger(extra.returncode) ? extra.returncode : null;
  const tag = /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(text);
  const output = /<output>\n?([\s\S]*?)<\/output>/.exec(text);
  return { exit_code: fromExtra ?? (tag ? Number(tag[1]) : null), output: output ? (output[1] ?? '') : text };
}

/**
 * The entries of a whole trajectory. A malformed message is a notice, never a throw; a
 * document that is not a trajectory gives one notice.
 */
export function parseMiniSweTrajectory(value: unknown): TranscriptEntry[] {
  if (!isMiniSweTrajectory(value)) return [notice(`${FORMAT}: not a trajectory (expected an object with "messages")`)];
  const out: TranscriptEntry[] = [];
  let open: { id: string; command: string }[] = [];
  let calls = 0;
  for (const message of value.messages as unknown[]) {
    if (!isRecord(message)) {
      out.push(notice(`${FORMAT}: a message that is not an object`));
      continue;
    }
    const text = contentText(message.content);
    if (message.role === 'assistant') {
      out.push({ kind: 'message', starts_turn: true, text: bounded(text), reasoning: bounded(str(message.reasoning_content)) });
      open = commandsOf(message, text).map((command) => ({ id: `call-${++calls}`, command }));
      for (const call of open) out.push({ kind: 'tool_call', id: call.id, name: 'bash', args: { command: call.command } });
      continue;
    }
    if ((message.role === 'user' || message.role === 'tool') && open.length > 0) {
      const call = open.shift()!;
      const { exit_code, output } = observationOf(message);
      const status = exit_code === null || exit_code === 0 ? 'ok' : 'failed';
      out.push({ kind: 'tool_result', id: call.id, name: 'bash', status, output: bounded(output), exit_code });
    }
  }
  const info = isRecord(value.info) ? value.info : {};
  const stats = isRecord(info.model_stats) ? info.model_stats : {};
  const cost = count(stats.instance_cost);
  if (cost !== null) out.push({ kind: 'usage', usage: { input_tokens: null, output_tokens: null, cost_usd: cost } });
  const exit = str(info.exit_status);
  if (exit) out.push({ kind: 'result', ok: exit === 'Submitted', text: bounded(str(info.submission) || exit) });
  return out;
}
