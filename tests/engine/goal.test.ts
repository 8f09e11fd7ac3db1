import { describe, expect, it } from 'vitest';
import { fallbackReconciliation, newGoal, parseGoalCommand, renderGoalForAgent, reviseGoal } from '../../src/engine/goal.js';
import type { Goal } from '../../src/engine/types.js';

const VALID = 'status, add-constraint, redirect, modify, add-criterion';

describe('parseGoalCommand', () => {
  it.each([
    ['/goal status', { kind: 'status' }],
    ['  /goal status  ', { kind: 'status' }],
    ['/goal add-constraint keep the API', { kind: 'revise', directive: 'add-constraint', text: 'keep the API' }],
    ['/goal redirect focus on auth', { kind: 'revise', directive: 'redirect', text: 'focus on auth' }],
    ['/goal modify fix the login flow', { kind: 'revise', directive: 'modify', text: 'fix the login flow' }],
    ['/goal add-criterion   all tests pass  ', { kind: 'revise', directive: 'add-criterion', text: 'all tests pass' }],
  ])('%j parses', (line, expected) => {
    expect(parseGoalCommand(line)).toEqual(expected);
  });

  it('/goal alone is an error listing the valid subcommands', () => {
    expect(parseGoalCommand('/goal')).toEqual({ kind: 'error', message: `/goal needs a subcommand: ${VALID}` });
  });

  it('/goal add-constraint without text is an error saying it needs text', () => {
    expect(parseGoalCommand('/goal add-constraint')).toEqual({
      kind: 'error',
      message: '/goal add-constraint needs text, e.g. /goal add-constraint keep the public API',
    });
    expect(parseGoalCommand('/goal redirect    ')).toEqual({
      kind: 'error',
      message: '/goal redirect needs text, e.g. /goal redirect keep the public API',
    });
  });

  it('an unknown subcommand is named, with the valid ones', () => {
    expect(parseGoalCommand('/goal redirekt x')).toEqual({
      kind: 'error',
      message: `unknown /goal subcommand "redirekt"; valid: ${VALID}`,
    });
  });

  it('/goal status takes no text', () => {
    expect(parseGoalCommand('/goal status now')).toEqual({ kind: 'error', message: '/goal status takes no text' });
  });

  it('a line that is not a /goal command is an error', () => {
    expect(parseGoalCommand('/goals status')).toEqual({ kind: 'error', message: 'expected a command like /goal status' });
    expect(parseGoalCommand('goal status')).toEqual({ kind: 'error', message: 'expected a command like /goal status' });
  });

  it('the subcommand word is matched before free text: text that looks like a command stays text', () => {
    expect(parseGoalCommand('/goal redirect add-constraint x')).toEqual({
      kind: 'revise',
      directive: 'redirect',
      text: 'add-constraint x',
    });
  });

  it('keeps multi-line text as given', () => {
    expect(parseGoalCommand('/goal add-constraint keep the API\nand the CLI')).toEqual({
      kind: 'revise',
      directive: 'add-constraint',
      text: 'keep the API\nand the CLI',
    });
  });
});

describe('reviseGoal', () => {
  const goal: Goal = {
    ...newGoal('fix the payload bug', ['all tests pass'], ['do not edit the tests']),
    notes: ['reproduced the failure'],
  };

  it('newGoal starts active at revision 0 with no notes', () => {
    expect(newGoal('x')).toEqual({ objective: 'x', success_criteria: [], constraints: [], status: 'active', notes: [], revision: 0 });
  });

  it('add-constraint keeps the objective and appends the constraint; revision + 1', () => {
    expect(reviseGoal(goal, 'add-constraint', 'keep the API')).toEqual({
      objective: 'fix the payload bug',
      success_criteria: ['all tests pass'],
      constraints: ['do not edit the tests', 'keep the API'],
      status: 'active',
      notes: ['reproduced the failure'],
      revision: 1,
    });
  });

  it('add-criterion appends a criterion and keeps the status', () => {
    const revised = reviseGoal(goal, 'add-criterion', 'no lint errors');
    expect(revised.success_criteria).toEqual(['all tests pass', 'no lint errors']);
    expect(revised.status).toBe('active');
    expect(revised.revision).toBe(1);
  });

  it('redirect replaces the objective and the criteria with those typed (kept when none are), status revised', () => {
    expect(reviseGoal(goal, 'redirect', 'focus on auth --criterion auth passes --check npm test -- auth --criterion no warnings')).toMatchObject({
      objective: 'focus on auth',
      success_criteria: ['auth passes', 'no warnings'],
    });
    expect(reviseGoal(goal, 'redirect', 'focus on auth')).toEqual({
      objective: 'focus on auth',
      success_criteria: ['all tests pass'],
      constraints: ['do not edit the tests'],
      status: 'revised',
      notes: ['reproduced the failure'],
      revision: 1,
    });
  });

  it('modify replaces the objective and keeps the criteria, status revised', () => {
    expect(reviseGoal(goal, 'modify', 'fix the payload bug for emoji too')).toEqual({
      objective: 'fix the payload bug for emoji too',
      success_criteria: ['all tests pass'],
      constraints: ['do not edit the tests'],
      status: 'revised',
      notes: ['reproduced the failure'],
      revision: 1,
    });
  });

  it('revisions count up and leave the original goal untouched', () => {
    const twice = reviseGoal(reviseGoal(goal, 'add-constraint', 'a'), 'modify', 'b');
    expect(twice.revision).toBe(2);
    expect(twice.constraints).toEqual(['do not edit the tests', 'a']);
    expect(goal).toEqual({
      objective: 'fix the payload bug',
      success_criteria: ['all tests pass'],
      constraints: ['do not edit the tests'],
      status: 'active',
      notes: ['reproduced the failure'],
      revision: 0,
    });
  });
});

describe('what the agent sees', () => {
  it('fallback reconciliation asks for a full restart only on redirect', () => {
    expect(fallbackReconciliation('redirect').full_restart).toBe(true);
    expect(fallbackReconciliation('modify').full_restart).toBe(false);
    expect(fallbackReconciliation('add-constraint').full_restart).toBe(false);
  });

  it('renders the revised goal with its criteria and constraints', () => {
    const revised = reviseGoal(newGoal('fix it', ['tests pass'], ['keep the API']), 'add-constraint', 'no new deps');
    expect(renderGoalForAgent(revised)).toBe(
      [
        'Objective: fix it',
        'Success criteria (all must be met):',
        '  1. tests pass',
        'Constraints (must not be violated):',
        '  - keep the API',
        '  - no new deps',
      ].join('\n'),
    );
  });
});

describe('goal model: priority, sub-goals and progress notes', () => {
  it('renders priority, sub-goals with their parent, and only the last three notes for the agent', async () => {
    const { newGoal: make, renderGoalForAgent: render } = await import('../../src/engine/goal.js');
    const goal = make('Ship the fix', ['tests pass'], ['no new deps'], {
      priority: 'high',
      sub_goals: [{ objective: 'fix the serializer', success_criteria: [] }],
    });
    expect(goal.sub_goals).toEqual([{ id: 'g1', parent: 'goal', objective: 'fix the serializer', success_criteria: [], status: 'active' }]);
    const text = render({ ...goal, notes: ['n1', 'n2', 'n3', 'n4'] });
    expect(text).toBe(
      [
        'Objective: Ship the fix (priority: high)',
        'Success criteria (all must be met):',
        '  1. tests pass',
        'Constraints (must not be violated):',
        '  - no new deps',
        'Sub-goals (parts of the objective):',
        '  g1. fix the serializer [active]',
        'Recent progress notes:',
        '  - n2',
        '  - n3',
        '  - n4',
      ].join('\n'),
    );
  });
});
