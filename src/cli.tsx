#!/usr/bin/env node
// React's development build is several times slower and keeps profiling entries: the CLI
// runs the production build unless told otherwise. Set before anything imports React.
process.env.NODE_ENV ??= 'production';
import { LoopdeckError } from './engine/errors.js';
import { redactWrites } from './engine/redact.js';
import { hideSecretEnv } from './engine/secrets.js';
import { buildProgram, EXIT } from './program.js';

// Secrets stay in memory only: out of process.env and /proc/<pid>/environ, which the tools
// and hooks this process starts could read; and out of everything printed.
const hidden = hideSecretEnv();
redactWrites(process.stdout);
redactWrites(process.stderr);
if (hidden.problem && process.platform === 'linux') {
  process.stderr.write(`loopdeck: warning: could not clear ${hidden.hidden.join(', ')} from /proc/${process.pid}/environ (${hidden.problem}); processes of your user can read them there\n`);
}

/** Reports an unexpected error of a command and exits 1, as Node would, but through the redacted stderr (Node's own report bypasses it). */
function crash(error: unknown): never {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof LoopdeckError) {
    process.stderr.write(`loopdeck: ${error.message}\n`);
    process.exit(EXIT.usage);
  }
  crash(error);
}
