import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where `program` runs from, as a shell finds it: a name with a `/` resolved against
 * `baseDir`, any other looked for in each folder of `PATH` in turn; the first executable
 * regular file, or `null` when there is none. Never throws.
 */
export function findProgram(program: string, baseDir: string): string | null {
  const candidates = program.includes('/')
    ? [path.resolve(baseDir, program)]
    : (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one: try the next candidate
    }
  }
  return null;
}
