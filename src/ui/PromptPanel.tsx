import { pauseReasonLabel } from '../engine/reasons.js';
import React, { useMemo, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import { alwaysAllowChoices, type AllowChoices } from '../engine/approval/always-allow.js';
import type { ToolCall } from '../engine/types.js';
import { useConsole, useConsoleOptions } from './context.js';
import { shortDuration } from './format.js';
import { keyHints, keysText, shortHints, type ConsoleCommand, type Scope } from './keymap.js';
import { Line } from './Line.js';
import { caretColumn, LineView, useLineViewport } from './LineView.js';
import { raisedPausePrompt } from './budget-pause.js';
import { reloadPromptRows } from './reload-prompt.js';
import { condenseBlanks, elideMiddle, headAndTail, argsTextOf, argsRows, withLineMarks } from './prompt-layout.js';
import { cellWidth, truncateCells, wrapWords, sanitize, withOtherSpaces } from './text.js';
import { theme, type Colour } from './theme.js';
import { pendingScope } from './use-console-keys.js';
import { useNow } from './use-now.js';

/** The prompt as the layout places it: its height in rows and what to draw. */
export interface PromptView {
  rows: number;
  node: ReactNode;
  /** Where the caret of a text field in the prompt (the deny note) is, in cells from the box's top-left corner. */
  caret?: { x: number; y: number };
  /**
   * While help or an opened event covers the console: the prompt as two rows without its border (its title and
   * how to get back to it), for a terminal where the whole prompt would leave what covers it
   * too few rows.
   */
  covered?: PromptView;
}

/** Argument rows the prompt shows at most (`v` opens all of them). */
const ARGS_ROWS = 6;
/** Rows for the reason the call is asked about; a longer one is cut at the last row. */
const MAX_WHY_ROWS = 3;

/**
 * A scope's key hints in as many rows of `width` as they need, never splitting a hint;
 * `omit` leaves commands out; `brief`, by their brief labels (`[y] once`); `gap`, what
 * separates two hints on a row.
 */
export function hintRows(scope: Scope, width: number, omit: readonly ConsoleCommand[] = [], brief = false, gap = '  '): string[] {
  const rows: string[] = [];
  for (const hint of keyHints(scope, omit, brief)) {
    const last = rows.at(-1);
    if (last !== undefined && cellWidth(`${last}${gap}${hint}`) <= width) rows[rows.length - 1] = `${last}${gap}${hint}`;
    else rows.push(hint);
  }
  return rows;
}

/**
 * A scope's key hints in rows of `width`, each hint whole: in full where every hint fits a
 * row, else in their short forms (`[y] quit  [n] stay`; help lists every key).
 */
export function wholeHintRows(scope: Scope, width: number): string[] {
  const full = keyHints(scope);
  if (full.every((hint) => cellWidth(hint) <= width)) return hintRows(scope, width);
  return shortRows(scope, width);
}

/**
 * A prompt's key rows: in full, unless a prompt of `besides` other rows and these would
 * leave the footer (the command bar's row) no row of the `live` rows under it even without
 * its border and the fixed top; then by their brief labels when those take fewer rows (a
 * 40×6 terminal: `[y] once  [a] always  [A] wider` / `[n] deny  [d] note  [v] args`).
 * Help (`?`) says what each key does in full.
 */
export function promptKeyRows(scope: Scope, width: number, omit: readonly ConsoleCommand[], besides: number, live: number): string[] {
  const full = hintRows(scope, width, omit);
  if (besides + full.length + 1 <= live) return full;
  const brief = hintRows(scope, width, omit, true);
  return brief.length < full.length ? brief : full;
}

/** How the approval prompt's keys are laid out in a terminal `width` wide with `live` rows. */
export interface KeyLayout {
  /** The key rows, every key whole. */
  rows: string[];
  /** Rows left for the rest: 2, the title and the command (and more where there is room); 1, the command; 0, none. */
  besides: number;
  /** Drawn without the border, one cell from the left edge, with one space between hints (the least room). */
  tight: boolean;
}

/**
 * The approval prompt's key rows, laid out before anything else so that every key shows
 * whole with the command bar's row under them: the keys in full, else by their brief
 * labels, else by their brief labels one space apart in all but the first column; the
 * title, then the command, give their rows up before the keys take these shorter forms
 * (a prompt at 30×5: the command and two rows of keys; at 20×5: three rows of keys).
 */
export function promptKeyLayout(scope: Scope, width: number, omit: readonly ConsoleCommand[], live: number): KeyLayout {
  const inner = Math.max(10, width - 4);
  const forms = [
    { rows: hintRows(scope, inner, omit), tight: false },
    { rows: hintRows(scope, inner, omit, true), tight: false },
    { rows: hintRows(scope, Math.max(10, width - 1), omit, true, ' '), tight: true },
  ];
  // A form with a hint wider than its row would be cut: it is no choice.
  const whole = (f: { rows: string[]; tight: boolean }) => f.rows.every((row) => cellWidth(row) <= (f.tight ? Math.max(10, width - 1) : inner));
  for (const besides of [2, 1, 0]) {
    const form = forms.find((f) => besides + f.rows.length + 1 <= live && whole(f));
    if (form) return { ...form, besides };
  }
  // Too few rows for any: the form that shows every key whole in the fewest rows (the top and the footer's notice give theirs up).
  const usable = forms.filter(whole);
  return { ...(usable.length > 0 ? usable : forms).reduce((least, f) => (f.rows.length < least.rows.length ? f : least)), besides: 0 };
}

const STORES_INDENT = 9; // "a stores "
/** The deny note's prompt, before the typed text. */
const NOTE_PREFIX = 'note to the agent › ';
/** The deny note's prompt in a narrow prompt, where the whole one would leave fewer than {@link NOTE_ROOM} cells to type in. */
const NOTE_PREFIX_SHORT = 'note › ';
const NOTE_ROOM = 12;

/**
 * The rows that say what `a` (and `A`, when the call is on the read-only list) would store:
 * each rule on one row (a long one by its start and its end: the command itself is shown
 * above), and what a wider rule allows in words.
 */
function storeRows(choices: AllowChoices, inner: number): ReactNode[] {
  const rows: ReactNode[] = [];
  const room = inner - STORES_INDENT;
  if (choices.exact.rule === null) {
    // Why nothing can be stored, over two rows at most (the prompt shows as many as it has room for).
    const why = fitRows(wrapWords(sanitize(`nothing: ${choices.exact.why} (y approves once)`, { oneLine: true }), room), 2, room);
    why.forEach((row, i) =>
      rows.push(
        <Line width={inner}>
          <Text color={theme.muted}>{i === 0 ? 'a stores ' : ' '.repeat(STORES_INDENT)}</Text>
          <Text color={theme.warn}>{row}</Text>
        </Line>,
      ),
    );
  } else {
    rows.push(
      <Line width={inner}>
        <Text color={theme.muted}>a stores </Text>
        <Text bold>{elideMiddle(withOtherSpaces(sanitize(withLineMarks(choices.exact.rule), { oneLine: true })), room)}</Text>
      </Line>,
    );
  }
  for (const wider of choices.wider) {
    const text = withOtherSpaces(sanitize(wider.rule, { oneLine: true }));
    const meaning = `  = ${sanitize(wider.meaning, { oneLine: true })}`;
    if (cellWidth(text + meaning) <= room) {
      rows.push(
        <Line width={inner}>
          <Text color={theme.muted}>A stores </Text>
          <Text bold>{text}</Text>
          <Text color={theme.muted}>{meaning}</Text>
        </Line>,
      );
      continue;
    }
    rows.push(
      <Line width={inner}>
        <Text color={theme.muted}>A stores </Text>
        <Text bold>{elideMiddle(text, room)}</Text>
      </Line>,
    );
    rows.push(
      <Line width={inner} color={theme.muted}>
        {' '.repeat(STORES_INDENT)}
        {truncateCells(meaning.trimStart(), room)}
      </Line>,
    );
  }
  return rows;
}

/** Key hints of the approval prompt: `a` only when there is an exact rule to store, `A` only when there is a wider rule to pick. */
function toolOmit(choices: AllowChoices | null): ConsoleCommand[] {
  const omit: ConsoleCommand[] = [];
  if (choices === null || choices.exact.rule === null) omit.push('approve-always');
  if (choices === null || choices.wider.length === 0) omit.push('approve-wider');
  return omit;
}

/** At most `max` of `rows` (none when `max` < 1); when some are left out, the last one shown ends in `…`. */
function fitRows(rows: string[], max: number, width: number): string[] {
  if (rows.length <= max) return rows;
  if (max < 1) return [];
  const shown = rows.slice(0, max);
  shown[max - 1] = truncateCells(`${shown[max - 1]!} …`, width);
  return shown;
}

/**
 * Warnings in at most `room` rows of `width` cells: each whole, marked `! `, its wrapped rows
 * indented under it; those that do not fit are counted on the last row instead
 * (`… and 3 more warnings`), never cut silently.
 */
export function warningRows(warnings: readonly string[], width: number, room: number): string[] {
  const blocks = warnings.map((w) => wrapWords(sanitize(w, { oneLine: true }), width - 2).map((row, i) => `${i === 0 ? '! ' : '  '}${row}`));
  const all = blocks.flat();
  if (all.length <= room) return all;
  if (room < 1) return [];
  const rows: string[] = [];
  let shown = 0;
  for (const block of blocks) {
    if (rows.length + block.length > room - 1) break;
    rows.push(...block);
    shown += 1;
  }
  // Not even the first warning fits whole: as much of it as fits, cut with `…`.
  if (shown === 0 && room > 1) rows.push(...fitRows(blocks[0]!, room - 1, width));
  const left = warnings.length - shown;
  const more = `… ${shown === 0 ? `${left} warning${left === 1 ? '' : 's'} (the first cut)` : `and ${left} more warning${left === 1 ? '' : 's'}`}; validate lists them all`;
  return [...rows.slice(0, room - 1), truncateCells(more, width)];
}

/**
 * The prompt's box: `lines` inside a round border, or, where the border does not fit in
 * `room` with them (the rows under the top and above a one-row footer: a terminal of 8 or 9
 * rows), the same lines without it, indented as inside it, so the command bar under the
 * prompt keeps its row; `tight`, without the border one cell from the left edge (the
 * approval prompt's keys in the least room). `caret`: where a text
 * field's caret is among the lines (cell, line), placed for the box drawn.
 */
function frame(colour: Colour, lines: ReactNode[], room: number, caret?: { x: number; y: number }, tight = false): PromptView {
  const bordered = !tight && lines.length + 2 <= room;
  const rows = bordered ? lines.length + 2 : lines.length;
  const content = lines.map((line, i) => (
    <Box key={i} height={1} flexShrink={0}>
      {line}
    </Box>
  ));
  return {
    rows,
    node: bordered ? (
      <Box flexDirection="column" flexShrink={0} height={rows} borderStyle="round" borderColor={colour} paddingLeft={1} paddingRight={1} overflowY="hidden">
        {content}
      </Box>
    ) : (
      // The same padding props either way: a prop that goes away sets Ink's padding on that side to 0.
      <Box flexDirection="column" flexShrink={0} height={rows} paddingLeft={tight ? 1 : 2} paddingRight={tight ? 0 : 2} overflowY="hidden">
        {content}
      </Box>
    ),
    // Inside the border (one cell) and the padding (one); without the border, a padding of two.
    ...(caret ? { caret: { x: (tight ? 1 : 2) + caret.x, y: (bordered ? 1 : 0) + caret.y } } : {}),
  };
}

/** Rows of arguments the arguments view keeps before it shows its own key rows (the footer lists the same keys). */
const ARGS_VIEW_FIRST = 4;
/** Rows of arguments the arguments view keeps before it gives its border up. */
const ARGS_VIEW_BORDERED = 3;

/**
 * How the arguments view fills `maxRows`: its own key rows only where they leave
 * {@link ARGS_VIEW_FIRST} rows of arguments, its border only where it leaves
 * {@link ARGS_VIEW_BORDERED}, and every other row for the arguments.
 */
function argsViewLayout(maxRows: number, inner: number): { keys: string[]; border: boolean; rows: number } {
  const keys = hintRows('args', inner);
  if (maxRows - 3 - keys.length >= ARGS_VIEW_FIRST) return { keys, border: true, rows: maxRows - 3 - keys.length };
  if (maxRows - 3 >= ARGS_VIEW_BORDERED) return { keys: [], border: true, rows: maxRows - 3 };
  return { keys: [], border: false, rows: Math.max(1, maxRows - 1) };
}

/**
 * Rows the arguments view takes: `maxRows` (the prompt's rows at most), and where that
 * leaves fewer than {@link ARGS_VIEW_FIRST} rows of arguments, the rows the fixed top gives
 * up too, as for the approval prompt: at most all of the `live` rows but the footer's last,
 * and no more than the `total` rows of arguments need (a one-row call takes no row from the top).
 */
function argsViewMax(maxRows: number, live: number, total = Infinity): number {
  return Math.max(maxRows, Math.min(live - 1, 1 + Math.min(ARGS_VIEW_FIRST, total)));
}

/**
 * Rows of arguments the arguments view shows with the prompt's `maxRows` in `live` rows, for
 * arguments longer than that (the scroll keys page by them; shorter ones do not scroll).
 */
export function argsViewRows(maxRows: number, inner: number, live = Infinity): number {
  return argsViewLayout(argsViewMax(maxRows, live), inner).rows;
}

/** The arguments view's title, shorter when the whole one is wider than `inner`: the rows shown and of how many stay in view. */
function argsTitle(call: ToolCall, first: number, last: number, total: number, inner: number): ReactNode {
  const name = sanitize(call.name, { oneLine: true });
  const id = sanitize(call.id, { oneLine: true });
  const rows = `rows ${first}–${last} of ${total}`;
  const whole = cellWidth(`Arguments of ${name} (${id}) · ${rows}`) <= inner;
  return (
    <Line width={inner}>
      {whole ? <Text bold color={theme.warn}>Arguments of </Text> : null}
      <Text bold>{whole ? name : truncateCells(name, Math.max(4, inner - cellWidth(` · ${rows}`) - 1))}</Text>
      {whole ? <Text color={theme.muted}> ({id})</Text> : null}
      <Text color={theme.muted}> · {rows}</Text>
    </Line>
  );
}

/** The arguments view (`v`): every row of the call's arguments, scrolled to `scroll`, with its keys. */
function argsView(call: ToolCall, inner: number, maxRows: number, scroll: number, room: number): PromptView {
  const rows = argsRows(call, inner);
  const { keys, border, rows: shown } = argsViewLayout(maxRows, inner);
  const first = Math.max(0, Math.min(scroll, rows.length - shown));
  const window = rows.slice(first, first + shown);
  const last = first + window.length;
  return frame(theme.warn, [
    argsTitle(call, first + 1, last, rows.length, inner),
    ...window.map((row) => <Line width={inner}>{row}</Line>),
    ...Array.from({ length: shown - window.length }, () => <Text> </Text>),
    ...keys.map((row) => <Line width={inner} color={theme.accent}>{row}</Line>),
  ], border ? room : 0);
}

/** What the prompt shows in place of its keys while help is open: help takes the keys, so they would not answer. */
export const HELP_OPEN_HINT = `close help (${keysText('help', 'close')}) to answer the prompt`;
/**
 * What the quit confirmation says in `room` rows of `width`: the whole sentence with the
 * resume command when it fits, else the command first (its start and its end when even it
 * does not fit: the exit line prints it whole).
 */
export function quitText(resumeCommand: string, width: number, room: number): string[] {
  const said = wrapWords(`The run stops here; its log is kept, and \`${resumeCommand}\` continues it later.`, width);
  if (said.length <= room) return said;
  const command = wrapWords(resumeCommand, width);
  if (room >= 2 && command.length <= room - 1) return ['Log kept; continue it later with:', ...command];
  if (command.length <= room) return command;
  const cut = elideMiddle(resumeCommand, width);
  return room >= 2 ? ['Log kept; continue it later with:', cut] : [cut];
}

/**
 * How the quit confirmation fills its rows in `inner` cells: the resume command whole comes
 * first (the fixed top gives its rows up for it: at most every `live` row but the footer's
 * last), then its title, then its key rows (in full, else `[y] quit  [n] stay`), which the
 * footer lists too; the sentence around the command only where `maxRows` leaves room for it.
 */
export function quitLayout(resumeCommand: string, inner: number, maxRows: number, frameRoom: number, live: number): { title: boolean; keys: string[]; text: string[] } {
  const full = wholeHintRows('quit', inner);
  const short = shortRows('quit', inner);
  // A confirmation goes before the timeline: it may take the rows above a one-row footer.
  const asked = Math.max(1, Math.min(3, Math.max(maxRows, Math.min(frameRoom, 3 + full.length + 3)) - 3 - full.length));
  const command = wrapWords(resumeCommand, inner).length;
  const text = quitText(resumeCommand, inner, Math.max(asked, command));
  const most = live - 1;
  const choices: Array<{ title: boolean; keys: string[] }> = [
    { title: true, keys: full },
    { title: true, keys: short },
    { title: true, keys: [] },
    { title: false, keys: [] },
  ];
  for (const choice of choices) if ((choice.title ? 1 : 0) + text.length + choice.keys.length <= most) return { ...choice, text };
  // Not even the command whole fits: as much of it as the rows hold.
  return { title: false, keys: [], text: quitText(resumeCommand, inner, Math.max(1, most)) };
}

/** A scope's key hints in their short forms (`[y] quit`), in rows of `width`. */
function shortRows(scope: Scope, width: number): string[] {
  const rows: string[] = [];
  for (const hint of shortHints(scope)) {
    const last = rows.at(-1);
    if (last !== undefined && cellWidth(`${last}  ${hint}`) <= width) rows[rows.length - 1] = `${last}  ${hint}`;
    else rows.push(hint);
  }
  return rows;
}

/** The quit confirmation's title, the first that fits the row (never cut). */
const QUIT_TITLES = ['Quit while the run is live?', 'Quit the live run?', 'Quit?'];

/** What an armed prompt says in place of its keys while an opened event takes them. */
export const EVENT_OPEN_HINT = `close the event (${keysText('event', 'close')}) to answer the prompt`;

/**
 * The yield the run waits on, or a question the console asks: the approval prompt (tool,
 * full arguments, the rule that asked, the exact rule `a` stores and the wider rule `A`
 * stores for a read-only call, a countdown to the
 * automatic denial), a pause with its keys, the resume gate, the quit confirmation.
 * `maxRows` bounds expanded arguments so the frame never outgrows the terminal; `frameRoom`
 * is what the prompt may take with a one-row footer under it: a prompt taller than that with
 * its border is drawn without it; `live` is the terminal's rows the console draws in (its
 * rows less one), which a prompt's keys in full may leave no row of for the command bar.
 */
export function usePrompt(width: number, maxRows: number, frameRoom = Infinity, live = Infinity): PromptView | null {
  const pending = useConsole((s) => s.session.pending);
  const gate = useConsole((s) => s.gate);
  const quitting = useConsole((s) => s.overlay === 'quit');
  const quitArmed = useConsole((s) => s.quitArmed);
  const { resumeCommand } = useConsoleOptions();
  const replaying = useConsole((s) => s.replay !== null);
  const armed = useConsole((s) => s.session.pending !== null && s.armed === s.session.pending.seq);
  const viewing = useConsole((s) => s.overlay === 'args');
  // Help owns the keys while open (an answer needs a single press at an armed prompt the operator is looking at): the prompt says how to get back to it.
  // An opened event takes the keys too.
  const covering = useConsole((s) => (s.overlay === 'help' ? HELP_OPEN_HINT : s.overlay === 'event' ? EVENT_OPEN_HINT : null));
  const scroll = useConsole((s) => s.scroll);
  const noting = useConsole((s) => s.input === 'note');
  const line = useConsole((s) => s.line);
  const viewport = useLineViewport();
  const deadline = useConsole((s) => s.approvalDeadline);
  const scope = useConsole(pendingScope);
  const state = useConsole((s) => s.session.machine.state);
  const reload = useConsole((s) => s.session.reloadPending);
  const raised = useConsole((s) => raisedPausePrompt(s.session));
  const reloadArmed = useConsole((s) => s.session.reloadPending !== null && s.armed === s.session.reloadPending.seq);
  const now = useNow(deadline !== null && pending?.kind === 'tool');
  const call = pending?.kind === 'tool' ? pending.call : null;
  const choices = useMemo(() => (call ? alwaysAllowChoices(call) : null), [call]);
  const inner = Math.max(10, width - 4);

  if (quitting) {
    const { title: titled, keys: quitKeys, text } = quitLayout(resumeCommand, inner, maxRows, frameRoom, live);
    return frame(theme.danger, [
      ...(titled ? [<Line width={inner} bold color={theme.danger}>{QUIT_TITLES.find((t) => cellWidth(t) <= inner) ?? QUIT_TITLES.at(-1)!}</Line>] : []),
      ...text.map((row) => <Line width={inner}>{row}</Line>),
      // Its yes arms as a prompt's keys do (staying works at once).
      ...quitKeys.map((row, i) => (quitArmed ? <Line width={inner} color={theme.accent}>{row}</Line> : <Line width={inner} color={theme.muted}>{i === 0 ? 'keys arm in a moment…' : ''}</Line>)),
    ], frameRoom);
  }
  if (gate) {
    const resuming = gate.kind === 'resume';
    const count = gate.warnings.length;
    const question = resuming
      ? 'Resume this run from its log? Goal, budget used and the last checkpoint are shown above.'
      : `${count === 1 ? 'A warning' : `${count} warnings`} before the run starts. Start it anyway?`;
    const where =
      `The log stands at ${state}` +
      (pending?.kind === 'tool' ? `, tool call ${pending.call.name} (${pending.call.id}) issued but not finished: it runs again only if you approve it` : '') +
      (pending?.kind === 'pause' ? `, paused (${pauseReasonLabel(pending.reason)})` : '') +
      '.';
    const gateKeys = hintRows(resuming ? 'gate' : 'start-gate', inner);
    // The question wraps (two rows at most), as the rest of the box does.
    const asked = fitRows(wrapWords(sanitize(question, { oneLine: true }), inner), Math.max(1, Math.min(2, maxRows - 3 - gateKeys.length)), inner);
    const room = Math.max(0, maxRows - 2 - asked.length - gateKeys.length);
    const whereRows = resuming ? fitRows(wrapWords(sanitize(where, { oneLine: true }), inner), Math.min(3, room), inner) : [];
    return frame(theme.warn, [
      ...asked.map((row) => <Line width={inner} bold color={theme.warn}>{row}</Line>),
      ...whereRows.map((row) => <Line width={inner}>{row}</Line>),
      ...warningRows(gate.warnings, inner, room - whereRows.length).map((row) => <Line width={inner}>{row}</Line>),
      ...gateKeys.map((row) => <Line width={inner} color={theme.accent}>{row}</Line>),
    ], frameRoom);
  }
  if (reload) {
    const hints = hintRows('reload', inner);
    const keys = replaying
      ? [<Line width={inner} color={theme.muted}>replay: shown as recorded; nothing can be answered</Line>]
      : covering
      ? hints.map((_, i) => <Line width={inner} color={theme.muted}>{i === 0 ? covering : ''}</Line>)
      : hints.map((row, i) => (reloadArmed ? <Line width={inner} color={theme.accent}>{row}</Line> : <Line width={inner} color={theme.muted}>{i === 0 ? 'keys arm in a moment…' : ''}</Line>));
    return frame(theme.warn, reloadPromptRows(reload, inner, maxRows, keys), frameRoom);
  }
  if (!pending) return null;

  // The key rows keep their height while the prompt arms, so the layout does not jump.
  const keys = (fit?: KeyLayout): ReactNode[] => {
    const w = fit?.tight ? Math.max(10, width - 1) : inner;
    if (replaying) return [<Line width={w} color={theme.muted}>replay: shown as recorded; nothing can be answered</Line>];
    // Besides the keys, the title and a row of what is asked (the command, the pause's reason).
    const rows = fit?.rows ?? (scope ? promptKeyRows(scope, inner, [], 2, live) : ['']);
    if (covering) return rows.map((_, i) => <Line width={w} color={theme.muted}>{i === 0 ? covering : ''}</Line>);
    if (!armed) return rows.map((_, i) => <Line width={w} color={theme.muted}>{i === 0 ? 'keys arm in a moment…' : ''}</Line>);
    return rows.map((row) => <Line width={w} color={theme.accent}>{row}</Line>);
  };

  if (pending.kind === 'tool' && viewing) return argsView(pending.call, inner, argsViewMax(maxRows, live, argsRows(pending.call, inner).length), scroll, frameRoom);
  if (pending.kind === 'tool') {
    const countdown = deadline !== null && !replaying ? ` · denied in ${shortDuration(Math.max(0, (deadline - now) / 1000))} unless answered` : '';
    const titleOf = (w: number) => (
      <Line width={w}>
        <Text bold color={theme.warn}>Approve tool call </Text>
        <Text bold>{sanitize(pending.call.name, { oneLine: true })}</Text>
        <Text color={theme.muted}> ({sanitize(pending.call.id, { oneLine: true })}){countdown}</Text>
      </Line>
    );
    // Under help or an opened event the prompt cannot be answered: in little room, its title
    // and how to get back to it, and the rows it leaves go to what covers it.
    const covered = covering && !replaying && !noting ? frame(theme.warn, [titleOf(inner), <Line width={inner} color={theme.muted}>{covering}</Line>], 0) : undefined;
    // The key rows first: they are never cut, and the title, then the command, give their rows up before them.
    const notePrefix = cellWidth(NOTE_PREFIX) + NOTE_ROOM <= inner ? NOTE_PREFIX : NOTE_PREFIX_SHORT;
    const noteHelp = wrapWords('enter: deny with this note · esc: back to the prompt', inner);
    const fit: KeyLayout = noting
      ? { rows: [], besides: Math.max(0, Math.min(2, live - 2)), tight: false }
      : replaying || !scope
        ? { rows: [''], besides: 2, tight: false }
        : promptKeyLayout(scope, width, toolOmit(choices), live);
    const w = fit.tight ? Math.max(10, width - 1) : inner;
    const keyRows = noting
      ? [
          <LineView prefix={notePrefix} state={line} width={inner} />,
          // How to answer, where it leaves the command bar its row (the footer lists the same keys).
          ...(fit.besides + 1 + noteHelp.length + 1 <= live ? noteHelp.map((row) => <Line width={inner} color={theme.muted}>{row}</Line>) : []),
        ]
      : keys(fit);
    const free = Math.max(1, maxRows - 2 - 1 - keyRows.length); // border, title, keys
    const why = wrapWords(sanitize(pending.reason ?? 'the approval rules ask about this call', { oneLine: true }), w - 5);
    const stores = choices ? storeRows(choices, w) : [];
    const whyShown = fit.besides < 2 ? 0 : Math.min(why.length, free >= 8 ? MAX_WHY_ROWS : 1, Math.max(0, free - 4));
    const storesShown = fit.besides < 2 ? 0 : Math.min(stores.length, Math.max(0, free - 3 - whyShown));
    const args = headAndTail(withOtherSpaces(condenseBlanks(argsTextOf(pending.call, w))), fit.besides < 2 ? 1 : Math.max(1, Math.min(ARGS_ROWS, free - whyShown - storesShown)), w);
    const whyRows = why.slice(0, whyShown);
    if (whyShown < why.length && whyRows.length > 0) whyRows[whyRows.length - 1] = truncateCells(`${whyRows.at(-1)} ${why.slice(whyShown).join(' ')}`, w - 5);
    const lines: ReactNode[] = [
      ...(fit.besides >= 2 ? [titleOf(w)] : []),
      ...whyRows.map((row, i) => (
        <Line width={w}>
          <Text color={theme.muted}>{i === 0 ? 'why  ' : '     '}</Text>
          {row}
        </Line>
      )),
      ...(fit.besides >= 1
        ? args.rows.map((row, i) => (
            <Line width={w} {...(i === args.mark ? { color: theme.muted } : {})}>
              {row}
            </Line>
          ))
        : []),
      ...stores.slice(0, storesShown),
      ...keyRows,
    ];
    // The note's row is the first key row.
    const caret = noting ? { x: caretColumn(viewport, notePrefix, line, inner), y: lines.length - keyRows.length } : undefined;
    return { ...frame(theme.warn, lines, frameRoom, caret, fit.tight), ...(covered ? { covered } : {}) };
  }

  const cause = pending.cause;
  // A budget is named as /budget and the prompt name it (`wall_clock`, `cost`), not by its loop.yaml key.
  const title =
    cause.kind === 'operator' ? 'Paused by the operator' : cause.kind === 'budget_exceeded' ? `Paused: ${pauseReasonLabel(pending.reason)}` : `Paused: ${sanitize(pending.reason, { oneLine: true })}`;
  const covered = covering && !replaying ? frame(theme.warn, [<Line width={inner} bold color={theme.warn}>{title}</Line>, <Line width={inner} color={theme.muted}>{covering}</Line>], 0) : undefined;
  // The keys first, as for a tool call: the text takes what `maxRows` leaves (border, title, keys), at most three rows.
  const keyRows = keys();
  // Once the spent limit was raised past its use, the prompt says so instead of asking for a raise.
  const text = fitRows(wrapWords(sanitize(raised ?? pending.prompt, { oneLine: true }), inner), Math.min(3, maxRows - 3 - keyRows.length), inner);
  const view = frame(theme.warn, [<Line width={inner} bold color={theme.warn}>{title}</Line>, ...text.map((row) => <Line width={inner}>{row}</Line>), ...keyRows], frameRoom);
  return covered ? { ...view, covered } : view;
}
