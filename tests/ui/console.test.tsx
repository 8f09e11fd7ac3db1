// UI tests of the live console: a real Session over a real temporary workspace, a scripted
// agent, the console store fed by batchInto, and a controller wired like run-console.tsx.
// Keys go in through stdin as a terminal sends them; waits are on conditions.
import { vi, describe, test, expect, afterEach } from 'vitest';

// Ink reads CI once, when `is-in-ci` is first imported, and with CI set it skips live
// frames (PITFALLS.md). vi.hoisted runs before the imports below; tests/support/no-ci.ts
// does the same as a setupFiles entry.
vi.hoisted(() => {
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
});

import React from 'react';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import isInCi from 'is-in-ci';
import { render } from 'ink-testing-library';
import { fold, type LoopEvent } from '../../src/engine/index.js';
import { App } from '../../src/ui/App.js';
import { ConsoleProvider, type ConsoleController } from '../../src/ui/context.js';
import { bindingsFor, KEYMAP, keyName, resolveKey, type ConsoleCommand, type KeyContext } from '../../src/ui/keymap.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless, startConsole, waitUntil, type ConsoleRig, type PolicyOptions } from '../support/console-rig.js';

const rigs: ConsoleRig[] = [];
async function open(options: Parameters<typeof startConsole>[0]): Promise<ConsoleRig> {
  const rig = await startConsole(options);
  rigs.push(rig);
  return rig;
}
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
});

/** The frame with what varies between runs (tool durations, active seconds) replaced. */
function normalize(frame: string): string {
  return frame.replace(/\(\d+ ms\)/g, '(N ms)').replace(/(wall clock\s+\S+ )\d+s\//, '$1Ns/');
}

/** The seq of the event that raised the pending yield the console shows. */
function pendingSeq(rig: ConsoleRig): number {
  const pending = rig.session.snapshot.pending;
  if (!pending) throw new Error('no pending yield');
  return pending.seq;
}

const ECHO = `
turns:
  - thought: Say hello through the shell first.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo hello-from-shell" } }
    usage: { input_tokens: 100, output_tokens: 20 }
  - final: The greeting is friendlier.
`;

const TWO_CALLS = `
turns:
  - thought: Two things at once.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo first" } }
      - { id: t2, name: shell, args: { command: "touch second.txt" } }
  - final: Both considered.
`;

test('Ink is not in CI mode while these tests run', () => {
  expect(process.env.CI).toBeUndefined();
  expect(isInCi).toBe(false);
});

describe('tool approval', () => {
  test('a shell call shows the approval prompt; y runs it and its result shows in the event list', async () => {
    const rig = await open({ transcript: ECHO });
    const prompt = await rig.waitForFrame('Approve tool call');
    expect(prompt).toContain('Approve tool call shell (t1)');
    expect(prompt).toContain('$ echo hello-from-shell');
    expect(prompt).toContain('[y] approve the tool call  [n] deny the tool call (the agent is told)');
    expect(prompt).toContain('AWAITING_TOOL');
    expect(rig.controller.answer).not.toHaveBeenCalled();

    const seq = pendingSeq(rig);
    await rig.press('y');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve' }, seq);

    const after = await rig.waitForFrame(/tool\.result\s+shell ok exit 0 \(\d+ ms\): hello-from-shell/);
    expect(after).toContain('approved by operator');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    await rig.waitForFrame('Run finished: goal_met');
    expect(rig.agent.remaining).toBe(0);

    expect(normalize(rig.frame())).toBe(
      [
        'loopdeck · react · DONE (goal_met) · iteration 2/20 · step 2                             run ui-test',
        'Goal: Make the greeting friendlier',
        'Constraints: do not touch README.md',
        '── Budget',
        ' turns      █░░░░░░░ 2/20         tool calls ░░░░░░░░ 1/20         wall clock ░░░░░░░░ Ns/30m00s',
        ' tokens     ░░░░░░░░ 120/100.0k   cost       ░░░░░░░░ $0.00/$1.00',
        '── Checkpoint none yet (every 10 iterations)',
        '',
        '',
        '',
        '    0 session.start       session started: Make the greeting friendlier (react)',
        '    2 plan.draft          plan drafted: 1 step(s)',
        '    3 plan.commit         plan committed (initial): 1 step(s)',
        '    6 model.call          turn 1: Say hello through the shell first. (100+20 tok)',
        '    7 tool.call           tool call shell {"command":"echo hello-from-shell"}',
        '    8 step.end            step 1 awaiting_tool',
        '   10 tool.decision       approved by operator',
        '   11 tool.result         shell ok exit 0 (N ms): hello-from-shell',
        '   15 model.call          turn 2: claims done: The greeting is friendlier. (0+0 tok)',
        '   16 step.end            step 2 ok',
        '   18 verify.result       verify passed: node -e "process.exit(0)" → 0',
        '   20 session.complete    complete: goal_met: The greeting is friendlier.',
        ' Run finished: goal_met. [/] command bar (/goal ..., /budget ...)  [q] quit (the log is kept; resu…',
      ].join('\n'),
    );
  });

  test('n denies the call: the command never runs and the next turn is told', async () => {
    const rig = await open({
      transcript: `
turns:
  - thought: Mark that the step ran.
    tool_calls:
      - { id: t1, name: shell, args: { command: "touch ran.txt" } }
  - final: Nothing needed touching.
`,
    });
    await rig.waitForFrame('$ touch ran.txt');
    const seq = pendingSeq(rig);
    await rig.press('n');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'deny' }, seq);

    const frame = await rig.waitForFrame('denied by operator');
    expect(frame).toMatch(/tool\.decision\s+denied by operator\s*$/m);
    expect(frame).toMatch(/tool\.result\s+shell denied \(0 ms\): denied by the operator/);
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(existsSync(path.join(rig.workspace.dir, 'ran.txt'))).toBe(false);

    const denial = { role: 'tool', call_id: 't1', name: 'shell', status: 'denied', content: expect.stringContaining('denied by the operator') };
    // What the agent was given on its next turn, and what the session holds.
    expect(rig.seen.map((s) => s.turn)).toEqual([1, 2]);
    expect(rig.seen[0]!.history).toEqual([]);
    expect(rig.seen[1]!.history).toEqual([denial]);
    expect(rig.session.snapshot.history).toEqual([denial]);
    expect(rig.session.snapshot.tools.t1).toMatchObject({ decision: { decision: 'deny', by: 'operator' }, result: { status: 'denied', exit_code: null } });
  });
});

test('each tool call of one turn gets its own prompt, in order', async () => {
  const rig = await open({ transcript: TWO_CALLS });
  await rig.waitForFrame('Approve tool call shell (t1)');
  await rig.press('y');
  await rig.waitFor(() => rig.frame().includes('Approve tool call shell (t2)') || rig.session.snapshot.done !== null, 'the t2 prompt (or the end of the run)');
  // The run must not move on to the agent's next turn while t2 of this turn is undecided.
  expect(rig.session.snapshot.turn).toBe(1);
  expect(rig.frame()).toContain('$ touch second.txt');
  await rig.press('y');
  await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  expect(rig.session.snapshot.toolOrder).toEqual(['t1', 't2']);
  expect(existsSync(path.join(rig.workspace.dir, 'second.txt'))).toBe(true);
  expect(rig.seen[1]!.history.map((m) => (m.role === 'tool' ? m.call_id : m.role))).toEqual(['t1', 't2']);
});

describe('command bar', () => {
  test('/goal add-constraint revises the goal; typing y, n and q in the bar never reaches a hotkey', async () => {
    const rig = await open({ transcript: ECHO });
    await rig.waitForFrame('Approve tool call shell (t1)');

    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open with "/"');
    await rig.type('goal add-constraint keep the API'); // "constraint" has two n's
    expect(rig.bar()).toBe('/goal add-constraint keep the API');
    expect(rig.frame()).toContain('Approve tool call shell (t1)');
    await rig.press(KEY.enter);

    const frame = await rig.waitForFrame('keep the API');
    expect(frame).toContain('Constraints: do not touch README.md · keep the API');
    expect(frame).toContain('Goal: Make the greeting friendlier [rev 1, active]');
    expect(frame).toMatch(/goal\.revised\s+goal revised \(add-constraint\): keep the API/);
    expect(frame).toContain('✓ goal revised (add-constraint): revision 1');
    expect(rig.bar()).toBeNull();
    expect(frame).toContain('Approve tool call shell (t1)');

    // Every letter a hotkey would take, typed into the bar while the prompt waits.
    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open again');
    await rig.type('goal add-criterion say yes or no, never quit');
    expect(rig.bar()).toBe('/goal add-criterion say yes or no, never quit');
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.controller.quit).not.toHaveBeenCalled();
    expect(rig.session.snapshot.pending?.kind).toBe('tool');
    expect(rig.frame()).toContain('Approve tool call shell (t1)');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ goal revised (add-criterion): revision 2');
    expect(rig.controller.command.mock.calls.map(([line]) => line)).toEqual([
      '/goal add-constraint keep the API',
      '/goal add-criterion say yes or no, never quit',
    ]);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.controller.quit).not.toHaveBeenCalled();

    // With the bar closed, y approves again, and the next turn sees the revised goal.
    await rig.press('y');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    const turn2 = rig.seen[1]!;
    expect(turn2.goal.constraints).toEqual(['do not touch README.md', 'keep the API']);
    expect(turn2.goal.success_criteria).toEqual(['the verify command exits 0', 'say yes or no, never quit']);
    expect(turn2.history.filter((m) => m.role === 'harness')).toEqual([
      { role: 'harness', content: 'The operator revised the goal (add-constraint: keep the API).' },
      { role: 'harness', content: 'The operator revised the goal (add-criterion: say yes or no, never quit).' },
    ]);
  });

  test('Enter pressed again while the command is still running does not run it twice', async () => {
    const rig = await open({ transcript: ECHO });
    await rig.waitForFrame('Approve tool call shell (t1)');
    // A model takes its time to reconcile a revision; nothing on screen changes meanwhile.
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const reconcile = rig.agent.reconcile.bind(rig.agent);
    rig.agent.reconcile = async () => {
      await slow;
      return reconcile();
    };
    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open');
    await rig.type('goal add-constraint keep the API');
    await rig.press(KEY.enter);
    await rig.press(KEY.enter); // the operator sees nothing happen and presses Enter again
    release();
    await rig.waitForFrame('✓ goal revised');
    await Promise.all(rig.controller.command.mock.results.map((r) => r.value));
    expect(rig.controller.command).toHaveBeenCalledTimes(1);
    expect(rig.session.snapshot.revisions).toHaveLength(1);
    expect(rig.session.snapshot.goal?.constraints).toEqual(['do not touch README.md', 'keep the API']);
  });

  test('a bad command shows an error naming it and the bar keeps the typed text; Esc closes the bar', async () => {
    const rig = await open({ transcript: ECHO });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open');
    await rig.type('goal redirekt x');
    await rig.press(KEY.enter);

    const frame = await rig.waitForFrame('redirekt');
    // The notice is one line, cut to the terminal's width.
    expect(frame).toContain('✗ unknown /goal subcommand "redirekt"; valid: status, add-constraint, redirect, modify');
    expect(rig.bar()).toBe('/goal redirekt x');
    expect(rig.session.snapshot.revisions).toEqual([]);
    expect(rig.session.snapshot.goal?.objective).toBe('Make the greeting friendlier');

    // The kept text can be corrected in place.
    for (let i = 0; i < ' redirekt x'.length; i++) await rig.press(KEY.backspace);
    await rig.waitFor(() => rig.bar() === '/goal', 'the bar to read "/goal"');
    await rig.type(' status');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ active · Make the greeting friendlier · 1 criteria · 1 constraints · revision 0');
    expect(rig.bar()).toBeNull();

    // Esc closes the bar without running the line; q typed in it did not quit.
    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open');
    await rig.type('q');
    await rig.press(KEY.escape);
    await rig.waitFor(() => rig.bar() === null, 'Esc to close the command bar');
    expect(rig.controller.quit).not.toHaveBeenCalled();
    expect(rig.controller.command).toHaveBeenCalledTimes(2);
    expect(rig.frame()).toContain('Approve tool call shell (t1)');
  });
});

describe('keys never answer a prompt they did not see', () => {
  test('y and n pressed before any prompt do nothing, and the prompt that follows stays pending', async () => {
    const rig = await open({ transcript: ECHO, start: false });
    const before = rig.frame();
    for (const key of ['y', 'n', 'c', 's']) await rig.press(key);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.frame()).toBe(before);

    void rig.start();
    await rig.waitForFrame('Approve tool call shell (t1)');
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.session.snapshot.tools.t1?.decision).toBeNull();
  });

  test('a key that arrives after the engine yields but before the prompt is drawn does not answer it', async () => {
    const rig = await open({ transcript: ECHO, start: false });
    let sent = false;
    rig.session.subscribe((event) => {
      if (event.type === 'step.end' && event.data.outcome === 'awaiting_tool') {
        rig.pressNow('y'); // the engine is at the yield; the console has not drawn it yet
        sent = true;
      }
    });
    void rig.start();
    await rig.waitForFrame('Approve tool call shell (t1)');
    expect(sent).toBe(true);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.session.snapshot.pending?.kind).toBe('tool');
    expect(rig.session.snapshot.tools.t1?.decision).toBeNull();
  });

  test('a second y pressed before the next prompt is drawn does not approve the next call', async () => {
    const rig = await open({ transcript: TWO_CALLS });
    await rig.waitForFrame('$ echo first');
    const first = pendingSeq(rig);
    rig.pressNow('y');
    rig.pressNow('y'); // the same frame: the console still shows the t1 prompt
    expect(rig.controller.answer.mock.calls).toEqual([
      [{ decision: 'approve' }, first],
      [{ decision: 'approve' }, first],
    ]);

    await rig.waitFor(() => rig.frame().includes('$ touch second.txt') || rig.session.snapshot.done !== null, 'the t2 prompt (or the end of the run)');
    expect(rig.frame()).toContain('Approve tool call shell (t2)');
    expect(rig.session.snapshot.tools.t2?.decision).toBeNull();
    expect(existsSync(path.join(rig.workspace.dir, 'second.txt'))).toBe(false);

    await rig.press('n');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(rig.session.snapshot.tools.t1?.decision).toMatchObject({ decision: 'approve' });
    expect(rig.session.snapshot.tools.t2?.decision).toMatchObject({ decision: 'deny' });
    expect(existsSync(path.join(rig.workspace.dir, 'second.txt'))).toBe(false);
  });
});

describe('quit', () => {
  test('q quits, with or without a prompt; so does Ctrl+C', async () => {
    const rig = await open({ transcript: ECHO, start: false });
    await rig.press('q');
    expect(rig.controller.quit).toHaveBeenCalledTimes(1);

    void rig.start();
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.press('q');
    expect(rig.controller.quit).toHaveBeenCalledTimes(2);
    await rig.press(KEY.ctrlC);
    expect(rig.controller.quit).toHaveBeenCalledTimes(3);
    expect(rig.controller.answer).not.toHaveBeenCalled();
  });

  test('pasting the text "ctrl+c" does not quit', async () => {
    const rig = await open({ transcript: ECHO, start: false });
    await rig.press('ctrl+c'); // one chunk, as a terminal delivers a paste
    expect(rig.controller.quit).not.toHaveBeenCalled();
  });
});

describe('key map', () => {
  const CONTEXTS: KeyContext[] = ['tool', 'pause', 'gate', 'none'];
  const nothing = { tool: null, pause: null, gate: null, none: null };
  // Every key of the key map and some that must do nothing, with what each does per context.
  const TABLE: Record<string, Record<KeyContext, ConsoleCommand | null>> = {
    y: { ...nothing, tool: 'approve' },
    n: { ...nothing, tool: 'deny' },
    c: { ...nothing, pause: 'continue' },
    e: { ...nothing, pause: 'extend' },
    r: { ...nothing, pause: 'redirect' },
    s: { ...nothing, pause: 'stop' },
    enter: { ...nothing, gate: 'confirm' },
    '/': { tool: 'open-command-bar', pause: 'open-command-bar', gate: 'open-command-bar', none: 'open-command-bar' },
    q: { tool: 'quit', pause: 'quit', gate: 'quit', none: 'quit' },
    'ctrl+c': { tool: 'quit', pause: 'quit', gate: 'quit', none: 'quit' },
    Y: nothing,
    N: nothing,
    Q: nothing,
    C: nothing,
    'ctrl+y': nothing,
    'ctrl+n': nothing,
    'ctrl+q': nothing,
    x: nothing,
    ' ': nothing,
    '': nothing,
    yes: nothing,
  };

  test('the table covers every binding of the key map', () => {
    for (const binding of KEYMAP) expect(TABLE).toHaveProperty([binding.key]);
  });

  test.each(Object.entries(TABLE).flatMap(([key, row]) => CONTEXTS.map((context) => [key, context, row[context]] as const)))(
    'resolveKey(%j, %s) is %s',
    (key, context, command) => {
      expect(resolveKey(key, context)).toBe(command);
    },
  );

  test('keyName spells Ink key events as the map does', () => {
    expect(keyName('c', { ctrl: true })).toBe('ctrl+c');
    expect(keyName('y', { ctrl: false })).toBe('y');
    expect(keyName('\r', { ctrl: false, return: true })).toBe('enter');
  });

  test('typed or pasted text that spells a key name is not that key', () => {
    // Ink hands a pasted chunk to useInput as one `input`: the words "ctrl+c" or "enter"
    // are text, not Ctrl+C or the Enter key.
    for (const context of CONTEXTS) {
      expect(resolveKey(keyName('ctrl+c', { ctrl: false }), context)).toBeNull();
      expect(resolveKey(keyName('enter', { ctrl: false }), context)).toBeNull();
    }
  });

  test('each prompt lists exactly its own keys; the footer lists the global ones but not ctrl+c', () => {
    const keys = (context: KeyContext) => bindingsFor(context).map((b) => b.key);
    expect(keys('tool')).toEqual(['y', 'n', '/', 'q']);
    expect(keys('pause')).toEqual(['c', 'e', 'r', 's', '/', 'q']);
    expect(keys('gate')).toEqual(['enter', '/', 'q']);
    expect(keys('none')).toEqual(['/', 'q']);
  });
});

describe('stagnation', () => {
  const STAGNANT = `
turns:
  - thought: Look around.
    report:
      remaining_hypotheses: [the greeting is too short]
  - thought: Still looking.
    report:
      eliminated_hypotheses: [the name is wrong]
  - final: The greeting is friendlier.
    report:
      new_evidence:
        - { claim: the greeting says hi, evidence_ref: greets by name }
`;
  const POLICY: PolicyOptions = {
    every: 1,
    threshold: 2,
    onDetect: 'alert',
    // The same TAP summary every time: nothing measured ever moves.
    observe: [{ name: 'tests', command: "printf '# pass 1\\n# fail 1\\n'" }],
    signals: [
      { signal: 'observed.tests.failing', direction: 'decrease' },
      { signal: 'observed.tests.passing', direction: 'increase' },
    ],
  };

  function renderStore(events: readonly LoopEvent[]) {
    const controller: ConsoleController = { answer: vi.fn(), command: vi.fn(async () => ({ ok: false, message: 'replay' })), quit: vi.fn() };
    const ink = render(
      <ConsoleProvider store={createConsoleStore(events)} controller={controller}>
        <App />
      </ConsoleProvider>,
    );
    return { frame: () => stripVTControlCharacters(ink.lastFrame() ?? ''), ink };
  }

  test('a store folded from a real stagnant run shows the STAGNATION_DETECTED banner', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { events, outcome, agent } = await runHeadless(STAGNANT, POLICY, () => (now += 250));
    expect(outcome.reason).toBe('goal_met');
    expect(agent.remaining).toBe(0);
    const checkpoints = events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint] : []));
    expect(checkpoints.map((c) => [c.status, c.counter, c.threshold, c.stagnation_detected])).toEqual([
      ['BASELINE', 0, 2, false],
      ['NO_OBSERVED_PROGRESS', 1, 2, false],
      ['NO_OBSERVED_PROGRESS', 2, 2, true],
    ]);

    // Before the third checkpoint: no banner.
    const second = events.findIndex((e) => e.type === 'checkpoint.recorded' && e.data.checkpoint.index === 1);
    const early = renderStore(events.slice(0, second + 1));
    expect(early.frame()).toContain('NO_OBSERVED_PROGRESS');
    expect(early.frame()).not.toContain('STAGNATION_DETECTED');
    early.ink.unmount();

    const { frame, ink } = renderStore(events);
    expect(frame()).toContain('⚠ STAGNATION_DETECTED 2/2: 2 checkpoints without observed progress (claims made');
    expect(normalize(frame())).toBe(
      [
        'loopdeck · react · DONE (goal_met) · iteration 3/20 · step 3                             run ui-test',
        'Goal: Make the greeting friendlier',
        'Constraints: do not touch README.md',
        '── Budget',
        ' turns      █░░░░░░░ 3/20         tool calls ░░░░░░░░ 0/20         wall clock ░░░░░░░░ Ns/30m00s',
        ' tokens     ░░░░░░░░ 0/100.0k     cost       ░░░░░░░░ $0.00/$1.00',
        '── Checkpoint #3 · iteration 3 · NO_OBSERVED_PROGRESS · counter 2/2',
        ' observed (measured) observed_progress false      reported (claims) claimed_progress true',
        ' tests.failing  1 → 1 want ↓ no change            eliminated —',
        ' tests.passing  1 → 1 want ↑ no change            remaining  —',
        '                                                  [not found] “greets by name”',
        ' ⚠ STAGNATION_DETECTED 2/2: 2 checkpoints without observed progress (claims made, nothing measured …',
        '    9 checkpoint.recorded checkpoint #1 (turn 1): BASELINE, counter 0/2',
        '   12 model.call          turn 2: Still looking. (0+0 tok)',
        '   13 step.end            step 2 ok: Still looking.',
        '   15 checkpoint.recorded checkpoint #2 (turn 2): NO_OBSERVED_PROGRESS, counter 1/2',
        '   18 model.call          turn 3: claims done: The greeting is friendlier. (0+0 tok)',
        '   19 step.end            step 3 ok',
        '   21 checkpoint.recorded checkpoint #3 (turn 3): NO_OBSERVED_PROGRESS + STAGNATION_DETECTED, count…',
        '   22 stagnation.detected STAGNATION_DETECTED 2/2 → alert',
        '   23 verify.result       verify passed: node -e "process.exit(0)" → 0',
        '   25 session.complete    complete: goal_met: The greeting is friendlier.',
        ' Run finished: goal_met. [/] command bar (/goal ..., /budget ...)  [q] quit (the log is kept; resu…',
      ].join('\n'),
    );
    ink.unmount();
  });

  test('the live console shows the banner when the run raises the alert', async () => {
    const rig = await open({ transcript: STAGNANT, policy: POLICY });
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    const frame = await rig.waitForFrame('⚠ STAGNATION_DETECTED 2/2');
    expect(frame).toMatch(/stagnation\.detected STAGNATION_DETECTED 2\/2 → alert/);
  });
});

test('oracle: after a run driven through the console, fold(all events) equals the live store', async () => {
  const rig = await open({
    transcript: `
turns:
  - thought: Mark the workspace.
    tool_calls:
      - { id: t1, name: shell, args: { command: "touch ran.txt && echo marked" } }
    report:
      remaining_hypotheses: [the greeting is too short]
    usage: { input_tokens: 1200, output_tokens: 240 }
  - thought: Read the greeter.
    tool_calls:
      - { id: t2, name: read_file, args: { path: greet.js } }
  - thought: Make it friendlier.
    tool_calls:
      - { id: t3, name: write_file, args: { path: greet.js, content: "export const greet = (name) => \`hello, \${name}!\`;\\n" } }
    usage: { input_tokens: 1500, output_tokens: 300 }
  - thought: Check the file.
    tool_calls:
      - { id: t4, name: shell, args: { command: "cat greet.js" } }
    usage: { input_tokens: 1600, output_tokens: 80 }
  - final: The greeting is friendlier.
    usage: { input_tokens: 1700, output_tokens: 40 }
`,
    policy: {
      every: 2,
      observe: [{ name: 'tests', command: "printf '# pass 1\\n# fail 0\\n'" }],
      signals: [{ signal: 'observed.tests.passing', direction: 'increase' }],
      allow: ['read_file', 'write_file'],
    },
  });

  // Approve every prompt as it is drawn; revise the goal once on the way.
  let answered = -1;
  let revised = false;
  while (!rig.session.snapshot.done) {
    await waitUntil(
      () => rig.session.snapshot.done !== null || (rig.store.getState().session.pending?.seq ?? -1) > answered,
      'the next prompt or the end of the run',
      rig.frame,
    );
    const pending = rig.store.getState().session.pending;
    if (!pending || rig.session.snapshot.done) continue;
    await rig.waitForFrame('Approve tool call');
    if (!revised) {
      await rig.press('/');
      await rig.waitFor(() => rig.bar() === '/', 'the command bar to open');
      await rig.type('goal add-constraint keep the API');
      await rig.press(KEY.enter);
      await rig.waitForFrame('✓ goal revised');
      revised = true;
    }
    answered = pending.seq;
    await rig.press('y');
  }
  await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  await rig.waitForFrame('Run finished: goal_met');

  const live = rig.store.getState().session;
  expect(fold(rig.events)).toEqual(live);
  expect(rig.session.snapshot).toEqual(live);
  expect(rig.store.getState().recent).toEqual(rig.events.slice(-200));
  expect(rig.events.map((e) => e.seq)).toEqual(rig.events.map((_, i) => i));
  // The run went where it was meant to: both shell calls by the operator, the rest by policy.
  expect(live.toolOrder).toEqual(['t1', 't2', 't3', 't4']);
  expect(Object.values(live.tools).map((t) => [t.call.id, t.decision?.by, t.result?.status])).toEqual([
    ['t1', 'operator', 'ok'],
    ['t2', 'policy', 'ok'],
    ['t3', 'policy', 'ok'],
    ['t4', 'operator', 'ok'],
  ]);
  expect(live.goal?.constraints).toContain('keep the API');
  expect(live.checkpoints.map((c) => c.status)).toEqual(['BASELINE', 'NO_OBSERVED_PROGRESS']);
  expect(live.turn).toBe(5);
  expect(existsSync(path.join(rig.workspace.dir, 'ran.txt'))).toBe(true);
  expect(rig.agent.remaining).toBe(0);
});
