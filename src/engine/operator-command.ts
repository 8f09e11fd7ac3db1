import { budgetBoundText, BUDGET_LIMIT_MAX } from './budget-units.js';
import { parseDuration } from './duration.js';
import { clipText, quoted } from './yaml-bounds.js';
import { assertNever } from './events.js';
import { parseGoalCommand, type GoalDirective } from './goal.js';
import { BUDGET_COMMAND_NAMES, BUDGET_DIMENSIONS, type BudgetDimension } from './types.js';

/**
 * The operator's command grammar: the lines the console's command bar accepts (`/goal`,
 * `/budget`, `/stop`, `/help`), parsed once into a typed command. The console parses what
 * the operator typed and calls the session's typed methods; `Session.command(line)` uses
 * the same parser for callers that hold a line (headless runs, scripts). Only the
 * operator's input is parsed here: text from the agent or a tool never reaches it.
 */

/** One operator command, typed. */
export type OperatorCommand =
  | { kind: 'goal-status' }
  | { kind: 'revise-goal'; directive: GoalDirective; text: string }
  /** Raise a budget dimension's limit by `by` (its unit: a count, seconds, tokens, USD). */
  | { kind: 'extend-budget'; dimension: BudgetDimension; by: number }
  /** `abort: false` stops at the next safe point; `true` kills running tools and parks the workspace. */
  | { kind: 'stop'; abort: boolean }
  /** Read loop.yaml again and apply what may change mid-run (docs/design.md, "Live reload"). */
  | { kind: 'reload' }
  | { kind: 'help' };

/** A parsed line: the command, or why the line is not one (a message for the operator). */
export type ParsedOperatorCommand = { ok: true; command: OperatorCommand } | { ok: false; message: string };

/**
 * What an operator command answers: a line to show, and whether it took effect. `refused`:
 * the command is well formed but this console or run will not carry it out (a replay or a
 * followed session changes nothing, a run that is over takes no more commands): there is
 * nothing in the typed line to fix, so the command bar closes and shows the line as it does
 * a command's result, rather than keeping the line to edit.
 */
export interface CommandResult {
  ok: boolean;
  message: string;
  refused?: true;
}

/** The commands of the grammar as the command bar completes and help lists them. `text` is what completion inserts (a trailing space or `+` where an argument follows). */
export interface CommandSyntax {
  text: string;
  help: string;
  /** It changes nothing: answered in a replay and in a followed session too. */
  readOnly?: true;
}

/** The short names `/budget` takes, in {@link BUDGET_DIMENSIONS} order (`turns|tool_calls|wall_clock|tokens|cost`). */
export const BUDGET_NAMES_LIST = BUDGET_DIMENSIONS.map((d) => BUDGET_COMMAND_NAMES[d]);

/** The unit an increment of `dimension` is written in, for help and error messages. */
function unitOf(dimension: BudgetDimension): string {
  if (dimension === 'wall_clock_seconds') return ' (a duration: +90s, +10m, +1h30m)';
  if (dimension === 'cost_usd') return ' (USD: +0.5 or +$0.5)';
  return '';
}

/** Every command line of the grammar, in the order the command bar lists them. */
export const OPERATOR_COMMAND_SYNTAX: readonly CommandSyntax[] = [
  { text: '/goal status', help: 'show the goal', readOnly: true },
  { text: '/goal add-constraint ', help: 'add a constraint: /goal add-constraint <text>' },
  { text: '/goal add-criterion ', help: 'add a success criterion: /goal add-criterion <text> [--check <command>]' },
  { text: '/goal redirect ', help: 'new objective, criteria kept or typed (--criterion): /goal redirect <text>' },
  { text: '/goal modify ', help: 'new objective, criteria kept: /goal modify <text>' },
  ...BUDGET_DIMENSIONS.map((d) => {
    const name = BUDGET_COMMAND_NAMES[d];
    return { text: `/budget ${name} +`, help: `raise the ${name.replace('_', ' ')} limit: /budget ${name} +N${unitOf(d)}` };
  }),
  { text: '/reload', help: 'read loop.yaml again: budget, observers, verify, ... apply; approval rules and hooks wait for your key' },
  { text: '/stop', help: 'stop at the next safe point' },
  { text: '/stop --abort', help: 'kill running tools, stash the workspace, write a failure report' },
  { text: '/help', help: 'keys and commands', readOnly: true },
];

/**
 * The dimension `/budget <name>` names: its short name (`wall_clock`) or its loop.yaml
 * name (`wall_clock_seconds`); `null` for anything else (never an inherited property
 * such as `toString`).
 */
export function budgetDimensionNamed(name: string): BudgetDimension | null {
  return BUDGET_DIMENSIONS.find((d) => d === name || BUDGET_COMMAND_NAMES[d] === name) ?? null;
}

/** Counted dimensions take whole numbers, as in loop.yaml. */
function counted(dimension: BudgetDimension): boolean {
  return dimension === 'turns' || dimension === 'tool_calls' || dimension === 'tokens';
}

/** What an increment of `dimension` must be, in words. */
function incrementKind(dimension: BudgetDimension): string {
  if (counted(dimension)) return 'a positive whole number';
  if (dimension === 'wall_clock_seconds') return 'a duration such as 90s, 10m or 1h30m';
  return 'a positive number of USD such as 0.5';
}

/**
 * Checks an increment in the dimension's unit (a count, seconds, tokens, USD): positive,
 * whole for counted dimensions, at most the bound loop.yaml sets for the limit
 * ({@link BUDGET_LIMIT_MAX}).
 * @returns `null` when valid, else the message for the operator
 */
export function incrementError(dimension: BudgetDimension, by: number): string | null {
  const name = BUDGET_COMMAND_NAMES[dimension];
  const valid = Number.isFinite(by) && by > 0 && (!counted(dimension) || Number.isSafeInteger(by));
  if (valid && by <= BUDGET_LIMIT_MAX[dimension]) return null;
  if (by > BUDGET_LIMIT_MAX[dimension]) return `the ${name} limit can be at most ${budgetBoundText(dimension)}; an increment of more cannot be added`;
  return `the ${name} increment must be ${incrementKind(dimension)}, found "${by}"`;
}

/** `/budget <dimension> +N`: the dimension's name and the increment as typed (`+$0.5` for cost, `+10m` for wall clock). */
function parseBudget(line: string): ParsedOperatorCommand {
  const match = /^\/budget\s+(\S+)\s+\+(\S+)$/.exec(line);
  if (!match) return { ok: false, message: `usage: /budget <${BUDGET_NAMES_LIST.join('|')}> +N (wall_clock takes a duration: +10m, +1h30m)` };
  const [, name, typed] = match as unknown as [string, string, string];
  const dimension = budgetDimensionNamed(name);
  if (!dimension) return { ok: false, message: `unknown budget dimension "${clipText(name, 40)}"; valid: ${BUDGET_NAMES_LIST.join(', ')}` };
  const shown = BUDGET_COMMAND_NAMES[dimension];
  const increment = dimension === 'cost_usd' ? typed.replace(/^\$/, '') : typed;
  const wrong = (hint = '') => ({ ok: false as const, message: `the ${shown} increment must be ${incrementKind(dimension)}, found ${quoted(typed)}${hint}` });
  let by: number | null;
  if (dimension === 'wall_clock_seconds') {
    // As in loop.yaml: a duration has a unit; a bare number is not read as seconds.
    if (/^\d+(?:\.\d+)?$/.test(increment)) return wrong(/^[1-9]\d*$/.test(increment) ? ` (a bare number has no unit: write +${increment}s)` : ' (a bare number has no unit)');
    by = parseDuration(increment);
  } else {
    // A cost may leave out the 0 before its point (`+.5`, `+$.25`), as amounts are often typed.
    by = (counted(dimension) ? /^\d+$/ : /^(?:\d+(?:\.\d+)?|\.\d+)$/).test(increment) ? Number(increment) : null;
  }
  if (by === null || !(by > 0)) return wrong();
  const invalid = incrementError(dimension, by);
  if (invalid) return { ok: false, message: invalid };
  return { ok: true, command: { kind: 'extend-budget', dimension, by } };
}

/** Which commands the console answers: all of them in a run; in a replay or a followed session only those that change nothing. */
export type CommandSet = 'all' | 'read-only';

/** What an unknown command's answer suggests, by the commands the console answers. */
const TRY: Readonly<Record<CommandSet, string>> = {
  all: 'try /goal status, /goal add-constraint <text>, /goal redirect <text>, /budget <dimension> +N, /stop, /stop --abort',
  'read-only': 'only /goal status and /help are answered here: nothing can be changed',
};

/**
 * Parses one command-bar line (leading and trailing blanks ignored; the leading `/` may be
 * left out: `goal status`). Never throws. `commands`: what the console answers, for the
 * suggestion after an unknown command (a replay or a followed session lists only its read-only commands).
 * @returns the typed command, or a message saying what is wrong and what would be right
 */
export function parseOperatorCommand(line: string, commands: CommandSet = 'all'): ParsedOperatorCommand {
  const typed = line.trim();
  // The slash is what opens the bar; a line that lost it (Ctrl+U clears it too) still names its command.
  const trimmed = /^(goal|budget|stop|help|reload)(\s|$)/.test(typed) ? `/${typed}` : typed;
  if (/^\/goal(\s|$)/.test(trimmed)) {
    const goal = parseGoalCommand(trimmed);
    if (goal.kind === 'error') return { ok: false, message: goal.message };
    return { ok: true, command: goal.kind === 'status' ? { kind: 'goal-status' } : { kind: 'revise-goal', directive: goal.directive, text: goal.text } };
  }
  if (/^\/budget(\s|$)/.test(trimmed)) return parseBudget(trimmed);
  if (/^\/stop(\s|$)/.test(trimmed)) {
    if (trimmed === '/stop') return { ok: true, command: { kind: 'stop', abort: false } };
    if (/^\/stop\s+--abort$/.test(trimmed)) return { ok: true, command: { kind: 'stop', abort: true } };
    return { ok: false, message: 'usage: /stop (stop at the next safe point) or /stop --abort (kill tools, stash the workspace, write a failure report)' };
  }
  if (trimmed === '/help') return { ok: true, command: { kind: 'help' } };
  if (/^\/reload(\s|$)/.test(trimmed)) {
    return trimmed === '/reload' ? { ok: true, command: { kind: 'reload' } } : { ok: false, message: 'usage: /reload (reads the run\'s loop.yaml again; it takes no argument)' };
  }
  const word = trimmed.split(/\s/)[0] || '(empty)';
  return { ok: false, message: `unknown command "${word}"; ${TRY[commands]}` };
}

/** What carries out operator commands: the session, or the console's controller in front of it. */
export interface OperatorTarget {
  goalStatus(): CommandResult | Promise<CommandResult>;
  reviseGoal(directive: GoalDirective, text: string): Promise<CommandResult>;
  extendBudget(dimension: BudgetDimension, by: number): CommandResult | Promise<CommandResult>;
  stop(options: { abort: boolean }): CommandResult | Promise<CommandResult>;
  /** `/reload`: reads the run's loop.yaml again; absent where nothing can be reloaded (a replay). */
  reload?(): CommandResult | Promise<CommandResult>;
}

/**
 * Carries out a parsed command on `target`. `help` is the console's own (it opens the
 * help overlay); a target without a console answers it with the command list.
 */
export async function performOperatorCommand(target: OperatorTarget, command: OperatorCommand): Promise<CommandResult> {
  switch (command.kind) {
    case 'goal-status':
      return target.goalStatus();
    case 'revise-goal':
      return target.reviseGoal(command.directive, command.text);
    case 'extend-budget':
      return target.extendBudget(command.dimension, command.by);
    case 'stop':
      return target.stop({ abort: command.abort });
    case 'reload':
      return target.reload ? target.reload() : { ok: false, refused: true, message: 'nothing to reload here: /reload applies to a running loop' };
    case 'help':
      return { ok: true, message: OPERATOR_COMMAND_SYNTAX.map((c) => c.text.trim()).join(', ') };
    default:
      return assertNever(command);
  }
}
