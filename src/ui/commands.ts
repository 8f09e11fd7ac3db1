import { BUDGET_COMMAND_NAMES, BUDGET_DIMENSIONS } from '../engine/types.js';

/**
 * The command-bar commands: what Tab completes and what help lists. `text` is what
 * completion inserts (a trailing space or `+` where an argument follows).
 */
export interface BarCommand {
  text: string;
  help: string;
}

export const BAR_COMMANDS: readonly BarCommand[] = [
  { text: '/goal status', help: 'show the goal' },
  { text: '/goal add-constraint ', help: 'add a constraint: /goal add-constraint <text>' },
  { text: '/goal add-criterion ', help: 'add a success criterion: /goal add-criterion <text>' },
  { text: '/goal redirect ', help: 'new objective, criteria cleared: /goal redirect <text>' },
  { text: '/goal modify ', help: 'new objective, criteria kept: /goal modify <text>' },
  ...BUDGET_DIMENSIONS.map((d) => {
    const name = BUDGET_COMMAND_NAMES[d];
    const unit = d === 'wall_clock_seconds' ? ' (seconds, or a duration: +10m)' : d === 'cost_usd' ? ' (USD)' : '';
    return { text: `/budget ${name} +`, help: `raise the ${name.replace('_', ' ')} limit: /budget ${name} +N${unit}` };
  }),
  { text: '/stop', help: 'stop at the next safe point' },
  { text: '/stop --abort', help: 'kill running tools, stash the workspace, write a failure report' },
  { text: '/help', help: 'keys and commands' },
];

/** Candidates that extend `line` (ignoring leading spaces), in table order. */
export function candidates(line: string): string[] {
  const typed = line.trimStart();
  return BAR_COMMANDS.map((c) => c.text).filter((text) => text.startsWith(typed) && text !== typed);
}

function commonPrefix(items: readonly string[]): string {
  if (items.length === 0) return '';
  let prefix = items[0]!;
  for (const item of items) while (!item.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * What Tab does to `line`: one candidate completes the line; several extend it to their
 * common prefix and open the list; none leaves it.
 */
export function complete(line: string): { text: string; list: string[] } {
  const found = candidates(line);
  if (found.length === 0) return { text: line, list: [] };
  if (found.length === 1) return { text: found[0]!, list: [] };
  const prefix = commonPrefix(found);
  return { text: prefix.length > line.trimStart().length ? prefix : line, list: found };
}
