/**
 * The fixed list of commands and tools that only read: the only ones for which the
 * approval prompt offers a rule wider than the exact call (`A`: "`git diff` with any
 * arguments"), and the only ones a `shell-read-only:` rule can name. The list is data and
 * short on purpose; a command is on it only if no argument can make it write a file or run
 * another program, once the refused options below are left out.
 */

/** One read-only shell command. */
export interface ReadOnlyCommand {
  /** The words it starts with, compared exactly: `['git', 'diff']`, `['ls']`. */
  words: readonly string[];
  /** Long options that write files or run programs, refused in any abbreviation (`--outp` is `--output`). */
  refusedLong?: readonly string[];
  /** Words refused as they are (`find`'s actions). */
  refusedWords?: readonly string[];
}

const GIT_OUTPUT = ['output', 'ext-diff'];

/** The read-only shell commands (`shell-read-only:` rules and the wider choice of the prompt). */
export const READ_ONLY_COMMANDS: readonly ReadOnlyCommand[] = [
  { words: ['git', 'status'] },
  { words: ['git', 'diff'], refusedLong: GIT_OUTPUT },
  { words: ['git', 'log'], refusedLong: GIT_OUTPUT },
  { words: ['git', 'show'], refusedLong: GIT_OUTPUT },
  { words: ['ls'] },
  { words: ['cat'] },
  { words: ['head'] },
  { words: ['tail'] },
  { words: ['wc'] },
  { words: ['grep'] },
  { words: ['rg'], refusedLong: ['pre', 'pre-glob', 'hostname-bin'] },
  { words: ['find'], refusedWords: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'] },
  { words: ['pwd'] },
  { words: ['echo'] },
];

/** Built-in tools that only read inside the workspace: `A` offers the whole tool for them. */
export const READ_ONLY_TOOLS: readonly string[] = ['read_file', 'list_files', 'git_status', 'git_diff'];

/** The list entry named by exactly these words (`['git', 'diff']`), or `null`. */
export function readOnlyCommand(words: readonly string[]): ReadOnlyCommand | null {
  return READ_ONLY_COMMANDS.find((entry) => entry.words.length === words.length && entry.words.every((w, i) => w === words[i])) ?? null;
}

/** The entry a command's literal words start with (`git diff src/a.ts` is `git diff`), or `null`. */
export function readOnlyCommandOf(words: readonly string[]): ReadOnlyCommand | null {
  return READ_ONLY_COMMANDS.find((entry) => entry.words.length <= words.length && entry.words.every((w, i) => w === words[i])) ?? null;
}

/**
 * The first word of `words` (a whole command that starts with `entry.words`) that the
 * entry refuses, or `null`. Every later word is looked at, also after `--`: a refused
 * option is refused wherever it stands.
 */
export function refusedWord(entry: ReadOnlyCommand, words: readonly string[]): string | null {
  for (const word of words.slice(entry.words.length)) {
    if (entry.refusedWords?.includes(word)) return word;
    if (entry.refusedLong && word.startsWith('--')) {
      const name = word.slice(2).split('=')[0]!;
      if (name !== '' && entry.refusedLong.some((long) => long.startsWith(name))) return word;
    }
  }
  return null;
}

/** How the prompt and docs describe what a `shell-read-only:` rule for `entry` allows. */
export function readOnlyMeaning(entry: ReadOnlyCommand): string {
  const refused = [...(entry.refusedLong ?? []).map((name) => `--${name}`), ...(entry.refusedWords ?? [])];
  return `${entry.words.join(' ')} with any arguments${refused.length > 0 ? ` except ${refused.join(', ')}` : ''}`;
}
