/**
 * The first program a shell command runs, as `sh -c` would start it: what `validate` and
 * `run` check exists before a hook or a command agent is ever started (both are run through
 * `sh -c`, src/engine/process.ts). Built-ins and keywords of the shell (`cd`, `exit`, `:`,
 * `read`, `set`, `if … fi`, `( … )`) run inside the shell and need no program; the check
 * looks past them to the first program, and gives up (nothing to check) where that program
 * cannot be known from the text: a program word that is an expansion, a `cd`, `.`, `eval`,
 * a function definition, a change of `PATH`, a loop or a `case`.
 */
import { literalPrefix, nodeType, parseShell, type ShCallExpr, type ShNode, type ShStmt, type Source } from './approval/shell-syntax.js';

/**
 * Built-ins of POSIX sh (special and regular) and the common ones of dash and bash: the
 * shell runs them itself, never from PATH.
 */
const BUILTINS = new Set([
  ':', '.', 'break', 'continue', 'eval', 'exec', 'exit', 'export', 'readonly', 'return', 'set', 'shift', 'times', 'trap', 'unset',
  'alias', 'bg', 'cd', 'command', 'false', 'fc', 'fg', 'getopts', 'hash', 'jobs', 'kill', 'newgrp', 'pwd', 'read', 'true', 'type',
  'ulimit', 'umask', 'unalias', 'wait', 'echo', 'printf', 'test', '[', 'local', 'source',
]);

/** Built-ins after which the programs that follow cannot be found from the text: they change the folder, run other text, or rename commands. */
const OPAQUE_BUILTINS = new Set(['cd', '.', 'source', 'eval', 'alias', 'hash']);

/** The first program of a command: a word to find on PATH, none (only built-ins run), or not knowable from the text. */
export type FirstProgram =
  /** `word` as the shell reads it; `at`: where its word is written in the command, in UTF-8 bytes (from, to), quotes included. */
  | { kind: 'program'; word: string; at: [number, number] }
  | { kind: 'none' }
  | { kind: 'unknown' };

/** Still looking: every command so far ran in the shell itself. */
const ON = Symbol('on');
type Step = FirstProgram | typeof ON;

/**
 * The first program `sh -c command` would start, skipping built-ins and looking into
 * `&&`/`||`/`|` lists, subshells, `{ … }` blocks, the condition and body of `if`, the
 * condition of `while`, and `time`; `exec prog` and `command prog` start `prog`. A command
 * that does not parse is `unknown` (the shell's own parser may read it).
 */
export function firstProgram(command: string): FirstProgram {
  const parsed = parseShell(command);
  if (!parsed.ok) return { kind: 'unknown' };
  const step = inStatements(parsed.file.Stmts, parsed.source);
  return step === ON ? { kind: 'none' } : step;
}

function inStatements(stmts: readonly ShStmt[] | null | undefined, source: Source): Step {
  for (const stmt of stmts ?? []) {
    const step = inCommand(stmt.Cmd, source);
    if (step !== ON) return step;
  }
  return ON;
}

function inCommand(cmd: ShNode | null, source: Source): Step {
  if (!cmd) return ON;
  const node = cmd as ShNode & Record<string, unknown>;
  switch (nodeType(cmd)) {
    case 'CallExpr':
      return inCall(cmd as ShCallExpr, source);
    case 'BinaryCmd': {
      const left = inStatements([node.X as ShStmt], source);
      return left !== ON ? left : inStatements([node.Y as ShStmt], source);
    }
    case 'Subshell':
    case 'Block':
      return inStatements(node.Stmts as ShStmt[], source);
    case 'IfClause': {
      const condition = inStatements(node.Cond as ShStmt[], source);
      return condition !== ON ? condition : inStatements(node.Then as ShStmt[], source);
    }
    case 'WhileClause':
      return inStatements(node.Cond as ShStmt[], source);
    case 'TimeClause':
      return inStatements([node.Stmt as ShStmt], source);
    case 'DeclClause': {
      // `export FOO=1`, `local x`: a built-in, unless it changes PATH.
      const args = (node.Args as Array<{ Name?: { Value?: string } | null }>) ?? [];
      return args.some((arg) => arg.Name?.Value === 'PATH') ? { kind: 'unknown' } : ON;
    }
    case 'TestClause':
    case 'ArithmCmd':
    case 'LetClause':
      return ON;
    default:
      // A function definition, a loop over words, a case: what runs next is not known from here.
      return { kind: 'unknown' };
  }
}

function inCall(call: ShCallExpr, source: Source): Step {
  if (call.Assigns.some((assign) => assign.Name?.Value === 'PATH')) return { kind: 'unknown' };
  if (call.Args.length === 0) return ON; // only assignments
  const words = literalPrefix(call, source);
  if (words.length === 0) return { kind: 'unknown' };
  let [word, ...rest] = words as [string, ...string[]];
  let index = 0;
  if (word === 'exec' || word === 'command') {
    const options = rest.filter((w) => w.startsWith('-'));
    // `command -v prog` asks about prog, it does not run it.
    if (word === 'command' && options.some((o) => o !== '-p')) return ON;
    rest = rest.slice(options.length);
    if (rest.length === 0) return words.length < call.Args.length ? { kind: 'unknown' } : ON;
    index = 1 + options.length;
    [word, ...rest] = rest as [string, ...string[]];
  }
  const node = call.Args[index]!;
  if (!BUILTINS.has(word)) return { kind: 'program', word, at: [node.Pos().Offset(), node.End().Offset()] };
  if (OPAQUE_BUILTINS.has(word)) return { kind: 'unknown' };
  if ((word === 'export' || word === 'readonly' || word === 'unset') && rest.some((w) => w === 'PATH' || w.startsWith('PATH='))) return { kind: 'unknown' };
  return ON;
}
