/**
 * The shell parser behind the approval rules and the destructive-command guard: mvdan/sh
 * (bash dialect) through its GopherJS build (`mvdan-sh`), which keeps node types, plus
 * the few readings of its tree that both need: a word's literal value after quote removal,
 * one simple command of literal words, whether a script holds any expansion, and every
 * simple command of a script with the scripts it runs (`sh -c '...'`, `eval ...`).
 *
 * The tree is read once into plain objects (shell-tree.ts) and the last few parsed scripts
 * are kept, so the approval gate, the destructive-command guard and the approval prompt
 * reading the same command parse it once. Every reading here takes time linear in the
 * command's length, whatever its shape; what could grow faster (scripts inside scripts,
 * each read again) is bounded by {@link MAX_SCRIPT_READING}, past which the rest is
 * unreadable.
 *
 * Nothing here runs a shell: a command is only read.
 */
import { createRequire } from 'node:module';
import { mirrorTree, walkTree, type ShPos, type TreeNode } from './shell-tree.js';

export type { ShPos } from './shell-tree.js';

const SNIPPET_CHARS = 40;

export interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}
export interface ShLit extends ShNode {
  Value: string;
}
export interface ShWord extends ShNode {
  Parts: ShNode[];
}
export interface ShQuoted extends ShNode {
  Dollar: boolean;
  Value: string;
  Parts: ShNode[];
}
export interface ShRedirect extends ShNode {
  OpPos: ShPos;
  /** The target word (for `<<<`, the here-string). */
  Word: ShWord | null;
  /** The body of a here-document. */
  Hdoc: ShWord | null;
}
export interface ShStmt extends ShNode {
  Cmd: ShNode | null;
  Negated: boolean;
  Background: boolean;
  Coprocess: boolean;
  Semicolon: ShPos;
  Redirs: ShRedirect[];
}
export interface ShFile extends ShNode {
  Stmts: ShStmt[];
}
export interface ShCallExpr extends ShNode {
  Assigns: (ShNode & { Name: ShLit | null })[];
  Args: ShWord[];
}
interface ShParser {
  NewParser(): { Parse(src: string, name: string): { __internal_object__?: unknown } };
}

let parserModule: ShParser | undefined;

/** Loads mvdan-sh once, undoing the two globals its GopherJS runtime sets on load. */
function shParser(): ShParser {
  if (parserModule) return parserModule;
  const global = globalThis as { require?: unknown };
  const hadRequire = Object.prototype.hasOwnProperty.call(global, 'require');
  const previousRequire = global.require;
  const stackTraceLimit = Error.stackTraceLimit;
  try {
    parserModule = (createRequire(import.meta.url)('mvdan-sh') as { syntax: ShParser }).syntax;
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    if (hadRequire) global.require = previousRequire;
    else delete global.require;
  }
  return parserModule;
}

/** A source text with byte-offset slicing (mvdan/sh positions count UTF-8 bytes). */
export class Source {
  private readonly bytes: Buffer;
  constructor(readonly text: string) {
    this.bytes = Buffer.from(text, 'utf8');
  }
  slice(from: number, to: number): string {
    return this.bytes.subarray(from, to).toString('utf8');
  }
  /**
   * The node's text, on one line (each run of white space one space) and cut to
   * {@link SNIPPET_CHARS} characters. Only as much of the text as that needs is decoded:
   * the time does not grow with the node's length.
   */
  snippet(node: ShNode): string {
    const from = node.Pos().Offset();
    const to = node.End().Offset();
    for (let chunk = 256; ; chunk *= 4) {
      const end = Math.min(to, from + chunk);
      const text = this.slice(from, end).replace(/\s+/g, ' ');
      if (end === to) return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS - 1)}…` : text;
      // A prefix may end inside a character or a run of white space: its last characters may
      // still change, the first ones no longer do.
      if (text.length > SNIPPET_CHARS + 4) return `${text.slice(0, SNIPPET_CHARS - 1)}…`;
    }
  }
  /** The operator starting at `pos`: the run of characters from `chars`. */
  operator(pos: ShPos, chars: string): string {
    let end = pos.Offset();
    while (end < this.bytes.length && chars.includes(String.fromCharCode(this.bytes[end]!))) end++;
    return this.slice(pos.Offset(), end);
  }
}

/** A parsed script, or why it does not parse. */
export type Parsed = { ok: true; file: ShFile; source: Source } | { ok: false; error: string };

/** How many parsed scripts are kept: the gate, the guard and the prompt read the same command. */
const PARSED_KEPT = 4;
const parsedScripts = new Map<string, Parsed>();

/**
 * Parses a script (bash dialect); a parse failure is a value with mvdan/sh's message
 * (`1:4: ...`). A script nested so deep that the parser runs out of stack does not parse
 * either. The last {@link PARSED_KEPT} results are kept and returned again for the same
 * text: the tree must not be changed.
 */
export function parseShell(text: string): Parsed {
  const kept = parsedScripts.get(text);
  if (kept) {
    parsedScripts.delete(text);
    parsedScripts.set(text, kept);
    return kept;
  }
  const parsed = parseOnce(text);
  parsedScripts.set(text, parsed);
  if (parsedScripts.size > PARSED_KEPT) parsedScripts.delete(parsedScripts.keys().next().value!);
  return parsed;
}

function parseOnce(text: string): Parsed {
  let tree: unknown;
  try {
    tree = shParser().NewParser().Parse(text, '').__internal_object__;
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, error: 'nested too deeply to read (the parser ran out of stack)' };
    const goError = error as { Error?: () => string } | null;
    const message = typeof goError?.Error === 'function' ? goError.Error() : error instanceof Error ? error.message : String(error);
    return { ok: false, error: message };
  }
  return { ok: true, file: mirrorTree(tree) as unknown as ShFile, source: new Source(text) };
}

/** The node's type name (`CallExpr`, `Word`, `Lit`, ...). */
export function nodeType(node: ShNode): string {
  return (node as TreeNode).type;
}

/** mvdan/sh's `syntax.Walk`: `visit(node)`, and when it returns true, each child in order, then `visit(null)`. */
export function walk(node: ShNode, visit: (node: ShNode | null) => boolean): void {
  walkTree(node as TreeNode, visit);
}

// ---------------------------------------------------------------------------------------------
// Words and simple commands.

/** A word's value after quote removal, or why it has none (an expansion, a glob, ...). */
export type Literal = { ok: true; value: string } | { ok: false; problem: string };

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

/** Why a word is not literal, told only when asked (building the text costs a look at the source). */
type Problem = (source: Source) => string;
/** A word's value, or the reason it has none. */
type WordValue = { ok: true; value: string } | { ok: false; problem: Problem };

/** Unquoted literal text: removes backslash escapes; refuses globs, braces, `$` and tilde prefixes. */
function unquotedLiteral(raw: string, wordStart: boolean, word: ShWord): WordValue {
  let value = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\') {
      value += raw[i + 1] ?? '\\'; // a backslash that ends the input stays literal
      i++;
    } else if (ch === '*' || ch === '?' || ch === '[') {
      return { ok: false, problem: (source) => `glob (${source.snippet(word)})` };
    } else if (ch === '{' && raw[i + 1] !== '}') {
      // `{a,b}` and `{1..3}` expand (also split by quotes: `{"rm",-rf,x}`); `{}` is plain text (`find -exec rm {} +`)
      return { ok: false, problem: (source) => `brace expansion (${source.snippet(word)})` };
    } else if (ch === '$') {
      return { ok: false, problem: (source) => `dynamic word (${source.snippet(word)})` };
    } else if (ch === '~' && ((wordStart && i === 0) || raw[i - 1] === '=' || raw[i - 1] === ':')) {
      return { ok: false, problem: (source) => `tilde expansion (${source.snippet(word)})` };
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

/**
 * The value of ANSI-C quoted text (`$'...'`, without the quotes) as bash decodes it:
 * `\n`, `\t`, `\e`, `\\`, `\'`, octal `\nnn`, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, `\cX`. A
 * decoded NUL ends the value, as it ends the string bash passes on.
 */
export function ansiCValue(raw: string): string {
  const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
  let value = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch !== '\\' || i === raw.length - 1) {
      value += ch;
      continue;
    }
    const next = raw[++i]!;
    const digits = (pattern: RegExp, max: number): string => {
      let text = '';
      while (text.length < max && i + 1 < raw.length && pattern.test(raw[i + 1]!)) text += raw[++i];
      return text;
    };
    if (Object.hasOwn(simple, next)) value += simple[next];
    else if (/[0-7]/.test(next)) value += String.fromCodePoint(parseInt(next + digits(/[0-7]/, 2), 8));
    else if (next === 'x' || next === 'u' || next === 'U') {
      const hex = digits(/[0-9A-Fa-f]/, next === 'x' ? 2 : next === 'u' ? 4 : 8);
      value += hex === '' ? `\\${next}` : String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff));
    } else if (next === 'c' && i + 1 < raw.length) value += String.fromCharCode(raw[++i]!.toUpperCase().charCodeAt(0) & 0x1f);
    else value += `\\${next}`;
  }
  const nul = value.indexOf('\0');
  return nul < 0 ? value : value.slice(0, nul);
}

/** {@link literalWord}, with the reason for a dynamic word left to build when it is needed. */
function wordValue(word: ShWord, ansiC: boolean): WordValue {
  let value = '';
  for (const [index, part] of word.Parts.entries()) {
    const type = nodeType(part);
    if (type === 'Lit') {
      const lit = unquotedLiteral((part as ShLit).Value, index === 0, word);
      if (!lit.ok) return lit;
      value += lit.value;
    } else if (type === 'SglQuoted') {
      const quoted = part as ShQuoted;
      if (quoted.Dollar && !ansiC) return { ok: false, problem: (source) => `ANSI-C quoting (${source.snippet(part)})` };
      value += quoted.Dollar ? ansiCValue(quoted.Value) : quoted.Value;
    } else if (type === 'DblQuoted') {
      const quoted = part as ShQuoted;
      if (quoted.Dollar) return { ok: false, problem: (source) => `locale quoting (${source.snippet(part)})` };
      for (const inner of quoted.Parts) {
        if (nodeType(inner) !== 'Lit') return { ok: false, problem: (source) => describeDynamic(inner, source) };
        value += doubleQuotedLiteral((inner as ShLit).Value);
      }
    } else {
      return { ok: false, problem: (source) => describeDynamic(part, source) };
    }
  }
  return { ok: true, value };
}

/** The word's value after quote removal, or `null` when it has none (see {@link literalWord}). */
function literalValue(word: ShWord, ansiC = false): string | null {
  const read = wordValue(word, ansiC);
  return read.ok ? read.value : null;
}

/**
 * The word's value after quote removal, or why it is not a literal. ANSI-C quoting
 * (`$'rm'`) is refused unless `ansiC` is set, then it is decoded ({@link ansiCValue}).
 */
export function literalWord(word: ShWord, source: Source, ansiC = false): Literal {
  const read = wordValue(word, ansiC);
  return read.ok ? read : { ok: false, problem: read.problem(source) };
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

/** What {@link simpleCommand} finds. */
export type Simple = { ok: true; words: string[] } | { ok: false; problem: string };

/** The literal words of a one-command script, or the first reason it is not one. */
export function simpleCommand(file: ShFile, source: Source): Simple {
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
export function literalPrefix(call: ShCallExpr, source: Source): string[] {
  const words: string[] = [];
  for (const word of call.Args) {
    const value = literalValue(word);
    if (value === null) break;
    words.push(value);
  }
  return words;
}

/** The last path component of a program word: `/bin/rm` is `rm`. */
export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}


/**
 * The argv of a script that is exactly one command of literal words: like
 * {@link simpleCommand}, but a path-qualified program (`./run.sh`) is allowed. `null` for
 * anything else (a list, a pipeline, a redirection, an assignment, an expansion).
 */
export function literalArgv(file: ShFile, source: Source): string[] | null {
  const [stmt, second] = file.Stmts;
  if (!stmt || second || stmt.Background || stmt.Negated || stmt.Coprocess || stmt.Redirs.length > 0) return null;
  if (!stmt.Cmd || nodeType(stmt.Cmd) !== 'CallExpr') return null;
  const call = stmt.Cmd as ShCallExpr;
  if (call.Assigns.length > 0 || call.Args.length === 0) return null;
  const words: string[] = [];
  for (const word of call.Args) {
    const value = literalValue(word);
    if (value === null) return null;
    words.push(value);
  }
  return words;
}

/** Nodes whose value is only known when the script runs, beyond what {@link literalWord} sees in words. */
const DYNAMIC_NODES: Record<string, string> = {
  ParamExp: 'parameter expansion',
  CmdSubst: 'command substitution',
  ArithmExp: 'arithmetic expansion',
  ArithmCmd: 'arithmetic command',
  LetClause: 'let command',
  ProcSubst: 'process substitution',
  ExtGlob: 'extended glob',
  BraceExp: 'brace expansion',
};

/**
 * The first thing in the script whose value is known only when it runs (an expansion of
 * any kind, a glob, a tilde, ANSI-C quoting), anywhere in the tree (inside lists,
 * pipelines, redirections, here-documents, assignments, loops), or `null` when every word is
 * literal: then running the same text again runs the same commands with the same words.
 */
export function dynamicPart(file: ShFile, source: Source): string | null {
  let problem: string | null = null;
  walk(file, (node) => {
    if (problem !== null || !node) return false;
    const type = nodeType(node);
    const label = DYNAMIC_NODES[type];
    if (label) problem = `${label} (${source.snippet(node)})`;
    else if (type === 'Word') {
      const read = wordValue(node as ShWord, false);
      if (!read.ok) problem = read.problem(source);
    }
    return problem === null;
  });
  return problem;
}

/** Programs that run the rest of their words as a command (after their own options). */
export const WRAPPERS: ReadonlySet<string> = new Set([
  'builtin', 'busybox', 'chroot', 'chrt', 'command', 'doas', 'eatmydata', 'env', 'exec', 'fakeroot', 'firejail', 'flock', 'ionice',
  'nice', 'nohup', 'nsenter', 'parallel', 'pkexec', 'proot', 'runuser', 'setsid', 'sg', 'stdbuf', 'strace', 'sudo', 'systemd-run',
  'taskset', 'time', 'timeout', 'toybox', 'unbuffer', 'unshare', 'watch', 'xargs',
]);
/** Shells whose `-c` script is parsed and checked like the command itself. */
export const SHELLS: ReadonlySet<string> = new Set(['ash', 'bash', 'csh', 'dash', 'fish', 'ksh', 'mksh', 'posh', 'rbash', 'sh', 'tcsh', 'yash', 'zsh']);
/** Whether a program name is a shell of {@link SHELLS}, also with a version (`ksh93`, `bash5.2`, `zsh-5.9`). */
export function isShell(program: string): boolean {
  return SHELLS.has(program) || SHELLS.has(withoutTrailing(program, '-0123456789.'));
}

/**
 * `name` without its trailing run of the characters in `chars` (a version: `bash5.2` is
 * `bash`). A loop, not a regular expression anchored at the end, which takes time quadratic
 * in the length of a long name.
 */
export function withoutTrailing(name: string, chars: string): string {
  let end = name.length;
  while (end > 0 && chars.includes(name[end - 1]!)) end--;
  return name.slice(0, end);
}
/** Programs other than shells that run the word after `-c` (or `--command`) as a shell script. */
const COMMAND_RUNNERS: ReadonlySet<string> = new Set(['flock', 'runuser', 'script', 'su']);
/** Programs that run each of their operands as a shell script (`watch 'make test'`, `sg group 'cmd'`, `parallel ::: 'cmd'`). */
const OPERAND_RUNNERS: ReadonlySet<string> = new Set(['parallel', 'sg', 'watch']);
/** How deep scripts inside scripts are read (`sh -c "sh -c '...'"`); deeper ones are unreadable. */
export const MAX_NESTING = 6;

/**
 * How much reading the scripts inside one command may take, in bytes: each nested script
 * costs its length plus {@link SCRIPT_COST} (what parsing even a tiny script costs, in
 * bytes' worth), taken before it is built from the command's words (an `alias` operand is
 * paid for even when it turns out to hold no `=`). The command itself is
 * always read; this bounds reading it again inside itself, which could otherwise grow with
 * the square of its length (`sudo eval eval eval ...` holds one script per word, each as
 * long as the rest) or take seconds for thousands of small scripts. Past it, the scripts
 * not read are one part `[UNREADABLE, TOO_MUCH_SCRIPT]`. It holds one nested script as long
 * as the longest command the shell tool runs (`sh -c '<128 KiB>'`), not two.
 */
export const MAX_SCRIPT_READING = 160 * 1024;
/** The cost of parsing one nested script beyond its length: about what parsing 256 bytes takes. */
const SCRIPT_COST = 256;
/** Why scripts were left unread: the command holds more of them than {@link MAX_SCRIPT_READING}. */
export const TOO_MUCH_SCRIPT = `the scripts inside the command are too long to read (more than ${MAX_SCRIPT_READING / 1024} KiB)`;

/** What is left of a reading budget ({@link MAX_SCRIPT_READING}); once a cost does not fit, it stays spent. */
export class ReadingBudget {
  private left: number;
  constructor(bytes: number = MAX_SCRIPT_READING) {
    this.left = bytes;
  }
  /** Whether a cost did not fit. */
  get spent(): boolean {
    return this.left < 0;
  }
  /** Takes `cost` from what is left; false (and spent from now on) when it does not fit. */
  take(cost: number): boolean {
    if (this.left < 0) return false;
    this.left -= cost;
    return this.left >= 0;
  }
}

/**
 * The first word of a part that stands for something the guards cannot read: the part is
 * `[UNREADABLE, why]` (a script nested too deep, a nested script that does not parse, a
 * shell reading its script from a pipe or file). A NUL never occurs in a real shell word.
 */
export const UNREADABLE = '\0unreadable';
/** The first word of a part that stands for a variable assignment: `[ASSIGNMENT, name, value]` (`null` value: dynamic). */
export const ASSIGNMENT = '\0assignment';

/**
 * One word of a command as the guards read it: its literal value, or `null` when it is
 * known only at run time (`$X`, `$(...)`, a glob, a brace expansion).
 */
export type CommandWord = string | null;

/** The words of one simple command, `null` for each dynamic word; ANSI-C quoting (`$'rm'`) is decoded. */
export function commandWords(call: ShCallExpr, _source?: Source): CommandWord[] {
  return call.Args.map((word) => literalValue(word, true));
}

/**
 * For one list of words, the next word after any index that passes a test: each test (named
 * by a key) runs once per word, the first time it is asked for, so asking after every index
 * of a long command stays linear (`sudo a b c ...`: a program may start at every word).
 */
export class WordScan {
  private readonly firstFrom = new Map<string, Int32Array>();
  constructor(readonly words: readonly CommandWord[]) {}

  /** The first index after `after` whose word passes `test` (named by `key`), or -1. */
  next(after: number, key: string, test: (word: CommandWord, index: number) => boolean): number {
    let table = this.firstFrom.get(key);
    if (!table) {
      table = new Int32Array(this.words.length + 1).fill(-1);
      for (let i = this.words.length - 1; i >= 0; i--) table[i] = test(this.words[i]!, i) ? i : table[i + 1]!;
      this.firstFrom.set(key, table);
    }
    return after + 1 > this.words.length ? -1 : table[after + 1]!;
  }
}

/**
 * One simple command's words as the guards read them, with what they ask of the words
 * worked out once for all of them: where programs start, each word as a script, and for a
 * test of a word, the next word after any index that passes it. Reading a command with a
 * wrapper (`sudo a b c ...`: a program may start at every word) so stays linear.
 */
class CallWords {
  /** The words ({@link commandWords}); shared, not to be changed. */
  readonly words: readonly CommandWord[];
  private startsFound: number[] | undefined;
  private readonly texts: Array<string | undefined>;
  private spansAfter: Float64Array | undefined;
  private readonly scan: WordScan;

  constructor(
    private readonly call: ShCallExpr,
    private readonly source: Source,
  ) {
    this.words = Object.freeze(commandWords(call));
    this.texts = new Array<string | undefined>(this.words.length);
    this.scan = new WordScan(this.words);
  }

  /** {@link programStarts} of the words. */
  get starts(): number[] {
    return (this.startsFound ??= programStarts(this.words));
  }

  /** Word `i` as a script to parse ({@link scriptText}). */
  text(i: number): string {
    return (this.texts[i] ??= this.words[i] ?? scriptText(this.call.Args[i]!, this.source));
  }

  /** Whether {@link text} of word `i` starts with `prefix` (ASCII), without building the text. */
  textStartsWith(i: number, prefix: string): boolean {
    const word = this.words[i];
    if (word !== null && word !== undefined) return word.startsWith(prefix);
    const [from, to] = scriptSpan(this.call.Args[i]!);
    return this.source.slice(from, Math.min(to, from + prefix.length)) === prefix;
  }

  /** Bytes of source behind words `from` to the last: no text built from them is much longer. */
  bytesFrom(from: number): number {
    if (!this.spansAfter) {
      const sums = new Float64Array(this.words.length + 1);
      for (let i = this.words.length - 1; i >= 0; i--) {
        const [start, end] = scriptSpan(this.call.Args[i]!);
        sums[i] = sums[i + 1]! + (end - start) + 1;
      }
      this.spansAfter = sums;
    }
    return this.spansAfter[Math.min(from, this.words.length)]!;
  }

  /** Bytes of source behind word `i`. */
  bytesOf(i: number): number {
    return this.bytesFrom(i) - this.bytesFrom(i + 1);
  }

  /** {@link WordScan.next} over the words. */
  next(after: number, key: string, test: (word: CommandWord, index: number) => boolean): number {
    return this.scan.next(after, key, test);
  }
}

const wordsOfCalls = new WeakMap<ShCallExpr, CallWords>();

/** The {@link CallWords} of a simple command, made once per node of a parsed tree. */
function callWords(call: ShCallExpr, source: Source): CallWords {
  let words = wordsOfCalls.get(call);
  if (!words) wordsOfCalls.set(call, (words = new CallWords(call, source)));
  return words;
}

/** `find` primaries that run the words after them as a command, up to `;` or `+`. */
export const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** A wrapper's options whose grammar is known exactly: then only the word it runs is a program. */
interface WrapperGrammar {
  /** Short options that take a value (`-n 5`, `-n5`). */
  shortWithValue: string;
  /** Long options that take a value (`--signal KILL`, `--signal=KILL`), full names only. */
  longWithValue: readonly string[];
  /** Operands before the program (`timeout DURATION cmd`: 1). */
  operands: number;
}

const WRAPPER_GRAMMAR: Record<string, WrapperGrammar> = {
  nice: { shortWithValue: 'n', longWithValue: ['adjustment'], operands: 0 },
  nohup: { shortWithValue: '', longWithValue: [], operands: 0 },
  setsid: { shortWithValue: '', longWithValue: [], operands: 0 },
  timeout: { shortWithValue: 'ks', longWithValue: ['kill-after', 'signal'], operands: 1 },
  stdbuf: { shortWithValue: 'ioe', longWithValue: ['input', 'output', 'error'], operands: 0 },
  time: { shortWithValue: 'fo', longWithValue: ['format', 'output'], operands: 0 },
};

/**
 * The index of the program the wrapper at `at` runs, read with its grammar, or `null` when
 * the words cannot be read that way (a dynamic word, an abbreviated long option, no program).
 */
function wrappedProgram(words: readonly CommandWord[], at: number, grammar: WrapperGrammar): number | null {
  let operands = 0;
  for (let i = at + 1; i < words.length; i++) {
    const word = words[i];
    if (word === null || word === undefined) return null;
    if (word === '--') return i + 1 + grammar.operands < words.length ? i + 1 + grammar.operands : null;
    if (word.startsWith('--')) {
      const name = word.slice(2).split('=', 1)[0]!;
      if (grammar.longWithValue.includes(name) && !word.includes('=')) i++;
      else if (grammar.longWithValue.some((long) => long !== name && long.startsWith(name))) return null;
    } else if (word.startsWith('-') && word.length > 1 && !/^-\d+$/.test(word)) {
      const letter = [...word.slice(1)].findIndex((letter) => grammar.shortWithValue.includes(letter));
      if (letter >= 0 && letter === word.length - 2) i++;
    } else if (/^-\d+$/.test(word) && grammar.shortWithValue.includes('n')) {
      // `nice -5`: an old-style adjustment
    } else if (operands < grammar.operands) operands++;
    else return i;
  }
  return null;
}

/**
 * Where a program may start in one simple command's words: the first word; after a wrapper
 * whose options are known exactly (`nice`, `nohup`, `setsid`, `timeout`, `stdbuf`, `time`),
 * the word it runs; after any other wrapper, or when those words cannot be read so, every
 * later word (no way of spelling a wrapper's options hides the command; the price is that
 * `sudo echo rm -rf x` counts too);
 * after `find ... -exec`, the word that follows.
 */
export function programStarts(words: readonly CommandWord[]): number[] {
  const starts: number[] = [];
  for (let at = 0; ; ) {
    const first = words[at];
    const program = typeof first === 'string' ? basename(first) : '';
    const grammar = Object.hasOwn(WRAPPER_GRAMMAR, program) ? WRAPPER_GRAMMAR[program]! : undefined;
    const wrapped = grammar ? wrappedProgram(words, at, grammar) : null;
    starts.push(at);
    if (wrapped !== null) {
      at = wrapped;
      continue;
    }
    if (WRAPPERS.has(program)) {
      for (let i = at + 1; i < words.length; i++) starts.push(i);
    } else if (program === 'find') {
      for (let i = at; i < words.length; i++) if (FIND_EXEC.has(words[i] as string)) starts.push(i + 1);
    }
    return starts;
  }
}

/**
 * Every simple command of the script, nested ones included: each part of a list or
 * pipeline, commands inside `$(...)`, backticks, `<(...)`, subshells, groups, functions
 * and control structures, and (up to {@link MAX_NESTING} levels deep) the scripts a command
 * runs as shell code (`sh|bash|zsh|fish|... -c '<script>'`, `su|runuser|flock|script -c`,
 * `eval`, `env -S`, `trap`, `watch`, `sg`, `parallel`, an `alias` definition, `find -exec
 * sh -c`, a here-document, a here-string or `echo '<script>' |` fed to a shell), also after
 * a wrapper. Variable assignments are parts `[ASSIGNMENT, name, value]`. What cannot be
 * read (nesting past the limit, a nested script that does not parse, a shell reading its
 * script from a pipe, a file or a process substitution) is a part `[UNREADABLE, why]`:
 * callers fail closed on it. Commands with no words (a bare assignment) are left out.
 */
export function commandParts(file: ShFile, source: Source, depth = 0, budget?: ReadingBudget): CommandWord[][] {
  if (depth > 0 || budget) return partsOf(file, source, depth, budget ?? new ReadingBudget());
  let parts = partsOfFiles.get(file);
  if (!parts) partsOfFiles.set(file, (parts = Object.freeze(partsOf(file, source, 0, new ReadingBudget())) as CommandWord[][]));
  return parts;
}

/** {@link commandParts} of whole parsed scripts, kept with the (immutable) tree. */
const partsOfFiles = new WeakMap<ShFile, CommandWord[][]>();

/** A shell that reads its script from elsewhere. */
const FROM_STDIN = 'a shell reads its script from standard input, a file or a pipe';

function partsOf(file: ShFile, source: Source, depth: number, budget: ReadingBudget): CommandWord[][] {
  const parts: CommandWord[][] = [];
  const add = (more: readonly CommandWord[][]): void => {
    for (const part of more) parts.push(part);
  };
  const piped = new Map<ShNode, string | null>();
  walk(file, (node) => {
    if (!node) return true;
    const type = nodeType(node);
    if (type === 'CallExpr') {
      const call = callWords(node as ShCallExpr, source);
      if (call.words.length > 0) parts.push(call.words as CommandWord[]);
      for (const script of nestedScripts(call, budget)) add(script === null ? [[UNREADABLE, TOO_MUCH_SCRIPT]] : readScript(script, depth + 1, budget));
    } else if (type === 'Assign') {
      const assign = node as ShNode & { Name: ShLit | null; Value: ShWord | null };
      if (assign.Name) parts.push([ASSIGNMENT, assign.Name.Value, assign.Value ? literalValue(assign.Value, true) : '']);
    } else if (type === 'BinaryCmd') {
      const pipe = node as ShBinaryCmd;
      const op = source.operator(pipe.OpPos, '|&');
      if ((op === '|' || op === '|&') && readsStdin(pipe.Y, source)) piped.set(pipe.Y, pipedScript(pipe, source));
    } else if (type === 'Stmt') {
      const stmt = node as ShStmt;
      if (readsStdin(stmt, source)) {
        const scripts = piped.has(stmt) ? [piped.get(stmt)!] : stdinScripts(stmt, source);
        if (scripts.length === 0) parts.push([UNREADABLE, FROM_STDIN]);
        for (const script of scripts) {
          if (script === null) parts.push([UNREADABLE, 'a shell reads its script from a pipe']);
          else add(scriptParts(script, depth + 1, budget));
        }
      }
    }
    return true;
  });
  return parts;
}

/**
 * {@link commandParts} of a script given as text, read as nested `depth` levels deep. Past
 * {@link MAX_NESTING}, when the text does not parse, or when it does not fit what is left of
 * `budget` ({@link MAX_SCRIPT_READING}), the one part is `[UNREADABLE, why]`.
 */
export function scriptParts(script: string, depth = 0, budget: ReadingBudget = new ReadingBudget()): CommandWord[][] {
  if (depth > MAX_NESTING) return [[UNREADABLE, `scripts nested more than ${MAX_NESTING} levels deep`]];
  if (!budget.take(script.length + SCRIPT_COST)) return [[UNREADABLE, TOO_MUCH_SCRIPT]];
  return readScript(script, depth, budget);
}

/** {@link scriptParts} of a script whose cost was already taken from the budget. */
function readScript(script: string, depth: number, budget: ReadingBudget): CommandWord[][] {
  if (depth > MAX_NESTING) return [[UNREADABLE, `scripts nested more than ${MAX_NESTING} levels deep`]];
  // Not kept with the parsed scripts: a command's many small scripts would push the command out.
  const parsed = parseOnce(script);
  return parsed.ok ? partsOf(parsed.file, parsed.source, depth, budget) : [[UNREADABLE, `a nested script that does not parse (${parsed.error})`]];
}

/**
 * Scripts a shell reads from a here-document or here-string (`sh <<EOF ... EOF`,
 * `bash <<< '...'`). The body is taken as written (its expansions stay unexpanded words).
 * Empty when standard input comes from elsewhere (a file, a descriptor): then the script
 * cannot be read.
 */
function stdinScripts(stmt: ShStmt, source: Source): string[] {
  const scripts: string[] = [];
  for (const redirect of stmt.Redirs) {
    const op = source.operator(redirect.OpPos, '<>&|-');
    if (redirect.Hdoc) scripts.push(source.slice(redirect.Hdoc.Pos().Offset(), redirect.Hdoc.End().Offset()));
    else if (redirect.Word && op === '<<<') {
      scripts.push(literalValue(redirect.Word, true) ?? source.slice(redirect.Word.Pos().Offset(), redirect.Word.End().Offset()));
    } else if (op.startsWith('<')) return [];
  }
  return scripts;
}

/** A pipeline or list of two statements (`a | b`, `a && b`, `a || b`): the operator is at `OpPos`. */
export interface ShBinaryCmd extends ShNode {
  OpPos: ShPos;
  X: ShStmt;
  Y: ShStmt;
}

/** Files that are a process's standard input. */
const STDIN_FILES = /^(-|\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

/** Whether `word` is a bundle of short options holding `letter` (`-ec` holds `c`): linear, unlike `/^-[A-Za-z]*c[A-Za-z]*$/`. */
function shortBundleWith(word: CommandWord, letter: string): boolean {
  return word !== null && word.length > 1 && word[0] === '-' && word.includes(letter) && /^-[A-Za-z]+$/.test(word);
}

/** `-c` and the bundles that hold it (`-ec`, `-lc`, `-qc`), or `--command`, for shells and `su`, `flock`, `script`. */
function commandFlag(word: CommandWord): boolean {
  return word === '--command' || shortBundleWith(word, 'c');
}

/**
 * Whether a statement runs (possibly after wrappers) a shell that reads its script from
 * standard input (no `-c`, no script file, or `/dev/stdin`, `-s`), or `source`/`.` of
 * standard input or of a word known only when it runs (`source <(...)`).
 */
function readsStdin(stmt: ShStmt, source: Source): boolean {
  if (!stmt.Cmd || nodeType(stmt.Cmd) !== 'CallExpr') return false;
  const call = callWords(stmt.Cmd as ShCallExpr, source);
  const { words } = call;
  return call.starts.some((start) => {
    const word = words[start];
    if (typeof word !== 'string') return false;
    const program = basename(word);
    if (program === 'source' || program === '.') {
      const first = words[start + 1];
      return first === null || (first !== undefined && STDIN_FILES.test(first));
    }
    if (!isShell(program)) return false;
    if (call.next(start, 'command flag', commandFlag) >= 0) return false;
    if (call.next(start, 'stdin flag', (w) => shortBundleWith(w, 's')) >= 0) return true;
    const operand = call.next(start, 'script operand', (w) => w === null || !w.startsWith('-') || w === '-');
    return operand < 0 || words[operand] === null || STDIN_FILES.test(words[operand]!);
  });
}

/** The script `echo '<script>' | sh` (or `printf`) feeds a shell, as written, or `null` when the left side is anything else. */
function pipedScript(pipe: ShBinaryCmd, source: Source): string | null {
  const left = pipe.X.Cmd;
  if (!left || nodeType(left) !== 'CallExpr' || pipe.X.Redirs.length > 0) return null;
  const call = callWords(left as ShCallExpr, source);
  const program = call.words[0];
  if (program !== 'echo' && program !== 'printf') return null;
  const texts: string[] = [];
  for (let i = 1; i < call.words.length; i++) texts.push(call.text(i));
  return texts.filter((text) => !/^-[neE]+$/.test(text)).join(' ').replaceAll('\\n', '\n');
}

/** Where the script text of a word with a dynamic part is in the source (a lone `"..."` without its quotes). */
function scriptSpan(word: ShWord): [number, number] {
  const [only, second] = word.Parts;
  if (only && !second && nodeType(only) === 'DblQuoted') return [only.Pos().Offset() + 1, only.End().Offset() - 1];
  return [word.Pos().Offset(), word.End().Offset()];
}

/**
 * A word as a script to parse: its literal value, or for a dynamic word its text as written
 * without surrounding double quotes (`"rm -rf $D"` reads as `rm -rf $D`, whose expansion
 * then stays a dynamic word).
 */
function scriptText(word: ShWord, source: Source): string {
  const value = literalValue(word, true);
  if (value !== null) return value;
  const [from, to] = scriptSpan(word);
  return source.slice(from, to);
}

/** A word that is no option: an operand of the program before it. */
function operandWord(word: CommandWord): boolean {
  return word === null || !word.startsWith('-');
}

/** `env`'s options that take the command line to split: `-S`, `--split-string[=...]`, `-vS...`. */
function splitStringOption(word: CommandWord): boolean {
  return word !== null && (word === '-S' || word === '--split-string' || word.startsWith('--split-string=') || /^-[^-]*S./.test(word));
}

/**
 * Scripts a command runs as shell code (possibly after wrappers or `find -exec`):
 * `sh|bash|... -c '<script>'` (also `-c -- '<script>'`, `--command=`), `su|runuser|flock|script
 * -c '<script>'`, `eval <words>`, `env -S '<words>'`, `trap '<script>' SIGNAL`, each operand
 * of `watch`, `sg` and `parallel`, and the value of each `alias name='<script>'`. Each
 * script's cost (the bytes of the words it is made of, plus {@link SCRIPT_COST}) is taken
 * from `budget` before it is built; a `null` in the list stands for the scripts that did not
 * fit (then no more are built).
 */
function nestedScripts(call: CallWords, budget: ReadingBudget): Array<string | null> {
  const { words } = call;
  const scripts: Array<string | null> = [];
  /** Builds a script when its cost fits the budget; false once it no longer does. */
  const add = (cost: number, build: () => string | null): boolean => {
    if (budget.spent) return false;
    if (!budget.take(cost + SCRIPT_COST)) {
      scripts.push(null);
      return false;
    }
    const script = build();
    if (script !== null) scripts.push(script);
    return true;
  };
  const operandsAfter = function* (start: number): Generator<number> {
    for (let i = call.next(start, 'operand', operandWord); i >= 0; i = call.next(i, 'operand', operandWord)) yield i;
  };
  for (const start of call.starts) {
    if (budget.spent) break;
    const word = words[start];
    if (typeof word !== 'string') continue;
    const program = basename(word);
    if (program === 'eval') {
      add(call.bytesFrom(start + 1), () => {
        const rest: string[] = [];
        for (let i = start + 1; i < words.length; i++) rest.push(call.text(i));
        return rest.join(' ');
      });
    }
    // unquoted, the words after a wrapper are tried anyway
    if (OPERAND_RUNNERS.has(program)) for (const i of operandsAfter(start)) if (!add(call.bytesOf(i), () => call.text(i))) break;
    if (program === 'trap') {
      const first = call.next(start, 'operand', operandWord);
      if (first >= 0) add(call.bytesOf(first), () => call.text(first));
    }
    if (program === 'alias') {
      for (const i of operandsAfter(start)) {
        const fits = add(call.bytesOf(i), () => {
          const text = call.text(i);
          return text.includes('=') ? text.slice(text.indexOf('=') + 1) : null;
        });
        if (!fits) break;
      }
    }
    if (program === 'env') {
      const at = call.next(start, 'split string', splitStringOption);
      if (at >= 0) add(call.bytesFrom(at), () => envSplitString(words, at));
    }
    if (!isShell(program) && !COMMAND_RUNNERS.has(program)) continue;
    const long = call.next(start, 'long command', (_word, i) => call.textStartsWith(i, '--command='));
    if (long >= 0) add(call.bytesOf(long), () => call.text(long).slice('--command='.length));
    const flag = call.next(start, 'command flag', commandFlag);
    if (flag < 0) continue;
    const script = words[flag + 1] === '--' ? flag + 2 : flag + 1;
    if (script < words.length) add(call.bytesOf(script), () => call.text(script));
  }
  return scripts;
}

/**
 * The command `env -S '<words>'` runs, `words[at]` being the option that gives the split
 * string: the string and the literal words after it, or `null` when the string is dynamic.
 */
function envSplitString(words: readonly CommandWord[], at: number): string | null {
  const word = words[at]!;
  const separate = word === '-S' || word === '--split-string';
  let script: CommandWord | undefined;
  if (separate) script = words[at + 1];
  else if (word.startsWith('--split-string=')) script = word.slice('--split-string='.length);
  else script = word.slice(word.indexOf('S') + 1);
  if (typeof script !== 'string') return null;
  const line = [script];
  for (let i = separate ? at + 2 : at + 1; i < words.length; i++) if (words[i] !== null) line.push(quoteWord(words[i]!));
  return line.join(' ');
}

/** Quotes a word so that the parser reads it back unchanged (plain words stay bare). */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
