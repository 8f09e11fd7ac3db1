import { killLiveChildren } from './engine/children.js';
import type { AttachedDesk } from './engine/bridge/attached.js';
import { drive, headlessAnswerer, type Answerer, type HeadlessPolicy } from './engine/drive.js';
import { RunInterrupted } from './engine/errors.js';
import type { LoopOutcome, LoopRun, Session } from './engine/session.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** How a headless run ended: its outcome, or the signal that quit it (`outcome: null`). */
export type HeadlessEnd = { outcome: LoopOutcome } | { outcome: null; signal: NodeJS.Signals; code: ExitCode };

/** `--approve` of `run` and `resume`: how a headless run answers the tool calls its approval rules ask about. */
export type ApproveMode = 'all' | 'none' | 'attached';

/**
 * The line a headless run says first about the tool calls its approval rules ask about,
 * one per `--approve` mode and true for it alone (docs/design.md, "Command line and exit
 * codes"): `all` approves them (a call a restart interrupted is still denied, so a resumed
 * run says so), `none` denies them, `attached` lets `attach` (the command that runs
 * `loopdeck attach <runDir>` as printed, from {@link attachCommand}) answer them up to
 * `approval.timeout` and then denies them.
 */
export function approvalModeLine(approve: ApproveMode, attach: string, resuming: boolean): string {
  switch (approve) {
    case 'all':
      return `--approve all: tool calls the approval rules ask about are approved (deny rules and the built-in guards still deny${resuming ? '; a call a restart interrupted is denied, not run again' : ''})`;
    case 'attached':
      return `--approve attached: tool calls the approval rules ask about wait for \`${attach}\` up to approval.timeout, then are denied (the agent is told)`;
    case 'none':
      return 'with nobody to answer, tool calls the approval rules ask about are denied (the agent is told); --approve all approves them';
  }
}

/** The signals that quit a headless run, each like the console's quit: exit 130, resumable. */
const QUIT_SIGNALS: ReadonlyArray<[NodeJS.Signals, ExitCode]> = [
  ['SIGINT', EXIT.interrupted],
  ['SIGTERM', EXIT.interrupted],
  ['SIGHUP', EXIT.interrupted],
  ['SIGQUIT', EXIT.interrupted],
];

/** Milliseconds a quit run gets to unwind (its tools, model request or verify killed) before loopdeck goes anyway. */
const UNWIND_MS = 5000;

/**
 * Drives `run` to its end with the headless answers, or until SIGINT, SIGTERM, SIGHUP or
 * SIGQUIT quits it (docs/design.md, "Quit and abort"): the run stops where it is (a model request,
 * a tool, a verify or a command agent under way is killed and nothing of it recorded), the
 * log stays resumable, and every child process group still running is killed before this
 * returns. A second signal does not wait for the run to unwind.
 * `answerer` answers the run's prompts (default: by `policy`).
 * @throws whatever the run throws but the quit itself
 */
export async function driveHeadless(run: LoopRun, policy: HeadlessPolicy, answerer: Answerer = headlessAnswerer(policy)): Promise<HeadlessEnd> {
  let quit: { signal: NodeJS.Signals; code: ExitCode } | null = null;
  let hurry!: () => void;
  const hurried = new Promise<null>((resolve) => (hurry = () => resolve(null)));
  // A quit does not wait for an answer still coming (an attached console's): the run is interrupted.
  let abandon!: () => void;
  const abandoned = new Promise<never>((_, reject) => (abandon = () => reject(new RunInterrupted())));
  abandoned.catch(() => undefined);
  const answering: Answerer = (y) => Promise.race([answerer(y), abandoned]);
  const listeners = QUIT_SIGNALS.map(([signal, code]) => {
    const listener = () => {
      if (quit) return hurry();
      quit = { signal, code };
      setTimeout(hurry, UNWIND_MS).unref();
      abandon();
      run.return(undefined as never).catch(() => undefined);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  try {
    const driven = drive(run, answering).catch((error: unknown) => {
      if (error instanceof RunInterrupted) return null;
      throw error;
    });
    const outcome = await Promise.race([driven, hurried]);
    // A run that ended on its own, even just as a signal came: its outcome stands.
    if (outcome !== null) return { outcome };
    // `null` comes only after a signal set `quit`.
    return { outcome: null, ...(quit as unknown as { signal: NodeJS.Signals; code: ExitCode }) };
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener);
    killLiveChildren();
  }
}

/**
 * The answers of `--approve attached` (docs/design.md, "Attached answers"): each tool
 * prompt waits for `loopdeck attach` to answer over the run's socket up to the
 * `approval.timeout` in force, then is denied (as `--approve none` would); pauses are
 * answered by `policy` (`--on-pause`) at once.
 */
export function attachedAnswerer(session: Pick<Session, 'snapshot' | 'policy'>, desk: AttachedDesk, policy: HeadlessPolicy): Answerer {
  const byPolicy = headlessAnswerer({ ...policy, approve: 'none' });
  return desk.answerer({ pendingSeq: () => session.snapshot.pending?.seq ?? null, timeoutSeconds: () => session.policy.approval.timeout }, (y) =>
    y.kind === 'tool' && !y.interrupted ? { decision: 'deny', by: 'policy', note: 'denied by policy (--approve attached denies what no attached console answers)' } : byPolicy(y),
  );
}
