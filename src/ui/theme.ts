/**
 * Whether colour is off: `NO_COLOR` set to any non-empty value (https://no-color.org).
 * Bold, inverse and the frame's text stay; only colours go.
 */
export function colourOff(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.NO_COLOR ?? '') !== '';
}

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
