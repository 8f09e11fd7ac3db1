/**
 * What a tool runner hands back is checked before the engine records it. The built-in tools
 * always return a well-formed {@link ToolOutcome}; a runner of a library user's own
 * (`SessionOptions.runTool`) may return anything: a JSON string, a truncated one, an object
 * of the wrong shape, `undefined`. Each of those becomes one failed tool result that says
 * what was wrong and shows the head of what came back, so the agent is told and the run
 * goes on (docs/design.md, "Tools").
 */
import { z } from 'zod';
import type { KilledBy } from './process.js';
import type { ToolOutcome } from './tools.js';

/** Every way loopdeck kills a tool, as the outcome records it. */
const KILLED_BY = ['timeout', 'quit', 'abort', 'budget'] as const satisfies readonly KilledBy[];
// A way added to KilledBy and not listed here fails to compile.
type Unlisted = Exclude<KilledBy, (typeof KILLED_BY)[number]>;
const unlisted: Unlisted[] = [];
void unlisted;

/** Characters of a malformed outcome quoted in the failed result. */
export const MALFORMED_HEAD_CHARS = 500;

const outcomeSchema = z.object({
  status: z.enum(['ok', 'failed', 'timed_out', 'killed']),
  output: z.string(),
  exit_code: z.number().int().nullable(),
  killed: z.enum(KILLED_BY).optional(),
  truncated: z.literal(true).optional(),
  output_bytes: z.number().int().nonnegative().optional(),
  escaped: z.array(z.object({ pid: z.number().int().nullable(), command: z.string() })).optional(),
});

/** The head of a value as text: a string as it is, anything else as JSON (or its type when it has none). */
function headOf(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = Object.prototype.toString.call(value);
    }
  }
  return text.length > MALFORMED_HEAD_CHARS ? `${text.slice(0, MALFORMED_HEAD_CHARS)}… (${text.length} characters)` : text;
}

/** Why a string that should have been an outcome object is not one. */
function stringProblem(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return 'returned text, expected an object';
  try {
    JSON.parse(trimmed);
    return 'returned JSON text, expected an object';
  } catch (error) {
    return `returned malformed or truncated JSON (${(error as Error).message})`;
  }
}

/**
 * The outcome a tool runner returned, checked: the outcome itself (unknown keys dropped) when
 * well-formed, else a `failed` outcome whose output names the problem (the first bad field
 * and what was expected) and quotes the head of what came back.
 * @param runner how the failed output names the runner, e.g. `tool runner for "shell"`
 */
export function checkedOutcome(value: unknown, runner: string): ToolOutcome {
  const parsed = outcomeSchema.safeParse(value);
  if (parsed.success) return parsed.data as ToolOutcome;
  let problem: string;
  if (typeof value === 'string') problem = stringProblem(value);
  else if (value === null || typeof value !== 'object' || Array.isArray(value)) problem = `returned ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}, expected an object`;
  else {
    const issue = parsed.error.issues[0]!;
    problem = `returned an outcome of the wrong shape: ${issue.path.join('.') || '(root)'}: ${issue.message}`;
  }
  return { status: 'failed', exit_code: null, output: `${runner} ${problem}; expected { status, output, exit_code }. It returned: ${headOf(value)}` };
}
