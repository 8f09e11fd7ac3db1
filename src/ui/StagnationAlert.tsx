import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { theme } from './theme.js';

/** A banner that cannot be missed while the latest checkpoint carries STAGNATION_DETECTED. */
export function StagnationAlert() {
  const latest = useConsole((s) => s.session.checkpoints[s.session.checkpoints.length - 1]);
  if (!latest?.stagnation_detected) return null;
  return (
    <Box flexShrink={0}>
      <Text bold inverse color={theme.danger} wrap="truncate-end">
        {' '}⚠ STAGNATION_DETECTED {latest.counter}/{latest.threshold}: {latest.counter} checkpoints without observed progress
        {latest.claimed_progress ? ' (claims made, nothing measured moved)' : ''}{' '}
      </Text>
    </Box>
  );
}
