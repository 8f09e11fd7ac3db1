#!/usr/bin/env node
// React's development build is several times slower and keeps profiling entries: the CLI
// runs the production build unless told otherwise. Set before anything imports React.
process.env.NODE_ENV ??= 'production';
import { once } from 'node:events';
import { LoopdeckError } from './engine/errors.js';
import { redactWrites } from './engine/redact.js';
import { hideSecretEnv } from './engine/secrets.js';
import { EXIT, exitCodeOfError } from './exit-codes.js';
import { buildProgram } from './program.js';
import { guardConsole, printError } from './text/print.js';
import { eraseOutline } from './ui/outline.js';

// Secrets stay in memory only: out of process.env and /proc/<pid>/environ, which the tools
// and hooks this process starts could read; and out of everything printed.
const hidden = hideSecretEnv();
redactWrites(process.stdout);
redactWrites(process.stderr);
if (hidden.problem && process.platform === 'linux') {
  process.stderr.write(`loopdeck: warning: could not clear ${hidden.hidden.join(', ')} from /proc/${process.pid}/environ (${hidden.problem}); processes of your user can read them there\n`);
}

guardConsole();

// A reader that went away (`loopdeck runs | head -1`) ends a command that prints quietly,
// with its exit code so far, as `cat` or `git log` would end; commands that stream (headless
// `run`, `watch`) listen themselves and stop their run or watch first.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (process.stdout.listenerCount('error') > 1) return;
  if (error.code !== 'EPIPE') crash(error);
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.goalMet);
});

/** A crash, printed sanitized (its message may quote an agent, a tool or a server), then exit 1. */
function crash(error: unknown): never {
  eraseOutline();
  printError(`loopdeck: crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(EXIT.usage);
}

// Node would print an uncaught error raw. While the console is up it has its own handlers
// (they restore the terminal first), and this one stands back.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (error: unknown) => {
    if (process.listenerCount(event) > 1) return;
    crash(error);
  });
}


try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  // An error before the console took the screen over: the outline goes, the error shows.
  eraseOutline();
  if (error instanceof LoopdeckError) {
    printError(`loopdeck: ${error.message}`);
    // A long message (every error of a garbled config) to a pipe is still buffered here:
    // exiting now would cut it, so wait until the pipe has taken all of it.
    if (process.stderr.writableNeedDrain) await once(process.stderr, 'drain');
    process.exit(exitCodeOfError(error));
  }
  crash(error);
}
