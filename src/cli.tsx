#!/usr/bin/env node
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
