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
  new_evidence: z
    .array(z.object({ claim: nonEmpty.describe('What the agent says it found.'), evidence_ref: nonEmpty.describe('What backs it: the name of a test (as the test runner reports it). Checked against the tests the observers reported: a test they ran is found (passing or failing); anything else shows as not found in what was observed.') }))
    .default([])
    .describe('Evidence the agent reported since the last checkpoint.'),
  eliminated_hypotheses: strings.describe('Hypotheses the agent says it ruled out.'),
  remaining_hypotheses: strings.describe('Hypotheses the agent says are still open.'),
} satisfies Record<ReportedField, z.ZodType>);

/**
 * The shape of a checkpoint JSON file: `iteration`, `observed` (metric → number, or `null`
 * for missing), optional `tests` and `observer_errors`, and `reported` (each field defaults
 * to empty). Other keys (e.g. the evaluation of a recorded checkpoint) are ignored.
 */
export const CHECKPOINT_INPUT_SCHEMA = z.object({
  iteration: z.int().nonnegative().describe('The turn the checkpoint was taken at.'),
  observed: z
    .record(z.string(), z.number().nullable())
    .describe('What the harness measured: metric name → number, `null` when it could not be measured (never 0).'),
  tests: z
    .array(z.object({ name: z.string().describe('Test name.'), ok: z.boolean().describe('Whether it passed.') }))
    .optional()
    .describe('Test identities, when the observer gives them.'),
  reported: reportedSchema.prefault({}).describe("What the agent reported: shown beside the measurements, never counted as progress."),
  observer_errors: z.array(z.string()).optional().describe('Why observers failed, when they did.'),
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
