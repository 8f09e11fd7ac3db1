import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { shortDuration } from './format.js';
import { Line } from './Line.js';
import { cellWidth, sanitize, truncateCells } from './text.js';
import { stateColour, theme } from './theme.js';
import { useNow } from './use-now.js';

/** The pattern's progress: plan step and replans, attempt and reflections; `''` for ReAct. */
function usePatternProgress(): string {
  const pattern = useConsole((s) => s.session.pattern);
  const planLength = useConsole((s) => s.session.plan.length);
  const planDone = useConsole((s) => s.session.planDone);
  const plans = useConsole((s) => s.session.plans);
  const reflections = useConsole((s) => s.session.reflections.length);
  if (pattern === 'plan-and-execute') {
    if (plans === 0) return 'planning';
    const replans = plans - 1;
    return `plan step ${Math.min(planDone + 1, planLength)}/${planLength} · ${replans} replan${replans === 1 ? '' : 's'}`;
  }
  if (pattern === 'reflexion') {
    return `attempt ${Math.max(plans, 1)} · ${reflections} reflection${reflections === 1 ? '' : 's'}`;
  }
  return '';
}

/** Run time from the first event to now (live) or to the last event (finished, replay), less the time between a quit and its resume (`offlineMs`). */
function useElapsed(): string {
  const startedAt = useConsole((s) => s.session.startedAt);
  const lastAt = useConsole((s) => s.session.lastAt);
  const offlineMs = useConsole((s) => s.session.offlineMs);
  const ticking = useConsole((s) => s.replay === null && s.gate === null && s.session.startedAt !== null && s.session.done === null);
  const now = useNow(ticking);
  if (startedAt === null) return '-';
  // The time between a quit and the resume is not the run's: no process ran it.
  return shortDuration(Math.max(0, (ticking ? now : (lastAt ?? startedAt)) - startedAt - offlineMs) / 1000);
}

/** A loud marker when the run's loop.yaml switched the built-in approval gates off (`session.start`). */
function useGatesOff() {
  const off = useConsole((s) => s.session.builtinGates === 'off');
  return off ? <Text bold color={theme.danger}>APPROVAL GATES OFF · </Text> : null;
}

/**
 * Goal objective and run id (before the run's `session.start`, those the launcher knew:
 * `preparing` in the store); pattern, state, iteration (as `max_iterations` counts them, failed
 * turns included and named), lap, elapsed time and the
 * pattern's progress; in a replay, the event shown. `compact`: one row. A run without the
 * built-in approval gates says so first on the state row. Every row is cut by the console
 * to `width` cells (`Line`), never by Ink; on the title row the goal gives way first, the
 * revision mark and the run id (at most half the row, more where the goal leaves it) stay whole.
 */
export const Header = React.memo(function Header({ compact = false, width }: { compact?: boolean; width: number }) {
  // Before the fold has a session.start: what the launcher knew (the outline's goal and run id).
  const run = useConsole((s) => s.session.session ?? s.preparing?.run ?? null);
  const pattern = useConsole((s) => s.session.pattern);
  const state = useConsole((s) => s.session.machine.state);
  // Iterations as max_iterations counts them (the turns gauge, the budget): a failed turn is spent too.
  const turn = useConsole((s) => s.session.usage.turns + s.session.failedTurns);
  const failed = useConsole((s) => s.session.failedTurns);
  const maxTurns = useConsole((s) => s.session.limits.turns);
  const lap = useConsole((s) => s.session.lap);
  const maxLaps = useConsole((s) => s.session.maxLaps);
  const objective = useConsole((s) => s.session.goal?.objective ?? s.preparing?.objective ?? null);
  const revision = useConsole((s) => s.session.goal?.revision ?? 0);
  const status = useConsole((s) => s.session.goal?.status ?? null);
  const done = useConsole((s) => s.session.done?.reason ?? null);
  const replayIndex = useConsole((s) => s.replay?.index ?? null);
  const replayTotal = useConsole((s) => s.replay?.total ?? 0);
  const shownEvent = useConsole((s) => (s.replay ? s.events[s.shown - 1] : undefined));
  const progress = usePatternProgress();
  const gatesOff = useGatesOff();
  const elapsed = useElapsed();
  const goal = objective === null ? '(not started)' : sanitize(objective, { oneLine: true });
  const lapText = maxLaps !== null ? `lap ${lap}/${maxLaps}` : null;
  const iteration = `iteration ${turn}${maxTurns !== null ? `/${maxTurns}` : ''}${failed > 0 ? ` (${failed} failed)` : ''}`;
  const replay =
    replayIndex !== null ? (
      <Text color={theme.claim} bold>
        replay {replayIndex + 1}/{replayTotal}
        {shownEvent ? <Text color={theme.muted}> #{shownEvent.seq} {shownEvent.type}</Text> : null}
        {'  '}
      </Text>
    ) : null;
  const stateText = (
    <Text>
      <Text bold color={stateColour[state]}>{state}</Text>
      {done ? <Text color={done === 'goal_met' ? theme.ok : theme.danger}> ({done})</Text> : null}
    </Text>
  );
  if (compact) {
    return (
      <Box height={1} flexShrink={0}>
        <Line width={width}>
          {gatesOff}
          {replay}
          {stateText}
          <Text color={theme.muted}> · it {turn}{maxTurns !== null ? `/${maxTurns}` : ''}{lapText ? ` · ${lapText}` : ''} · </Text>
          {goal}
        </Line>
      </Box>
    );
  }
  const mark = revision > 0 ? ` [rev ${revision}, ${status}]` : '';
  const title = 'loopdeck ';
  // At most half the row when the goal needs the rest; all a short goal leaves when it does not.
  // The revision mark takes its cells from the goal, not from the run id: only a row too narrow for both cuts the id.
  const runRoom = Math.min(Math.max(Math.floor(width / 2), width - cellWidth(title) - cellWidth(goal) - cellWidth(mark)), width - cellWidth(title) - cellWidth(mark));
  const runText = truncateCells(` run ${run === null ? '-' : sanitize(run, { oneLine: true })}`, Math.max(0, runRoom));
  const left = width - cellWidth(runText);
  return (
    <Box flexDirection="column" height={2} flexShrink={0}>
      <Box>
        <Box flexGrow={1} flexShrink={1}>
          <Line width={left}>
            <Text bold color={theme.accent}>{title}</Text>
            <Text bold>{truncateCells(goal, left - cellWidth(title) - cellWidth(mark))}</Text>
            {mark ? <Text color={theme.warn}>{mark}</Text> : null}
          </Line>
        </Box>
        <Box flexShrink={0}>
          <Text color={theme.muted}>{runText}</Text>
        </Box>
      </Box>
      <Line width={width}>
        {gatesOff}
        {replay}
        <Text color={theme.muted}>{pattern === null ? '-' : sanitize(pattern, { oneLine: true })} · </Text>
        {stateText}
        <Text color={theme.muted}> · </Text>
        {iteration}
        {lapText ? <Text color={theme.muted}> · {lapText}</Text> : null}
        <Text color={theme.muted}> · {elapsed}</Text>
        {progress ? <Text color={theme.muted}> · {progress}</Text> : null}
      </Line>
    </Box>
  );
});
