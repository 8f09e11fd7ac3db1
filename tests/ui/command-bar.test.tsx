// The command bar: each /goal directive typed into the bar with the whole frame after it
// (the goal panel shown), errors that keep the line, history, Tab completion, Enter with
// the completion list open, and pasting.
import { describe, test, expect } from 'vitest';

import { KEY, operatorCalls, type ConsoleRig } from '../support/console-rig.js';
import { normalize, open, openAtOperatorPause, WAITING } from '../support/ui-helpers.js';

async function openBar(rig: ConsoleRig): Promise<void> {
  await rig.press('/');
  await rig.waitFor(() => rig.bar() === '/', 'the command bar to open with "/"');
}

/** Opens the bar, types `line` after the `/`, runs it and waits for its answer. */
async function run(rig: ConsoleRig, line: string): Promise<string> {
  const before = rig.store.getState().notice;
  await openBar(rig);
  await rig.type(line.slice(1));
  await rig.press(KEY.enter);
  await rig.waitFor(() => rig.store.getState().notice !== before && !rig.store.getState().busy, `"${line}" to run`);
  // The answer is set at once; the events the command recorded reach the store in the next batch.
  await rig.waitFor(() => rig.store.getState().events.length === rig.events.length, 'the store to have every event');
  await rig.waitFor(() => rig.frame().includes(rig.store.getState().notice?.text.slice(0, 40) ?? '\u0000'), 'its answer to show');
  // A prompt's keys arm 200 ms after it appears: a fast run would otherwise catch "keys arm in a moment…".
  if (rig.store.getState().session.pending !== null) await rig.waitFor(() => rig.frame().includes('[y] approve once'), 'the prompt to arm');
  return normalize(rig.frame());
}


describe('/goal status at a narrow width', () => {
  test('the answer wraps over the rows it needs: nothing of it is cut', async () => {
    const rig = await open({ transcript: WAITING, columns: 60 });
    await rig.waitForFrame('Approve tool call shell');
    const frame = await run(rig, '/goal status');
    const rows = frame.split('\n');
    expect(rows.slice(-3, -1)).toEqual(['✓ active · revision 0 · 1 criterion · 1 constraint · Make', 'the greeting friendlier']);
  });
});
describe('each /goal directive, with the whole frame after it', () => {
  test('status, add-constraint, add-criterion, modify, redirect', async () => {
    const rig = await open({ transcript: WAITING, rows: 40 });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.press(KEY.tab); // the goal panel
    await rig.waitForFrame('objective   Make the greeting friendlier');

    expect(await run(rig, '/goal status')).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier                                                    run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING #10
      turns 5%            tool calls 5%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 1/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call shell (t1) · denied in ##m##s unless answered                                  │
      │ why  no allow rule matches                                                                       │
      │ $ ls                                                                                             │
      │ a stores shell-exact: ls                                                                         │
      │ A stores shell-read-only: ls  = ls with any arguments                                            │
      │ [y] approve once  [a] always allow  [A] wider rule  [n] deny  [d] deny with note  [v] all args   │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      ── Checkpoint │  Goal  │ Tool call │ Progress (tab)
      objective   Make the greeting friendlier (active, revision 0)
      criteria    1, none checkable (they do not block the goal)
      – not checkable #1 the verify command exits 0
      constraints do not touch README.md
      revisions   none




      ── Timeline · filter activity (f) · 7 events · following (end)
          0 session.start       session started: Make the greeting friendlier (react)
          2 checkpoint.recorded checkpoint #1 (baseline at the run start): UNKNOWN, counter 0/3
          3 plan.draft          plan drafted: 1 step
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Look before changing anything. (0+0 tok)
          8 tool.call           tool call shell {"command":"ls"}
          9 step.end            step 1 awaiting_tool





      ✓ active · revision 0 · 1 criterion · 1 constraint · Make the greeting friendlier
      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(await run(rig, '/goal add-constraint keep the public API')).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier [rev 1, active]                                    run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING #10
      turns 5%            tool calls 5%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 1/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call shell (t1) · denied in ##m##s unless answered                                  │
      │ why  no allow rule matches                                                                       │
      │ $ ls                                                                                             │
      │ a stores shell-exact: ls                                                                         │
      │ A stores shell-read-only: ls  = ls with any arguments                                            │
      │ [y] approve once  [a] always allow  [A] wider rule  [n] deny  [d] deny with note  [v] all args   │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      ── Checkpoint │  Goal  │ Tool call │ Progress (tab)
      objective   Make the greeting friendlier (active, revision 1)
      criteria    1, none checkable (they do not block the goal)
      – not checkable #1 the verify command exits 0
      constraints do not touch README.md · keep the public API
      revisions   1, newest first
       rev 1 add-constraint: keep the public API (no restart)
         still valid: the agent gave no usable reconciliation · discard: nothing known · new work: the ne…


      ── Timeline · filter activity (f) · 8 events · following (end)
          0 session.start       session started: Make the greeting friendlier (react)
          2 checkpoint.recorded checkpoint #1 (baseline at the run start): UNKNOWN, counter 0/3
          3 plan.draft          plan drafted: 1 step
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Look before changing anything. (0+0 tok)
          8 tool.call           tool call shell {"command":"ls"}
          9 step.end            step 1 awaiting_tool
         11 goal.revised        goal revised (add-constraint): keep the public API




      ✓ goal revised (add-constraint): revision 1
      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(await run(rig, '/goal add-criterion the greeting names the person')).toMatchInlineSnapshot(`
      "loopdeck Make the greeting friendlier [rev 2, active]                                    run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING #10
      turns 5%            tool calls 5%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 1/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call shell (t1) · denied in ##m##s unless answered                                  │
      │ why  no allow rule matches                                                                       │
      │ $ ls                                                                                             │
      │ a stores shell-exact: ls                                                                         │
      │ A stores shell-read-only: ls  = ls with any arguments                                            │
      │ [y] approve once  [a] always allow  [A] wider rule  [n] deny  [d] deny with note  [v] all args   │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      ── Checkpoint │  Goal  │ Tool call │ Progress (tab)
      objective   Make the greeting friendlier (active, revision 2)
      criteria    2, none checkable (they do not block the goal)
      – not checkable #1 the verify command exits 0
      – not checkable #2 the greeting names the person
      constraints do not touch README.md · keep the public API
      revisions   2, newest first
       rev 2 add-criterion: the greeting names the person (no restart)
         still valid: the agent gave no usable reconciliation · discard: nothing known · new work: the ne…
      … 2 more lines
      ── Timeline · filter activity (f) · 9 events · following (end)
          0 session.start       session started: Make the greeting friendlier (react)
          2 checkpoint.recorded checkpoint #1 (baseline at the run start): UNKNOWN, counter 0/3
          3 plan.draft          plan drafted: 1 step
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Look before changing anything. (0+0 tok)
          8 tool.call           tool call shell {"command":"ls"}
          9 step.end            step 1 awaiting_tool
         11 goal.revised        goal revised (add-constraint): keep the public API
         12 goal.revised        goal revised (add-criterion): the greeting names the person



      ✓ goal revised (add-criterion): revision 2
      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(await run(rig, '/goal modify Make the greeting warm and short')).toMatchInlineSnapshot(`
      "loopdeck Make the greeting warm and short [rev 3, revised]                               run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING #10
      turns 5%            tool calls 5%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 1/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call shell (t1) · denied in ##m##s unless answered                                  │
      │ why  no allow rule matches                                                                       │
      │ $ ls                                                                                             │
      │ a stores shell-exact: ls                                                                         │
      │ A stores shell-read-only: ls  = ls with any arguments                                            │
      │ [y] approve once  [a] always allow  [A] wider rule  [n] deny  [d] deny with note  [v] all args   │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      ── Checkpoint │  Goal  │ Tool call │ Progress (tab)
      objective   Make the greeting warm and short (revised, revision 3)
      criteria    2, none checkable (they do not block the goal)
      – not checkable #1 the verify command exits 0
      – not checkable #2 the greeting names the person
      constraints do not touch README.md · keep the public API
      revisions   3, newest first
       rev 3 modify: Make the greeting warm and short (no restart)
         still valid: the agent gave no usable reconciliation · discard: nothing known · new work: the ne…
      … 4 more lines
      ── Timeline · filter activity (f) · 10 events · following (end)
          0 session.start       session started: Make the greeting friendlier (react)
          2 checkpoint.recorded checkpoint #1 (baseline at the run start): UNKNOWN, counter 0/3
          3 plan.draft          plan drafted: 1 step
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Look before changing anything. (0+0 tok)
          8 tool.call           tool call shell {"command":"ls"}
          9 step.end            step 1 awaiting_tool
         11 goal.revised        goal revised (add-constraint): keep the public API
         12 goal.revised        goal revised (add-criterion): the greeting names the person
         13 goal.revised        goal revised (modify): Make the greeting warm and short


      ✓ goal revised (modify): revision 3
      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(await run(rig, '/goal redirect Translate the greeting to French')).toMatchInlineSnapshot(`
      "loopdeck Translate the greeting to French [rev 4, revised]                               run ui-test
      react · AWAITING_TOOL · iteration 1/20 · T
      IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING #10
      turns 5%            tool calls 5%       wall clock #%       tokens 0%           cost 0%
      █░░░░░░░░░░░░░ 1/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
      workspace progress not measured yet
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ Approve tool call shell (t1) · denied in ##m##s unless answered                                  │
      │ why  no allow rule matches                                                                       │
      │ $ ls                                                                                             │
      │ a stores shell-exact: ls                                                                         │
      │ A stores shell-read-only: ls  = ls with any arguments                                            │
      │ [y] approve once  [a] always allow  [A] wider rule  [n] deny  [d] deny with note  [v] all args   │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      ── Checkpoint │  Goal  │ Tool call │ Progress (tab)
      objective   Translate the greeting to French (revised, revision 4)
      criteria    2, none checkable (they do not block the goal)
      – not checkable #1 the verify command exits 0
      – not checkable #2 the greeting names the person
      constraints do not touch README.md · keep the public API
      revisions   4, newest first
       rev 4 redirect: Translate the greeting to French (full restart)
         still valid: the agent gave no usable reconciliation · discard: work aimed only at the previous …
      … 6 more lines
      ── Timeline · filter activity (f) · 11 events · following (end)
          0 session.start       session started: Make the greeting friendlier (react)
          2 checkpoint.recorded checkpoint #1 (baseline at the run start): UNKNOWN, counter 0/3
          3 plan.draft          plan drafted: 1 step
          4 plan.commit         plan committed (initial): 1 step
          7 model.call          turn 1: Look before changing anything. (0+0 tok)
          8 tool.call           tool call shell {"command":"ls"}
          9 step.end            step 1 awaiting_tool
         11 goal.revised        goal revised (add-constraint): keep the public API
         12 goal.revised        goal revised (add-criterion): the greeting names the person
         13 goal.revised        goal revised (modify): Make the greeting warm and short
         14 goal.revised        goal revised (redirect): Translate the greeting to French

      ✓ goal revised (redirect): revision 4
      [tab] panel  [/] command  [?] help  [q] quit"
    `);
    expect(rig.session.snapshot.goal).toMatchObject({
      objective: 'Translate the greeting to French',
      // A redirect without typed criteria keeps them.
      success_criteria: ['the verify command exits 0', 'the greeting names the person'],
      constraints: ['do not touch README.md', 'keep the public API'],
      status: 'revised',
      revision: 4,
    });
    expect(rig.bar()).toBeNull();
  });
});

describe('errors keep the typed line in the bar', () => {
  test.each([
    ['/goal', '✗ /goal needs a subcommand: status, add-constraint, redirect, modify, add-criterion'],
    ['/goal frobnicate x', '✗ unknown /goal subcommand "frobnicate"; valid: status, add-constraint, redirect, modify, add-criterion'],
    ['/goal add-constraint', '✗ /goal add-constraint needs text, e.g. /goal add-constraint keep the public API'],
    ['/goal redirect   ', '✗ /goal redirect needs text, e.g. /goal redirect keep the public API'],
    ['/goal status now', '✗ /goal status takes no text'],
    ['/budget turns 5', '✗ usage: /budget <turns|tool_calls|wall_clock|tokens|cost> +N (wall_clock takes a duration: +10m, +1h30m)'],
    ['/frobnicate', '✗ unknown command "/frobnicate"'],
  ])('%j', async (line, message) => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    await rig.type(line.slice(1));
    await rig.press(KEY.enter);
    await rig.waitForFrame('✗ ');
    // The whole message, wrapped at spaces over the notice's rows.
    expect(rig.frame().replace(/ *\n/g, ' ')).toContain(message);
    expect(rig.bar()).toBe(line.trimEnd());
    expect(rig.session.snapshot.revisions).toEqual([]);
    // The kept line is fixed in place and run again.
    await rig.press('\u0015'); // Ctrl+U clears it
    await rig.waitFor(() => rig.bar() === '', 'the bar to be cleared');
    await rig.type('/goal status');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ active · revision 0 · 1 criterion · 1 constraint · Make the greeting friendlier');
    expect(rig.bar()).toBeNull();
  });
});

describe('a warning about the line goes with the line', () => {
  test.each([
    ['Esc closes the bar', async (rig: ConsoleRig) => rig.press(KEY.escape)],
    ['an empty line closes it', async (rig: ConsoleRig) => {
      await rig.press('\u0015');
      await rig.press(KEY.enter);
    }],
    ['/help opens help', async (rig: ConsoleRig) => {
      await rig.press('\u0015');
      await rig.type('/help');
      await rig.press(KEY.enter);
      await rig.waitForFrame('quit (asks first while a run is live)');
    }],
  ])('%s', async (_name, leave) => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    await rig.type('frobnicate');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✗ unknown command "/frobnicate"');
    await leave(rig);
    await rig.waitFor(() => rig.bar() === null, 'the bar to close');
    await rig.waitFor(() => !rig.frame().includes('unknown command'), 'the warning about the line to go with it');
    expect(rig.store.getState().notice).toBeNull();
  });

  test('an answer to a command that ran stays after the bar closes', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    const frame = await run(rig, '/goal status');
    expect(frame).toContain('✓ active · revision 0');
    expect(rig.bar()).toBeNull();
    await openBar(rig);
    await rig.press(KEY.escape);
    await rig.waitFor(() => rig.bar() === null, 'the bar to close');
    expect(rig.frame()).toContain('✓ active · revision 0');
  });
});

describe('history, completion, paste', () => {
  test('↑ and ↓ walk the lines run before, and come back to the draft', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await run(rig, '/goal status');
    await run(rig, '/goal add-constraint keep it short');
    await openBar(rig);
    await rig.type('goal mo');
    await rig.press(KEY.up);
    await rig.waitFor(() => rig.bar() === '/goal add-constraint keep it short', '↑ to show the newest line');
    await rig.press(KEY.up);
    await rig.waitFor(() => rig.bar() === '/goal status', '↑ to show the older line');
    await rig.press(KEY.up);
    expect(rig.bar()).toBe('/goal status');
    await rig.press(KEY.down);
    await rig.waitFor(() => rig.bar() === '/goal add-constraint keep it short', '↓ to come forward');
    await rig.press(KEY.down);
    await rig.waitFor(() => rig.bar() === '/goal mo', '↓ to restore the draft');
    // ↑ recalls a line that failed too: it can be fixed.
    await rig.press('\u0015');
    await rig.type('/goal add-constraint');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✗ /goal add-constraint needs text');
    await rig.press(KEY.escape);
    await openBar(rig);
    await rig.press(KEY.up);
    await rig.waitFor(() => rig.bar() === '/goal add-constraint', '↑ to recall the failed line');
  });

  test('Tab completes one candidate; several extend to their common prefix and list them; Tab takes the highlighted one', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    await rig.type('goal st');
    await rig.press(KEY.tab);
    await rig.waitFor(() => rig.bar() === '/goal status', 'Tab to complete the only candidate');

    await rig.press('\u0015');
    await rig.type('/goal a');
    await rig.press(KEY.tab);
    await rig.waitFor(() => rig.bar() === '/goal add-c', 'Tab to extend to the common prefix');
    let frame = rig.frame();
    expect(frame).toContain('▸ /goal add-constraint');
    expect(frame).toMatch(/^ {2}\/goal add-criterion$/m);
    await rig.press(KEY.down);
    await rig.waitForFrame('▸ /goal add-criterion');
    await rig.press(KEY.tab);
    await rig.waitFor(() => rig.bar() === '/goal add-criterion', 'Tab to take the highlighted candidate');
    frame = rig.frame();
    expect(frame).not.toContain('▸');
    await rig.type('say hello');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ goal revised (add-criterion): revision 1');
  });

  test('Enter with the completion list open runs the line as typed, never the highlighted item', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    await rig.type('goal ');
    await rig.press(KEY.tab);
    await rig.waitForFrame('▸ /goal status');
    await rig.press(KEY.down);
    await rig.waitForFrame('▸ /goal add-constraint');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✗ /goal needs a subcommand');
    // The line is not a command: nothing reaches the session.
    expect(rig.controller.reviseGoal).not.toHaveBeenCalled();
    expect(rig.controller.goalStatus).not.toHaveBeenCalled();
    expect(rig.session.snapshot.revisions).toEqual([]);
    expect(rig.bar()).toBe('/goal');
    expect(rig.frame()).not.toContain('▸');
  });

  test('typing narrows the open list; one Esc closes the list and the bar at once', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    await rig.press(KEY.tab);
    await rig.waitForFrame('▸ /goal status');
    expect(rig.frame()).toContain('(+8 more, ↓)');
    await rig.type('s');
    await rig.waitForFrame('▸ /stop');
    expect(rig.frame()).toMatch(/^ {2}\/stop --abort$/m);
    expect(rig.frame()).not.toContain('/goal status');
    await rig.press(KEY.escape);
    await rig.waitFor(() => rig.bar() === null, 'one Esc to close the bar');
    const frame = normalize(rig.frame());
    expect(frame).not.toContain('▸');
    expect(frame).not.toContain('/stop');
    expect(frame).toMatch(/\[tab\] panel .*\[\?\] help/);
    expect(operatorCalls(rig.controller)).toEqual([]);
  });

  test('/bu, Tab, Esc: the bar closes with its list, and the next key acts on the console', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    await rig.type('bu');
    await rig.press(KEY.tab);
    await rig.waitForFrame('/budget tokens +');
    await rig.press(KEY.escape);
    await rig.waitFor(() => rig.bar() === null, 'one Esc to close the bar');
    const frame = normalize(rig.frame());
    expect(frame).not.toContain('/budget');
    expect(frame.split('\n').at(-1)).toMatch(/^\[tab\] panel/);
    // The next key is the console's again: ? opens help, not text in a bar.
    await rig.press('?');
    await rig.waitFor(() => rig.store.getState().overlay !== null, '? to open help');
    expect(rig.bar()).toBe(null);
  });

  test.each([
    ['help', '?', 'help', 'esc, ? or q'],
    ['the arguments view', 'v', 'the arguments view', 'esc or v'],
    ['the quit confirmation', 'q', 'the quit confirmation', 'n or esc'],
  ])('a paste under %s goes nowhere and says so; the overlay stays, no bar opens, nothing is answered', async (_, opener, name, keys) => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.waitForArmed();
    await rig.press(opener);
    await rig.waitFor(() => rig.store.getState().overlay !== null, `${opener} to open the overlay`);
    const overlay = rig.store.getState().overlay;
    await rig.press('\u001b[200~goal redirect y\u001b[201~');
    await rig.waitForFrame(`the paste went nowhere: ${name} is open; close it (${keys}), then paste again`);
    expect(rig.store.getState().overlay).toBe(overlay);
    expect(rig.bar()).toBe(null);
    expect(rig.session.snapshot.pending?.kind).toBe('tool');
    expect(operatorCalls(rig.controller)).toEqual([]);
  });

  test('a multi-line paste is inserted on one line, not submitted', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    await rig.press('\u001b[200~goal add-constraint keep\nthe API\r\nstable\r\u001b[201~'); // a bracketed paste, as the console asks terminals to send
    await rig.waitFor(() => rig.bar() === '/goal add-constraint keep the API stable', 'the paste to show on one line');
    expect(operatorCalls(rig.controller)).toEqual([]);
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ goal revised (add-constraint): revision 1');
    expect(rig.session.snapshot.goal?.constraints).toContain('keep the API stable');
  });

  test('a paste of 60,000 characters, CJK and accents among them, shows at once, keeps what a line holds and says what it left out, and Esc still closes the bar', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await openBar(rig);
    // The bar's /, then 9,950 + 8 characters, then 41 of the y's: 10,000 in all.
    const pasted = `${'x'.repeat(5_950)}${'é漢字 '.repeat(1_000)}kept end${'y'.repeat(50_000)}`;
    const started = Date.now();
    await rig.press(`\u001b[200~${pasted}\u001b[201~`);
    // The bar scrolls to the caret: the end of what it kept is what shows, and why it ends there.
    await rig.waitFor(() => /kept endy+$/.test(rig.bar() ?? ''), 'the end of what was kept to show');
    expect(rig.frame()).toMatch(/a line holds at most 10,000 characters: the last [\d,]+ typed or pasted were left out/);
    expect(rig.store.getState().line.text.length).toBeLessThanOrEqual(11_000);
    await rig.press(KEY.escape);
    await rig.waitFor(() => rig.bar() === null, 'Esc to close the bar');
    // Drawing follows the bar's width, not the text's length (it took minutes before).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(operatorCalls(rig.controller)).toEqual([]);
  }, 30_000);

  test('/help opens the help overlay; /budget raises a limit', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await run(rig, '/budget turns +5');
    expect(rig.frame()).toContain('✓ turns limit raised to 25');
    expect(rig.frame()).toContain('1/25');
    await openBar(rig);
    await rig.type('help');
    await rig.press(KEY.enter);
    await rig.waitForFrame('── Help · keys and commands');
    expect(operatorCalls(rig.controller)).toEqual([['extendBudget', 'turns', 5]]);
  });
});

describe('/stop', () => {
  test('/stop at a prompt stops at the next safe point; at a pause it stops at once', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await run(rig, '/stop');
    expect(rig.frame()).toContain('✓ stopping at the next safe point (answer any open prompt first)');
    expect(rig.session.snapshot.done).toBeNull();
    await rig.waitForArmed();
    await rig.press('y');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'stopped' });
    const frame = await rig.waitForFrame('Run finished: stopped.');
    // The notice described a state that is over now: it goes with the run's end.
    expect(frame).not.toContain('stopping at the next safe point');
    expect(normalize(frame).split('\n').slice(-2)).toEqual(['', expect.stringMatching(/^Run finished: stopped\. /)]);
  });

  test('/stop while paused answers the pause with stop', async () => {
    const rig = await openAtOperatorPause({ transcript: WAITING });
    await openBar(rig);
    await rig.type('stop');
    await rig.press(KEY.enter);
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'stopped' });
    // The pause was the safe point: the run is over, and no notice says it is still stopping.
    const frame = await rig.waitForFrame('Run finished: stopped.');
    expect(frame).not.toContain('stopping at the next safe point');
    expect(rig.events.find((e) => e.type === 'session.complete')?.data).toMatchObject({ reason: 'stopped' });
  });

  test('/stop --abort at a prompt ends the run at once, aborted: the waiting call never runs; the console shows where the report is', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await run(rig, '/stop --abort');
    expect(rig.frame()).toContain('✓ aborting:');
    // No key answers the prompt: the abort denies the waiting call itself.
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'aborted' });
    expect(rig.controller.answer).toHaveBeenCalledTimes(1);
    expect(rig.session.snapshot.tools.get('t1')?.decision).toMatchObject({ decision: 'deny', note: 'the operator aborted the run (/stop --abort)' });
    expect(rig.session.snapshot.tools.get('t1')?.result?.status).toBe('denied');
    await rig.waitForFrame('Run finished: aborted.');
    const abort = rig.session.snapshot.abort;
    expect(abort).not.toBeNull();
    await rig.waitForFrame(`aborted: report ${abort!.report.slice(0, 40)}`);
  });
});
