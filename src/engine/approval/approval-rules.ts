/**
 * Approval rules from `loop.yaml` (`approval.default`, `approval.allow`, `approval.deny`):
 * decide whether a tool call runs, is refused, or is asked about.
 *
 * Rule syntax (one string per rule):
 * - `read_file`: a whole tool, by exact name. The bare `shell` rule names the shell tool:
 *   in `deny` it refuses every shell call; in `allow` it allows any *simple literal* command
 *   (never a compound or dynamic one).
 * - `shell: git status`: a shell prefix rule. The command's literal words must start with
 *   these words, compared word by word after shell unquoting: it matches `git status` and
 *   `git status --short` (and `'git' status`), but not `git statusx`. Rule words are shell
 *   words: quote a word that holds spaces (`shell: git commit -m 'wip'`). There is no
 *   globbing: a final standalone ` *` is accepted and ignored (`shell: rm *` is `shell: rm`),
 *   any other unquoted glob or expansion character in a rule is a configuration error.
 *   A path-qualified first word is accepted: deny rules compare base names (`shell: /bin/rm`
 *   denies `rm x`); as an allow rule it never matches, since such programs are always asked about.
 * - `shell-exact: <command>`: that command and no other. When the rule's command and the
 *   call are each one command of literal words, their words are compared after shell
 *   parsing (`rm -r ./tmp` matches `rm  -r './tmp'`, never `rm -r ./tmp ./src`); otherwise
 *   the whole text, after trimming surrounding whitespace. The only way to auto-approve a
 *   compound command; what the console's `a` key stores (always-allow.ts).
 * - `shell-read-only: git diff`: a command of the fixed read-only list
 *   (read-only-commands.ts) with any arguments except the options that write files or run
 *   programs (`--output`, `find -exec`, ...). What the console's `A` key stores.
 * - `exact: <tool> sha256:<digest>`: a tool called with exactly the arguments whose
 *   canonical JSON (keys sorted at every level, no spaces) has that sha256 digest, all 64
 *   hex digits or the first 32; what `a` stores (32 digits) for tools other than shell.
 *
 * How a shell call is judged (`args.command`), parsed by mvdan/sh (bash dialect):
 * 1. Deny rules win. `shell: ...` deny rules are checked against every simple command in
 *    the tree: each part of a list or pipeline, and commands inside `$(...)`, backticks,
 *    `<(...)`, subshells, groups, functions and control structures. For deny rules a
 *    path-qualified program is compared by its base name (`/bin/rm` is `rm`); after a
 *    wrapper program (`sudo`, `env`, `xargs`, `timeout`, ...) the rule is tried at every later
 *    word; and the literal script of `sh|bash|... -c '<script>'`, `eval <words>`,
 *    `env -S '<words>'` and a here-document fed to a shell is parsed and checked the same
 *    way. Only words up to the first dynamic one are compared. A command holding more
 *    script text inside it than is read (`MAX_SCRIPT_READING`, shell-syntax.ts) is then
 *    asked about, whatever the allow rules say: the deny rules could not see all of it.
 * 2. A `shell-exact:` allow rule that matches the command allows it.
 * 3. Anything that is not one simple command of literal words is asked about, with the
 *    reason: a list (`&&`, `||`, `;`, `&`, newline), a pipeline, a redirection, a variable
 *    assignment, an expansion (`$VAR`, `$(...)`, backticks, `$[...]`, `$((...))`, globs,
 *    braces, `~`, `$'...'`), a path-qualified program (`./ls`), a compound command
 *    (`(...)`, `{ ...; }`, `if`, `time`, `declare`, ...), or a parse failure. With
 *    `default: deny` these are denied instead: the default never makes them *allowed*.
 * 4. A simple literal command is allowed by a matching allow rule, else gets the default.
 *
 * Rules granted during the run ("always allow", passed as `granted` to {@link ApprovalRuleSet.decide}) act as allow
 * rules only when they have a shape the console can offer (always-allow.ts): a granted
 * rule of another shape (a `shell:` prefix from an older log) is ignored.
 *
 * Deny rules are a convenience, not a sandbox: a command can reach `rm` in ways no parser
 * sees (`find -delete`, a script file). The guarantee is on the allow side: nothing compound
 * or dynamic is ever approved by a prefix rule.
 */
import { ConfigError } from '../errors.js';
import { quoted } from '../yaml-bounds.js';
import type { ToolCall } from '../types.js';
import { argsDigest, EXACT_ARGS_PREFIX, grantableRule, READ_ONLY_PREFIX } from './always-allow.js';
import { READ_ONLY_COMMANDS, readOnlyCommand, readOnlyCommandOf, refusedWord } from './read-only-commands.js';
import { basename, commandParts, literalArgv, literalPrefix, parseShell, simpleCommand, TOO_MUCH_SCRIPT, UNREADABLE, WRAPPERS, type CommandWord, type ShCallExpr } from './shell-syntax.js';

/** What happens to a tool call that no rule decides. */
export type ApprovalDefault = 'ask' | 'allow' | 'deny';

/** The `approval` section of `loop.yaml`: rule strings as written (see the module doc). */
export interface ApprovalRules {
  default: ApprovalDefault;
  allow: string[];
  deny: string[];
}

/** The outcome for one tool call: `rule` is the rule text that decided it, if any; `reason` says why. */
export interface ApprovalDecision {
  decision: 'allow' | 'deny' | 'ask';
  rule: string | null;
  reason: string;
}

/** One parsed rule; `text` is the rule as written, for messages. */
export type ApprovalRule =
  | { kind: 'tool'; tool: string; text: string }
  | { kind: 'shell'; words: string[]; text: string }
  /** `argv`: the command's words when it is one command of literal words, else `null` (compared as text). */
  | { kind: 'shell-exact'; command: string; argv: string[] | null; text: string }
  | { kind: 'shell-read-only'; words: string[]; text: string }
  | { kind: 'exact-args'; tool: string; digest: string; text: string };

const SHELL_TOOL = 'shell';
const SHELL_PREFIX = 'shell:';
const EXACT_PREFIX = 'shell-exact:';
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const EXACT_ARGS = /^(\S+)\s+sha256:([0-9a-f]{64}|[0-9a-f]{32})$/i;

/** The literal words of a command part up to (not including) its first dynamic word. */
function literalLead(words: readonly CommandWord[]): string[] {
  const end = words.indexOf(null);
  return (end < 0 ? words : words.slice(0, end)) as string[];
}

/** A deny rule matches a part at its program, or at any later word once a wrapper precedes it. */
function denyMatches(ruleWords: string[], words: string[]): boolean {
  const [first, ...rest] = ruleWords;
  if (first === undefined || words.length === 0) return false;
  const last = WRAPPERS.has(basename(words[0]!)) ? words.length - 1 : 0;
  for (let start = 0; start <= last; start++) {
    if (basename(words[start]!) !== basename(first)) continue;
    if (rest.every((word, i) => words[start + 1 + i] === word)) return true;
  }
  return false;
}

function allowMatches(ruleWords: string[], words: string[]): boolean {
  return ruleWords.length <= words.length && ruleWords.every((word, i) => words[i] === word);
}

/** The argv of a one-command script of literal words, or `null`. */
function argvOf(text: string): string[] | null {
  const parsed = parseShell(text);
  return parsed.ok ? literalArgv(parsed.file, parsed.source) : null;
}

/** A `shell-exact:` rule against a call's command: same words when both are literal commands, else same text. */
function exactMatches(rule: { command: string; argv: string[] | null }, command: string, argv: string[] | null): boolean {
  if (rule.argv && argv) return rule.argv.length === argv.length && rule.argv.every((word, i) => word === argv[i]);
  return rule.command === command.trim();
}

// ---------------------------------------------------------------------------------------------
// Rules.

/**
 * Parses one rule string (syntax in the module doc).
 * @param path where the rule sits in `loop.yaml`, for the error (e.g. `approval.allow[2]`)
 * @throws ConfigError for an empty rule, a bad tool name, shell words that are not literal,
 *   or a `shell-read-only:` command that is not on the read-only list
 */
export function parseRule(text: string, path = 'approval'): ApprovalRule {
  const fail = (expected: string): never => {
    throw new ConfigError('loop.yaml', path, `expected ${expected}, found ${quoted(text)}`);
  };
  const trimmed = text.trim();
  if (trimmed.startsWith(EXACT_PREFIX)) {
    const command = trimmed.slice(EXACT_PREFIX.length).trim();
    if (!command) fail('a command after "shell-exact:"');
    return { kind: 'shell-exact', command, argv: argvOf(command), text };
  }
  if (trimmed.startsWith(READ_ONLY_PREFIX)) {
    const parsed = parseShell(trimmed.slice(READ_ONLY_PREFIX.length));
    const simple = parsed.ok ? simpleCommand(parsed.file, parsed.source) : null;
    if (!simple?.ok || !readOnlyCommand(simple.words)) {
      fail(`a read-only command after "${READ_ONLY_PREFIX}" (one of: ${READ_ONLY_COMMANDS.map((c) => c.words.join(' ')).join(', ')})`);
    }
    return { kind: 'shell-read-only', words: (simple as { words: string[] }).words, text };
  }
  if (trimmed.startsWith(EXACT_ARGS_PREFIX)) {
    const match = EXACT_ARGS.exec(trimmed.slice(EXACT_ARGS_PREFIX.length).trim());
    if (!match || !TOOL_NAME.test(match[1]!)) {
      return fail(`"${EXACT_ARGS_PREFIX} <tool> sha256:<digest>", the digest being the sha256 of the arguments as canonical JSON (keys sorted at every level, no spaces: {"path":"src/a.ts"}) in hex, all 64 digits or the first 32 (as the console's a key stores it)`);
    }
    return { kind: 'exact-args', tool: match[1]!, digest: match[2]!.toLowerCase(), text };
  }
  if (trimmed.startsWith(SHELL_PREFIX)) {
    let body = trimmed.slice(SHELL_PREFIX.length).trim();
    if (body === '*' || body.endsWith(' *') || body.endsWith('\t*')) body = body.slice(0, -1).trim();
    if (!body) fail('words after "shell:" (write "shell" to name the whole tool)');
    const parsed = parseShell(body);
    if (!parsed.ok) return fail(`shell words that parse (${parsed.error})`);
    const simple = simpleCommand(parsed.file, parsed.source);
    if (!simple.ok && !simple.problem.startsWith('path-qualified')) fail(`literal words after "shell:", no globbing or expansion: ${simple.problem}`);
    const words = simple.ok ? simple.words : literalPrefix(parsed.file.Stmts[0]!.Cmd as ShCallExpr, parsed.source);
    return { kind: 'shell', words, text };
  }
  if (!TOOL_NAME.test(trimmed)) fail('a tool name, "shell: <words>", "shell-exact: <command>" or "shell-read-only: <command>"');
  return { kind: 'tool', tool: trimmed, text };
}

/** A rule as parsed once, or the reason it could not be (kept so that deciding can name it). */
type Parsed = ApprovalRule | { kind: 'invalid'; text: string; error: string };

function tryParseRule(text: string): Parsed {
  try {
    return parseRule(text);
  } catch (error) {
    if (error instanceof ConfigError) return { kind: 'invalid', text, error: error.expected };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Decisions.

/**
 * The approval rules of one policy, parsed once: build it when the policy is loaded and ask it
 * for every call. Rules granted during the run ("always allow") are parsed the first time they
 * are seen and remembered. A rule that does not parse (possible only when the rules did not go
 * through the policy loader) is kept as invalid: an invalid deny rule makes every shell call
 * that no deny rule refuses be asked about, an invalid allow rule allows nothing.
 */
export class ApprovalRuleSet {
  readonly default: ApprovalDefault;
  private readonly allow: readonly Parsed[];
  private readonly deny: readonly Parsed[];
  /** Granted rules seen so far: parsed, or `null` for one of a shape the console cannot offer. */
  private readonly grants = new Map<string, Parsed | null>();

  constructor(rules: ApprovalRules) {
    this.default = rules.default;
    this.allow = rules.allow.map(tryParseRule);
    this.deny = rules.deny.map(tryParseRule);
  }

  /**
   * Decides one tool call (order and guarantees in the module doc). `granted` holds the rules
   * the operator added for this run; those of a shape the console can offer act as allow rules,
   * and deny rules still win over them.
   */
  decide(call: ToolCall, granted: readonly string[] = []): ApprovalDecision {
    return decide(call, this.default, this.deny, [...this.allow, ...this.granted(granted)]);
  }

  private granted(rules: readonly string[]): Parsed[] {
    const parsed: Parsed[] = [];
    for (const text of rules) {
      let rule = this.grants.get(text);
      if (rule === undefined) this.grants.set(text, (rule = grantableRule(text) ? tryParseRule(text) : null));
      if (rule) parsed.push(rule);
    }
    return parsed;
  }
}

/** The stricter of the default and "ask", for commands that no prefix rule may allow. */
function askOrDefault(fallback: ApprovalDefault): 'ask' | 'deny' {
  return fallback === 'deny' ? 'deny' : 'ask';
}

/** An `exact:` rule for this call: same tool, same digest of the canonical arguments. */
function exactArgsMatch(rule: Parsed, call: ToolCall): boolean {
  return rule.kind === 'exact-args' && rule.tool === call.name && rule.digest === argsDigest(call.args, rule.digest.length);
}

function decide(call: ToolCall, fallback: ApprovalDefault, deny: readonly Parsed[], allow: readonly Parsed[]): ApprovalDecision {
  const toolDeny = deny.find((rule) => (rule.kind === 'tool' && rule.tool === call.name) || exactArgsMatch(rule, call));
  if (toolDeny) return { decision: 'deny', rule: toolDeny.text, reason: `deny rule "${toolDeny.text}"` };

  if (call.name !== SHELL_TOOL) {
    const toolAllow = allow.find((rule) => (rule.kind === 'tool' && rule.tool === call.name) || exactArgsMatch(rule, call));
    if (toolAllow) return { decision: 'allow', rule: toolAllow.text, reason: `allow rule "${toolAllow.text}"` };
    return { decision: fallback, rule: null, reason: `no rule names tool "${call.name}" (default: ${fallback})` };
  }
  return decideShell(call.args.command, fallback, deny, allow);
}

function decideShell(command: unknown, fallback: ApprovalDefault, deny: readonly Parsed[], allow: readonly Parsed[]): ApprovalDecision {
  if (typeof command !== 'string' || command.trim() === '') {
    return { decision: askOrDefault(fallback), rule: null, reason: 'shell call without a command' };
  }
  if (command.includes('\0')) return { decision: askOrDefault(fallback), rule: null, reason: 'NUL byte in command' };
  const parsed = parseShell(command);
  const argv = parsed.ok ? literalArgv(parsed.file, parsed.source) : null;
  const exactDeny = deny.find((rule) => rule.kind === 'shell-exact' && exactMatches(rule, command, argv));
  if (exactDeny) return { decision: 'deny', rule: exactDeny.text, reason: `deny rule "${exactDeny.text}"` };

  if (!parsed.ok) return { decision: askOrDefault(fallback), rule: null, reason: `parse error: ${parsed.error}` };
  let unread = false;
  for (const part of commandParts(parsed.file, parsed.source)) {
    unread ||= part[0] === UNREADABLE && part[1] === TOO_MUCH_SCRIPT;
    const words = literalLead(part);
    if (words.length === 0) continue;
    const hit = deny.find((rule) => rule.kind === 'shell' && denyMatches(rule.words, words));
    if (hit) return { decision: 'deny', rule: hit.text, reason: `deny rule "${hit.text}"` };
  }
  // Deny rules could not be checked against the scripts left unread: no rule may allow it.
  if (unread) return { decision: askOrDefault(fallback), rule: null, reason: `unreadable command: ${TOO_MUCH_SCRIPT}` };
  const invalid = deny.find((rule) => rule.kind === 'invalid');
  if (invalid) return { decision: askOrDefault(fallback), rule: invalid.text, reason: `invalid deny rule "${invalid.text}"` };

  const exactAllow = allow.find((rule) => rule.kind === 'shell-exact' && exactMatches(rule, command, argv));
  if (exactAllow) return { decision: 'allow', rule: exactAllow.text, reason: `allow rule "${exactAllow.text}"` };

  const simple = simpleCommand(parsed.file, parsed.source);
  if (!simple.ok) return { decision: askOrDefault(fallback), rule: null, reason: simple.problem };
  const hit = allow.find(
    (rule) =>
      (rule.kind === 'tool' && rule.tool === SHELL_TOOL) ||
      (rule.kind === 'shell' && allowMatches(rule.words, simple.words)) ||
      (rule.kind === 'shell-read-only' && readOnlyAllows(rule.words, simple.words)),
  );
  if (hit) return { decision: 'allow', rule: hit.text, reason: `allow rule "${hit.text}"` };
  return { decision: fallback, rule: null, reason: 'no allow rule matches' };
}

/** A `shell-read-only:` rule allows the command when it starts with the rule's words and uses no refused option. */
function readOnlyAllows(ruleWords: string[], words: string[]): boolean {
  const entry = readOnlyCommandOf(words);
  return entry !== null && allowMatches(ruleWords, words) && entry.words.length === ruleWords.length && refusedWord(entry, words) === null;
}
