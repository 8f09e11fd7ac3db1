import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { sanitize } from './sanitize.js';
import { stateColour, theme } from './theme.js';

/** Goal objective, pattern, loop state and iteration. */
export function Header() {
  const session = useConsole((s) => s.session.session);
  const pattern = useConsole((s) => s.session.pattern);
  const state = useConsole((s) => s.session.machine.state);
  const turn = useConsole((s) => s.session.turn);
  const maxTurns = useConsole((s) => s.session.limits.turns);
  const step = useConsole((s) => s.session.step);
  const goal = useConsole((s) => s.session.goal);
  const done = useConsole((s) => s.session.done);
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Box justifyContent="space-between">
        <Text>
          <Text bold color={theme.accent}>loopdeck</Text>
          <Text color={theme.muted}> · {pattern ?? '-'} · </Text>
          <Text bold color={stateColour[state]}>{state}</Text>
          {done ? <Text color={done.reason === 'goal_met' ? theme.ok : theme.danger}> ({done.reason})</Text> : null}
          <Text color={theme.muted}> · </Text>
          <Text>iteration {turn}{maxTurns !== null ? `/${maxTurns}` : ''}</Text>
          <Text color={theme.muted}> · step {step}</Text>
        </Text>
        <Text color={theme.muted}>run {session ?? '-'}</Text>
      </Box>
      <Text wrap="truncate-end">
        <Text bold>Goal: </Text>
        {goal ? sanitize(goal.objective, { oneLine: true }) : '(not started)'}
        {goal && goal.revision > 0 ? <Text color={theme.warn}> [rev {goal.revision}, {goal.status}]</Text> : null}
      </Text>
      {goal && goal.constraints.length > 0 ? (
        <Text wrap="truncate-end" color={theme.muted}>
          Constraints: {goal.constraints.map((c) => sanitize(c, { oneLine: true })).join(' · ')}
        </Text>
      ) : null}
    </Box>
  );
}
