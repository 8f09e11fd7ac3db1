import React from 'react';
import { Box, Text } from 'ink';
import { useConsole } from './context.js';
import { callEventHeld, pausedCall, shownCall, timelineCall, unmadeCallShown } from './tool-history.js';
import type { ToolCall } from '../engine/index.js';
import { Line } from './Line.js';
import { Rows } from './Rows.js';
import { theme } from './theme.js';
import { sanitize, withOtherSpaces, wrapCells, wrapWords } from './text.js';

export { callIdOf } from './tool-history.js';

/**
 * Arguments as text, in full: a shell command as `$ command`; flat arguments as
 * `key: value` rows, a multi-line value as an indented block after `key: |`; anything
 * nested as JSON (on one line when it fits `width`). Untrusted: sanitize before display.
 */
export function argsText(name: string, args: Record<string, unknown>, width = Infinity): string {
  const entries = Object.entries(args);
  if (name === 'shell' && typeof args.command === 'string' && entries.length === 1) return `$ ${args.command}`;
  const flat = entries.every(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
  if (flat && entries.length > 0) {
    return entries
      .map(([key, value]) => {
        const text = String(value);
        return text.includes('\n') ? `${key}: |\n${text.replace(/\n$/, '').split('\n').map((l) => `  ${l}`).join('\n')}` : `${key}: ${text}`;
      })
      .join('\n');
  }
  const json = JSON.stringify(args);
  return json.length <= width ? json : JSON.stringify(args, null, 2);
}

/**
 * Where the panel stands in the run's calls, its title: `call 12 of 40`, whether that is
 * the live call, one selected in the timeline or an earlier one stepped back to (then in
 * the warning colour, with how many calls came after it), and the keys that move.
 */
function TitleLine({ width, position, count, how }: { width: number; position: number; count: number; how: 'live' | 'selected' | 'earlier' }) {
  const newer = count - position;
  return (
    <Line width={width}>
      <Text bold>
        call {position} of {count}
      </Text>
      {how === 'earlier' ? (
        <Text color={theme.warn} bold>
          {' '}· earlier call{newer > 0 ? `, ${newer} newer` : ''}
        </Text>
      ) : (
        <Text color={theme.muted}> · {how === 'selected' ? 'selected in the timeline' : 'latest'}</Text>
      )}
      <Text color={theme.muted}>{moveKeys(position, count, how === 'live')}</Text>
    </Line>
  );
}

/** The keys that move from the call shown: `[ older` unless it is the first, `] newer` unless it is the newest, `end live` unless it is the live one. */
function moveKeys(position: number, count: number, live: boolean): string {
  const steps = [position > 1 ? '[ older' : '', !live && position < count ? '] newer' : ''].filter(Boolean).join(' ');
  const parts = [steps, live ? '' : 'end live'].filter(Boolean);
  return parts.length > 0 ? ` · ${parts.join(' · ')}` : '';
}

/** A call's arguments wrapped for the panel's `width` (rows of `width - 6` cells, after `args `). */
function wrappedArgs(call: ToolCall, width: number): string[] {
  return wrapCells(withOtherSpaces(sanitize(argsText(call.name, call.args, width - 6)).replace(/\t/g, '  ')), Math.max(10, width - 6));
}

/** Wrapped arguments ({@link wrappedArgs}) as the panel's rows: the first three and a count of the rest. */
function argRows(args: readonly string[], width: number, more: string): React.ReactNode[] {
  return [
    ...args.slice(0, 3).map((line, i) => (
      <Line width={width}>
        <Text color={theme.muted}>{i === 0 ? 'args ' : '     '}</Text>
        {line}
      </Line>
    )),
    ...(args.length > 3
      ? [
          <Line width={width} color={theme.muted}>
            {'     '}… {args.length - 3} more line(s); {more}
          </Line>,
        ]
      : []),
  ];
}

/**
 * The call a repetition pause is about, which the guard stopped before it was made: the
 * live view shows it after the calls made (`call N+1 of N+1`), says it has not run, and
 * `[` steps back to the last call made.
 */
function UnmadeCall({ call, position, height, width }: { call: ToolCall; position: number; height: number; width: number }) {
  const items: React.ReactNode[] = [
    <Line width={width}>
      <Text bold>
        call {position} of {position}
      </Text>
      <Text color={theme.warn} bold>
        {' '}· not made: the repetition pause is about it
      </Text>
      <Text color={theme.muted}>{moveKeys(position, position, true)}</Text>
    </Line>,
    <Line width={width}>
      <Text bold>{sanitize(call.name, { oneLine: true })}</Text>
      <Text color={theme.muted}> ({sanitize(call.id, { oneLine: true })}) · </Text>
      <Text color={theme.warn} bold>
        stopped before it ran
      </Text>
    </Line>,
    ...argRows(wrappedArgs(call, width), width, "the pause's prompt and the repetition.detected event have them all"),
    <Line width={width} color={theme.muted}>
      output
    </Line>,
    <Line width={width} color={theme.muted}>
      {' '}(none: continuing runs it, stopping ends the run without it)
    </Line>,
  ];
  return <Rows height={height} items={items} />;
}

/**
 * One tool call in full: where it stands in the run's calls (title), name and id, the
 * decision, status, exit code, duration, arguments and output. Shows the live call (the
 * one of the event selected in the timeline, else the newest) or, once the operator
 * stepped back with `[`, that earlier call, which stays while new calls arrive (End goes
 * back to the live call). The calls come from the session fold, which keeps every call of
 * the run; a call whose events the console no longer holds says so. At a repetition pause
 * the live view is the call the pause is about, not made yet ({@link UnmadeCall}), and it
 * counts as the last call whichever call is shown. Output the command wrote beyond what
 * was kept says so (`truncated from N bytes`, as the timeline does).
 */
export const ToolPanel = React.memo(function ToolPanel({ height, width }: { height: number; width: number }) {
  const unmade = useConsole(unmadeCallShown);
  const index = useConsole(shownCall);
  const how = useConsole((s) => (s.toolCall !== null ? 'earlier' : timelineCall(s) !== null ? 'selected' : 'live'));
  const record = useConsole((s) => (index === null ? undefined : s.session.tools.get(s.session.toolOrder[index]!)));
  const made = useConsole((s) => s.session.toolOrder.length);
  // At a repetition pause the call not made yet is the last of the run's calls, whichever call is shown: the count stays put while stepping.
  const count = useConsole((s) => s.session.toolOrder.length + (pausedCall(s) ? 1 : 0));
  const held = useConsole((s) => index !== null && callEventHeld(s, index));
  if (unmade) return <UnmadeCall call={unmade} position={made + 1} height={height} width={width} />;
  if (!record || index === null) {
    return (
      <Box height={height} flexShrink={0}>
        <Line width={width} color={theme.muted}>No tool call yet.</Line>
      </Box>
    );
  }
  const { call, decision, result, error } = record;
  const args = wrappedArgs(call, width);
  const statusColour = error || (result && result.status !== 'ok') ? theme.danger : result ? theme.ok : theme.warn;
  const head = (
    <Line width={width}>
      <Text bold>{sanitize(call.name, { oneLine: true })}</Text>
      <Text color={theme.muted}> ({sanitize(call.id, { oneLine: true })}) · </Text>
      <Text color={statusColour} bold>
        {record.refused ? 'refused before it was made' : error ? 'error' : result ? result.status : decision?.decision === 'approve' || record.by === 'agent' ? 'running' : 'awaiting decision'}
        {record.by === 'agent' ? ' · run by the agent' : ''}
      </Text>
      {result ? (
        <Text color={theme.muted}>
          {' '}· exit {result.exit_code ?? 'none'} · {result.duration_ms} ms
        </Text>
      ) : null}
      {held ? null : <Text color={theme.muted}> · older than the events held</Text>}
    </Line>
  );
  const decided = decision ? (
    <Line width={width} color={theme.muted}>
      {decision.decision === 'approve' ? 'approved' : 'denied'} by {decision.by}
      {decision.note ? `: ${sanitize(decision.note, { oneLine: true })}` : ''}
    </Line>
  ) : null;
  const outputText = error ?? result?.output ?? '';
  const before = 2 + (decided ? 1 : 0) + Math.min(args.length, 3) + (args.length > 3 ? 1 : 0) + 1;
  const budget = Math.max(1, height - before);
  // An error is one sentence (why a call failed or was refused): wrapped to the panel, not cut.
  const lines = sanitize(outputText).replace(/\t/g, '  ').replace(/\s+$/, '').split('\n');
  const output = error ? lines.flatMap((line) => wrapWords(line, Math.max(10, width - 1))) : lines;
  const tail = output.length > budget ? output.slice(-budget) : output;
  const items: React.ReactNode[] = [
    <TitleLine width={width} position={index + 1} count={count} how={how} />,
    head,
    ...(decided ? [decided] : []),
    ...argRows(args, width, held ? 'open the tool.call event (enter) for all' : "the run's events.jsonl has them all"),
    <Line width={width} color={theme.muted}>
      output{output.length > tail.length ? ` (last ${tail.length} of ${output.length} lines)` : ''}
      {result?.truncated ? ` · truncated from ${result.output_bytes ?? '?'} bytes` : ''}
    </Line>,
    ...(outputText === ''
      ? [<Line width={width} color={theme.muted}> (none)</Line>]
      : tail.map((line) => (
          <Line width={width}>
            {' '}
            {line}
          </Line>
        ))),
  ];
  return <Rows height={height} items={items} />;
});
