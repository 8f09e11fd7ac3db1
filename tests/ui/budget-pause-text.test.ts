// What a budget pause's box says once its limits changed while it waits (`/budget`,
// `/reload`): the recorded prompt names the amounts of the moment it paused; the box names
// them as they are now, and any other limit that is spent too (c would pause again for it).
import { describe, expect, test } from 'vitest';
import { ZERO_USAGE } from '../../src/engine/budget.js';
import { INITIAL_STATE, type SessionState } from '../../src/engine/fold.js';
import { parsePauseReason } from '../../src/engine/reasons.js';
import type { BudgetDimension, BudgetLimits } from '../../src/engine/types.js';
import { raisedPausePrompt } from '../../src/ui/budget-pause.js';

/** A session paused for `dimension` with `prompt` recorded, now under `limits` with `usage` (wall clock: `activeMs`). */
function pausedAt(dimension: BudgetDimension, prompt: string, limits: Partial<BudgetLimits>, usage: Partial<SessionState['usage']>, activeMs = 0): SessionState {
  return {
    ...INITIAL_STATE,
    pending: { kind: 'pause', reason: `budget_exceeded:${dimension}`, cause: parsePauseReason(`budget_exceeded:${dimension}`), prompt, from: 'REFLECTING', seq: 9 },
    limits: { ...INITIAL_STATE.limits, ...limits },
    usage: { ...ZERO_USAGE, ...usage },
    activeMs,
    activeSince: null,
    lastAt: 1_000_000,
  };
}

describe('a budget pause whose limit changed and is still spent', () => {
  test('the first sentence names the amounts as they are now, in the console units; the rest is as recorded', () => {
    const wall = 'The wall_clock budget is spent (1m42s of 1m). Raise it (/budget wall_clock +10m) and continue, or stop.';
    expect(raisedPausePrompt(pausedAt('wall_clock_seconds', wall, { wall_clock_seconds: 80 }, {}, 102_000))).toBe(
      'The wall_clock budget is spent (1m42s of 1m20s). Raise it (/budget wall_clock +10m) and continue, or stop.',
    );
    const turns = 'The turns budget is spent (9 of 9). Raise it (/budget turns +10) and continue, or stop.';
    expect(raisedPausePrompt(pausedAt('turns', turns, { turns: 5 }, { turns: 9 }))).toBe('The turns budget is spent (9 of 5). Raise it (/budget turns +10) and continue, or stop.');
    // Unchanged: the recorded prompt stands.
    expect(raisedPausePrompt(pausedAt('turns', turns, { turns: 9 }, { turns: 9 }))).toBeNull();
  });
});

describe('a budget pause whose limit was raised past its use', () => {
  test('alone: c continues the run', () => {
    const turns = 'The turns budget is spent (9 of 9). Raise it (/budget turns +10) and continue, or stop.';
    expect(raisedPausePrompt(pausedAt('turns', turns, { turns: 40 }, { turns: 9 }))).toBe('The turns limit is now 40 (9 used): c continues the run.');
  });

  test('with other limits spent beside it: named, and c pauses again', () => {
    const turns = 'The turns budget is spent (9 of 9). Raise it (/budget turns +10) and continue, or stop.';
    expect(raisedPausePrompt(pausedAt('turns', turns, { turns: 40, tool_calls: 9 }, { turns: 9, tool_calls: 9 }))).toBe(
      'The turns limit is now 40 (9 used), but this limit is spent too: tool_calls (9 of 9); c pauses again for it.',
    );
    expect(raisedPausePrompt(pausedAt('turns', turns, { turns: 40, tool_calls: 9, cost_usd: 0.1 }, { turns: 9, tool_calls: 9, cost_usd: 0.10275 }))).toBe(
      'The turns limit is now 40 (9 used), but these limits are spent too: tool_calls (9 of 9), cost ($0.10275 of $0.10000); c pauses again for the first.',
    );
  });
});
