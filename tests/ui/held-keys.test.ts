// A held key never answers a prompt that armed while it was held, whatever the terminal's
// repeat delay and rate; a key pressed again does, at most a moment later. Keys go through
// the real decoder (with a clock) and the held-key filter, as the console sends them.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ANSWER_WAIT_MAX_MS, HeldKeys } from '../../src/ui/held-keys.js';
import { createKeyDecoder, type Keypress } from '../../src/ui/terminal-input.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * Prompts one after another, each armed `armAfter` ms after the one before was answered
 * (the first at 0), answered by a `y` alone in its read; `reads` are [ms, text] in time
 * order. The answers, as the ms each was taken at.
 */
function answers(reads: Array<[number, string]>, { armAfter = 300 }: { armAfter?: number } = {}): number[] {
  let clock = 0;
  let armedAt = 0;
  const taken: number[] = [];
  const filter = new HeldKeys();
  const answer = () => {
    taken.push(clock);
    armedAt = clock + armAfter;
  };
  const decoder = createKeyDecoder((keys: Keypress[]) => {
    for (const key of keys) {
      filter.seen(key);
      if (key.name !== 'y' || clock < armedAt) continue;
      const armed = armedAt;
      if (filter.answer(key, () => armed === armedAt && answer()) === 'now') answer();
    }
  }, { now: () => clock });
  const advance = (to: number) => {
    // Timers fire in order, each at its own time.
    while (clock < to) {
      const step = Math.min(to - clock, 1);
      clock += step;
      vi.advanceTimersByTime(step);
    }
  };
  for (const [at, text] of reads) {
    advance(at);
    decoder.push(text);
  }
  advance(clock + 3000);
  decoder.dispose();
  filter.dispose();
  return taken;
}

/** `y` held from `from` for `ms`: the press, the first repeat after `delay`, then one every `every` ms. */
function heldY(from: number, ms: number, delay: number, every: number): Array<[number, string]> {
  const reads: Array<[number, string]> = [[from, 'y']];
  for (let at = from + delay; at < from + ms; at += every) reads.push([at, 'y']);
  return reads;
}

describe('a held y answers the prompt it was pressed at, and nothing after it, however it repeats', () => {
  test.each([
    // [repeat delay, repeat interval]: X11's default, macOS's default, slow rates (Windows' slowest is 400 ms).
    [660, 40],
    [500, 33],
    [250, 15],
    [600, 100],
    [600, 130],
    [600, 160],
    [600, 200],
    [1000, 300],
    [500, 400],
    [2000, 33],
  ])('delay %i ms, then every %i ms: one answer, whether the next prompt arms early or late', (delay, every) => {
    for (const armAfter of [50, 300, 900]) {
      expect(answers(heldY(0, 5000, delay, every), { armAfter }), `next prompt armed ${armAfter} ms after`).toEqual([0]);
    }
  });
});

describe('a key pressed again answers', () => {
  test('after a pause longer than any repeat delay: at once', () => {
    expect(answers([[0, 'y'], [3000, 'y'], [6000, 'y']])).toEqual([0, 3000, 6000]);
  });

  test('within a repeat delay of the last one: once it has waited a little longer than that gap without a repeat, at most half a second', () => {
    const taken = answers([[0, 'y'], [400, 'y'], [1600, 'y']]);
    expect(taken).toHaveLength(3);
    expect(taken[1]! - 400).toBeGreaterThanOrEqual(400);
    expect(taken[1]! - 400).toBeLessThanOrEqual(ANSWER_WAIT_MAX_MS);
    expect(taken[2]! - 1600).toBe(ANSWER_WAIT_MAX_MS);
  });

  test('another key after it answers with it first: no wait', () => {
    expect(answers([[0, 'y'], [400, 'y'], [450, 'j']])).toEqual([0, 450]);
  });

  test('after a held key is released: a press at its pace is taken for the held key; a press after a longer pause answers', () => {
    // Held at 200 ms a repeat from 0 to about 2 s, released; pressed again 300 ms later (the pace: still held), then 1 s later.
    const reads = [...heldY(0, 2000, 600, 200), [2100, 'y'] as [number, string], [3100, 'y'] as [number, string]];
    expect(answers(reads)).toEqual([0, 3100 + ANSWER_WAIT_MAX_MS]);
  });

  test('a chunk or a paste never answers, and a repeat of the waiting key in a chunk shows it was held', () => {
    expect(answers([[0, 'yy'], [400, '\u001b[200~y\u001b[201~']])).toEqual([]);
    expect(answers([[0, 'y'], [600, 'y'], [640, 'yy'], [5000, 'y']])).toEqual([0, 5000]);
  });
});
