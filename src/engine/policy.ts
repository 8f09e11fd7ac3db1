import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { findProgram } from './program-path.js';
import { HOOK_TOPICS } from './hooks.js';
import { ConfigError, ConfigErrors } from './errors.js';
import { envValue } from './secrets.js';
import { parseRule } from './approval/approval-rules.js';
import { literalPrefix, parseShell } from './approval/shell-syntax.js';
import { metricNames, PARSERS, type ParserName } from './parsers/index.js';
import { compileMetricPattern } from './parsers/regex.js';
import { z } from 'zod';
import { stringify as stringifyYaml } from 'yaml';
import { REPORTED_FIELDS } from './checkpoint.js';
import { protectMatcher } from './constraints.js';
import { TRANSCRIPT_FORMATS } from './agents/transcripts/types.js';
import { DEFAULT_REPETITION_OPTIONS, type RepetitionOptions } from './repetition.js';
import { DURATION_PATTERN, MAX_TIMER_SECONDS, parseDuration } from './duration.js';
import { BUDGET_LIMIT_MAX, MAX_BUDGET_USD } from './budget-units.js';
import { isBlank } from './blank.js';
import { checkedAsNote, describeCharacter, describeValue, loadYamlWith, missingFileError, nearestKey, orList, parseYamlWith, withNote, type YamlProblem } from './yaml-file.js';
import type { BudgetLimits } from './types.js';
import { unboundedRun } from './unmeasured-usage.js';
import { loadTranscript } from './agents/scripted.js';
import { firstProgram } from './shell-program.js';
import { shownName } from '../text/sanitize.js';
import { shellQuote } from '../text/shell-quote.js';

/** Largest loop.yaml accepted, in bytes. */
export const MAX_CONFIG_BYTES = 256 * 1024;

// ---------------------------------------------------------------------------------------
// Value types. Every message says what was expected and what was found.

/**
 * A control character text in loop.yaml may not hold: every one (Unicode Cc) but tab and
 * newline, raw or escaped (`"\0"`, `"\e"`). A NUL cannot be passed to a process in a command
 * or a path, and the others act on the terminal that shows the goal.
 */
export const CONTROL_CHARACTER = /[^\P{Cc}\t\n]/u;

function controlCharacterMessage(input: unknown): string {
  const found = typeof input === 'string' ? CONTROL_CHARACTER.exec(input)?.[0] : undefined;
  const what = found === undefined ? '' : `${describeCharacter(found.charCodeAt(0))} in `;
  return `expected text without control characters (tab and newline aside), found ${what}${describeValue(input)}`;
}

/**
 * Text: the goal, commands, names, paths. Not blank (not even of characters drawn as
 * nothing, a zero-width space: {@link isBlank}), no control character but tab and newline.
 */
const text = z
  .string()
  // Checked as written (before the trim), so the message shows the value the file holds;
  // spaces alone and control characters have messages of their own.
  .refine((value) => value.trim() === '' || CONTROL_CHARACTER.test(value) || !isBlank(value), {
    error: (iss) => `expected a non-empty string, found ${describeValue(iss.input)} (only invisible characters)`,
  })
  .trim()
  .min(1)
  .refine((value) => !CONTROL_CHARACTER.test(value), { error: (iss) => controlCharacterMessage(iss.input) });

/**
 * What is wrong with a string written where a {@link text} or a mapping goes: the text's own
 * message (blank, only invisible characters, a control character), not the union's list of
 * forms. `undefined` for anything but a string.
 */
function textProblem(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  return text.safeParse(input).error?.issues[0]?.message;
}

/** YAML 1.1 booleans that YAML 1.2 reads as strings, and what to write instead. */
const YAML11_BOOLEANS: Record<string, boolean> = { yes: true, y: true, on: true, no: false, n: false, off: false };

function booleanMessage(input: unknown): string {
  const base = `expected true or false, found ${describeValue(input)}`;
  if (typeof input !== 'string') return base;
  const word = input.toLowerCase();
  if (word in YAML11_BOOLEANS) return `${base} (YAML 1.2 reads ${input} as a string; write ${YAML11_BOOLEANS[word]})`;
  if (word === 'true' || word === 'false') return `${base} (a quoted string; write ${word} without quotes)`;
  return base;
}

/** `true` or `false`, nothing else (`no`, `off`, `"true"` are errors with a hint). */
const bool = z.boolean({ error: (iss) => booleanMessage(iss.input) });

const UNLIMITED_HINT = '0 would not mean unlimited: write unlimited to remove the limit';

/** The largest a budget amount may be, and what it is (for the message). */
interface AmountBound {
  max: number;
  what: string;
}

/** Counts (turns, tool calls, tokens): the largest whole number a number holds exactly. */
const COUNT_BOUND: AmountBound = { max: BUDGET_LIMIT_MAX.turns, what: 'the largest whole number' };
/** USD: see {@link MAX_BUDGET_USD}. */
const USD_BOUND: AmountBound = { max: MAX_BUDGET_USD, what: 'USD' };

/** `expected at most <max> (<what>), found …`: an amount past its bound (`1e400` too, read as infinity). */
function boundMessage(bound: AmountBound, input: unknown, orUnlimited: boolean): string {
  return `expected at most ${bound.max} (${bound.what}${orUnlimited ? '; write unlimited to lift the limit' : ''}), found ${describeValue(input)}`;
}

/** Whether `input` is a number past `bound` (infinity too). */
function pastBound(input: unknown, bound: AmountBound): boolean {
  return typeof input === 'number' && input > bound.max;
}

/** What a limit that is not `what` nor `unlimited` says: past its bound, the bound; for `0` or an empty value, what to write instead. */
function limitMessage(what: string, input: unknown, bound: AmountBound): string {
  if (pastBound(input, bound)) return boundMessage(bound, input, true);
  const base = `expected ${what} or "unlimited", found ${describeValue(input)}`;
  if (input === 0) return `${base} (${UNLIMITED_HINT})`;
  if (input === null) return `${base} (write a number, or unlimited to remove the limit)`;
  return base;
}

const unlimited = z.literal('unlimited').transform(() => null);

/** A positive integer count, or `unlimited` (→ null). `0` and an empty value are errors. */
const countLimit = z
  .union(
    [
      z
        .int({ error: (iss) => limitMessage('a positive integer', iss.input, COUNT_BOUND) })
        .positive({ error: (iss) => limitMessage('a positive integer', iss.input, COUNT_BOUND) }),
      unlimited,
    ],
    { error: (iss) => limitMessage('a positive integer', iss.input, COUNT_BOUND) },
  )
  .meta({ title: 'count limit' });

/** A positive finite amount of USD up to {@link MAX_BUDGET_USD}, or `unlimited` (→ null). `0` and an empty value are errors. */
const amountLimit = z
  .union(
    [
      z
        .number({ error: (iss) => limitMessage('a positive number', iss.input, USD_BOUND) })
        .positive({ error: (iss) => limitMessage('a positive number', iss.input, USD_BOUND) })
        .max(MAX_BUDGET_USD, { error: (iss) => boundMessage(USD_BOUND, iss.input, true) }),
      unlimited,
    ],
    { error: (iss) => limitMessage('a positive number', iss.input, USD_BOUND) },
  )
  .meta({ title: 'amount limit' });

/** What a budget increment past its bound says; other problems get the shared messages (`undefined`). */
function incrementMessage(bound: AmountBound) {
  return (iss: { input?: unknown }) => (pastBound(iss.input, bound) ? boundMessage(bound, iss.input, false) : undefined);
}

/** A count a budget pause offers to add (turns, tool calls, tokens): a positive integer. */
const countIncrement = z.int({ error: incrementMessage(COUNT_BOUND) }).positive();

/** USD a budget pause offers to add: a positive amount up to {@link MAX_BUDGET_USD}. */
const usdIncrement = z.number({ error: incrementMessage(USD_BOUND) }).positive().max(MAX_BUDGET_USD, { error: incrementMessage(USD_BOUND) });

const DURATION_EXPECTED = 'expected a duration like 90s, 10m or 1h30m';

/** The longest a duration may be, and why (for the message). */
interface DurationBound {
  seconds: number;
  why: string;
}

const TIMER_BOUND: DurationBound = { seconds: MAX_TIMER_SECONDS, why: '24 days, the longest timer loopdeck can keep' };
const BUDGET_BOUND: DurationBound = { seconds: BUDGET_LIMIT_MAX.wall_clock_seconds, why: '365 days' };

function durationMessage(input: unknown, orUnlimited: boolean, bound: DurationBound): string {
  const seconds = typeof input === 'string' ? parseDuration(input) : null;
  if (seconds !== null && seconds > bound.seconds) return `expected a duration of at most ${bound.seconds / 3600}h (${bound.why}), found ${describeValue(input)}`;
  if (typeof input === 'number' && input > bound.seconds) return `expected a duration of at most ${bound.seconds / 3600}h (${bound.why}), found ${describeValue(input)} (a bare number has no unit)`;
  const base = `${DURATION_EXPECTED}${orUnlimited ? ' (or "unlimited")' : ''}, found ${describeValue(input)}`;
  if (typeof input === 'number' && input > 0 && Number.isInteger(input)) return `${base} (a bare number has no unit: write ${input}s)`;
  if (input === 0 && orUnlimited) return `${base} (${UNLIMITED_HINT})`;
  if (typeof input === 'string' && /^\d+:\d+(?::\d+)?$/.test(input)) return `${base} (hh:mm is not read as a time: write e.g. 1h30m)`;
  return base;
}

/** A duration string (`90s`, `10m`, `1h30m`) → seconds, at most `bound.seconds`. */
function durationUpTo(bound: DurationBound) {
  return z
    .string({ error: (iss) => durationMessage(iss.input, false, bound) })
    .transform((value, ctx) => {
      const seconds = parseDuration(value);
      if (seconds === null || seconds > bound.seconds) {
        ctx.addIssue({ code: 'custom', message: durationMessage(value, false, bound) });
        return z.NEVER;
      }
      return seconds;
    })
    .meta({ title: 'duration', pattern: DURATION_PATTERN });
}

/** A duration or `unlimited` (→ null), at most `bound.seconds`. */
function durationOrUnlimited(bound: DurationBound) {
  return z.union([unlimited, durationUpTo(bound)], { error: (iss) => durationMessage(iss.input, true, bound) }).meta({ title: 'duration or unlimited' });
}

/** A duration that sets a timer → seconds, at most {@link MAX_TIMER_SECONDS}. */
const duration = durationUpTo(TIMER_BOUND);

/** A wall-clock budget → seconds, at most `BUDGET_LIMIT_MAX.wall_clock_seconds` (8760h). */
const budgetDuration = durationUpTo(BUDGET_BOUND);

/** A positive integer (sizes, counts that cannot be unlimited). */
const positiveInt = z.int().positive();

/** Largest `output_limit_bytes`: output is held in memory and sent to the agent. */
export const MAX_OUTPUT_LIMIT_BYTES = 16 * 1024 * 1024;

/** A number of output bytes kept: a positive integer up to {@link MAX_OUTPUT_LIMIT_BYTES}. */
const outputLimit = positiveInt.max(MAX_OUTPUT_LIMIT_BYTES, {
  error: (iss) => `expected at most ${MAX_OUTPUT_LIMIT_BYTES} bytes (16 MiB: output is kept in memory), found ${describeValue(iss.input)}`,
});

/** A path relative to the workspace that stays inside it. */
const workspaceRelativePath = text.refine((value) => !path.isAbsolute(value) && !value.split(/[\\/]/).includes('..'), {
  error: (iss) => `expected a path relative to the workspace, inside it, found ${describeValue(iss.input)}`,
});

// ---------------------------------------------------------------------------------------
// Sections

/** A glob of paths relative to the workspace that picomatch can read. */
const protectPattern = text.superRefine((pattern, ctx) => {
  if (path.isAbsolute(pattern) || pattern.split('/').includes('..')) {
    ctx.addIssue({ code: 'custom', message: `expected a glob relative to the workspace, inside it (like test/**), found ${describeValue(pattern)}` });
    return;
  }
  try {
    protectMatcher([pattern]);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `expected a glob like test/**, found ${describeValue(pattern)} (${(error as Error).message})` });
  }
});

const checkedConstraint = z
  .strictObject({
    text: text.describe('The constraint as the agent reads it.'),
    protect: z
      .array(protectPattern)
      .min(1, { error: (iss) => `expected at least one glob, found ${describeValue(iss.input)}` })
      .optional()
      .describe('Globs relative to the workspace (`**` any depth, dot files included): a path matching one that was added, modified, deleted or renamed since the run started is a violation. Needs a git workspace; outside git the check says it cannot be evaluated.'),
    command: text.optional().describe('A shell command run in the workspace at each checkpoint: exit 0 keeps the constraint, another exit code violates it; one that cannot run is an error, never a pass.'),
    timeout: duration.prefault('2m').describe('Longest `command` may run; past it the check is an error.'),
  })
  .refine((c) => c.protect !== undefined || c.command !== undefined, { error: 'expected protect or command (a constraint without a check is written as plain text)' });

/**
 * A constraint that is neither a text nor a mapping. A mapping is checked as `{ text,
 * protect | command }` and its own problems are reported at their paths (yaml-file.ts picks
 * the branch of a union that was meant).
 */
function constraintMessage(iss: { input?: unknown }): string {
  return textProblem(iss.input) ?? `expected a text or { text, protect | command }, found ${describeValue(iss.input)}`;
}

const constraintSchema = z.union([text, checkedConstraint], { error: constraintMessage });

/** A success criterion's command check: exit `expect_exit` (default 0) is a pass. */
const commandCheck = z.strictObject({
  command: text.describe('A shell command run in the workspace at each checkpoint and before the goal is judged met.'),
  timeout: duration.prefault('2m').describe('Longest the command may run; past it the criterion is BLOCKED.'),
  expect_exit: z
    .int({ error: (iss) => `expected an exit code from 0 to 125, found ${describeValue(iss.input)}` })
    .min(0, { error: (iss) => `expected an exit code from 0 to 125, found ${describeValue(iss.input)}` })
    .max(125, { error: (iss) => `expected an exit code from 0 to 125 (126 and 127 are the shell's own: the command could not run), found ${describeValue(iss.input)}` })
    .default(0)
    .describe('The exit code that meets the criterion (default 0).'),
});

/** Whether `input` is anything but an infinite number (which is past the range a number takes, not of another type). */
function isFiniteOrNotNumber(input: unknown): boolean {
  return typeof input !== 'number' || Number.isFinite(input) || Number.isNaN(input);
}

/** A success criterion's signal check: an observed metric compared with a target. */
const signalCheck = z.strictObject({
  signal: z
    .string()
    .refine((s) => SIGNAL_PATTERN.test(s), { error: (iss) => `expected an observed signal like observed.tests.failing, found ${describeValue(iss.input)}` })
    .describe('An observed metric, `observed.<name>.<metric>`, as the observers measured it at the checkpoint.'),
  // Infinity (`1e400`) gets the shared message, which names the range of a number.
  target: z.number({ error: (iss) => (isFiniteOrNotNumber(iss.input) ? `expected a number, found ${describeValue(iss.input)}` : undefined) }).describe('The value that meets the criterion.'),
  op: z.enum(['==', '>=', '<=']).default('==').describe('How the value is compared with the target (default `==`).'),
});

/**
 * A check that is not a mapping. A mapping is one of the two forms, told apart by `command`
 * or `signal`; its own problems are reported at their paths, and one with both keys or
 * neither is named as such (yaml-file.ts).
 */
function checkMessage(iss: { input?: unknown }): string {
  return `expected { command, timeout?, expect_exit? } or { signal, target, op? }, found ${describeValue(iss.input)}`;
}

const criterionCheck = z.union([commandCheck, signalCheck], { error: checkMessage });

const checkedCriterion = z.strictObject({
  text: text.describe('The criterion as the agent and the operator read it.'),
  check: criterionCheck.optional().describe('How the harness checks it: `{ command, timeout?, expect_exit? }` or `{ signal, target, op? }`. Without one the criterion is not checkable.'),
});

/** A criterion that is neither a text nor a mapping (a mapping's own problems are reported at their paths). */
function criterionMessage(iss: { input?: unknown }): string {
  return textProblem(iss.input) ?? `expected a text or { text, check }, found ${describeValue(iss.input)}`;
}

const criterionSchema = z.union([text, checkedCriterion], { error: criterionMessage });

const goalSchema = z
  .strictObject({
    objective: text.describe('What the loop must achieve, in one sentence the agent sees every turn.'),
    success_criteria: z
      .array(criterionSchema)
      .prefault([])
      .describe('How the goal is judged; shown to the agent. A text (not checkable), or `{ text, check }`: a row of the acceptance matrix whose status the harness derives from its check.'),
    constraints: z
      .array(constraintSchema)
      .prefault([])
      .describe('What must not happen (e.g. "do not edit the tests"): a text, or `{ text, protect, command }` with checks run at each checkpoint.'),
    on_violation: z
      .enum(['alert', 'pause', 'stop'])
      .default('pause')
      .describe('What follows a checked constraint found violated at a checkpoint: `alert` goes on, `pause` asks the operator, `stop` ends the run `stopped`.'),
    priority: z.enum(['high', 'normal', 'low']).default('normal').describe('How the goal ranks against other work; shown to the agent.'),
    sub_goals: z
      .array(
        z.strictObject({
          objective: text.describe('A part of the goal, worked towards within it.'),
          success_criteria: z.array(text).default([]).describe('How this part is judged.'),
        }),
      )
      .default([])
      .describe('Parts of the goal; each has the goal as its parent.'),
  })
  .describe('The structured goal the agent works towards.');

/** An observer's name: the prefix of its metrics (and the form of a regex pattern's group names). */
const OBSERVER_NAME = /^[a-z][a-z0-9_]*$/;

const observeSchema = z
  .strictObject({
    name: z
      .string()
      .regex(OBSERVER_NAME, { error: (iss) => `expected a lower-case metric prefix like "tests", found ${describeValue(iss.input)}` })
      .describe('Prefix of the metrics this command yields: `tests` gives `observed.tests.failing`, ...; each observer has a name of its own.'),
    command: text.describe('Shell command the harness runs in the workspace at each checkpoint.'),
    parser: z.enum(PARSERS).describe('How the output is read into metrics.'),
    pattern: z
      .string()
      .optional()
      .describe('`parser: regex` only: a pattern with named groups, each a metric `<name>.<group>`.'),
    report_file: workspaceRelativePath.optional().describe('A report the command writes (relative to the workspace, inside it), read instead of stdout.'),
    timeout: duration.prefault('120s').describe('Longest the command may run; past it the metrics are missing.'),
    output_limit_bytes: outputLimit.optional().describe('Most output bytes kept for parsing.'),
  })
  .superRefine((spec, ctx) => {
    if (spec.parser !== 'regex') {
      if (spec.pattern !== undefined) ctx.addIssue({ code: 'custom', path: ['pattern'], message: `pattern applies only to parser: regex, found parser: ${spec.parser}` });
      return;
    }
    if (spec.pattern === undefined) {
      ctx.addIssue({ code: 'custom', path: ['parser'], message: 'parser: regex needs a pattern with named groups, found no pattern' });
      return;
    }
    const problem = metricPatternProblem(spec.pattern);
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: problem });
  })
  .describe('A command whose output the harness turns into `observed.*` metrics.');

/** What is wrong with a `parser: regex` observer's pattern (it does not compile, or a group is not named as a metric), or `null`. */
function metricPatternProblem(pattern: string): string | null {
  try {
    const bad = compileMetricPattern(pattern).groups.find((g) => !OBSERVER_NAME.test(g));
    return bad === undefined ? null : `expected group names of lower-case letters, digits and _, found "${bad}"`;
  } catch (error) {
    // Located at the pattern itself: only what was expected, not the parser's own place.
    return error instanceof ConfigError ? error.expected : (error as Error).message;
  }
}

/** An observed progress signal: `observed.<observer name>.<metric>`. */
const SIGNAL_PATTERN = /^observed\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

const signalSchema = z.strictObject({
  signal: z
    .string()
    .refine((s) => !s.startsWith('reported.'), {
      message: 'a reported.* path cannot measure progress: only observed.* signals can (observed beats reported)',
    })
    .refine((s) => s.startsWith('reported.') || SIGNAL_PATTERN.test(s), {
      error: (iss) => `expected an observed signal like observed.tests.failing, found ${describeValue(iss.input)}`,
    })
    .describe('An observed metric, `observed.<name>.<metric>` (never `reported.*`).'),
  direction: z.enum(['increase', 'decrease']).describe('Which way the metric moves when the work progresses.'),
});

const approvalRule = z.string().superRefine((rule, ctx) => {
  try {
    parseRule(rule);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.expected });
  }
});

/** Built-in operator policies in src/hooks/, enabled by name. */
export const BUILTIN_HOOKS = ['approval-gate', 'destructive-deny', 'trace-writer'] as const;

const commandHookSchema = z.strictObject({
  name: text.describe('Name shown in events and errors.'),
  topic: z.enum(HOOK_TOPICS).describe('The hook topic the command runs on.'),
  command: text.describe('Shell command, run with `sh -c` (built-ins, `&&`, `( … )` work; its first program must exist); receives the topic payload as JSON on stdin.'),
  timeout: duration.optional().describe('Longest the command may run (default: `hook_timeout`).'),
  on_hook_error: z.enum(['block', 'allow']).optional().describe('What a failing hook does to the guarded action.'),
});

function hookMessage(input: unknown): string {
  const near = typeof input === 'string' ? nearestKey(input, BUILTIN_HOOKS) : undefined;
  return `expected a built-in hook (${BUILTIN_HOOKS.join(', ')}) or { name, topic, command }, found ${describeValue(input)}${near ? `; did you mean "${near}"?` : ''}`;
}

const hookSchema = z.union([z.enum(BUILTIN_HOOKS), commandHookSchema], { error: (iss) => hookMessage(iss.input) });

/**
 * Why `url` is not an endpoint an OpenAI-compatible client can call (not a URL, or another
 * scheme than http and https), or `null` when it is one.
 */
export function httpUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? null : `the scheme ${parsed.protocol.slice(0, -1)} is not http or https`;
}

const AGENT_KINDS = ['scripted', 'openai', 'command'] as const;

function agentMessage(input: unknown): string {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return `expected a mapping with kind: ${AGENT_KINDS.join(', ')}, found ${describeValue(input)}`;
  }
  const kind = (input as Record<string, unknown>).kind;
  const near = agentKindOf(input as Record<string, unknown>);
  return `expected kind: scripted, openai or command, found ${describeValue(kind)}${near ? `; did you mean "${near}"?` : ''}`;
}

/**
 * The kind of agent a plain `agent` mapping is checked as: its `kind` when it is one, else
 * the kind its misspelling is nearest to (`scriptd`: scripted), as the schema's own check
 * does, so one pass lists the section's other problems too. `undefined` when none is near.
 */
function agentKindOf(agent: Record<string, unknown>): (typeof AGENT_KINDS)[number] | undefined {
  const kind = agent.kind;
  if (typeof kind !== 'string') return undefined;
  return AGENT_KINDS.find((k) => k === kind) ?? AGENT_KINDS.find((k) => k === nearestKey(kind, AGENT_KINDS));
}

const agentSchema = z
  .discriminatedUnion(
    'kind',
    [
      z
        .strictObject({
          kind: z.literal('scripted'),
          script: text.describe('`kind: scripted`: the transcript to replay (relative to this file).'),
        })
        .describe('Replays a transcript: no model needed.'),
      z
        .strictObject({
          kind: z.literal('openai'),
          model: text.describe('`kind: openai`: the model name.'),
          base_url: text
            .superRefine((url, ctx) => {
              const problem = httpUrlProblem(url);
              if (problem !== null) ctx.addIssue({ code: 'custom', message: `expected an http:// or https:// URL like http://localhost:11434/v1, found ${describeValue(url)}: ${problem}` });
            })
            .optional()
            .describe('`kind: openai`: any OpenAI-compatible endpoint, an http:// or https:// URL (default: OPENAI_BASE_URL or OpenAI).'),
          api_key_env: text
            .optional()
            .describe(
              '`kind: openai`: the environment variable holding the key (never the key itself); it must be set. Unnamed: OPENAI_API_KEY, sent only to the OpenAI API (no base_url); another base_url then gets no key.',
            ),
          temperature: z.number().min(0).max(2).optional().describe('`kind: openai`: sampling temperature, 0 to 2.'),
          max_retries: z
            .int()
            .nonnegative()
            .default(3)
            .describe('`kind: openai`: retries of a failed request, and of a stream that broke off before it was complete.'),
          request_timeout: duration
            .prefault('10m')
            .describe('`kind: openai`: longest one model request may take in all: sending it, the streamed answer, and its retries and the waits before them. Past it the turn fails.'),
          stream_idle_timeout: duration
            .prefault('2m')
            .describe('`kind: openai`: longest silence while waiting for the server (before the answer starts, or between two pieces of it); then the request is cancelled and retried within `max_retries`.'),
          max_retry_wait: duration
            .prefault('1m')
            .describe("`kind: openai`: longest wait before a retry, whatever the server's `Retry-After` asks; a pause, quit or abort ends the wait at once."),
          max_tokens: z
            .int()
            .positive()
            .optional()
            .describe("`kind: openai`: the longest answer the model may give, in tokens (sent as `max_tokens`); unset: the server's default."),
          context_tokens: z
            .int()
            .min(1024)
            .max(100_000_000)
            .optional()
            .describe(
              "`kind: openai`: the model's context window in tokens (request and answer). Unset: the known window of the model family (gpt-4o 128000, gpt-4.1 1047576, claude 200000, deepseek 64000, ...), else 8192. Set it to what the server was started with (Ollama `num_ctx`, llama.cpp `--ctx-size`, vLLM `--max-model-len`).",
            ),
          compact_at: z
            .number()
            .min(0.1)
            .max(0.95)
            .default(0.75)
            .describe('`kind: openai`: compact the conversation when the next request would pass this fraction of `context_tokens` (estimated at one token per 3 bytes); the rest is left for the answer.'),
          keep_turns: z.int().min(1).max(1000).default(4).describe('`kind: openai`: newest turns a compaction keeps whole; older tool outputs are cut to their first and last lines.'),
        })
        .describe('A model behind an OpenAI-compatible endpoint.'),
      z
        .strictObject({
          kind: z.literal('command'),
          command: text.describe('`kind: command`: the external agent CLI to run each lap, a shell command run with `sh -c` in the workspace (its first program must exist; written as a relative path, it is found from this file\'s folder).'),
          prompt: z.enum(['stdin', 'argument']).default('stdin').describe('`kind: command`: how the prompt is passed.'),
          timeout: duration.prefault('30m').describe('`kind: command`: longest one agent run may take.'),
          env_passthrough: z.array(text).default([]).describe('`kind: command`: environment variables the agent may see.'),
          output: z
            .enum(['auto', ...TRANSCRIPT_FORMATS])
            .default('auto')
            .describe(
              '`kind: command`: the structured output the agent prints, parsed into its messages, tool calls and usage: `claude-stream-json` (`claude -p --output-format stream-json --verbose`), `codex-json` (`codex exec --json`), `gemini-stream-json` (`gemini -p --output-format stream-json`), `text` (none), or `auto` (detected from the first JSON line).',
            ),
          approvals: z
            .enum(['auto', 'bridge', 'parse-only'])
            .default('auto')
            .describe(
              "`kind: command`: who approves the agent's tool calls. `bridge`: loopdeck starts the CLI with a per-run pre-tool hook (Claude Code `--settings <file>`, Codex `-c hooks.PreToolUse=...`, Gemini CLI `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`) that asks loopdeck over the run's socket, so each call meets the approval rules and the operator's prompt; the user's own settings are never edited. `parse-only`: the CLI's own approval mode decides, loopdeck only reads its output. `auto`: `bridge` when the CLI is known from `output` (or the command's program name `claude`, `codex`, `gemini`), else `parse-only`.",
            ),
        })
        .describe('An external agent CLI, run as a process.'),
    ],
    { error: (iss) => agentMessage(iss.input) },
  )
  .describe('Who does the work: `kind: scripted | openai | command`.');

const BUDGET_KEYS = ['max_iterations', 'max_tool_calls', 'max_wall_clock', 'max_tokens', 'max_cost_usd'] as const;

const budgetSchema = z
  .strictObject({
    max_iterations: countLimit.prefault(50).describe('Agent turns, cumulative for the run.'),
    max_tool_calls: countLimit.prefault(100).describe('Tool calls, cumulative for the run.'),
    max_wall_clock: durationOrUnlimited(BUDGET_BOUND).prefault('30m').describe('Active time; waiting for the operator does not count.'),
    max_tokens: countLimit.prefault('unlimited').describe('Input plus output tokens.'),
    max_cost_usd: amountLimit.prefault('unlimited').describe('Cost in USD, priced by `pricing`.'),
    warn_fraction: z.number().gt(0).lte(1).default(0.8).describe('`budget.warn` fires once per dimension past this fraction of its limit.'),
    on_exhausted: z.enum(['pause', 'abort']).default('pause').describe('At a limit, after the verifier (work that passes ends the run goal_met): pause for the operator, or abort the run (stash and report).'),
    increments: z
      .strictObject({
        turns: countIncrement.default(10).describe('Turns added by "raise the limit".'),
        tool_calls: countIncrement.default(20).describe('Tool calls added by "raise the limit".'),
        wall_clock: budgetDuration.prefault('10m').describe('Time added by "raise the limit".'),
        tokens: countIncrement.default(50_000).describe('Tokens added by "raise the limit".'),
        cost_usd: usdIncrement.default(1).describe('USD added by "raise the limit".'),
      })
      .prefault({})
      .describe('What a budget pause offers to add to the exhausted dimension.'),
  })
  .superRefine((budget, ctx) => {
    const unbounded = [budget.max_iterations, budget.max_tool_calls, budget.max_wall_clock, budget.max_tokens, budget.max_cost_usd];
    if (unbounded.every((limit) => limit === null)) {
      ctx.addIssue({
        code: 'custom',
        message: `expected at least one bound, found every limit unlimited (${BUDGET_KEYS.join(', ')}): a run with no bound would never stop`,
      });
    }
  })
  .prefault({})
  .describe('Limits checked at the start of every step, in this order. Write `unlimited` to lift one; at least one must stay bounded.');

const repetitionSchema = z
  .strictObject({
    window: z
      .int()
      .min(2)
      .default(DEFAULT_REPETITION_OPTIONS.window)
      .describe('Most recent non-exempt calls a repeat is counted in (this call included).'),
    threshold: z
      .int()
      .min(2)
      .default(DEFAULT_REPETITION_OPTIONS.threshold)
      .describe('Identical calls in the window (or turns of a short cycle) that make a detection; at most `window`.'),
    exempt_tools: z.array(text).default([]).describe('Tools never counted (e.g. a `wait` tool).'),
    ignore_arg_keys: z.array(text).default([]).describe('Argument keys dropped before comparing calls, at any depth.'),
    include_result: bool.default(DEFAULT_REPETITION_OPTIONS.include_result).describe('Excuse repeats whose earlier results all differ (progress polling).'),
    on_detect: z.enum(['alert', 'pause', 'stop']).default('pause').describe('What follows a detection.'),
  })
  .superRefine((rep, ctx) => {
    if (Number.isInteger(rep.window) && rep.window >= 2 && Number.isInteger(rep.threshold) && rep.threshold > rep.window) {
      ctx.addIssue({ code: 'custom', path: ['threshold'], message: `expected at most repetition.window (${rep.window}), found ${rep.threshold}` });
    }
  })
  .prefault({})
  .describe('The guard against the same tool call (or a short cycle of calls) over and over.');

/**
 * The repetition guard's settings checked by the same schema that loads loop.yaml, for a
 * policy that did not come through the loader (a run's saved `policy.json` on resume).
 * @throws ConfigErrors naming `repetition.<key>` in `file` for each problem
 */
export function repetitionSettings(input: unknown, file: string): RepetitionOptions {
  // Through the same messages as loop.yaml: the object is written as YAML first; its lines
  // would point into text nobody saw, so only the paths are kept.
  let parsed: z.output<typeof repetitionSchema>;
  try {
    parsed = parseYamlWith(repetitionSchema, stringifyYaml(input ?? {}), file);
  } catch (error) {
    if (!(error instanceof ConfigErrors)) throw error;
    throw new ConfigErrors(error.errors.map((e) => new ConfigError(file, e.path ? `repetition.${e.path}` : 'repetition', e.expected)));
  }
  const { on_detect: _onDetect, ...options } = parsed;
  return options;
}

const lapsSchema = z
  .strictObject({
    enabled: bool.default(false).describe('Run fresh laps: a new agent with an empty history each lap.'),
    max_laps: positiveInt.default(5).describe('Laps at most; the run ends `exhausted` after the last.'),
    max_consecutive_failures: positiveInt.default(3).describe('Laps in a row that end in an error before the run ends `failed` (the agent cannot go on; nothing is stashed).'),
    progress_file: workspaceRelativePath.default('PROGRESS.md').describe('Hand-over file between laps, relative to the workspace.'),
  })
  .prefault({})
  .describe('Fresh laps, for external CLI agents run lap after lap.');

const workspaceSchema = z
  .strictObject({
    path: text.describe('The folder the agent works in (relative to this file).'),
    copy: z.enum(['temp', 'none']).default('none').describe('`temp` works on a temporary git-initialised copy; `none` in place.'),
  })
  .describe('Where the agent works.');

const loopSchema = z
  .strictObject({
    goal: goalSchema,
    pattern: z
      .enum(['react', 'plan-and-execute', 'reflexion', 'auto'])
      .default('react')
      .describe('How the agent works: `auto` picks from `task`.'),
    patterns: z
      .strictObject({
        plan_and_execute: z
          .strictObject({ max_replans: z.int().nonnegative().default(2).describe('Replans after a failed step.') })
          .prefault({})
          .describe('Settings of `pattern: plan-and-execute`.'),
        reflexion: z
          .strictObject({ max_attempts: positiveInt.default(3).describe('Attempts, each after a reflection on the last.') })
          .prefault({})
          .describe('Settings of `pattern: reflexion`.'),
      })
      .prefault({})
      .describe('Settings of each pattern.'),
    task: z
      .strictObject({
        known_procedure: bool.default(false).describe('The steps are known in advance (favours plan-and-execute).'),
        exploratory: bool.default(false).describe('The path is unknown (favours react).'),
        quality_critical: bool.default(false).describe('Output must be checked and retried (favours reflexion).'),
        complex: bool.default(false).describe('Many dependent steps.'),
      })
      .prefault({})
      .describe('What the task is like; read by `pattern: auto`.'),
    agent: agentSchema,
    workspace: workspaceSchema,
    budget: budgetSchema,
    pricing: z
      .strictObject({
        input_per_million_usd: z.number().nonnegative().default(0).describe('USD per million input tokens.'),
        output_per_million_usd: z.number().nonnegative().default(0).describe('USD per million output tokens (reasoning tokens are output tokens).'),
        cached_input_per_million_usd: z
          .number()
          .nonnegative()
          .optional()
          .describe('USD per million input tokens the server read from its prompt cache (as it reports them); unset: the input price.'),
      })
      .prefault({})
      .describe('Token prices for `budget.max_cost_usd`.'),
    checkpoint: z
      .strictObject({ every_iterations: positiveInt.default(3).describe('Iterations between checkpoints.') })
      .prefault({})
      .describe('When the harness records a checkpoint (observed metrics and reported claims).'),
    observe: z.array(observeSchema).prefault([]).describe('Commands the harness runs to measure progress itself.'),
    progress: z
      .strictObject({
        observed: z.array(signalSchema).default([]).describe('Signals that show progress when they move the declared way.'),
        reported: z
          .strictObject({
            track: z
              .array(z.enum(REPORTED_FIELDS))
              .default(['new_evidence', 'eliminated_hypotheses'])
              .describe('Reported fields that make `claimed_progress` when non-empty.'),
            resets_stagnation: z
              .literal(false, { error: (iss) => `expected false (reported claims never reset stagnation: only observed progress does), found ${describeValue(iss.input)}` })
              .default(false)
              .describe('Always false: a claim never resets the stagnation counter.'),
          })
          .prefault({})
          .describe("The agent's claims: shown and checked, never counted as progress."),
        assess: bool
          .default(false)
          .describe(
            'At each checkpoint, ask the agent to assess each success criterion (met, partly, not) with a one-line reason. Recorded and shown as reported beside what the harness measured, never counted as progress; the request counts against tokens and cost, not iterations. Command agents cannot be asked (said once).',
          ),
      })
      .prefault({})
      .describe('What counts as progress. Only observed signals can show it.'),
    stagnation: z
      .strictObject({
        checkpoints_without_observed_progress: positiveInt.default(3).describe('Checkpoints in a row without observed progress that raise STAGNATION_DETECTED.'),
        on_detect: z.enum(['alert', 'pause', 'stop']).default('pause').describe('What follows STAGNATION_DETECTED.'),
        on_unknown: z
          .enum(['alert', 'pause', 'stop'])
          .default('alert')
          .describe('What follows two UNKNOWN checkpoints in a row (no tracked signal could be measured); `stop` ends the run `stopped`, never stashing.'),
      })
      .prefault({})
      .describe('When no observed progress becomes an alert.'),
    repetition: repetitionSchema,
    verify: z
      .array(
        z.strictObject({
          command: text.describe('A command that must exit 0.'),
          timeout: duration.prefault('5m').describe('Longest the command may run.'),
        }),
      )
      .min(1, { error: (iss) => `expected at least one verify command, found ${describeValue(iss.input)}` })
      .describe('Commands that must pass for the goal to be met: the agent saying so is not enough.'),
    approval: z
      .strictObject({
        default: z
          .enum(['ask', 'allow', 'deny'])
          .default('ask')
          .describe(
            'What a tool call no rule matches gets. `allow` never allows a shell command that is compound (`;`, `&&`, `|`) or dynamic (`$HOME`, `$(…)`, globs): the approval gate asks about it (denied without a terminal), unless `builtin_gates: off`.',
          ),
        allow: z.array(approvalRule).default([]).describe('Rules like `read_file` (a whole tool) or `shell: git status` (a literal command prefix).'),
        deny: z.array(approvalRule).default([]).describe('Checked against every part of a command; wins over allow.'),
        timeout: durationOrUnlimited(TIMER_BOUND).prefault('30m').describe('An approval waiting longer than this is denied, never approved.'),
        builtin_gates: z
          .enum(['on', 'off'])
          .default('on')
          .describe(
            '`on`: the approval gate and the destructive-command guard always run first in `before_tool_call`, whatever `hooks` lists. `off` removes both (only what `hooks` lists decides); `validate`, headless runs and the console header warn about it.',
          ),
      })
      .prefault({})
      .describe('Which tool calls run, are refused, or are asked about.'),
    laps: lapsSchema,
    hooks: z
      .array(hookSchema)
      .prefault([])
      .describe(
        `Operator policies: built-ins by name (${BUILTIN_HOOKS.join(', ')}) or { name, topic, command }, run in the order written after the approval gate and the destructive-command guard (which always run first unless \`approval.builtin_gates: off\`).`,
      ),
    hook_timeout: duration.prefault('5s').describe('Default timeout of a command hook.'),
    on_abort: z
      .strictObject({
        stash: bool.default(true).describe('Park the workspace folder (only it, never `.loopdeck/`) with `git stash push --include-untracked`; `false` leaves it as it is.'),
        report: bool.default(true).describe('Write `failure-report.json` (reason, stashed paths, how to restore) into the run directory.'),
      })
      .prefault({})
      .describe('What an abort leaves behind.'),
    tools: z
      .strictObject({
        shell_timeout: duration.prefault('2m').describe('Longest a shell tool call may run.'),
        output_limit_bytes: outputLimit.default(16 * 1024).describe('Most output bytes a tool returns to the agent.'),
      })
      .prefault({})
      .describe('Limits of the built-in tools.'),
  })
  .meta({
    title: 'loopdeck loop.yaml',
    description: 'The loop contract: goal, budget, checkpoints and exit criteria as data (docs/loop-yaml.md).',
  });

/**
 * The zod schema of loop.yaml, before the checks that need the file's directory. The one
 * place where keys, types and defaults are defined: `npm run schema` generates
 * `schema/loop.schema.json` and `docs/loop-yaml.md` from it.
 */
export const LOOP_SCHEMA = loopSchema;

type RawPolicy = z.output<typeof loopSchema>;

/**
 * The program a shell command runs, as a shell would find it: leading variable assignments
 * (`GUARD_MODE=strict ./deny.sh`) are not the program, quotes are removed. Parsed with the
 * same shell parser the approval rules use; a command it cannot parse, or whose program word
 * is not literal, falls back to the first word that is not an assignment.
 */
export function programWord(command: string): string {
  const parsed = parseShell(command);
  if (parsed.ok) {
    // The first command of a list or pipeline: descend into the left side of `&&`, `|`, ...
    let cmd = parsed.file.Stmts[0]?.Cmd as { X?: { Cmd?: unknown }; Args?: unknown[] } | undefined | null;
    while (cmd && !cmd.Args && cmd.X) cmd = cmd.X.Cmd as typeof cmd;
    const prefix = cmd?.Args ? literalPrefix(cmd as never, parsed.source) : [];
    if (prefix.length > 0) return prefix[0]!;
  }
  return command.trim().split(/\s+/).find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) ?? '';
}

/**
 * The first program a shell command starts ({@link firstProgram}: past the shell's built-ins
 * and keywords), resolved to an executable file; `null` when it is not found, or when no
 * program can be named from the text (only built-ins, or an expansion, `cd`, ...).
 */
export function resolveProgram(command: string, baseDir: string): string | null {
  const first = firstProgram(command);
  return first.kind === 'program' ? findProgram(first.word, baseDir) : null;
}

/**
 * `command` with its first program ({@link firstProgram}), when that is written as a
 * relative path (`./agent.sh`, `bin/agent`), replaced by that path resolved against
 * `baseDir` and quoted as one shell word: the command can then run in another folder (a
 * command agent runs in the workspace) and still start the program `validate` checked
 * ({@link programProblem} resolves it against the same folder). Anything else is returned
 * as it is: a name looked up on PATH, an absolute path, a `~` path, a command whose first
 * program cannot be known from the text.
 */
export function anchorProgram(command: string, baseDir: string): string {
  const first = firstProgram(command);
  if (first.kind !== 'program' || !first.word.includes('/') || path.isAbsolute(first.word) || first.word.startsWith('~')) return command;
  const bytes = Buffer.from(command, 'utf8');
  const [from, to] = first.at;
  return `${bytes.subarray(0, from).toString('utf8')}${shellQuote(path.resolve(baseDir, first.word))}${bytes.subarray(to).toString('utf8')}`;
}

/**
 * Why `sh -c command` cannot start its first program: that program is neither a built-in
 * of the shell nor an executable file (on PATH, or at a path relative to `baseDir`). `null`
 * when it is one, when only built-ins run, or when the program cannot be known from the
 * text (then the run says it, if it fails to start).
 */
function programProblem(command: string, baseDir: string): string | null {
  const first = firstProgram(command);
  if (first.kind !== 'program' || findProgram(first.word, baseDir) !== null) return null;
  return `expected an executable program or a shell built-in (the command runs through sh -c), found none for ${describeValue(first.word)}`;
}


/**
 * Why `file` (relative to `baseDir`) is not a readable regular file, or `undefined` when it is.
 * @param configName the name of the loop.yaml, for the hint on relative paths
 */
function unreadableFile(file: string, baseDir: string, configName: string): string | undefined {
  const resolved = path.resolve(baseDir, file);
  const cannotRead = (error: unknown) => `expected a readable file, found one it cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)}) at ${resolved}`;
  let stat;
  try {
    stat = statSync(resolved);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return cannotRead(error);
    const hint = path.isAbsolute(file) ? '' : ` (relative paths resolve against the folder of ${configName})`;
    return `expected a readable file, found none at ${resolved}${hint}`;
  }
  if (!stat.isFile()) return `expected a readable file, found ${stat.isDirectory() ? 'a directory' : 'a device or pipe'} at ${resolved}`;
  try {
    accessSync(resolved, constants.R_OK);
  } catch (error) {
    return cannotRead(error);
  }
  return undefined;
}

/**
 * The schema with the checks that need the config's directory: hook commands (and a
 * command agent's program) must resolve; with `files`, a scripted agent's transcript must
 * be a readable file and the variable an `openai` agent's `api_key_env` names must be set
 * (checked when loading from disk, not when parsing text).
 */
function schemaFor(file: string, options: { files?: boolean } = {}) {
  return loopSchema.superRefine((config, ctx) => checkConfig(config, ctx, file, options));
}

/** What {@link checkConfig} reads of a contract: the whole of it, with the sections a library run may leave out optional. */
type CheckedConfig = Omit<RawPolicy, 'agent' | 'workspace'> & Partial<Pick<RawPolicy, 'agent' | 'workspace'>>;

/**
 * The checks of the files and programs a contract names: a scripted agent's transcript must
 * be readable, the variable an `openai` agent's `api_key_env` names set (both with `files`),
 * the program of a command agent and of each command hook must resolve. They read the plain
 * document and skip what is not of the expected shape (the schema reports that), so they run
 * on an invalid file too and `validate` lists every problem in one pass.
 */
function fileProblems(raw: unknown, file: string, options: { files?: boolean }): YamlProblem[] {
  const problems: YamlProblem[] = [];
  const baseDir = path.dirname(path.resolve(file));
  const record = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
  const agent = record(record(raw).agent);
  const kind = agentKindOf(agent);
  // A misspelt kind: the section is read as the kind it is nearest to, and its errors say so.
  const asRead = (message: string) => (kind !== undefined && kind !== agent.kind ? withNote(message, checkedAsNote(['agent'], 'kind', kind)) : message);
  if (options.files && kind === 'scripted' && nonEmpty(agent.script)) {
    const problem = unreadableFile(agent.script, baseDir, path.basename(file));
    if (problem) problems.push({ path: ['agent', 'script'], message: asRead(problem) });
  }
  if (options.files && kind === 'openai' && nonEmpty(agent.api_key_env) && !envValue(agent.api_key_env)) {
    const found = envValue(agent.api_key_env) === '' ? 'it is empty' : 'it is not set';
    problems.push({ path: ['agent', 'api_key_env'], message: asRead(`expected the environment variable ${agent.api_key_env} to hold the API key, found ${found}`) });
  }
  const agentProblem = kind === 'command' && nonEmpty(agent.command) ? programProblem(agent.command, baseDir) : null;
  // The command runs in the workspace, its program is found from loop.yaml's folder (anchorProgram): say which, when it is a path.
  const first = kind === 'command' && nonEmpty(agent.command) ? firstProgram(agent.command) : null;
  const relative = first?.kind === 'program' && first.word.includes('/') && !path.isAbsolute(first.word) ? ` (a relative program path resolves against ${baseDir}, though the command runs in the workspace)` : '';
  if (agentProblem) problems.push({ path: ['agent', 'command'], message: asRead(`${agentProblem}${relative}`) });
  const hooks = record(raw).hooks;
  (Array.isArray(hooks) ? hooks : []).forEach((hook, index) => {
    const command = record(hook).command;
    const problem = nonEmpty(command) ? programProblem(command, baseDir) : null;
    if (problem) problems.push({ path: ['hooks', index, 'command'], message: `${problem} (relative paths resolve against ${baseDir})` });
  });
  return problems;
}

/**
 * What `run` checks before it starts (src/preflight.ts) that can be checked on a loop.yaml the
 * schema rejected, so one pass lists these too: `workspace.path` is a folder, and a scripted
 * agent's transcript is valid (its errors name the transcript). On a valid file preflight
 * checks them instead.
 */
function startProblems(raw: unknown, file: string): Array<YamlProblem | ConfigError> {
  const problems: Array<YamlProblem | ConfigError> = [];
  const baseDir = path.dirname(path.resolve(file));
  const section = (key: string): Record<string, unknown> => {
    const value = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>)[key] : undefined;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  };
  const workspace = section('workspace').path;
  if (typeof workspace === 'string' && workspace.trim() !== '') {
    const where = path.resolve(baseDir, workspace);
    let found: string | undefined;
    try {
      const stat = statSync(where, { throwIfNoEntry: false });
      if (!stat?.isDirectory()) found = stat ? 'a file' : 'nothing';
    } catch (error) {
      found = `a folder it cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
    if (found) problems.push({ path: ['workspace', 'path'], message: `expected a directory, found ${found} at ${shownName(where)}` });
  }
  const agent = section('agent');
  if (agentKindOf(agent) === 'scripted' && typeof agent.script === 'string' && unreadableFile(agent.script, baseDir, path.basename(file)) === undefined) {
    try {
      loadTranscript(path.resolve(baseDir, agent.script));
    } catch (error) {
      if (!(error instanceof ConfigErrors)) throw error;
      problems.push(...error.errors);
    }
  }
  return problems;
}

/** The checks of {@link schemaFor}, for a loop.yaml and a policy object alike. */
function checkConfig(config: CheckedConfig, ctx: z.RefinementCtx, file: string, options: { files?: boolean }): void {
  for (const problem of fileProblems(config, file, options)) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  // A policy object without an agent section cannot say what its agent measures.
  const unbounded = config.agent ? unboundedRun({ ...config, agent: config.agent }) : null;
  if (unbounded) ctx.addIssue({ code: 'custom', path: ['budget'], message: unbounded });
  for (const problem of sharedObserverNames(config.observe)) ctx.addIssue({ code: 'custom', ...problem });
  for (const problem of signalProblems(observedBy(config.observe), signalsOf(config))) ctx.addIssue({ code: 'custom', ...problem });
}

/**
 * Observers named like one before them. Observers are keyed by name (their metrics, their
 * frozen target tests): a second one of a name would stand in for the first, and a failure
 * the first measures would not show. Reads only the names, so it also checks observers the
 * schema rejected for another reason.
 */
function sharedObserverNames(observers: ReadonlyArray<unknown>): YamlProblem[] {
  const first = new Map<string, number>();
  return observers.flatMap((observer, index) => {
    const name = observer !== null && typeof observer === 'object' ? (observer as { name?: unknown }).name : undefined;
    if (typeof name !== 'string') return [];
    const before = first.get(name);
    if (before === undefined) {
      first.set(name, index);
      return [];
    }
    return [{ path: ['observe', index, 'name'], message: `expected a name of its own, found "${name}", the name of observe[${before}] (an observer's metrics are named by it)` }];
  });
}

/**
 * What the observers give, read from each entry's name, parser and pattern alone (the
 * fields its metrics are named by), so the checks of a valid contract and of a rejected
 * document see the same: `metrics`, every `observed.*` metric of the entries whose three
 * fields are valid; `pending`, each other entry (its own errors say what to fix), by its
 * index and its name when that is one (its signals cannot be judged until it is fixed).
 */
interface Observed {
  metrics: string[];
  pending: Array<{ index: number; name: string | null }>;
}

function observedBy(entries: ReadonlyArray<unknown>): Observed {
  const metrics = new Set<string>();
  const pending: Observed['pending'] = [];
  entries.forEach((entry, index) => {
    const { name, parser, pattern } = (entry !== null && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
    const named = typeof name === 'string' && OBSERVER_NAME.test(name);
    const given = named ? entryMetrics(name, parser, pattern) : null;
    if (given) {
      // Two observers of one name (reported on the second) give the same names.
      for (const metric of given) metrics.add(metric);
      return;
    }
    pending.push({ index, name: named ? name : null });
  });
  return { metrics: [...metrics], pending };
}

/** The `observed.*` metrics of an observer named `name`, or `null` when its parser or pattern is not valid (reported on the observer). */
function entryMetrics(name: string, parser: unknown, pattern: unknown): string[] | null {
  if (!(PARSERS as readonly unknown[]).includes(parser)) return null;
  if (parser !== 'regex') return metricNames(parser as ParserName, { prefix: name }).map((m) => `observed.${m}`);
  // A pattern that is missing or bad is reported on the observer itself.
  if (typeof pattern !== 'string' || metricPatternProblem(pattern) !== null) return null;
  return metricNames('regex', { prefix: name, pattern }).map((m) => `observed.${m}`);
}

/** A signal a contract names, at its path: a progress signal or a criterion's check. */
interface NamedSignal {
  path: PropertyKey[];
  signal: string;
}

/** The signals of a valid contract: `progress.observed[].signal` and `goal.success_criteria[].check.signal`. */
function signalsOf(config: Pick<CheckedConfig, 'progress' | 'goal'>): NamedSignal[] {
  return [
    ...config.progress.observed.map(({ signal }, index) => ({ path: ['progress', 'observed', index, 'signal'], signal })),
    ...config.goal.success_criteria.flatMap((criterion, index) => {
      const check = typeof criterion === 'string' ? undefined : criterion.check;
      return check && 'signal' in check ? [{ path: ['goal', 'success_criteria', index, 'check', 'signal'], signal: check.signal }] : [];
    }),
  ];
}

/**
 * Signals that name no metric an observer gives. A progress signal misspelt is never
 * measured, and stagnation would fire on a run that is progressing; a criterion's would stay
 * BLOCKED and the goal unmet. A signal of an observer that is itself invalid is not judged
 * (its metrics are not known); the others are, and the message names the invalid observers
 * as what may still give the signal once fixed.
 */
function signalProblems(observed: Observed, signals: NamedSignal[]): YamlProblem[] {
  const { metrics, pending } = observed;
  // A pending observer is named by its metrics' prefix when it has a name, else by its place.
  const shown = pending.map(({ index, name }) => (name === null ? `observe[${index}]` : `observed.${name}.*`));
  return signals.flatMap(({ path: at, signal }) => {
    // Not of the observed.<name>.<metric> shape: the signal's own schema says so.
    if (metrics.includes(signal) || !SIGNAL_PATTERN.test(signal)) return [];
    if (pending.some(({ name }) => name !== null && signal.startsWith(`observed.${name}.`))) return [];
    const near = nearestKey(signal, metrics);
    const later = `${orList(shown)}, once ${pending.length === 1 ? 'that observer is' : 'those observers are'} fixed`;
    const list = metrics.length > 0 ? `one of ${metrics.join(', ')}${pending.length > 0 ? ` (or of ${later})` : ''}` : pending.length > 0 ? `a metric of ${later}` : 'a metric of an observe entry (there is none)';
    return [{ path: at, message: `expected ${list}, found ${describeValue(signal)}${near ? `; did you mean "${near}"?` : ''}` }];
  });
}

/**
 * {@link signalProblems} on a document the schema rejected: the signals are read from the
 * plain document, each by itself (an entry with another bad field still has its signal
 * checked), against what {@link observedBy} reads of the observers, so one pass lists these
 * too, in the words the check of a valid contract uses.
 */
function rawSignalProblems(raw: unknown): YamlProblem[] {
  const record = (value: unknown): Record<string, unknown> => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const observe = record(raw).observe;
  if (observe !== undefined && !Array.isArray(observe)) return [];
  const entries = list(observe);
  const signals: NamedSignal[] = [];
  const signalAt = (value: unknown) => (typeof value === 'string' && SIGNAL_PATTERN.test(value) ? value : undefined);
  list(record(record(raw).progress).observed).forEach((entry, index) => {
    const signal = signalAt(record(entry).signal);
    if (signal) signals.push({ path: ['progress', 'observed', index, 'signal'], signal });
  });
  list(record(record(raw).goal).success_criteria).forEach((entry, index) => {
    const signal = signalAt(record(record(entry).check).signal);
    if (signal) signals.push({ path: ['goal', 'success_criteria', index, 'check', 'signal'], signal });
  });
  return [...sharedObserverNames(entries), ...signalProblems(observedBy(entries), signals)];
}

/**
 * The validated loop contract. Relative paths (`agent.script`, `workspace.path`) are
 * resolved against the directory of the file they came from; durations are seconds.
 */
export interface LoopPolicy extends Omit<RawPolicy, 'budget'> {
  /** Absolute path of the file this policy was loaded from. */
  file: string;
  budget: {
    limits: BudgetLimits;
    warn_fraction: number;
    increments: BudgetLimitsFilled;
    /** At a limit: pause for the operator, or abort the run. */
    on_exhausted: 'pause' | 'abort';
  };
}

/** One positive number per budget dimension (the increments a pause prompt offers). */
export type BudgetLimitsFilled = { [K in keyof BudgetLimits]: number };

/**
 * Top-level keys of loop.yaml that loopdeck ignores: user extension fields starting with
 * `x-` (the docker-compose convention), a place for YAML anchors (`x-common: &t 60s`, then
 * `timeout: *t`). They are not part of the policy, nor of `validate`'s effective config.
 */
export const EXTENSION_KEY = /^x-/;

/**
 * Parses and validates the text of a loop.yaml.
 *
 * @param file the file name used in errors and to resolve relative paths
 * @throws ConfigErrors listing every problem with file, YAML path, `line:column` and what was expected
 */
export function parsePolicy(source: string, file: string): LoopPolicy {
  return finish(parseYamlWith(schemaFor(file), source, file, { whenInvalid: (raw) => [...fileProblems(raw, file, {}), ...rawSignalProblems(raw)], extensionKeys: EXTENSION_KEY }), file);
}

/**
 * Validates a loop contract in loop.yaml form that was rebuilt from another file (a run's
 * saved `policy.json`), through the same schema and file checks as {@link loadPolicy}.
 *
 * @param source the contract as YAML (or JSON) text in loop.yaml form
 * @param file the loop.yaml it stands for: relative paths and hook programs resolve
 *   against its folder, and it becomes the policy's `file`
 * @param shownAs the file named in errors
 * @throws ConfigErrors naming `shownAs` and the path of each problem
 */
export function parsePolicyFor(source: string, file: string, shownAs: string): LoopPolicy {
  return finish(parseYamlWith(schemaFor(file, { files: true }), source, shownAs, { whenInvalid: (raw) => [...fileProblems(raw, file, { files: true }), ...rawSignalProblems(raw)], extensionKeys: EXTENSION_KEY }), file);
}

function finish(parsed: RawPolicy, file: string): LoopPolicy {
  const base = path.dirname(path.resolve(file));
  const { agent, workspace } = parsed;
  return {
    ...finishShared(parsed),
    file: path.resolve(file),
    agent: agent.kind === 'scripted' ? { ...agent, script: path.resolve(base, agent.script) } : agent,
    workspace: { ...workspace, path: path.resolve(base, workspace.path) },
  };
}

/** A contract's sections other than `file`, `agent` and `workspace`, with the budget in the engine's units. */
function finishShared(parsed: CheckedConfig): Omit<LoopPolicy, 'file' | 'agent' | 'workspace'> {
  const { budget, agent: _agent, workspace: _workspace, ...rest } = parsed;
  return {
    ...rest,
    budget: {
      limits: {
        turns: budget.max_iterations,
        tool_calls: budget.max_tool_calls,
        wall_clock_seconds: budget.max_wall_clock,
        tokens: budget.max_tokens,
        cost_usd: budget.max_cost_usd,
      },
      warn_fraction: budget.warn_fraction,
      on_exhausted: budget.on_exhausted,
      increments: {
        turns: budget.increments.turns,
        tool_calls: budget.increments.tool_calls,
        wall_clock_seconds: budget.increments.wall_clock,
        tokens: budget.increments.tokens,
        cost_usd: budget.increments.cost_usd,
      },
    },
  };
}

/**
 * The loop contract as the engine reads it (`SessionOptions.policy`): a {@link LoopPolicy}
 * whose `agent`, `workspace` and `file` are optional, because a program using the engine as
 * a library passes its own agent and workspace path to the session (docs/engine.md). Every
 * `LoopPolicy` is one.
 */
export type EnginePolicy = Omit<LoopPolicy, 'agent' | 'workspace' | 'file'> & Partial<Pick<LoopPolicy, 'agent' | 'workspace' | 'file'>>;

/** The loop.yaml schema for a policy object: `agent` and `workspace` may be left out. */
const objectSchema = loopSchema.extend({ agent: agentSchema.optional(), workspace: workspaceSchema.optional() });

/**
 * Validates a policy given as an object (the loop.yaml shape, keys and units as in
 * docs/loop-yaml.md: durations as `"10m"` or seconds, `max_cost_usd` in USD) and fills in the
 * defaults, for a program that drives the engine without a loop.yaml. `goal` and `verify` are
 * required as in a file; `agent` and `workspace` may be left out (the session is given its
 * agent and workspace path). Relative paths resolve against the current folder.
 *
 * @param input the contract, e.g. `{ goal: { objective, success_criteria }, verify: [{ command: 'npm test' }], budget: { max_iterations: 10 } }`
 * @param name how errors name the object (default `policy`)
 * @throws ConfigErrors listing every problem with its path in the object and what was expected
 */
export function definePolicy(input: Record<string, unknown>, name = 'policy'): EnginePolicy {
  // Through the same schema and messages as a file: the object is written as YAML first.
  const file = path.resolve(name);
  const schema = objectSchema.superRefine((config, ctx) => checkConfig(config, ctx, file, {}));
  let parsed: z.output<typeof schema>;
  try {
    parsed = parseYamlWith(schema, stringifyYaml(input), name, { whenInvalid: (raw) => [...fileProblems(raw, file, {}), ...rawSignalProblems(raw)] });
  } catch (error) {
    // Lines and columns would point into text the caller never saw: keep the paths only.
    if (error instanceof ConfigErrors) throw new ConfigErrors(error.errors.map((e) => new ConfigError(e.file, e.path, e.expected)));
    throw error;
  }
  const { agent, workspace } = parsed;
  const base = process.cwd();
  return {
    ...finishShared(parsed),
    ...(agent ? { agent: agent.kind === 'scripted' ? { ...agent, script: path.resolve(base, agent.script) } : agent } : {}),
    ...(workspace ? { workspace: { ...workspace, path: path.resolve(base, workspace.path) } } : {}),
  };
}

/** The name loopdeck looks for in the current folder when no file is given. */
export const DEFAULT_CONFIG_FILE = 'loop.yaml';

/** Whether nothing exists at `file` (other errors are left to the read, which names them). */
function isMissing(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** Options of {@link loadPolicy}. */
export interface LoadPolicyOptions {
  /**
   * How the operator names another file, in the hint when {@link DEFAULT_CONFIG_FILE} is
   * missing from the current folder (default `--config <file>`, as `run` and `check` take it).
   */
  otherFile?: string;
  /** How the operator runs loopdeck (`npx loopdeck`, `node dist/cli.js`), for the hint to write a first loop.yaml with `init` (default `loopdeck`). */
  self?: string;
}

/**
 * Reads and validates a loop.yaml file, and checks the files it names: a scripted agent's
 * transcript must be readable (relative paths resolve against the folder of `file`).
 * @throws ConfigErrors when the file is missing (a bare `loop.yaml` with a hint on how to
 *   name another), larger than {@link MAX_CONFIG_BYTES} or invalid, or `agent.script` is
 *   not a readable file
 */
export function loadPolicy(file: string, options: LoadPolicyOptions = {}): LoopPolicy {
  if (path.normalize(file) === DEFAULT_CONFIG_FILE && isMissing(file)) {
    const self = options.self ?? 'loopdeck';
    const hint = `run loopdeck in a folder with a ${DEFAULT_CONFIG_FILE}, or pass ${options.otherFile ?? '--config <file>'}; to write a first one for the project here: ${self} init`;
    throw new ConfigErrors([missingFileError(file, hint)]);
  }
  return finish(loadYamlWith(schemaFor(file, { files: true }), file, MAX_CONFIG_BYTES, { whenInvalid: (raw) => [...fileProblems(raw, file, { files: true }), ...rawSignalProblems(raw), ...startProblems(raw, file)], extensionKeys: EXTENSION_KEY }), file);
}
