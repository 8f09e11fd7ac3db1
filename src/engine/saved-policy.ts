/**
 * The effective policy a run saves beside its log (`policy.json`), and how `resume` reads
 * it back without trusting it.
 *
 * The saved form is the validated {@link LoopPolicy}: durations in seconds, `null` for an
 * unlimited limit, the budget as `limits`/`increments`, paths absolute. Reading it turns it
 * back into loop.yaml form and validates that through the same schema and file checks as
 * loop.yaml ({@link parsePolicyFor}); then the result, written out again, must equal the
 * file value for value, so nothing the schema would not produce (an extra key, a value in
 * another spelling) passes. The run's `session.start` records the sha256 of the text
 * written, and `resume` refuses a file whose digest differs (see `prepareResume`).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { toJson } from '../text/json.js';
import { ConfigError, ConfigErrors } from './errors.js';
import { LOOP_SCHEMA, MAX_CONFIG_BYTES, parsePolicyFor, type LoopPolicy } from './policy.js';
import { describeValue, readBoundedText } from './yaml-file.js';

/** Name of the effective policy saved in each run directory, for `loopdeck resume`. */
export const POLICY_FILE = 'policy.json';

/** Largest `policy.json` read back, in bytes: the expanded form of the largest loop.yaml. */
export const MAX_SAVED_POLICY_BYTES = 4 * MAX_CONFIG_BYTES;

/** Most value differences listed when a saved policy does not match what loopdeck writes. */
const MAX_LISTED_DIFFERENCES = 10;

/** The text loopdeck writes to `policy.json` for `policy`: pretty JSON and a final newline. */
export function savedPolicyText(policy: LoopPolicy): string {
  return `${toJson(policy, 2)}\n`;
}

/** sha256 of a saved policy's text (its UTF-8 bytes), as lower-case hex. */
export function policyDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A saved policy read back: its text's digest and, once validated, the policy. */
export interface SavedPolicyText {
  file: string;
  text: string;
  /** sha256 of `text` ({@link policyDigest}). */
  digest: string;
}

/**
 * Reads a run's `policy.json` (at most {@link MAX_SAVED_POLICY_BYTES}) without parsing it.
 * @throws ConfigErrors naming the file when it is missing, unreadable or too large
 */
export function readSavedPolicyText(file: string): SavedPolicyText {
  const text = readBoundedText(file, MAX_SAVED_POLICY_BYTES);
  return { file, text, digest: policyDigest(text) };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Seconds as a loop.yaml duration (`90s`, `30m`, `1h30m`); anything else as it is, for the schema to name. */
const seconds = (value: unknown): unknown => (Number.isInteger(value) && (value as number) > 0 ? yamlDuration(value as number) : value);

/** A positive whole number of seconds as loop.yaml writes a duration: `1h30m`, `10m`, `1m30s`, `45s` (zero parts left out). */
export function yamlDuration(total: number): string {
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
}

/** `null` as `unlimited`; anything else through `inner`. */
const orUnlimited =
  (inner: (value: unknown) => unknown = (value) => value) =>
  (value: unknown): unknown =>
    value === null ? 'unlimited' : inner(value);

/** Applies `change` to `record[key]` when the key is there. */
function convert(record: unknown, key: string, change: (value: unknown) => unknown): void {
  if (isRecord(record) && Object.hasOwn(record, key)) record[key] = change(record[key]);
}

/** Each item of the list at `record[key]`: `change(item)`. */
function convertEach(record: unknown, key: string, change: (item: unknown) => void): void {
  if (isRecord(record) && Array.isArray(record[key])) (record[key] as unknown[]).forEach(change);
}

/** Budget keys of loop.yaml → the saved `budget.limits` key, and how the value is written back. */
const LIMITS: ReadonlyArray<[source: string, saved: string, change: (value: unknown) => unknown]> = [
  ['max_iterations', 'turns', orUnlimited()],
  ['max_tool_calls', 'tool_calls', orUnlimited()],
  ['max_wall_clock', 'wall_clock_seconds', orUnlimited(seconds)],
  ['max_tokens', 'tokens', orUnlimited()],
  ['max_cost_usd', 'cost_usd', orUnlimited()],
];

/** Duration keys of each agent kind (saved as seconds, written back as `<n>s`). */
const AGENT_DURATIONS: Record<string, readonly string[]> = {
  command: ['timeout'],
  openai: ['request_timeout', 'stream_idle_timeout', 'max_retry_wait'],
};

/** Saved `budget.increments` keys that differ from loop.yaml's, and how the value is written back. */
const INCREMENTS: ReadonlyArray<[source: string, saved: string, change: (value: unknown) => unknown]> = [
  ['turns', 'turns', (v) => v],
  ['tool_calls', 'tool_calls', (v) => v],
  ['wall_clock', 'wall_clock_seconds', seconds],
  ['tokens', 'tokens', (v) => v],
  ['cost_usd', 'cost_usd', (v) => v],
];

/**
 * The loop.yaml form of a saved policy: durations as `<n>s`, `null` limits as `unlimited`,
 * the budget under its loop.yaml keys, `file` left out. Values of the wrong kind are kept
 * as they are, so the schema names them.
 */
function sourceForm(saved: Record<string, unknown>): Record<string, unknown> {
  const source = JSON.parse(JSON.stringify(saved)) as Record<string, unknown>;
  delete source.file;
  const agent = source.agent;
  if (isRecord(agent)) for (const key of AGENT_DURATIONS[String(agent.kind)] ?? []) convert(agent, key, seconds);
  convertEach(source, 'observe', (item) => convert(item, 'timeout', seconds));
  convertEach(source, 'verify', (item) => convert(item, 'timeout', seconds));
  convertEach(source, 'hooks', (item) => convert(item, 'timeout', seconds));
  convertEach(source.goal, 'constraints', (item) => convert(item, 'timeout', seconds));
  convertEach(source.goal, 'success_criteria', (item) => convert(isRecord(item) ? item.check : undefined, 'timeout', seconds));
  convert(source, 'hook_timeout', seconds);
  convert(source.tools, 'shell_timeout', seconds);
  convert(source.approval, 'timeout', orUnlimited(seconds));
  const budget = source.budget;
  if (isRecord(budget)) {
    const { limits, increments, ...rest } = budget;
    const rebuilt: Record<string, unknown> = {};
    if (isRecord(limits)) for (const [key, savedKey, change] of LIMITS) if (Object.hasOwn(limits, savedKey)) rebuilt[key] = change(limits[savedKey]);
    Object.assign(rebuilt, rest);
    if (isRecord(increments)) {
      const inc: Record<string, unknown> = {};
      for (const [key, savedKey, change] of INCREMENTS) if (Object.hasOwn(increments, savedKey)) inc[key] = change(increments[savedKey]);
      rebuilt.increments = inc;
    } else if (increments !== undefined) rebuilt.increments = increments;
    source.budget = rebuilt;
  }
  return source;
}

/**
 * The effective policy as a loop.yaml would write it, for `loopdeck validate`: the schema's
 * keys in the schema's order (`budget.max_iterations`, never the engine's `budget.limits`),
 * durations as `30m` / `1h30m`, `unlimited` for a lifted limit, every default filled in,
 * `agent.script` and `workspace.path` relative to the folder of `policy.file` (as loop.yaml
 * resolves them), and no `file`. Read back from a loop.yaml in that folder (JSON is YAML),
 * it gives the same effective policy.
 */
export function loopYamlForm(policy: LoopPolicy): Record<string, unknown> {
  const form = sourceForm(JSON.parse(savedPolicyText(policy)) as Record<string, unknown>);
  const base = path.dirname(policy.file);
  const relative = (value: unknown): unknown => {
    if (typeof value !== 'string' || !path.isAbsolute(value)) return value;
    const shown = path.relative(base, value);
    return shown === '' ? '.' : path.isAbsolute(shown) ? value : shown;
  };
  if (isRecord(form.agent) && form.agent.kind === 'scripted') convert(form.agent, 'script', relative);
  convert(form.workspace, 'path', relative);
  // The schema's order of sections, as docs/loop-yaml.md lists them.
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(LOOP_SCHEMA.shape)) if (Object.hasOwn(form, key)) ordered[key] = form[key];
  for (const key of Object.keys(form)) if (!Object.hasOwn(ordered, key)) ordered[key] = form[key];
  return ordered;
}

/** A loop.yaml path of an error, as the path of the same value in the saved form. */
function savedPath(sourcePath: string): string {
  for (const [key, savedKey] of LIMITS) {
    if (sourcePath === `budget.${key}` || sourcePath.startsWith(`budget.${key}.`)) return sourcePath.replace(`budget.${key}`, `budget.limits.${savedKey}`);
  }
  return sourcePath.replace(/^budget\.increments\.wall_clock\b/, 'budget.increments.wall_clock_seconds');
}

/**
 * Validates a policy built from others (the policy in force after a reload: the changed
 * sections of a loop.yaml read again over the sections kept as they were) through the
 * loop.yaml schema and file checks, so that a mix of two valid files is never taken on
 * trust (e.g. a budget that only the new file's agent could measure).
 *
 * @param shownAs named in errors, with the path (saved form) of each problem
 * @throws ConfigErrors when the mix is not a valid policy
 */
export function revalidatePolicy(policy: LoopPolicy, shownAs: string): void {
  try {
    parsePolicyFor(JSON.stringify(sourceForm(JSON.parse(savedPolicyText(policy)) as Record<string, unknown>)), policy.file, shownAs);
  } catch (error) {
    if (!(error instanceof ConfigErrors)) throw error;
    throw new ConfigErrors(error.errors.map((e) => new ConfigError(shownAs, e.path === '' ? null : savedPath(e.path), e.expected)));
  }
}

/** Paths where `found` differs from `expected` (at most `limit`), with both values. */
function differences(expected: unknown, found: unknown, at: string, out: Array<{ path: string; expected: unknown; found: unknown }>, limit: number): void {
  if (out.length >= limit || isDeepStrictEqual(expected, found)) return;
  if (isRecord(expected) && isRecord(found)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(found)])) {
      differences(expected[key], found[key], at ? `${at}.${key}` : key, out, limit);
    }
    return;
  }
  if (Array.isArray(expected) && Array.isArray(found) && expected.length === found.length) {
    expected.forEach((item, index) => differences(item, found[index], `${at}[${index}]`, out, limit));
    return;
  }
  out.push({ path: at, expected, found });
}

/** What a value is, for a difference message (`nothing` for a missing key). */
const shown = (value: unknown): string => (value === undefined ? 'nothing' : describeValue(value));

/** The first error of every rejected saved policy: what the file is and who writes it. */
function headline(file: string): ConfigError {
  return new ConfigError(file, null, 'expected the policy loopdeck run saved for this run (it is written once at start, never edited), found one that is not valid:');
}

/**
 * Parses and validates a run's saved policy: JSON, in the saved form, whose loop.yaml form
 * passes the loop.yaml schema and file checks (the transcript is readable, hook programs
 * resolve against the folder of the loop.yaml it names), and which is exactly what loopdeck
 * writes for the policy that results.
 *
 * @param file the path of `policy.json`, named in every error
 * @throws ConfigErrors naming `file` and the path in it of each problem (no line numbers:
 *   the values are checked in their loop.yaml form)
 */
export function parseSavedPolicy(text: string, file: string): LoopPolicy {
  const fail = (errors: ConfigError[]): never => {
    throw new ConfigErrors([headline(file), ...errors]);
  };
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch (error) {
    return fail([new ConfigError(file, null, `expected JSON, found text that does not parse (${(error as Error).message})`)]);
  }
  if (!isRecord(saved)) return fail([new ConfigError(file, '', `expected a JSON object, found ${describeValue(saved)}`)]);
  const configFile = saved.file;
  if (typeof configFile !== 'string' || !path.isAbsolute(configFile) || configFile.includes('\0')) {
    return fail([new ConfigError(file, 'file', `expected the absolute path of the loop.yaml the run was started with, found ${describeValue(configFile)}`)]);
  }
  let policy: LoopPolicy;
  try {
    policy = parsePolicyFor(JSON.stringify(sourceForm(saved)), configFile, file);
  } catch (error) {
    if (!(error instanceof ConfigErrors)) throw error;
    // Positions point into the rebuilt text, not the file: name the path alone.
    return fail(error.errors.map((e) => new ConfigError(file, e.path === '' ? null : savedPath(e.path), e.expected)));
  }
  const found: Array<{ path: string; expected: unknown; found: unknown }> = [];
  differences(JSON.parse(savedPolicyText(policy)), saved, '', found, MAX_LISTED_DIFFERENCES);
  if (found.length > 0) {
    return fail(found.map((d) => new ConfigError(file, d.path, `expected ${shown(d.expected)} (what loopdeck writes for this policy), found ${shown(d.found)}`)));
  }
  return policy;
}
