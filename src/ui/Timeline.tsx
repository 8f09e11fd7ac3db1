import React, { useMemo } from 'react';
import { Box, Text } from 'ink';
import type { LoopEvent } from '../engine/index.js';
import { useConsole } from './context.js';
import { describeEvent } from './describe.js';
import { filtered, isAlert, windowOf } from './timeline-filter.js';
import { Line } from './Line.js';
import { sanitize } from './text.js';
import { theme } from './theme.js';

function colourOf(e: LoopEvent): string | undefined {
  switch (e.type) {
    case 'stagnation.detected':
    case 'checkpoint.unknown':
    case 'repetition.detected':
    case 'tool.error':
    case 'hook.error':
    case 'abort.recorded':
    case 'process.reaped':
      return theme.danger;
    case 'budget.warn':
    case 'session.pause':
      return theme.warn;
    case 'verify.result':
      return e.data.passed ? theme.ok : theme.danger;
    case 'session.complete':
      return e.data.reason === 'goal_met' ? theme.ok : theme.danger;
    case 'goal.revised':
      return theme.accent;
    default:
      return undefined;
  }
}

/**
 * A model turn's reasoning, after its description and dimmed: what the model reported
 * about its thinking, kept apart from its answer (never read as one).
 */
function reasoningTail(event: LoopEvent): React.ReactNode {
  if (event.type !== 'model.call' || !event.data.response.reasoning) return null;
  return <Text dimColor> · reasoning: {sanitize(event.data.response.reasoning.slice(0, 500), { oneLine: true })}</Text>;
}

/** The events the timeline lists now: the filter applied to the events shown. */
export function useTimelineEvents(): LoopEvent[] {
  const events = useConsole((s) => s.events);
  const shown = useConsole((s) => s.shown);
  const filter = useConsole((s) => s.filter);
  return useMemo(() => filtered(events, shown, filter), [events, shown, filter]);
}

/**
 * The event timeline, newest at the bottom, one row per event; alerts carry a `!` in the
 * gutter. A window of `height` rows over the filtered events: only the rows on screen
 * are rendered, however long the run, and the live region never outgrows the terminal.
 * Following, it shows the newest events; ↑/↓ select and stop following, End follows again.
 * `compact` leaves out the type column (the description says what happened).
 */
export const Timeline = React.memo(function Timeline({ height, width, compact = false }: { height: number; width: number; compact?: boolean }) {
  const list = useTimelineEvents();
  const follow = useConsole((s) => s.follow);
  const selected = useConsole((s) => s.selected);
  const filter = useConsole((s) => s.filter);
  const replaying = useConsole((s) => s.replay !== null);
  const dropped = useConsole((s) => s.dropped);
  const rows = Math.max(0, height - 1);
  const win = windowOf(list, rows, follow, selected);
  const shown = list.slice(win.start, win.end);
  const position = follow ? (replaying ? 'at the replay cursor' : 'following (end)') : `${win.selected + 1} of ${list.length} (end: follow)`;
  return (
    <Box flexDirection="column" height={height} overflowY="hidden" flexShrink={0}>
      <Line width={width}>
        <Text color={theme.border}>── </Text>
        <Text bold>Timeline</Text>
        <Text color={theme.muted}>
          {' '}· filter {filter} (f) · {list.length} event{list.length === 1 ? '' : 's'}
          {dropped > 0 ? ` (${dropped} older in the log)` : ''} · {position}
        </Text>
      </Line>
      {shown.map((e, i) => {
        const isSelected = win.start + i === win.selected;
        return (
          <Box key={i} height={1} flexShrink={0}>
            <Line width={width} color={colourOf(e)} inverse={isSelected}>
              <Text color={theme.danger}>{isAlert(e) ? '!' : ' '}</Text>
              <Text color={isSelected ? undefined : theme.muted}>
                {String(e.seq).padStart(4)}
                {compact ? '' : ` ${e.type.padEnd(19)}`}
              </Text>{' '}
              {describeEvent(e)}
              {reasoningTail(e)}
            </Line>
          </Box>
        );
      })}
    </Box>
  );
});
