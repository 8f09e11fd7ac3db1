#!/usr/bin/env node
// React's development build is several times slower and keeps profiling entries: the CLI
// runs the production build unless told otherwise. Set before anything imports React.
process.env.NODE_ENV ??= 'production';
import { LoopdeckError } from './engine/errors.js';
import { buildProgram, EXIT } from './program.js';
import { guardConsole, printError } from './text/print.js';

guardConsole();

/** A crash, printed sanitized (its message may quote an agent, a tool or a server), then exit 1. */
function crash(error: unknown): never {
  printError(`loopdeck: crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
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
  if (error instanceof LoopdeckError) {
    printError(`loopdeck: ${error.message}`);
    process.exit(EXIT.usage);
  }
  crash(error);
}
