import React, { type ReactNode } from 'react';
import { Text } from 'ink';
import type { SessionState } from '../engine/fold.js';
import { describeChange } from '../engine/reload.js';
import { Line } from './Line.js';
import { sanitize } from './text.js';
import { theme } from './theme.js';

/**
 * The rows of the prompt for a reload of loop.yaml whose changes wait for the operator's
 * key (docs/design.md, "Live reload"): what changed, path by path with the value in force
 * and the new one, then the keys (`keys`, drawn by the caller's key hints). The rows fit
 * `maxRows` (border included); changes that do not fit are counted, and the event in the
 * timeline lists them all.
 */
export function reloadPromptRows(pending: NonNullable<SessionState['reloadPending']>, inner: number, maxRows: number, keys: ReactNode[]): ReactNode[] {
  const title = pending.inside
    ? `${pending.file} changed; it lies inside the workspace, where the agent can write: apply every change below?`
    : `${pending.file} changed approval rules or hooks: apply the changes below?`;
  const room = Math.max(1, maxRows - 2 - 1 - keys.length);
  const changes = pending.changes.map((c) => describeChange({ ...c, effect: 'awaiting_key' }).replace(/ \([^()]*\)$/, ''));
  const shown = changes.length <= room ? changes : changes.slice(0, Math.max(0, room - 1));
  const more = changes.length - shown.length;
  return [
    <Line width={inner} bold color={theme.warn}>{sanitize(title, { oneLine: true })}</Line>,
    ...shown.map((line) => <Line width={inner}>{sanitize(line, { oneLine: true })}</Line>),
    ...(more > 0 ? [<Line width={inner} color={theme.muted}>{`… ${more} more (open the reload in the timeline to see all)`}</Line>] : []),
    ...keys,
  ];
}
