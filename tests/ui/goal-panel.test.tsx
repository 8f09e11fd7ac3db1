// The goal panel names a checked constraint the run broke, in red, with the paths that
// changed or the exit code of its check; a check that could not run is shown as such.
// Whole frames, from a store folded from events.
import { vi, describe, test, expect } from 'vitest';

vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import React from 'react';
import { render } from 'ink-testing-library';
import type { EventDataMap, EventType, LoopEvent } from '../../src/engine/index.js';
import { newGoal } from '../../src/engine/goal.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { GoalPanel } from '../../src/ui/GoalPanel.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { cellWidth } from '../../src/ui/text.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';

type Item = { [T in EventType]: [T, EventDataMap[T]] }[EventType];

const GOAL = newGoal('fix the bug', ['npm test passes'], [
  'keep the public API',
  { text: 'do not edit the tests', protect: ['test/**'] },
  { text: 'leave no TODO in src', command: '! grep -rq TODO src' },
]);

function events(...items: Item[]): LoopEvent[] {
  const all: Item[] = [
    ['session.start', { schemaVersion: 1, goal: GOAL, pattern: 'react', pattern_reason: 'set', budget: { turns: 10, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, workspace: '/w', checkpoint_every: 1, stagnation_threshold: 3 }],
    ...items,
  ];
  return all.map(([type, data], seq) => ({ seq, at: 1_700_000_000_000 + seq, session: 's1', type, data }) as LoopEvent);
}

/** Each frame as drawn, colour codes included. */
const colours: string[] = [];

function frame(log: LoopEvent[]): string {
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(log)} controller={READ_ONLY_CONTROLLER}>
      <GoalPanel height={8} width={100} />
    </ConsoleProvider>,
  );
  const out = lastFrame() ?? '';
  unmount();
  colours.push(out);
  return out.replace(/\u001b\[[0-9;]*m/g, '');
}

const violated: Item = ['constraint.violated', { iteration: 3, index: 1, text: 'do not edit the tests', check: 'protect', paths: ['test/a.test.ts', 'test/old.test.ts'], changed: 5, action: 'pause' }];
const failed: Item = ['constraint.violated', { iteration: 3, index: 2, text: 'leave no TODO in src', check: 'command', exit_code: 1, output: 'src/a.ts', action: 'pause' }];
const unchecked: Item = ['constraint.unchecked', { iteration: 3, index: 1, text: 'do not edit the tests', check: 'protect', error: 'the workspace is not a git repository: changed paths cannot be listed' }];

describe('the goal panel and checked constraints', () => {
  test('a violated protect and command constraint: one red line each, naming it and the paths or the exit code', () => {
    const out = frame(events(violated, failed));
    expect(out).toBe(
      [
        'objective   fix the bug (active, revision 0)',
        'criteria    1, none checkable (they do not block the goal)',
        '– not checkable #1 npm test passes',
        'constraints keep the public API · do not edit the tests · leave no TODO in src',
        '✗ VIOLATED at turn 3 "do not edit the tests": changed test/a.test.ts, test/old.test.ts and 3 more',
        '✗ VIOLATED at turn 3 "leave no TODO in src": its check exited 1',
        'revisions   none',
        '',
      ].join('\n'),
    );
    const drawn = colours.at(-1)!.split('\n');
    expect(drawn[4]).toMatch(/^\u001b\[31m✗ VIOLATED/);
    expect(drawn[5]).toMatch(/^\u001b\[31m✗ VIOLATED/);
  });

  test('a check that could not be evaluated is shown as unchecked, never as kept', () => {
    expect(frame(events(unchecked))).toBe(
      [
        'objective   fix the bug (active, revision 0)',
        'criteria    1, none checkable (they do not block the goal)',
        '– not checkable #1 npm test passes',
        'constraints keep the public API · do not edit the tests · leave no TODO in src',
        '? UNCHECKED at turn 3 "do not edit the tests": the workspace is not a git repository: changed paths…',
        'revisions   none',
        '',
        '',
      ].join('\n'),
    );
  });

  test('the next checkpoint clears the lines: each check compares with the run\'s start again', () => {
    const checkpoint: Item = ['checkpoint.recorded', { checkpoint: { index: 0, iteration: 4, status: 'BASELINE', signals: [], observed: {}, reported: { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] }, observed_progress: false, claimed_progress: false, counter: 0, threshold: 3, stagnation_detected: false } as never }];
    expect(frame(events(violated, checkpoint))).not.toContain('VIOLATED');
  });
});

describe('a long objective', () => {
  const long = (words: number) => Array.from({ length: words }, (_, i) => `w${i}`).join(' ');
  function objectiveFrame(objective: string, height: number): string[] {
    const goal = { ...newGoal(objective, ['npm test passes'], []) };
    const log = [{ seq: 0, at: 1, session: 's1', type: 'session.start', data: { schemaVersion: 1, goal, pattern: 'react', pattern_reason: 'set', budget: { turns: 10, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, workspace: '/w', checkpoint_every: 1, stagnation_threshold: 3 } } as LoopEvent];
    const { lastFrame, unmount } = render(
      <ConsoleProvider store={createConsoleStore(log)} controller={READ_ONLY_CONTROLLER}>
        <GoalPanel height={height} width={60} />
      </ConsoleProvider>,
    );
    const out = (lastFrame() ?? '').replace(/\u001b\[[0-9;]*m/g, '');
    unmount();
    return out.split('\n');
  }

  test('wraps at spaces over the rows the panel has free, and is read whole when they are enough', () => {
    const rows = objectiveFrame(long(40), 10);
    const text = rows.slice(0, 4).map((r) => r.replace(/^objective {3}| {12}/, '').trimEnd()).join(' ');
    expect(text).toBe(`${long(40)} (active, revision 0)`);
    expect(rows[4]).toBe('criteria    1, none checkable (they do not block the goal)');
    expect(rows.every((r) => r.length <= 60)).toBe(true);
  });

  test('cut where the rows end, with …, and every other row of the panel kept', () => {
    const rows = objectiveFrame(long(200), 6);
    expect(rows.slice(0, 2).every((r) => r.length <= 60)).toBe(true);
    expect(rows[1]).toMatch(/ …$/);
    expect(rows.slice(2, 6)).toEqual(['criteria    1, none checkable (they do not block the goal)', '– not checkable #1 npm test passes', 'constraints none', 'revisions   none']);
  });

  test('joined emoji and CJK wrap by the cells the terminal draws', () => {
    const rows = objectiveFrame(`${'修正する 👨‍👩‍👧 '.repeat(6)}end`, 10);
    const end = rows.findIndex((r) => r.endsWith(' end (active, revision 0)'));
    expect(end, rows.join('\n')).toBeGreaterThan(1);
    expect(rows.slice(0, end + 1).every((r) => cellWidth(r) <= 60)).toBe(true);
    // Wrapped at spaces only: the rows read together give the text, a family as its parts.
    const text = rows.slice(0, end + 1).map((r) => r.replace(/^objective {3}| {12}/, '').trimEnd()).join(' ');
    expect(text).toBe(`${'修正する 👨\\u{200d}👩\\u{200d}👧 '.repeat(6)}end (active, revision 0)`);
  });
});
