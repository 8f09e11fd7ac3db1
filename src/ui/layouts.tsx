import React, { type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { AlertBanner } from './AlertBanner.js';
import { BudgetPanel } from './BudgetPanel.js';
import { CheckpointPanel } from './CheckpointPanel.js';
import { CommandBar } from './CommandBar.js';
import { HoldStore, useConsole } from './context.js';
import type { ConsoleState } from './store.js';
import { EventDetail } from './EventDetail.js';
import { GoalPanel } from './GoalPanel.js';
import { Header } from './Header.js';
import { Line } from './Line.js';
import { HelpOverlay } from './HelpOverlay.js';
import type { LayoutPlan } from './layout.js';
import { ProgressPanel } from './ProgressPanel.js';
import { StateStrip } from './StateStrip.js';
import { StatusLine } from './StatusLine.js';
import { theme } from './theme.js';
import { Timeline } from './Timeline.js';
import { ToolPanel } from './ToolPanel.js';
import { PANES, type Pane } from './view.js';

const TITLES: Record<Pane, string> = { checkpoint: 'Checkpoint', goal: 'Goal', tool: 'Tool call', progress: 'Progress' };

/** The selected panel at `height` rows. */
function PaneBody({ pane, height, width, compact }: { pane: Pane; height: number; width: number; compact: boolean }) {
  switch (pane) {
    case 'checkpoint':
      return <CheckpointPanel height={height} width={width} compact={compact} />;
    case 'goal':
      return <GoalPanel height={height} width={width} />;
    case 'tool':
      return <ToolPanel height={height} width={width} />;
    case 'progress':
      return <ProgressPanel height={height} width={width} />;
  }
}

/** The panel tabs: every panel, the shown one highlighted; Tab moves. */
function PaneTabs({ pane, width }: { pane: Pane; width: number }) {
  return (
    <Box height={1} flexShrink={0}>
      <Line width={width}>
        <Text color={theme.border}>── </Text>
        {PANES.map((p, i) => (
          <Text key={p}>
            {i > 0 ? <Text color={theme.border}> │ </Text> : null}
            {p === pane ? (
              <Text bold inverse>
                {' '}{TITLES[p]}{' '}
              </Text>
            ) : (
              <Text color={theme.muted}>{TITLES[p]}</Text>
            )}
          </Text>
        ))}
        <Text color={theme.muted}> (tab)</Text>
      </Line>
    </Box>
  );
}

/** Whether an overlay covers the body (help or an opened event). */
const isCovered = (s: ConsoleState) => s.overlay === 'help' || s.overlay === 'event';

/**
 * The body under an overlay: it stays mounted, hidden (`display: none`, so Ink neither
 * lays it out nor draws it), and holds still while covered ({@link HoldStore}), so opening
 * and closing help or an event neither rebuilds the panels nor renders them for every
 * batch of events while they are covered.
 */
function Coverable({ covered, height, width, children }: { covered: boolean; height: number; width: number; children: ReactNode }) {
  return (
    <>
      {covered ? <Overlay height={height} width={width} /> : null}
      <Box display={covered ? 'none' : 'flex'} flexDirection="column" height={height} flexShrink={0}>
        <HoldStore held={isCovered}>{children}</HoldStore>
      </Box>
    </>
  );
}

/** The body when an overlay covers it: help or an opened event. */
function Overlay({ height, width }: { height: number; width: number }) {
  const overlay = useConsole((s) => s.overlay);
  if (overlay === 'help') return <HelpOverlay height={height} width={width} />;
  if (overlay === 'event') return <EventDetail height={height} width={width} />;
  return null;
}

/**
 * 80×24 and above: header, state strip, budget gauges, status line (those that fit:
 * `plan.topParts`), alert banner, the prompt, then the panel tabs with the shown panel and
 * the timeline, then the footer.
 */
export function FullLayout({ plan, prompt }: { plan: LayoutPlan; prompt: ReactNode }) {
  const covered = useConsole(isCovered);
  return (
    <>
      {plan.topParts > 0 ? <Header width={plan.width} /> : null}
      {plan.topParts > 1 ? <StateStrip width={plan.width} /> : null}
      {plan.topParts > 2 ? <BudgetPanel width={plan.width} /> : null}
      {plan.topParts > 3 ? <StatusLine width={plan.width} /> : null}
      {plan.banner ? <AlertBanner /> : null}
      {prompt}
      <Box flexDirection="column" height={plan.body} flexShrink={0} overflowY="hidden">
        <Coverable covered={covered} height={plan.body} width={plan.width}>
          {plan.pane === 0 ? <SingleBody height={plan.body} width={plan.width} compact={false} /> : <Panes plan={plan} />}
        </Coverable>
      </Box>
      <CommandBar width={plan.width} rows={plan.footer} />
    </>
  );
}

/** The panel tabs, the shown panel and the timeline. */
function Panes({ plan }: { plan: LayoutPlan }) {
  const pane = useConsole((s) => s.pane);
  return (
    <>
      <PaneTabs pane={pane} width={plan.width} />
      <PaneBody pane={pane} height={plan.pane} width={plan.width} compact={false} />
      <Timeline height={plan.timeline} width={plan.width} />
    </>
  );
}

/** One view in the whole body, the timeline or a panel (Tab cycles): the compact layout, or a short terminal. */
function SingleBody({ height, width, compact }: { height: number; width: number; compact: boolean }) {
  const body = useConsole((s) => s.compactBody);
  if (body === 'timeline') return <Timeline height={height} width={width} compact={compact} />;
  return (
    <>
      <Box height={1} flexShrink={0}>
        <Line width={width}>
          <Text color={theme.border}>── </Text>
          <Text bold>{TITLES[body]}</Text>
          <Text color={theme.muted}> (tab: next view)</Text>
        </Line>
      </Box>
      <PaneBody pane={body} height={Math.max(0, height - 1)} width={width} compact={compact} />
    </>
  );
}

/**
 * Below 80 columns (or 16 rows): a one-row header and budget (those that fit:
 * `plan.topParts`), the banner and prompt,
 * then one body view (the timeline or a panel; Tab cycles), then the footer.
 */
export function CompactLayout({ plan, prompt }: { plan: LayoutPlan; prompt: ReactNode }) {
  const covered = useConsole(isCovered);
  return (
    <>
      {plan.topParts > 0 ? <Header compact width={plan.width} /> : null}
      {plan.topParts > 1 ? <BudgetPanel width={plan.width} compact /> : null}
      {plan.banner ? <AlertBanner /> : null}
      {prompt}
      <Box flexDirection="column" height={plan.body} flexShrink={0} overflowY="hidden">
        <Coverable covered={covered} height={plan.body} width={plan.width}>
          <SingleBody height={plan.body} width={plan.width} compact />
        </Coverable>
      </Box>
      <CommandBar width={plan.width} rows={plan.footer} />
    </>
  );
}
