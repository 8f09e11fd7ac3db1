// UI tests of the live console: a real Session over a real temporary workspace, a scripted
// agent, the console store fed by batchInto, and the controller of run-console.tsx.
// Keys go in through stdin as a terminal sends them; waits are on conditions.
// Ink reads CI once, when `is-in-ci` is first imported, and with CI set it skips live
// frames (docs/stack.md): tests/support/no-ci.ts, a setup file, deletes it first.
import { describe, test, expect } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import isInCi from 'is-in-ci';
import { fold } from '../../src/engine/index.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless, waitUntil } from '../support/console-rig.js';
import { normalize, open, openAtPrompt, pendingSeq, renderStore, STAGNANT, STAGNANT_POLICY } from '../support/ui-helpers.js';

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

test('Ink is not in CI mode while these tests run, though CI runs them with CI=true', () => {
  expect(process.env.CI).toBeUndefined();
  expect(isInCi).toBe(false);
});

describe('tool approval', () => {
  test('a shell call shows the approval prompt; y runs it and its result shows in the timeline', async () => {
    const rig = await open({ transcript: ECHO });
    await rig.waitForFrame('Approve tool call');
    await rig.waitForArmed();
    expect(normalize(rig.frame())).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING #10
      turns 5%            tool calls 5%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 1/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░ 120/100k ░░░░░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call shell (t1) · denied in ##m##s unless answered                                  │
      │ why  no allow rule matches                                                                       │
      │ $ echo hello-from-shell                                                                          │
      │ a stores shell-exact: echo hello-from-shell                                                      │
      │ A stores shell-read-only: echo  = echo with any arguments                                        │
      │ [y] approve once  [a] always allow  [A] wider rule  [n] deny  [d] deny with note  [v] all args   │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      ──  Checkpoint  │ Goal │ Tool call │ Progress (tab)
      #1/1 · baseline at the run start · UNKNOWN · counter 0/3
      why unknown rule: no tracked signal could be measured (nothing is tracked: no \`observe\` command, or…
      observed (measured) observed_progress null        reported (claims) claimed_progress false
      UNKNOWN: nothing is tracked: no \`observe\` comman… eliminated no change
      no observed signals configured                    remaining  no change
      ── Timeline · filter activity (f) · 7 events · following (end)
          2 checkpoint.recorded checkpoint #1 (baseline at the run start): UNKNOWN, counter 0/3
          3 plan.draft          plan drafted: 1 step
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Say hello through the shell first. (100+20 tok)
          8 tool.call           tool call shell {"command":"echo hello-from-shell"}
          9 step.end            step 1 awaiting_tool

      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(rig.controller.answer).not.toHaveBeenCalled();

    const seq = pendingSeq(rig);
    await rig.press('y');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve' }, seq);

    const after = await rig.waitForFrame(/tool\.result\s+shell ok exit 0 \(\d+ ms\): hello-from-shell/);
    expect(after).toContain('approved by operator');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    await rig.waitForFrame('Run finished: goal_met');
    expect(rig.agent.remaining).toBe(0);
    expect(normalize(rig.frame())).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      react · DONE (goal_met) · iteration 2/20 · T
      IDLE › PLANNING › EXECUTING › AWAITING_TOOL › REFLECTING ›  DONE   ← REFLECTING #23
      turns 10%           tool calls 5%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 2/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░ 120/100k ░░░░░░░ $0.00/$1.00
      workspace progress unknown (not git) · ✓ claim verified
      ──  Checkpoint  │ Goal │ Tool call │ Progress (tab)
      #1/1 · baseline at the run start · UNKNOWN · counter 0/3
      why unknown rule: no tracked signal could be measured (nothing is tracked: no \`observe\` command, or
      no \`progress.observed\` signal); counter 0/3 (kept: unknown is not "no progress")
      observed (measured) observed_progress null        reported (claims) claimed_progress false
      UNKNOWN: nothing is tracked: no \`observe\` comman… eliminated no change
      no observed signals configured                    remaining  no change
      evidence none claimed


      ── Timeline · filter activity (f) · 13 events · following (end)
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Say hello through the shell first. (100+20 tok)
          8 tool.call           tool call shell {"command":"echo hello-from-shell"}
          9 step.end            step 1 awaiting_tool
         11 tool.decision       approved by operator
         13 tool.result         shell ok exit 0 (N ms): hello-from-shell
         18 model.call          turn 2: claims done: The greeting is friendlier. (0+0 tok)
         19 step.end            step 2 ok
         22 verify.result       verify passed: node -e "process.exit(0)" → 0
         24 session.complete    complete: goal_met: The greeting is friendlier.

      Run finished: goal_met. [tab] panel  [/] command  [?] help  [q] quit"
    `);
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
    await rig.waitForArmed();
    const seq = pendingSeq(rig);
    await rig.press('n');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'deny' }, seq);

    const frame = await rig.waitForFrame('denied by operator');
    expect(frame).toMatch(/tool\.decision\s+denied by operator\s*$/m);
    expect(frame).toMatch(/tool\.result\s+shell denied \(0 ms\): denied by the operator/);
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(existsSync(path.join(rig.workspace.dir, 'ran.txt'))).toBe(false);

    const denial = { role: 'tool', call_id: 't1', name: 'shell', status: 'denied', content: expect.stringContaining('denied by the operator') };
    expect(rig.seen.map((s) => s.turn)).toEqual([1, 2]);
    expect(rig.seen[0]!.history).toEqual([]);
    expect(rig.seen[1]!.history).toEqual([denial]);
    expect(rig.session.snapshot.history).toEqual([denial]);
    expect(rig.session.snapshot.tools.get('t1')).toMatchObject({ decision: { decision: 'deny', by: 'operator' }, result: { status: 'denied', exit_code: null } });
  });
});

test('each tool call of one turn gets its own prompt, in order', async () => {
  const rig = await open({ transcript: TWO_CALLS });
  await rig.waitForFrame('Approve tool call shell (t1)');
  await rig.waitForArmed();
  await rig.press('y');
  await rig.waitFor(() => rig.frame().includes('Approve tool call shell (t2)') || rig.session.snapshot.done !== null, 'the t2 prompt (or the end of the run)');
  // The run must not move on to the agent's next turn while t2 of this turn is undecided.
  expect(rig.session.snapshot.turn).toBe(1);
  expect(rig.frame()).toContain('$ touch second.txt');
  await rig.waitForArmed();
  await rig.press('y');
  await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  expect(rig.session.snapshot.toolOrder).toEqual(['t1', 't2']);
  expect(existsSync(path.join(rig.workspace.dir, 'second.txt'))).toBe(true);
  expect(rig.seen[1]!.history.map((m) => (m.role === 'tool' ? m.call_id : m.role))).toEqual(['t1', 't2']);
});

describe('command bar', () => {
  test('/goal add-constraint revises the goal; typing y, n and q in the bar never reaches a hotkey', async () => {
    const rig = await openAtPrompt({ transcript: ECHO });

    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open with "/"');
    await rig.type('goal add-constraint keep the API'); // "constraint" has two n's
    expect(rig.bar()).toBe('/goal add-constraint keep the API');
    expect(rig.frame()).toContain('Approve tool call shell (t1)');
    await rig.press(KEY.enter);

    // The answer shows at once; the revision's event reaches the store with the next batch.
    await rig.waitFor(() => rig.frame().includes('✓ goal revised') && rig.frame().includes('[rev 1, active]'), 'the answer and the revised goal');
    const frame = rig.frame();
    expect(frame).toContain('loopdeck Make the greeting friendlier [rev 1, active]');
    expect(frame).toMatch(/goal\.revised\s+goal revised \(add-constraint\): keep the API/);
    expect(frame).toContain('✓ goal revised (add-constraint): revision 1');
    expect(rig.bar()).toBeNull();
    expect(frame).toContain('Approve tool call shell (t1)');

    // Every letter a hotkey would take, typed into the bar while the prompt waits.
    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open again');
    await rig.type('goal add-criterion say yes or no, never quit; deny all ?[]fx');
    expect(rig.bar()).toBe('/goal add-criterion say yes or no, never quit; deny all ?[]fx');
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.controller.quit).not.toHaveBeenCalled();
    expect(rig.store.getState().overlay).toBeNull();
    expect(rig.session.snapshot.pending?.kind).toBe('tool');
    expect(rig.frame()).toContain('Approve tool call shell (t1)');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ goal revised (add-criterion): revision 2');
    expect(rig.controller.reviseGoal.mock.calls).toEqual([
      ['add-constraint', 'keep the API'],
      ['add-criterion', 'say yes or no, never quit; deny all ?[]fx'],
    ]);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.controller.quit).not.toHaveBeenCalled();

    // With the bar closed, y approves again, and the next turn sees the revised goal.
    await rig.press('y');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    const turn2 = rig.seen[1]!;
    expect(turn2.goal.constraints).toEqual(['do not touch README.md', 'keep the API']);
    expect(turn2.goal.success_criteria).toEqual(['the verify command exits 0', 'say yes or no, never quit; deny all ?[]fx']);
    expect(turn2.history.filter((m) => m.role === 'harness')).toEqual([
      { role: 'harness', content: 'The operator revised the goal (add-constraint: keep the API).' },
      { role: 'harness', content: 'The operator revised the goal (add-criterion: say yes or no, never quit; deny all ?[]fx).' },
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
    await rig.waitForFrame('running /goal add-constraint keep the API …');
    await rig.press(KEY.enter); // the operator sees nothing happen and presses Enter again
    release();
    await rig.waitForFrame('✓ goal revised');
    await Promise.all(rig.controller.reviseGoal.mock.results.map((r) => r.value));
    expect(rig.controller.reviseGoal).toHaveBeenCalledTimes(1);
    expect(rig.session.snapshot.revisions).toHaveLength(1);
    expect(rig.session.snapshot.goal?.constraints).toEqual(['do not touch README.md', 'keep the API']);
  });
});

describe('keys never answer a prompt they did not see', () => {
  test('y and n pressed before any prompt do nothing, and the prompt that follows stays pending', async () => {
    const rig = await open({ transcript: ECHO, start: false });
    const before = rig.frame();
    for (const key of ['y', 'a', 'n', 'd', 'c', 's', 'e']) await rig.press(key);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.frame()).toBe(before);

    void rig.start();
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.waitForArmed();
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.session.snapshot.tools.get('t1')?.decision).toBeNull();
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
    await rig.waitForArmed();
    expect(sent).toBe(true);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.session.snapshot.pending?.kind).toBe('tool');
    expect(rig.session.snapshot.tools.get('t1')?.decision).toBeNull();
  });

  test('keys pressed while the prompt is on screen but not yet armed do not answer it', async () => {
    const rig = await open({ transcript: ECHO });
    await rig.waitForFrame('Approve tool call shell (t1)');
    // The prompt is drawn; its keys arm ~200 ms later. A key typed in that instant
    // (meant for whatever was on screen before) does not answer it.
    expect(rig.store.getState().armed).toBeNull();
    expect(rig.frame()).toContain('keys arm in a moment…');
    for (const key of ['y', 'a', 'n', 'd']) rig.pressNow(key);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.store.getState().input).toBeNull();
    await rig.waitForArmed();
    await rig.waitForFrame('[y] approve once');
    expect(rig.controller.answer).not.toHaveBeenCalled();
    await rig.press('y');
    expect(rig.controller.answer).toHaveBeenCalledTimes(1);
  });

  test('a second y pressed before the next prompt is armed does not approve the next call', async () => {
    const rig = await open({ transcript: TWO_CALLS });
    await rig.waitForFrame('$ echo first');
    await rig.waitForArmed();
    const first = pendingSeq(rig);
    await rig.press('y');
    await rig.press('y'); // a second read in the same frame: the console still shows the t1 prompt
    expect(rig.controller.answer.mock.calls[0]).toEqual([{ decision: 'approve' }, first]);
    expect(rig.controller.answer.mock.calls.every(([, seq]) => seq === first)).toBe(true);

    await rig.waitFor(() => rig.frame().includes('$ touch second.txt') || rig.session.snapshot.done !== null, 'the t2 prompt (or the end of the run)');
    expect(rig.frame()).toContain('Approve tool call shell (t2)');
    rig.pressNow('y'); // typed as the t2 prompt appears: not armed yet
    expect(rig.session.snapshot.tools.get('t2')?.decision).toBeNull();
    expect(existsSync(path.join(rig.workspace.dir, 'second.txt'))).toBe(false);

    await rig.waitForArmed();
    await rig.press('n');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(rig.session.snapshot.tools.get('t1')?.decision).toMatchObject({ decision: 'approve' });
    expect(rig.session.snapshot.tools.get('t2')?.decision).toMatchObject({ decision: 'deny' });
    expect(existsSync(path.join(rig.workspace.dir, 'second.txt'))).toBe(false);
  });
});

describe('stagnation', () => {
  test('a store folded from a real stagnant run shows the banner and the checkpoint diff', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { events, outcome, agent } = await runHeadless(STAGNANT, STAGNANT_POLICY, () => (now += 250));
    expect(outcome.reason).toBe('goal_met');
    expect(agent.remaining).toBe(0);
    const checkpoints = events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint] : []));
    // The baseline at the run start, then one checkpoint per turn.
    expect(checkpoints.map((c) => [c.iteration, c.status, c.counter, c.threshold, c.stagnation_detected])).toEqual([
      [0, 'BASELINE', 0, 3, false],
      [1, 'NO_OBSERVED_PROGRESS', 1, 3, false],
      [2, 'NO_OBSERVED_PROGRESS', 2, 3, false],
      [3, 'NO_OBSERVED_PROGRESS', 3, 3, true],
    ]);

    // Before the checkpoint of turn 3: no banner.
    const second = events.findIndex((e) => e.type === 'checkpoint.recorded' && e.data.checkpoint.index === 2);
    const early = await renderStore(createConsoleStore(events.slice(0, second + 1)));
    expect(early.frame()).toContain('NO_OBSERVED_PROGRESS');
    expect(early.frame()).not.toContain('STAGNATION_DETECTED');

    const terminal = await renderStore(createConsoleStore(events));
    expect(terminal.frame()).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      react · DONE (goal_met) · iteration 4/20 · 11s
      IDLE › PLANNING › EXECUTING › AWAITING_TOOL › REFLECTING ›  DONE   ← REFLECTING #36
      turns 20%           tool calls 0%       wall clock 0%       tokens 0%           cost 0%
      ███░░░░░░░░░░░ 4/20 ░░░░░░░░░░░░░░ 0/20 ░░░░░░░░░░░ 11s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress unknown (not git) · ✓ claim verified
       ✓ cleared (the goal was met): STAGNATION_DETECTED: 3/3 checkpoints without observed progress (turn…
      ──  Checkpoint  │ Goal │ Tool call │ Progress (tab)
      #4/4 · iteration 3 · NO_OBSERVED_PROGRESS + STAGNATION_DETECTED · counter 3/3 · [ earlier
      why no observed progress: observed.tests.failing stayed at 1, observed.tests.passing stayed at 1;
      counter 3/3 reached the threshold: STAGNATION_DETECTED; claims never reset the counter
      observed (measured) observed_progress false       reported (claims) vs #1–#3 claimed_progress true
      tests.failing 1 → 1 want ↓ no change              eliminated no change
      tests.passing 1 → 1 want ↑ no change              remaining  no change
      evidence 1 claim, 1 new (not claimed at an earlier checkpoint)
       [not found] “greets by name” the greeting says hi
      ── Timeline · filter activity (f) · 18 events · following (end)
         17 step.end            step 2 ok: Still looking.
         20 checkpoint.recorded checkpoint #3 (turn 2): NO_OBSERVED_PROGRESS, counter 2/3
         23 model.call          turn 3: Checking the greeting. (0+0 tok)
         24 step.end            step 3 ok: Checking the greeting.
      !  27 checkpoint.recorded checkpoint #4 (turn 3): NO_OBSERVED_PROGRESS + STAGNATION_DETECTED, count…
      !  28 stagnation.detected STAGNATION_DETECTED 3/3 → alert
         31 model.call          turn 4: claims done: The greeting is friendlier. (0+0 tok)
         32 step.end            step 4 ok
         35 verify.result       verify passed: node -e "process.exit(0)" → 0
         37 session.complete    complete: goal_met: The greeting is friendlier.

      Run finished: goal_met. [tab] panel  [x] ack alert  [/] command  [?] help  [q] quit"
    `);
  });

  test('the live console shows the banner when the run raises the alert, and says it cleared once the goal was met', async () => {
    const rig = await open({ transcript: STAGNANT, policy: STAGNANT_POLICY });
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    const frame = await rig.waitForFrame('✓ cleared (the goal was met): STAGNATION_DETECTED: 3/3');
    expect(frame).toMatch(/stagnation\.detected STAGNATION_DETECTED 3\/3 → alert/);
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
    await rig.waitForArmed();
    await rig.press('y');
  }
  await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  await rig.waitForFrame('Run finished: goal_met');

  const live = rig.store.getState().session;
  expect(fold(rig.events)).toEqual(live);
  expect(rig.session.snapshot).toEqual(live);
  expect(rig.store.getState().events).toEqual(rig.events);
  expect(rig.events.map((e) => e.seq)).toEqual(rig.events.map((_, i) => i));
  // The run went where it was meant to: both shell calls by the operator, the rest by policy.
  expect(live.toolOrder).toEqual(['t1', 't2', 't3', 't4']);
  expect([...live.tools.values()].map((t) => [t.call.id, t.decision?.by, t.result?.status])).toEqual([
    ['t1', 'operator', 'ok'],
    ['t2', 'policy', 'ok'],
    ['t3', 'policy', 'ok'],
    ['t4', 'operator', 'ok'],
  ]);
  expect(live.goal?.constraints).toContain('keep the API');
  // The baseline at the run start, then turns 2 and 4.
  expect(live.checkpoints.map((c) => [c.iteration, c.status])).toEqual([
    [0, 'BASELINE'],
    [2, 'NO_OBSERVED_PROGRESS'],
    [4, 'NO_OBSERVED_PROGRESS'],
  ]);
  expect(live.turn).toBe(5);
  expect(existsSync(path.join(rig.workspace.dir, 'ran.txt'))).toBe(true);
  expect(rig.agent.remaining).toBe(0);
});
