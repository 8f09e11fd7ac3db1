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
 *   does not parse, for a destructive command or one the guard cannot read
 *   (destructive-commands.ts), and for one that runs other code ({@link RUNS_CODE}: a
 *   shell or interpreter, `eval`, `source`, `xargs`, `find -exec`, `env -S`, `git -c`, `git
 *   submodule foreach`, ...: what it runs can change after approval): those are approved
 *   once (`y`) or not at all. A program or script file from the workspace (`make`, `npm
 *   test`, `./run.sh`) is stored: the rule then allows whatever that file holds later.
 * - Any other tool stores `exact: <tool> sha256:<digest>`: the tool with exactly these
 *   arguments (the digest is sha256 of their canonical JSON, keys sorted and no spaces,
 *   first 32 hex digits).
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
import { destructiveCommand, destructiveReason } from './destructive-commands.js';
import { READ_ONLY_TOOLS, readOnlyCommand, readOnlyCommandOf, readOnlyMeaning, refusedWord } from './read-only-commands.js';
import { ASSIGNMENT, basename, commandParts, dynamicPart, FIND_EXEC, literalArgv, parseShell, programStarts, SHELLS, simpleCommand, UNREADABLE, withoutTrailing, WordScan, type CommandWord } from './shell-syntax.js';

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

/**
 * sha256 of the canonical JSON of a call's arguments (keys sorted at every level, no
 * spaces; see `canonicalJson`), in lower-case hex: the first `digits` of it, by default 32
 * (128 bits), what the prompt's `a` stores; an `exact:` rule may also give all 64.
 */
export function argsDigest(args: unknown, digits: number = DIGEST_CHARS): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, digits);
}

/**
 * Programs that run other code given to them as text or read when they run: shells, `eval`,
 * `source`/`.`, `trap`, `alias`, the `-c` runners (`su`, `runuser`, `flock`, `script`, `sg`),
 * the programs that build a command from their input or operands (`xargs`, `parallel`,
 * `watch`), interpreters and editors that take a program (`python`, `node`, `perl`, `ruby`,
 * `php`, `awk`, `sed` with its `e` command, `vim -c`, `gdb -ex`, ...). Data, on purpose short
 * and fixed; each is refused whatever its arguments.
 */
const RUNS_CODE: ReadonlySet<string> = new Set([
  ...SHELLS, '.', 'alias', 'awk', 'emacs', 'eval', 'ex', 'expect', 'flock', 'gawk', 'gdb', 'mawk',
  'nawk', 'nvim', 'osascript', 'parallel', 'powershell', 'pwsh',
  'script', 'sed', 'sg', 'source', 'su', 'runuser', 'tclsh', 'trap', 'vi', 'vim', 'watch', 'wish', 'xargs',
]);

/**
 * Interpreters that run a program given as text only with an inline-program option
 * (`node -e`, `python -c`, `perl -e`, `php -r`, ...) or when they read it from standard
 * input (no operand, or `-`). Given a program file or module (`node --test`,
 * `python -m pytest`, `ruby test.rb`) they are like `make`: the exact rule allows what that
 * file holds when it runs, as the README says.
 */
const INTERPRETERS: ReadonlySet<string> = new Set(['bun', 'deno', 'julia', 'lua', 'luajit', 'node', 'nodejs', 'perl', 'php', 'python', 'R', 'Rscript', 'ruby']);
/**
 * Whether a word is an inline-program option of the {@link INTERPRETERS}: `-e`, `-c`, `-p`,
 * `-r`, `-E` alone or bundled (`-pe`), `--eval[=...]`, `--print`, `--command`, `--exec`,
 * `--expr`, or `-`. (Read without a regular expression that backtracks on long bundles.)
 */
function inlineProgram(word: string): boolean {
  if (word === '-') return true;
  if (word.startsWith('--')) return /^--(?:eval|print|command|exec|expr)(?:=.*)?$/.test(word);
  return word.length > 1 && word[0] === '-' && /^-[A-Za-z]+$/.test(word) && /[ceEpr]/.test(word);
}

/** Whether a program name is on the {@link RUNS_CODE} list (versioned names included: `tclsh8.6`, `gawk5`). */
function runsCode(program: string): boolean {
  return RUNS_CODE.has(program) || RUNS_CODE.has(withoutTrailing(program, '0123456789.'));
}

/** Whether a program name is one of the {@link INTERPRETERS} (versioned names included: `python3.12`, `perl5`). */
function isInterpreter(program: string): boolean {
  return INTERPRETERS.has(program) || INTERPRETERS.has(withoutTrailing(program, '0123456789.'));
}

/** git's global options that take the next word as their value. */
const GIT_VALUE_OPTIONS = ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env'];

/**
 * How one simple command runs other code (see {@link RUNS_CODE}), or `null`. Each start of a
 * program (every word after a wrapper) looks at the literal words after it through one
 * {@link WordScan}, so a long command takes linear time.
 */
function otherCode(words: readonly CommandWord[]): string | null {
  if (words[0] === UNREADABLE) return String(words[1]);
  if (words[0] === ASSIGNMENT) return null;
  const scan = new WordScan(words);
  const literal = (word: CommandWord): boolean => word !== null;
  /** Whether a literal word after `start` passes `test`. */
  const later = (start: number, key: string, test: (word: string) => boolean): boolean => scan.next(start, key, (word) => word !== null && test(word)) >= 0;
  for (const start of programStarts(words)) {
    const word = words[start];
    if (typeof word !== 'string') continue;
    const program = basename(word);
    if (runsCode(program)) return `${program} runs other code`;
    // `deno eval` and `deno repl` take the program as text too.
    if (isInterpreter(program)) {
      const first = scan.next(start, 'literal', literal);
      if (first < 0 || later(start, 'inline', inlineProgram) || (program === 'deno' && /^(eval|repl)$/.test(words[first]!))) {
        return `${program} runs a program given as text or read from its input`;
      }
    }
    if (program === 'find' && later(start, 'find exec', (w) => FIND_EXEC.has(w))) return 'find -exec runs a command on names found when it runs';
    if (program === 'env' && later(start, 'split string', (w) => /^(-[^-]*S|--split-string)/.test(w))) return 'env -S runs a command line';
    if ((program === 'sudo' || program === 'doas') && later(start, 'shell', (w) => /^(-[A-Za-z]*[si]|--shell|--login)/.test(w))) return `${program} -s/-i runs a shell`;
    if (program === 'git') {
      // The literal words after `git`: its global options (with their values), then the subcommand.
      let at = scan.next(start, 'literal', literal);
      let config = false;
      const setsConfig = (w: string): boolean => w === '-c' || w.startsWith('--config-env');
      while (at >= 0 && words[at]!.startsWith('-')) {
        const option = words[at]!;
        config ||= setsConfig(option);
        at = scan.next(at, 'literal', literal);
        if (GIT_VALUE_OPTIONS.includes(option) && at >= 0) {
          config ||= setsConfig(words[at]!);
          at = scan.next(at, 'literal', literal);
        }
      }
      if (config) return 'git -c sets configuration that can run programs (aliases, hooks, pagers)';
      const sub = at >= 0 ? words[at] : undefined;
      if (sub === 'submodule' && later(start, 'foreach', (w) => w === 'foreach')) return 'git submodule foreach runs a script';
      if (sub === 'rebase' && later(start, 'rebase exec', (w) => /^(--exec|-[^-]*x)/.test(w))) return 'git rebase --exec runs a script';
    }
  }
  return null;
}

/** Why `command` cannot be stored as an exact rule, or `null` when it can. */
function shellExactProblem(command: unknown): string | null {
  if (typeof command !== 'string' || command.trim() === '') return 'the call has no command';
  if (command.includes('\0')) return 'the command holds a NUL byte';
  const parsed = parseShell(command);
  if (!parsed.ok) return 'the command does not parse';
  const destructive = destructiveCommand(command);
  if (destructive) return destructive.unknown ? destructiveReason(destructive) : `destructive command (${destructive.command}: ${destructive.effect})`;
  const dynamic = dynamicPart(parsed.file, parsed.source);
  if (dynamic) return `${dynamic} is known only when it runs`;
  for (const words of commandParts(parsed.file, parsed.source)) {
    const other = otherCode(words);
    if (other) return `${other}: what it runs can change after approval`;
  }
  return null;
}

/** How many commands' choices are kept: the prompt, its keys and the answer check ask for the same call. */
const CHOICES_KEPT = 4;
const shellChoicesKept = new Map<string, AllowChoices>();

/** {@link shellChoicesOf}, kept for the last few commands (the result must not be changed). */
function shellChoices(command: unknown): AllowChoices {
  if (typeof command !== 'string') return shellChoicesOf(command);
  let choices = shellChoicesKept.get(command);
  if (!choices) {
    choices = shellChoicesOf(command);
    shellChoicesKept.set(command, choices);
    if (shellChoicesKept.size > CHOICES_KEPT) shellChoicesKept.delete(shellChoicesKept.keys().next().value!);
  }
  return choices;
}

function shellChoicesOf(command: unknown): AllowChoices {
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
