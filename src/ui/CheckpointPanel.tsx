import React from 'react';
import { Box, Text, useStdout } from 'ink';
import type { CheckpointRecord, EvidenceStatus, SignalDiff } from '../engine/index.js';
import { useConsole } from './context.js';
import { sanitize } from './sanitize.js';
import { Section } from './Section.js';
import { theme } from './theme.js';

const MOVE: Record<SignalDiff['move'], { mark: string; colour: string }> = {
  baseline: { mark: 'baseline', colour: theme.muted },
  wanted: { mark: 'moved as wanted', colour: theme.ok },
  flat: { mark: 'no change', colour: theme.warn },
  regressed: { mark: 'REGRESSED', colour: theme.danger },
  missing: { mark: 'MISSING', colour: theme.danger },
};

const EVIDENCE: Record<EvidenceStatus, { mark: string; colour: string }> = {
  found_passing: { mark: 'found, passing', colour: theme.ok },
  found_failing: { mark: 'found, failing', colour: theme.danger },
  not_found: { mark: 'not found', colour: theme.warn },
};

const value = (n: number | null) => (n === null ? 'missing' : String(n));

function Observed({ checkpoint, width }: { checkpoint: CheckpointRecord; width: number }) {
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>
        observed (measured) <Text color={theme.muted}>observed_progress {String(checkpoint.observed_progress)}</Text>
      </Text>
      {checkpoint.signals.map((s) => (
        <Text key={s.signal} wrap="truncate-end">
          {s.signal.replace(/^observed\./, '').padEnd(14)} {value(s.before)} → {value(s.after)}{' '}
          <Text color={theme.muted}>want {s.direction === 'decrease' ? '↓' : '↑'} </Text>
          <Text color={MOVE[s.move].colour}>{MOVE[s.move].mark}</Text>
        </Text>
      ))}
      {(checkpoint.observer_errors ?? []).map((e) => (
        <Text key={e} color={theme.danger} wrap="truncate-end">
          observer error: {sanitize(e, { oneLine: true })}
        </Text>
      ))}
    </Box>
  );
}

function Reported({ checkpoint, width }: { checkpoint: CheckpointRecord; width: number }) {
  const { reported, evidence } = checkpoint;
  const list = (items: string[]) => (items.length === 0 ? '—' : items.map((i) => sanitize(i, { oneLine: true })).join(', '));
  return (
    <Box flexDirection="column" width={width}>
      <Text bold color={theme.claim}>
        reported (claims) <Text color={theme.muted}>claimed_progress {String(checkpoint.claimed_progress)}</Text>
      </Text>
      <Text wrap="truncate-end">
        <Text color={theme.muted}>eliminated </Text>
        {list(reported.eliminated_hypotheses)}
      </Text>
      <Text wrap="truncate-end">
        <Text color={theme.muted}>remaining  </Text>
        {list(reported.remaining_hypotheses)}
      </Text>
      {evidence.slice(-2).map((e, i) => (
        <Text key={`${i}-${e.evidence_ref}`} wrap="truncate-end">
          <Text color={EVIDENCE[e.status].colour}>[{EVIDENCE[e.status].mark}]</Text> “{sanitize(e.evidence_ref, { oneLine: true })}”
        </Text>
      ))}
    </Box>
  );
}

/** The latest checkpoint as an observed-versus-reported diff. */
export function CheckpointPanel() {
  const checkpoint = useConsole((s) => s.session.checkpoints[s.session.checkpoints.length - 1]);
  const every = useConsole((s) => s.session.checkpointEvery);
  const { stdout } = useStdout();
  const half = Math.floor(((stdout.columns ?? 80) - 2) / 2);
  if (!checkpoint) {
    return <Section title="Checkpoint" detail={<Text color={theme.muted}>none yet (every {every} iterations)</Text>} />;
  }
  const verdictColour = checkpoint.status === 'PROGRESS_OBSERVED' ? theme.ok : checkpoint.status === 'BASELINE' ? theme.muted : theme.warn;
  const detail = (
    <Text>
      <Text color={theme.muted}>#{checkpoint.index + 1} · iteration {checkpoint.iteration} · </Text>
      <Text bold color={verdictColour}>{checkpoint.status}</Text>
      <Text color={theme.muted}> · counter </Text>
      <Text bold color={checkpoint.stagnation_detected ? theme.danger : undefined}>
        {checkpoint.counter}/{checkpoint.threshold}
      </Text>
    </Text>
  );
  return (
    <Section title="Checkpoint" detail={detail}>
      <Box flexDirection="row">
        <Observed checkpoint={checkpoint} width={half} />
        <Reported checkpoint={checkpoint} width={half} />
      </Box>
    </Section>
  );
}
