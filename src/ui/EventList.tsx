import React from 'react';
import { Box, Text } from 'ink';
import type { LoopEvent } from '../engine/index.js';
import { useConsole } from './context.js';
import { describeEvent } from './describe.js';
import { theme } from './theme.js';

const QUIET = new Set(['state.transition', 'step.start']);

function colourOf(e: LoopEvent): string | undefined {
  switch (e.type) {
    case 'stagnation.detected':
    case 'tool.error':
    case 'hook.error':
      return theme.danger;
    case 'budget.warn':
    case 'session.pause':
      return theme.warn;
    case 'session.complete':
    case 'verify.result':
      return e.type === 'verify.result' && !e.data.passed ? theme.danger : theme.ok;
    case 'goal.revised':
      return theme.accent;
    default:
      return undefined;
  }
}

/** The latest events, newest last, one line each; it scrolls as events arrive. */
export function EventList({ rows }: { rows: number }) {
  const recent = useConsole((s) => s.recent);
  const shown = recent.filter((e) => !QUIET.has(e.type)).slice(-rows);
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text color={theme.muted}>Events</Text>
      {shown.map((e) => (
        <Text key={e.seq} wrap="truncate-end" color={colourOf(e)}>
          <Text color={theme.muted}>{String(e.seq).padStart(4)} {e.type.padEnd(19)}</Text> {describeEvent(e)}
        </Text>
      ))}
    </Box>
  );
}
