import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { theme } from './theme.js';

/** The question asked before a resumed run continues; nothing runs until it is answered. */
export function GatePanel() {
  const gate = useConsole((s) => s.gate);
  const state = useConsole((s) => s.session.machine.state);
  const pending = useConsole((s) => s.session.pending);
  if (!gate) return null;
  return (
    <Box flexDirection="column" flexShrink={0} borderStyle="round" borderColor={theme.warn} paddingX={1}>
      <Text bold color={theme.warn}>{gate}</Text>
      <Text>
        The log stands at {state}
        {pending?.kind === 'tool' ? ` with tool call ${pending.call.name} (${pending.call.id}) issued but not finished: it runs again only if you approve it` : ''}
        {pending?.kind === 'pause' ? ` paused (${pending.reason})` : ''}.
      </Text>
      <Text>
        <Text bold color={theme.accent}>[enter]</Text> resume{'  '}
        <Text bold color={theme.accent}>[q]</Text> quit
      </Text>
    </Box>
  );
}
