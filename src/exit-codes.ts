import { LoopdeckError } from './engine/errors.js';
import type { LoopOutcome } from './engine/session.js';

/**
 * Every exit code of the command line, decided here and nowhere else (docs/design.md,
 * "Command line and exit codes"). Every quit exits 130, whatever asked for it (`q`, Ctrl+C,
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT): a script sees one code for "stopped where it was, resumable",
 * and the message on stderr names the signal.
 */
export const EXIT = {
  /** The verifier passed: the goal is met. */
  goalMet: 0,
  /** Usage or configuration error, or a crash. */
  usage: 1,
  /** The run ended without meeting the goal: stopped, exhausted, aborted (the circuit breaker), failed (the agent could not go on), no plan. */
  notMet: 2,
  /**
   * A command that removes files was not confirmed: no terminal to ask on and no `--yes`
   * (`loopdeck runs --prune`). Nothing was changed.
   */
  unconfirmed: 2,
  /** Quit (the console's `q`, SIGINT, SIGTERM, SIGHUP, SIGQUIT): the log is kept and the run resumable. */
  interrupted: 130,
} as const;

/** One of {@link EXIT}'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An error the command line reports as `loopdeck: <message>` and exits with `exitCode`.
 * Thrown by the commands instead of exiting on the spot, so that the one place that
 * catches errors (cli.tsx) prints and exits.
 */
export class CliError extends LoopdeckError {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Exit code of a run: 0 goal met, 2 ended without meeting it, 130 when the console quit before it ended (`null`). */
export function exitCodeOfRun(outcome: Pick<LoopOutcome, 'reason'> | null): ExitCode {
  if (outcome === null) return EXIT.interrupted;
  return outcome.reason === 'goal_met' ? EXIT.goalMet : EXIT.notMet;
}

/**
 * Exit code for an error that reached the top: its own code when it carries one
 * ({@link CliError}), 1 for any other loopdeck error (configuration, log, resume) and for a crash.
 */
export function exitCodeOfError(error: unknown): ExitCode {
  return error instanceof CliError ? error.exitCode : EXIT.usage;
}
