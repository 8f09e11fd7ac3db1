import React, { createContext, useCallback, useContext, useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';
import { useStdin } from 'ink';
import { createKeyDecoder, type Keypress } from './terminal-input.js';

export type { Keypress, KeySource } from './terminal-input.js';

/** Handles a keypress; returns `true` when it consumed the key (nobody after it sees it). */
export type KeypressHandler = (key: Keypress) => boolean;

interface Entry {
  handler: { current: KeypressHandler };
  priority: number;
  order: number;
}

const KeypressContext = createContext<((entry: Omit<Entry, 'order'>) => () => void) | null>(null);

/**
 * The one owner of stdin: Ink reads the terminal in raw mode, and the console takes the text
 * of each read as Ink reads it ({@link watchReads}; Ink's input emitter splits a read and
 * holds back an escape sequence the read ends inside) and decodes it itself ({@link createKeyDecoder}: every key of a read, split escape
 * sequences put back together, bracketed paste) and dispatches each key to the active
 * subscribers, highest priority first (the newest first among equals), until one consumes
 * it. Subscribers register in layout effects; handlers that must follow state changed by
 * an earlier key of the same read check the store themselves.
 * @param escapeMs how long a lone ESC waits for the rest of an escape sequence
 */
export function KeypressProvider({ children, escapeMs }: { children: ReactNode; escapeMs?: number }) {
  const entries = useRef<Entry[]>([]);
  const counter = useRef(0);
  const register = useCallback((entry: Omit<Entry, 'order'>) => {
    const full = { ...entry, order: counter.current++ };
    entries.current = [...entries.current, full].sort((a, b) => b.priority - a.priority || b.order - a.order);
    return () => {
      entries.current = entries.current.filter((e) => e !== full);
    };
  }, []);
  const dispatch = useCallback((press: Keypress) => {
    for (const entry of entries.current) if (entry.handler.current(press)) return;
  }, []);
  const { setRawMode, stdin } = useStdin();
  useEffect(() => {
    setRawMode(true);
    // Keys read after the process could not run for a while (stopped by `kill -STOP`, or
    // busy) were typed at a frame that was not current: they count as typed ahead (a chunk),
    // which never answers a prompt. A beat every BEAT_MS tells how long the process was away.
    let late = false;
    let beat = performance.now();
    // When the process came back: the beat after a gap, whichever of the beat and the
    // waiting input the event loop takes first.
    let back = -Infinity;
    const beats = setInterval(() => {
      const now = performance.now();
      if (now - beat > AWAY_MS) back = now;
      beat = now;
    }, BEAT_MS);
    beats.unref();
    const decoder = createKeyDecoder((keys) => keys.forEach((key) => dispatch(late && key.source === 'key' ? { ...key, source: 'chunk' } : key)), escapeMs === undefined ? {} : { escapeMs });
    // What the terminal sent is taken as Ink reads it from stdin, one read as it came.
    // Ink's own input emitter splits a read at its escape sequences and holds back one the
    // read ends inside (a lone `ESC`, `ESC [`), emitting it later on its own: `y` and `ESC`
    // written at once would come as `y` alone, then `ESC`, and `y` would pass for a key
    // alone in its read. Ink drains stdin with `stdin.read()` on each `readable` event; what
    // those calls return in one go is one read.
    let read: string[] | null = null;
    const onInput = (piece: string) => {
      if (read === null) {
        read = [];
        const now = performance.now();
        const away = now - beat > AWAY_MS || now - back < BACK_MS;
        queueMicrotask(() => {
          const text = read!.join('');
          read = null;
          late = away;
          try {
            decoder.push(text);
          } finally {
            late = false;
          }
        });
      }
      read.push(piece);
    };
    const unwatch = watchReads(stdin, onInput);
    return () => {
      clearInterval(beats);
      unwatch();
      decoder.dispose();
      setRawMode(false);
    };
  }, [setRawMode, stdin, dispatch, escapeMs]);
  return <KeypressContext.Provider value={register}>{children}</KeypressContext.Provider>;
}

/**
 * Calls `onRead` with the text of every read taken from `stream` by whoever reads it
 * (`stream.read()`, as Ink does in raw mode), as it came; the reader gets it unchanged.
 * @returns a function that stops watching
 */
export function watchReads(stream: NodeJS.ReadableStream, onRead: (text: string) => void): () => void {
  type Read = (size?: number) => string | Buffer | null;
  const target = stream as unknown as { read: Read };
  const own = Object.prototype.hasOwnProperty.call(target, 'read');
  const read = target.read;
  const watched = function (this: unknown, size?: number): string | Buffer | null {
    const chunk = read.call(this, size);
    if (chunk !== null && chunk !== undefined && chunk.length > 0) onRead(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    return chunk;
  };
  target.read = watched;
  return () => {
    if (target.read !== watched) return;
    if (own) target.read = read;
    else delete (target as { read?: unknown }).read;
  };
}

/** How often the console notes that it runs (ms). */
const BEAT_MS = 100;
/** Input read this long (ms) after the last beat came while the process could not run. */
const AWAY_MS = 1000;
/** Input read this soon (ms) after the beat that found such a gap was waiting meanwhile too. */
const BACK_MS = 300;

/** Priorities: keys that work in every view (Ctrl+Z), focused text inputs, then overlays, then the dashboard. */
export const PRIORITY = { system: 200, input: 100, overlay: 50, dashboard: 0 } as const;

/** Subscribes to keypresses while `isActive`; the handler always sees the latest props. */
export function useKeypress(handler: KeypressHandler, { isActive = true, priority = 0 }: { isActive?: boolean; priority?: number } = {}): void {
  const register = useContext(KeypressContext);
  if (!register) throw new Error('useKeypress needs a KeypressProvider');
  const ref = useRef(handler);
  useLayoutEffect(() => {
    ref.current = handler;
  });
  useLayoutEffect(() => {
    if (!isActive) return undefined;
    return register({ handler: ref, priority });
  }, [register, isActive, priority]);
}
