import { z } from 'zod';
import { isBlank } from './blank.js';

const nonEmpty = z.string().min(1);
/**
 * A command or a path: not empty, and more than spaces or other characters drawn as nothing
 * (a blank one shows as nothing in the approval prompt, so there would be nothing to
 * approve). The JSON schema the model reads carries the `\S` pattern; the invisible rest is
 * a refinement the harness checks (`\p{…}` classes are not in every server's regex dialect).
 */
const notBlank = nonEmpty.regex(/\S/, 'expected more than spaces').refine((text) => !isBlank(text), 'expected something visible, not only spaces or invisible characters');

/**
 * Argument schemas of the harness's tools, written once: the tools check the arguments of
 * every call with them (tools.ts), and the OpenAI-compatible agent sends them to the model
 * as JSON schema (`z.toJSONSchema`) and checks the model's calls against them. Strict
 * objects: an unknown key is refused. Descriptions are what the model reads.
 */
export const HARNESS_TOOL_ARGS = {
  shell: z
    .strictObject({ command: notBlank.describe('The shell command, run with sh -c in the workspace.') })
    .describe('Run a shell command in the workspace. Returns exit status and combined output (bounded).'),
  read_file: z
    .strictObject({ path: notBlank.describe('Path relative to the workspace root.') })
    .describe('Read a text file of the workspace.'),
  write_file: z
    .strictObject({
      path: notBlank.describe('Path relative to the workspace root.'),
      content: z.string().describe('The complete new content of the file.'),
    })
    .describe('Create or overwrite a file of the workspace.'),
  edit: z
    .strictObject({
      path: notBlank.describe('Path relative to the workspace root.'),
      find: nonEmpty.describe('Text that occurs exactly once in the file.'),
      replace: z.string().describe('Text that replaces it.'),
    })
    .describe('Replace one exact, unique occurrence of text in a file of the workspace.'),
  list_files: z
    .strictObject({
      path: notBlank.default('.').describe('Folder relative to the workspace root (default: the root).'),
      max: z.int().positive().max(5000).default(500).describe('Files to list at most (default 500).'),
    })
    .describe('List the files of a folder of the workspace, recursively (.git and node_modules skipped).'),
  git_status: z.strictObject({}).describe("The workspace's git status: branch and changed files."),
  git_diff: z
    .strictObject({
      path: notBlank.optional().describe('Limit the diff to this path.'),
      staged: z.boolean().default(false).describe('Diff the staged changes instead of the working tree.'),
    })
    .describe("The workspace's uncommitted changes as a unified diff."),
} as const;

/** Name of one of the harness's tools. */
export type HarnessToolName = keyof typeof HARNESS_TOOL_ARGS;
