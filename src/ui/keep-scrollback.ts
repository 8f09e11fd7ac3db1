// The terminal's scrollback is the operator's: what they ran before loopdeck, and what it
// printed. Ink 6 redraws the whole screen when the last frame was as tall as the terminal
// (after the terminal got shorter) with ansi-escapes' `clearTerminal`, which is
// `ESC[2J ESC[3J ESC[H`: `ESC[3J` erases the scrollback too in xterm, VTE, iTerm2 and tmux.
// The stream Ink writes to here is the terminal's, less that one sequence: the screen is
// still cleared and redrawn, the history above it stays. Not by `ESC[2J` either: tmux (its
// default `scroll-on-clear`) and VTE push the whole screen into the scrollback when it is
// cleared whole, by `ESC[2J` or by `ESC[J` from its first cell; the first row is erased on
// its own (`ESC[2K`) and the rest from the second row down, which clears the same cells and
// keeps no copy.
//
// A terminal made shorter would still get two such redraws: Ink's own `resize` listener
// draws the tree it has, laid out for the old size and taller than the terminal now, and
// the console's re-render at the new size clears again. Many terminals (tmux with its
// default `scroll-on-clear`, VTE) push the screen into the scrollback at each clear, so
// each redraw left a screenful of copies there. A terminal made narrower got the same: Ink's
// frame of the old layout, its rows as wide as before, wraps at the new width and scrolls a
// copy of itself up (the terminal's own re-wrap of the frame on screen had left one
// already). Whatever Ink writes while the `resize` event is being handled is dropped: the
// frame of the old size is never drawn, and the re-render at the new size that follows
// (Ink still counts the old frame's rows, so it clears them) is the one redraw.

/** Erase Saved Lines (ED 3): clears the scrollback. */
const ERASE_SCROLLBACK = '\u001b[3J';
/** Erase in Display, the whole screen (ED 2): what starts Ink's full redraw. */
const ERASE_SCREEN = '\u001b[2J';
/** The same cells erased without clearing the screen whole: the first row, then the second row down; the cursor left home. */
const ERASE_IN_PLACE = '\u001b[H\u001b[2K\u001b[2;1H\u001b[J\u001b[H';

/**
 * `stream` as Ink is given it: every property and method is the stream's own, except that
 * `write` drops `ESC[3J` from text and writes `ESC[2J` as {@link ERASE_IN_PLACE} (buffers
 * pass as they are; Ink writes strings), and drops the text written while the stream's
 * `resize` event is being handled (Ink's frame of the old layout).
 */
export function keepingScrollback(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  let resizing = false;
  // First of the `resize` listeners, so before Ink's; every listener runs before a microtask.
  stream.prependListener('resize', () => {
    resizing = true;
    queueMicrotask(() => {
      resizing = false;
    });
  });
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    if (typeof chunk !== 'string') return (stream.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    if (resizing) {
      // Nothing is written; a callback still hears that the write is done.
      const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (done) queueMicrotask(done);
      return true;
    }
    const text = chunk.includes(ERASE_SCROLLBACK) || chunk.includes(ERASE_SCREEN) ? chunk.replaceAll(ERASE_SCROLLBACK, '').replaceAll(ERASE_SCREEN, ERASE_IN_PLACE) : chunk;
    return (stream.write as (...args: unknown[]) => boolean)(text, ...rest);
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
