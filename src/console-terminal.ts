/**
 * Whether loopdeck may draw its console here: a terminal on stdin and stdout, and one that
 * can draw (not `TERM=dumb`, as an editor's shell buffer or a serial console sets it: such a
 * terminal cannot move the cursor, so every frame would be printed below the last one).
 * Where it may not, `run`, `resume`, `replay`, `watch` and `attach` work headless.
 */
export function consoleTerminal(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.stdout.isTTY === true && process.stdin.isTTY === true && env.TERM !== 'dumb';
}

/** Why {@link consoleTerminal} is false, in words: `no terminal on stdin/stdout`, or `TERM=dumb: this terminal cannot draw the console`. */
export function noConsoleReason(): string {
  return process.stdout.isTTY === true && process.stdin.isTTY === true ? 'TERM=dumb: this terminal cannot draw the console' : 'no terminal on stdin/stdout';
}
