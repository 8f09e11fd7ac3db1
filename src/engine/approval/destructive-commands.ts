/**
 * Recognises shell commands that destroy work or history by what their options mean, not
 * by how they are spelt: the command is parsed with the real shell parser, each simple
 * command in it is found (inside lists, pipelines, `$(...)`, subshells, functions, the
 * scripts of `sh -c`, `su -c`, `eval`, `env -S`, `trap`, `watch`, a here-document or
 * `echo '...' |` fed to a shell, and after wrapper programs such as `sudo`, `env`,
 * `timeout`, `xargs`, `find -exec`; a git alias given with `-c alias.x=...`), and its options are
 * read the way the program's own option parser reads them: short options bundled or apart
 * (`-rf`, `-f -r`, `-Rfv`), long options with their abbreviations (`--rec`), options after
 * operands (GNU permutation), `--` ending the options, and git's global options before the
 * subcommand (`git -C dir clean -fdx`).
 *
 * Destructive, in this sense:
 * - `rm` with both a recursive and a force option (or `--interactive=never`); `rm -r`
 *   alone and `rm file` are not;
 * - `git clean` unless it is a dry run (`-n`); `git reset --hard`; `git stash drop|clear`
 *   (after a dynamic word among git's global options, any later checked subcommand);
 * - `git checkout` that overwrites paths (`--` and a path, `.`, a path-like operand, two
 *   operands, `--force`, `--pathspec-from-file`); `git switch --force|--discard-changes`;
 * - `git restore` of the working tree (`git restore .`, `--worktree`; `--staged` alone is not);
 * - `git push` that rewrites or deletes remote history: `--force`, `-f`,
 *   `--force-with-lease`, `--force-if-includes`, a `+refspec`, `--delete`, a `:refspec`,
 *   `--mirror`, `--prune` (a `--dry-run` is not);
 * - `mkfs`, `mkfs.*`, `dd`, `shutdown`, `reboot`, `halt`, `poweroff`.
 *
 * A safety net, not a sandbox: a word known only at run time (`rm $FLAGS x`), a script file,
 * options read from input (`echo -rf x | xargs rm`) or a repository alias cannot be seen
 * here. The approval gate asks about those; "always allow" stores at most that exact
 * command, and nothing for one with a word known only at run time.
 */
import { basename, commandParts, parseShell, scriptParts, WRAPPERS, type CommandWord } from './shell-syntax.js';

/** Why a command is destructive: the program as the operator would name it, and what it does. */
export interface Destructive {
  /** e.g. `rm -r -f`, `git push --force`: the recognised program and the options that make it destructive. */
  command: string;
  /** e.g. `deletes recursively without asking`. */
  effect: string;
}

/** Options of one program invocation as its getopt-style parser reads them. */
interface Options {
  /** Short option letters given (bundles taken apart; an option's value is not a letter). */
  shorts: Set<string>;
  /** Long option names as typed, without `--` and `=value` (possibly abbreviated). */
  longs: string[];
  /** Operands, in order, with `null` for a dynamic word; words after `--` included. */
  operands: CommandWord[];
  /** Whether `--` appeared (later words are operands even if they start with `-`). */
  dashDash: boolean;
  /** Whether a long option was given the value `never` (`rm --interactive=never`). */
  never: boolean;
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
  const options: Options = { shorts: new Set(), longs: [], operands: [], dashDash: false, never: false };
  const permute = spec.permute ?? true;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const optionsOver = options.dashDash || (!permute && options.operands.length > 0);
    if (word === null || optionsOver || word === '-' || !word.startsWith('-')) {
      options.operands.push(word);
    } else if (word === '--') {
      options.dashDash = true;
    } else if (word.startsWith('--')) {
      const [name = '', value] = word.slice(2).split('=', 2);
      options.longs.push(name);
      if (value === 'never' && 'interactive'.startsWith(name)) options.never = true;
      if (!word.includes('=') && spec.longWithValue?.some((long) => long.startsWith(name))) i++;
    } else {
      for (let c = 1; c < word.length; c++) {
        const letter = word[c]!;
        options.shorts.add(letter);
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

/** One recognised destructive invocation, or `null`; `args` are the words after the program. */
type Check = (args: readonly CommandWord[], program: string) => Destructive | null;

const rm: Check = (args) => {
  const options = readOptions(args);
  const recursive = has(options, 'rR', 'recursive');
  // `--interactive=never` asks no more than `--force` does.
  const force = has(options, 'f', 'force') || options.never;
  return recursive && force ? { command: 'rm -r -f', effect: 'deletes recursively without asking' } : null;
};

/** A single `git checkout` operand that names paths rather than a branch or commit. */
function pathLike(word: CommandWord): boolean {
  if (word === null) return true;
  return word === '.' || word === '..' || /^(\.{1,2}\/|\/|:)/.test(word) || /[*?[]/.test(word) || word.endsWith('/');
}

/** git subcommands, each reading its own options. */
const GIT: Record<string, (args: readonly CommandWord[]) => Destructive | null> = {
  clean(args) {
    const options = readOptions(args, { shortWithValue: 'e', longWithValue: ['exclude'] });
    return has(options, 'n', 'dry-run') ? null : { command: 'git clean', effect: 'deletes untracked files (only a dry run, -n, is let through)' };
  },
  reset(args) {
    return hasLong(readOptions(args), 'hard') ? { command: 'git reset --hard', effect: 'discards uncommitted changes' } : null;
  },
  stash(args) {
    const sub = args.find((word) => word === null || !word.startsWith('-'));
    return sub === 'drop' || sub === 'clear' ? { command: `git stash ${sub}`, effect: 'deletes stashed work' } : null;
  },
  checkout(args) {
    const options = readOptions(args, { shortWithValue: 'bB', longWithValue: ['orphan'] });
    const overwrites =
      has(options, 'f', 'force') ||
      hasLong(options, 'pathspec-from-file') ||
      (options.dashDash && options.operands.length > 0) ||
      options.operands.length >= 2 ||
      (options.operands.length === 1 && pathLike(options.operands[0]!));
    return overwrites ? { command: 'git checkout <paths>', effect: 'overwrites uncommitted changes' } : null;
  },
  switch(args) {
    const options = readOptions(args, { shortWithValue: 'cC', longWithValue: ['orphan', 'create', 'force-create'] });
    return has(options, 'f', 'force', 'discard-changes') ? { command: 'git switch --discard-changes', effect: 'discards uncommitted changes' } : null;
  },
  restore(args) {
    const options = readOptions(args, { shortWithValue: 's', longWithValue: ['source'] });
    const staged = has(options, 'S', 'staged');
    const worktree = has(options, 'W', 'worktree') || !staged;
    const paths = options.operands.length > 0 || hasLong(options, 'pathspec-from-file');
    return worktree && paths ? { command: 'git restore <paths>', effect: 'overwrites uncommitted changes in the working tree' } : null;
  },
  push(args) {
    const options = readOptions(args, { shortWithValue: 'o', longWithValue: ['push-option', 'receive-pack', 'exec', 'repo'] });
    if (has(options, 'n', 'dry-run')) return null;
    const refspecs = options.operands.slice(1);
    if (has(options, 'f', 'force', 'force-with-lease', 'force-if-includes') || refspecs.some((spec) => spec !== null && spec.startsWith('+'))) {
      return { command: 'git push --force', effect: 'rewrites remote history' };
    }
    if (has(options, 'd', 'delete', 'mirror', 'prune') || refspecs.some((spec) => spec !== null && spec.startsWith(':'))) {
      return { command: 'git push --delete', effect: 'deletes remote branches' };
    }
    return null;
  },
};

/** git's global options that take their value in the next word (`git -C dir ...`). */
const GIT_GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--attr-source', '--list-cmds']);

const MAX_ALIASES = 3;

/**
 * `git [global options] <subcommand> ...`. An alias defined on the command line
 * (`git -c alias.x='clean -fdx' x`, or `'!rm -rf x'` for a shell alias) is expanded and read
 * the same way; aliases from configuration files are not visible here.
 */
const git: Check = (args) => gitWords(args, 0);

function gitWords(args: readonly CommandWord[], depth: number): Destructive | null {
  const aliases = new Map<string, string>();
  let i = 0;
  while (i < args.length) {
    const word = args[i];
    if (word === undefined) return null;
    if (word === null) return gitAnySubcommand(args.slice(i + 1)); // a dynamic option or subcommand
    if (!word.startsWith('-')) break;
    const value = args[i + 1];
    const alias = word === '-c' && typeof value === 'string' ? /^alias\.([^=]+)=(.*)$/is.exec(value) : null;
    if (alias) aliases.set(alias[1]!.toLowerCase(), alias[2]!);
    i += GIT_GLOBAL_WITH_VALUE.has(word) ? 2 : 1;
  }
  const sub = args[i];
  if (typeof sub !== 'string') return null;
  const rest = args.slice(i + 1);
  const alias = aliases.get(sub.toLowerCase());
  if (alias !== undefined && depth < MAX_ALIASES) {
    if (alias.startsWith('!')) {
      for (const words of scriptParts(alias.slice(1))) {
        const found = destructiveWords(words);
        if (found) return found;
      }
      return null;
    }
    const [expanded] = scriptParts(alias);
    return expanded ? gitWords([...expanded, ...rest], depth + 1) : null;
  }
  return Object.hasOwn(GIT, sub) ? GIT[sub]!(rest) : null;
}

/**
 * After a dynamic word among git's global options the subcommand cannot be told apart from
 * an option's value: every later word that names a checked subcommand is tried.
 */
function gitAnySubcommand(args: readonly CommandWord[]): Destructive | null {
  for (const [i, word] of args.entries()) {
    if (typeof word === 'string' && Object.hasOwn(GIT, word)) {
      const found = GIT[word]!(args.slice(i + 1));
      if (found) return found;
    }
  }
  return null;
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

/** `find` primaries that run the words after them as a command, up to `;` or `+`. */
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * Where a program may start in one simple command's words: the first word; after a wrapper,
 * every later word (a wrapper's own options and values are not parsed, so no way of
 * spelling them hides the command; the price is that `sudo echo rm -rf x` counts too);
 * after `find ... -exec`, the word that follows.
 */
function programStarts(words: readonly CommandWord[]): number[] {
  const first = words[0];
  const program = typeof first === 'string' ? basename(first) : '';
  if (WRAPPERS.has(program)) return [...words.keys()];
  if (program === 'find') return [0, ...words.flatMap((word, i) => (word !== null && FIND_EXEC.has(word) ? [i + 1] : []))];
  return [0];
}

/** The destructive invocation in one simple command's words, or `null`. */
function destructiveWords(words: readonly CommandWord[]): Destructive | null {
  for (const start of programStarts(words)) {
    const word = words[start];
    if (typeof word !== 'string') continue;
    const program = basename(word);
    const found = checkFor(program)?.(words.slice(start + 1), program);
    if (found) return found;
  }
  return null;
}

/**
 * The first destructive command in a shell command (see the module doc for what counts and
 * where it is looked for), or `null` when none is recognised, also when the command does
 * not parse (the approval gate asks about those).
 */
export function destructiveCommand(command: string): Destructive | null {
  const parsed = parseShell(command);
  if (!parsed.ok) return null;
  for (const words of commandParts(parsed.file, parsed.source)) {
    const found = destructiveWords(words);
    if (found) return found;
  }
  return null;
}
