import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { HOOK_TOPICS } from './hooks.js';
import { ConfigError } from './errors.js';
import { parseRule } from '../hooks/approval-rules.js';
import { PARSERS } from './parsers/index.js';
import { compileMetricPattern } from './parsers/regex.js';
import { z } from 'zod';
import { REPORTED_FIELDS } from './checkpoint.js';
import { parseDuration } from './duration.js';
import { parseYamlWith, loadYamlWith } from './yaml-file.js';
import type { BudgetLimits } from './types.js';

/** Largest loop.yaml accepted, in bytes. */
export const MAX_CONFIG_BYTES = 256 * 1024;

const text = z.string().trim().min(1, 'expected a non-empty string');

/** A positive finite number, or `unlimited` (→ null). */
const limit = z.union([z.number().positive().finite(), z.literal('unlimited').transform(() => null)], {
  error: 'expected a positive number or "unlimited"',
});

/** A duration string (`90s`, `10m`, `1h30m`) → seconds. */
const duration = z.string().transform((value, ctx) => {
  const seconds = parseDuration(value);
  if (seconds === null) {
    ctx.addIssue({ code: 'custom', message: `expected a duration like 90s, 10m or 1h30m, found "${value}"` });
    return z.NEVER;
  }
  return seconds;
});
const durationOrUnlimited = z.union([z.literal('unlimited').transform(() => null), duration], {
  error: 'expected a duration like 90s, 10m or 1h30m (or "unlimited")',
});

const goalSchema = z.strictObject({
  objective: text,
  success_criteria: z.array(text).default([]),
  constraints: z.array(text).default([]),
});

const observeSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a lower-case metric prefix like "tests"'),
  command: text,
  parser: z.enum(PARSERS),
  /** `regex` only: a pattern with named groups, each a metric `<name>.<group>`. */
  pattern: z.string().optional(),
  /** A report the command writes to a file (relative to the workspace) instead of stdout. */
  report_file: text.optional(),
  timeout: duration.default(120),
  output_limit_bytes: z.int().positive().optional(),
}).superRefine((spec, ctx) => {
  if (spec.parser !== 'regex') {
    if (spec.pattern !== undefined) ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'pattern applies only to parser: regex' });
    return;
  }
  if (spec.pattern === undefined) {
    ctx.addIssue({ code: 'custom', path: ['parser'], message: 'parser: regex needs a pattern with named groups' });
    return;
  }
  try {
    const { groups } = compileMetricPattern(spec.pattern);
    const bad = groups.find((g) => !/^[a-z][a-z0-9_]*$/.test(g));
    if (bad) ctx.addIssue({ code: 'custom', path: ['pattern'], message: `group name "${bad}" must be lower-case letters, digits and _` });
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['pattern'], message: (error as Error).message });
  }
});

const signalSchema = z.strictObject({
  signal: z
    .string()
    .refine((s) => !s.startsWith('reported.'), {
      message: 'a reported.* path cannot measure progress: only observed.* signals can (observed beats reported)',
    })
    .refine((s) => s.startsWith('reported.') || /^observed\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/.test(s), {
      message: 'expected an observed signal like observed.tests.failing',
    }),
  direction: z.enum(['increase', 'decrease']),
});

const approvalRule = z.string().superRefine((rule, ctx) => {
  try {
    parseRule(rule);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: error instanceof ConfigError ? error.expected : String(error) });
  }
});

/** Built-in operator policies in src/hooks/, enabled by name. */
export const BUILTIN_HOOKS = ['approval-gate', 'trace-writer'] as const;

const commandHookSchema = z.strictObject({
  name: text,
  topic: z.enum(HOOK_TOPICS),
  command: text,
  timeout: duration.optional(),
  on_hook_error: z.enum(['block', 'allow']).optional(),
});

const hookSchema = z.union([z.enum(BUILTIN_HOOKS), commandHookSchema], {
  error: `expected a built-in hook (${BUILTIN_HOOKS.join(', ')}) or { name, topic, command }`,
});

/** A hook entry of loop.yaml: a built-in by name, or an external command on one topic. */
export type HookEntry = z.output<typeof hookSchema>;

const loopSchema = z.strictObject({
  goal: goalSchema,
  pattern: z.enum(['react', 'plan-and-execute', 'reflexion', 'auto']).default('react'),
  patterns: z
    .strictObject({
      plan_and_execute: z.strictObject({ max_replans: z.int().nonnegative().default(2) }).prefault({}),
      reflexion: z.strictObject({ max_attempts: z.int().positive().default(3) }).prefault({}),
    })
    .prefault({}),
  task: z
    .strictObject({
      known_procedure: z.boolean().default(false),
      exploratory: z.boolean().default(false),
      quality_critical: z.boolean().default(false),
      complex: z.boolean().default(false),
    })
    .prefault({}),
  agent: z.discriminatedUnion(
    'kind',
    [
      z.strictObject({ kind: z.literal('scripted'), script: text }),
      z.strictObject({
        kind: z.literal('openai'),
        model: text,
        /** Any OpenAI-compatible endpoint; default: OPENAI_BASE_URL or OpenAI's. */
        base_url: text.optional(),
        /** Name of the environment variable holding the key (the key itself never goes in loop.yaml). */
        api_key_env: text.default('OPENAI_API_KEY'),
        temperature: z.number().min(0).max(2).optional(),
        max_retries: z.int().nonnegative().default(3),
      }),
      z.strictObject({
        kind: z.literal('command'),
        command: text,
        prompt: z.enum(['stdin', 'argument']).default('stdin'),
        timeout: duration.default(1800),
        env_passthrough: z.array(text).default([]),
      }),
    ],
    { error: 'expected agent.kind: scripted, openai or command' },
  ),
  workspace: z.strictObject({
    path: text,
    copy: z.enum(['temp', 'none']).default('none'),
  }),
  budget: z
    .strictObject({
      max_iterations: limit.default(50),
      max_tool_calls: limit.default(100),
      max_wall_clock: durationOrUnlimited.default(1800),
      max_tokens: limit.default(null),
      max_cost_usd: limit.default(null),
      warn_fraction: z.number().gt(0).lte(1).default(0.8),
      increments: z
        .strictObject({
          turns: z.int().positive().default(10),
          tool_calls: z.int().positive().default(20),
          wall_clock: duration.default(600),
          tokens: z.int().positive().default(50_000),
          cost_usd: z.number().positive().default(1),
        })
        .prefault({}),
    })
    .prefault({}),
  pricing: z
    .strictObject({
      input_per_million_usd: z.number().nonnegative().default(0),
      output_per_million_usd: z.number().nonnegative().default(0),
    })
    .prefault({}),
  checkpoint: z.strictObject({ every_iterations: z.int().positive().default(3) }).prefault({}),
  observe: z.array(observeSchema).default([]),
  progress: z
    .strictObject({
      observed: z.array(signalSchema).default([]),
      reported: z
        .strictObject({
          track: z.array(z.enum(REPORTED_FIELDS)).default(['new_evidence', 'eliminated_hypotheses']),
          resets_stagnation: z
            .literal(false, { error: 'reported claims never reset stagnation: only observed progress does' })
            .default(false),
        })
        .prefault({}),
    })
    .prefault({}),
  stagnation: z
    .strictObject({
      checkpoints_without_observed_progress: z.int().positive().default(3),
      on_detect: z.enum(['alert', 'pause', 'stop']).default('pause'),
    })
    .prefault({}),
  verify: z.array(z.strictObject({ command: text, timeout: duration.default(300) })).min(1, 'expected at least one verify command'),
  approval: z
    .strictObject({
      /** What a tool call no rule matches gets: ask the operator, allow, or deny. */
      default: z.enum(['ask', 'allow', 'deny']).default('ask'),
      /** Rules like `read_file` (a whole tool) or `shell: git status` (a literal command prefix). */
      allow: z.array(approvalRule).default([]),
      /** Deny rules are checked against every part of a command and win over allow. */
      deny: z.array(approvalRule).default([]),
      /** An approval waiting longer than this is denied, never approved. */
      timeout: durationOrUnlimited.default(1800),
    })
    .prefault({}),
  hooks: z.array(hookSchema).default(['approval-gate']),
  hook_timeout: duration.default(5),
  tools: z
    .strictObject({
      shell_timeout: duration.default(120),
      output_limit_bytes: z.int().positive().default(16 * 1024),
    })
    .prefault({}),
});

type RawPolicy = z.output<typeof loopSchema>;

/** The first word of a shell command, resolved to an executable file, or `null`. */
export function resolveProgram(command: string, baseDir: string): string | null {
  const program = command.trim().split(/\s+/)[0] ?? '';
  const candidates = program.includes('/')
    ? [path.resolve(baseDir, program)]
    : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one: try the next candidate
    }
  }
  return null;
}

/** The schema with the checks that need the config's directory (hook commands must resolve). */
function schemaFor(file: string) {
  const baseDir = path.dirname(path.resolve(file));
  return loopSchema.superRefine((config, ctx) => {
    if (config.agent.kind === 'command' && !resolveProgram(config.agent.command, baseDir)) {
      ctx.addIssue({ code: 'custom', path: ['agent', 'command'], message: `expected an executable program, found none for "${config.agent.command.split(/\s+/)[0]}"` });
    }
    config.hooks.forEach((hook, index) => {
      if (typeof hook === 'string' || resolveProgram(hook.command, baseDir)) return;
      ctx.addIssue({
        code: 'custom',
        path: ['hooks', index, 'command'],
        message: `expected an executable program, found none for "${hook.command.split(/\s+/)[0]}" (relative paths resolve against ${baseDir})`,
      });
    });
  });
}

/**
 * The validated loop contract. Relative paths (`agent.script`, `workspace.path`) are
 * resolved against the directory of the file they came from; durations are seconds.
 */
export interface LoopPolicy extends Omit<RawPolicy, 'budget'> {
  /** Absolute path of the file this policy was loaded from. */
  file: string;
  budget: { limits: BudgetLimits; warn_fraction: number; increments: BudgetLimitsFilled };
}

/** One positive number per budget dimension (the increments a pause prompt offers). */
export type BudgetLimitsFilled = { [K in keyof BudgetLimits]: number };

/**
 * Parses and validates the text of a loop.yaml.
 *
 * @param file the file name used in errors and to resolve relative paths
 * @throws ConfigErrors listing every problem with file, YAML path, `line:column` and what was expected
 */
export function parsePolicy(source: string, file: string): LoopPolicy {
  return finish(parseYamlWith(schemaFor(file), source, file), file);
}

function finish(parsed: RawPolicy, file: string): LoopPolicy {
  const { budget, ...rest } = parsed;
  const base = path.dirname(path.resolve(file));
  return {
    ...rest,
    file: path.resolve(file),
    agent: rest.agent.kind === 'scripted' ? { ...rest.agent, script: path.resolve(base, rest.agent.script) } : rest.agent,
    workspace: { ...rest.workspace, path: path.resolve(base, rest.workspace.path) },
    budget: {
      limits: {
        turns: budget.max_iterations,
        tool_calls: budget.max_tool_calls,
        wall_clock_seconds: budget.max_wall_clock,
        tokens: budget.max_tokens,
        cost_usd: budget.max_cost_usd,
      },
      warn_fraction: budget.warn_fraction,
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
 * Reads and validates a loop.yaml file.
 * @throws ConfigErrors when the file is missing, larger than {@link MAX_CONFIG_BYTES} or invalid
 */
export function loadPolicy(file: string): LoopPolicy {
  return finish(loadYamlWith(schemaFor(file), file, MAX_CONFIG_BYTES), file);
}
