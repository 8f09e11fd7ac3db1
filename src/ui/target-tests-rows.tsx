import React, { type ReactNode } from 'react';
import { Text } from 'ink';
import { Line } from './Line.js';
import type { TargetTestsRecord } from '../engine/index.js';
import { sanitize } from './text.js';
import { theme, type Colour } from './theme.js';

const clean = (t: string) => sanitize(t, { oneLine: true });
const names = (list: readonly string[]) => list.map(clean).join(', ');

/**
 * The rows of the checkpoint panel for the target tests of one checkpoint
 * (docs/design.md, "Checkpoints and stagnation"): per observer whose tests are followed by
 * name, the counts over the frozen set, the target tests that went to passing (green),
 * that broke or were lost — skipped or gone — (red), and the tests outside the set,
 * which are shown and never counted. Each row is cut to `width` cells. Renders only.
 */
export function targetTestRows(records: readonly TargetTestsRecord[] | undefined, width: number): ReactNode[] {
  return (records ?? []).flatMap((r) => {
    const size = r.frozen ? r.frozen.failing.length + r.frozen.passing.length : null;
    const head = (
      <Line width={width} key={`t-${r.observer}`}>
        <Text bold>{clean(r.observer)} targets</Text>
        <Text color={theme.muted}>
          {r.frozen ? ` frozen here: ${size} tests, ${r.frozen.failing.length} failing` : r.measured ? ` ${r.passing} passing of ${(r.failing ?? 0) + (r.passing ?? 0)}` : ''}
          {r.frozen ? '' : ` (frozen #${r.frozen_at + 1})`}
        </Text>
        {r.measured ? null : <Text color={theme.danger}> not measured</Text>}
      </Line>
    );
    const rows: ReactNode[] = [head];
    if (r.fixed.length > 0) rows.push(line(width, r, 'fixed', theme.ok, `fixed ${names(r.fixed)}`));
    if (r.broken.length > 0) rows.push(line(width, r, 'broken', theme.danger, `BROKEN ${names(r.broken)}`));
    if (r.lost.length > 0) rows.push(line(width, r, 'lost', theme.danger, `LOST ${r.lost.map((l) => `${clean(l.name)} (${l.was}, now ${l.now})`).join(', ')}`));
    if (r.measured && !r.frozen && r.fixed.length + r.broken.length + r.lost.length === 0) {
      rows.push(line(width, r, 'none', theme.muted, 'no target test flipped'));
    }
    if (r.untracked.count > 0) {
      const more = r.untracked.count > r.untracked.names.length ? `, … ${r.untracked.count - r.untracked.names.length} more` : '';
      rows.push(line(width, r, 'untracked', theme.muted, `not counted (${r.untracked.count} outside the set): ${names(r.untracked.names)}${more}`));
    }
    return rows;
  });
}

function line(width: number, r: TargetTestsRecord, key: string, colour: Colour, text: string): ReactNode {
  return (
    <Line width={width} key={`t-${r.observer}-${key}`} color={colour} bold={colour === theme.danger}>
      {'  '}
      {text}
    </Line>
  );
}
