// `loopdeck <args>` in this process, for tests whose subject is what a command decides and
// prints (init's detection, validate's and the loader's errors), not the process around it:
// the command line of src/program.ts, run from the folder `cwd` with process.argv[1] the
// built CLI's path (so the commands it prints, relative to the current folder, read as
// `node dist/cli.js` prints them), what it writes to stdout and stderr, and the exit code and
// `loopdeck: <message>` that cli.tsx gives an error. Each command keeps spawned tests of
// the built CLI too: its startup, exit and the streams of a real process.
//
// The current folder, argv, the streams and the environment are this process's own: while a
// call runs nothing else may depend on them, so calls are awaited one at a time (tests of a
// file run one after another).
import path from 'node:path';
import { buildProgram } from '../../src/program.js';
import { LoopdeckError } from '../../src/engine/errors.js';
import { exitCodeOfError } from '../../src/exit-codes.js';
import { sanitize } from '../../src/text/sanitize.js';

export const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');

export interface InProcessResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** process.exit called by the command line (commander's usage errors): the code, instead of the exit. */
class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

let running = false;

/**
 * Runs `loopdeck <args>` in `cwd` in this process and returns its exit code, stdout and
 * stderr as `node dist/cli.js <args>` would give them (without their last newline, as
 * execa returns them). `env` sets variables for the call (`undefined` removes one). A crash
 * (an error that is not loopdeck's) is thrown, not turned into an exit code.
 */
export async function loopdeckInProcess(args: readonly string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<InProcessResult> {
  if (running) throw new Error('loopdeckInProcess: one call at a time (it sets the current folder and the streams)');
  running = true;
  const saved = { cwd: process.cwd(), argv1: process.argv[1], exitCode: process.exitCode, exit: process.exit, out: process.stdout.write, err: process.stderr.write };
  const savedEnv = Object.fromEntries(Object.keys(options.env ?? {}).map((key) => [key, process.env[key]]));
  let stdout = '';
  let stderr = '';
  const capture = (append: (text: string) => void) =>
    ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') (done as () => void)();
      return true;
    }) as typeof process.stdout.write;
  let exitCode = 0;
  try {
    for (const [key, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    process.chdir(options.cwd);
    process.argv[1] = CLI;
    process.exitCode = undefined;
    process.exit = ((code?: number) => {
      throw new ExitCalled(code ?? 0);
    }) as typeof process.exit;
    process.stdout.write = capture((text) => (stdout += text));
    process.stderr.write = capture((text) => (stderr += text));
    try {
      await buildProgram().parseAsync(['node', CLI, ...args]);
      exitCode = typeof process.exitCode === 'number' ? process.exitCode : 0;
    } catch (error) {
      if (error instanceof ExitCalled) exitCode = error.code;
      else if (error instanceof LoopdeckError) {
        // As cli.tsx prints it.
        stderr += `${sanitize(`loopdeck: ${error.message}`)}\n`;
        exitCode = exitCodeOfError(error);
      } else throw error;
    }
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.exit = saved.exit;
    process.exitCode = saved.exitCode;
    process.argv[1] = saved.argv1!;
    process.chdir(saved.cwd);
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    running = false;
  }
  return { exitCode, stdout: stdout.replace(/\n$/, ''), stderr: stderr.replace(/\n$/, '') };
}
