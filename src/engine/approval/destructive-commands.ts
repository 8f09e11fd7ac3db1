/**
 * Recognises shell commands that destroy work or history by what their options mean, not
 * by how they are spelt: the command is parsed with the real shell parser, each simple
 * command in it is found (inside lists, pipelines, `$(...)`, subshells, functions, the
 * scripts of `sh|bash|zsh|fish|csh|... -c`, `su|runuser|flock|script -c`, `eval`, `env -S`,
 * `trap`, `watch`, `sg`, `parallel`, an `alias` definition, a here-document or `echo '...' |`
 * fed to a shell, `git submodule foreach`, `git rebase --exec`, `git bisect run`, a git alias
 * given with `-c alias.x=...`, and after wrapper programs such as `sudo`, `env`, `timeout`,
 * `xargs`, `chroot`, `unshare`, `find -exec`), ANSI-C quoting decoded (`$'rm'`), and its
 * options are read the way the program's own option parser reads them: short options
 * bundled or apart (`-rf`, `-f -r`, `-Rfv`), long options with their abbreviations
 * (`--rec`), options after operands (GNU permutation), `--` ending the options, the last of
 * `-n`/`--dry-run`/`--no-dry-run` winning, and git's global options before the subcommand
 * (`git -C dir clean -fdx`).
 *
 * Destructive, in this sense:
 * - `rm` with both a recursive and a force option (or `--interactive=never`); `rm -r`
 *   alone and `rm file` are not;
 * - `git clean` unless it is a dry run (`-n`; `git clean -i` counts too: its answers can
 *   come from a file); `git reset --hard`; `git stash drop|clear`; `git rm -f` (not
 *   `--cached`); `git checkout-index -f`; `git read-tree -u --reset`;
 * - `git checkout` that overwrites paths (`--` and a path, `.`, a path-like operand such as
 *   `:/x`, two operands, `--force`, `--pathspec-from-file`, or one operand that exists as a
 *   path in the workspace when it is known); `git switch --force|--discard-changes`;
 * - `git restore` of the working tree (`git restore .`, `--worktree`; `--staged` alone is not);
 * - `git push` that rewrites or deletes remote history: `--force`, `-f`,
 *   `--force-with-lease`, `--force-if-includes`, a `+refspec`, `--delete`, a `:refspec`,
 *   `--mirror`, `--prune` (a `--dry-run` is not);
 * - configuration that makes git run a program or force a push ({@link CODE_KEYS}:
 *   `core.fsmonitor`, `core.sshCommand`, `core.pager`, `core.editor`, `core.hooksPath`,
 *   `*.command`, `*.textconv`, `filter.*`, `diff.external`, `alias.*`, `remote.*.push`,
 *   `remote.*.mirror`, ...), set with `git -c`, `--config-env`, `git config`, or the
 *   variables `GIT_CONFIG_*`, `GIT_SSH*`, `GIT_PAGER`, `GIT_EDITOR`, `GIT_EXEC_PATH`, ...,
 *   or `--exec-path=<dir>` (git's helper programs from that folder);
 * - `mkfs`, `mkfs.*`, `dd`, `shutdown`, `reboot`, `halt`, `poweroff`.
 *
 * Fail closed: what cannot be read statically counts as destructive (`unknown` is set, and
 * the deny says "cannot tell whether ... is destructive"): a dynamic word where an option of
 * `rm` or a checked git subcommand could stand (`rm $FLAGS x`, `git push origin $REF`,
 * `xargs rm -r`, whose input adds words), a program known only when it runs (`$RM -rf x`,
 * `{rm,-rf,x}`), a dynamic word among git's global options, scripts nested more than
 * {@link MAX_NESTING} levels deep or that do not parse, a shell reading its script from
 * a pipe, a file or a process substitution (`curl ... | sh`, `sh < x`, `bash <(...)`), and a
 * command whose checks would read more than a reading budget allows (the scripts inside it,
 * or the words after each of many checked programs: `sudo rm rm rm ...`), which reading in
 * full would take time growing with the square of its length.
 *
 * A safety net, not a sandbox: a script file (`bash deploy.sh`, `make`), a program's own
 * code and aliases or config already in the repository's files cannot be seen here. The
 * approval gate asks about those; "always allow" stores at most that exact command, and
 * nothing for one with a word known only at run time or that runs other code.
 */
import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import { ASSIGNMENT, basename, commandParts, MAX_NESTING, parseShell, programStarts, ReadingBudget, scriptParts, UNREADABLE, type CommandWord } from './shell-syntax.js';

/** Why a command is destructive: the program as the operator would name it, and what it does. */
export interface Destructive {
  /** e.g. `rm -r -f`, `git push --force`: the recognised program and the options that make it destructive. */
  command: string;
  /** e.g. `deletes recursively without asking`. */
  effect: string;
  /**
   * Set when the command is treated as destructive because it cannot be read statically
   * (a dynamic option word, a dynamic program, a script nested too deep or read from a
   * pipe): `effect` then says what is known only when it runs.
   */
  unknown?: true;
}

/** Where the command will run, when known: lets `git checkout <one operand>` tell a path from a branch. */
export interface GuardContext {
  /** Absolute path of the workspace (the shell tool's working directory). */
  workspace?: string;
}

/** The text a deny (or a refused "always allow") shows for a finding. */
export function destructiveReason(found: Destructive): string {
  return found.unknown ? `cannot tell whether ${found.command} is destructive: ${found.effect}` : `destructive command: ${found.command} (${found.effect})`;
}

/** Options of one program invocation as its getopt-style parser reads them. */
interface Options {
  /** Short option letters given (bundles taken apart; an option's value is not a letter). */
  shorts: Set<string>;
  /** Long option names as typed, without `--` and `=value` (possibly abbreviated). */
  longs: string[];
  /** Every option in the order given: `-x` for a short letter, `--name` for a long one (the last of a pair wins). */
  order: string[];
  /** Operands, in order, with `null` for a dynamic word; words after `--` included. */
  operands: CommandWord[];
  /** Whether `--` appeared (later words are operands even if they start with `-`). */
  dashDash: boolean;
  /** Whether a long option was given the value `never` (`rm --interactive=never`). */
  never: boolean;
  /** Whether a dynamic word stood where an option could be (before `--`): it may expand to any option. */
  dynamicOption: boolean;
}

/** How a program's option parser reads its words. */
interface OptionSpec {
  /** Short options that take a value (`-o value` or `-ovalue`). */
  shortWithValue?: string;
  /** Long options that take a value in the next word when not given `--name=value`. */
  longWithValue?: readonly string[];
  /** Options after the first operand still count (GNU permutation); default true. */
  permute?: boolean;
}

/** Reads the words after a program name as its option parser would. */
function readOptions(args: readonly CommandWord[], spec: OptionSpec = {}): Options {
  const options: Options = { shorts: new Set(), longs: [], order: [], operands: [], dashDash: false, never: false, dynamicOption: false };
  const permute = spec.permute ?? true;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const optionsOver = options.dashDash || (!permute && options.operands.length > 0);
    if (word === null && !optionsOver) options.dynamicOption = true;
    if (word === null || optionsOver || word === '-' || !word.startsWith('-')) {
      options.operands.push(word);
    } else if (word === '--') {
      options.dashDash = true;
    } else if (word.startsWith('--')) {
      const [name = '', value] = word.slice(2).split('=', 2);
      options.longs.push(name);
      options.order.push(`--${name}`);
      if (value === 'never' && 'interactive'.startsWith(name)) options.never = true;
      if (!word.includes('=') && spec.longWithValue?.some((long) => long.startsWith(name))) i++;
    } else {
      for (let c = 1; c < word.length; c++) {
        const letter = word[c]!;
        options.shorts.add(letter);
        options.order.push(`-${letter}`);
        if (spec.shortWithValue?.includes(letter)) {
          if (c === word.length - 1) i++;
          break;
        }
      }
    }
  }
  return options;
}

/** A long option given as `name` or any abbreviation of it (`--rec` for `--recursive`). */
function hasLong(options: Options, ...names: string[]): boolean {
  return options.longs.some((typed) => typed !== '' && names.some((name) => name.startsWith(typed)));
}

function has(options: Options, shorts: string, ...longs: string[]): boolean {
  return [...shorts].some((letter) => options.shorts.has(letter)) || hasLong(options, ...longs);
}

/**
 * Whether a dry run is in force: the last of `-n`, `--dry-run` and `--no-dry-run` (in any
 * abbreviation) wins, as in git's option parser (`-n --no-dry-run` is not a dry run).
 */
function dryRun(options: Options): boolean {
  let dry = false;
  for (const option of options.order) {
    if (option === '-n') dry = true;
    else if (option.startsWith('--no-') && option.length > 5 && 'dry-run'.startsWith(option.slice(5))) dry = false;
    else if (option.length > 2 && 'dry-run'.startsWith(option.slice(2))) dry = true;
  }
  return dry;
}

/** The finding for a destructive-capable program whose options are known only when it runs. */
function dynamicOptions(command: string): Destructive {
  return { command, effect: 'its options are known only when it runs', unknown: true };
}

/** One recognised destructive invocation, or `null`; `args` are the words after the program. */
type Check = (args: readonly CommandWord[], program: string, context: GitContext) => Destructive | null;

const rm: Check = (args) => {
  const options = readOptions(args);
  const recursive = has(options, 'rR', 'recursive');
  // `--interactive=never` asks no more than `--force` does.
  const force = has(options, 'f', 'force') || options.never;
  if (recursive && force) return { command: 'rm -r -f', effect: 'deletes recursively without asking' };
  return options.dynamicOption ? dynamicOptions('rm') : null;
};

/** A single `git checkout` operand that names paths rather than a branch or commit. */
function pathLike(word: CommandWord): boolean {
  if (word === null) return true;
  return word === '.' || word === '..' || /^(\.{1,2}\/|\/|:)/.test(word) || /[*?[]/.test(word) || word.endsWith('/');
}

/** Whether `operand` names something on disk where git runs (workspace and `-C` directories); `false` when unknown. */
function existsAt(context: GitContext, operand: string): boolean {
  if (context.workspace === undefined) return false;
  const target = path.resolve(context.workspace, ...context.dirs, operand);
  if (existsSync(target)) return true;
  try {
    lstatSync(target);
    return true;
  } catch {
    return false;
  }
}

/** git's context while reading one command: the workspace, the `-C` directories given, and what is left to read. */
interface GitContext extends GuardContext {
  dirs: string[];
  budget: ReadingBudget;
}

/**
 * Configuration keys that make git run a program or rewrite what a push does (matched on
 * the lower-cased key): set with `git -c`, `--config-env`, `git config` or the
 * `GIT_CONFIG_*` variables, they run arbitrary code or force a push.
 */
const CODE_KEYS =
  /^(core\.(fsmonitor|sshcommand|pager|editor|hookspath|askpass|gitproxy|alternaterefscommand|worktree)|sequence\.editor|diff\.external|interactive\.difffilter|uploadpack\.packobjectshook|alias\..*|filter\..*|pager\..*|url\..*|protocol\..*|include\..*|includeif\..*|credential(\..*)?\.helper|gpg(\..*)?\.program|remote\..*\.(push|mirror|receivepack|uploadpack|vcs|proxy)|.*\.(command|cmd|textconv|driver|helper|program|tool|editor|hookspath|sshcommand))$/;

/** Variables through which git reads configuration or programs to run. */
const GIT_CODE_VARIABLES = /^GIT_(CONFIG\w*|SSH\w*|PAGER|EDITOR|SEQUENCE_EDITOR|EXTERNAL_DIFF|ASKPASS|PROXY_COMMAND|EXEC_PATH|TEMPLATE_DIR)$/;

/** The finding for configuration that makes git run code. */
function codeConfig(key: string): Destructive {
  return { command: `git configuration ${key}`, effect: 'makes git run a program or rewrite what it pushes' };
}

/** git subcommands, each reading its own options. */
const GIT: Record<string, (args: readonly CommandWord[], context: GitContext) => Destructive | null> = {
  clean(args) {
    const options = readOptions(args, { shortWithValue: 'e', longWithValue: ['exclude'] });
    if (options.dynamicOption) return dynamicOptions('git clean');
    return dryRun(options) ? null : { command: 'git clean', effect: 'deletes untracked files (only a dry run, -n, is let through)' };
  },
  reset(args) {
    const options = readOptions(args);
    if (hasLong(options, 'hard')) return { command: 'git reset --hard', effect: 'discards uncommitted changes' };
    return options.dynamicOption ? dynamicOptions('git reset') : null;
  },
  stash(args) {
    const sub = args.find((word) => word === null || !word.startsWith('-'));
    if (sub === null) return dynamicOptions('git stash');
    return sub === 'drop' || sub === 'clear' ? { command: `git stash ${sub}`, effect: 'deletes stashed work' } : null;
  },
  checkout(args, context) {
    const options = readOptions(args, { shortWithValue: 'bBcC', longWithValue: ['orphan'] });
    const [only] = options.operands;
    const creates = has(options, 'bBcC', 'orphan');
    const overwrites =
      has(options, 'f', 'force') ||
      hasLong(options, 'pathspec-from-file') ||
      options.dynamicOption ||
      (options.dashDash && options.operands.length > 0) ||
      options.operands.length >= 2 ||
      (options.operands.length === 1 && (pathLike(only!) || (!creates && existsAt(context, only!))));
    return overwrites ? { command: 'git checkout <paths>', effect: 'overwrites uncommitted changes' } : null;
  },
  switch(args) {
    const options = readOptions(args, { shortWithValue: 'cC', longWithValue: ['orphan', 'create', 'force-create'] });
    if (has(options, 'f', 'force', 'discard-changes')) return { command: 'git switch --discard-changes', effect: 'discards uncommitted changes' };
    return options.dynamicOption ? dynamicOptions('git switch') : null;
  },
  restore(args) {
    const options = readOptions(args, { shortWithValue: 's', longWithValue: ['source'] });
    const staged = has(options, 'S', 'staged');
    const worktree = has(options, 'W', 'worktree') || !staged || options.dynamicOption;
    const paths = options.operands.length > 0 || hasLong(options, 'pathspec-from-file');
    return worktree && paths ? { command: 'git restore <paths>', effect: 'overwrites uncommitted changes in the working tree' } : null;
  },
  push(args) {
    const options = readOptions(args, { shortWithValue: 'o', longWithValue: ['push-option', 'receive-pack', 'exec', 'repo'] });
    if (options.dynamicOption || options.operands.includes(null)) return dynamicOptions('git push');
    if (dryRun(options)) return null;
    const refspecs = options.operands.slice(1);
    if (has(options, 'f', 'force', 'force-with-lease', 'force-if-includes') || refspecs.some((spec) => spec !== null && spec.startsWith('+'))) {
      return { command: 'git push --force', effect: 'rewrites remote history' };
    }
    if (has(options, 'd', 'delete', 'mirror', 'prune') || refspecs.some((spec) => spec !== null && spec.startsWith(':'))) {
      return { command: 'git push --delete', effect: 'deletes remote branches' };
    }
    return null;
  },
  rm(args) {
    const options = readOptions(args, { longWithValue: ['pathspec-from-file'] });
    if (options.dynamicOption) return dynamicOptions('git rm');
    return has(options, 'f', 'force') && !hasLong(options, 'cached') ? { command: 'git rm -f', effect: 'deletes files with uncommitted changes' } : null;
  },
  'checkout-index'(args) {
    const options = readOptions(args, { longWithValue: ['prefix', 'stage'] });
    if (options.dynamicOption) return dynamicOptions('git checkout-index');
    return has(options, 'f', 'force') ? { command: 'git checkout-index -f', effect: 'overwrites uncommitted changes' } : null;
  },
  'read-tree'(args) {
    const options = readOptions(args, { longWithValue: ['prefix', 'index-output', 'exclude-per-directory'] });
    if (options.dynamicOption) return dynamicOptions('git read-tree');
    return has(options, 'u') && hasLong(options, 'reset') ? { command: 'git read-tree -u --reset', effect: 'discards uncommitted changes' } : null;
  },
  submodule(args, context) {
    const at = args.indexOf('foreach');
    if (args.includes(null) && at < 0) return dynamicOptions('git submodule');
    if (at < 0) return null;
    const script = args.slice(at + 1).filter((word) => word === null || !word.startsWith('-'));
    if (script.includes(null)) return dynamicOptions('git submodule foreach');
    return destructiveParts(scriptParts(script.join(' '), 1, context.budget), {}, context.budget);
  },
  rebase(args, context) {
    const scripts: CommandWord[] = [];
    args.forEach((word, i) => {
      if (word === '-x' || word === '--exec') scripts.push(args[i + 1] ?? null);
      else if (word?.startsWith('--exec=')) scripts.push(word.slice('--exec='.length));
      else if (word !== null && /^-[^-]*x./.test(word)) scripts.push(word.slice(word.indexOf('x') + 1));
    });
    if (args.includes(null)) return dynamicOptions('git rebase');
    for (const script of scripts) {
      const found = script === null ? dynamicOptions('git rebase --exec') : destructiveParts(scriptParts(script, 1, context.budget), {}, context.budget);
      if (found) return found;
    }
    return null;
  },
  bisect(args, context) {
    const at = args.indexOf('run');
    return at < 0 ? null : destructiveWords(args.slice(at + 1), {}, context.budget);
  },
  config(args) {
    const options = readOptions(args, { shortWithValue: 'f', longWithValue: ['file', 'blob', 'type', 'default', 'comment', 'value'] });
    const setting = options.operands.filter((word) => word !== 'set');
    const [key, value] = setting;
    if (key === null || (options.dynamicOption && value !== undefined)) return dynamicOptions('git config');
    return typeof key === 'string' && value !== undefined && CODE_KEYS.test(key.toLowerCase()) ? codeConfig(key) : null;
  },
};

/** git's global options that take their value in the next word (`git -C dir ...`). */
const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--attr-source', '--list-cmds', '--exec-path']);

const MAX_ALIASES = 3;

/**
 * `git [global options] <subcommand> ...`. An alias defined on the command line
 * (`git -c alias.x='clean -fdx' x`, or `'!rm -rf x'` for a shell alias) is expanded and read
 * the same way; any other configuration given on the command line that makes git run a
 * program (`-c core.fsmonitor=...`, {@link CODE_KEYS}) is destructive in itself. A dynamic
 * word among the global options or as the subcommand cannot be read: destructive.
 * Aliases from configuration files are not visible here.
 */
const git: Check = (args, _program, context) => gitWords(args, 0, context);

function gitWords(args: readonly CommandWord[], depth: number, outer: GitContext): Destructive | null {
  const context: GitContext = { workspace: outer.workspace, dirs: [...outer.dirs], budget: outer.budget };
  const aliases = new Map<string, string>();
  let codeKey: string | null = null;
  let i = 0;
  while (i < args.length) {
    const word = args[i];
    if (word === undefined) return null;
    if (word === null) return dynamicOptions('git');
    if (!word.startsWith('-')) break;
    const value = GIT_GLOBAL_WITH_VALUE.has(word) ? args[i + 1] : word.includes('=') ? word.slice(word.indexOf('=') + 1) : undefined;
    if (value === null) return dynamicOptions('git');
    if (word === '-C' && value !== undefined) context.dirs.push(value);
    if (word.startsWith('--exec-path') && value !== undefined) codeKey ??= '--exec-path';
    if ((word === '-c' || word.startsWith('--config-env')) && value !== undefined) {
      const key = value.split('=', 1)[0]!.toLowerCase();
      const alias = word === '-c' ? /^alias\.([^=]+)=(.*)$/is.exec(value) : null;
      if (alias) aliases.set(alias[1]!.toLowerCase(), alias[2]!);
      if (CODE_KEYS.test(key)) codeKey ??= value.split('=', 1)[0]!;
    }
    i += GIT_GLOBAL_WITH_VALUE.has(word) ? 2 : 1;
  }
  const sub = args[i];
  if (sub === null) return dynamicOptions('git');
  if (sub === undefined) return codeKey === null ? null : codeConfig(codeKey);
  const rest = args.slice(i + 1);
  const alias = aliases.get(sub.toLowerCase());
  let found: Destructive | null = null;
  if (alias !== undefined && depth < MAX_ALIASES) {
    found = alias.startsWith('!') ? destructiveParts(scriptParts(alias.slice(1), 1, context.budget), context, context.budget) : gitAlias(alias, rest, depth, context);
  } else if (Object.hasOwn(GIT, sub)) {
    found = GIT[sub]!(rest, context);
  }
  return found ?? (codeKey === null ? null : codeConfig(codeKey));
}

function gitAlias(alias: string, rest: readonly CommandWord[], depth: number, context: GitContext): Destructive | null {
  const [expanded] = scriptParts(alias, 1, context.budget);
  if (!expanded || expanded[0] === UNREADABLE) return { command: 'git alias', effect: 'its expansion cannot be read', unknown: true };
  return gitWords([...expanded, ...rest], depth + 1, context);
}

const always =
  (effect: string): Check =>
  (_args, program) => ({ command: program, effect });

/** The programs checked, by base name. */
const CHECKS: Record<string, Check> = {
  rm,
  git,
  dd: always('writes raw blocks to files or devices'),
  mkfs: always('formats a file system'),
  shutdown: always('stops the machine'),
  reboot: always('restarts the machine'),
  halt: always('stops the machine'),
  poweroff: always('stops the machine'),
};

function checkFor(program: string): Check | undefined {
  return Object.hasOwn(CHECKS, program) ? CHECKS[program] : program.startsWith('mkfs.') ? CHECKS.mkfs : undefined;
}

/** Wrappers that append words read from their input to the command they run. */
const INPUT_ARGUMENTS = new Set(['xargs', 'parallel']);

/** The finding for a command too long to check within the reading budget. */
const TOO_LONG: Destructive = { command: 'the command', effect: 'it is too long to read in full (its checks would read more than the reading budget allows)', unknown: true };

/**
 * The destructive invocation in one simple command's words, or `null`. A program word known
 * only when it runs cannot be read: destructive. After `xargs`/`parallel` the command gets
 * more words from its input, read as a dynamic word. Each checked program takes the words
 * after it from `budget`; past it the command counts as destructive ({@link TOO_LONG}).
 */
function destructiveWords(words: readonly CommandWord[], guard: GuardContext, budget: ReadingBudget): Destructive | null {
  if (words[0] === UNREADABLE) return { command: 'the command', effect: `${words[1] ?? 'it cannot be read'}`, unknown: true };
  if (words[0] === ASSIGNMENT) {
    const name = words[1] ?? '';
    return GIT_CODE_VARIABLES.test(name) ? { command: `${name}=`, effect: 'makes git read configuration or run a program it names' } : null;
  }
  const feeder = words.findIndex((word) => typeof word === 'string' && INPUT_ARGUMENTS.has(basename(word)));
  for (const start of programStarts(words)) {
    const word = words[start];
    if (word === null) return { command: 'a program', effect: 'the program is known only when it runs', unknown: true };
    if (word === undefined) continue;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word);
    if (start > 0 && assignment && GIT_CODE_VARIABLES.test(assignment[1]!)) {
      return { command: `${assignment[1]}=`, effect: 'makes git read configuration or run a program it names' };
    }
    const program = basename(word);
    const check = checkFor(program);
    if (!check) continue;
    if (!budget.take(words.length - start)) return TOO_LONG;
    const fed = feeder >= 0 && feeder < start;
    const args = fed ? [...words.slice(start + 1), null] : words.slice(start + 1);
    const found = check(args, program, { workspace: guard.workspace, dirs: [], budget });
    if (found) return found;
  }
  return null;
}

function destructiveParts(parts: readonly CommandWord[][], guard: GuardContext, budget: ReadingBudget): Destructive | null {
  for (const words of parts) {
    const found = destructiveWords(words, guard, budget);
    if (found) return found;
  }
  return null;
}

/**
 * The first destructive command in a shell command (see the module doc for what counts and
 * where it is looked for), or `null` when none is recognised, also when the command does
 * not parse (the approval gate asks about those). `context.workspace` lets
 * `git checkout <one operand>` count as destructive when the operand exists as a path there.
 */
export function destructiveCommand(command: string, context: GuardContext = {}): Destructive | null {
  const parsed = parseShell(command);
  if (!parsed.ok) return null;
  return destructiveParts(commandParts(parsed.file, parsed.source), context, new ReadingBudget());
}
