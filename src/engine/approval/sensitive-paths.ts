/**
 * Writes that always need the operator, whatever the approval rules allow: a change to a
 * file git reads as configuration from the work tree (`.gitattributes`, `.gitmodules`, at
 * any folder level and in any spelling a case-insensitive file system reads as one).
 * `.gitattributes` names filter, diff and merge drivers — programs git runs — and
 * `.gitmodules` names the URLs and paths git fetches submodules from and into.
 *
 * Writes into `.git` itself are not asked about: the file tools refuse them outright.
 * A git configuration file reached through a symlink of another name is refused by the
 * file tools too, so the name judged here is the one that is written.
 */
import { gitConfigFile } from '../workspace-path.js';
import type { ToolCall } from '../types.js';

/** The built-in tools that write the file named by their `path` argument. */
const WRITING_TOOLS = new Set(['write_file', 'edit']);

const WHY: Record<string, string> = {
  '.gitattributes': 'git runs the filter, diff and merge drivers it names',
  '.gitmodules': 'git fetches and checks out the submodule URLs and paths it names',
};

/**
 * Why `call` needs the operator's approval even when a rule allows its tool, or `null`:
 * a `write_file` or `edit` whose `path` has a component that names `.gitattributes` or
 * `.gitmodules` (e.g. `sub/.gitattributes`, `./.GITMODULES`).
 * @returns one line for the approval prompt (the path itself is shown with the arguments), e.g.
 *   `writes .gitattributes: git runs the filter, diff and merge drivers it names`
 */
export function sensitivePathReason(call: ToolCall): string | null {
  if (!WRITING_TOOLS.has(call.name)) return null;
  const written = call.args.path;
  if (typeof written !== 'string') return null;
  for (const name of written.split('/')) {
    const file = gitConfigFile(name);
    if (file) return `writes ${file}: ${WHY[file] ?? 'git reads it as configuration'}`;
  }
  return null;
}
