import React, { useMemo, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { alwaysAllowChoices, type AllowChoices } from '../engine/approval/always-allow.js';
import { useConsole } from './context.js';
import { shortDuration } from './format.js';
import { keyHints, type ConsoleCommand, type Scope } from './keymap.js';
import { LineView } from './LineView.js';
import { cellWidth, wrapCells, wrapWords, sanitize } from './text.js';
import { theme, type Colour } from './theme.js';
import { argsText } from './ToolPanel.js';
import { pendingScope } from './use-console-keys.js';
import { useNow } from './use-now.js';

/** The prompt as the layout places it: its height in rows and what to draw. */
export interface PromptView {
  rows: number;
  node: ReactNode;
}

/** Argument rows shown before `v` expands them. */
const COLLAPSED_ARGS = 3;
/** Rows for the reason the call is asked about; a longer one is cut at the last row. */
const MAX_WHY_ROWS = 3;

/** A scope's key hints in as many rows of `width` as they need, never splitting a hint; `omit` leaves commands out. */
export function hintRows(scope: Scope, width: number, omit: readonly ConsoleCommand[] = []): string[] {
  const rows: string[] = [];
  for (const hint of keyHints(scope, omit)) {
    const last = rows.at(-1);
    if (last !== undefined && cellWidth(`${last}  ${hint}`) <= width) rows[rows.length - 1] = `${last}  ${hint}`;
    else rows.push(hint);
  }
  return rows;
}

const STORES_INDENT = 9; // "a stores "

/**
 * The rows that say what `a` (and `A`, when the call is on the read-only list) would store:
 * each rule in full, since it is what the gate allows for the rest of the run, and what a
 * wider rule allows in words.
 */
function storeRows(choices: AllowChoices, width: number): ReactNode[] {
  const rows: ReactNode[] = [];
  const rule = (key: string, text: string) =>
    wrapCells(sanitize(text, { oneLine: true }), width - STORES_INDENT).forEach((row, i) =>
      rows.push(
        <Text wrap="truncate-end">
          <Text color={theme.muted}>{i === 0 ? `${key} stores ` : ' '.repeat(STORES_INDENT)}</Text>
          <Text bold>{row}</Text>
        </Text>,
      ),
    );
  if (choices.exact.rule === null) {
    rows.push(
      <Text wrap="truncate-end">
        <Text color={theme.muted}>a stores </Text>
        <Text color={theme.warn}>{sanitize(`nothing: ${choices.exact.why} (y approves once)`, { oneLine: true })}</Text>
      </Text>,
    );
  } else {
    rule('a', choices.exact.rule);
  }
  for (const wider of choices.wider) {
    const text = sanitize(wider.rule, { oneLine: true });
    const meaning = `  = ${sanitize(wider.meaning, { oneLine: true })}`;
    if (cellWidth(text + meaning) <= width - STORES_INDENT) {
      rows.push(
        <Text wrap="truncate-end">
          <Text color={theme.muted}>A stores </Text>
          <Text bold>{text}</Text>
          <Text color={theme.muted}>{meaning}</Text>
        </Text>,
      );
      continue;
    }
    rule('A', wider.rule);
    rows.push(
      <Text wrap="truncate-end" color={theme.muted}>
        {' '.repeat(STORES_INDENT)}
        {meaning.trimStart()}
      </Text>,
    );
  }
  return rows;
}

/** Key hints of the approval prompt: `A` only when there is a wider rule to pick. */
function toolOmit(choices: AllowChoices | null): ConsoleCommand[] {
  return choices && choices.wider.length > 0 ? [] : ['approve-wider'];
}

function frame(colour: Colour, lines: ReactNode[]): PromptView {
  const rows = lines.length + 2;
  return {
    rows,
    node: (
      <Box flexDirection="column" flexShrink={0} height={rows} borderStyle="round" borderColor={colour} paddingX={1} overflowY="hidden">
        {lines.map((line, i) => (
          <Box key={i} height={1} flexShrink={0}>
            {line}
          </Box>
        ))}
      </Box>
    ),
  };
}

/**
 * The yield the run waits on, or a question the console asks: the approval prompt (tool,
 * full arguments, the rule that asked, the exact rule `a` stores and the wider rule `A`
 * stores for a read-only call, a countdown to the
 * automatic denial), a pause with its keys, the resume gate, the quit confirmation.
 * `maxRows` bounds expanded arguments so the frame never outgrows the terminal.
 */
export function usePrompt(width: number, maxRows: number): PromptView | null {
  const pending = useConsole((s) => s.session.pending);
  const gate = useConsole((s) => s.gate);
  const quitting = useConsole((s) => s.overlay === 'quit');
  const replaying = useConsole((s) => s.replay !== null);
  const armed = useConsole((s) => s.session.pending !== null && s.armed === s.session.pending.seq);
  const expand = useConsole((s) => s.expandArgs);
  const noting = useConsole((s) => s.input === 'note');
  const line = useConsole((s) => s.line);
  const deadline = useConsole((s) => s.approvalDeadline);
  const scope = useConsole(pendingScope);
  const state = useConsole((s) => s.session.machine.state);
  const now = useNow(deadline !== null && pending?.kind === 'tool');
  const call = pending?.kind === 'tool' ? pending.call : null;
  const choices = useMemo(() => (call ? alwaysAllowChoices(call) : null), [call]);
  const inner = Math.max(10, width - 4);

  if (quitting) {
    return frame(theme.danger, [
      <Text bold color={theme.danger}>Quit while the run is live?</Text>,
      <Text wrap="truncate-end">The run stops here; its log is kept, and `loopdeck resume` continues it later.</Text>,
      ...hintRows('quit', inner).map((row) => <Text wrap="truncate-end" color={theme.accent}>{row}</Text>),
    ]);
  }
  if (gate) {
    const where =
      `The log stands at ${state}` +
      (pending?.kind === 'tool' ? `, tool call ${pending.call.name} (${pending.call.id}) issued but not finished: it runs again only if you approve it` : '') +
      (pending?.kind === 'pause' ? `, paused (${pending.reason})` : '') +
      '.';
    return frame(theme.warn, [
      <Text bold color={theme.warn} wrap="truncate-end">{gate}</Text>,
      ...wrapWords(sanitize(where, { oneLine: true }), inner).slice(0, 3).map((row) => <Text wrap="truncate-end">{row}</Text>),
      ...hintRows('gate', inner).map((row) => <Text wrap="truncate-end" color={theme.accent}>{row}</Text>),
    ]);
  }
  if (!pending) return null;

  // The key rows keep their height while the prompt arms, so the layout does not jump.
  const keys = (): ReactNode[] => {
    if (replaying) return [<Text color={theme.muted}>replay: shown as recorded; nothing can be answered</Text>];
    const rows = scope ? hintRows(scope, inner, scope === 'tool' ? toolOmit(choices) : []) : [''];
    if (!armed) return rows.map((_, i) => <Text color={theme.muted}>{i === 0 ? 'keys arm in a moment…' : ''}</Text>);
    return rows.map((row) => <Text wrap="truncate-end" color={theme.accent}>{row}</Text>);
  };

  if (pending.kind === 'tool') {
    const countdown = deadline !== null && !replaying ? ` · denied in ${shortDuration(Math.max(0, (deadline - now) / 1000))} unless answered` : '';
    const args = wrapCells(sanitize(argsText(pending.call.name, pending.call.args, inner)).replace(/\t/g, '  '), inner);
    // The reason in full where it fits (a path git treats as configuration says why at length).
    const why = wrapWords(sanitize(pending.reason ?? 'the approval rules ask about this call', { oneLine: true }), inner - 5).slice(0, MAX_WHY_ROWS);
    const stores = choices ? storeRows(choices, inner) : [];
    const fixed = 2 + 1 + why.length + stores.length + (noting ? 2 : hintRows('tool', inner, toolOmit(choices)).length) + 1; // border, title, why, stores, keys or note, more
    const room = expand ? Math.max(COLLAPSED_ARGS, maxRows - fixed - 1) : COLLAPSED_ARGS;
    const shown = args.length > room ? args.slice(0, room) : args;
    const hidden = args.length - shown.length;
    const lines: ReactNode[] = [
      <Text wrap="truncate-end">
        <Text bold color={theme.warn}>Approve tool call </Text>
        <Text bold>{sanitize(pending.call.name, { oneLine: true })}</Text>
        <Text color={theme.muted}> ({sanitize(pending.call.id, { oneLine: true })}){countdown}</Text>
      </Text>,
      ...why.map((row, i) => (
        <Text wrap="truncate-end">
          <Text color={theme.muted}>{i === 0 ? 'why  ' : '     '}</Text>
          {row}
        </Text>
      )),
      ...shown.map((row) => <Text wrap="truncate-end">{row}</Text>),
    ];
    if (hidden > 0) {
      lines.push(
        <Text color={theme.muted} wrap="truncate-end">
          … {hidden} more line{hidden === 1 ? '' : 's'}
          {expand ? ' (open the tool.call event for all)' : ' · v shows all'}
        </Text>,
      );
    }
    lines.push(...stores);
    if (noting) {
      lines.push(<LineView prefix="note to the agent › " state={line} width={inner} />);
      lines.push(<Text color={theme.muted}>enter: deny with this note · esc: back to the prompt</Text>);
    } else {
      lines.push(...keys());
    }
    return frame(theme.warn, lines);
  }

  const title = pending.cause.kind === 'operator' ? 'Paused by the operator' : `Paused: ${pending.reason}`;
  const text = wrapWords(sanitize(pending.prompt, { oneLine: true }), inner).slice(0, 3);
  return frame(theme.warn, [
    <Text bold color={theme.warn} wrap="truncate-end">{title}</Text>,
    ...text.map((row) => <Text wrap="truncate-end">{row}</Text>),
    ...keys(),
  ]);
}
