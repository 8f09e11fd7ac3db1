import { REPEAT_MS, type Keypress } from './terminal-input.js';

/**
 * The longest a key that may answer a prompt waits for a repeat of itself (ms): longer
 * than the slowest repeat intervals desktops set by default or allow without an extra
 * setting (Windows: 2.5 a second, 400 ms apart).
 */
export const ANSWER_WAIT_MAX_MS = 500;

/** How long an answer waits when the same key came `afterSame` ms before it: a quarter more than that gap, and 50 ms, at most {@link ANSWER_WAIT_MAX_MS}. */
export function answerWaitMs(afterSame: number): number {
  return Math.min(ANSWER_WAIT_MAX_MS, Math.round(afterSame * 1.25) + 50);
}

/** What {@link HeldKeys.answer} did with a key. */
export type AnswerTaken = 'now' | 'waiting' | 'held' | 'never';

/**
 * Tells a key pressed to answer a prompt from a key held down since before it.
 *
 * Terminals send no key releases. A held key arrives again and again, one read each: after
 * the terminal's repeat delay (X11: 660 ms) and then every repeat interval (usually
 * 15–100 ms, up to 400 ms or more when set slow). The decoder marks a key that follows
 * itself within {@link REPEAT_MS} a `repeat` (never an answer) and one that follows itself
 * later, within a repeat delay, with `afterSame`: a press or a slow repeat, which only the
 * keys after it tell apart. Such a key answers only once it has waited a little longer than
 * the gap before it ({@link answerWaitMs}) and no repeat of it came; once a repeat came,
 * the key is held, and every key of it that keeps its pace answers nothing until it is
 * released (a longer pause, or another key).
 *
 * Every key goes through {@link seen} first, in order; a key that would answer then goes
 * through {@link answer}.
 */
export class HeldKeys {
  /** The key held down, and the gap between its last two reads (ms). */
  private held: { name: string; input: string; gap: number } | null = null;
  /** An answer waiting to see whether its key repeats. */
  private waiting: { key: Keypress; timer: ReturnType<typeof setTimeout>; answer: () => void } | null = null;

  /** Whether `key` is read again after the key it follows (not a paste, and not a press after a long pause). */
  private static again(key: Keypress): boolean {
    return key.source === 'repeat' || key.source === 'chunk' || key.afterSame !== undefined;
  }

  private static same(a: { name: string; input: string }, b: Keypress): boolean {
    return b.source !== 'paste' && a.name === b.name && a.input === b.input;
  }

  /**
   * Takes note of a key as it arrives, before it is handled: a repeat of the answer
   * waiting drops it (the key was held); any other key lets it answer first.
   */
  seen(key: Keypress): void {
    const waiting = this.waiting;
    if (waiting !== null) {
      this.waiting = null;
      clearTimeout(waiting.timer);
      if (HeldKeys.same(waiting.key, key) && HeldKeys.again(key)) {
        this.held = { name: key.name, input: key.input, gap: key.afterSame ?? REPEAT_MS };
        return;
      }
      waiting.answer();
    }
    if (key.source === 'repeat') {
      this.held = { name: key.name, input: key.input, gap: key.afterSame ?? REPEAT_MS };
      return;
    }
    // Still held while the key keeps the pace of its repeats; a longer pause is a release.
    const held = this.held;
    if (held !== null && HeldKeys.same(held, key) && key.afterSame !== undefined && key.afterSame <= 2 * held.gap + 50) {
      held.gap = key.afterSame;
      return;
    }
    this.held = null;
  }

  /**
   * A key that would answer a prompt: `'now'` (the caller answers with it), `'held'` (the
   * key is held down: it answers nothing), `'never'` (not a key alone in its read: a
   * repeat, a chunk or a paste never answers), or `'waiting'`: `run` answers with it later,
   * unless a repeat of it comes first (see the class comment).
   */
  answer(key: Keypress, run: () => void): AnswerTaken {
    if (key.source !== 'key') return 'never';
    if (key.afterSame === undefined) return 'now';
    if (this.held !== null && HeldKeys.same(this.held, key)) return 'held';
    const timer = setTimeout(() => {
      if (this.waiting?.timer !== timer) return;
      this.waiting = null;
      run();
    }, answerWaitMs(key.afterSame));
    this.waiting = { key, timer, answer: run };
    return 'waiting';
  }

  /** Drops an answer still waiting (the console is closing). */
  dispose(): void {
    if (this.waiting !== null) clearTimeout(this.waiting.timer);
    this.waiting = null;
  }
}
