import React from 'react';
import { Box, Text } from 'ink';
import { activeSeconds } from '../engine/fold.js';
import { BUDGET_DIMENSIONS, type BudgetDimension } from '../engine/types.js';
import { useConsole } from './context.js';
import type { ContextGauge } from './context-gauge.js';
import { gauge, gaugeAmounts, percent } from './format.js';
import { layoutGauges, type GaugeCell, type GaugeText } from './gauge-layout.js';
import { Line } from './Line.js';
import { theme, type Colour } from './theme.js';
import { useNow } from './use-now.js';

const LABEL: Record<BudgetDimension, string> = {
  turns: 'turns',
  tool_calls: 'tool calls',
  wall_clock_seconds: 'wall clock',
  tokens: 'tokens',
  cost_usd: 'cost',
};

const SHORT: Record<BudgetDimension, string> = {
  turns: 'turns',
  tool_calls: 'tools',
  wall_clock_seconds: 'clock',
  tokens: 'tokens',
  cost_usd: 'cost',
};

/**
 * Used amounts per dimension, the wall clock counted up to now while the run is active.
 * A log read back and not yet running again (replay, the resume gate) counts up to its
 * last event: the time since a crash is not time the run used.
 */
function useUsage(): Record<BudgetDimension, number> {
  const usage = useConsole((s) => s.session.usage);
  const ticking = useConsole((s) => s.replay === null && s.gate === null && s.session.activeSince !== null && s.session.done === null);
  const activeMs = useConsole((s) => s.session.activeMs);
  const activeSince = useConsole((s) => s.session.activeSince);
  const lastAt = useConsole((s) => s.session.lastAt);
  const failedTurns = useConsole((s) => s.session.failedTurns);
  const now = useNow(ticking);
  const until = ticking ? now : activeSince !== null ? lastAt : null;
  const turns = usage.turns + failedTurns;
  return { ...usage, turns, wall_clock_seconds: until !== null ? activeSeconds({ activeMs, activeSince }, until) : usage.wall_clock_seconds };
}

/** The colour of a dimension: spent (or the one that paused the run), past the warn fraction, or fine. */
function useColours(used: Record<BudgetDimension, number>): (d: BudgetDimension) => Colour {
  const limits = useConsole((s) => s.session.limits);
  const warned = useConsole((s) => s.session.warned);
  const exhausted = useConsole((s) => s.session.exhausted);
  return (d) => {
    const limit = limits[d];
    if (exhausted === d || (limit !== null && used[d] >= limit)) return theme.danger;
    return warned.includes(d) ? theme.warn : theme.ok;
  };
}

/** The context gauge's colour: fine, past three quarters of the window, or past the window. */
function contextColour(context: ContextGauge): Colour {
  if (context.tokens >= context.window) return theme.danger;
  return context.tokens >= context.window * 0.75 ? theme.warn : theme.ok;
}

/** Tokens in few characters: `950`, `12.3k`, `1.05M`. */
function tokensShort(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Math.round(n / 100) / 10}k`;
  return `${Math.round(n / 10_000) / 100}M`;
}

/**
 * Gauges for all five budget dimensions: label and percent, then a bar and used/limit.
 * The colour turns at the warn fraction (a `budget.warn`), red when spent; the dimension
 * that paused the run is shown inverse. `compact`: one row of percentages. When the agent
 * measures its requests (`openai`), a sixth gauge shows the estimated size of the next
 * request against the context window (`~` marks the estimate).
 */
export const BudgetPanel = React.memo(function BudgetPanel({ width, compact = false }: { width: number; compact?: boolean }) {
  const used = useUsage();
  const limits = useConsole((s) => s.session.limits);
  const exhausted = useConsole((s) => s.session.exhausted);
  const colour = useColours(used);
  const context = useConsole((s) => s.context);
  // Dimensions some turn did not report (a CLI agent, a server without usage, a failed turn): a used amount is a lower bound, none is unknown.
  const unreported = useConsole((s) => s.session.unreported.join(','));
  // Used and limit in the dimension's unit, compact as a gauge has room for.
  const amounts = (d: BudgetDimension) => gaugeAmounts(d, used[d], limits[d]);
  const shown = (d: BudgetDimension) => {
    const [u] = amounts(d);
    if (!unreported.split(',').includes(d)) return u;
    return used[d] === 0 ? 'unknown' : `≥${u}`;
  };
  const percentText = (d: BudgetDimension, none: string) => {
    const p = percent(used[d], limits[d]);
    if (!unreported.split(',').includes(d)) return p === null ? none : `${p}%`;
    // Unreported: nothing known is `?`, a known part a lower bound.
    if (used[d] === 0) return '?';
    return p === null ? none : `≥${p}%`;
  };
  // Before session.start the limits are not known yet (the run is being prepared).
  const known = useConsole((s) => s.session.startedAt !== null);
  if (!known) {
    return (
      <Box height={compact ? 1 : 2} flexShrink={0}>
        <Line width={width} color={theme.muted}>
          budget: {BUDGET_DIMENSIONS.map((d) => LABEL[d]).join(', ')}, shown once the run starts
        </Line>
      </Box>
    );
  }
  if (compact) {
    return (
      <Box height={1} flexShrink={0}>
        <Line width={width}>
          {BUDGET_DIMENSIONS.map((d, i) => {
            return (
              <Text key={d}>
                {i > 0 ? ' ' : ''}
                <Text color={theme.muted} inverse={exhausted === d}>{SHORT[d]}</Text>
                <Text color={colour(d)}> {percentText(d, '∞')}</Text>
              </Text>
            );
          })}
          {context ? (
            <Text>
              <Text color={theme.muted}> ctx</Text>
              <Text color={contextColour(context)}> ~{percent(context.tokens, context.window)}%</Text>
            </Text>
          ) : null}
        </Line>
      </Box>
    );
  }
  // Every gauge's column ends in a blank cell (gauge-layout.ts): long amounts never run into the next gauge.
  const texts: GaugeText[] = BUDGET_DIMENSIONS.map((d) => ({
    label: LABEL[d],
    short: SHORT[d],
    percent: percentText(d, 'no limit'),
    percentShort: percentText(d, '∞'),
    value: `${shown(d)}/${limits[d] === null ? '∞' : amounts(d)[1]}`,
  }));
  if (context) texts.push({ label: 'context', short: 'ctx', percent: `~${percent(context.tokens, context.window)}%`, value: `~${tokensShort(context.tokens)}/${tokensShort(context.window)}` });
  const cells = layoutGauges(width, texts);
  const contextCell = context ? cells[BUDGET_DIMENSIONS.length]! : null;
  return (
    <Box flexDirection="column" height={2} flexShrink={0}>
      <Box>
        {BUDGET_DIMENSIONS.map((d, i) => {
          const cell = cells[i]!;
          return (
            <Box key={d} width={cell.width} flexShrink={0}>
              <Line width={cell.width - 1}>
                <Text bold={exhausted === d} inverse={exhausted === d} color={exhausted === d ? theme.danger : theme.muted}>
                  {cell.label}
                </Text>
                <Text color={colour(d)}> {cell.percent}</Text>
              </Line>
            </Box>
          );
        })}
        {context && contextCell ? (
          <Box width={contextCell.width} flexShrink={0}>
            <Line width={contextCell.width - 1}>
              <Text color={theme.muted}>{contextCell.label}</Text>
              <Text color={contextColour(context)}> {contextCell.percent}</Text>
            </Line>
          </Box>
        ) : null}
      </Box>
      <Box>
        {BUDGET_DIMENSIONS.map((d, i) => {
          const cell = cells[i]!;
          return (
            <Box key={d} width={cell.width} flexShrink={0}>
              <Line width={cell.width - 1}>
                {cell.bar > 0 ? <Text color={colour(d)}>{gauge(used[d], limits[d], cell.bar)} </Text> : null}
                <Text bold={exhausted === d}>{cell.value}</Text>
              </Line>
            </Box>
          );
        })}
        {context && contextCell ? <ContextCell context={context} cell={contextCell} /> : null}
      </Box>
    </Box>
  );
});

/** The second row of the context gauge: bar and estimated tokens of the window. */
function ContextCell({ context, cell }: { context: ContextGauge; cell: GaugeCell }) {
  return (
    <Box width={cell.width} flexShrink={0}>
      <Line width={cell.width - 1}>
        {cell.bar > 0 ? <Text color={contextColour(context)}>{gauge(context.tokens, context.window, cell.bar)} </Text> : null}
        <Text>{cell.value}</Text>
      </Line>
    </Box>
  );
}
