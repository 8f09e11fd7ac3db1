import React from 'react';
import { Text } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { useConsole } from './context.js';
import { Line } from './Line.js';
import { Rows } from './Rows.js';
import { compactNumber, gauge } from './format.js';
import { assessmentRows, memoryRows } from './memory-rows.js';
import { commitsText, filesText, selectProgress } from './progress.js';
import { theme } from './theme.js';
import { verifyOutcome } from './describe.js';
import { wrapWords, sanitize } from './text.js';

const clean = (t: string) => sanitize(t, { oneLine: true });

/** Two bars on one scale: this lap's request size and the same request in one long session. */
function lapGauges(request: number, long: number, width: number): React.ReactNode[] {
  const scale = Math.max(request, long, 1);
  const bar = Math.max(5, Math.min(30, width - 36));
  return [
    <Line width={width} key="req">
      <Text color={theme.muted}>request this lap    </Text>
      <Text color={theme.ok}>{gauge(request, scale, bar)}</Text> {compactNumber(request)} chars
    </Line>,
    <Line width={width} key="long">
      <Text color={theme.muted}>as one long session </Text>
      <Text color={theme.warn}>{gauge(long, scale, bar)}</Text> {compactNumber(long)} chars
    </Line>,
  ];
}

/**
 * Where the work stands: the pattern's plan or attempts, laps with request sizes,
 * workspace progress, the agent's own assessment of the criteria beside the harness's
 * measurement, the execution memory of the last checkpoint, the verifier's verdict on the
 * agent's claim with the failing command's output, an abort's report and how to
 * restore the workspace, or why a run ended `failed` (nothing was parked).
 */
export const ProgressPanel = React.memo(function ProgressPanel({ height, width }: { height: number; width: number }) {
  const { pattern, plan, planDone, plans, failedAt, reflections, lap, maxLaps, unchanged, git, commits, verify, claim, abort, failed, handover, request, long, memory, assessment } = useConsole(
    useShallow(selectProgress),
  );
  const rows: React.ReactNode[] = [];
  if (pattern === 'plan-and-execute') {
    rows.push(
      <Line width={width} key="plan">
        <Text color={theme.muted}>plan        </Text>
        step {Math.min(planDone + 1, plan.length)}/{plan.length} · {Math.max(0, plans - 1)} replan(s):{' '}
        {plan.map((step, i) => (
          <Text key={i} color={failedAt === i ? theme.danger : i < planDone ? theme.ok : i === planDone ? theme.accent : theme.muted}>
            {i > 0 ? ' › ' : ''}
            {failedAt === i ? '✗' : i < planDone ? '✓' : ''}
            {clean(step)}
          </Text>
        ))}
      </Line>,
    );
  } else if (pattern === 'reflexion') {
    rows.push(
      <Line width={width} key="attempt">
        <Text color={theme.muted}>attempt     </Text>
        {Math.max(plans, 1)} · {reflections.length} reflection(s) so far
      </Line>,
    );
    for (const r of reflections.slice(-3)) {
      rows.push(
        <Line width={width} key={`r${r.attempt}`} color={theme.muted}>
          {'  '}after attempt {r.attempt}: {clean(r.text)}
        </Line>,
      );
    }
  } else {
    rows.push(
      <Line width={width} key="react">
        <Text color={theme.muted}>pattern     </Text>
        {pattern ?? '-'}: one open-ended step, repeated until the verifier passes or a limit ends it
      </Line>,
    );
  }
  rows.push(
    <Line width={width} key="lap">
      <Text color={theme.muted}>laps        </Text>
      {maxLaps === null ? 'off (one long session)' : `lap ${lap}/${maxLaps}, each with a fresh agent`}
    </Line>,
    ...lapGauges(request, long, width),
    ...(handover === null
      ? []
      : [
          <Line width={width} key="handover">
            <Text color={theme.muted}>progress    </Text>
            {handover === '' ? <Text color={theme.muted}>no progress file yet</Text> : sanitize(handover, { oneLine: true })}
          </Line>,
        ]),
    <Line width={width} key="ws">
      <Text color={theme.muted}>workspace   </Text>
      <Text color={unchanged === 'unknown' ? theme.muted : unchanged >= 3 ? theme.warn : undefined}>{filesText(unchanged, git)}</Text>
      <Text color={theme.muted}> · </Text>
      {commitsText(commits, maxLaps !== null)}
    </Line>,
    ...assessmentRows(assessment, width),
    ...memoryRows(memory, width),
  );
  // The verdict and an abort come first: they matter most and must not be cut.
  const first: React.ReactNode[] = [];
  if (claim !== null) {
    first.push(
      <Line width={width} key="claim" color={theme.warn}>
        <Text color={theme.muted}>claim       </Text>? awaiting verification: {clean(claim)}
      </Line>,
    );
  } else if (verify) {
    const failed = verify.commands.filter((c) => !c.passed);
    first.push(
      <Line width={width} key="verify">
        <Text color={theme.muted}>{verify.trigger === 'claim' ? 'claim       ' : 'verify      '}</Text>
        <Text bold color={verify.passed ? theme.ok : theme.danger}>
          {verify.passed ? '✓ verified' : '✗ refuted'}
        </Text>
        <Text color={theme.muted}> · {verify.commands.map((c) => `${clean(c.command)} → ${clean(verifyOutcome(c))}`).join(', ')}</Text>
      </Line>,
    );
    for (const c of failed.slice(0, 1)) {
      const lines = sanitize(c.output).replace(/\t/g, '  ').split('\n').filter((l) => l.trim() !== '');
      for (const [i, line] of lines.slice(-4).entries()) {
        first.push(
          <Line width={width} key={`out${i}`} color={theme.muted}>
            {'  │ '}
            {line}
          </Line>,
        );
      }
    }
  }
  if (failed !== null) {
    first.unshift(
      // Why the agent could not go on is the error to act on: wrapped, not cut (three rows at most).
      ...wrapWords(clean(failed), Math.max(20, width - 14))
        .slice(0, 3)
        .map((row, i) => (
          <Line width={width} key={`failed${i}`} color={theme.danger}>
            <Text color={theme.muted}>{i === 0 ? 'failed      ' : '            '}</Text>
            {row}
          </Line>
        )),
      <Line width={width} key="failed-ws">
        <Text color={theme.muted}>workspace   </Text>as the agent left it: nothing stashed, no failure report
      </Line>,
    );
  }
  if (abort) {
    first.unshift(
      <Line width={width} key="abort" color={theme.danger}>
        <Text color={theme.muted}>aborted     </Text>report {clean(abort.report)} · workspace {clean(abort.stash)}
      </Line>,
      ...wrapWords(clean(abort.restore), Math.max(20, width - 14))
        .slice(0, 3)
        .map((row, i) => (
          <Line width={width} key={`restore${i}`}>
            <Text color={theme.muted}>{i === 0 ? 'restore     ' : '            '}</Text>
            <Text bold>{row}</Text>
          </Line>
        )),
    );
  }
  return <Rows height={height} items={[...first, ...rows]} />;
});
