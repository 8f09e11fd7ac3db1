/**
 * The acceptance matrix (docs/design.md, "The acceptance matrix"): one row per success
 * criterion of the goal, each with a status the harness derives from the criterion's own
 * check, never from what the agent says.
 *
 * A criterion is a text (not checkable: shown, never blocks the goal) or a text with a
 * check: a shell command run in the workspace (`expect_exit`, default 0, is a pass), or an
 * observed signal compared with a target (`observed.tests.failing <= 0`), read from what the
 * observers measured. Statuses:
 *
 * - `PENDING`: not checked yet, or checked, not met, and no sign of movement;
 * - `IN_PROGRESS`: checked and not met, but its signal is closer to the target than at its
 *   first measurement, or it was `DONE` at an earlier check (it regressed);
 * - `DONE`: the check passes now;
 * - `BLOCKED`: the check could not run (the command was not found or not executable, could
 *   not start, timed out or was killed; the signal was not measured). A missing number is
 *   not zero: a blocked row is never met.
 *
 * The criteria are frozen when the run starts (`session.start`) and change only through
 * the operator's `/goal` revisions (`goal.revised`), so the agent cannot add, drop or reword
 * them. This module is pure except {@link measureCriteria} (runs commands) and
 * {@link writeAcceptanceFile} (writes the file).
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { toJson } from '../text/json.js';
import { escapedNote, runShell } from './process.js';
import type { ObservedMetrics, ReportedClaimsView } from './types.js';

/** How a signal's value is compared with its target. */
export type CriterionOp = '==' | '>=' | '<=';

/** The check of a criterion, as the policy holds it (`timeout` in seconds). */
export type CriterionCheck =
  | { command: string; timeout: number; expect_exit: number }
  | { signal: string; target: number; op: CriterionOp };

/** A criterion as loop.yaml gives it: a text, or a text with a check. */
export type CriterionSpec = string | { text: string; check?: CriterionCheck };

/** A row of the frozen matrix: the criterion's text and its check, if any. */
export interface AcceptanceCriterion {
  text: string;
  check?: CriterionCheck;
}

/** A row's status; `NOT_CHECKABLE` for a criterion without a check. */
export type AcceptanceStatus = 'PENDING' | 'IN_PROGRESS' | 'DONE' | 'BLOCKED' | 'NOT_CHECKABLE';

/** What a check measured: the command and its exit code, or the signal's value against its target. */
export type AcceptanceEvidence =
  | { kind: 'command'; command: string; expect_exit: number; exit_code: number | null; output?: string }
  | { kind: 'signal'; signal: string; op: CriterionOp; target: number; value: number | null };

/** A row as checked: its status, the evidence, why (for `BLOCKED` and `IN_PROGRESS`), and the agent's claim about it, shown as reported. */
export interface AcceptanceRow {
  index: number;
  text: string;
  status: AcceptanceStatus;
  evidence?: AcceptanceEvidence;
  why?: string;
  /** The agent's latest claim naming this criterion (`claim (evidence_ref)`): shown as reported, never a status. */
  reported?: string;
}

/** What earlier checks of a row left for the next: whether it was met, and its first measured value. */
export interface RowHistory {
  done_before: boolean;
  first: number | null;
}

/** A measurement of one checkable row before its status is derived. */
export interface Measurement {
  index: number;
  evidence: AcceptanceEvidence;
  /** Set when the check could not run: the row is `BLOCKED`. */
  blocked?: string;
}

/** Default seconds a criterion's command may run. */
export const DEFAULT_CRITERION_TIMEOUT = 120;

/** File name of the matrix inside a run directory. */
export const ACCEPTANCE_FILE = 'acceptance.json';

/** The text of a criterion, whichever form it has. */
export function criterionText(spec: CriterionSpec): string {
  return typeof spec === 'string' ? spec : spec.text;
}

/** Whether any row of the matrix has a check. */
export function hasCheckable(criteria: readonly AcceptanceCriterion[]): boolean {
  return criteria.some((c) => c.check !== undefined);
}

/**
 * The matrix frozen at start: the goal's criteria in order, each with the check the policy
 * gives the criterion of the same text (each policy entry used once), so a goal built by
 * the caller keeps the checks of the criteria it took from the policy.
 */
export function freezeMatrix(goalCriteria: readonly string[], specs: readonly CriterionSpec[]): AcceptanceCriterion[] {
  const unused = specs.filter((s): s is Exclude<CriterionSpec, string> => typeof s !== 'string' && s.check !== undefined);
  return goalCriteria.map((text) => {
    const at = unused.findIndex((s) => s.text === text);
    if (at < 0) return { text };
    const [spec] = unused.splice(at, 1);
    return { text, check: spec!.check! };
  });
}

/** How far `value` is from meeting `op target` (0 when met). */
function distance(value: number, op: CriterionOp, target: number): number {
  if (op === '>=') return Math.max(0, target - value);
  if (op === '<=') return Math.max(0, value - target);
  return Math.abs(value - target);
}

/** Whether a measured row passes its check. */
function passes(evidence: AcceptanceEvidence): boolean {
  if (evidence.kind === 'command') return evidence.exit_code === evidence.expect_exit;
  return evidence.value !== null && distance(evidence.value, evidence.op, evidence.target) === 0;
}

/** The latest claim of the agent naming criterion `index` (its text, case-insensitively, or `criterion <n>`). */
export function reportedFor(index: number, text: string, report: ReportedClaimsView | undefined): string | undefined {
  const wanted = text.trim().toLowerCase();
  const byNumber = new RegExp(`\\bcriterion\\s*#?${index + 1}\\b`, 'i');
  const hit = [...(report?.new_evidence ?? [])].reverse().find((e) => byNumber.test(e.claim) || (wanted !== '' && e.claim.toLowerCase().includes(wanted)));
  return hit ? `${hit.claim} (${hit.evidence_ref})` : undefined;
}

/**
 * The status of one measured row: `BLOCKED` when its check could not run, `DONE` when it
 * passes, `IN_PROGRESS` when it moved toward its target since its first measurement or was
 * met before, else `PENDING`. Pure.
 */
export function rowStatus(m: Measurement, history: RowHistory | undefined): { status: AcceptanceStatus; why?: string } {
  if (m.blocked !== undefined) return { status: 'BLOCKED', why: m.blocked };
  if (passes(m.evidence)) return { status: 'DONE' };
  if (history?.done_before) return { status: 'IN_PROGRESS', why: 'met at an earlier check, not now' };
  const e = m.evidence;
  if (e.kind === 'signal' && e.value !== null && history?.first != null && distance(e.value, e.op, e.target) < distance(history.first, e.op, e.target)) {
    return { status: 'IN_PROGRESS', why: `moved toward the target: ${history.first} at the first check, ${e.value} now` };
  }
  return { status: 'PENDING', why: 'checked: not met' };
}

/**
 * The rows of the matrix from this check's measurements. A row without a check is
 * `NOT_CHECKABLE`; a checkable row without a measurement keeps its last row (or `PENDING`).
 * The agent's claims only fill `reported`. Pure.
 */
export function deriveRows(
  criteria: readonly AcceptanceCriterion[],
  measurements: readonly Measurement[],
  previous: readonly AcceptanceRow[],
  history: Readonly<Record<number, RowHistory>>,
  report?: ReportedClaimsView,
): AcceptanceRow[] {
  return criteria.map((c, index) => {
    const claim = reportedFor(index, c.text, report) ?? previous.find((r) => r.index === index && r.text === c.text)?.reported;
    const reported = claim !== undefined ? { reported: claim } : {};
    if (!c.check) return { index, text: c.text, status: 'NOT_CHECKABLE', ...reported };
    const m = measurements.find((x) => x.index === index);
    if (!m) {
      const last = previous.find((r) => r.index === index && r.text === c.text);
      return last ? { ...last, ...reported } : { index, text: c.text, status: 'PENDING', why: 'not checked yet', ...reported };
    }
    const { status, why } = rowStatus(m, history[index]);
    return { index, text: c.text, status, evidence: m.evidence, ...(why !== undefined ? { why } : {}), ...reported };
  });
}

/** The rows that keep the goal from being met: checkable rows not `DONE`. */
export function notDone(rows: readonly AcceptanceRow[]): AcceptanceRow[] {
  return rows.filter((r) => r.status !== 'DONE' && r.status !== 'NOT_CHECKABLE');
}

/** What earlier checks leave for the next one: met at some check, the first measured value. */
export function advanceHistory(history: Readonly<Record<number, RowHistory>>, rows: readonly AcceptanceRow[]): Record<number, RowHistory> {
  const next: Record<number, RowHistory> = { ...history };
  for (const row of rows) {
    if (!row.evidence) continue;
    const was = next[row.index] ?? { done_before: false, first: null };
    const value = row.evidence.kind === 'signal' ? row.evidence.value : null;
    next[row.index] = { done_before: was.done_before || row.status === 'DONE', first: was.first ?? value };
  }
  return next;
}

/** One line per row: status, text, evidence. For the agent's notes and the console. */
export function describeEvidence(e: AcceptanceEvidence): string {
  if (e.kind === 'command') return `${e.command} → ${e.exit_code === null ? 'no exit code' : `exit ${e.exit_code}`}${e.expect_exit !== 0 ? ` (want ${e.expect_exit})` : ''}`;
  return `${e.signal} = ${e.value === null ? 'not measured' : e.value} (target ${e.op} ${e.target})`;
}

/** One line naming a row that is not done, for the agent: `#2 "text": BLOCKED (why)`. */
export function describeRow(r: AcceptanceRow): string {
  const evidence = r.evidence ? `; ${describeEvidence(r.evidence)}` : '';
  return `#${r.index + 1} "${r.text}": ${r.status}${r.why ? ` (${r.why})` : ''}${evidence}`;
}

/** A command check's measurement: exit `expect_exit` passes; a command that cannot run is `blocked`. */
async function measureCommand(index: number, check: Extract<CriterionCheck, { command: string }>, workspace: string, signal?: AbortSignal): Promise<Measurement> {
  const { command, timeout, expect_exit } = check;
  const result = await runShell(command, { cwd: workspace, timeoutSeconds: timeout, outputLimitBytes: 2048, ...(signal ? { signal } : {}) });
  const output = [escapedNote(result.escaped), result.output.trim()].filter((t) => t !== '').join('\n').slice(-500);
  const evidence: AcceptanceEvidence = { kind: 'command', command, expect_exit, exit_code: result.exit_code, ...(output ? { output } : {}) };
  if (result.spawn_error) return { index, evidence, blocked: `could not start: ${result.spawn_error}` };
  if (result.killed === 'timeout') return { index, evidence, blocked: `timed out after ${timeout}s` };
  if (result.killed) return { index, evidence, blocked: `killed: the run was ${result.killed === 'quit' ? 'quit' : result.killed === 'abort' ? 'aborted' : 'out of wall-clock budget'}` };
  if (result.exit_code === null) return { index, evidence, blocked: 'ended without an exit code' };
  // sh's own codes: 127 the program was not found, 126 it could not be executed.
  if (result.exit_code === 127) return { index, evidence, blocked: 'command not found (exit 127)' };
  if (result.exit_code === 126) return { index, evidence, blocked: 'command not executable (exit 126)' };
  return { index, evidence };
}

/** A signal check's measurement from what the observers measured; a missing value is `blocked` with `unmeasured`'s reason. */
function measureSignal(index: number, check: Extract<CriterionCheck, { signal: string }>, metrics: ObservedMetrics | undefined, unmeasured: Readonly<Record<string, string>>): Measurement {
  const metric = check.signal.replace(/^observed\./, '');
  const raw = metrics?.[metric];
  const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
  const evidence: AcceptanceEvidence = { kind: 'signal', signal: check.signal, op: check.op, target: check.target, value };
  if (value !== null) return { index, evidence };
  return { index, evidence, blocked: `not measured: ${unmeasured[check.signal] ?? (metrics ? 'no observer reported it' : 'no observation at this check')}` };
}

/** What {@link measureCriteria} reads besides the matrix. */
export interface MeasureInput {
  workspace: string;
  /** The observers' metrics at this check (`tests.failing` → 3, `null` when missing). */
  metrics?: ObservedMetrics;
  /** Why each unmeasured `observed.*` signal is missing. */
  unmeasured?: Readonly<Record<string, string>>;
  /** Kills a running command check when the run is stopped. */
  signal?: AbortSignal;
}

/** Runs every check of the matrix, in order (commands one after another). Rows without a check give none. */
export async function measureCriteria(criteria: readonly AcceptanceCriterion[], input: MeasureInput): Promise<Measurement[]> {
  const out: Measurement[] = [];
  for (const [index, c] of criteria.entries()) {
    if (!c.check) continue;
    if ('command' in c.check) out.push(await measureCommand(index, c.check, input.workspace, input.signal));
    else out.push(measureSignal(index, c.check, input.metrics, input.unmeasured ?? {}));
  }
  return out;
}

/** The `acceptance.json` document: the matrix as of one check. */
export interface AcceptanceDocument {
  session: string;
  iteration: number;
  trigger: 'checkpoint' | 'verify';
  /** The goal's revision the matrix belongs to. */
  revision: number;
  /** Whether every checkable row is `DONE` (the verifier must pass as well for the goal to be met). */
  met: boolean;
  rows: AcceptanceRow[];
}

/**
 * Writes `<runDir>/acceptance.json`: to a temporary file, then renamed, so a reader never
 * sees half a matrix.
 * @returns the file's absolute path
 * @throws the file system's error when the folder or file cannot be written
 */
export async function writeAcceptanceFile(runDir: string, doc: AcceptanceDocument): Promise<string> {
  await mkdir(runDir, { recursive: true });
  const file = path.resolve(runDir, ACCEPTANCE_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // Escaped like every JSON loopdeck writes: rows quote the agent and command output.
    await writeFile(temp, `${toJson(doc, 2)}\n`, 'utf8');
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined); // the write's failure is the one to report
    throw error;
  }
  return file;
}
