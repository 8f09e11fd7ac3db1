import React from 'react';
import { Box, Text } from 'ink';
import type { ConstraintFindingRecord } from '../engine/fold.js';
import { acceptanceRows } from './acceptance-rows.js';
import { useConsole } from './context.js';
import { Line } from './Line.js';
import { Rows } from './Rows.js';
import { cellWidth, sanitize, truncateCells, wrapWords } from './text.js';
import { theme } from './theme.js';

const clean = (t: string) => sanitize(t, { oneLine: true });

/** One line per constraint found violated (red) or not checkable (yellow) at the last checkpoint. */
function findingLine(f: ConstraintFindingRecord): string {
  if (f.outcome === 'error') return `? UNCHECKED at turn ${f.iteration} "${clean(f.text)}": ${clean(f.error)}`;
  const more = (f.changed ?? 0) > (f.paths?.length ?? 0) ? ` and ${(f.changed ?? 0) - (f.paths?.length ?? 0)} more` : '';
  const what = f.check === 'protect' ? `changed ${(f.paths ?? []).map(clean).join(', ')}${more}` : `its check exited ${f.exit_code}`;
  return `✗ VIOLATED at turn ${f.iteration} "${clean(f.text)}": ${what}`;
}

const LABEL = 'objective   ';

/**
 * The objective and its status in at most `rows` rows of `width` cells, wrapped at spaces;
 * the status follows the text (on a row of its own when the last one is full and a row is
 * left). A cut objective ends in `…` on its last row; the status is left out when there
 * is no room for it (the header and `/goal status` show it too).
 */
export function objectiveRows(objective: string, status: string, width: number, rows: number): Array<{ text: string; status: string }> {
  const lines = wrapWords(objective, width);
  if (lines.length > rows) {
    const shown = lines.slice(0, rows);
    // The mark replaces whole words at the end of the last row, never half of one.
    let last = shown[rows - 1]!;
    while (cellWidth(`${last} …`) > width && last.includes(' ')) last = last.slice(0, last.lastIndexOf(' '));
    shown[rows - 1] = truncateCells(`${last} …`, width);
    return shown.map((text) => ({ text, status: '' }));
  }
  const last = lines[lines.length - 1]!;
  if (cellWidth(last) + cellWidth(status) <= width) return lines.map((text, i) => ({ text, status: i === lines.length - 1 ? status : '' }));
  if (lines.length < rows) return [...lines.map((text) => ({ text, status: '' })), { text: '', status: status.trimStart() }];
  return lines.map((text) => ({ text, status: '' }));
}

/**
 * The goal: objective and status, the acceptance matrix (a row per success criterion with
 * its status and evidence), constraints (and those a check found broken), and every
 * revision with its reconciliation. `width`: the panel's columns.
 */
export const GoalPanel = React.memo(function GoalPanel({ height, width }: { height: number; width: number }) {
  const goal = useConsole((s) => s.session.goal);
  const acceptance = useConsole((s) => s.session.acceptance);
  const revisions = useConsole((s) => s.session.revisions);
  const findings = useConsole((s) => s.session.constraintFindings);
  if (!goal) {
    return (
      <Box height={height} flexShrink={0}>
        <Line width={width} color={theme.muted}>No goal yet: the run has not started.</Line>
      </Box>
    );
  }
  const list = (items: string[]) => (items.length === 0 ? <Text color={theme.muted}>none</Text> : items.map((c, i) => <Text key={i}>{i > 0 ? ' · ' : ''}{clean(c)}</Text>));
  const status = ` (${goal.status}, revision ${goal.revision}${goal.priority && goal.priority !== 'normal' ? `, priority ${goal.priority}` : ''})`;
  const rest = [
      ...(goal.sub_goals ?? []).map((g) => (
        <Line width={width} key={g.id}>
          <Text color={theme.muted}>sub-goal {g.id.padEnd(3)}</Text>
          {clean(g.objective)} <Text color={theme.muted}>({g.status}, part of the goal)</Text>
        </Line>
      )),
      ...acceptanceRows(acceptance, width),
      <Line width={width}>
        <Text color={theme.muted}>constraints </Text>
        {list(goal.constraints)}
      </Line>,
      ...findings.map((f) => (
        <Line width={width} key={`c${f.seq}`} color={f.outcome === 'violated' ? theme.danger : theme.warn}>
          {findingLine(f)}
        </Line>
      )),
      <Line width={width} color={theme.muted}>
        revisions   {revisions.length === 0 ? 'none' : `${revisions.length}, newest first`}
      </Line>,
      ...[...revisions].reverse().flatMap((r, i) => [
        <Line width={width} key={`${r.seq}a`}>
          <Text color={theme.accent}>
            {' '}rev {revisions.length - i} {r.directive}:
          </Text>{' '}
          {clean(r.text)}
          <Text color={r.reconciliation.full_restart ? theme.warn : theme.muted}> ({r.reconciliation.full_restart ? 'full restart' : 'no restart'})</Text>
        </Line>,
        <Line width={width} key={`${r.seq}b`} color={theme.muted}>
          {'   '}still valid: {clean(r.reconciliation.still_valid)} · discard: {clean(r.reconciliation.discard)} · new work: {clean(r.reconciliation.new_work)}
        </Line>,
      ]),
  ];
  // The objective takes the rows the rest leaves free, wrapped at spaces: a long one is read whole when there is room.
  const objective = objectiveRows(clean(goal.objective), status, width - LABEL.length, Math.max(1, height - rest.length));
  const items = [
    ...objective.map((row, i) => (
      <Line width={width} key={`o${i}`}>
        <Text color={theme.muted}>{i === 0 ? LABEL : ' '.repeat(LABEL.length)}</Text>
        <Text bold>{row.text}</Text>
        <Text color={theme.muted}>{row.status}</Text>
      </Line>
    )),
    ...rest,
  ];
  return <Rows height={height} items={items} more="more lines" />;
});
