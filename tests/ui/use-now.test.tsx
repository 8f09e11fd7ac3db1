// useNow: the time a countdown or a clock is drawn from. The render that turns it on must
// read the clock, never the time kept from when it was last on (a prompt's "denied in"
// then showed more time left than its timeout).
import React from 'react';
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { useNow } from '../../src/ui/use-now.js';

function Clock({ active }: { active: boolean }) {
  const now = useNow(active);
  return <Text>{`now ${now}`}</Text>;
}

describe('useNow', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  test('turned on after a while, its first frame shows the time of that render, then it ticks', () => {
    const { lastFrame, rerender, unmount } = render(<Clock active={false} />);
    expect(lastFrame()).toBe('now 1000000');
    vi.setSystemTime(1_120_000); // two minutes later a prompt with a countdown shows
    rerender(<Clock active />);
    expect(lastFrame()).toBe('now 1120000');
    vi.advanceTimersByTime(1000);
    rerender(<Clock active />);
    expect(lastFrame()).toBe('now 1121000');
    // Off, then on again later: the new time again, not the last tick's.
    rerender(<Clock active={false} />);
    vi.setSystemTime(1_500_000);
    rerender(<Clock active />);
    expect(lastFrame()).toBe('now 1500000');
    unmount();
  });
});
