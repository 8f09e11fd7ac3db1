/**
 * The reader of checkpoint JSON files that `loopdeck check` evaluates. Kept apart from the
 * diff so the console, which draws diffs, does not load the schema library at start-up.
 */
import { z } from 'zod';
import type { ReportedField } from './checkpoint.js';
import type { CheckpointInput } from './types.js';
import { MAX_YAML_BYTES, parseYamlWith, readBoundedText } from './yaml-file.js';
import { ConfigError, ConfigErrors } from './errors.js';

const nonEmpty = z.string().min(1);
const strings = z.array(z.string()).default([]);

const reportedSchema = z.object({
  new_evidence: z.array(z.object({ claim: nonEmpty, evidence_ref: nonEmpty })).default([]),
  eliminated_hypotheses: strings,
  remaining_hypotheses: strings,
} satisfies Record<ReportedField, z.ZodType>);

/**
 * The shape of a checkpoint JSON file: `iteration`, `observed` (metric → number, or `null`
 * for missing), optional `tests` and `observer_errors`, and `reported` (each field defaults
 * to empty). Other keys (e.g. the evaluation of a recorded checkpoint) are ignored.
 */
export const CHECKPOINT_INPUT_SCHEMA = z.object({
  iteration: z.int().nonnegative(),
  observed: z.record(z.string(), z.number().nullable()),
  tests: z.array(z.object({ name: z.string(), ok: z.boolean() })).optional(),
  reported: reportedSchema.prefault({}),
  observer_errors: z.array(z.string()).optional(),
});

/**
 * Reads one checkpoint JSON file and checks its shape.
 * @throws ConfigErrors naming the file, the path inside it and `line:column` when the file
 *   cannot be read, is not JSON, or does not have the shape of {@link CHECKPOINT_INPUT_SCHEMA}
 */
export function loadCheckpointFile(file: string): CheckpointInput {
  const source = readBoundedText(file, MAX_YAML_BYTES);
  try {
    JSON.parse(source);
  } catch (error) {
    throw new ConfigErrors([new ConfigError(file, '', `expected JSON, found text it cannot read (${(error as Error).message})`)]);
  }
  return parseYamlWith(CHECKPOINT_INPUT_SCHEMA, source, file);
}
