import path from 'node:path';
import { shellQuote } from './engine/abort.js';
import { sanitize } from './text/sanitize.js';

/**
 * loopdeck as it was started now, for a command to copy: `loopdeck` when run by that name
 * (installed on PATH), else `node <script>` relative to the current folder (`npm start`
 * runs `node dist/cli.js`).
 */
export function selfCommand(): string {
  const script = process.argv[1] ?? '';
  return path.basename(script) === 'loopdeck' ? 'loopdeck' : `node ${shortPath(script)}`;
}

/**
 * `file` as a shell word: its path relative to the current folder when that is shorter,
 * else its absolute path, quoted when needed (so a printed command is copyable as is).
 */
export function shortPath(file: string): string {
  const absolute = path.resolve(file);
  const relative = path.relative(process.cwd(), absolute) || '.';
  return shellQuote(relative.length < absolute.length ? relative : absolute);
}

/** The command that continues the run of `runDir`, to print alone on its own line. */
export function continueCommand(runDir: string): string {
  return `${selfCommand()} resume ${shortPath(runDir)}`;
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
