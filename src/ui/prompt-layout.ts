/**
 * How the approval prompt fits a long call into its rows (pure, cell-measured): the key
 * line is laid out first, the arguments show their head and their tail around an elision
 * mark (the end of a command, where `… && curl … | sh` hides, stays visible), and the
 * rules `a`/`A` would store take one row each, elided in the middle. `v` opens the
 * arguments in full in a scrollable view. See "Console input" in docs/design.md.
 */
import type { ToolCall } from '../engine/types.js';
import { argsText } from './ToolPanel.js';
import { clipEnd, clipStart, cellWidth, graphemes, sanitize, withOtherSpaces, wrapCells } from './text.js';

/** The call's arguments as the prompt shows them (sanitized, tabs as two spaces). */
export function argsTextOf(call: Pick<ToolCall, 'name' | 'args'>, width: number): string {
  return sanitize(argsText(call.name, call.args, width)).replace(/\t/g, '  ');
}

/** The call's arguments in rows of at most `width` cells, other spaces escaped ({@link withOtherSpaces}). */
export function argsRows(call: Pick<ToolCall, 'name' | 'args'>, width: number): string[] {
  return wrapCells(withOtherSpaces(argsTextOf(call, width)), width);
}

/** `text` in one row of `width` cells: whole if it fits, else its start and its end around ` … `. */
export function elideMiddle(text: string, width: number): string {
  if (cellWidth(text) <= width) return text;
  if (width <= 3) return clipStart(text, width);
  const head = Math.floor((width - 3) / 2);
  return `${clipEnd(text, head)} … ${clipStart(text, width - 3 - head)}`;
}

/**
 * A command on one row with its line breaks shown: each run of line breaks (and the blanks
 * around it) as ` ⏎ `, so two commands on two lines never read as one.
 */
export function withLineMarks(text: string): string {
  return text.replace(/[ \t]*(?:\r\n|\r|\n)+[ \t]*/g, ' ⏎ ');
}

/**
 * A command in one row of `width` cells: whole if it fits, else its program (`$ echo`, at
 * most a third of the row), `…`, and as much of its end as the rest of the row holds (where
 * `&& curl … | sh` is).
 */
function programAndEnd(text: string, width: number): string {
  if (cellWidth(text) <= width) return text;
  const program = clipEnd(/^(?:\$ )?\S+/.exec(text)?.[0] ?? '', Math.floor(width / 3));
  return `${program}…${clipStart(text, width - cellWidth(program) - 1)}`;
}

/**
 * Arguments in one row of `width` cells. A command (`$ …`, or one line): {@link programAndEnd}.
 * Arguments of several lines (`path: src/new.js` then the content): their first line, which
 * names what the call acts on, takes up to two thirds of the row, then `…` and as much of the
 * end as the rest holds.
 */
function oneRow(text: string, width: number): string {
  const marked = withLineMarks(text);
  const firstBreak = text.indexOf('\n');
  if (text.startsWith('$ ') || firstBreak < 0 || cellWidth(marked) <= width) return programAndEnd(marked, width);
  const first = clipEnd(text.slice(0, firstBreak).trimEnd(), Math.floor((2 * width) / 3));
  return `${first} …${clipStart(marked, Math.max(0, width - cellWidth(first) - 2))}`;
}

/** A run of spaces this long or longer, inside a line, is shown by its length in the prompt (characters). */
export const LONG_SPACE_RUN = 12;

/**
 * `text` with its blank stretches told rather than drawn, for the prompt's few rows: a run
 * of {@link LONG_SPACE_RUN} or more spaces (of any kind) is `⟨600 spaces⟩`, blank lines at the start or
 * the end and two or more in a row are one `⟨20 blank lines⟩` mark, at the end of the line
 * before them (on a row of its own at the very start). Whitespace is what costs
 * least to leave out, and a call padded with it (`echo hi` + 600 spaces + `; curl … | sh`)
 * would otherwise show blank rows where the head and tail should show the command. The
 * full view (`v`) shows the text as it is.
 */
export function condenseBlanks(text: string): string {
  const lines = text.split('\n').map((line) => line.replace(SPACE_RUN, (run) => `⟨${run.length.toLocaleString('en-US')} spaces⟩`));
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let end = i;
    while (end < lines.length && lines[end]!.trim() === '') end += 1;
    const blank = end - i;
    if (blank === 0) {
      out.push(lines[i]!);
      i += 1;
      continue;
    }
    const atEdge = i === 0 || end === lines.length;
    const mark = `⟨${blank.toLocaleString('en-US')} blank line${blank === 1 ? '' : 's'}⟩`;
    // The mark ends the line before it (rows are few): it has its own row only at the start.
    if (blank >= 2 || (atEdge && lines.length > 1)) {
      if (out.length > 0) out[out.length - 1] = `${out.at(-1)!.trimEnd()} ${mark}`;
      else out.push(mark);
    } else out.push(...lines.slice(i, end));
    i = end;
  }
  return out.join('\n');
}

/** A run of space characters of any kind (`\p{Zs}`: the space, no-break and ideographic spaces, …). */
const SPACE_RUN = new RegExp(`\\p{Zs}{${LONG_SPACE_RUN},}`, 'gu');

/** Rows of the arguments the prompt shows, and which of them is the elision mark (-1: none). */
export interface Elided {
  rows: string[];
  mark: number;
}

/**
 * At most `room` rows of `text` wrapped to `width` cells: all of them when they fit, else
 * the first rows, a mark saying how much is left out, and the last rows, which end where
 * the text ends (a long last line is shown by its end, after `…`). With one row, only the end.
 */
export function headAndTail(text: string, room: number, width: number): Elided {
  const rows = wrapCells(text, width);
  if (rows.length <= room) return { rows, mark: -1 };
  const tailCount = room >= 7 ? 2 : 1;
  const headCount = Math.max(0, room - tailCount - 1);
  const head = rows.slice(0, headCount);
  const lastLine = text.slice(text.lastIndexOf('\n') + 1);
  const tail = cellWidth(lastLine) <= width ? rows.slice(-tailCount) : wrapCells(`…${clipStart(lastLine, width * tailCount - 1)}`, width).slice(-tailCount);
  const shown = graphemes([...head, ...tail].join('')).length;
  const hidden = Math.max(1, graphemes(text.replace(/\n/g, '')).length - shown);
  // Too few rows for a mark of its own: the start and the end still show (the program, and `&& curl … | sh`).
  if (room < 2) return { rows: [oneRow(text, width)], mark: -1 };
  // Two rows: the first, then as much of the end as a row holds (not the last wrapped row, which may hold a few characters).
  if (room === 2) return { rows: [rows[0]!, `…${clipStart(lastLine, width - 1)}`], mark: -1 };
  const mark = `⋯ ${hidden.toLocaleString('en-US')} more character${hidden === 1 ? '' : 's'} · v shows all`;
  return { rows: [...head, mark, ...tail], mark: head.length };
}
