// The dashboard's own keys: help, checkpoint browsing, acknowledging the alert banner,
// the timeline (filter, selection, follow, opening an event), panels, quitting and Ctrl+C.
import { vi, describe, test, expect, beforeAll } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { helpRows } from '../../src/ui/HelpOverlay.js';
import { KEYMAP, keyLabel } from '../../src/ui/keymap.js';
import { cellWidth } from '../../src/ui/text.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless } from '../support/console-rig.js';
import { normalize, open, openAtOperatorPause, openAtPrompt, READ_ONLY_CONTROLLER, renderStore, STAGNANT, STAGNANT_POLICY } from '../support/ui-helpers.js';

const WAITING = `
turns:
  - thought: Look before changing anything.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo looked" } }
  - thought: Now the second step.
    tool_calls:
      - { id: t2, name: shell, args: { command: "echo second" } }
  - final: Looked.
`;

let stagnant: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  stagnant = (await runHeadless(STAGNANT, STAGNANT_POLICY, () => (now += 250))).events;
});

/** The checkpoint panel's rows of a frame: from its title to the timeline. */
function checkpointRows(frame: string): string[] {
  const lines = frame.split('\n');
  const start = lines.findIndex((l) => l.startsWith('──  Checkpoint'));
  const end = lines.findIndex((l) => l.startsWith('── Timeline'));
  return lines.slice(start + 1, end).filter((l) => l.trim() !== '');
}

describe('help', () => {
  test('q closes help (it does not quit from there)', async () => {
    const store = createConsoleStore(stagnant);
    const c = await renderStore(store, { rows: 30 });
    await c.press('?');
    await c.waitForFrame('── Help · keys and commands');
    await c.press('q');
    await c.waitForFrame(/── Timeline/);
    expect(c.frame()).not.toContain('── Help · keys and commands');
    expect(store.getState().overlay).toBeNull();
    expect(c.controller.quit).not.toHaveBeenCalled();
  });

  test('? opens help, which lists every key of the key map; ↓ scrolls; Esc closes', async () => {
    const c = await renderStore(createConsoleStore(stagnant), { rows: 30 });
    await c.press('?');
    await c.waitForFrame('── Help · keys and commands');
    const seen = new Set<string>();
    for (let i = 0; i < helpRows().length; i++) {
      for (const line of c.frame().split('\n')) seen.add(line.trim());
      await c.press(KEY.down);
    }
    for (const line of c.frame().split('\n')) seen.add(line.trim());
    expect(c.frame()).toContain('end of help');
    for (const b of KEYMAP) {
      const shown = [...seen].some((line) => line.startsWith(keyLabel(b.key)) && line.endsWith(b.help)) || [...seen].some((line) => line.includes(` ${keyLabel(b.key)} `) && line.endsWith(b.help));
      expect(shown, `${b.scope}: ${b.key} ${b.help}`).toBe(true);
    }
    expect([...seen].some((l) => l.startsWith('/goal redirect ') && l.endsWith('new objective, criteria kept or typed (--criterion): /goal redirect <text>'))).toBe(true);
    // PgUp and PgDn move a page at a time: a few presses go from the end to the top and back.
    const atEnd = c.frame();
    let presses = 0;
    for (let before = ''; before !== c.frame(); presses++) {
      before = c.frame();
      await c.press(KEY.pageUp);
    }
    expect(c.frame()).not.toBe(atEnd);
    expect(c.frame()).not.toContain('end of help');
    expect(presses).toBeLessThanOrEqual(Math.ceil(helpRows().length / 10) + 1);
    for (let i = 0; i < presses && !c.frame().includes('end of help'); i++) await c.press(KEY.pageDown);
    expect(c.frame()).toContain('end of help');
    // Keys do nothing else while help is open: q does not quit.
    await c.press('q');
    expect(c.controller.quit).not.toHaveBeenCalled();
    await c.press(KEY.escape);
    await c.waitForFrame('── Timeline');
    expect(c.frame()).not.toContain('── Help');
  });

  test.each([[40, 12], [28, 10], [60, 14]])('at %i×%i help wraps every description whole, nothing cut, and ↓ reaches the end', async (columns, rows) => {
    const c = await renderStore(createConsoleStore(stagnant), { columns, rows });
    await c.press('?');
    await c.waitForFrame('── Help');
    // The help rows as they scroll by, one row a press: the first row of each view, then the last view whole.
    const bodyOf = (frame: string) => {
      const lines = frame.split('\n');
      const title = lines.findIndex((l) => l.startsWith('── Help'));
      return lines.slice(title + 1, lines.findIndex((l, i) => i > title && /^(… \d+ more \(↓\)|end of help)/.test(l)));
    };
    const read: string[] = [];
    let shown = c.frame();
    for (let i = 0; i < 400 && !shown.includes('end of help'); i++) {
      read.push(bodyOf(shown)[0]!);
      await c.press(KEY.down);
      shown = c.frame();
    }
    read.push(...bodyOf(shown));
    expect(shown).toContain('end of help');
    for (const line of read) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
    // What scrolled past, as one text: every description is in it, whole, and no row was cut short.
    const text = read.join(' ').replace(/\s+/g, ' ');
    expect(text).not.toContain('…');
    for (const row of helpRows()) if (row.kind === 'key') expect(text, row.text).toContain(row.text.replace(/\s+/g, ' '));
  });
});

describe('checkpoints', () => {
  test('[ and ] browse earlier checkpoints; each shows its diff against the ones before, back to the baseline', async () => {
    const c = await renderStore(createConsoleStore(stagnant), { rows: 34 });
    await c.waitForFrame('#4/4 · iteration 3');
    await c.press('[');
    await c.waitForFrame('#3/4 · iteration 2');
    expect(checkpointRows(c.frame())).toEqual([
      '#3/4 · iteration 2 · NO_OBSERVED_PROGRESS · counter 2/3 · browsing: [ earlier, ] later',
      // the rule behind the browsed verdict
      'why no observed progress: observed.tests.failing stayed at 1, observed.tests.passing stayed at 1;',
      'counter 2/3; claims never reset the counter',
      'observed (measured) observed_progress false       reported (claims) vs #1–#2 claimed_progress true',
      'tests.failing 1 → 1 want ↓ no change              eliminated +the name is wrong',
      'tests.passing 1 → 1 want ↑ no change              remaining  no change',
      'evidence none claimed',
    ]);
    await c.press('[');
    await c.waitForFrame('#2/4 · iteration 1');
    // The first interval is compared with the baseline: what it reported is new, its counter 1.
    expect(checkpointRows(c.frame())).toEqual([
      '#2/4 · iteration 1 · NO_OBSERVED_PROGRESS · counter 1/3 · browsing: [ earlier, ] later',
      'why no observed progress: observed.tests.failing stayed at 1, observed.tests.passing stayed at 1;',
      'counter 1/3',
      // remaining_hypotheses is not a tracked claim here: no claimed progress
      'observed (measured) observed_progress false       reported (claims) vs #1 claimed_progress false',
      'tests.failing 1 → 1 want ↓ no change              eliminated no change',
      'tests.passing 1 → 1 want ↑ no change              remaining  +the greeting is too short',
      'evidence none claimed',
    ]);
    await c.press('[');
    await c.waitForFrame('#1/4 · baseline at the run start');
    expect(checkpointRows(c.frame())).toEqual([
      '#1/4 · baseline at the run start · BASELINE · counter 0/3 · browsing: ] later',
      'why baseline rule: taken at the run start, before the first turn: what the next checkpoint is',
      'compared with (observed.tests.failing first measured at 1, observed.tests.passing first measured at…',
      'observed (measured) observed_progress null        reported (claims) claimed_progress false',
      'tests.failing — → 1 want ↓ baseline               eliminated no change',
      'tests.passing — → 1 want ↑ baseline               remaining  no change',
      'evidence none claimed',
    ]);
    await c.press('['); // the first stays the first
    expect(c.frame()).toContain('#1/4 · baseline at the run start');
    await c.press(']');
    await c.waitForFrame('#2/4 · iteration 1');
    await c.press(']');
    await c.waitForFrame('#3/4 · iteration 2');
    await c.press(']');
    await c.waitForFrame('#4/4 · iteration 3 · NO_OBSERVED_PROGRESS + STAGNATION_DETECTED · counter 3/3 · [ earlier');
    expect(c.frame()).not.toContain('browsing');
  });
});

describe('alerts', () => {
  test('the banner stays until x acknowledges it; the timeline keeps its marks', async () => {
    const c = await renderStore(createConsoleStore(stagnant.slice(0, stagnant.findIndex((e) => e.type === 'session.complete'))), { rows: 34 });
    const banner = ' ⚠ STAGNATION_DETECTED: 3/3 checkpoints without observed progress (turn 3) (claims made, nothing me…';
    await c.waitForFrame(banner);
    await c.press('f'); // other keys leave it
    await c.press(KEY.up);
    expect(c.frame()).toContain(banner);
    await c.press('x');
    expect(c.frame()).not.toContain('STAGNATION_DETECTED: 3/3 checkpoints');
    expect(c.frame()).toMatch(/^! {2}\d+ stagnation\.detected STAGNATION_DETECTED 3\/3 → alert/m);
  });

  test('once the goal is met the banner says the stagnation has cleared', async () => {
    const c = await renderStore(createConsoleStore(stagnant), { rows: 34 });
    const frame = await c.waitForFrame(' ✓ cleared (the goal was met): STAGNATION_DETECTED: 3/3 checkpoints');
    expect(frame).not.toContain('⚠');
  });

  test('a new alert after the acknowledgement brings the banner back', async () => {
    const store = createConsoleStore(stagnant.slice(0, stagnant.findIndex((e) => e.type === 'stagnation.detected') + 1));
    const c = await renderStore(store, { rows: 34 });
    await c.waitForFrame('⚠ STAGNATION_DETECTED');
    await c.press('x');
    expect(c.frame()).not.toContain('⚠');
    store.getState().apply([{ seq: 999, at: 0, session: 'ui-test', type: 'repetition.detected', data: { hash: 'abc123', count: 3, calls: [] } }]);
    await c.waitForFrame(' ⚠ repeated tool call 3× (abc123) · x to acknowledge');
  });
});

describe('timeline', () => {
  test('f filters by type, ↑ selects and stops following, End follows, Enter opens the event', async () => {
    const c = await renderStore(createConsoleStore(stagnant), { rows: 30 });
    await c.waitForFrame('filter activity (f) · 18 events · following (end)');
    for (const filter of ['all', 'tools', 'model', 'checkpoints']) {
      await c.press('f');
      await c.waitForFrame(`filter ${filter} (f)`);
    }
    const rows = () => c.frame().split('\n').filter((l) => /^[ !] {0,3}\d+ \S/.test(l));
    expect(rows().map((r) => r.slice(0, 25))).toEqual([
      '    3 checkpoint.recorded', // the baseline, before the first turn
      '   11 workspace.snapshot ',
      '   13 checkpoint.recorded',
      '   20 checkpoint.recorded',
      '!  27 checkpoint.recorded',
      '!  28 stagnation.detected',
    ]);
    expect(c.frame()).toContain('filter checkpoints (f) · 6 events · following (end)');
    await c.press(KEY.up);
    await c.press(KEY.up);
    await c.waitForFrame('4 of 6 (end: follow)');
    await c.press(KEY.enter);
    await c.waitForFrame('── Event #20 checkpoint.recorded');
    const opened = normalize(c.frame());
    expect(opened).toContain('checkpoint #3 (turn 2): NO_OBSERVED_PROGRESS, counter 2/3');
    expect(opened).toContain('   "checkpoint": {');
    expect(opened).toContain('"eliminated_hypotheses": [');
    expect(opened).toMatch(/lines 1-\d+ of \d+ · ↑\/↓ scroll · esc or enter closes/);
    await c.press(KEY.down);
    await c.waitForFrame(/lines 2-\d+ of/);
    await c.press(KEY.escape);
    await c.waitForFrame('── Timeline');
    await c.press(KEY.end);
    await c.waitForFrame('following (end)');
    await c.press('F');
    await c.waitForFrame('filter model (f)');
  });

  test('Tab shows each panel in turn; the tool panel shows the selected call in full', async () => {
    const c = await renderStore(createConsoleStore(stagnant), { rows: 34 });
    await c.press(KEY.tab);
    await c.waitForFrame('objective   Make the greeting friendlier (achieved, revision 0)');
    await c.press(KEY.tab);
    await c.waitForFrame('No tool call yet.');
    await c.press(KEY.tab);
    await c.waitForFrame('pattern     react: one open-ended step');
    expect(c.frame()).toContain('claim       ✓ verified · node -e "process.exit(0)" → 0');
    await c.press(KEY.shiftTab);
    await c.waitForFrame('No tool call yet.');
  });
});

describe('quitting', () => {
  test('q asks first while a run is live: n or Esc stays, y quits', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.press('q');
    await rig.waitForFrame('Quit while the run is live?');
    await rig.waitForFrame('[y/enter/ctrl+c] quit  [n/esc] stay'); // its keys, once armed
    expect(rig.controller.quit).not.toHaveBeenCalled();
    await rig.press('n');
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.press('q');
    await rig.waitForFrame('Quit while the run is live?');
    await rig.press(KEY.escape);
    await rig.waitForFrame('Approve tool call shell (t1)');
    expect(rig.controller.quit).not.toHaveBeenCalled();
    await rig.press('q');
    await rig.waitForFrame('Quit while the run is live?');
    // A y typed on right after q (qy, 30 ms apart) does not quit: the question arms first, as a prompt does.
    await rig.press('y');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rig.controller.quit).not.toHaveBeenCalled();
    expect(rig.frame()).toContain('Quit while the run is live?');
    // Until it arms, the footer offers only what works: staying.
    const footer = () => rig.frame().trimEnd().split('\n').at(-1)!.trim();
    expect(rig.store.getState().quitArmed).toBe(false);
    expect(footer()).toBe('[n/esc] stay');
    await rig.waitFor(() => rig.store.getState().quitArmed, 'the quit question to arm');
    await rig.waitFor(() => footer() === '[y/enter/ctrl+c] quit  [n/esc] stay', 'the footer to offer quitting');
    // The same key again within a repeat delay: it answers once no repeat of it follows.
    await rig.press('y');
    await rig.waitFor(() => vi.mocked(rig.controller.quit).mock.calls.length > 0, 'y to quit');
    expect(rig.controller.quit).toHaveBeenCalledTimes(1);
    expect(rig.controller.answer).not.toHaveBeenCalled();
  });

  test('the quit prompt names the resume command as this loopdeck was started (npx, a path), not a bare loopdeck', async () => {
    const store = createConsoleStore(stagnant.slice(0, 12));
    const c = await renderStore(store, { resumeCommand: 'npx loopdeck resume' });
    await c.press('q');
    await c.waitForFrame('Quit while the run is live?');
    expect(c.frame()).toContain('its log is kept, and `npx loopdeck resume` continues it later.');
  });

  test('q quits at once when nothing is running: before the start and after the end', async () => {
    const rig = await open({ transcript: WAITING, start: false });
    await rig.press('q');
    expect(rig.controller.quit).toHaveBeenCalledTimes(1);
    const done = await renderStore(createConsoleStore(stagnant));
    await done.press('q');
    expect(done.controller.quit).toHaveBeenCalledTimes(1);
  });

  test('at the resume gate, Enter resumes and q quits at once (nothing runs yet)', async () => {
    const store = createConsoleStore(stagnant.slice(0, 12));
    store.getState().setGate({ kind: 'resume', warnings: [] });
    const confirm = vi.fn(() => store.getState().setGate(null));
    const c = await renderStore(store, { controller: { ...READ_ONLY_CONTROLLER, confirm } });
    await c.waitForFrame('│ Resume this run from its log?');
    expect(c.frame()).toContain('│ [enter] resume  [q] quit');
    await c.press(KEY.enter); // no arming delay: the gate is there before anything runs
    expect(confirm).toHaveBeenCalledTimes(1);
    store.getState().setGate({ kind: 'resume', warnings: [] });
    await c.waitForFrame('│ Resume this run from its log?');
    await c.press('q');
    expect(c.controller.quit).toHaveBeenCalledTimes(1);
    expect(c.frame()).not.toContain('Quit while the run is live?');
  });

  test('the resume gate wraps a long question instead of cutting it', async () => {
    const store = createConsoleStore(stagnant.slice(0, 12));
    const question = 'Resume this run from its log? Goal, budget used and the last checkpoint are shown above.';
    store.getState().setGate({ kind: 'resume', warnings: [] });
    const c = await renderStore(store, { controller: READ_ONLY_CONTROLLER, columns: 60 });
    await c.waitForFrame('│ Resume this run from its log?');
    const box = c.frame().split('\n').filter((l) => l.startsWith('│')).map((l) => l.slice(2, -1).trim());
    expect(box.join(' ')).toContain(question);
  });

  test('warnings before a run starts: every one shown whole; Enter starts the run, q quits', async () => {
    const store = createConsoleStore(stagnant.slice(0, 1));
    const warnings = [
      'loop.yaml: nothing to measure (no `observe` command): every checkpoint will be UNKNOWN and only the agent\'s claims and the verify command judge the run',
      'loop.yaml: workspace.copy is none and /work/app has 3 uncommitted changes: the agent\'s edits will mix with them, and an abort stashes both together',
    ];
    store.getState().setGate({ kind: 'start', warnings });
    const confirm = vi.fn(() => store.getState().setGate(null));
    const c = await renderStore(store, { controller: { ...READ_ONLY_CONTROLLER, confirm } });
    await c.waitForFrame('2 warnings before the run starts. Start it anyway?');
    const box = c.frame().split('\n').filter((l) => l.startsWith('│')).map((l) => l.slice(2, -1).trim());
    const text = box.join(' ').replace(/ {2,}/g, ' ');
    for (const w of warnings) expect(text).toContain(w);
    expect(box.at(-1)).toBe('[enter] start the run  [q] quit');
    await c.press(KEY.enter);
    expect(confirm).toHaveBeenCalledTimes(1);
    store.getState().setGate({ kind: 'start', warnings });
    await c.waitForFrame('Start it anyway?');
    await c.press('q');
    expect(c.controller.quit).toHaveBeenCalledTimes(1);
  });

  test('more warnings than rows: as many as fit, whole, then how many more', async () => {
    const store = createConsoleStore(stagnant.slice(0, 1));
    const warnings = Array.from({ length: 29 }, (_, i) => `agent.yaml:${i + 3}:9: turns[${i}].tool_calls[0]: read_file (c${i}): bad arguments: path: expected string, received number; the engine will refuse this call and tell the agent`);
    store.getState().setGate({ kind: 'start', warnings });
    const c = await renderStore(store, { controller: READ_ONLY_CONTROLLER, columns: 80, rows: 24 });
    await c.waitForFrame('29 warnings before the run starts');
    const frame = c.frame();
    expect(frame.split('\n').length).toBeLessThanOrEqual(24);
    const shown = warnings.filter((w) => frame.includes(w.slice(0, 30)));
    expect(shown.length).toBeGreaterThan(0);
    expect(frame).toMatch(new RegExp(`… and ${29 - shown.length} more warnings; validate lists them all`));
    expect(frame).toContain('[enter] start the run  [q] quit');
  });

  test('Ctrl+C once asks the run to pause at the next safe point; twice quits', async () => {
    const rig = await openAtPrompt({ transcript: WAITING });
    await rig.press(KEY.ctrlC);
    expect(rig.controller.requestPause).toHaveBeenCalledTimes(1);
    expect(rig.controller.quit).not.toHaveBeenCalled();
    await rig.waitForFrame('Pausing at the next safe point; Ctrl+C again quits.');
    // The safe point is the start of the next step: after this call is answered.
    await rig.press('y');
    await rig.waitForFrame('Paused by the operator');
    expect(rig.session.snapshot.pending).toMatchObject({ kind: 'pause', reason: 'operator' });
    expect(rig.session.snapshot.tools.get('t2')).toBeUndefined();
    // Reached: the footer no longer says it is on its way to the pause.
    await rig.waitForFrame('Paused; Ctrl+C again quits.');
    expect(rig.frame()).not.toContain('Pausing at the next safe point');
    await rig.press(KEY.ctrlC);
    expect(rig.controller.quit).toHaveBeenCalledTimes(1);
  });

  test('at 24 columns the footer says so in its short form, whole: pausing, then paused, and that Ctrl+C quits', async () => {
    const rig = await open({ transcript: WAITING, columns: 24, rows: 20 });
    await rig.waitForArmed();
    await rig.press(KEY.ctrlC);
    await rig.waitForFrame('Pausing; ^C quits.');
    expect(rig.frame().split('\n').at(-1)).toMatch(/^Pausing; \^C quits\. ?…?\s*$/);
    await rig.press('y');
    await rig.waitForFrame('Paused; ^C quits.');
    expect(rig.frame().split('\n').at(-1)).toMatch(/^Paused; \^C quits\. ?…?\s*$/);
  });

  test('after a Ctrl+C pause, c continues the run and the next Ctrl+C pauses again', async () => {
    const rig = await openAtOperatorPause({ transcript: WAITING });
    await rig.waitForArmed();
    expect(rig.frame()).toContain('[c] continue  [s] stop');
    await rig.press('c');
    await rig.waitForFrame('Approve tool call shell (t2)');
    expect(rig.frame()).not.toContain('Ctrl+C again quits');
    await rig.press(KEY.ctrlC);
    expect(rig.controller.requestPause).toHaveBeenCalledTimes(2);
    expect(rig.controller.quit).not.toHaveBeenCalled();
  });

  test('s at a pause stops the run', async () => {
    const rig = await openAtOperatorPause({ transcript: WAITING });
    await rig.waitForArmed();
    await rig.press('s');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'stopped' });
    await rig.waitForFrame('Run finished: stopped.');
  });
});

describe('pauses', () => {
  const THREE_TURNS = `
turns:
  - thought: One.
  - thought: Two.
  - final: Three.
`;

  test('a budget pause: the spent gauge stands out; e raises the limit by its increment and continues', async () => {
    // The verifier fails at the spent budget (work that passes would end the run goal_met), then passes.
    const verify = 'n=$(cat .verify-count 2>/dev/null || echo 0); echo $((n+1)) > .verify-count; [ "$n" -ge 1 ]';
    const rig = await open({ transcript: THREE_TURNS, policy: { maxTurns: 1, verify } });
    await rig.waitForFrame('Paused: budget_exceeded:turns');
    await rig.waitForArmed();
    const frame = rig.frame();
    expect(frame).toContain('[e] extend and continue  [c] continue  [s] stop');
    expect(frame).toContain('The turns budget is spent (1 of 1).');
    expect(frame).toMatch(/^turns 100% /m);
    expect(rig.store.getState().session.exhausted).toBe('turns');
    await rig.press('e');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    await rig.waitForFrame('✓ turns limit raised to 11');
    expect(rig.session.snapshot.limits.turns).toBe(11);
    // The gauge follows with the next batch of events.
    await rig.waitForFrame(/ 3\/11 /);
  });

  test('a budget pause: s stops the run as exhausted; c without raising pauses again', async () => {
    const rig = await open({ transcript: THREE_TURNS, policy: { maxTurns: 1, verify: 'node -e "process.exit(1)"' } });
    await rig.waitForFrame('Paused: budget_exceeded:turns');
    await rig.waitForArmed();
    const first = rig.store.getState().session.pending?.seq;
    await rig.press('c');
    await rig.waitFor(() => (rig.store.getState().session.pending?.seq ?? -1) > (first ?? -1), 'the second budget pause');
    // The console says why it paused again and what helps.
    await rig.waitForFrame('✗ the turns budget is still spent, so the run pauses again: e raises it, or /budget turns +N');
    await rig.waitForArmed();
    await rig.press('s');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'exhausted' });
    await rig.waitForFrame('Run finished: exhausted.');
  });

  test('Ctrl+C at a stagnation pause, then c: the pause answered the Ctrl+C, and the run goes on to its end without pausing again', async () => {
    const rig = await open({ transcript: STAGNANT, policy: { ...STAGNANT_POLICY, onDetect: 'pause' }, rows: 34 });
    await rig.waitForFrame('Paused: stagnation');
    await rig.waitForArmed();
    await rig.press(KEY.ctrlC);
    await rig.waitForFrame('Paused; Ctrl+C again quits.');
    expect(rig.controller.quit).not.toHaveBeenCalled();
    await rig.press('c');
    await rig.waitFor(() => rig.events.some((e) => e.type === 'session.complete') || rig.events.filter((e) => e.type === 'session.pause').length > 1, 'the run to end or pause again');
    expect(rig.events.filter((e) => e.type === 'session.pause').map((e) => e.type === 'session.pause' && e.data.reason)).toEqual([expect.stringMatching(/^stagnation/)]);
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  });

  test('a stagnation pause: r opens the bar with /goal redirect; submitting records the revision and continues the run', async () => {
    const rig = await open({ transcript: STAGNANT, policy: { ...STAGNANT_POLICY, onDetect: 'pause' }, rows: 34 });
    await rig.waitForFrame('Paused: stagnation');
    await rig.waitForArmed();
    expect(rig.frame()).toContain('[c] continue  [r] redirect the goal  [s] stop');
    await rig.press('r');
    await rig.waitFor(() => rig.bar() === '/goal redirect', 'the bar to open with /goal redirect');
    await rig.type('Greet in French');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ goal revised (redirect): revision 1');
    // The header follows with the next batch of events.
    // No `c` needed: the redirect answered the pause, and the run goes on to the new goal.
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    await rig.waitForFrame('loopdeck Greet in French [rev 1, achieved]');
  });
});
