/**
 * The acceptance matrix as the fold keeps it (docs/design.md, "The acceptance matrix"):
 * frozen by `session.start`, changed only by `goal.revised`, its rows replaced by each
 * `acceptance.checked`, and the agent's claims about each criterion (shown as reported)
 * taken from each `checkpoint.recorded`. Replay and resume derive it from the log alone.
 * Pure functions over values: the fold calls them and stores what they return.
 */
import { advanceHistory, reportedFor, type AcceptanceCriterion, type AcceptanceRow, type RowHistory } from './acceptance.js';
import type { ReportedClaimsView } from './types.js';

/** The matrix in the folded state. */
export interface AcceptanceState {
  /** The frozen criteria, in order, with their checks. */
  criteria: AcceptanceCriterion[];
  /** One row per criterion, as last checked (`PENDING` or `NOT_CHECKABLE` before any check). */
  rows: AcceptanceRow[];
  /** What earlier checks left for the next status, by row index. */
  history: Record<number, RowHistory>;
  /** The last check (`seq` of its `acceptance.checked`); `null` before any. */
  checked: { seq: number; iteration: number; trigger: 'checkpoint' | 'verify' } | null;
}

/** An empty matrix (no goal yet). */
export const NO_ACCEPTANCE: AcceptanceState = { criteria: [], rows: [], history: {}, checked: null };

function initialRow(c: AcceptanceCriterion, index: number): AcceptanceRow {
  return c.check ? { index, text: c.text, status: 'PENDING', why: 'not checked yet' } : { index, text: c.text, status: 'NOT_CHECKABLE' };
}

/** The matrix as a run starts: the recorded criteria, or (older logs, text-only goals) the goal's criteria as text. */
export function startAcceptance(recorded: readonly AcceptanceCriterion[] | undefined, goalCriteria: readonly string[]): AcceptanceState {
  const criteria = recorded ? recorded.map((c) => ({ ...c })) : goalCriteria.map((text) => ({ text }));
  return { criteria, rows: criteria.map(initialRow), history: {}, checked: null };
}

function sameCriterion(a: AcceptanceCriterion | undefined, b: AcceptanceCriterion): boolean {
  return a !== undefined && a.text === b.text && JSON.stringify(a.check ?? null) === JSON.stringify(b.check ?? null);
}

/**
 * The matrix after an operator's revision: a row whose criterion is unchanged at its index
 * (same text, same check) keeps its status and history; every other row starts again.
 */
export function reviseAcceptance(state: AcceptanceState, recorded: readonly AcceptanceCriterion[] | undefined, goalCriteria: readonly string[]): AcceptanceState {
  const criteria = recorded ? recorded.map((c) => ({ ...c })) : goalCriteria.map((text) => ({ text }));
  const history: Record<number, RowHistory> = {};
  const rows = criteria.map((c, index) => {
    if (!sameCriterion(state.criteria[index], c)) return initialRow(c, index);
    if (state.history[index]) history[index] = state.history[index]!;
    return state.rows[index] ?? initialRow(c, index);
  });
  return { criteria, rows, history, checked: state.checked };
}

/** The matrix after `acceptance.checked`: its rows, and the history they add. */
export function checkedAcceptance(state: AcceptanceState, rows: readonly AcceptanceRow[], at: NonNullable<AcceptanceState['checked']>): AcceptanceState {
  return { ...state, rows: [...rows], history: advanceHistory(state.history, rows), checked: at };
}

/** The agent's latest claims (a checkpoint's `reported`) about each criterion, shown as reported; statuses unchanged. */
export function reportedAcceptance(state: AcceptanceState, report: ReportedClaimsView): AcceptanceState {
  if (state.rows.length === 0) return state;
  const rows = state.rows.map((r) => {
    const claim = reportedFor(r.index, r.text, report);
    return claim === undefined ? r : { ...r, reported: claim };
  });
  return { ...state, rows };
}
