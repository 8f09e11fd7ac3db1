/** Colour tokens of the console; components never name colours directly. */
export const theme = {
  accent: 'cyan',
  muted: 'gray',
  ok: 'green',
  warn: 'yellow',
  danger: 'red',
  claim: 'magenta',
  border: 'gray',
} as const;

/** Colour per loop state in the header. */
export const stateColour: Record<string, string> = {
  IDLE: theme.warn,
  PLANNING: theme.accent,
  EXECUTING: theme.accent,
  AWAITING_TOOL: theme.warn,
  REFLECTING: theme.accent,
  DONE: theme.ok,
};
