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

/** How many events the list renders at most; the box clips the oldest to fit the screen. */
const MAX_ROWS = 60;

/**
 * The latest events, newest at the bottom, one line each. It takes the rows the other
 * panels leave and clips the oldest lines, so it scrolls as events arrive.
 */
export function EventList() {
  const recent = useConsole((s) => s.recent);
  const shown = recent.filter((e) => !QUIET.has(e.type)).slice(-MAX_ROWS);
  return (
    <Box flexDirection="column" flexGrow={1} flexShrink={1} justifyContent="flex-end" overflow="hidden" paddingLeft={1}>
      {shown.map((e) => (
        <Box key={e.seq} flexShrink={0}>
          <Text wrap="truncate-end" color={colourOf(e)}>
            <Text color={theme.muted}>{String(e.seq).padStart(4)} {e.type.padEnd(19)}</Text> {describeEvent(e)}
          </Text>
        </Box>
      ))}
    </Box>
  );
}
