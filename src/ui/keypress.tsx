import React, { createContext, useCallback, useContext, useLayoutEffect, useRef, type ReactNode } from 'react';
import { useInput } from 'ink';
import { keyName, type InkKey } from './keymap.js';

/**
 * One keypress: `name` as the key map spells it, `input` as received. Keys that arrive in
 * one read (typed fast, key repeat, a paste) are one keypress named `''` whose `input` is
 * the whole chunk: no hotkey, and a text input takes it apart with `chunkKeys`.
 */
export interface Keypress {
  name: string;
  input: string;
}

/** Handles a keypress; returns `true` when it consumed the key (nobody after it sees it). */
export type KeypressHandler = (key: Keypress) => boolean;

interface Entry {
  handler: { current: KeypressHandler };
  priority: number;
  order: number;
}

const KeypressContext = createContext<((entry: Omit<Entry, 'order'>) => () => void) | null>(null);

/**
 * The one owner of stdin: a single `useInput` whose handler never changes, dispatching
 * each key to the active subscribers, highest priority first (the newest first among
 * equals), until one consumes it. Subscribers register in layout effects, which Ink's
 * synchronous renderer runs before the next key is read: a key pressed right after the
 * command bar opens already goes to the bar.
 */
export function KeypressProvider({ children }: { children: ReactNode }) {
  const entries = useRef<Entry[]>([]);
  const counter = useRef(0);
  const register = useCallback((entry: Omit<Entry, 'order'>) => {
    const full = { ...entry, order: counter.current++ };
    entries.current = [...entries.current, full].sort((a, b) => b.priority - a.priority || b.order - a.order);
    return () => {
      entries.current = entries.current.filter((e) => e !== full);
    };
  }, []);
  const dispatch = useCallback((input: string, key: InkKey) => {
    const press = { name: keyName(input, key), input };
    for (const entry of entries.current) if (entry.handler.current(press)) return;
  }, []);
  useInput(dispatch);
  return <KeypressContext.Provider value={register}>{children}</KeypressContext.Provider>;
}

/** Priorities: focused text inputs first, then overlays, then the dashboard. */
export const PRIORITY = { input: 100, overlay: 50, dashboard: 0 } as const;

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
