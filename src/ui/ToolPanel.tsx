import React from 'react';
import { Box, Text } from 'ink';
import type { LoopEvent } from '../engine/index.js';
import { useConsole } from './context.js';
import { eventBySeq } from './store.js';
import { Line } from './Line.js';
import { Rows } from './Rows.js';
import { theme } from './theme.js';
import { wrapCells, sanitize } from './text.js';

/** The tool call an event is about, if any. */
export function callIdOf(event: LoopEvent | undefined): string | null {
  if (!event) return null;
  switch (event.type) {
    case 'tool.call':
      return event.data.call.id;
    case 'tool.ask':
    case 'tool.decision':
      return event.data.call_id;
    case 'tool.result':
      return event.data.result.call_id;
    case 'tool.error':
      return event.data.call_id;
    default:
      return null;
  }
}

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
 * One tool call in full: name and id, arguments, the decision, status, exit code,
 * duration and output. Shows the call of the selected timeline event, else the latest.
 */
export const ToolPanel = React.memo(function ToolPanel({ height, width }: { height: number; width: number }) {
  const selectedId = useConsole((s) => {
    if (s.follow || s.selected === null) return null;
    const seq = s.selected;
    return callIdOf(eventBySeq(s.events, seq));
  });
  const latestId = useConsole((s) => s.session.toolOrder[s.session.toolOrder.length - 1] ?? null);
  const id = selectedId ?? latestId;
  const record = useConsole((s) => (id === null ? undefined : s.session.tools[id]));
  const count = useConsole((s) => s.session.toolOrder.length);
  const position = useConsole((s) => (id === null ? 0 : s.session.toolOrder.indexOf(id) + 1));
  if (!record) {
    return (
      <Box height={height} flexShrink={0}>
        <Line width={width} color={theme.muted}>No tool call yet.</Line>
      </Box>
    );
  }
  const { call, decision, result, error } = record;
  const args = wrapCells(sanitize(argsText(call.name, call.args, width - 6)).replace(/\t/g, '  '), Math.max(10, width - 6));
  const statusColour = error || (result && result.status !== 'ok') ? theme.danger : result ? theme.ok : theme.warn;
  const head = (
    <Line width={width}>
      <Text bold>{sanitize(call.name, { oneLine: true })}</Text>
      <Text color={theme.muted}> ({sanitize(call.id, { oneLine: true })}) · call {position} of {count}{selectedId ? ' · selected in the timeline' : ' · latest'} · </Text>
      <Text color={statusColour} bold>
        {error ? 'error' : result ? result.status : decision?.decision === 'approve' || record.by === 'agent' ? 'running' : 'awaiting decision'}
        {record.by === 'agent' ? ' · run by the agent' : ''}
      </Text>
      {result ? (
        <Text color={theme.muted}>
          {' '}· exit {result.exit_code ?? 'none'} · {result.duration_ms} ms
        </Text>
      ) : null}
    </Line>
  );
  const decided = decision ? (
    <Line width={width} color={theme.muted}>
      {decision.decision === 'approve' ? 'approved' : 'denied'} by {decision.by}
      {decision.note ? `: ${sanitize(decision.note, { oneLine: true })}` : ''}
    </Line>
  ) : null;
  const outputText = error ?? result?.output ?? '';
  const before = 1 + (decided ? 1 : 0) + Math.min(args.length, 3) + (args.length > 3 ? 1 : 0) + 1;
  const budget = Math.max(1, height - before);
  const output = sanitize(outputText).replace(/\t/g, '  ').replace(/\s+$/, '').split('\n');
  const tail = output.length > budget ? output.slice(-budget) : output;
  const items: React.ReactNode[] = [
    head,
    ...(decided ? [decided] : []),
    ...args.slice(0, 3).map((line, i) => (
      <Line width={width}>
        <Text color={theme.muted}>{i === 0 ? 'args ' : '     '}</Text>
        {line}
      </Line>
    )),
    ...(args.length > 3 ? [<Line width={width} color={theme.muted}>     … {args.length - 3} more line(s); open the tool.call event (enter) for all</Line>] : []),
    <Line width={width} color={theme.muted}>
      output{output.length > tail.length ? ` (last ${tail.length} of ${output.length} lines)` : ''}
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
