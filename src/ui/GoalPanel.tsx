import React from 'react';
import { Box, Text } from 'ink';
import type { ConstraintFindingRecord } from '../engine/fold.js';
import { acceptanceRows } from './acceptance-rows.js';
import { useConsole } from './context.js';
import { Line } from './Line.js';
import { Rows } from './Rows.js';
import { sanitize } from './text.js';
import { theme } from './theme.js';

const clean = (t: string) => sanitize(t, { oneLine: true });

/** One line per constraint found violated (red) or not checkable (yellow) at the last checkpoint. */
function findingLine(f: ConstraintFindingRecord): string {
  if (f.outcome === 'error') return `? UNCHECKED at turn ${f.iteration} "${clean(f.text)}": ${clean(f.error)}`;
  const more = (f.changed ?? 0) > (f.paths?.length ?? 0) ? ` and ${(f.changed ?? 0) - (f.paths?.length ?? 0)} more` : '';
  const what = f.check === 'protect' ? `changed ${(f.paths ?? []).map(clean).join(', ')}${more}` : `its check exited ${f.exit_code}`;
  return `✗ VIOLATED at turn ${f.iteration} "${clean(f.text)}": ${what}`;
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
  const items = [
      <Line width={width}>
        <Text color={theme.muted}>objective   </Text>
        <Text bold>{clean(goal.objective)}</Text>
        <Text color={theme.muted}>
          {' '}({goal.status}, revision {goal.revision}{goal.priority && goal.priority !== 'normal' ? `, priority ${goal.priority}` : ''})
        </Text>
      </Line>,
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
  return <Rows height={height} items={items} more="more lines" />;
});
