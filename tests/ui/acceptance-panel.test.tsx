// The goal panel draws the acceptance matrix: a row per success criterion with the status
// the harness derived and the evidence (the command and its exit code, or the metric
// against its target), the agent's claim only ever labelled as reported. Whole frames at
// 80 columns, from a store folded from events: long criteria and CJK text keep the status
// column and stay within the width.
import { vi, describe, test, expect } from 'vitest';

vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import React from 'react';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import type { AcceptanceCriterion, AcceptanceRow } from '../../src/engine/acceptance.js';
import type { EventDataMap, EventType, LoopEvent } from '../../src/engine/index.js';
import { newGoal } from '../../src/engine/goal.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { GoalPanel } from '../../src/ui/GoalPanel.js';
import { fold } from '../../src/engine/fold.js';
import { verdictText } from '../../src/ui/progress.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { cellWidth } from '../../src/ui/text.js';
import { KEY } from '../support/console-rig.js';
import { fits, READ_ONLY_CONTROLLER, renderStore } from '../support/ui-helpers.js';

type Item = { [T in EventType]: [T, EventDataMap[T]] }[EventType];

const LONG = 'every public endpoint answers within two hundred milliseconds under the load profile of the nightly benchmark suite';
const CJK = '所有测试都通过并且没有新的警告出现在构建日志里面';

const CRITERIA: AcceptanceCriterion[] = [
  { text: 'no failing tests', check: { signal: 'observed.tests.failing', op: '<=', target: 0 } },
  { text: 'the build passes', check: { command: 'npm run build', timeout: 120, expect_exit: 0 } },
  { text: LONG, check: { command: 'no-such-bench --fast', timeout: 120, expect_exit: 0 } },
  { text: CJK, check: { signal: 'observed.lint.warnings', op: '==', target: 0 } },
  { text: 'the code reads well' },
];

function events(criteria: AcceptanceCriterion[], ...items: Item[]): LoopEvent[] {
  const goal = newGoal('ship the release', criteria.map((c) => c.text));
  const all: Item[] = [
    ['session.start', { schemaVersion: 1, goal, pattern: 'react', pattern_reason: 'set', budget: { turns: 10, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, workspace: '/w', checkpoint_every: 1, stagnation_threshold: 3, acceptance: criteria }],
    ...items,
  ];
  return all.map(([type, data], seq) => ({ seq, at: 1_700_000_000_000 + seq, session: 's1', type, data }) as LoopEvent);
}

const colours: string[] = [];

function frame(log: LoopEvent[], width = 80, height = 10): string {
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(log)} controller={READ_ONLY_CONTROLLER}>
      <Box width={width} flexDirection="column">
        <GoalPanel height={height} width={width} />
      </Box>
    </ConsoleProvider>,
  );
  const out = lastFrame() ?? '';
  unmount();
  colours.push(out);
  return out.replace(/\u001b\[[0-9;]*m/g, '');
}

const ROWS: AcceptanceRow[] = [
  { index: 0, text: 'no failing tests', status: 'IN_PROGRESS', evidence: { kind: 'signal', signal: 'observed.tests.failing', op: '<=', target: 0, value: 2 }, why: 'moved toward the target: 5 at the first check, 2 now' },
  { index: 1, text: 'the build passes', status: 'DONE', evidence: { kind: 'command', command: 'npm run build', expect_exit: 0, exit_code: 0 }, reported: 'the build is green (ci log)' },
  { index: 2, text: LONG, status: 'BLOCKED', evidence: { kind: 'command', command: 'no-such-bench --fast', expect_exit: 0, exit_code: 127 }, why: 'command not found (exit 127)' },
  { index: 3, text: CJK, status: 'BLOCKED', evidence: { kind: 'signal', signal: 'observed.lint.warnings', op: '==', target: 0, value: null }, why: 'not measured: observer "lint" (npm run lint): timed out' },
  { index: 4, text: 'the code reads well', status: 'NOT_CHECKABLE', reported: 'criterion 5: I refactored it (src/)' },
];

describe('the acceptance matrix in the goal panel', () => {
  test('before any check: every checkable row PENDING, the text-only one not checkable', () => {
    expect(frame(events(CRITERIA))).toBe(
      [
        'objective   ship the release (active, revision 0)',
        'criteria    0/4 checkable done · 1 not checkable · not checked yet',
        '· PENDING       #1 no failing tests · not checked yet',
        '· PENDING       #2 the build passes · not checked yet',
        '· PENDING       #3 every public endpoint answers… · not checked yet',
        '· PENDING       #4 所有测试都通过并且没有新的警… · not checked yet',
        '– not checkable #5 the code reads well',
        'constraints none',
        'revisions   none',
        '',
      ].join('\n'),
    );
  });

  test('after a check: status, evidence (metric vs target, command and exit code), why, and claims labelled as reported; long and CJK text clipped to 80 columns', () => {
    const out = frame(events(CRITERIA, ['acceptance.checked', { iteration: 4, trigger: 'checkpoint', rows: ROWS }]));
    expect(out).toBe(
      [
        'objective   ship the release (active, revision 0)',
        'criteria    1/4 checkable done · 1 not checkable · checked at turn 4',
        '◐ IN_PROGRESS   #1 no failing tests · observed.tests.failing = 2, target <= 0 ·…',
        '✓ DONE          #2 the build passes · $ npm run build → exit 0 · reported: the …',
        '✗ BLOCKED       #3 every public endpoint answers… · $ no-such-bench --fast → ex…',
        '✗ BLOCKED       #4 所有测试都通过并且没有新的警… · observed.lint.warnings = not…',
        '– not checkable #5 the code reads well · reported: criterion 5: I refactored it…',
        'constraints none',
        'revisions   none',
        '',
      ].join('\n'),
    );
    for (const line of out.split('\n')) expect(cellWidth(line)).toBeLessThanOrEqual(80);
    expect(cellWidth(out.split('\n')[5]!)).toBe(80);
    const drawn = colours.at(-1)!.split('\n');
    expect(drawn[3]).toMatch(/^\u001b\[32m✓ DONE/);
    expect(drawn[4]).toMatch(/^\u001b\[1m\u001b\[31m✗ BLOCKED|^\u001b\[31m\u001b\[1m✗ BLOCKED/);
  });

  test('a wider panel shows the whole evidence of a long row', () => {
    const out = frame(events(CRITERIA, ['acceptance.checked', { iteration: 4, trigger: 'verify', rows: ROWS }]), 220);
    expect(out.split('\n')[1]).toBe('criteria    1/4 checkable done · 1 not checkable · checked before the verdict at turn 4');
    expect(out.split('\n')[4]).toBe(`✗ BLOCKED       #3 ${LONG} · $ no-such-bench --fast → exit 127 · command not found (exit 127)`);
  });

  test('a goal with text criteria only: each is not checkable and the summary says they do not block the goal', () => {
    const out = frame(events([{ text: 'npm test passes' }]), 80, 5);
    expect(out).toBe(
      ['objective   ship the release (active, revision 0)', 'criteria    1, none checkable (they do not block the goal)', '– not checkable #1 npm test passes', 'constraints none', 'revisions   none'].join('\n'),
    );
  });

  test('/goal redirect with criteria: the rows are those the operator typed', () => {
    const typed: AcceptanceCriterion[] = [{ text: 'the flag exists', check: { command: 'test -f done.flag', timeout: 120, expect_exit: 0 } }];
    const goal = { ...newGoal('only the flag', ['the flag exists']), status: 'revised' as const, revision: 1 };
    const revision = { directive: 'redirect' as const, text: 'only the flag --criterion the flag exists --check test -f done.flag', reconciliation: { still_valid: 'x', discard: 'y', new_work: 'z', full_restart: true } };
    const out = frame(events(CRITERIA, ['acceptance.checked', { iteration: 4, trigger: 'checkpoint', rows: ROWS }], ['goal.revised', { revision, goal, acceptance: typed }]));
    expect(out.split('\n').slice(0, 4)).toEqual([
      'objective   only the flag (revised, revision 1)',
      'criteria    0/1 checkable done · checked at turn 4',
      '· PENDING       #1 the flag exists · not checked yet',
      'constraints none',
    ]);
  });

  test('in the whole console at 80×30: Tab to the goal panel shows the rows, every line within 80 columns', async () => {
    const c = await renderStore(createConsoleStore(events(CRITERIA, ['acceptance.checked', { iteration: 4, trigger: 'checkpoint', rows: ROWS }])), { columns: 80, rows: 30 });
    await c.press(KEY.tab);
    const frame = await c.waitForFrame('criteria    1/4 checkable done');
    const lines = frame.split('\n');
    const at = lines.findIndex((l) => l.startsWith('criteria    '));
    expect(lines.slice(at, at + 6)).toEqual([
      'criteria    1/4 checkable done · 1 not checkable · checked at turn 4',
      '◐ IN_PROGRESS   #1 no failing tests · observed.tests.failing = 2, target <= 0 ·…',
      '✓ DONE          #2 the build passes · $ npm run build → exit 0 · reported: the …',
      '✗ BLOCKED       #3 every public endpoint answers… · $ no-such-bench --fast → ex…',
      '✗ BLOCKED       #4 所有测试都通过并且没有新的警… · observed.lint.warnings = not…',
      '– not checkable #5 the code reads well · reported: criterion 5: I refactored it…',
    ]);
    expect(fits(frame, 80, 30)).toMatchObject({ ok: true });
  });

  test('a verdict whose commands passed but whose rows are not done says so in the progress panel', () => {
    const acceptance = { met: false, not_done: [{ index: 2, text: LONG, status: 'BLOCKED' as const, why: 'command not found (exit 127)' }] };
    const log = events(CRITERIA, ['verify.result', { passed: false, commands: [{ command: 'npm test', exit_code: 0, passed: true, output: '' }], trigger: 'claim', acceptance }]);
    expect(verdictText(fold(log))).toEqual({ ok: false, text: 'claim refuted: 1 success criterion not done' });
  });
});
