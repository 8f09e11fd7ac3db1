/**
 * What "always allow for this run" may store for a tool call. It never widens: `a` stores
 * the exact call, and only for a call on the fixed read-only list (read-only-commands.ts)
 * does the prompt offer one wider rule, which the operator picks with `A`.
 *
 * - A shell command stores `shell-exact: <the command>`: the same command again, compared
 *   by its words after shell parsing when it is one command of literal words (`rm -r ./tmp`
 *   then allows `rm  -r  './tmp'`, never `rm -r ./tmp ./src`), else by its text (`make &&
 *   make test`). Nothing is stored for a command whose words are known only when it runs
 *   (`$X`, `$(...)`, globs, `~`: the same text could then run other commands), for one that
 *   does not parse, and for a destructive command (destructive-commands.ts): those are
 *   approved once (`y`) or not at all.
 * - Any other tool stores `exact: <tool> sha256:<digest>`: the tool with exactly these
 *   arguments (the digest is sha256 of their canonical JSON, first 32 hex digits).
 * - The wider choice: `shell-read-only: git diff` (that command with any arguments except
 *   the options that write files or run programs) for a command on the read-only list, and
 *   the whole tool (`read_file`) for a read-only tool.
 *
 * {@link grantableRule} is the other half: the approval gate honours a rule granted during
 * the run only if it has one of these shapes, so a rule recorded by an older version (a
 * `shell:` prefix) or written into the log by hand never widens what runs.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../repetition.js';
import type { ToolCall } from '../types.js';
import { destructiveCommand } from './destructive-commands.js';
import { READ_ONLY_TOOLS, readOnlyCommand, readOnlyCommandOf, readOnlyMeaning, refusedWord } from './read-only-commands.js';
import { dynamicPart, literalArgv, parseShell, simpleCommand } from './shell-syntax.js';

/** A rule the prompt offers, with what it allows in words. */
export interface AllowChoice {
  rule: string;
  /** e.g. `this exact command, nothing added`, `git diff with any arguments except --output`. */
  meaning: string;
}

/** What the prompt offers for one call. */
export interface AllowChoices {
  /** What `a` stores, or why nothing can be stored for this call. */
  exact: AllowChoice | { rule: null; why: string };
  /** Wider rules for `A`; empty unless the call is on the read-only list (at most one today). */
  wider: AllowChoice[];
}

/** Prefix of the exact-arguments rule for tools other than shell. */
export const EXACT_ARGS_PREFIX = 'exact:';
/** Prefix of a rule for a command on the read-only list. */
export const READ_ONLY_PREFIX = 'shell-read-only:';
const SHELL_EXACT_PREFIX = 'shell-exact:';
const DIGEST_CHARS = 32;

/** sha256 of the canonical JSON of a call's arguments, first 32 hex digits (128 bits). */
export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, DIGEST_CHARS);
}

/** Why `command` cannot be stored as an exact rule, or `null` when it can. */
function shellExactProblem(command: unknown): string | null {
  if (typeof command !== 'string' || command.trim() === '') return 'the call has no command';
  if (command.includes('\0')) return 'the command holds a NUL byte';
  const parsed = parseShell(command);
  if (!parsed.ok) return 'the command does not parse';
  const destructive = destructiveCommand(command);
  if (destructive) return `destructive command (${destructive.command}: ${destructive.effect})`;
  const dynamic = dynamicPart(parsed.file, parsed.source);
  if (dynamic) return `${dynamic} is known only when it runs`;
  return null;
}

function shellChoices(command: unknown): AllowChoices {
  const problem = shellExactProblem(command);
  const parsed = typeof command === 'string' && problem === null ? parseShell(command) : null;
  if (!parsed?.ok) return { exact: { rule: null, why: problem ?? 'the command does not parse' }, wider: [] };
  const argv = literalArgv(parsed.file, parsed.source);
  const exact = {
    rule: `${SHELL_EXACT_PREFIX} ${(command as string).trim()}`,
    meaning: argv ? 'this exact command, same words, nothing added' : 'this exact command text',
  };
  const simple = simpleCommand(parsed.file, parsed.source);
  const entry = simple.ok ? readOnlyCommandOf(simple.words) : null;
  if (!simple.ok || !entry || refusedWord(entry, simple.words) !== null) return { exact, wider: [] };
  return { exact, wider: [{ rule: `${READ_ONLY_PREFIX} ${entry.words.join(' ')}`, meaning: readOnlyMeaning(entry) }] };
}

/** The rules the approval prompt offers for `call` (see the module doc). */
export function alwaysAllowChoices(call: ToolCall): AllowChoices {
  if (call.name === 'shell') return shellChoices(call.args.command);
  const exact = { rule: `${EXACT_ARGS_PREFIX} ${call.name} sha256:${argsDigest(call.args)}`, meaning: `${call.name} with exactly these arguments` };
  const wider = READ_ONLY_TOOLS.includes(call.name) ? [{ rule: call.name, meaning: `every ${call.name} call (it only reads, inside the workspace)` }] : [];
  return { exact, wider };
}

/** The rules offered for `call`, `a`'s first. */
export function offeredRules(call: ToolCall): string[] {
  const { exact, wider } = alwaysAllowChoices(call);
  return [...(exact.rule === null ? [] : [exact.rule]), ...wider.map((choice) => choice.rule)];
}

/**
 * Whether a rule granted during the run has a shape the prompt can offer: `shell-exact:`
 * of a command that could be stored, `shell-read-only:` of a listed command, `exact:` of a
 * tool other than shell, or a read-only tool's name. Other granted rules are ignored.
 */
export function grantableRule(rule: string): boolean {
  const text = rule.trim();
  if (text.startsWith(SHELL_EXACT_PREFIX)) return shellExactProblem(text.slice(SHELL_EXACT_PREFIX.length).trim()) === null;
  if (text.startsWith(READ_ONLY_PREFIX)) {
    const parsed = parseShell(text.slice(READ_ONLY_PREFIX.length));
    const simple = parsed.ok ? simpleCommand(parsed.file, parsed.source) : null;
    return simple?.ok === true && readOnlyCommand(simple.words) !== null;
  }
  const exact = new RegExp(`^${EXACT_ARGS_PREFIX}\\s*(\\S+)\\s+sha256:[0-9a-f]{${DIGEST_CHARS}}$`).exec(text);
  if (exact) return exact[1] !== 'shell';
  return READ_ONLY_TOOLS.includes(text);
}
