// The terminal's scrollback is the operator's: what they ran before loopdeck, and what it
// printed. Ink 6 redraws the whole screen when the last frame was as tall as the terminal
// (after the terminal got shorter) with ansi-escapes' `clearTerminal`, which is
// `ESC[2J ESC[3J ESC[H`: `ESC[3J` erases the scrollback too in xterm, VTE, iTerm2 and tmux.
// The stream Ink writes to here is the terminal's, less that one sequence: the screen is
// still cleared (`ESC[2J`) and redrawn, the history above it stays.

/** Erase Saved Lines (ED 3): clears the scrollback. */
const ERASE_SCROLLBACK = '\u001b[3J';

/**
 * `stream` as Ink is given it: every property and method is the stream's own, except that
 * `write` drops `ESC[3J` from text (buffers pass as they are; Ink writes strings).
 */
export function keepingScrollback(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(typeof chunk === 'string' && chunk.includes(ERASE_SCROLLBACK) ? chunk.replaceAll(ERASE_SCROLLBACK, '') : chunk, ...rest);
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
