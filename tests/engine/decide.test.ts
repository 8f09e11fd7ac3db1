// The decision table: a folded state in, the next step out, without a workspace, an agent
// or a clock. Each row is one question the runner asks; docs/design.md, "Deciding the next
// step", is this table in prose.
import { describe, expect, it } from 'vitest';
import { afterBudget, afterDetection, afterPlan, hookPause, nextStep, startOfStep, type DecisionPolicy, type Intents, type Step } from '../../src/engine/decide.js';
import { INITIAL_STATE, type SessionState } from '../../src/engine/fold.js';
import { DONE_REASONS, type LoopState } from '../../src/engine/machine.js';
import { FINISH_LIMITS, PAUSE_KINDS, parsePauseReason, pauseReasonLabel, pauseReasonText, stopReasonAt, type PauseReason } from '../../src/engine/reasons.js';
import type { LoopEvent, VerifyCommandResult } from '../../src/engine/events.js';
import { BUDGET_COMMAND_NAMES, BUDGET_DIMENSIONS } from '../../src/engine/types.js';
import { describeEvent } from '../../src/ui/describe.js';

const POLICY: DecisionPolicy = {
  pattern: 'react',
  checkpointEvery: 3,
  maxReplans: 2,
  maxAttempts: 3,
  laps: { enabled: false, max_laps: 3, max_consecutive_failures: 2 },
  budget: { on_exhausted: 'pause', increments: { turns: 10, tool_calls: 20, wall_clock_seconds: 600, tokens: 50000, cost_usd: 1 } },
};
const NOW = 1_767_225_600_000;
const NONE: Intents = { pause: null, stop: null };
const call = { id: 'c1', name: 'shell', args: { command: 'ls' } };
const failing: VerifyCommandResult = { command: 'npm test', exit_code: 1, passed: false, output: '1 failing' };

function at(machine: LoopState, over: Partial<SessionState> = {}): SessionState {
  return { ...INITIAL_STATE, machine: { state: machine, pausedFrom: null, started: true }, ...over };
}
const verified = (passed: boolean, step: number, over: Partial<NonNullable<SessionState['lastVerify']>> = {}) => ({
  lastVerify: { seq: 40, passed, trigger: 'claim' as const, commands: passed ? [] : [failing], step, lap: 0, claim: 'fixed it', ...over },
});
/** The baseline checkpoint as the run records it before its first plan. */
const BASELINE = { iteration: 0, baseline: true, index: 0, status: 'BASELINE', counter: 0, threshold: 2, stagnation_detected: false } as SessionState['checkpoints'][number];
const finish = (reason: string, summary: string, extra: object = {}): Step => ({ kind: 'finish', finish: { reason, summary, ...extra } as never });

type Row = [name: string, state: SessionState, policy: Partial<DecisionPolicy>, intents: Intents, step: Step];

const ROWS: Row[] = [
  // ---- every state, before the pattern's questions
  ['a run that is over stays over', at('DONE', { done: { reason: 'goal_met', summary: 'x' } }), {}, NONE, { kind: 'finished', reason: 'goal_met' }],
  ['a fresh IDLE plans', { ...INITIAL_STATE }, {}, NONE, { kind: 'plan', plan: 'initial' }],
  ['PLANNING at the start: the baseline checkpoint first', at('PLANNING'), {}, NONE, { kind: 'baseline' }],
  ['PLANNING, first plan, once the baseline is recorded', at('PLANNING', { checkpoints: [BASELINE] }), {}, NONE, { kind: 'plan', plan: 'initial' }],
  ['PLANNING, a plan drafted without a baseline (an older log): no baseline then', at('PLANNING', { planDraft: ['x'] }), {}, NONE, { kind: 'plan', plan: 'initial' }],
  ['PLANNING again in Plan-and-Execute: a replan', at('PLANNING', { plans: 1 }), { pattern: 'plan-and-execute' }, NONE, { kind: 'plan', plan: 'replan' }],
  ['PLANNING again in Reflexion: a new attempt', at('PLANNING', { plans: 1 }), { pattern: 'reflexion' }, NONE, { kind: 'plan', plan: 'attempt' }],
  ['EXECUTING, no open step: start one', at('EXECUTING'), {}, NONE, { kind: 'start_step' }],
  ['an open step without its turn: ask the agent', at('EXECUTING', { stepOpen: true }), {}, NONE, { kind: 'ask_agent' }],
  ['an open step with a queued call: run it', at('EXECUTING', { stepOpen: true, stepHasTurn: true, queued: [call] }), {}, NONE, { kind: 'run_tool', call }],
  ['an open step whose turn called nothing: end it', at('EXECUTING', { stepOpen: true, stepHasTurn: true }), {}, NONE, { kind: 'end_step' }],
  ['AWAITING_TOOL with its answer recorded: on to REFLECTING', at('AWAITING_TOOL'), {}, NONE, { kind: 'end_tool' }],

  // ---- resume points (docs/design.md, "Resume points"): only committed facts decide
  ['a step whose end is recorded, still EXECUTING: on to REFLECTING, no new step', at('EXECUTING', { stepEnded: true, finalClaim: 'done' }), {}, NONE, { kind: 'end_tool' }],
  ['a plan committed, still PLANNING: on to EXECUTING, no second plan', at('PLANNING', { plans: 1, planCommitted: true }), {}, NONE, { kind: 'execute' }],
  ['fresh laps, EXECUTING before lap 1 started: start lap 1', at('EXECUTING'), { laps: { enabled: true, max_laps: 3, max_consecutive_failures: 2 } }, NONE, { kind: 'start_lap', lap: 1 }],
  ['an abort recorded without its end: end aborted, nothing parked again', at('REFLECTING', { abort: { report: 'r', stash: 's', restore: 'x' } }), {}, NONE, finish('aborted', 'aborted before a restart: the workspace was parked and the report written as abort.recorded says')],
  ['DONE without session.complete after a passing verdict: goal_met again, no abort', at('DONE', { lastTransition: { from: 'REFLECTING', to: 'DONE', seq: 44 }, step: 5, ...verified(true, 5) }), {}, NONE, finish('goal_met', 'fixed it', { abort: false })],
  ['DONE without session.complete from a pause: stopped there', at('DONE', { lastTransition: { from: 'IDLE', to: 'DONE', seq: 20 }, pending: { kind: 'pause', reason: 'operator', cause: { kind: 'operator' }, prompt: '?', from: 'EXECUTING', seq: 19 } }), {}, NONE, finish('stopped', 'stopped at a pause (operator), before a restart')],
  ['DONE without session.complete and no derivable reason: stopped, saying so', at('DONE', { lastTransition: { from: 'REFLECTING', to: 'DONE', seq: 44 } }), {}, NONE, finish('stopped', 'the run had ended before a restart; its reason was not recorded')],
  ['/stop --abort after a step (REFLECTING): abort before the next lap or step', at('REFLECTING', { lap: 1, lapEnd: { lap: 1, outcome: 'error', note: 'killed' } }), { laps: { enabled: true, max_laps: 3, max_consecutive_failures: 2 } }, { pause: null, stop: 'abort' }, finish('aborted', 'the operator aborted the run (/stop --abort)', { abort: true })],

  // ---- resume: a pending yield is asked again whatever else holds
  ...(['EXECUTING', 'AWAITING_TOOL', 'REFLECTING'] as const).map((machine): Row => [
    `a tool call pending in ${machine} is asked again`,
    at(machine, { pending: { kind: 'tool', call, seq: 9 }, queued: [call], finalClaim: 'done' }),
    {}, { pause: null, stop: 'abort' },
    { kind: 'ask_operator', pending: { kind: 'tool', call, seq: 9 } },
  ]),
  ...PAUSE_KINDS.map((kind): Row => {
    const cause = kind === 'budget_exceeded' ? { kind, dimension: 'turns' as const } : ({ kind } as PauseReason);
    const pending = { kind: 'pause' as const, reason: pauseReasonText(cause), cause, prompt: '?', from: 'EXECUTING' as const, seq: 12 };
    return [`a ${kind} pause is answered before anything else`, at('IDLE', { pending }), {}, NONE, { kind: 'ask_operator', pending }];
  }),

  // ---- the start of a step: abort, stop, pause, then the budget in dimension order
  ['abort wins over stop, pause and budget', at('EXECUTING', { usage: { ...INITIAL_STATE.usage, turns: 9 }, limits: { ...INITIAL_STATE.limits, turns: 5 } }), {}, { pause: 'ctrl-c', stop: 'abort' },
    finish('aborted', 'the operator aborted the run (/stop --abort)', { abort: true })],
  ['stop wins over pause and budget', at('EXECUTING', { usage: { ...INITIAL_STATE.usage, turns: 9 }, limits: { ...INITIAL_STATE.limits, turns: 5 } }), {}, { pause: 'ctrl-c', stop: 'stop' },
    finish('stopped', 'stopped by the operator (/stop)')],
  ['a requested pause wins over the budget', at('EXECUTING', { usage: { ...INITIAL_STATE.usage, turns: 9 }, limits: { ...INITIAL_STATE.limits, turns: 5 } }), {}, { pause: 'the operator asked to pause', stop: null },
    { kind: 'pause', reason: { kind: 'operator' }, prompt: 'the operator asked to pause. Continue, or stop?' }],
  ['a pause or /stop waits for an open step to finish', at('EXECUTING', { stepOpen: true }), {}, { pause: 'x', stop: 'stop' }, { kind: 'ask_agent' }],
  ['/stop --abort does not wait for an open step', at('EXECUTING', { stepOpen: true }), {}, { pause: 'x', stop: 'abort' },
    { kind: 'finish', finish: { reason: 'aborted', summary: 'the operator aborted the run (/stop --abort)', abort: true } }],
  ['/stop --abort after a step cut short (REFLECTING)', at('REFLECTING', { turn: 3, finalClaim: 'done' }), {}, { pause: null, stop: 'abort' },
    { kind: 'finish', finish: { reason: 'aborted', summary: 'the operator aborted the run (/stop --abort)', abort: true } }],
  ['turns before tool calls', at('EXECUTING', { usage: { ...INITIAL_STATE.usage, turns: 5, tool_calls: 7 }, limits: { ...INITIAL_STATE.limits, turns: 5, tool_calls: 7 } }), {}, NONE,
    { kind: 'budget_exceeded', dimension: 'turns', used: 5, limit: 5 }],
  ['tool calls before the wall clock', at('EXECUTING', { usage: { ...INITIAL_STATE.usage, tool_calls: 7 }, limits: { ...INITIAL_STATE.limits, tool_calls: 7, wall_clock_seconds: 1 }, activeMs: 5000 }), {}, NONE,
    { kind: 'budget_exceeded', dimension: 'tool_calls', used: 7, limit: 7 }],
  ['the wall clock counts active time up to now', at('EXECUTING', { limits: { ...INITIAL_STATE.limits, wall_clock_seconds: 60 }, activeMs: 50_000, activeSince: NOW - 10_000 }), {}, NONE,
    { kind: 'budget_exceeded', dimension: 'wall_clock_seconds', used: 60, limit: 60 }],
  ['below every limit: the step starts', at('EXECUTING', { usage: { ...INITIAL_STATE.usage, turns: 4 }, limits: { ...INITIAL_STATE.limits, turns: 5 } }), {}, NONE, { kind: 'start_step' }],

  // ---- REFLECTING: checkpoint, queued calls, then the pattern
  // ---- the end of a turn, the same in every pattern and in laps: verify, a pass wins, then budget, then stagnation
  ...(['react', 'plan-and-execute', 'reflexion'] as const).map((pattern): Row => [
    `${pattern}: a claim is verified before the checkpoint due at its turn`, at('REFLECTING', { turn: 3, step: 3, plans: 1, plan: ['a', 'b'], planDone: 1, finalClaim: 'done' }), { pattern }, NONE, { kind: 'verify', trigger: 'claim' }]),
  ...(['react', 'plan-and-execute', 'reflexion'] as const).map((pattern): Row => [
    `${pattern}: a passing claim wins over the checkpoint (and its stagnation) due at its turn`, at('REFLECTING', { turn: 3, step: 3, plans: 1, plan: ['a', 'b'], planDone: 1, ...verified(true, 3) }), { pattern }, NONE, finish('goal_met', 'fixed it')]),
  ['laps: a claim is verified before the checkpoint due at its turn', at('REFLECTING', { turn: 3, step: 3, lap: 1, finalClaim: 'done' }), {}, NONE, { kind: 'verify', trigger: 'claim' }],
  ['a refuted claim, a checkpoint due and the budget spent: the budget before the checkpoint', at('REFLECTING', { turn: 3, step: 3, usage: { ...INITIAL_STATE.usage, turns: 3 }, limits: { ...INITIAL_STATE.limits, turns: 3 }, ...verified(false, 3) }), {}, NONE,
    { kind: 'budget_exceeded', dimension: 'turns', used: 3, limit: 3 }],
  ['a refuted claim with a checkpoint due: the checkpoint', at('REFLECTING', { turn: 3, step: 3, ...verified(false, 3) }), {}, NONE, { kind: 'checkpoint', iteration: 3 }],
  ['no claim, a checkpoint due and the budget spent: the budget first', at('REFLECTING', { turn: 3, step: 3, usage: { ...INITIAL_STATE.usage, tool_calls: 5 }, limits: { ...INITIAL_STATE.limits, tool_calls: 5 } }), {}, NONE,
    { kind: 'budget_exceeded', dimension: 'tool_calls', used: 5, limit: 5 }],
  ['no checkpoint due: a spent budget waits for the start of the next step', at('REFLECTING', { turn: 2, step: 2, usage: { ...INITIAL_STATE.usage, tool_calls: 5 }, limits: { ...INITIAL_STATE.limits, tool_calls: 5 } }), {}, NONE, { kind: 'execute' }],
  ['an abort asked for skips the verifier', at('REFLECTING', { turn: 1, step: 1, finalClaim: 'done' }), {}, { pause: null, stop: 'abort' }, finish('aborted', 'the operator aborted the run (/stop --abort)', { abort: true })],
  ['a claim with calls of its turn still queued: the calls first', at('REFLECTING', { turn: 1, step: 1, finalClaim: 'done', queued: [call] }), {}, NONE, { kind: 'execute' }],
  ['laps: a lap whose agent failed is verified', at('REFLECTING', { turn: 1, step: 2, lap: 1, lapFailures: 1, lapEnd: { lap: 1, outcome: 'error', note: 'agent exited 3' } }), {}, NONE, { kind: 'verify', trigger: 'check' }],
  ['laps: a lap whose agent failed but whose work passes wins the run (no next lap)', at('REFLECTING', { turn: 1, step: 2, lap: 1, lapFailures: 1, lapEnd: { lap: 1, outcome: 'error', note: 'agent exited 3' }, ...verified(true, 2, { lap: 1, trigger: 'check', claim: null }) }), {}, NONE,
    finish('goal_met', 'the verifier passed after lap 1 (the lap ended in an error: agent exited 3)')],
  ['laps: a lap whose agent failed at the failure cap is verified before the abort', at('REFLECTING', { turn: 1, step: 3, lap: 3, lapFailures: 2, lapEnd: { lap: 3, outcome: 'error', note: 'x' } }), {}, NONE, { kind: 'verify', trigger: 'check' }],
  ['Plan-and-Execute: a finished plan is checked before the checkpoint due at its turn', at('REFLECTING', { turn: 3, step: 3, plans: 1, plan: ['a', 'b'], planDone: 2 }), { pattern: 'plan-and-execute' }, NONE, { kind: 'verify', trigger: 'check' }],
  ['a checkpoint already recorded for this turn is not taken again', at('REFLECTING', { turn: 3, step: 3, ...verified(false, 3), checkpoints: [{ iteration: 3 } as never] }), {}, NONE, { kind: 'execute' }],
  ['calls of the same turn still queued: no checkpoint yet, execute them', at('REFLECTING', { turn: 3, queued: [call] }), {}, NONE, { kind: 'execute' }],
  ['ReAct: a claim goes to the verifier', at('REFLECTING', { turn: 1, step: 2, finalClaim: 'fixed it' }), {}, NONE, { kind: 'verify', trigger: 'claim' }],
  ['ReAct: a verified claim ends the run', at('REFLECTING', { turn: 1, step: 2, ...verified(true, 2) }), {}, NONE, finish('goal_met', 'fixed it')],
  ['ReAct: a refuted claim goes on', at('REFLECTING', { turn: 1, step: 2, ...verified(false, 2) }), {}, NONE, { kind: 'execute' }],
  ['ReAct: a verdict of an earlier step does not count', at('REFLECTING', { turn: 1, step: 3, ...verified(true, 2) }), {}, NONE, { kind: 'execute' }],
  ['Plan-and-Execute: a failed step replans', at('REFLECTING', { turn: 1, step: 1, plans: 1, plan: ['a', 'b'], planDone: 1, lastStepFailed: true }), { pattern: 'plan-and-execute' }, NONE, { kind: 'replan' }],
  ['Plan-and-Execute: a failed step at the replan cap ends it', at('REFLECTING', { turn: 1, step: 4, plans: 3, plan: ['a'], planDone: 1, lastStepFailed: true }), { pattern: 'plan-and-execute' }, NONE,
    finish('exhausted', 'step 4 failed; the replan cap (2) is reached', { limit: 'replan_cap' })],
  ['Plan-and-Execute: steps left run next', at('REFLECTING', { turn: 1, step: 1, plans: 1, plan: ['a', 'b'], planDone: 1 }), { pattern: 'plan-and-execute' }, NONE, { kind: 'execute' }],
  ['Plan-and-Execute: a finished plan is checked', at('REFLECTING', { turn: 1, step: 2, plans: 1, plan: ['a', 'b'], planDone: 2 }), { pattern: 'plan-and-execute' }, NONE, { kind: 'verify', trigger: 'check' }],
  ['Plan-and-Execute: a passing check ends the run', at('REFLECTING', { turn: 1, step: 2, plans: 1, plan: ['a', 'b'], planDone: 2, ...verified(true, 2, { trigger: 'check' }) }), { pattern: 'plan-and-execute' }, NONE,
    finish('goal_met', 'all 2 plan steps done and the verifier passed')],
  ['Plan-and-Execute: a failing check replans', at('REFLECTING', { turn: 1, step: 2, plans: 1, plan: ['a', 'b'], planDone: 2, ...verified(false, 2, { trigger: 'check' }) }), { pattern: 'plan-and-execute' }, NONE, { kind: 'replan' }],
  ['Plan-and-Execute: a failing check at the cap ends it', at('REFLECTING', { turn: 1, step: 2, plans: 3, plan: ['a'], planDone: 1, ...verified(false, 2, { trigger: 'check' }) }), { pattern: 'plan-and-execute' }, NONE,
    finish('exhausted', 'the plan is done but the verifier failed; the replan cap (2) is reached', { limit: 'replan_cap' })],
  ['Reflexion: no claim yet, go on', at('REFLECTING', { turn: 1, step: 1, plans: 1 }), { pattern: 'reflexion' }, NONE, { kind: 'execute' }],
  ['Reflexion: a claim goes to the verifier', at('REFLECTING', { turn: 1, step: 1, plans: 1, finalClaim: 'done' }), { pattern: 'reflexion' }, NONE, { kind: 'verify', trigger: 'claim' }],
  ['Reflexion: a pass ends the run', at('REFLECTING', { turn: 1, step: 1, plans: 1, ...verified(true, 1) }), { pattern: 'reflexion' }, NONE, finish('goal_met', 'fixed it')],
  ['Reflexion: a failure is reflected on', at('REFLECTING', { turn: 1, step: 1, plans: 1, ...verified(false, 1) }), { pattern: 'reflexion' }, NONE,
    { kind: 'reflect', attempt: 1, failure: 'npm test exited 1: 1 failing' }],
  ['Reflexion: after the reflection, the next attempt', at('REFLECTING', { turn: 1, step: 1, plans: 1, reflections: [{ attempt: 1, text: 'l' }], ...verified(false, 1) }), { pattern: 'reflexion' }, NONE, { kind: 'replan' }],
  ['Reflexion: out of attempts', at('REFLECTING', { turn: 1, step: 3, plans: 3, ...verified(false, 3) }), { pattern: 'reflexion' }, NONE,
    finish('exhausted', 'the verifier still fails after 3 of 3 attempts', { limit: 'max_attempts' })],
  ['laps: a claim goes to the verifier', at('REFLECTING', { turn: 1, step: 1, lap: 1, finalClaim: 'done' }), {}, NONE, { kind: 'verify', trigger: 'claim' }],
  ['laps: a verified claim ends the lap done', at('REFLECTING', { turn: 1, step: 1, lap: 1, ...verified(true, 1, { lap: 1 }) }), {}, NONE, { kind: 'end_lap', lap: 1, outcome: 'done' }],
  ['laps: a refuted claim ends the lap not done', at('REFLECTING', { turn: 1, step: 1, lap: 1, ...verified(false, 1, { lap: 1 }) }), {}, NONE, { kind: 'end_lap', lap: 1, outcome: 'not_done' }],
  ['laps: a lap done wins the run', at('REFLECTING', { turn: 1, step: 1, lap: 1, lapEnd: { lap: 1, outcome: 'done' }, ...verified(true, 1, { lap: 1 }) }), {}, NONE, finish('goal_met', 'fixed it')],
  ['laps: a lap not done starts the next', at('REFLECTING', { turn: 1, step: 1, lap: 1, lapEnd: { lap: 1, outcome: 'not_done' }, ...verified(false, 1, { lap: 1 }) }), {}, NONE, { kind: 'start_lap', lap: 2 }],
  ['laps: the last lap not done ends the run', at('REFLECTING', { turn: 1, step: 3, lap: 3, lapEnd: { lap: 3, outcome: 'not_done' }, ...verified(false, 3, { lap: 3 }) }), {}, NONE,
    finish('exhausted', 'the goal is not met after 3 of 3 laps', { limit: 'max_laps' })],
  ['laps: errors in a row end the run failed before the lap cap (nothing parked)', at('REFLECTING', { turn: 1, step: 3, lap: 3, lapFailures: 2, lapEnd: { lap: 3, outcome: 'error', note: 'agent exited 1' }, ...verified(false, 3, { lap: 3, trigger: 'check' }) }), {}, NONE,
    finish('failed', '2 laps in a row failed (last: agent exited 1)', { limit: 'max_consecutive_failures' })],
  ['laps: the end of an earlier lap does not count', at('REFLECTING', { turn: 1, step: 3, lap: 2, lapEnd: { lap: 1, outcome: 'not_done' } }), {}, NONE, { kind: 'execute' }],
  ['laps: a lap ended with a checkpoint due decides the lap first', at('REFLECTING', { turn: 3, step: 3, lap: 1, lapEnd: { lap: 1, outcome: 'error', note: 'x' }, lapFailures: 1, ...verified(false, 3, { lap: 1, trigger: 'check' }) }), {}, NONE, { kind: 'start_lap', lap: 2 }],
];

describe('nextStep', () => {
  it.each(ROWS)('%s', (_name, state, policy, intents, step) => {
    expect(nextStep(state, { ...POLICY, ...policy }, NOW, intents)).toEqual(step);
  });
});

describe('after a budget limit (verify vs budget)', () => {
  const spent = { dimension: 'tool_calls' as const, used: 7, limit: 7 };
  const pauses: Step = { kind: 'pause', reason: { kind: 'budget_exceeded', dimension: 'tool_calls' }, prompt: 'The tool_calls budget is spent (7 of 7). Raise it (/budget tool_calls +20) and continue, or stop.' };
  it.each<[string, Partial<SessionState>, Partial<DecisionPolicy>, Step]>([
    ['a lap verifies first', { lap: 1, step: 4 }, {}, { kind: 'verify', trigger: 'check' }],
    ['ReAct verifies first too', { step: 4 }, {}, { kind: 'verify', trigger: 'check' }],
    ['Plan-and-Execute verifies first too', { step: 4, plan: ['a', 'b'], planDone: 1 }, { pattern: 'plan-and-execute' }, { kind: 'verify', trigger: 'check' }],
    ['a verdict of an earlier step is not reused', { step: 4, ...verified(false, 3) }, {}, { kind: 'verify', trigger: 'check' }],
    ['a verdict of an earlier lap is not reused', { step: 4, lap: 2, ...verified(false, 4, { lap: 1 }) }, {}, { kind: 'verify', trigger: 'check' }],
    ['a lap that meets the goal wins over the budget', { lap: 2, step: 4, ...verified(true, 4, { lap: 2, trigger: 'check' }) }, {}, finish('goal_met', 'the verifier passed in lap 2')],
    ['work that meets the goal wins over on_exhausted: abort', { step: 4, ...verified(true, 4, { trigger: 'check' }) }, { budget: { ...POLICY.budget, on_exhausted: 'abort' } },
      finish('goal_met', 'the verifier passed when the tool_calls budget ran out (7 of 7)')],
    ['a lap that does not pauses for the budget', { lap: 2, step: 4, ...verified(false, 4, { lap: 2, trigger: 'check' }) }, {}, pauses],
    ['a claim refuted in this step is reused: the pause, no second verify', { step: 4, ...verified(false, 4) }, {}, pauses],
    ['on_exhausted: abort when the verifier fails', { step: 4, ...verified(false, 4) }, { budget: { ...POLICY.budget, on_exhausted: 'abort' } }, finish('aborted', 'the tool_calls budget is spent (7 of 7)', { abort: true })],
  ])('%s', (_name, over, policy, step) => {
    expect(afterBudget(at('EXECUTING', over), { ...POLICY, ...policy }, spent)).toEqual(step);
  });
});

describe('a budget pause speaks the console units and the /budget names', () => {
  const paused = { step: 4, ...verified(false, 4) };
  it.each<[string, { dimension: 'wall_clock_seconds' | 'cost_usd' | 'tokens' | 'turns'; used: number; limit: number }, Partial<DecisionPolicy['budget']['increments']>, string]>([
    ['wall clock: a duration, tenths below a minute', { dimension: 'wall_clock_seconds', used: 3.63, limit: 3 }, { wall_clock_seconds: 90 },
      'The wall_clock budget is spent (3.6s of 3s). Raise it (/budget wall_clock +1m30s) and continue, or stop.'],
    ['wall clock: hours, minutes and seconds, none dropped', { dimension: 'wall_clock_seconds', used: 63942451.2, limit: 63942450 }, { wall_clock_seconds: 3605 },
      'The wall_clock budget is spent (17761h47m31s of 17761h47m30s). Raise it (/budget wall_clock +1h5s) and continue, or stop.'],
    ['cost: dollars without float noise, with the digits the increment needs', { dimension: 'cost_usd', used: 0.01, limit: 0.006999999999999999 }, { cost_usd: 0.0015 },
      'The cost budget is spent ($0.0100 of $0.0070). Raise it (/budget cost +$0.0015) and continue, or stop.'],
    ['cost: the next limit too', { dimension: 'cost_usd', used: 0.0101, limit: 0.008499999999999999 }, { cost_usd: 0.0015 },
      'The cost budget is spent ($0.0101 of $0.0085). Raise it (/budget cost +$0.0015) and continue, or stop.'],
    ['cost: cents when cents say it', { dimension: 'cost_usd', used: 2.5, limit: 2 }, { cost_usd: 1 },
      'The cost budget is spent ($2.50 of $2.00). Raise it (/budget cost +$1.00) and continue, or stop.'],
    ['tokens: exact counts', { dimension: 'tokens', used: 300017, limit: 300000 }, { tokens: 50000 },
      'The tokens budget is spent (300017 of 300k). Raise it (/budget tokens +50k) and continue, or stop.'],
  ])('%s', (_name, spent, increments, prompt) => {
    const policy = { ...POLICY, budget: { ...POLICY.budget, increments: { ...POLICY.budget.increments, ...increments } } };
    expect(afterBudget(at('EXECUTING', paused), policy, spent)).toEqual({ kind: 'pause', reason: { kind: 'budget_exceeded', dimension: spent.dimension }, prompt });
  });

  it('the summaries name the dimension as /budget does, in its unit', () => {
    const spent = { dimension: 'cost_usd' as const, used: 0.0085, limit: 0.006999999999999999 };
    expect(afterBudget(at('EXECUTING', paused), { ...POLICY, budget: { ...POLICY.budget, on_exhausted: 'abort' } }, spent)).toEqual(finish('aborted', 'the cost budget is spent ($0.0085 of $0.0070)', { abort: true }));
  });
});

describe('a stop names what asked for it', () => {
  it('the operator\'s /stop, or the cause given with it', () => {
    const state = at('REFLECTING', { turn: 1, step: 1 });
    expect(startOfStep(state, POLICY, NOW, { pause: null, stop: 'stop' })).toEqual(finish('stopped', 'stopped by the operator (/stop)'));
    expect(startOfStep(state, POLICY, NOW, { pause: null, stop: 'stop', stopWhy: 'stdout was closed (its reader went away)' })).toEqual(finish('stopped', 'stdout was closed (its reader went away)'));
  });
});

describe('after a detection and after a plan', () => {
  it.each<[string, 'stagnation' | 'repetition' | 'constraint', 'alert' | 'pause' | 'stop', Step | null]>([
    ['a stagnation alert goes on', 'stagnation', 'alert', null],
    ['a stagnation pause asks', 'stagnation', 'pause', { kind: 'pause', reason: { kind: 'stagnation' }, prompt: 'S. Continue, redirect the goal (/goal redirect <text>), or stop?' }],
    ['a stagnation stop aborts (stash and report)', 'stagnation', 'stop', finish('aborted', 'S', { abort: true })],
    ['a repetition alert goes on', 'repetition', 'alert', null],
    ['a repetition pause asks', 'repetition', 'pause', { kind: 'pause', reason: { kind: 'repetition' }, prompt: 'S. Continue (the call runs), redirect the goal, or stop?' }],
    ['a repetition stop ends the run stopped', 'repetition', 'stop', finish('stopped', 'S')],
    ['a constraint violation alert goes on', 'constraint', 'alert', null],
    ['a constraint violation pause asks', 'constraint', 'pause', { kind: 'pause', reason: { kind: 'constraint' }, prompt: 'S. Continue, redirect the goal (/goal redirect <text>), or stop?' }],
    ['a constraint violation stop ends the run stopped (the workspace is left as it is)', 'constraint', 'stop', finish('stopped', 'S')],
  ])('%s', (_name, kind, action, step) => {
    expect(afterDetection(kind, action, 'S')).toEqual(step);
  });

  it('an empty plan ends the run no_plan; a plan with steps goes on', () => {
    expect(afterPlan([])).toEqual(finish('no_plan', 'the plan has no steps'));
    expect(afterPlan(['a'])).toBeNull();
  });
});

describe('a hook decision', () => {
  it.each<[string, Parameters<typeof hookPause>[0], Step | null]>([
    ['a hook pause pauses with the hook\'s prompt', { type: 'pause', prompt: 'look first' }, { kind: 'pause', reason: { kind: 'hook' }, prompt: 'look first' }],
    ['no decision goes on', null, null],
    ['allow goes on', { type: 'allow' }, null],
    ['skip is the step\'s own (it skips the step)', { type: 'skip' }, null],
  ])('%s', (_name, decision, step) => {
    expect(hookPause(decision)).toEqual(step);
  });
});

describe('pause reasons', () => {
  it.each<[string, PauseReason, 'exhausted' | 'stopped']>([
    ['budget_exceeded:cost_usd', { kind: 'budget_exceeded', dimension: 'cost_usd' }, 'exhausted'],
    ['stagnation', { kind: 'stagnation' }, 'stopped'],
    ['repetition', { kind: 'repetition' }, 'stopped'],
    ['operator', { kind: 'operator' }, 'stopped'],
    ['hook', { kind: 'hook' }, 'stopped'],
    ['constraint', { kind: 'constraint' }, 'stopped'],
  ])('"%s" reads as a value, writes back the same, and a stop at it ends %s', (text, reason, done) => {
    expect(parsePauseReason(text)).toEqual(reason);
    expect(pauseReasonText(reason)).toBe(text);
    expect(stopReasonAt(reason)).toBe(done);
  });

  it.each(BUDGET_DIMENSIONS.map((d) => [d, BUDGET_COMMAND_NAMES[d]]))('a pause at the %s budget reads to the operator as budget_exceeded:%s, as /budget names it', (dimension, name) => {
    const text = pauseReasonText({ kind: 'budget_exceeded', dimension });
    expect(pauseReasonLabel(text)).toBe(`budget_exceeded:${name}`);
    expect(describeEvent({ seq: 3, at: 0, session: 's', type: 'session.pause', data: { reason: text, prompt: 'p', from: 'REFLECTING' } } as LoopEvent)).toBe(`paused: budget_exceeded:${name}`);
  });

  it('any other pause reads as written', () => {
    for (const text of ['stagnation', 'repetition', 'operator', 'hook', 'constraint', 'budget_exceeded:bananas', 'a hook\'s own words']) expect(pauseReasonLabel(text)).toBe(text);
  });

  it('text no version wrote reads as a hook pause, never as a budget', () => {
    expect(parsePauseReason('budget_exceeded:bananas')).toEqual({ kind: 'hook' });
    expect(parsePauseReason('')).toEqual({ kind: 'hook' });
  });
});

describe('coverage of the table', () => {
  const steps: Array<Step | null> = [
    ...ROWS.map(([, state, policy, intents]) => nextStep(state, { ...POLICY, ...policy }, NOW, intents)),
    afterPlan([]),
    hookPause({ type: 'pause', prompt: 'p' }),
    ...(['stagnation', 'repetition', 'constraint'] as const).flatMap((k) => (['pause', 'stop'] as const).map((a) => afterDetection(k, a, 'S'))),
    afterBudget(at('EXECUTING', { step: 1, ...verified(false, 1) }), POLICY, { dimension: 'turns', used: 1, limit: 1 }),
  ];
  const finishes = steps.flatMap((s) => (s?.kind === 'finish' ? [s.finish] : []));
  const pauses = steps.flatMap((s) => (s?.kind === 'pause' ? [s.reason] : []));
  const asked = ROWS.flatMap(([, state]) => (state.pending?.kind === 'pause' ? [state.pending.cause] : []));

  it('every way a run can end is a row', () => {
    expect([...new Set(finishes.map((f) => f.reason))].sort()).toEqual([...DONE_REASONS].sort());
  });
  it('every limit a run can end at is a row', () => {
    expect([...new Set(finishes.flatMap((f) => (f.limit ? [f.limit] : [])))].sort()).toEqual([...FINISH_LIMITS].sort());
  });
  it('every pause reason is decided in a row, and answered after a restart in a row', () => {
    expect([...new Set(pauses.map((p) => p.kind))].sort()).toEqual([...PAUSE_KINDS].sort());
    expect([...new Set(asked.map((p) => p.kind))].sort()).toEqual([...PAUSE_KINDS].sort());
  });
  it('the table lists every pause kind and every limit once', () => {
    expect(PAUSE_KINDS).toEqual(['budget_exceeded', 'stagnation', 'repetition', 'operator', 'hook', 'constraint']);
    expect(FINISH_LIMITS).toEqual(['max_laps', 'replan_cap', 'max_attempts', 'max_consecutive_failures']);
  });
});
