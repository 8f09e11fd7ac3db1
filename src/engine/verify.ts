import type { VerifyCommandResult } from './events.js';
import { escapedNote, runShell } from './process.js';

/** One `verify` entry of loop.yaml. `timeout` is in seconds. */
export interface VerifySpec {
  command: string;
  timeout: number;
}

/**
 * Runs every verify command in the workspace (docs/design.md, "Ending a run"): the goal is met
 * only when all of them exit 0 by themselves. Each command's output is kept as a bounded
 * tail, after a line saying why loopdeck killed it and which escaped processes it killed.
 */
export async function runVerify(specs: readonly VerifySpec[], cwd: string, signal?: AbortSignal): Promise<{ passed: boolean; commands: VerifyCommandResult[] }> {
  const commands: VerifyCommandResult[] = [];
  for (const spec of specs) {
    const result = await runShell(spec.command, { cwd, timeoutSeconds: spec.timeout, outputLimitBytes: 8 * 1024, signal });
    const passed = result.exit_code === 0 && !result.killed;
    const killed = result.killed === 'timeout' ? `timed out after ${spec.timeout}s` : result.killed ? `killed: the run was ${result.killed === 'quit' ? 'quit' : 'aborted'}` : '';
    const why = [result.spawn_error ?? killed, escapedNote(result.escaped)].filter((w) => w !== '').join('\n');
    commands.push({ command: spec.command, exit_code: result.exit_code, passed, output: why ? `${why}\n${result.output}` : result.output });
  }
  return { passed: specs.length > 0 && commands.every((c) => c.passed), commands };
}
