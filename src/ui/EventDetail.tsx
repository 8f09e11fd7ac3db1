import React from 'react';
import { Box, Text } from 'ink';
import type { LoopEvent } from '../engine/index.js';
import { useConsole } from './context.js';
import { eventBySeq, LIVE_EVENTS } from './store.js';
import { describeEvent } from './describe.js';
import { Line } from './Line.js';
import { theme } from './theme.js';
import { keysText } from './keymap.js';
import { wrapCells, wrapJoinable, wrapWords, sanitize } from './text.js';

/** One row of the detail view; `dim` rows are what the agent reported about itself (its reasoning). */
export interface DetailRow {
  text: string;
  dim: boolean;
  /** A continuation of the row above (a line too long for one row): drawn from the first column, so rows copied together join back. */
  flush?: boolean;
}

/**
 * An event's data as rows: indented JSON, untrusted text sanitized, wrapped to `width`.
 * A model turn's reasoning is left out of the JSON and shown after it as its own dimmed
 * section, in its own lines: it is what the model reported, not what it answered or did.
 */
export function eventDetailRows(event: LoopEvent, width: number): DetailRow[] {
  const cells = Math.max(10, width);
  const reasoning = event.type === 'model.call' ? event.data.response.reasoning : undefined;
  const data = reasoning === undefined || event.type !== 'model.call' ? event.data : { ...event.data, response: { ...event.data.response, reasoning: undefined } };
  const json = withRealLines(JSON.stringify(data, null, 2));
  // Strings inside JSON are already escaped (\u001b); a multi-line string is shown as its
  // lines, which sanitize makes safe like any other text. An item of a list of strings
  // wraps at spaces under its `- `, so a message is not broken mid-word.
  const rows = sanitize(json)
    .replace(/\t/g, '  ')
    .split('\n')
    .flatMap((line) => wrapItem(line, cells));
  if (!reasoning) return rows;
  const said = wrapCells(sanitize(reasoning).replace(/\t/g, '  '), cells - 2).map((text) => ({ text: `  ${text}`, dim: true }));
  return [...rows, { text: '', dim: false }, { text: 'reasoning (reported by the model, not observed):', dim: true }, ...said];
}

/**
 * One line of the detail in rows of `cells`: a list item (`- text`) wraps at spaces with its
 * text indented under it; any other line (a JSON string value: a path, a restore command)
 * wraps at the width with its continuation rows drawn from the first column and nothing
 * inserted, so copying the rows gives the value back ({@link wrapJoinable}).
 */
function wrapItem(line: string, cells: number): DetailRow[] {
  const item = /^(\s*)- /.exec(line);
  const pad = item ? item[0].length : 0;
  if (!item || pad >= cells - 4) {
    // The first row keeps the panel's margin of one cell; continuation rows start at the first column.
    return wrapJoinable(line, cells).map((text, i) => ({ text, dim: false, ...(i > 0 ? { flush: true } : {}) }));
  }
  const [first = '', ...rest] = wrapWords(line.slice(pad), cells - pad);
  return [`${item[0]}${first}`, ...rest.map((row) => `${' '.repeat(pad)}${row}`)].map((text) => ({ text, dim: false }));
}

/** A JSON line holding a string value (after an optional key), with the string's escaped text. */
const STRING_LINE = /^(\s*)("(?:[^"\\]|\\.)*": )?"((?:[^"\\]|\\.)*)",?$/;

/**
 * Indented JSON with every string that holds line breaks shown as its lines: `"output": |`,
 * then each line indented under it (tool output, a command, a file's content read as
 * written, not as one `\n`-escaped string); and every string of a list as its text after
 * `- ` (error messages, plan steps: `- budget.max_iterations: expected "unlimited"…`, not
 * `"…expected \"unlimited\"…",`).
 */
export function withRealLines(json: string): string {
  return json
    .split('\n')
    .flatMap((line) => {
      const m = STRING_LINE.exec(line);
      if (!m) return [line];
      // A string without a key is an item of a list (JSON objects key every value).
      const listed = m[2] === undefined;
      if (!listed && !m[3]!.includes('\\n')) return [line];
      const text = JSON.parse(`"${m[3]}"`) as string;
      const pad = `${m[1]}  `;
      const lines = text.replace(/\n$/, '').split('\n');
      if (listed) return [`${m[1]}- ${lines[0]}`, ...lines.slice(1).map((l) => `${pad}${l}`)];
      return [`${m[1]}${m[2] ?? ''}|`, ...lines.map((l) => `${pad}${l}`)];
    })
    .join('\n');
}

/** The rows of {@link eventDetailRows} as text. */
export function eventRows(event: LoopEvent, width: number): string[] {
  return eventDetailRows(event, width).map((row) => row.text);
}

/** The keys that close an opened event, from the key map: `esc or enter`. */
const CLOSE_KEYS = keysText('event', 'close');

/** One event opened from the timeline: its envelope and all of its data. ↑/↓ scroll, the keys of {@link CLOSE_KEYS} close it. */
export const EventDetail = React.memo(function EventDetail({ height, width }: { height: number; width: number }) {
  const seq = useConsole((s) => s.opened);
  const event = useConsole((s) => (seq === null ? undefined : eventBySeq(s.events, seq)));
  const scroll = useConsole((s) => s.scroll);
  if (!event) {
    return (
      <Box flexDirection="column" height={height} flexShrink={0}>
        <Line width={width} color={theme.muted}>
          {seq === null ? '' : `Event #${seq} is no longer held by the console (it keeps the newest ${LIVE_EVENTS.toLocaleString('en-US')}); the run's log has it. ${CLOSE_KEYS} closes.`}
        </Line>
      </Box>
    );
  }
  const rows = eventDetailRows(event, width - 2);
  if (height <= 0) return null;
  // Within `height` whatever it is: the title, the footer (how to close it), the data, then the summary row.
  const footer = height >= 2;
  const summary = height >= 4;
  const visible = Math.max(0, height - 1 - (footer ? 1 : 0) - (summary ? 1 : 0));
  const start = Math.max(0, Math.min(scroll, rows.length - visible));
  return (
    <Box flexDirection="column" height={height} overflowY="hidden" flexShrink={0}>
      <Line width={width}>
        <Text color={theme.border}>── </Text>
        <Text bold>Event #{event.seq} {event.type}</Text>
        <Text color={theme.muted}> at {new Date(event.at).toISOString()} · session {sanitize(event.session, { oneLine: true })}</Text>
      </Line>
      {summary ? (
        <Line width={width} color={theme.muted}>
          {describeEvent(event)}
        </Line>
      ) : null}
      {rows.slice(start, start + visible).map((row, i) => (
        <Line width={width} key={i} dimColor={row.dim}>
          {row.flush ? '' : ' '}
          {row.text}
        </Line>
      ))}
      {footer ? (
        <Line width={width} color={theme.muted}>
          {rows.length > visible ? `${visible === 0 ? `${rows.length} lines, no room to show them` : `lines ${start + 1}-${Math.min(rows.length, start + visible)} of ${rows.length}`} · ↑/↓ scroll · ` : ''}
          {CLOSE_KEYS} closes
        </Line>
      ) : null}
    </Box>
  );
});
