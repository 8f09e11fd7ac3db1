/**
 * The part of a loop contract that `loopdeck check` uses: `progress` and `stagnation`.
 * `check` evaluates checkpoint files that were already written, so it needs no goal,
 * agent, workspace or verify commands, and it reads the original loop-control format as
 * written:
 *
 * - a progress signal is `{ signal, direction }` or, as the original format writes it,
 *   `{ path, change }` (the same meaning, one pair or the other, never mixed);
 * - a signal names a metric of the checkpoint files: `observed.<metric>`
 *   (`observed.failing_target_tests`) or `observed.<observer>.<metric>`
 *   (`observed.tests.failing`); a `reported.*` path is refused, as in loop.yaml;
 * - every other loop.yaml section may be present (a full loop.yaml works) and is not
 *   read; a key that is no loop.yaml section is refused with a "did you mean".
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { REPORTED_FIELDS, type ObservedSignal, type ProgressPolicy } from './checkpoint.js';
import { ConfigError, ConfigErrors } from './errors.js';
import { LOOP_SCHEMA, MAX_CONFIG_BYTES } from './policy.js';
import type { CheckpointInput } from './types.js';
import { describeValue, loadYamlWith, missingFileError, nearestKey } from './yaml-file.js';

/** `observed.<metric>` or `observed.<observer>.<metric>`. */
const CHECK_SIGNAL = /^observed\.[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)?$/;

const signalPath = z
  .string()
  .refine((s) => !s.startsWith('reported.'), {
    message: 'a reported.* path cannot measure progress: only observed.* signals can (observed beats reported)',
  })
  .refine((s) => s.startsWith('reported.') || CHECK_SIGNAL.test(s), {
    error: (iss) => `expected an observed signal like observed.failing_target_tests or observed.tests.failing, found ${describeValue(iss.input)}`,
  });
const direction = z.enum(['increase', 'decrease']);

/** One signal in either spelling, as `{ signal, direction }`. */
const signalEntry = z
  .strictObject({ signal: signalPath.optional(), direction: direction.optional(), path: signalPath.optional(), change: direction.optional() })
  .superRefine((entry, ctx) => {
    const given = Object.keys(entry).filter((key) => entry[key as keyof typeof entry] !== undefined).sort().join(', ');
    if (given !== 'direction, signal' && given !== 'change, path') {
      ctx.addIssue({ code: 'custom', message: `expected { signal, direction } or { path, change }, found { ${given} }` });
    }
  })
  .transform((entry): ObservedSignal => ({ signal: (entry.signal ?? entry.path)!, direction: (entry.direction ?? entry.change)! }));

const sectionsNotRead = Object.fromEntries(
  Object.keys(LOOP_SCHEMA.shape)
    .filter((key) => key !== 'progress' && key !== 'stagnation')
    .map((key) => [key, z.unknown().optional()]),
);

const checkSchema = z.strictObject({
  ...sectionsNotRead,
  progress: z
    .strictObject({
      observed: z.array(signalEntry).default([]),
      reported: z
        .strictObject({
          track: z.array(z.enum(REPORTED_FIELDS)).default(['new_evidence', 'eliminated_hypotheses']),
          resets_stagnation: z.literal(false, { error: 'reported claims never reset stagnation: only observed progress does' }).default(false),
        })
        .prefault({}),
    })
    .prefault({}),
  stagnation: z
    .strictObject({
      checkpoints_without_observed_progress: z.int().positive().default(3),
      on_detect: z.enum(['alert', 'pause', 'stop']).optional(),
    })
    .prefault({}),
});

/**
 * Reads the progress policy `check` applies from a loop contract file (a full loop.yaml
 * or the original loop-control format).
 *
 * @throws ConfigErrors naming the file, the path and `line:column` of each problem; for a
 *   missing default `loop.yaml`, a hint to pass `--config <file>`
 */
export function loadCheckContract(file: string): ProgressPolicy {
  if (path.normalize(file) === 'loop.yaml' && !existsSync(file)) {
    throw new ConfigErrors([missingFileError(file, 'run check in a folder with a loop.yaml, or pass --config <file>')]);
  }
  const parsed = loadYamlWith(checkSchema, file, MAX_CONFIG_BYTES);
  return {
    observed: parsed.progress.observed,
    reported: parsed.progress.reported.track,
    threshold: parsed.stagnation.checkpoints_without_observed_progress,
  };
}

/**
 * Refuses a signal that no checkpoint file has a metric for: it could never be measured,
 * and every checkpoint would then show no progress. A metric present with `null` in some
 * file counts as present (measured as missing there).
 *
 * @param config the contract file, named in the error
 * @throws ConfigErrors naming `progress.observed[<i>]` and the metrics the files have
 */
export function checkSignalsMeasured(policy: ProgressPolicy, inputs: readonly CheckpointInput[], config: string): void {
  const metrics = [...new Set(inputs.flatMap((input) => Object.keys(input.observed)))].sort();
  const errors = policy.observed.flatMap(({ signal }, index) => {
    const metric = signal.slice('observed.'.length);
    if (metrics.includes(metric)) return [];
    const near = nearestKey(signal, metrics.map((m) => `observed.${m}`));
    const known = metrics.length > 0 ? `one of ${metrics.map((m) => `observed.${m}`).join(', ')}` : 'a metric of the checkpoint files (they have none)';
    return [new ConfigError(config, `progress.observed[${index}]`, `expected ${known}, found ${describeValue(signal)} in no checkpoint file${near ? `; did you mean "${near}"?` : ''}`)];
  });
  if (errors.length > 0) throw new ConfigErrors(errors);
}
