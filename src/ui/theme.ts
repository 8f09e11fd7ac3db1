/**
 * Whether colour is off: `NO_COLOR` set to any non-empty value (https://no-color.org), or
 * a `TERM` that names a terminal without colours ({@link MONOCHROME_TERM}). Bold, inverse
 * and the frame's text stay; only colours go.
 */
export function colourOff(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.NO_COLOR ?? '') !== '' || MONOCHROME_TERM.test(env.TERM ?? '');
}

/**
 * Terminal types whose terminfo entries have no colours: the monochrome variants terminfo
 * names with `-mono` or `-m` (`xterm-mono`, `rxvt-m`) and the DEC VT terminals (`vt100`,
 * `vt220`). A terminal that says it is one of these is drawn without colours, as `ls`,
 * `less` and `vim` do by its terminfo.
 */
export const MONOCHROME_TERM = /(-mono|-m)$|^vt(52|100|102|220|320|420)$/;

const plain = colourOff();

/** A colour name Ink knows, or `undefined` when colour is off (the terminal's own colours). */
export type Colour = string | undefined;

const colour = (name: string): Colour => (plain ? undefined : name);

/** Colour tokens of the console; components never name colours directly. */
export const theme = {
  accent: colour('cyan'),
  muted: colour('gray'),
  ok: colour('green'),
  warn: colour('yellow'),
  danger: colour('red'),
  claim: colour('magenta'),
  border: colour('gray'),
} as const;

/** Colour per loop state in the header. */
export const stateColour: Record<string, Colour> = {
  IDLE: theme.warn,
  PLANNING: theme.accent,
  EXECUTING: theme.accent,
  AWAITING_TOOL: theme.warn,
  REFLECTING: theme.accent,
  DONE: theme.ok,
};
