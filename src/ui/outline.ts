// The console's first screen before React and Ink are loaded. Loading them takes most of
// a cold start (about as long as a bare Ink hello-world takes to draw), so `run`, `resume`
// and `replay` first write the frame's outline with plain writes: the title line with the
// goal and the run id, and "preparing…". Ink's first frame then takes the same rows: just
// before Ink writes it, the outline is erased in the same write (inside Ink's synchronized
// update), so the screen goes from the outline to the console with no blank frame, no
// clear of the screen and no copy of the outline left above the console.
//
// Nothing here imports React, Ink or the engine; string-width (with its Unicode tables)
// is loaded only when a text is not plain ASCII.
import { sanitize as sanitizeText } from '../text/sanitize.js';
import { colourOff } from './theme.js';

/** What the outline shows; `null` where it is not known (yet). */
export interface OutlineInfo {
  /** The goal's objective, as untrusted text (sanitized and cut here). */
  objective: string | null;
  /** The run id (the run directory's name), as untrusted text. */
  run: string | null;
}

/** Narrower or shorter terminals get no outline (the console then draws first). */
export const OUTLINE_MIN_COLUMNS = 20;
export const OUTLINE_MIN_ROWS = 4;

/** The words under the title line while the rest of the console loads. */
export const PREPARING = 'preparing…';

const ESC = '\u001b';
const BOLD = `${ESC}[1m`;
const RESET = `${ESC}[0m`;
/** The colours of the console's header (theme.accent and theme.muted): cyan and gray. */
const CYAN = `${ESC}[36m`;
const GRAY = `${ESC}[90m`;
/**
 * Erase the cursor's row. The outline is erased row by row, never with an erase of the
 * display (`ESC[J`): when the outline stands at the top of the screen (a new terminal, or
 * after `clear`), erasing from there down erases the whole screen, and tmux (its
 * `scroll-on-clear`, on by default) and PuTTY then keep the screen, the outline, in the
 * scrollback.
 */
const ERASE_ROW = `${ESC}[2K`;
/** Cursor up one row. */
const UP = `${ESC}[1A`;

/** How the outline measures and cuts text: cells as Ink counts them, and a cut at whole clusters. */
export interface TextMeasure {
  /** Untrusted text made one safe line. */
  clean: (text: string) => string;
  width: (text: string) => number;
  /** The longest start of a text that fits in a number of cells. */
  clipEnd: (text: string, width: number) => string;
}

/** Measures printable ASCII: one cell a character (what string-width says of it). */
const ASCII: TextMeasure = {
  clean: (text) => sanitizeText(text, { oneLine: true }),
  width: (text) => text.length,
  clipEnd: (text, width) => text.slice(0, Math.max(0, width)),
};

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The measure for `texts`: plain ASCII is counted by length; anything else loads the
 * console's own functions (src/ui/text.ts: string-width, joined emoji split, clusters).
 */
export async function measureFor(texts: ReadonlyArray<string | null>): Promise<TextMeasure> {
  if (texts.every((t) => t === null || PRINTABLE_ASCII.test(sanitizeText(t, { oneLine: true })))) return ASCII;
  const text = await import('./text.js');
  return { clean: (t) => text.sanitize(t, { oneLine: true }), width: text.cellWidth, clipEnd: text.clipEnd };
}

/**
 * The outline's rows for a terminal `columns` wide, as the console's header lays them out:
 * `loopdeck <objective>` cut with `…` to leave room for ` run <id>` at the right edge,
 * then `preparing…`. With `colour` the header's colours, else only bold (NO_COLOR).
 * @returns the rows with their escape sequences; none is wider than `columns` cells
 */
export function outlineRows(info: OutlineInfo, columns: number, measure: TextMeasure, colour: boolean): string[] {
  const paint = (code: string, text: string) => (colour && text !== '' ? `${code}${text}${RESET}` : text);
  const run = info.run === null ? '' : measure.clean(info.run);
  let right = run === '' ? '' : ` run ${run}`;
  // A run id too long to leave the title room is cut like the rest.
  if (measure.width(right) > columns - 'loopdeck'.length) right = measure.clipEnd(right, Math.max(0, columns - 'loopdeck'.length));
  const room = columns - measure.width(right);
  const objective = info.objective === null ? '' : measure.clean(info.objective);
  let title = objective === '' ? 'loopdeck' : `loopdeck ${objective}`;
  if (measure.width(title) > room) title = `${measure.clipEnd(title, room - 1)}…`;
  const name = title.slice(0, 'loopdeck'.length);
  const goal = title.slice('loopdeck'.length);
  const gap = right === '' ? '' : ' '.repeat(Math.max(0, room - measure.width(title)));
  const first = `${BOLD}${paint(CYAN, name)}${BOLD}${goal}${RESET}${gap}${paint(GRAY, right)}`;
  return [first, paint(GRAY, PREPARING)];
}

/** The outline on screen: where it was written and how many rows it took. */
interface Shown {
  stream: NodeJS.WriteStream;
  rows: number;
  /** Removes the signal and exit handlers the outline installed. */
  unguard: () => void;
}

let shown: Shown | null = null;

/** From the end of the outline's last row back to its first row's start, erasing its rows on the way. */
function eraseSequence(rows: number): string {
  return `\r${ERASE_ROW}${`${UP}${ERASE_ROW}`.repeat(Math.max(0, rows - 1))}`;
}

/** Whether `stream` is a terminal the outline can be drawn on: a TTY, not `TERM=dumb`, big enough. */
export function outlineFits(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!stream.isTTY || env.TERM === 'dumb') return false;
  return (stream.columns || 80) >= OUTLINE_MIN_COLUMNS && (stream.rows || 24) >= OUTLINE_MIN_ROWS;
}

/**
 * Writes the outline at the cursor (where Ink will draw its first frame), the cursor left
 * at the end of its last row. Nothing is written when `stream` is not a terminal, when
 * `TERM` is `dumb`, or when the terminal is smaller than
 * {@link OUTLINE_MIN_COLUMNS}×{@link OUTLINE_MIN_ROWS}. The size is read as the console
 * reads it (`columns || 80`, `rows || 24`). Until Ink takes over ({@link handOverOutline})
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT erase it before they end the process as they would have, and
 * so does an exit.
 */
export async function showOutline(info: OutlineInfo, stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (shown !== null || !outlineFits(stream, env)) return;
  const measure = await measureFor([info.objective, info.run]);
  const rows = outlineRows(info, stream.columns || 80, measure, !colourOff(env));
  stream.write(rows.join('\r\n'));
  const onSignal = (signal: NodeJS.Signals) => {
    eraseOutline();
    // Ended by the signal, as without the outline.
    process.kill(process.pid, signal);
  };
  const onExit = () => eraseOutline();
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
  for (const signal of signals) process.once(signal, onSignal);
  process.once('exit', onExit);
  shown = {
    stream,
    rows: rows.length,
    unguard: () => {
      for (const signal of signals) process.off(signal, onSignal);
      process.off('exit', onExit);
    },
  };
}

/** Whether an outline is on screen and Ink has not taken it over. */
export function outlineShown(): boolean {
  return shown !== null;
}

/**
 * Takes the outline off the screen, leaving the cursor where it was before it was drawn
 * (for an error printed instead of the console). Does nothing when no outline shows.
 */
export function eraseOutline(): void {
  if (shown === null) return;
  const { stream, rows, unguard } = shown;
  shown = null;
  unguard();
  stream.write(eraseSequence(rows));
}

/**
 * Hands the outline's rows to the console: the first write to `stream` that shows
 * anything (Ink's first frame, after its begin-synchronized-update and hide-cursor writes)
 * starts by going back to the outline's first row and erasing from there down, so the
 * frame is drawn where the outline was, in one write. Call it just before Ink's `render()`,
 * after the console's own signal handlers are installed. Does nothing when no outline shows.
 */
export function handOverOutline(stream: NodeJS.WriteStream = process.stdout): void {
  if (shown === null || shown.stream !== stream) return;
  const { rows, unguard } = shown;
  shown = null;
  unguard();
  const write = stream.write;
  const visible = /[^\s\u001b]/;
  const own = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
    // Escape sequences alone (synchronized update, cursor, paste mode) go through as they are.
    if (!visible.test(text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''))) return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    stream.write = write;
    return (write as (...a: unknown[]) => boolean).call(this, eraseSequence(rows) + text, ...rest);
  };
  stream.write = own as typeof stream.write;
}
