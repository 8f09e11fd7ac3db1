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
 * - `shell-exact: <command>`: the whole command text, compared after trimming surrounding
 *   whitespace. The only way to auto-approve a compound or dynamic command; what
 *   {@link alwaysAllowRuleFor} writes for one.
 *
 * How a shell call is judged (`args.command`), parsed by mvdan/sh (bash dialect):
 * 1. Deny rules win. `shell: ...` deny rules are checked against every simple command in
 *    the tree: each part of a list or pipeline, and commands inside `$(...)`, backticks,
 *    `<(...)`, subshells, groups, functions and control structures. For deny rules a
 *    path-qualified program is compared by its base name (`/bin/rm` is `rm`); after a
 *    wrapper program (`sudo`, `env`, `xargs`, `timeout`, ...) the rule is tried at every later
 *    word; and the literal script of `sh|bash|... -c '<script>'` and `eval <words>` is parsed
 *    and checked the same way. Only words up to the first dynamic one are compared.
 * 2. A `shell-exact:` allow rule whose text equals the command allows it.
 * 3. Anything that is not one simple command of literal words is asked about, with the
 *    reason: a list (`&&`, `||`, `;`, `&`, newline), a pipeline, a redirection, a variable
 *    assignment, an expansion (`$VAR`, `$(...)`, backticks, `$[...]`, `$((...))`, globs,
 *    braces, `~`, `$'...'`), a path-qualified program (`./ls`), a compound command
 *    (`(...)`, `{ ...; }`, `if`, `time`, `declare`, ...), or a parse failure. With
 *    `default: deny` these are denied instead: the default never makes them *allowed*.
 * 4. A simple literal command is allowed by a matching allow rule, else gets the default.
 *
 * Deny rules are a convenience, not a sandbox: a command can reach `rm` in ways no parser
 * sees (`find -delete`, a script file). The guarantee is on the allow side: nothing compound
 * or dynamic is ever approved by a prefix rule.
 */
import { createRequire } from 'node:module';
import { ConfigError } from '../engine/errors.js';
import type { ToolCall } from '../engine/types.js';

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
  | { kind: 'shell-exact'; command: string; text: string };

const SHELL_TOOL = 'shell';
const SHELL_PREFIX = 'shell:';
const EXACT_PREFIX = 'shell-exact:';
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Programs that run the rest of their words as a command; deny rules look past them. */
const WRAPPERS = new Set(['builtin', 'busybox', 'chrt', 'command', 'doas', 'env', 'exec', 'ionice', 'nice', 'nohup', 'setsid', 'stdbuf', 'strace', 'sudo', 'taskset', 'time', 'timeout', 'unbuffer', 'watch', 'xargs']);
/** Shells whose `-c` script deny rules parse and check. */
const SHELLS = new Set(['ash', 'bash', 'dash', 'ksh', 'mksh', 'sh', 'zsh']);
const MAX_NESTING = 3;
const SNIPPET_CHARS = 40;

// ---------------------------------------------------------------------------------------------
// The parser: mvdan/sh through its GopherJS build (`mvdan-sh`), which keeps node types.

interface ShPos {
  Offset(): number;
  IsValid(): boolean;
}
interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}
interface ShLit extends ShNode {
  Value: string;
}
interface ShWord extends ShNode {
  Parts: ShNode[];
}
interface ShQuoted extends ShNode {
  Dollar: boolean;
  Value: string;
  Parts: ShNode[];
}
interface ShRedirect extends ShNode {
  OpPos: ShPos;
}
interface ShStmt extends ShNode {
  Cmd: ShNode | null;
  Negated: boolean;
  Background: boolean;
  Coprocess: boolean;
  Semicolon: ShPos;
  Redirs: ShRedirect[];
}
interface ShFile extends ShNode {
  Stmts: ShStmt[];
}
interface ShCallExpr extends ShNode {
  Assigns: (ShNode & { Name: ShLit | null })[];
  Args: ShWord[];
}
interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): ShFile };
  NodeType(node: ShNode): string;
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
}

let syntaxModule: ShSyntax | undefined;

/** Loads mvdan-sh once, undoing the two globals its GopherJS runtime sets on load. */
function shSyntax(): ShSyntax {
  if (syntaxModule) return syntaxModule;
  const global = globalThis as { require?: unknown };
  const hadRequire = Object.prototype.hasOwnProperty.call(global, 'require');
  const previousRequire = global.require;
  const stackTraceLimit = Error.stackTraceLimit;
  try {
    syntaxModule = (createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax }).syntax;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    if (hadRequire) global.require = previousRequire;
    else delete global.require;
  }
  return syntaxModule;
}

/** A source text with byte-offset slicing (mvdan/sh positions count UTF-8 bytes). */
class Source {
  private readonly bytes: Buffer;
  constructor(readonly text: string) {
    this.bytes = Buffer.from(text, 'utf8');
  }
  slice(from: number, to: number): string {
    return this.bytes.subarray(from, to).toString('utf8');
  }
  /** The node's text, on one line and cut to a readable length. */
  snippet(node: ShNode): string {
    const text = this.slice(node.Pos().Offset(), node.End().Offset()).replace(/\s+/g, ' ');
    return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS - 1)}…` : text;
  }
  /** The operator starting at `pos`: the run of characters from `chars`. */
  operator(pos: ShPos, chars: string): string {
    let end = pos.Offset();
    while (end < this.bytes.length && chars.includes(String.fromCharCode(this.bytes[end]!))) end++;
    return this.slice(pos.Offset(), end);
  }
}

type Parsed = { ok: true; file: ShFile; source: Source } | { ok: false; error: string };

function parseShell(text: string): Parsed {
  try {
    const file = shSyntax().NewParser().Parse(text, '');
    return { ok: true, file, source: new Source(text) };
  } catch (error) {
    const goError = error as { Error?: () => string } | null;
    const message = typeof goError?.Error === 'function' ? goError.Error() : error instanceof Error ? error.message : String(error);
    return { ok: false, error: message };
  }
}

function nodeType(node: ShNode): string {
  return shSyntax().NodeType(node);
}

// ---------------------------------------------------------------------------------------------
// Words and simple commands.

type Literal = { ok: true; value: string } | { ok: false; problem: string };

function describeDynamic(part: ShNode, source: Source): string {
  switch (nodeType(part)) {
    case 'ParamExp':
      return `parameter expansion (${source.snippet(part)})`;
    case 'CmdSubst':
      return (part as ShNode & { Backquotes: boolean }).Backquotes ? 'command substitution (`...`)' : 'command substitution ($(...))';
    case 'ArithmExp':
      return (part as ShNode & { Bracket: boolean }).Bracket ? 'arithmetic expansion ($[...])' : 'arithmetic expansion ($((...)))';
    case 'ProcSubst':
      return `process substitution (${source.snippet(part).slice(0, 2)}...))`;
    case 'ExtGlob':
      return `extended glob (${source.snippet(part)})`;
    case 'BraceExp':
      return `brace expansion (${source.snippet(part)})`;
    default:
      return `dynamic word (${source.snippet(part)})`;
  }
}

/** Unquoted literal text: removes backslash escapes; refuses globs, braces, `$` and tilde prefixes. */
function unquotedLiteral(raw: string, wordStart: boolean, word: ShWord, source: Source): Literal {
  let value = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\') {
      value += raw[i + 1] ?? '\\'; // a backslash that ends the input stays literal
      i++;
    } else if (ch === '*' || ch === '?' || ch === '[') {
      return { ok: false, problem: `glob (${source.snippet(word)})` };
    } else if (ch === '{') {
      return { ok: false, problem: `brace expansion (${source.snippet(word)})` };
    } else if (ch === '$') {
      return { ok: false, problem: `dynamic word (${source.snippet(word)})` };
    } else if (ch === '~' && ((wordStart && i === 0) || raw[i - 1] === '=' || raw[i - 1] === ':')) {
      return { ok: false, problem: `tilde expansion (${source.snippet(word)})` };
    } else {
      value += ch;
    }
  }
  return { ok: true, value };
}

/** Double-quoted literal text: `\` escapes only `$`, backquote, `"`, `\` and newline. */
function doubleQuotedLiteral(raw: string): string {
  let value = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    const next = raw[i + 1];
    if (ch === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') value += next;
      i++;
    } else {
      value += ch;
    }
  }
  return value;
}

/** The word's value after quote removal, or why it is not a literal. */
function literalWord(word: ShWord, source: Source): Literal {
  let value = '';
  for (const [index, part] of word.Parts.entries()) {
    const type = nodeType(part);
    if (type === 'Lit') {
      const lit = unquotedLiteral((part as ShLit).Value, index === 0, word, source);
      if (!lit.ok) return lit;
      value += lit.value;
    } else if (type === 'SglQuoted') {
      const quoted = part as ShQuoted;
      if (quoted.Dollar) return { ok: false, problem: `ANSI-C quoting (${source.snippet(part)})` };
      value += quoted.Value;
    } else if (type === 'DblQuoted') {
      const quoted = part as ShQuoted;
      if (quoted.Dollar) return { ok: false, problem: `locale quoting (${source.snippet(part)})` };
      for (const inner of quoted.Parts) {
        if (nodeType(inner) !== 'Lit') return { ok: false, problem: describeDynamic(inner, source) };
        value += doubleQuotedLiteral((inner as ShLit).Value);
      }
    } else {
      return { ok: false, problem: describeDynamic(part, source) };
    }
  }
  return { ok: true, value };
}

const COMPOUND_LABELS: Record<string, string> = {
  ArithmCmd: 'arithmetic command',
  Block: 'command group',
  CaseClause: 'case statement',
  CoprocClause: 'coprocess',
  DeclClause: 'declaration',
  ForClause: 'loop',
  FuncDecl: 'function definition',
  IfClause: 'if statement',
  LetClause: 'let command',
  Subshell: 'subshell',
  TestClause: 'test expression',
  TimeClause: 'time command',
  WhileClause: 'loop',
};

type Simple = { ok: true; words: string[] } | { ok: false; problem: string };

/** The literal words of a one-command script, or the first reason it is not one. */
function simpleCommand(file: ShFile, source: Source): Simple {
  const [stmt, second] = file.Stmts;
  if (!stmt) return { ok: false, problem: 'empty command' };
  if (second) {
    const separator = stmt.Background ? '&' : stmt.Semicolon.IsValid() ? ';' : 'newline';
    return { ok: false, problem: `compound command (${separator})` };
  }
  if (stmt.Background) return { ok: false, problem: 'background command (&)' };
  if (stmt.Semicolon.IsValid()) return { ok: false, problem: 'compound command (;)' };
  if (stmt.Negated) return { ok: false, problem: 'negated command (!)' };
  if (stmt.Coprocess) return { ok: false, problem: 'coprocess' };
  const [redirect] = stmt.Redirs;
  if (redirect) return { ok: false, problem: `redirection (${source.operator(redirect.OpPos, '<>&|-')})` };
  const cmd = stmt.Cmd;
  if (!cmd) return { ok: false, problem: 'empty command' };
  const type = nodeType(cmd);
  if (type === 'BinaryCmd') {
    const op = source.operator((cmd as ShNode & { OpPos: ShPos }).OpPos, '&|');
    return { ok: false, problem: op === '|' || op === '|&' ? `pipeline (${op})` : `compound command (${op})` };
  }
  if (type !== 'CallExpr') return { ok: false, problem: `${COMPOUND_LABELS[type] ?? 'compound command'} (${source.snippet(cmd)})` };
  const call = cmd as ShCallExpr;
  const [assign] = call.Assigns;
  if (assign) return { ok: false, problem: `variable assignment (${assign.Name?.Value ?? ''}=)` };
  const words: string[] = [];
  for (const word of call.Args) {
    const literal = literalWord(word, source);
    if (!literal.ok) return literal;
    words.push(literal.value);
  }
  if (words.length === 0) return { ok: false, problem: 'empty command' };
  if (words[0]!.includes('/')) return { ok: false, problem: `path-qualified program (${words[0]})` };
  return { ok: true, words };
}

/** Literal words of one simple command, up to (not including) the first dynamic word. */
function literalPrefix(call: ShCallExpr, source: Source): string[] {
  const words: string[] = [];
  for (const word of call.Args) {
    const literal = literalWord(word, source);
    if (!literal.ok) break;
    words.push(literal.value);
  }
  return words;
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** The literal word prefixes of every simple command in the script, nested ones included. */
function commandParts(file: ShFile, source: Source, depth = 0): string[][] {
  const parts: string[][] = [];
  shSyntax().Walk(file, (node) => {
    if (node && nodeType(node) === 'CallExpr') {
      const words = literalPrefix(node as ShCallExpr, source);
      if (words.length > 0) parts.push(words);
      if (depth < MAX_NESTING) parts.push(...nestedScripts(words).flatMap((script) => scriptParts(script, depth + 1)));
    }
    return true;
  });
  return parts;
}

function scriptParts(script: string, depth: number): string[][] {
  const parsed = parseShell(script);
  return parsed.ok ? commandParts(parsed.file, parsed.source, depth) : [];
}

/** Scripts run by `sh -c '<script>'` or `eval <words>` (possibly after wrappers). */
function nestedScripts(words: string[]): string[] {
  const scripts: string[] = [];
  const starts = words.length > 0 && WRAPPERS.has(basename(words[0]!)) ? words.keys() : [0].values();
  for (const start of starts) {
    const program = basename(words[start] ?? '');
    if (program === 'eval') scripts.push(words.slice(start + 1).join(' '));
    if (!SHELLS.has(program)) continue;
    const flag = words.findIndex((word, i) => i > start && /^-[A-Za-z]*c[A-Za-z]*$/.test(word));
    const script = flag >= 0 ? words[flag + 1] : undefined;
    if (script !== undefined) scripts.push(script);
  }
  return scripts;
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

// ---------------------------------------------------------------------------------------------
// Rules.

/**
 * Parses one rule string (syntax in the module doc).
 * @param path where the rule sits in `loop.yaml`, for the error (e.g. `approval.allow[2]`)
 * @throws ConfigError for an empty rule, a bad tool name, or shell words that are not literal
 */
export function parseRule(text: string, path = 'approval'): ApprovalRule {
  const fail = (expected: string): never => {
    throw new ConfigError('loop.yaml', path, `${expected} (got ${JSON.stringify(text)})`);
  };
  const trimmed = text.trim();
  if (trimmed.startsWith(EXACT_PREFIX)) {
    const command = trimmed.slice(EXACT_PREFIX.length).trim();
    if (!command) fail('a command after "shell-exact:"');
    return { kind: 'shell-exact', command, text };
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
  if (!TOOL_NAME.test(trimmed)) fail('a tool name, "shell: <words>" or "shell-exact: <command>"');
  return { kind: 'tool', tool: trimmed, text };
}

/** Checks every rule of an `approval` section; the policy loader reports the errors together. */
export function checkRules(rules: Pick<ApprovalRules, 'allow' | 'deny'>): ConfigError[] {
  const errors: ConfigError[] = [];
  for (const list of ['allow', 'deny'] as const) {
    rules[list].forEach((text, i) => {
      try {
        parseRule(text, `approval.${list}[${i}]`);
      } catch (error) {
        if (error instanceof ConfigError) errors.push(error);
        else throw error;
      }
    });
  }
  return errors;
}

function tryParseRule(text: string): ApprovalRule | { kind: 'invalid'; text: string; error: string } {
  try {
    return parseRule(text);
  } catch (error) {
    return { kind: 'invalid', text, error: error instanceof ConfigError ? error.expected : String(error) };
  }
}

/** Quotes a word for a rule so that {@link parseRule} reads it back unchanged. */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

// ---------------------------------------------------------------------------------------------
// Decisions.

/** The stricter of the default and "ask", for commands that no prefix rule may allow. */
function askOrDefault(rules: ApprovalRules): 'ask' | 'deny' {
  return rules.default === 'deny' ? 'deny' : 'ask';
}

/**
 * Decides one tool call against the rules (order and guarantees in the module doc).
 * `sessionAllow` holds rules the operator added for this run ("always allow"); they act as
 * allow rules, and deny rules still win over them.
 */
export async function decideApproval(call: ToolCall, rules: ApprovalRules, sessionAllow: string[] = []): Promise<ApprovalDecision> {
  const deny = rules.deny.map(tryParseRule);
  const allow = [...rules.allow, ...sessionAllow].map(tryParseRule);
  const toolDeny = deny.find((rule) => rule.kind === 'tool' && rule.tool === call.name);
  if (toolDeny) return { decision: 'deny', rule: toolDeny.text, reason: `deny rule "${toolDeny.text}"` };

  if (call.name !== SHELL_TOOL) {
    const toolAllow = allow.find((rule) => rule.kind === 'tool' && rule.tool === call.name);
    if (toolAllow) return { decision: 'allow', rule: toolAllow.text, reason: `allow rule "${toolAllow.text}"` };
    return { decision: rules.default, rule: null, reason: `no rule names tool "${call.name}" (default: ${rules.default})` };
  }

  const command = call.args.command;
  if (typeof command !== 'string' || command.trim() === '') {
    return { decision: askOrDefault(rules), rule: null, reason: 'shell call without a command' };
  }
  if (command.includes('\0')) return { decision: askOrDefault(rules), rule: null, reason: 'NUL byte in command' };
  const exactDeny = deny.find((rule) => rule.kind === 'shell-exact' && rule.command === command.trim());
  if (exactDeny) return { decision: 'deny', rule: exactDeny.text, reason: `deny rule "${exactDeny.text}"` };

  const parsed = parseShell(command);
  if (!parsed.ok) return { decision: askOrDefault(rules), rule: null, reason: `parse error: ${parsed.error}` };
  for (const words of commandParts(parsed.file, parsed.source)) {
    const hit = deny.find((rule) => rule.kind === 'shell' && denyMatches(rule.words, words));
    if (hit) return { decision: 'deny', rule: hit.text, reason: `deny rule "${hit.text}"` };
  }
  const invalid = deny.find((rule) => rule.kind === 'invalid');
  if (invalid) return { decision: askOrDefault(rules), rule: invalid.text, reason: `invalid deny rule "${invalid.text}"` };

  const exactAllow = allow.find((rule) => rule.kind === 'shell-exact' && rule.command === command.trim());
  if (exactAllow) return { decision: 'allow', rule: exactAllow.text, reason: `allow rule "${exactAllow.text}"` };

  const simple = simpleCommand(parsed.file, parsed.source);
  if (!simple.ok) return { decision: askOrDefault(rules), rule: null, reason: simple.problem };
  const hit = allow.find((rule) => (rule.kind === 'tool' && rule.tool === SHELL_TOOL) || (rule.kind === 'shell' && allowMatches(rule.words, simple.words)));
  if (hit) return { decision: 'allow', rule: hit.text, reason: `allow rule "${hit.text}"` };
  return { decision: rules.default, rule: null, reason: 'no allow rule matches' };
}

/**
 * The rule that the console's "always allow for this run" key adds for `call`:
 * - a tool other than `shell`: the tool's name (e.g. `read_file`);
 * - a simple literal command: `shell: <its literal words>`, each word quoted as needed, so
 *   later calls that start with the same words are allowed (`shell: git commit -m 'wip'`);
 * - a compound or dynamic command: `shell-exact: <the command, trimmed>`, which allows only
 *   that exact text again, never a variation of it;
 * - a command that does not parse, holds a NUL byte, or is missing: `null`
 *   (approve it once; nothing is remembered).
 */
export function alwaysAllowRuleFor(call: ToolCall): string | null {
  if (call.name !== SHELL_TOOL) return call.name;
  const command = call.args.command;
  if (typeof command !== 'string' || command.trim() === '' || command.includes('\0')) return null;
  const parsed = parseShell(command);
  if (!parsed.ok) return null;
  const simple = simpleCommand(parsed.file, parsed.source);
  if (simple.ok) return `${SHELL_PREFIX} ${simple.words.map(quoteWord).join(' ')}`;
  return `${EXACT_PREFIX} ${command.trim()}`;
}
