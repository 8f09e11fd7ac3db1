import { OPERATOR_COMMAND_SYNTAX, type CommandSet, type CommandSyntax } from '../engine/operator-command.js';

/** The command-bar commands: what Tab completes and what help lists (the operator command grammar's own table). */
export type BarCommand = CommandSyntax;
export const BAR_COMMANDS: readonly BarCommand[] = OPERATOR_COMMAND_SYNTAX;

/** `line` as the commands' table spells it: leading spaces dropped, each run of spaces one space (`/goal  r` is `/goal r`). */
function spelled(line: string): string {
  return line.trimStart().replace(/\s+/g, ' ');
}

/**
 * Candidates that extend `line` (ignoring leading spaces, any run of spaces taken as one),
 * in table order: of every command, or with `read-only` (a replay, a followed session) of
 * those that change nothing.
 */
export function candidates(line: string, commands: CommandSet = 'all'): string[] {
  const typed = spelled(line);
  return BAR_COMMANDS.filter((c) => commands === 'all' || c.readOnly)
    .map((c) => c.text)
    .filter((text) => text.startsWith(typed) && text !== typed);
}

function commonPrefix(items: readonly string[]): string {
  if (items.length === 0) return '';
  let prefix = items[0]!;
  for (const item of items) while (!item.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * What Tab does to `line` (among the candidates of `commands`): one candidate completes the
 * line; several extend it to their common prefix and open the list; none leaves it.
 */
export function complete(line: string, commands: CommandSet = 'all'): { text: string; list: string[] } {
  const found = candidates(line, commands);
  if (found.length === 0) return { text: line, list: [] };
  if (found.length === 1) return { text: found[0]!, list: [] };
  const prefix = commonPrefix(found);
  return { text: prefix.length > spelled(line).length ? prefix : line, list: found };
}
