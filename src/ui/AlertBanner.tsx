import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { sanitize } from './text.js';
import { theme } from './theme.js';

/**
 * A banner for stagnation and repetition alerts that stays until the operator
 * acknowledges it (`x`). Shows the newest unacknowledged alert and how many more wait.
 */
export function AlertBanner() {
  const unseen = useConsole((s) => s.session.alerts.length - Math.min(s.acknowledged, s.session.alerts.length));
  const latest = useConsole((s) => s.session.alerts[s.session.alerts.length - 1]);
  const claimsOnly = useConsole((s) => s.session.checkpoints[s.session.checkpoints.length - 1]?.claimed_progress ?? false);
  if (unseen <= 0 || !latest) return null;
  const extra = latest.kind === 'stagnation' && claimsOnly ? ' (claims made, nothing measured moved)' : '';
  return (
    <Box height={1} flexShrink={0}>
      <Text bold inverse color={theme.danger} wrap="truncate-end">
        {' ⚠ '}
        {sanitize(latest.message, { oneLine: true })}
        {extra}
        {unseen > 1 ? ` (+${unseen - 1} more)` : ''} · x to acknowledge{' '}
      </Text>
    </Box>
  );
}

/** Whether the banner shows (for the layout's row count). */
export function useAlertShown(): boolean {
  return useConsole((s) => s.session.alerts.length > s.acknowledged);
}
