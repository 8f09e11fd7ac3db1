import React from 'react';
import { Box, Text } from 'ink';
import { activeSeconds, BUDGET_DIMENSIONS, formatDuration, type BudgetDimension } from '../engine/index.js';
import { useConsole } from './context.js';
import { Section } from './Section.js';
import { theme } from './theme.js';
import { useNow } from './use-now.js';

const LABEL: Record<BudgetDimension, string> = {
  turns: 'turns',
  tool_calls: 'tool calls',
  wall_clock_seconds: 'wall clock',
  tokens: 'tokens',
  cost_usd: 'cost',
};

function format(dimension: BudgetDimension, value: number): string {
  if (dimension === 'wall_clock_seconds') return formatDuration(value);
  if (dimension === 'cost_usd') return `$${value.toFixed(2)}`;
  if (dimension === 'tokens' && value >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return String(Math.round(value));
}

/** A used/limit bar: `████░░░░`; `width` in cells. */
export function gauge(used: number, limit: number | null, width: number): string {
  if (limit === null) return '·'.repeat(width);
  const filled = Math.min(width, Math.round((used / limit) * width));
  return '█'.repeat(filled) + '░'.repeat(width - filled);
}

/** Used/limit gauges for every budget dimension; colour turns at the warn fraction. */
export function BudgetPanel() {
  const limits = useConsole((s) => s.session.limits);
  const usage = useConsole((s) => s.session.usage);
  const warned = useConsole((s) => s.session.warned);
  const exhausted = useConsole((s) => s.session.exhausted);
  const live = useConsole((s) => s.session.activeSince !== null && s.session.done === null);
  const now = useNow(live);
  const activeMs = useConsole((s) => s.session.activeMs);
  const activeSince = useConsole((s) => s.session.activeSince);
  const seconds = live ? activeSeconds({ activeMs, activeSince }, now) : usage.wall_clock_seconds;
  const rows = BUDGET_DIMENSIONS.map((dimension) => {
    const used = dimension === 'wall_clock_seconds' ? seconds : usage[dimension];
    const limit = limits[dimension];
    const colour = exhausted === dimension || (limit !== null && used >= limit) ? theme.danger : warned.includes(dimension) ? theme.warn : theme.ok;
    return (
      <Box key={dimension} width={33}>
        <Text>
          <Text color={theme.muted}>{LABEL[dimension].padEnd(11)}</Text>
          <Text color={colour}>{gauge(used, limit, 8)}</Text>
          <Text bold={exhausted === dimension}> {format(dimension, used)}/{limit === null ? '∞' : format(dimension, limit)}</Text>
        </Text>
      </Box>
    );
  });
  return (
    <Section title="Budget">
      <Box flexDirection="row" flexWrap="wrap">
        {rows}
      </Box>
    </Section>
  );
}
