import path from 'node:path';
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
const durationOrUnlimited = z.union([z.literal('unlimited').transform(() => null), duration]);

const goalSchema = z.strictObject({
  objective: text,
  success_criteria: z.array(text).default([]),
  constraints: z.array(text).default([]),
});

const observeSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a lower-case metric prefix like "tests"'),
  command: text,
  parser: z.enum(['tap']),
  timeout: duration.default(120),
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

const loopSchema = z.strictObject({
  goal: goalSchema,
  pattern: z.enum(['react']).default('react'),
  agent: z.strictObject({
    kind: z.enum(['scripted']),
    script: text,
  }),
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
  approval: z.strictObject({ ask: z.array(text).default(['shell']) }).prefault({}),
  tools: z
    .strictObject({
      shell_timeout: duration.default(120),
      output_limit_bytes: z.int().positive().default(16 * 1024),
    })
    .prefault({}),
});

type RawPolicy = z.output<typeof loopSchema>;

/**
 * The validated loop contract. Relative paths (`agent.script`, `workspace.path`) are
 * resolved against the directory of the file they came from; durations are seconds.
 */
export interface LoopPolicy extends Omit<RawPolicy, 'budget'> {
  /** Absolute path of the file this policy was loaded from. */
  file: string;
  budget: { limits: BudgetLimits; warn_fraction: number };
}

/**
 * Parses and validates the text of a loop.yaml.
 *
 * @param file the file name used in errors and to resolve relative paths
 * @throws ConfigErrors listing every problem with file, YAML path, `line:column` and what was expected
 */
export function parsePolicy(source: string, file: string): LoopPolicy {
  return finish(parseYamlWith(loopSchema, source, file), file);
}

function finish(parsed: RawPolicy, file: string): LoopPolicy {
  const { budget, ...rest } = parsed;
  const base = path.dirname(path.resolve(file));
  return {
    ...rest,
    file: path.resolve(file),
    agent: { ...rest.agent, script: path.resolve(base, rest.agent.script) },
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
    },
  };
}

/**
 * Reads and validates a loop.yaml file.
 * @throws ConfigErrors when the file is missing, larger than {@link MAX_CONFIG_BYTES} or invalid
 */
export function loadPolicy(file: string): LoopPolicy {
  return finish(loadYamlWith(loopSchema, file, MAX_CONFIG_BYTES), file);
}
