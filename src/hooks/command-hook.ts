import { parseDocument } from 'yaml';
import { runShell } from '../engine/process.js';
import type { HookDecision, HookPayloads, HookRegistry, HookTopic } from '../engine/hooks.js';

/** A hook command that could not give a decision: it did not start, timed out, failed or printed nonsense. */
export class HookCommandError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(stderr ? `${message}; stderr: ${stderr.slice(-500)}` : message);
    this.name = new.target.name;
  }
}

/** An external hook command attached to a topic in loop.yaml. */
export interface CommandHookSpec {
  name: string;
  topic: HookTopic;
  command: string;
  /** Seconds; the registry's limit when absent. */
  timeout?: number;
  on_hook_error?: 'block' | 'allow';
}

const ANSWER_KEYS = new Set(['decision', 'reason', 'prompt']);

/**
 * Parses a hook command's stdout: empty means no opinion; otherwise exactly one JSON object
 * `{"decision": "allow" | "deny" | "pause" | "skip", "reason"?: string, "prompt"?: string}`
 * (a deny without reason and a pause without prompt get a generic one).
 * @throws HookCommandError for anything else: not JSON, more than one value, not an object,
 *   an unknown decision or key, a reason or prompt that is not a string
 */
function parseHookAnswer(stdout: string, stderr: string): HookDecision | undefined {
  const text = stdout.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HookCommandError(`printed something that is not JSON: ${JSON.stringify(text.slice(0, 200))}`, stderr);
  }
  const malformed = (why: string) =>
    new HookCommandError(`answered ${JSON.stringify(text.slice(0, 200))} (${why}); expected {"decision": "allow|deny|pause|skip", "reason"?: "...", "prompt"?: "..."}`, stderr);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed('not a JSON object');
  // JSON.parse keeps the last of two equal keys: `{"decision":"deny","decision":"allow"}`
  // must not read as an allow. JSON is YAML, whose parser reports the repeat.
  if (parseDocument(text, { uniqueKeys: true }).errors.some((error) => error.code === 'DUPLICATE_KEY')) throw malformed('a key appears twice');
  const v = value as Record<string, unknown>;
  const unknown = Object.keys(v).find((key) => !ANSWER_KEYS.has(key));
  if (unknown !== undefined) throw malformed(`unknown key "${unknown}"`);
  for (const key of ['reason', 'prompt'] as const) {
    if (key in v && typeof v[key] !== 'string') throw malformed(`"${key}" is not a string`);
  }
  const reason = typeof v.reason === 'string' && v.reason.trim() !== '' ? v.reason : undefined;
  const prompt = typeof v.prompt === 'string' && v.prompt.trim() !== '' ? v.prompt : undefined;
  switch (v.decision) {
    case 'allow':
      return { type: 'allow' };
    case 'skip':
      return { type: 'skip' };
    case 'deny':
      return { type: 'deny', reason: reason ?? 'denied by a hook command' };
    case 'pause':
      return { type: 'pause', prompt: prompt ?? 'a hook command asks to pause' };
    default:
      throw malformed(`"decision" is ${v.decision === undefined ? 'missing' : `not one of allow, deny, pause, skip`}`);
  }
}

/**
 * Registers an external command on its topic: it gets the payload as JSON on stdin
 * (plus LOOPDECK_TOPIC and LOOPDECK_WORKSPACE in its environment) and answers a decision
 * as JSON on stdout. Failing to start, timing out, exiting non-zero or printing something
 * unparsable is a hook error (recorded with its stderr), never a deny; `on_hook_error`
 * decides what a hook error means in `before_tool_call`.
 */
export function commandHook(registry: HookRegistry, spec: CommandHookSpec, options: { cwd: string; workspace: string; timeoutSeconds?: number }): void {
  const run = async (payload: HookPayloads[HookTopic]) => {
    const result = await runShell(spec.command, {
      cwd: options.cwd,
      input: JSON.stringify(payload),
      env: { LOOPDECK_TOPIC: spec.topic, LOOPDECK_WORKSPACE: options.workspace },
      timeoutSeconds: spec.timeout ?? options.timeoutSeconds ?? 5,
      outputLimitBytes: 1024 * 1024,
      separateStderr: true,
      graceMs: 500,
    });
    const stderr = result.stderr ?? '';
    if (result.spawn_error) throw new HookCommandError(`could not start: ${result.spawn_error}`, stderr);
    if (result.timed_out) throw new HookCommandError(`timed out after ${spec.timeout ?? options.timeoutSeconds ?? 5}s`, stderr);
    if (result.exit_code !== 0) throw new HookCommandError(`exited with ${result.exit_code}`, stderr);
    return parseHookAnswer(result.output, stderr);
  };
  registry.on(spec.topic, spec.name, run as never, {
    timeoutMs: (spec.timeout ?? options.timeoutSeconds ?? 5) * 1000 + 1500,
    onError: spec.on_hook_error ?? 'block',
  });
}
