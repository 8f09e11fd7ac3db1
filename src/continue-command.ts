import { realpathSync } from 'node:fs';
import path from 'node:path';
import { printedShellWord } from './text/shell-quote.js';
import { sanitize } from './text/sanitize.js';

/**
 * loopdeck as it was started now, as a command the user can run as is from the current
 * folder: `npx loopdeck` when `npx` started it (its environment says `npm_command=exec`),
 * as inside the checkout after `npm install`; `loopdeck` when run by that name from a
 * folder on PATH (`npm link`, a global install); the path of the `loopdeck` link itself when it
 * was run by its path; else `node <script>` (`npm start` runs `node dist/cli.js`). Paths are
 * relative to the folder the user is in when that is shorter ({@link shortPath}).
 */
export function selfCommand(env: NodeJS.ProcessEnv = process.env): string {
  const script = process.argv[1] ?? '';
  if (path.basename(script) !== 'loopdeck') return `node ${shortPath(script)}`;
  // npx puts node_modules/.bin on the PATH it gives loopdeck, not on the user's.
  if (env.npm_command === 'exec') return 'npx loopdeck';
  if (onPath(script, env.PATH ?? '')) return 'loopdeck';
  return shortPath(script);
}

/** True when the first `loopdeck` found on `searchPath` is the very file `script` (links followed). */
function onPath(script: string, searchPath: string): boolean {
  const target = realOrNull(script);
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const found = realOrNull(path.join(dir, 'loopdeck'));
    if (found !== null) return found === target;
  }
  return false;
}

/** The real path of `file`, or `null` when there is none (missing, a broken link, unreadable). */
function realOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

/**
 * `file` as a shell word: its path relative to the user's folder ({@link userFolder}) when that is shorter,
 * else its absolute path, quoted when needed, and `./`-prefixed when it starts with `-` (so
 * a printed command is copyable as is, never read as an option). A path with a newline or
 * another control character is written `$'…'` with it escaped ({@link printedShellWord}),
 * so the command stays on one line.
 */
export function shortPath(file: string): string {
  const absolute = path.resolve(file);
  const relative = path.relative(userFolder(), absolute) || '.';
  const shown = relative.length < absolute.length ? relative : absolute;
  return printedShellWord(shown.startsWith('-') ? `./${shown}` : shown);
}

/**
 * The folder the user typed the command in: where a printed command is run. That is the
 * current folder, except under an npm script (`npm start`), which npm runs in its package's
 * folder (`npm_package_json`) while the user's shell stays where it was (`INIT_CWD`). A
 * process started in another folder by such a script (a test runner's child) inherits those
 * variables, and is not one npm started: its own folder stands.
 */
export function userFolder(env: NodeJS.ProcessEnv = process.env): string {
  const cwd = process.cwd();
  const underScript = env.npm_lifecycle_event !== undefined && env.INIT_CWD && env.npm_package_json && path.dirname(path.resolve(env.npm_package_json)) === cwd;
  return underScript ? path.resolve(env.INIT_CWD!) : cwd;
}

/** The command that attaches a console to the headless run of `runDir`, as it runs where printed (`npx loopdeck attach '…'`). */
export function attachCommand(runDir: string): string {
  return `${selfCommand()} attach ${shortPath(runDir)}`;
}

/** The command that continues the run of `runDir`, to print alone on its own line. */
export function continueCommand(runDir: string): string {
  return `${selfCommand()} resume ${shortPath(runDir)}`;
}

/**
 * Where a run's files are, as every exit message says it (the console's and a headless
 * run's alike), one line of loopdeck's own on stderr: `loopdeck: log <file>; workspace
 * <folder>`, each a shell word usable as printed (`replay` the log, `cd` to the workspace):
 * the log as {@link shortPath} gives it, the workspace by its absolute path, quoted when
 * needed ({@link printedShellWord}).
 */
export function whereLine(logFile: string, workspace: string): string {
  return `loopdeck: log ${shortPath(logFile)}; workspace ${printedShellWord(path.resolve(workspace))}`;
}

/**
 * The line an exit message adds after an abort: how to get the workspace's changes back
 * (the abort's own restore instruction, from the log), so it is printed where the run ends
 * and not only in the console; `''` when the run was not aborted.
 */
export function restoreNote(abort: { restore: string } | null): string {
  return abort ? `\n${sanitize(abort.restore, { oneLine: true })}` : '';
}

/**
 * The line an exit message adds after a run that ended `failed` (the agent could not go
 * on): unlike an abort, nothing was parked and no failure report written; `''` for any
 * other end.
 */
export function failedNote(reason: string): string {
  return reason === 'failed' ? '\nloopdeck: nothing was stashed and no failure report written: the workspace is as the agent left it' : '';
}
