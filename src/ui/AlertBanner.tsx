import React from 'react';
import { Box } from 'ink';
import { alertCleared } from './alert-cleared.js';
import { useConsole } from './context.js';
import { sanitize } from './text.js';
import { Line } from './Line.js';
import { theme } from './theme.js';
import { useTerminalSize } from './use-terminal-size.js';

/**
 * A banner for stagnation and repetition alerts that stays until the operator
 * acknowledges it (`x`). Shows the newest unacknowledged alert and how many more wait;
 * once its condition has cleared (progress returned, the goal was met) it says so, in green.
 */
export const AlertBanner = React.memo(function AlertBanner() {
  const unseen = useConsole((s) => s.session.alerts.length - Math.min(s.acknowledged, s.session.alerts.length));
  const latest = useConsole((s) => s.session.alerts[s.session.alerts.length - 1]);
  const claimsOnly = useConsole((s) => s.session.checkpoints[s.session.checkpoints.length - 1]?.claimed_progress ?? false);
  const cleared = useConsole((s) => (latest ? alertCleared(s.session, latest) : null));
  const { columns } = useTerminalSize();
  if (unseen <= 0 || !latest) return null;
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
