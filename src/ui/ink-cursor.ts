// The terminal cursor stays at the caret in every frame Ink writes.
//
// Ink 6 places the cursor where `useCursor` asks, but its writer (`log-update`,
// ink/build/log-update.js) uses that position only for the next frame after a component
// that calls `useCursor` committed ("Only use cursor if setCursorPosition was called since
// last render"). The console's caret is owned by the root (src/ui/use-caret.ts), and most
// frames commit only a memoized panel (the header's clock, a batch of events, the notice's
// expiry, an alert): such a frame was written with no cursor, so the writer hid the cursor
// and left it at the bottom-left corner until the root rendered again, and an input
// method's window opened there. Here each writer Ink makes keeps the last position asked
// for and hands it to every frame, whichever component committed: the position still
// changes only when the root commits (`useCursor`'s effect, and its clean-up on unmount,
// which asks for no cursor).
//
// Ink's full-redraw path (taken when the last frame was as tall as the terminal, e.g.
// after the terminal got shorter) writes the frame without its final line break and then
// calls the writer's `sync`, which moves to the caret as if that line break had been
// written: the cursor landed one row above the caret. `sync` here writes that line break
// first (the frame is shorter than the terminal then, so it scrolls nothing). Ink's
// `clear()` calls `sync` too, after it erased the frame, to pretend the frame is still
// there: then nothing is written and no cursor is shown (the clear is marked for it).
//
// Ink 6.8 is the last Ink for Node 20 (docs/stack.md), so the shape patched here is fixed;
// should it change, `installed` says so and tests/ui/ink-cursor.test.tsx fails.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A cursor position in the frame: column and row from its top-left corner, in cells. */
type Position = { x: number; y: number } | undefined;

/** Ink's frame writer, as ink/build/log-update.js makes it. */
interface LogUpdate {
  (text: string): boolean;
  clear(): void;
  done(): void;
  sync(text: string): void;
  setCursorPosition(position: Position): void;
  isCursorDirty(): boolean;
  willRender(text: string): boolean;
}

/** The writer made here: Ink's, and a mark for the `sync` that Ink's `clear()` makes. */
export interface StickyLogUpdate extends LogUpdate {
  /** Marks the calls made while Ink's `clear()` runs (its frame is off the screen then). */
  erasing(on: boolean): void;
}

/** What is patched of Ink's own class (ink/build/ink.js): its `clear()`. */
interface InkClass {
  prototype: { clear(this: { log: LogUpdate }): void };
}

interface LogUpdateModule {
  create(stream: NodeJS.WriteStream, options?: { showCursor?: boolean; incremental?: boolean }): LogUpdate;
}

/**
 * A writer that gives every frame the last cursor position asked for (see the top of
 * this file). `stream` is the one the writer writes to.
 */
export function stickyCursor(inner: LogUpdate, stream: NodeJS.WriteStream): StickyLogUpdate {
  let position: Position;
  let erasing = false;
  // Hands the kept position to Ink's writer, which forgets it after each frame.
  const renew = () => inner.setCursorPosition(position);
  const render = ((text: string) => {
    renew();
    return inner(text);
  }) as StickyLogUpdate;
  render.erasing = (on: boolean) => {
    erasing = on;
  };
  render.clear = () => inner.clear();
  render.done = () => inner.done();
  render.sync = (text: string) => {
    if (erasing) return inner.sync(text);
    renew();
    // The frame was written without its final line break (see the top of this file).
    if (text.endsWith('\n')) stream.write('\n');
    inner.sync(text);
  };
  render.setCursorPosition = (next: Position) => {
    position = next;
    inner.setCursorPosition(next);
  };
  render.isCursorDirty = () => inner.isCursorDirty();
  render.willRender = (text: string) => {
    renew();
    return inner.willRender(text);
  };
  return render;
}

/**
 * Makes Ink's `log-update` create writers that keep the cursor position, and Ink's
 * `clear()` mark its calls to them.
 * @returns whether Ink had the expected shape (false: nothing was changed)
 */
function install(module: LogUpdateModule, Ink: InkClass): boolean {
  const create = module.create;
  const clear = Ink.prototype.clear;
  if (typeof create !== 'function' || typeof clear !== 'function') return false;
  Ink.prototype.clear = function (this: { log: LogUpdate | StickyLogUpdate }) {
    const log = this.log;
    if (!('erasing' in log)) return clear.call(this);
    log.erasing(true);
    try {
      clear.call(this);
    } finally {
      log.erasing(false);
    }
  };
  module.create = (stream, options) => {
    const inner = create(stream, options);
    const shaped = ['clear', 'done', 'sync', 'setCursorPosition', 'isCursorDirty', 'willRender'].every(
      (name) => typeof (inner as unknown as Record<string, unknown>)[name] === 'function',
    );
    return shaped ? stickyCursor(inner, stream) : inner;
  };
  return true;
}

const require = createRequire(import.meta.url);
const inkDir = path.dirname(require.resolve('ink'));
const { default: logUpdate } = (await import(pathToFileURL(path.join(inkDir, 'log-update.js')).href)) as { default: LogUpdateModule };
const { default: Ink } = (await import(pathToFileURL(path.join(inkDir, 'ink.js')).href)) as { default: InkClass };

/** Whether Ink's frame writers now keep the cursor position (false: Ink's shape was not the one expected, and it runs as shipped). */
export const installed: boolean = install(logUpdate, Ink);
