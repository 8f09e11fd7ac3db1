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
function nodeType(node: ShNode): string {
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
  'builtin', 'busybox', 'chrt', 'command', 'doas', 'env', 'exec', 'flock', 'ionice', 'nice', 'nohup', 'parallel', 'setsid',
  'stdbuf', 'strace', 'sudo', 'taskset', 'time', 'timeout', 'unbuffer', 'watch', 'xargs',
]);
/** Shells whose `-c` script is parsed and checked like the command itself. */
const SHELLS: ReadonlySet<string> = new Set(['ash', 'bash', 'dash', 'ksh', 'mksh', 'sh', 'zsh']);
const MAX_NESTING = 3;

/**
 * One word of a command as the guards read it: its literal value, or `null` when it is
 * known only at run time (`$X`, `$(...)`, a glob).
 */
export type CommandWord = string | null;

/** The words of one simple command, `null` for each dynamic word. */
function commandWords(call: ShCallExpr, source: Source): CommandWord[] {
  return call.Args.map((word) => {
    const literal = literalWord(word, source);
    return literal.ok ? literal.value : null;
  });
}

/**
 * Every simple command of the script, nested ones included: each part of a list or
 * pipeline, commands inside `$(...)`, backticks, `<(...)`, subshells, groups, functions
 * and control structures, and (up to three levels deep) the scripts a command runs as shell
 * code (`sh -c '<script>'`, `eval`, `env -S`, `su -c`, `trap`, `watch`, a here-document,
 * a here-string or `echo '<script>' |` fed to a shell), also after a wrapper.
 * Commands with no words (a bare assignment) are left out.
 */
export function commandParts(file: ShFile, source: Source, depth = 0): CommandWord[][] {
  const parts: CommandWord[][] = [];
  shSyntax().Walk(file, (node) => {
    if (node && nodeType(node) === 'CallExpr') {
      const call = node as ShCallExpr;
      const words = commandWords(call, source);
      if (words.length > 0) parts.push(words);
      if (depth < MAX_NESTING) {
        const texts = call.Args.map((word) => scriptText(word, source));
        parts.push(...nestedScripts(words, texts).flatMap((script) => scriptParts(script, depth + 1)));
      }
    }
    if (node && nodeType(node) === 'Stmt' && depth < MAX_NESTING) {
      parts.push(...stdinScripts(node as ShStmt, source).flatMap((script) => scriptParts(script, depth + 1)));
    }
    if (node && nodeType(node) === 'BinaryCmd' && depth < MAX_NESTING) {
      const piped = pipedScript(node as ShBinaryCmd, source);
      if (piped !== null) parts.push(...scriptParts(piped, depth + 1));
    }
    return true;
  });
  return parts;
}

/** {@link commandParts} of a script given as text; a script that does not parse has none. */
export function scriptParts(script: string, depth = 0): CommandWord[][] {
  const parsed = parseShell(script);
  return parsed.ok ? commandParts(parsed.file, parsed.source, depth) : [];
}

/**
 * Scripts a shell reads from a here-document or here-string (`sh <<EOF ... EOF`,
 * `bash <<< '...'`), when the statement runs a shell without `-c`. The body is taken as
 * written (its expansions stay unexpanded words).
 */
function stdinScripts(stmt: ShStmt, source: Source): string[] {
  if (stmt.Redirs.length === 0 || !readsScript(stmt, source)) return [];
  const scripts: string[] = [];
  for (const redirect of stmt.Redirs) {
    if (redirect.Hdoc) scripts.push(source.slice(redirect.Hdoc.Pos().Offset(), redirect.Hdoc.End().Offset()));
    else if (redirect.Word && source.operator(redirect.OpPos, '<') === '<<<') {
      const literal = literalWord(redirect.Word, source);
      scripts.push(literal.ok ? literal.value : source.slice(redirect.Word.Pos().Offset(), redirect.Word.End().Offset()));
    }
  }
  return scripts;
}

/** A pipeline or list of two statements. */
interface ShBinaryCmd extends ShNode {
  OpPos: ShPos;
  X: ShStmt;
  Y: ShStmt;
}

/** Whether a statement runs a shell that reads its script from standard input (no `-c`). */
function readsScript(stmt: ShStmt, source: Source): boolean {
  if (!stmt.Cmd || nodeType(stmt.Cmd) !== 'CallExpr') return false;
  const words = commandWords(stmt.Cmd as ShCallExpr, source);
  const program = words[0];
  return typeof program === 'string' && SHELLS.has(basename(program)) && !words.some((w) => w !== null && COMMAND_FLAG.test(w));
}

/** The script `echo '<script>' | sh` (or `printf`) feeds a shell, as written, or `null`. */
function pipedScript(pipe: ShBinaryCmd, source: Source): string | null {
  const op = source.operator(pipe.OpPos, '|&');
  if ((op !== '|' && op !== '|&') || !readsScript(pipe.Y, source)) return null;
  const left = pipe.X.Cmd;
  if (!left || nodeType(left) !== 'CallExpr') return null;
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
  const literal = literalWord(word, source);
  if (literal.ok) return literal.value;
  const [only, second] = word.Parts;
  if (only && !second && nodeType(only) === 'DblQuoted') return source.slice(only.Pos().Offset() + 1, only.End().Offset() - 1);
  return source.slice(word.Pos().Offset(), word.End().Offset());
}

/** `-c` and the bundles that hold it (`-ec`, `-lc`), for shells and `su`. */
const COMMAND_FLAG = /^-[A-Za-z]*c[A-Za-z]*$/;

/**
 * Scripts a command runs as shell code (possibly after wrappers): `sh|bash|... -c
 * '<script>'` (also `-c -- '<script>'`), `su -c '<script>'`, `eval <words>`,
 * `env -S '<words>'`, `trap '<script>' SIGNAL` and `watch <words>` (run through `sh -c`).
 */
function nestedScripts(words: readonly CommandWord[], texts: readonly string[]): string[] {
  const scripts: string[] = [];
  const first = words[0];
  const starts = typeof first === 'string' && WRAPPERS.has(basename(first)) ? [...words.keys()] : [0];
  for (const start of starts) {
    const word = words[start];
    if (typeof word !== 'string') continue;
    const program = basename(word);
    const rest = texts.slice(start + 1);
    const operands = rest.filter((text, i) => words[start + 1 + i] === null || !text.startsWith('-'));
    if (program === 'eval') scripts.push(rest.join(' '));
    if (program === 'watch') scripts.push(...operands); // each word as a script; unquoted, the words after a wrapper are tried anyway
    if (program === 'trap' && operands[0] !== undefined) scripts.push(operands[0]);
    if (program === 'env') {
      const split = envSplitString(words.slice(start + 1));
      if (split !== null) scripts.push(split);
    }
    if (!SHELLS.has(program) && program !== 'su') continue;
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
