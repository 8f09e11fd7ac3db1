import React from 'react';
import { Box } from 'ink';
import { useConsole } from './context.js';
import { sanitize } from './text.js';
import { Line } from './Line.js';
import { theme } from './theme.js';
import { useTerminalSize } from './use-terminal-size.js';

/**
 * A banner for alerts (stagnation, repetition, checkpoints that measured nothing, a
 * constraint) that stays until the operator acknowledges it (`x`). Shows the newest
 * alert and how many more wait; once its condition has cleared (docs/design.md, "Alerts
 * and when they clear": progress returned, a measurement, the constraint kept, the
 * repeated call thinned out of the window, the goal met) it says so, in green, until a
 * new detection raises a new alert.
 */
export const AlertBanner = React.memo(function AlertBanner() {
  const unseen = useConsole((s) => s.session.alerts.length - Math.min(s.acknowledged, s.session.alerts.length));
  const latest = useConsole((s) => s.session.alerts[s.session.alerts.length - 1]);
  const claimsOnly = useConsole((s) => s.session.checkpoints[s.session.checkpoints.length - 1]?.claimed_progress ?? false);
  const { columns } = useTerminalSize();
  if (unseen <= 0 || !latest) return null;
  // Decided by the fold from the events since the alert (engine/alert-clearing.ts): once cleared, it stays so.
  const cleared = latest.cleared?.why ?? null;
  const extra = latest.kind === 'stagnation' && claimsOnly ? ' (claims made, nothing measured moved)' : '';
  return (
    <Box height={1} flexShrink={0}>
      <Line width={columns} bold inverse={cleared === null} color={cleared === null ? theme.danger : theme.ok}>
        {cleared === null ? ' ⚠ ' : ` ✓ cleared (${cleared}): `}
        {sanitize(latest.message, { oneLine: true })}
        {cleared === null ? extra : ''}
        {unseen > 1 ? ` (+${unseen - 1} more)` : ''} · x to acknowledge{' '}
      </Line>
    </Box>
  );
});

/** Whether the banner shows (for the layout's row count). */
export function useAlertShown(): boolean {
  return useConsole((s) => s.session.alerts.length > s.acknowledged);
}
