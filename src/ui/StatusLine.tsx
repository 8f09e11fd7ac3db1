import React from 'react';
import { Box, Text } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { useConsole } from './context.js';
import { compactNumber } from './format.js';
import { commitsText, filesText, verdictText } from './progress.js';
import { Line } from './Line.js';
import { sanitize } from './text.js';
import { theme } from './theme.js';
import { useNow } from './use-now.js';
import { waitText } from './wait.js';

/**
 * One row of where the work stands: an abort's report (or why the run failed) first, then what the run waits on
 * (the model, with its time and silence against their limits; a retry's countdown; a
 * tool against its limit), the lap and its request size
 * against one long session, workspace progress (unknown said as unknown), the verifier's
 * verdict on the agent's claim. The progress panel has the detail.
 */
export const StatusLine = React.memo(function StatusLine({ width }: { width: number }) {
  const lap = useConsole((s) => s.session.lap);
  const maxLaps = useConsole((s) => s.session.maxLaps);
  const request = useConsole((s) => s.session.requestChars);
  const long = useConsole((s) => s.session.longSessionChars);
  const workspaceGit = useConsole((s) => s.session.workspaceGit);
  const unchanged = useConsole((s) => s.session.unchangedSteps);
  const commits = useConsole((s) => s.session.lapCommits);
  const verdict = useConsole(useShallow((s) => verdictText(s.session)));
  const abort = useConsole((s) => s.session.abort?.report ?? null);
  const failed = useConsole((s) => (s.session.done?.reason === 'failed' ? s.session.done.summary : null));
  const wait = useConsole((s) => s.wait);
  const now = useNow(wait !== null);
  const parts: React.ReactNode[] = [];
  if (abort) parts.push(<Text key="abort" bold color={theme.danger}>aborted: report {sanitize(abort, { oneLine: true })}</Text>);
  if (failed !== null) parts.push(<Text key="failed" bold color={theme.danger}>failed: {sanitize(failed, { oneLine: true })}</Text>);
  if (wait) {
    const { text, late } = waitText(wait, now);
    parts.push(<Text key="wait" color={late ? theme.warn : theme.accent}>{sanitize(text, { oneLine: true })}</Text>);
  }
  if (maxLaps !== null) {
    parts.push(
      <Text key="lap">
        lap {lap}/{maxLaps} <Text color={theme.muted}>request {compactNumber(request)} vs one session {compactNumber(long)}</Text>
      </Text>,
    );
  }
  if (workspaceGit === null) {
    parts.push(<Text key="ws" color={theme.muted}>workspace progress not measured yet</Text>);
  } else if (unchanged === 'unknown' && commits === 'unknown') {
    parts.push(<Text key="ws" color={theme.muted}>workspace progress unknown (not git)</Text>);
  } else {
    parts.push(
      <Text key="files" color={unchanged === 'unknown' ? theme.muted : unchanged >= 3 ? theme.warn : undefined}>
        {filesText(unchanged, workspaceGit === true)}
      </Text>,
      <Text key="commits" color={commits === 'unknown' ? theme.muted : undefined}>{commitsText(commits, maxLaps !== null)}</Text>,
    );
  }
  if (verdict) {
    parts.push(
      <Text key="verdict" bold color={verdict.ok === null ? theme.warn : verdict.ok ? theme.ok : theme.danger}>
        {verdict.ok === null ? '? ' : verdict.ok ? '✓ ' : '✗ '}
        {sanitize(verdict.text, { oneLine: true })}
      </Text>,
    );
  }
  return (
    <Box height={1} flexShrink={0}>
      <Line width={width}>
        {parts.map((part, i) => (
          <Text key={i}>
            {i > 0 ? <Text color={theme.border}> · </Text> : null}
            {part}
          </Text>
        ))}
      </Line>
    </Box>
  );
});
