/**
 * The error tree of loopdeck, split by who is at fault.
 *
 * - {@link ConfigError}: the operator's input (a file, the path in it, what was expected).
 * - {@link InvariantError} and {@link IllegalTransitionError}: loopdeck's own contract was broken.
 * - {@link ToolError}: a tool could not do what was asked.
 * - {@link AgentError}: the agent (model, transcript) misbehaved.
 * - {@link ResumeError}: a malformed or missing `next(payload)` for a yield.
 * - {@link UsageError}: a program using the engine as a library called it wrongly (an unknown
 *   hook topic, ...).
 *
 * Every class sets `name` from `new.target.name`, so logs and tests can tell them apart.
 */
import { oneLineText, shownName } from '../text/sanitize.js';
import { clipText } from './yaml-bounds.js';
import type { TokenUsage } from './types.js';

export class LoopdeckError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Longest `expected` part of a {@link ConfigError}; the rest is cut with its length. */
export const MAX_CONFIG_MESSAGE_CHARS = 1000;

/** Longest YAML path of a {@link ConfigError}. */
const MAX_CONFIG_PATH_CHARS = 200;

/**
 * Bad operator input: names the file, the path inside it and what was expected.
 *
 * `path` is the YAML path (`agent.script`; `''` is the document's root value, shown as
 * `(root)`), or `null` for a problem of the whole file (missing, unreadable, too large): the
 * message then names the file alone. A path longer than 200 characters and an `expected`
 * longer than {@link MAX_CONFIG_MESSAGE_CHARS} are cut (see `clipText`).
 */
export class ConfigError extends LoopdeckError {
  readonly file: string;
  /** The YAML path; `''` for the root value and for a problem of the whole file. */
  readonly path: string;
  readonly expected: string;
  /** `line:column` of the offending node when known. */
  readonly position?: string;

  constructor(file: string, path: string | null, expected: string, position?: string) {
    // Whatever a message quotes from the file, it stays readable: a 100 KB key or value is
    // cut where it is quoted, and this bounds what any message can carry.
    path = path === null ? null : clipText(path, MAX_CONFIG_PATH_CHARS);
    // One error, one line: a tab or newline of a path or name it quotes raw is shown as ^I, ^J.
    expected = clipText(oneLineText(expected), MAX_CONFIG_MESSAGE_CHARS);
    // The file named on one line (`nl^J.yaml`): a name with a newline must not split the error.
    const where = position ? `${shownName(file)}:${position}` : shownName(file);
    super(path === null ? `${where}: ${expected}` : `${where}: ${path || '(root)'}: ${expected}`);
    this.file = file;
    this.path = path ?? '';
    this.expected = expected;
    this.position = position;
  }
}

/**
 * A configuration file that could not be read as text: missing, a folder, unreadable,
 * larger than its limit, or not UTF-8. Its message names the file alone, with the
 * `line:column` where reading stopped when there is one. Commands head such errors
 * `cannot read config` rather than `invalid config`: nothing in the file was judged.
 */
export class UnreadableConfigError extends ConfigError {
  constructor(file: string, expected: string, position?: string) {
    super(file, null, expected, position);
  }
}

/**
 * Several configuration errors found in one pass over a file. The message lists every one of
 * them, one a line (each is bounded by {@link ConfigError}), so fixing a file never needs a
 * second pass to see the errors that were left out; `errors` holds them all.
 */
export class ConfigErrors extends LoopdeckError {
  readonly errors: ConfigError[];
  constructor(errors: ConfigError[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.errors = errors;
  }
}

/** A state change that the transition table does not allow. */
export class IllegalTransitionError extends LoopdeckError {
  readonly from: string;
  readonly to: string;
  readonly seq: number;
  constructor(from: string, to: string, seq: number) {
    super(`illegal transition ${from} -> ${to} at seq ${seq}`);
    this.from = from;
    this.to = to;
    this.seq = seq;
  }
}

/** A call that is not legal in the session's current state (e.g. `run()` twice). */
export class SessionStateError extends LoopdeckError {
  readonly state: string;
  constructor(message: string, state: string) {
    super(`${message} (state ${state})`);
    this.state = state;
  }
}

/** `next(payload)` was called with a payload that does not answer the pending yield. */
export class ResumeError extends LoopdeckError {}

/** Something loopdeck guarantees did not hold (a bug, or a corrupt log). */
export class InvariantError extends LoopdeckError {}

/** A program using the engine as a library called it wrongly: the message says what was expected. */
export class UsageError extends LoopdeckError {}

/** A tool could not run as asked (path outside the workspace, text not found, ...). */
export class ToolError extends LoopdeckError {
  readonly tool: string;
  constructor(tool: string, message: string, options?: ErrorOptions) {
    super(`${tool}: ${message}`, options);
    this.tool = tool;
  }
}

/**
 * The run was quit (the console's `q`, SIGINT, SIGTERM or SIGHUP headless): it stops where
 * it is, writing nothing more, so its log stays resumable. Thrown by the run's event writer
 * once quit, it unwinds whatever the run was doing (a model request, a tool, a verify)
 * and ends the run's generator; `drive` passes it on to its caller, who exits 130.
 */
export class RunInterrupted extends LoopdeckError {
  constructor() {
    super('the run was quit before it ended; the log is kept and `resume` continues it');
  }
}

/** The agent misbehaved: a transcript ran out of turns, a malformed response. */
export class AgentError extends LoopdeckError {
  /** What the failed turn spent (docs/design.md, "Budget"): recorded as `agent.usage`, never lost. */
  spent?: { usage: TokenUsage; unreported: Array<'tokens' | 'cost_usd'> };
}

/** A log file that cannot be read safely: names the line (`file:line: ...`; line 0, the file as a whole: `file: ...`) and the `seq` gap. */
export class LogError extends LoopdeckError {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, message: string) {
    // Line 0: about the file as a whole, named alone.
    // The file named on one line (`nf^J.jsonl`), as a config error names its file.
    super(line > 0 ? `${shownName(file)}:${line}: ${message}` : `${shownName(file)}: ${message}`);
    this.file = file;
    this.line = line;
  }
}

/** Render any thrown value as one line for an event or the console. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
