import React, { type ReactNode } from 'react';
import { Text } from 'ink';
import type { AcceptanceEvidence, AcceptanceRow, AcceptanceStatus } from '../engine/acceptance.js';
import type { AcceptanceState } from '../engine/acceptance-fold.js';
import { Line } from './Line.js';
import { cellWidth, sanitize, truncateCells } from './text.js';
import { theme, type Colour } from './theme.js';

const clean = (t: string) => sanitize(t, { oneLine: true });

const LABELS: Record<AcceptanceStatus, { text: string; colour: Colour }> = {
  DONE: { text: '✓ DONE', colour: theme.ok },
  IN_PROGRESS: { text: '◐ IN_PROGRESS', colour: theme.accent },
  PENDING: { text: '· PENDING', colour: theme.muted },
  BLOCKED: { text: '✗ BLOCKED', colour: theme.danger },
  NOT_CHECKABLE: { text: '– not checkable', colour: theme.muted },
};

/** Cells of the status column: the widest label and a space. */
const LABEL_CELLS = Math.max(...Object.values(LABELS).map((l) => cellWidth(l.text))) + 1;

/** `text` followed by spaces up to `cells` terminal cells. */
function padCells(text: string, cells: number): string {
  return text + ' '.repeat(Math.max(0, cells - cellWidth(text)));
}

/** The evidence of a row in words: the command and its exit code, or the metric against its target. */
export function evidenceText(e: AcceptanceEvidence | undefined): string {
  if (!e) return '';
  if (e.kind === 'command') {
    const exit = e.exit_code === null ? 'no exit code' : `exit ${e.exit_code}`;
    return `$ ${clean(e.command)} → ${exit}${e.expect_exit !== 0 ? ` (wants ${e.expect_exit})` : ''}`;
  }
  return `${e.signal} = ${e.value === null ? 'not measured' : e.value}, target ${e.op} ${e.target}`;
}

/** What follows the criterion's text on its row: evidence, why, and the agent's claim labelled as reported. */
function detailOf(r: AcceptanceRow): string {
  const parts = [evidenceText(r.evidence)];
  if (r.why && (r.status === 'BLOCKED' || r.status === 'IN_PROGRESS' || !r.evidence)) parts.push(clean(r.why));
  if (r.reported) parts.push(`reported: ${clean(r.reported)}`);
  return parts.filter((p) => p !== '').join(' · ');
}

/**
 * One row of the matrix fitted to `width` cells: the status column, the criterion's number
 * and text (at most half of what is left, so the evidence stays in view), then the evidence.
 */
export function fitRow(r: AcceptanceRow, width: number): { label: string; body: string } {
  const label = padCells(LABELS[r.status].text, LABEL_CELLS);
  const room = Math.max(0, width - LABEL_CELLS);
  const number = `#${r.index + 1} `;
  const detail = detailOf(r);
  const text = clean(r.text);
  const textRoom = detail === '' ? room - cellWidth(number) : Math.max(8, Math.floor((room - cellWidth(number)) / 2));
  const shownText = cellWidth(text) + cellWidth(' · ') + cellWidth(detail) <= room - cellWidth(number) ? text : truncateCells(text, textRoom);
  const head = `${number}${shownText}`;
  const rest = detail === '' ? '' : ` · ${detail}`;
  return { label, body: truncateCells(head + rest, room) };
}

/**
 * The rows of the goal panel for the acceptance matrix (docs/design.md, "The acceptance
 * matrix"): a summary line, then one row per criterion with its status as the harness
 * derived it and the evidence; what the agent claimed is only ever labelled as reported.
 * Renders only: the rows are folded from the events.
 */
export function acceptanceRows(acceptance: AcceptanceState, width: number): ReactNode[] {
  const rows = acceptance.rows;
  if (rows.length === 0) {
    return [
      <Line key="a-none" width={width}>
        <Text color={theme.muted}>criteria    none</Text>
      </Line>,
    ];
  }
  const checkable = rows.filter((r) => r.status !== 'NOT_CHECKABLE');
  const done = checkable.filter((r) => r.status === 'DONE').length;
  const when = acceptance.checked ? (acceptance.checked.trigger === 'verify' ? ` · checked before the verdict at turn ${acceptance.checked.iteration}` : ` · checked at turn ${acceptance.checked.iteration}`) : checkable.length > 0 ? ' · not checked yet' : '';
  const unchecked = rows.length - checkable.length;
  const summary =
    checkable.length === 0
      ? `criteria    ${rows.length}, none checkable (they do not block the goal)`
      : `criteria    ${done}/${checkable.length} checkable done${unchecked > 0 ? ` · ${unchecked} not checkable` : ''}${when}`;
  return [
    <Line key="a-sum" width={width} color={theme.muted}>
      {summary}
    </Line>,
    ...rows.map((r) => {
      const { label, body } = fitRow(r, width);
      return (
        <Line key={`a-${r.index}`} width={width}>
          <Text color={LABELS[r.status].colour} bold={r.status === 'BLOCKED'}>
            {label}
          </Text>
          {body}
        </Line>
      );
    }),
  ];
}
