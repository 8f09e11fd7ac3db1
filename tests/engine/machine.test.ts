import { describe, expect, it } from 'vitest';
import { IllegalTransitionError } from '../../src/engine/errors.js';
import {
  canTransition,
  INITIAL_MACHINE,
  LOOP_STATES,
  transition,
  type LoopState,
  type MachineState,
} from '../../src/engine/machine.js';

/** A running (non-IDLE) machine in `state`. */
const at = (state: LoopState): MachineState => ({ state, pausedFrom: null, started: true });
/** A machine paused (IDLE) after leaving `from`. */
const pausedFrom = (from: LoopState): MachineState => ({ state: 'IDLE', pausedFrom: from, started: true });

/** The table of docs/design.md, "States", for every state but IDLE. */
const TABLE: Record<Exclude<LoopState, 'IDLE'>, LoopState[]> = {
  PLANNING: ['EXECUTING', 'DONE', 'IDLE'],
  EXECUTING: ['AWAITING_TOOL', 'REFLECTING', 'IDLE'],
  AWAITING_TOOL: ['REFLECTING', 'IDLE'],
  REFLECTING: ['EXECUTING', 'PLANNING', 'DONE', 'IDLE'],
  DONE: [],
};

const LEGAL: Array<[LoopState, LoopState]> = Object.entries(TABLE).flatMap(([from, targets]) =>
  targets.map((to) => [from as LoopState, to] as [LoopState, LoopState]),
);

const ILLEGAL: Array<[LoopState, LoopState]> = Object.entries(TABLE).flatMap(([from, targets]) =>
  LOOP_STATES.filter((to) => !targets.includes(to)).map((to) => [from as LoopState, to] as [LoopState, LoopState]),
);

/** States a run can pause from (every state with IDLE among its targets). */
const PAUSABLE = (Object.keys(TABLE) as Array<Exclude<LoopState, 'IDLE'>>).filter((s) => TABLE[s].includes('IDLE'));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

function expectIllegal(machine: MachineState, to: LoopState, seq: number): void {
  const error = thrown(() => transition(machine, to, seq));
  expect(error).toBeInstanceOf(IllegalTransitionError);
  const e = error as IllegalTransitionError;
  expect(e.name).toBe('IllegalTransitionError');
  expect({ from: e.from, to: e.to, seq: e.seq }).toEqual({ from: machine.state, to, seq });
  expect(e.message).toBe(`illegal transition ${machine.state} -> ${to} at seq ${seq}`);
}

describe('transition table', () => {
  it('has 12 legal pairs outside IDLE (the docs/design.md table)', () => {
    expect(LEGAL).toHaveLength(12);
  });

  it.each(LEGAL)('%s -> %s is legal', (from, to) => {
    expect(canTransition(at(from), to)).toBe(true);
    const next = transition(at(from), to, 7);
    expect(next.state).toBe(to);
    expect(next.started).toBe(true);
    // Entering IDLE remembers where the pause came from; every other target clears it.
    expect(next.pausedFrom).toBe(to === 'IDLE' ? from : null);
  });

  it.each(ILLEGAL)('%s -> %s is rejected', (from, to) => {
    expect(canTransition(at(from), to)).toBe(false);
    expectIllegal(at(from), to, 42);
  });

  it('does not change the machine it rejects', () => {
    const machine = at('EXECUTING');
    expectIllegal(machine, 'PLANNING', 3);
    expect(machine).toEqual({ state: 'EXECUTING', pausedFrom: null, started: true });
  });
});

describe('fresh IDLE', () => {
  it('starts as IDLE, not started, paused from nothing', () => {
    expect(INITIAL_MACHINE).toEqual({ state: 'IDLE', pausedFrom: null, started: false });
  });

  it('goes to PLANNING on run()', () => {
    expect(transition(INITIAL_MACHINE, 'PLANNING', 1)).toEqual({ state: 'PLANNING', pausedFrom: null, started: true });
  });

  it.each(LOOP_STATES.filter((s) => s !== 'PLANNING'))('rejects IDLE -> %s', (to) => {
    expect(canTransition(INITIAL_MACHINE, to)).toBe(false);
    expectIllegal(INITIAL_MACHINE, to, 0);
  });
});

describe('paused IDLE', () => {
  it('can pause from PLANNING, EXECUTING, AWAITING_TOOL and REFLECTING', () => {
    expect(PAUSABLE).toEqual(['PLANNING', 'EXECUTING', 'AWAITING_TOOL', 'REFLECTING']);
  });

  it.each(PAUSABLE)('paused from %s resumes back to it and forgets the pause', (from) => {
    const paused = transition(at(from), 'IDLE', 10);
    expect(paused).toEqual({ state: 'IDLE', pausedFrom: from, started: true });
    expect(transition(paused, from, 11)).toEqual({ state: from, pausedFrom: null, started: true });
  });

  it.each(PAUSABLE)('paused from %s may stop (IDLE -> DONE)', (from) => {
    expect(transition(pausedFrom(from), 'DONE', 11)).toEqual({ state: 'DONE', pausedFrom: null, started: true });
  });

  const wrongResumes = PAUSABLE.flatMap((from) =>
    LOOP_STATES.filter((to) => to !== from && to !== 'DONE').map((to) => [from, to] as [LoopState, LoopState]),
  );
  it.each(wrongResumes)('paused from %s cannot go to %s', (from, to) => {
    expect(canTransition(pausedFrom(from), to)).toBe(false);
    expectIllegal(pausedFrom(from), to, 12);
  });

  it('a paused run cannot be run() again: IDLE paused from EXECUTING -> PLANNING is rejected', () => {
    expectIllegal(pausedFrom('EXECUTING'), 'PLANNING', 20);
  });
});

describe('named illegal transitions', () => {
  it.each([
    ['DONE', 'PLANNING', 30],
    ['DONE', 'IDLE', 31],
    ['DONE', 'DONE', 32],
    ['EXECUTING', 'PLANNING', 33],
    ['AWAITING_TOOL', 'EXECUTING', 34],
    ['AWAITING_TOOL', 'DONE', 35],
    ['PLANNING', 'REFLECTING', 36],
    ['EXECUTING', 'DONE', 37],
  ] as Array<[LoopState, LoopState, number]>)('%s -> %s at seq %i names from, to and seq', (from, to, seq) => {
    expectIllegal(at(from), to, seq);
  });
});

describe('a whole run through the machine', () => {
  it('walks plan, tool step, pause, resume, reflect, done', () => {
    const path: LoopState[] = ['PLANNING', 'EXECUTING', 'AWAITING_TOOL', 'IDLE', 'AWAITING_TOOL', 'REFLECTING', 'EXECUTING', 'REFLECTING', 'DONE'];
    let machine = INITIAL_MACHINE;
    const seen: LoopState[] = [];
    path.forEach((to, seq) => {
      machine = transition(machine, to, seq);
      seen.push(machine.state);
    });
    expect(seen).toEqual(path);
    expect(machine).toEqual({ state: 'DONE', pausedFrom: null, started: true });
    expectIllegal(machine, 'PLANNING', path.length);
  });
});
