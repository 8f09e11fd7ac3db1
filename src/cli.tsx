#!/usr/bin/env node
// React's development build is several times slower and keeps profiling entries: the CLI
// runs the production build unless told otherwise. Set before anything imports React.
process.env.NODE_ENV ??= 'production';
import { LoopdeckError } from './engine/errors.js';
import { buildProgram, EXIT } from './program.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof LoopdeckError) {
    process.stderr.write(`loopdeck: ${error.message}\n`);
    process.exit(EXIT.usage);
  }
  throw error;
}
