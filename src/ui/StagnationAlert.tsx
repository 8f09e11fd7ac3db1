import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { theme } from './theme.js';

/** A banner that cannot be missed while the latest checkpoint carries STAGNATION_DETECTED. */
export function StagnationAlert() {
  const latest = useConsole((s) => s.session.checkpoints[s.session.checkpoints.length - 1]);
  if (!latest?.stagnation_detected) return null;
  return (
    <Box borderStyle="double" borderColor={theme.danger} paddingX={1}>
      <Text bold color={theme.danger}>
        ⚠ STAGNATION_DETECTED {latest.counter}/{latest.threshold}: {latest.counter} checkpoints without observed progress
        {latest.claimed_progress ? ' (the agent claims progress; the tests did not move)' : ''}
      </Text>
    </Box>
  );
}
