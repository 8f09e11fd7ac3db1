import type { ReportedClaims, ReportedClaimsView } from './types.js';

/**
 * Adds a later report of the agent to earlier claims. New evidence and eliminated hypotheses
 * accumulate; the remaining hypotheses are the latest claim (the list the agent holds now),
 * so a later report that gives them replaces the earlier list, and one that leaves them out
 * keeps it. One rule for every place that combines reports: several progress reports in one
 * model turn, and the turns gathered between two checkpoints.
 */
function addReport(base: Partial<ReportedClaims>, report: Partial<ReportedClaims>): Partial<ReportedClaims> {
  const merged: Partial<ReportedClaims> = { ...base };
  if (report.new_evidence) merged.new_evidence = [...(base.new_evidence ?? []), ...report.new_evidence];
  if (report.eliminated_hypotheses) merged.eliminated_hypotheses = [...(base.eliminated_hypotheses ?? []), ...report.eliminated_hypotheses];
  if (report.remaining_hypotheses) merged.remaining_hypotheses = [...report.remaining_hypotheses];
  return merged;
}

/** {@link addReport} over complete claims: every field present in the result, arrays never shared with `base`. */
export function mergeReport(base: ReportedClaimsView, report: Partial<ReportedClaims>): ReportedClaims {
  return {
    new_evidence: report.new_evidence ? [...base.new_evidence, ...report.new_evidence] : [...base.new_evidence],
    eliminated_hypotheses: report.eliminated_hypotheses ? [...base.eliminated_hypotheses, ...report.eliminated_hypotheses] : [...base.eliminated_hypotheses],
    remaining_hypotheses: report.remaining_hypotheses ? [...report.remaining_hypotheses] : [...base.remaining_hypotheses],
  };
}

/**
 * {@link mergeReport} in place: `claims` becomes the merge of itself and `report` (its
 * evidence and eliminated lists grow, its remaining list is replaced by a copy of the
 * report's when it gives one). Only for claims no one else holds: the fold's own draft
 * (`own` in fold.ts copies them first), where a run's many reports between two checkpoints would
 * otherwise copy the growing lists at every turn.
 */
export function appendReport(claims: ReportedClaims, report: Partial<ReportedClaims>): void {
  if (report.new_evidence) for (const item of report.new_evidence) claims.new_evidence.push(item);
  if (report.eliminated_hypotheses) for (const item of report.eliminated_hypotheses) claims.eliminated_hypotheses.push(item);
  if (report.remaining_hypotheses) claims.remaining_hypotheses = [...report.remaining_hypotheses];
}

/** The reports of one turn as one report, or `undefined` when there is none ({@link addReport}, in order). */
export function mergeReports(reports: readonly Partial<ReportedClaims>[]): Partial<ReportedClaims> | undefined {
  return reports.length === 0 ? undefined : reports.reduce<Partial<ReportedClaims>>(addReport, {});
}
