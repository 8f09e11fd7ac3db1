import React, { type ReactNode } from 'react';
import { Text } from 'ink';
import { disagrees } from '../engine/assessment.js';
import type { SessionState } from '../engine/fold.js';
import type { ExecutionMemory } from '../engine/memory.js';
import { Line } from './Line.js';
import { sanitize } from './text.js';
import { theme } from './theme.js';

const clean = (t: string) => sanitize(t, { oneLine: true });
const LABEL = '            ';

const MOVES: Record<ExecutionMemory['signals'][number]['move'], string> = {
  baseline: 'baseline',
  wanted: 'wanted',
  flat: 'flat',
  regressed: 'regressed',
  missing: 'missing',
};

const SEEN = { found_passing: 'seen passing', found_failing: 'seen failing', not_found: 'not seen' } as const;

function row(width: number, key: string, label: string, body: ReactNode, colour?: string): ReactNode {
  return (
    <Line key={key} width={width}>
      <Text color={theme.muted}>{label.padEnd(LABEL.length)}</Text>
      <Text color={colour}>{body}</Text>
    </Line>
  );
}

/**
 * The rows of the progress panel for the execution memory of the last checkpoint
 * (docs/design.md, "Execution memory"): a summary line, the signals with their trend, the
 * reported evidence and hypotheses (marked as reported), the acceptance rows done, what
 * failed, and how many older items were left out. Each row is cut to `width` columns.
 * Renders only.
 */
export function memoryRows(m: ExecutionMemory | null | undefined, width: number): ReactNode[] {
  if (!m) return [row(width, 'mem', 'memory', 'none yet: the first checkpoint writes it', theme.muted)];
  const count = (n: number, what: string) => `${n} ${what}`;
  const rows: ReactNode[] = [
    row(width, 'mem', 'memory', `checkpoint ${m.checkpoint + 1} · turn ${m.iteration} · ${count(m.evidence.length, 'evidence')} · ${count(m.eliminated.length, 'eliminated')} · ${count(m.remaining.length, 'open')} · ${count(m.failures.length, 'failed')}${m.dropped > 0 ? ` · ${m.dropped} older left out` : ''}`),
  ];
  for (const s of m.signals) rows.push(row(width, `sig-${s.signal}`, '', `${clean(s.signal.replace(/^observed\./, ''))} ${s.values.map((v) => (v === null ? '?' : String(v))).join(' → ')} (${MOVES[s.move]})`));
  const last = m.evidence.at(-1);
  if (last) rows.push(row(width, 'ev', '', `reported: ${clean(last.claim)} [${clean(last.ref)}: ${SEEN[last.status]}]${m.evidence.length > 1 ? ` +${m.evidence.length - 1}` : ''}`, theme.claim));
  if (m.eliminated.length + m.remaining.length > 0) {
    rows.push(row(width, 'hyp', '', `reported: eliminated ${m.eliminated.map(clean).join('; ') || '-'} · open ${m.remaining.map(clean).join('; ') || '-'}`, theme.claim));
  }
  if (m.acceptance && m.acceptance.length > 0) {
    const done = m.acceptance.filter((r) => r.status === 'DONE').length;
    rows.push(row(width, 'acc', '', `acceptance ${done}/${m.acceptance.length} done`));
  }
  if (m.failures.length > 0) {
    const text = m.failures
      .slice()
      .reverse()
      .map((f) => `${f.kind === 'tool' ? '' : `${f.kind}: `}${clean(f.what)}${f.count > 1 ? ` ×${f.count}` : ''}`)
      .join(' · ');
    rows.push(row(width, 'fail', '', `failed: ${text}`, theme.warn));
  }
  return rows;
}

const MARK = { met: '✓', partly: '~', not: '✗' } as const;

/**
 * The rows for the agent's own assessment of the criteria (`progress.assessed`), labelled
 * as reported, each beside what the harness measured; where the agent says met and the
 * harness's check says not, the row is red and marked `≠`. Each row is cut to `width`
 * columns. Renders only.
 */
export function assessmentRows(a: SessionState['assessment'], width: number): ReactNode[] {
  if (!a) return [];
  if (a.outcome !== 'parsed') {
    const what = a.outcome === 'failed' ? 'failed' : 'unreadable';
    const head = a.raw_head !== undefined ? ` "${clean(a.raw_head).slice(0, 60)}"` : '';
    return [row(width, 'as', 'assessment', `reported at turn ${a.iteration}: ${what}${head} (${clean(a.reason ?? '')})`, theme.warn)];
  }
  const rows: ReactNode[] = [row(width, 'as', 'assessment', `reported by the agent at turn ${a.iteration}, not measured`, theme.muted)];
  a.criteria.forEach((criterion, i) => {
    const item = a.items?.find((x) => x.index === i);
    const harness = a.harness[i];
    const against = disagrees(item?.verdict, harness);
    const said = item ? `${MARK[item.verdict]} ${item.verdict}: ${clean(item.reason)}` : 'not assessed';
    const measured = harness ? `harness: ${harness.verdict} (${clean(harness.basis)})` : '';
    rows.push(
      <Line key={`as${i}`} width={width} color={against ? theme.danger : undefined} bold={against}>
        {against ? '  ≠ ' : '    '}
        {clean(criterion)}
        <Text color={against ? theme.danger : theme.claim}> · reported {said}</Text>
        <Text color={against ? theme.danger : theme.muted}> · {measured}</Text>
      </Line>,
    );
  });
  return rows;
}
