import React from 'react';
import { Box, Text } from 'ink';
import type { ConstraintFindingRecord } from '../engine/fold.js';
import { acceptanceRows } from './acceptance-rows.js';
import { useConsole } from './context.js';
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
export function GoalPanel({ height, width = 80 }: { height: number; width?: number }) {
  const goal = useConsole((s) => s.session.goal);
  const acceptance = useConsole((s) => s.session.acceptance);
  const revisions = useConsole((s) => s.session.revisions);
  const findings = useConsole((s) => s.session.constraintFindings);
  if (!goal) {
    return (
      <Box height={height} flexShrink={0}>
        <Text color={theme.muted}>No goal yet: the run has not started.</Text>
      </Box>
    );
  }
  const list = (items: string[]) => (items.length === 0 ? <Text color={theme.muted}>none</Text> : items.map((c, i) => <Text key={i}>{i > 0 ? ' · ' : ''}{clean(c)}</Text>));
  const items = [
      <Text wrap="truncate-end">
        <Text color={theme.muted}>objective   </Text>
        <Text bold>{clean(goal.objective)}</Text>
        <Text color={theme.muted}>
          {' '}({goal.status}, revision {goal.revision}{goal.priority && goal.priority !== 'normal' ? `, priority ${goal.priority}` : ''})
        </Text>
      </Text>,
      ...(goal.sub_goals ?? []).map((g) => (
        <Text key={g.id} wrap="truncate-end">
          <Text color={theme.muted}>sub-goal {g.id.padEnd(3)}</Text>
          {clean(g.objective)} <Text color={theme.muted}>({g.status}, part of the goal)</Text>
        </Text>
      )),
      ...acceptanceRows(acceptance, width),
      <Text wrap="truncate-end">
        <Text color={theme.muted}>constraints </Text>
        {list(goal.constraints)}
      </Text>,
      ...findings.map((f) => (
        <Text key={`c${f.seq}`} wrap="truncate-end" color={f.outcome === 'violated' ? theme.danger : theme.warn}>
          {findingLine(f)}
        </Text>
      )),
      <Text wrap="truncate-end" color={theme.muted}>
        revisions   {revisions.length === 0 ? 'none' : `${revisions.length}, newest first`}
      </Text>,
      ...[...revisions].reverse().flatMap((r, i) => [
        <Text key={`${r.seq}a`} wrap="truncate-end">
          <Text color={theme.accent}>
            {' '}rev {revisions.length - i} {r.directive}:
          </Text>{' '}
          {clean(r.text)}
          <Text color={r.reconciliation.full_restart ? theme.warn : theme.muted}> ({r.reconciliation.full_restart ? 'full restart' : 'no restart'})</Text>
        </Text>,
        <Text key={`${r.seq}b`} wrap="truncate-end" color={theme.muted}>
          {'   '}still valid: {clean(r.reconciliation.still_valid)} · discard: {clean(r.reconciliation.discard)} · new work: {clean(r.reconciliation.new_work)}
        </Text>,
      ]),
  ];
  return <Rows height={height} items={items} more="more lines" />;
}
