/**
 * The shell parser behind the approval rules and the destructive-command guard: mvdan/sh
 * (bash dialect) through its GopherJS build (`mvdan-sh`), which keeps node types, plus
 * the few readings of its tree that both need: a word's literal value after quote removal,
 * one simple command of literal words, whether a script holds any expansion, and every
 * simple command of a script with the scripts it runs (`sh -c '...'`, `eval ...`).
 *
 * Nothing here runs a shell: a command is only read.
 */
import { createRequire } from 'node:module';

const SNIPPET_CHARS = 40;

export interface ShPos {
  Offset(): number;
  IsValid(): boolean;
}
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
export class Source {
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

/** A parsed script, or why it does not parse. */
export type Parsed = { ok: true; file: ShFile; source: Source } | { ok: false; error: string };

/** Parses a script (bash dialect); a parse failure is a value with mvdan/sh's message (`1:4: ...`). */
export function parseShell(text: string): Parsed {
  try {
    const file = shSyntax().NewParser().Parse(text, '');
    return { ok: true, file, source: new Source(text) };
  } catch (error) {
    const goError = error as { Error?: () => string } | null;
    const message = typeof goError?.Error === 'function' ? goError.Error() : error instanceof Error ? error.message : String(error);
    return { ok: false, error: message };
  }
}

/** The node's type name (`CallExpr`, `Word`, `Lit`, ...). */
export function nodeType(node: ShNode): string {
  return shSyntax().NodeType(node);
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
    } else if (ch === '{' && raw[i + 1] !== '}') {
      // `{a,b}` and `{1..3}` expand (also split by quotes: `{"rm",-rf,x}`); `{}` is plain text (`find -exec rm {} +`)
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

/**
 * The word's value after quote removal, or why it is not a literal. ANSI-C quoting
 * (`$'rm'`) is refused unless `ansiC` is set, then it is decoded ({@link ansiCValue}).
 */
export function literalWord(word: ShWord, source: Source, ansiC = false): Literal {
  let value = '';
  for (const [index, part] of word.Parts.entries()) {
    const type = nodeType(part);
    if (type === 'Lit') {
      const lit = unquotedLiteral((part as ShLit).Value, index === 0, word, source);
      if (!lit.ok) return lit;
      value += lit.value;
    } else if (type === 'SglQuoted') {
      const quoted = part as ShQuoted;
      if (quoted.Dollar && !ansiC) return { ok: false, problem: `ANSI-C quoting (${source.snippet(part)})` };
      value += quoted.Dollar ? ansiCValue(quoted.Value) : quoted.Value;
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
    const literal = literalWord(word, source);
    if (!literal.ok) break;
    words.push(literal.value);
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
    const literal = literalWord(word, source);
    if (!literal.ok) return null;
    words.push(literal.value);
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
  shSyntax().Walk(file, (node) => {
    if (problem !== null || !node) return false;
    const type = nodeType(node);
    const label = DYNAMIC_NODES[type];
    if (label) problem = `${label} (${source.snippet(node)})`;
    else if (type === 'Word') {
      const literal = literalWord(node as ShWord, source);
      if (!literal.ok) problem = literal.problem;
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
  return SHELLS.has(program) || SHELLS.has(program.replace(/[-0-9.]+$/, ''));
}
/** Programs other than shells that run the word after `-c` (or `--command`) as a shell script. */
const COMMAND_RUNNERS: ReadonlySet<string> = new Set(['flock', 'runuser', 'script', 'su']);
/** Programs that run each of their operands as a shell script (`watch 'make test'`, `sg group 'cmd'`, `parallel ::: 'cmd'`). */
const OPERAND_RUNNERS: ReadonlySet<string> = new Set(['parallel', 'sg', 'watch']);
/** How deep scripts inside scripts are read (`sh -c "sh -c '...'"`); deeper ones are unreadable. */
export const MAX_NESTING = 6;

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
export function commandWords(call: ShCallExpr, source: Source): CommandWord[] {
  return call.Args.map((word) => {
    const literal = literalWord(word, source, true);
    return literal.ok ? literal.value : null;
  });
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
 * The index of the program a wrapper runs, read with its grammar, or `null` when the words
 * cannot be read that way (a dynamic word, an abbreviated long option, no program).
 */
function wrappedProgram(words: readonly CommandWord[], grammar: WrapperGrammar): number | null {
  let operands = 0;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === null || word === undefined) return null;
    if (word === '--') return i + 1 + grammar.operands < words.length ? i + 1 + grammar.operands : null;
    if (word.startsWith('--')) {
      const name = word.slice(2).split('=', 1)[0]!;
      if (grammar.longWithValue.includes(name) && !word.includes('=')) i++;
      else if (grammar.longWithValue.some((long) => long !== name && long.startsWith(name))) return null;
    } else if (word.startsWith('-') && word.length > 1 && !/^-\d+$/.test(word)) {
      const at = [...word.slice(1)].findIndex((letter) => grammar.shortWithValue.includes(letter));
      if (at >= 0 && at === word.length - 2) i++;
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
  const first = words[0];
  const program = typeof first === 'string' ? basename(first) : '';
  const grammar = Object.hasOwn(WRAPPER_GRAMMAR, program) ? WRAPPER_GRAMMAR[program]! : undefined;
  if (grammar) {
    const start = wrappedProgram(words, grammar);
    if (start !== null) return [0, ...programStarts(words.slice(start)).map((at) => at + start)];
  }
  if (WRAPPERS.has(program)) return [...words.keys()];
  if (program === 'find') return [0, ...words.flatMap((word, i) => (word !== null && FIND_EXEC.has(word) ? [i + 1] : []))];
  return [0];
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
export function commandParts(file: ShFile, source: Source, depth = 0): CommandWord[][] {
  const parts: CommandWord[][] = [];
  const piped = new Map<string, string | null>(); // by statement position: the parser's node objects are not kept
  shSyntax().Walk(file, (node) => {
    if (!node) return true;
    const type = nodeType(node);
    if (type === 'CallExpr') {
      const call = node as ShCallExpr;
      const words = commandWords(call, source);
      if (words.length > 0) parts.push(words);
      const texts = call.Args.map((word) => scriptText(word, source));
      for (const script of nestedScripts(words, texts)) parts.push(...scriptParts(script, depth + 1));
    } else if (type === 'Assign') {
      const assign = node as ShNode & { Name: ShLit | null; Value: ShWord | null };
      if (assign.Name) {
        const value = assign.Value ? literalWord(assign.Value, source, true) : { ok: true as const, value: '' };
        parts.push([ASSIGNMENT, assign.Name.Value, value.ok ? value.value : null]);
      }
    } else if (type === 'BinaryCmd') {
      const pipe = node as ShBinaryCmd;
      const op = source.operator(pipe.OpPos, '|&');
      if ((op === '|' || op === '|&') && readsStdin(pipe.Y, source)) piped.set(where(pipe.Y), pipedScript(pipe, source));
    } else if (type === 'Stmt') {
      const stmt = node as ShStmt;
      if (readsStdin(stmt, source)) {
        const scripts = piped.has(where(stmt)) ? [piped.get(where(stmt))!] : stdinScripts(stmt, source);
        if (scripts.length === 0) parts.push([UNREADABLE, 'a shell reads its script from standard input, a file or a pipe']);
        for (const script of scripts) {
          if (script === null) parts.push([UNREADABLE, 'a shell reads its script from a pipe']);
          else parts.push(...scriptParts(script, depth + 1));
        }
      }
    }
    return true;
  });
  return parts;
}

/** A node's place in the source, as a key. */
function where(node: ShNode): string {
  return `${node.Pos().Offset()}:${node.End().Offset()}`;
}

/**
 * {@link commandParts} of a script given as text, read as nested `depth` levels deep. Past
 * {@link MAX_NESTING}, or when the text does not parse, the one part is `[UNREADABLE, why]`.
 */
export function scriptParts(script: string, depth = 0): CommandWord[][] {
  if (depth > MAX_NESTING) return [[UNREADABLE, `scripts nested more than ${MAX_NESTING} levels deep`]];
  const parsed = parseShell(script);
  return parsed.ok ? commandParts(parsed.file, parsed.source, depth) : [[UNREADABLE, `a nested script that does not parse (${parsed.error})`]];
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
      const literal = literalWord(redirect.Word, source, true);
      scripts.push(literal.ok ? literal.value : source.slice(redirect.Word.Pos().Offset(), redirect.Word.End().Offset()));
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

/**
 * Whether a statement runs (possibly after wrappers) a shell that reads its script from
 * standard input (no `-c`, no script file, or `/dev/stdin`, `-s`), or `source`/`.` of
 * standard input or of a word known only when it runs (`source <(...)`).
 */
function readsStdin(stmt: ShStmt, source: Source): boolean {
  if (!stmt.Cmd || nodeType(stmt.Cmd) !== 'CallExpr') return false;
  const words = commandWords(stmt.Cmd as ShCallExpr, source);
  return programStarts(words).some((start) => {
    const word = words[start];
    if (typeof word !== 'string') return false;
    const program = basename(word);
    const rest = words.slice(start + 1);
    if (program === 'source' || program === '.') return rest[0] === null || (rest[0] !== undefined && STDIN_FILES.test(rest[0]));
    if (!isShell(program)) return false;
    if (rest.some((w) => w !== null && (COMMAND_FLAG.test(w) || w === '--command'))) return false;
    if (rest.some((w) => w !== null && /^-[A-Za-z]*s[A-Za-z]*$/.test(w))) return true;
    const operand = rest.find((w) => w === null || !w.startsWith('-') || w === '-');
    return operand === undefined || operand === null || STDIN_FILES.test(operand);
  });
}

/** The script `echo '<script>' | sh` (or `printf`) feeds a shell, as written, or `null` when the left side is anything else. */
function pipedScript(pipe: ShBinaryCmd, source: Source): string | null {
  const left = pipe.X.Cmd;
  if (!left || nodeType(left) !== 'CallExpr' || pipe.X.Redirs.length > 0) return null;
  const call = left as ShCallExpr;
  const program = commandWords(call, source)[0];
  if (program !== 'echo' && program !== 'printf') return null;
  return call.Args.slice(1).map((word) => scriptText(word, source)).filter((text) => !/^-[neE]+$/.test(text)).join(' ').replaceAll('\\n', '\n');
}

/**
 * A word as a script to parse: its literal value, or for a dynamic word its text as written
 * without surrounding double quotes (`"rm -rf $D"` reads as `rm -rf $D`, whose expansion
 * then stays a dynamic word).
 */
function scriptText(word: ShWord, source: Source): string {
  const literal = literalWord(word, source, true);
  if (literal.ok) return literal.value;
  const [only, second] = word.Parts;
  if (only && !second && nodeType(only) === 'DblQuoted') return source.slice(only.Pos().Offset() + 1, only.End().Offset() - 1);
  return source.slice(word.Pos().Offset(), word.End().Offset());
}

/** `-c` and the bundles that hold it (`-ec`, `-lc`, `-qc`), for shells and `su`, `flock`, `script`. */
const COMMAND_FLAG = /^-[A-Za-z]*c[A-Za-z]*$/;

/**
 * Scripts a command runs as shell code (possibly after wrappers or `find -exec`):
 * `sh|bash|... -c '<script>'` (also `-c -- '<script>'`, `--command=`), `su|runuser|flock|script
 * -c '<script>'`, `eval <words>`, `env -S '<words>'`, `trap '<script>' SIGNAL`, each operand
 * of `watch`, `sg` and `parallel`, and the value of each `alias name='<script>'`.
 */
function nestedScripts(words: readonly CommandWord[], texts: readonly string[]): string[] {
  const scripts: string[] = [];
  for (const start of programStarts(words)) {
    const word = words[start];
    if (typeof word !== 'string') continue;
    const program = basename(word);
    const rest = texts.slice(start + 1);
    const operands = rest.filter((text, i) => words[start + 1 + i] === null || !text.startsWith('-'));
    if (program === 'eval') scripts.push(rest.join(' '));
    if (OPERAND_RUNNERS.has(program)) scripts.push(...operands); // unquoted, the words after a wrapper are tried anyway
    if (program === 'trap' && operands[0] !== undefined) scripts.push(operands[0]);
    if (program === 'alias') scripts.push(...operands.flatMap((text) => (text.includes('=') ? [text.slice(text.indexOf('=') + 1)] : [])));
    if (program === 'env') {
      const split = envSplitString(words.slice(start + 1));
      if (split !== null) scripts.push(split);
    }
    if (!isShell(program) && !COMMAND_RUNNERS.has(program)) continue;
    const long = rest.find((text) => text.startsWith('--command='));
    if (long !== undefined) scripts.push(long.slice('--command='.length));
    const flag = rest.findIndex((text, i) => words[start + 1 + i] !== null && (COMMAND_FLAG.test(text) || text === '--command'));
    if (flag < 0) continue;
    const script = rest[flag + 1] === '--' ? rest[flag + 2] : rest[flag + 1];
    if (script !== undefined) scripts.push(script);
  }
  return scripts;
}

/** The command `env -S '<words>'` runs: the split string and the literal words after it, or `null`. */
function envSplitString(words: readonly CommandWord[]): string | null {
  for (const [i, word] of words.entries()) {
    if (word === null) continue;
    let script: CommandWord | undefined;
    if (word === '-S' || word === '--split-string') script = words[i + 1];
    else if (word.startsWith('--split-string=')) script = word.slice('--split-string='.length);
    else if (/^-[^-]*S./.test(word)) script = word.slice(word.indexOf('S') + 1);
    else continue;
    const after = words.slice(word === '-S' || word === '--split-string' ? i + 2 : i + 1);
    return typeof script === 'string' ? [script, ...after.filter((w): w is string => w !== null).map(quoteWord)].join(' ') : null;
  }
  return null;
}

/** Quotes a word so that the parser reads it back unchanged (plain words stay bare). */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
