import type { BudgetDimension } from './types.js';
import { BUDGET_COMMAND_NAMES, BUDGET_DIMENSIONS } from './types.js';
import type { DoneReason } from './machine.js';

/**
 * Why a run paused, as a value. The log keeps the text form of {@link pauseReasonText}
 * (`budget_exceeded:<dimension>`, `stagnation`, ...) so old logs fold unchanged; the fold
 * decodes it once ({@link parsePauseReason}) and nothing else reads the text.
 */
export type PauseReason =
  /** A budget limit was reached at the start of a step. */
  | { kind: 'budget_exceeded'; dimension: BudgetDimension }
  /** `stagnation.on_detect: pause` after a checkpoint at or above the threshold. */
  | { kind: 'stagnation' }
  /** `repetition.on_detect: pause` before a repeated call is dispatched. */
  | { kind: 'repetition' }
  /** `goal.on_violation: pause` after a checkpoint found a checked constraint violated. */
  | { kind: 'constraint' }
  /** The operator asked to pause (the console's first Ctrl+C). */
  | { kind: 'operator' }
  /** A hook's `pause` decision (`before_step`, `after_plan`). */
  | { kind: 'hook' };

export type PauseKind = PauseReason['kind'];

/** One entry per pause kind: a kind added to {@link PauseReason} and not here fails to typecheck. */
const PAUSE_KIND_TABLE = { budget_exceeded: true, stagnation: true, repetition: true, operator: true, hook: true, constraint: true } as const satisfies Record<PauseKind, true>;

/** Every pause kind, for exhaustive tables (tests/engine/decide.test.ts checks each is a row). */
export const PAUSE_KINDS: readonly PauseKind[] = Object.keys(PAUSE_KIND_TABLE) as PauseKind[];

/** The text a `session.pause` event carries for `reason`. */
export function pauseReasonText(reason: PauseReason): string {
  return reason.kind === 'budget_exceeded' ? `budget_exceeded:${reason.dimension}` : reason.kind;
}

/**
 * The `reason` text of a `session.pause` event as the operator reads it (timeline rows,
 * summaries, headless lines): a budget's dimension named as `/budget` and loop.yaml's
 * limits name it (`budget_exceeded:wall_clock`, not the log's `wall_clock_seconds`); any
 * other reason as written.
 */
export function pauseReasonLabel(text: string): string {
  const reason = parsePauseReason(text);
  return reason.kind === 'budget_exceeded' ? `budget_exceeded:${BUDGET_COMMAND_NAMES[reason.dimension]}` : text;
}

/**
 * Decodes the `reason` text of a `session.pause` event. Text no version wrote (a log edited
 * by hand) reads as a hook's pause: a pause the operator answers, with no budget to raise.
 */
export function parsePauseReason(text: string): PauseReason {
  const [kind, dimension] = text.split(':', 2);
  if (kind === 'budget_exceeded') {
    const found = BUDGET_DIMENSIONS.find((d) => d === dimension);
    if (found) return { kind: 'budget_exceeded', dimension: found };
  }
  if (kind === 'stagnation' || kind === 'repetition' || kind === 'operator' || kind === 'constraint') return { kind };
  return { kind: 'hook' };
}

/** The limit that ended a run `exhausted` (or, for `max_consecutive_failures`, `aborted`). */
export type FinishLimit = 'max_laps' | 'replan_cap' | 'max_attempts' | 'max_consecutive_failures';

/** One entry per limit: a limit added to {@link FinishLimit} and not here fails to typecheck. */
const FINISH_LIMIT_TABLE = { max_laps: true, replan_cap: true, max_attempts: true, max_consecutive_failures: true } as const satisfies Record<FinishLimit, true>;

/** Every limit a run can end at, for exhaustive tables. The done reasons are `DONE_REASONS` (machine.ts). */
export const FINISH_LIMITS: readonly FinishLimit[] = Object.keys(FINISH_LIMIT_TABLE) as FinishLimit[];

/**
 * How a run ends, as a value: the reason of `session.complete`, a one-line summary, and
 * for some ends the limit reached. `abort` asks the runner to park the workspace and
 * write the failure report before it records the end (always with reason `aborted`).
 */
export interface Finish {
  reason: DoneReason;
  summary: string;
  limit?: FinishLimit;
  abort?: boolean;
}

/** The done reason a pause answered with stop ends in: a spent budget is `exhausted`, any other pause `stopped`. */
export function stopReasonAt(pause: PauseReason): DoneReason {
  return pause.kind === 'budget_exceeded' ? 'exhausted' : 'stopped';
}
