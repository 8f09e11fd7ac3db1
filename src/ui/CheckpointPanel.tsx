import React, { useMemo } from 'react';
import { Box, Text } from 'ink';
import { diffCheckpoint, type ReportedDiff } from '../engine/checkpoint-diff.js';
import type { EvidenceStatus, SignalDiff } from '../engine/index.js';
import { useConsole } from './context.js';
import { Line } from './Line.js';
import { Rows } from './Rows.js';
import { targetTestRows } from './target-tests-rows.js';
import { sanitize, wrapWords } from './text.js';
import { theme, type Colour } from './theme.js';
import { counted } from '../text/index.js';

const MOVE: Record<SignalDiff['move'], { mark: string; colour: Colour }> = {
  baseline: { mark: 'baseline', colour: theme.muted },
  wanted: { mark: 'moved as wanted', colour: theme.ok },
  flat: { mark: 'no change', colour: theme.warn },
  regressed: { mark: 'REGRESSED', colour: theme.danger },
  missing: { mark: 'MISSING', colour: theme.danger },
};

const EVIDENCE: Record<EvidenceStatus, { mark: string; colour: Colour }> = {
  found_passing: { mark: 'found passing', colour: theme.ok },
  found_failing: { mark: 'found failing', colour: theme.danger },
  not_found: { mark: 'not found', colour: theme.warn },
};

const FIELDS: Array<[keyof ReportedDiff, string]> = [
  ['new_evidence', 'evidence'],
  ['eliminated_hypotheses', 'eliminated'],
  ['remaining_hypotheses', 'remaining'],
];

/**
 * `text` in at most `rows` rows of `width` cells, broken at spaces that fit (measured with
 * {@link wrapWords}); what does not fit joins the last row, which is cut where it is drawn.
 */
export function foldRows(text: string, width: number, rows: number): string[] {
  const wrapped = wrapWords(text, width);
  if (wrapped.length <= rows) return wrapped;
  const kept = wrapped.slice(0, Math.max(0, rows - 1));
  return [...kept, wrapped.slice(kept.length).join(' ')];
}

const value = (n: number | null) => (n === null ? 'missing' : String(n));
const clean = (t: string) => sanitize(t, { oneLine: true });

/** Why an `UNKNOWN` checkpoint measured nothing (its counter is kept, never advanced). */
function UnknownLine({ why, inRow, width }: { why: string | undefined; inRow: number | undefined; width: number }) {
  return (
    <Line width={width}>
      <Text bold color={theme.warn}>
        UNKNOWN{inRow !== undefined && inRow > 1 ? ` (${inRow} in a row)` : ''}:
      </Text>{' '}
      {clean(why ?? 'no tracked signal was measured')}
      <Text color={theme.muted}> · counter kept</Text>
    </Line>
  );
}

/**
 * The title's browsing keys for checkpoint `index` (0-based) of `count`: only those that do
 * something there (`[ earlier` past the first, `] later` before the newest), after
 * `browsing:` while an earlier checkpoint is shown; `''` when neither key moves.
 */
export function browseHint(index: number, count: number, browsing: boolean): string {
  const keys = [...(index > 0 ? ['[ earlier'] : []), ...(index < count - 1 ? ['] later'] : [])];
  if (keys.length === 0) return '';
  return ` · ${browsing ? 'browsing: ' : ''}${keys.join(', ')}`;
}

/**
 * What the checkpoint panel says before any checkpoint: when the next comes (one every
 * `every` iterations), that none is taken in this session (`every` 0 once it started:
 * nothing is measured), or, before the session starts, only that there is none yet.
 */
export function noCheckpointText(started: boolean, every: number): string {
  if (every > 0) return `No checkpoint yet (one every ${every === 1 ? 'iteration' : counted(every, 'iteration')}).`;
  return started ? 'No checkpoints: nothing is measured in this session.' : 'No checkpoint yet.';
}

/**
 * One checkpoint as an observed-versus-reported diff: each observed signal before → after
 * with its wanted direction and move (regressions and missing values stand out), the
 * target tests that flipped each way since the last checkpoint (`target-tests-rows.tsx`), each
 * reported field as the items said at no earlier checkpoint and a count of those said again
 * (a claim not repeated is not a removal, and one said again after a pause is not new:
 * reports are what the agent said in the interval, not a state), each evidence
 * claim with what the harness found, and the verdict with the stagnation counter and the
 * rule that produced it (`why`, one line).
 * `[` and `]` browse earlier checkpoints.
 */
export const CheckpointPanel = React.memo(function CheckpointPanel({ height, width, compact = false }: { height: number; width: number; compact?: boolean }) {
  const count = useConsole((s) => s.session.checkpoints.length);
  const index = useConsole((s) => (s.checkpoint === null ? s.session.checkpoints.length - 1 : Math.min(s.checkpoint, s.session.checkpoints.length - 1)));
  const checkpoints = useConsole((s) => s.session.checkpoints);
  const current = checkpoints[index];
  const previous = index > 0 ? checkpoints[index - 1] : undefined;
  // Reported items are compared with every earlier report (said again, not new, when they come back).
  const diff = useMemo(() => (current ? diffCheckpoint(checkpoints.slice(0, index), current) : null), [checkpoints, index, current]);
  const every = useConsole((s) => s.session.checkpointEvery);
  // Known once session.start is folded: 0 then means no checkpoint is ever taken (a watch without observers, an import).
  const started = useConsole((s) => s.session.startedAt !== null);
  const browsing = useConsole((s) => s.checkpoint !== null);
  if (!current || !diff) {
    return (
      <Box height={height} flexShrink={0}>
        <Line width={width} color={theme.muted}>{noCheckpointText(started, every)}</Line>
      </Box>
    );
  }
  // A baseline after checkpoints that measured nothing is the first measured one, not the first.
  const firstMeasured = current.status === 'BASELINE' && !current.baseline && current.index > 0;
  // Side by side (full layout): observed on the left (its box pads one cell), reported on the right.
  const half = Math.floor(width / 2);
  const left = compact ? width : half - 1;
  const right = compact ? width : width - half;
  const verdictColour = diff.stagnation_detected ? theme.danger : diff.status === 'PROGRESS_OBSERVED' ? theme.ok : diff.status === 'BASELINE' ? theme.muted : theme.warn;
  const title = (
    <Line width={width}>
      <Text bold>
        #{diff.index + 1}/{count}
      </Text>
      <Text color={theme.muted}> · {current.baseline ? 'baseline at the run start' : `iteration ${diff.iteration}${firstMeasured ? ' · first measured' : ''}`} · </Text>
      <Text bold color={verdictColour}>{diff.verdict}</Text>
      <Text color={theme.muted}> · counter </Text>
      <Text bold color={diff.stagnation_detected ? theme.danger : undefined}>
        {diff.counter}/{diff.threshold}
      </Text>
      <Text color={theme.muted}>{browseHint(index, count, browsing)}</Text>
    </Line>
  );
  // The rule that produced the verdict, from the recorded checkpoint: one line, folded onto
  // a second row when it is wider than the panel and the panel has room.
  const why = foldRows(`why ${clean(diff.explanation)}`, width, height >= 6 ? 2 : 1).map((row, i) => (
    <Line width={width} key={`why${i}`}>
      {i === 0 ? <Text color={theme.muted}>why </Text> : null}
      {i === 0 ? row.replace(/^why ?/, '') : row}
    </Line>
  ));
  const observed = [
    <Line width={left} key="h">
      <Text bold>observed (measured)</Text>
      <Text color={theme.muted}> observed_progress {String(diff.observed_progress)}</Text>
    </Line>,
    ...(current.status === 'UNKNOWN' ? [<UnknownLine key="unknown" why={current.unknown_why} inRow={current.unknown_in_row} width={left} />] : []),
    ...diff.signals.map((s) => (
      <Line width={left} key={s.signal}>
        {clean(s.signal.replace(/^observed\./, ''))} {s.move === 'baseline' && s.before === null ? '—' : value(s.before)} → <Text color={s.after === null ? theme.danger : undefined}>{value(s.after)}</Text>
        <Text color={theme.muted}> want {s.direction === 'decrease' ? '↓' : '↑'} </Text>
        <Text bold={s.move === 'regressed' || s.move === 'missing'} color={MOVE[s.move].colour}>
          {MOVE[s.move].mark}
        </Text>
      </Line>
    )),
    ...targetTestRows(current.target_tests, left),
    ...(current.observer_errors ?? []).map((e, i) => (
      <Line width={left} key={`err${i}`} color={theme.danger}>
        observer error: {clean(e)}
      </Line>
    )),
  ];
  if (diff.signals.length === 0) observed.push(<Line width={left} key="none" color={theme.muted}>no observed signals configured</Line>);
  const fields = [
    <Line width={right} key="h">
      <Text bold color={theme.claim}>reported (claims){previous ? ` vs #${previous.index === 0 ? '1' : `1–#${previous.index + 1}`}` : ''}</Text>
      <Text color={theme.muted}> claimed_progress {String(diff.claimed_progress)}</Text>
    </Line>,
    ...FIELDS.filter(([field]) => field !== 'new_evidence').map(([field, label]) => {
      const { added, repeated } = diff.reported[field] as { added: string[]; repeated: string[] };
      return (
        <Line width={right} key={field}>
          <Text color={theme.muted}>{label.padEnd(10)} </Text>
          {added.length === 0 ? <Text color={theme.muted}>no change</Text> : null}
          {added.map((item, i) => (
            <Text key={`a${i}`} color={theme.ok}>
              +{clean(item)}{' '}
            </Text>
          ))}
          {repeated.length > 0 ? <Text color={theme.muted}>{added.length === 0 ? ' ' : ''}({repeated.length} said again)</Text> : null}
        </Line>
      );
    }),
  ];
  const newClaims = diff.reported.new_evidence.added;
  const evidence = [
    <Line width={width} key="eh">
      <Text bold color={theme.claim}>evidence </Text>
      <Text color={theme.muted}>
        {diff.evidence.length === 0 ? 'none claimed' : `${counted(diff.evidence.length, 'claim')}, ${newClaims.length} new (not claimed at an earlier checkpoint)`}
      </Text>
    </Line>,
    ...diff.evidence.map((e, i) => (
      <Line width={width} key={`e${i}`}>
        {' '}
        <Text color={EVIDENCE[e.status].colour}>[{EVIDENCE[e.status].mark}]</Text> “{clean(e.evidence_ref)}” <Text color={theme.muted}>{clean(e.claim)}</Text>
      </Line>
    )),
  ];
  if (compact) return <Rows height={height} items={[title, ...why, ...observed, ...fields, ...evidence]} />;
  const head = Math.min(1 + why.length, height);
  const columns = Math.max(0, Math.min(height - head, Math.max(observed.length, fields.length)));
  return (
    <Box flexDirection="column" height={height} overflowY="hidden" flexShrink={0}>
      <Box height={1} flexShrink={0}>
        {title}
      </Box>
      {head > 1 ? <Rows height={head - 1} items={why} /> : null}
      <Box flexDirection="row" height={columns} flexShrink={0}>
        <Box width={half} flexShrink={0} paddingRight={1}>
          <Rows height={columns} items={observed} />
        </Box>
        <Box width={width - half} flexShrink={0}>
          <Rows height={columns} items={fields} />
        </Box>
      </Box>
      <Rows height={height - head - columns} items={evidence} />
    </Box>
  );
});
