// Input as terminals really send it, read through a real pseudo-terminal and a terminal
// emulator: keys that arrive in one read, escape sequences split across reads (as over
// SSH), bracketed paste. Needs `npm run build` (dist/cli.js).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG, removeRun, runLog, writeDemoConfig } from '../support/demo-run.js';
import { KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';
import { HOLD_MS } from '../../src/ui/terminal-input.js';

const DEMO = ['run', '--config', DEMO_CONFIG];
const PROMPT = /Approve tool call (\S+) \((t\d+)\)/;
const terminals: PtyTerminal[] = [];

/** The demo in a terminal of `cols` × `rows`, closed and cleaned up after the test. */
function demo(cols = 100, rows = 30): PtyTerminal {
  const t = startPty({ args: DEMO, cols, rows });
  terminals.push(t);
  return t;
}

/** The demo with an agent script of its own (`turns:` YAML), in a fresh folder. */
function demoWithScript(turns: string): PtyTerminal {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-pty-'));
  writeFileSync(path.join(cwd, 'script.yaml'), turns);
  writeDemoConfig(cwd, { script: path.join(cwd, 'script.yaml') });
  const t = startPty({ args: ['run'], cols: 100, rows: 30, cwd });
  terminals.push(t);
  return t;
}

/** One turn of two shell calls: the second prompt follows the first call's result at once. */
const TWO_SHELL_CALLS = 'turns:\n  - tool_calls:\n      - { id: t1, name: shell, args: { command: "echo one" } }\n      - { id: t2, name: shell, args: { command: "echo two" } }\n  - final: Done.\n';

/** The run's log events (type and data), once the log exists. */
function logEvents(t: PtyTerminal): Array<{ type: string; data: Record<string, unknown> }> {
  const file = runLog(t.cwd);
  if (!file) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
}

/** Ends the CLI if it still runs and removes what its run left. */
async function cleanUp(t: PtyTerminal): Promise<void> {
  await t.close();
  removeRun(t.cwd);
}

afterEach(async () => {
  for (const t of terminals.splice(0)) await cleanUp(t);
});

async function armedPrompt(t: PtyTerminal): Promise<string> {
  const screen = await t.waitUntil((s) => PROMPT.test(s) && /\[y\] approve/.test(s), 'an armed approval prompt', 20_000);
  return PROMPT.exec(screen)![2]!;
}

/** The command bar's text as the screen shows it, or null when it is closed. */
function bar(screen: string): string | null {
  const line = screen.split('\n').find((l) => /^› /.test(l));
  return line === undefined ? null : line.slice(2).trimEnd();
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('keys as terminals send them', () => {
  // One run at its first prompt serves these two tests, in this order: their keys answer
  // nothing and revise the goal once (in the second).
  describe('at one prompt', () => {
    let t: PtyTerminal;
    beforeAll(() => {
      t = startPty({ args: DEMO, cols: 100, rows: 30 });
    });
    afterAll(() => cleanUp(t));

    it('an arrow key split across two reads (ESC, then [D 50 ms later) moves the cursor and keeps the line', async () => {
      await armedPrompt(t);
      t.press('/');
      await t.waitUntil((s) => bar(s) === '/', 'the bar to open');
      t.press('goal statuXs');
      await t.waitUntil((s) => bar(s) === '/goal statuXs', 'the typed line');
      t.press(KEY.escape);
      await pause(50);
      t.press('[D');
      await pause(300); // past any escape timeout: the bar must still be open
      expect(bar(await t.frame()), t.describe()).toBe('/goal statuXs');
      t.press(KEY.backspace);
      await t.waitUntil((s) => bar(s) === '/goal status', 'Backspace to delete the X left of the cursor');
      // A lone Escape still closes the bar, once nothing follows it.
      t.press(KEY.escape);
      await t.waitUntil((s) => bar(s) === null, 'Escape to close the bar');
      expect(logEvents(t).some((e) => e.type === 'goal.revised')).toBe(false);
    });

    it('a command line and Enter in one write runs; Ctrl+W and Ctrl+U inside the chunk edit first', async () => {
      await armedPrompt(t);
      t.press('/goal add-constraint keep it fast\u0017\u0017small\r');
      await t.waitFor(/goal\.revised +goal revised \(add-constraint\)/);
      await t.waitUntil(() => logEvents(t).some((e) => e.type === 'goal.revised'), 'the revision in the log');
      expect(JSON.stringify(logEvents(t).find((e) => e.type === 'goal.revised')?.data)).toContain('keep small');
      t.press('/goal add-constraint nothing\u0015/goal status\r');
      await t.waitUntil((s) => bar(s) === null && !/add-constraint nothing/.test(s) && /✓ active · revision 1 · /.test(s), 'the bar to run /goal status and close');
      expect(logEvents(t).filter((e) => e.type === 'goal.revised')).toHaveLength(1);
      // Anything after a line break in one write (text, a blank line) is a paste its terminal did not bracket: no line of it runs.
      for (const [written, shown] of [['goal add-constraint foo\rbar', '/goal add-constraint foo bar'], ['goal add-constraint Q2\n\n', '/goal add-constraint Q2']] as const) {
        t.press('/');
        await t.waitUntil((s) => bar(s) === '/', 'the bar to open');
        t.press(written);
        await t.waitUntil((s) => bar(s) === shown, 'the unbracketed paste in the bar, not run');
        await pause(300);
        expect(logEvents(t).filter((e) => e.type === 'goal.revised')).toHaveLength(1);
        t.press(KEY.escape);
        await t.waitUntil((s) => bar(s) === null, 'Escape to close the bar');
      }
      // The prompt is still there: none of those keys answered it.
      expect(t.screen()).toMatch(PROMPT);
    });
  });

  it('approval keys answer only as single presses: a chunk, a held key or a paste never answers', async () => {
    const t = demo();
    const id = await armedPrompt(t);
    t.press('yy');
    t.press('nnnn');
    t.press('\u001b[200~y\u001b[201~');
    // The paste opened the command bar with its text; nothing was answered.
    await t.waitUntil((s) => bar(s) === '/y', 'the paste in the command bar');
    expect(logEvents(t).some((e) => e.type === 'tool.result' || e.type === 'approval.decided')).toBe(false);
    expect(t.screen()).toContain(`(${id})`);
    t.press(KEY.escape);
    await t.waitUntil((s) => bar(s) === null, 'the bar to close');
    // A paste a network stalled in: its start marker, then its rest 1.2 s later (past the
    // time a paste without its end is delivered after); a paste whose start marker was cut.
    for (const [first, wait, rest] of [['\u001b[200~', 1200, 'y\u001b[201~'], ['\u001b[200', 200, '~y\u001b[201~']] as const) {
      t.press(first);
      await pause(wait);
      t.press(rest);
      await t.waitUntil((s) => bar(s) === '/y', 'the late paste in the command bar');
      expect(logEvents(t).some((e) => e.type === 'tool.decision')).toBe(false);
      t.press(KEY.escape);
      await t.waitUntil((s) => bar(s) === null, 'the bar to close');
    }
    t.press('y');
    await t.waitForGone(new RegExp(`Approve tool call \\S+ \\(${id}\\)`));
  });

  it('a mouse report or a device reply types nothing; keys in their extended forms (modifyOtherKeys, CSI u) act as the keys', async () => {
    const t = demo();
    await armedPrompt(t);
    t.press('/goal add-constraint abc def');
    await t.waitUntil((s) => bar(s) === '/goal add-constraint abc def', 'the typed line');
    // A mouse report (mouse mode left on by a program that crashed), split as over SSH, and a cursor position reply.
    t.press('\u001b[<0;10;2');
    await pause(40);
    t.press('0M\u001b[<0;10;20m\u001b[12;40R');
    await pause(300);
    expect(bar(t.screen())).toBe('/goal add-constraint abc def');
    t.press('\u001b[27;5;119~'); // Ctrl+W as xterm's modifyOtherKeys sends it
    await t.waitUntil((s) => bar(s) === '/goal add-constraint abc', 'Ctrl+W to delete a word');
    t.press('\u001b[13;5u'); // Ctrl+Enter in the CSI u form: Enter
    await t.waitFor(/goal\.revised +goal revised \(add-constraint\)/);
  });
});

describe('a held key', () => {
  // Auto-repeat sends the key again and again, one read each, 15–100 ms apart: only the
  // press that started it counts, however many prompts come and arm while it is held.
  it('held y approves the prompt it was pressed at and nothing after: the next prompt waits for a new press', { timeout: 60_000 }, async () => {
    // One turn of two shell calls: the second prompt comes and arms while y is still held.
    const t = demoWithScript(TWO_SHELL_CALLS);
    const first = await armedPrompt(t);
    // The operator's answers.
    const decided = () => logEvents(t).filter((e) => e.type === 'tool.decision' && e.data.by === 'operator');
    let next: string | null = null;
    const stopAt = Date.now() + 20_000;
    // Held until the next prompt is on screen and armed, and one second more.
    for (let heldAfter = 0; heldAfter < 1000 && Date.now() < stopAt; ) {
      t.press('y');
      await pause(33);
      if (next === null) {
        const shown = PROMPT.exec(t.screen());
        if (shown && shown[2] !== first && /\[y\] approve/.test(t.screen())) next = shown[2]!;
      } else heldAfter += 33;
    }
    expect(next, t.describe()).not.toBeNull();
    await pause(300);
    expect(decided().map((e) => [e.data.call_id, e.data.decision, e.data.by])).toEqual([[first, 'approve', 'operator']]);
    expect(t.screen()).toContain(`(${next})`);
    // Released, then pressed again: a press.
    t.press('y');
    await t.waitUntil(() => decided().length === 2, 'the second prompt to be answered');
    expect(decided()[1]!.data).toMatchObject({ call_id: next, decision: 'approve', by: 'operator' });
  });

  // A terminal repeats a held key only after its repeat delay (X11: 660 ms): by then the
  // next prompt may be on screen and armed, and the first repeat looks like a new press.
  // The scenario needs the next prompt armed within HOLD_MS of the press, which a machine
  // loaded by other processes may miss: then the test runs once more, in a new run.
  it.each([33, 200])('held through the repeat delay, then repeating every %i ms: no repeat after the next prompt armed answers it; a press after it does', { timeout: 60_000, retry: 1 }, async (every) => {
    // One turn of two shell calls: the second prompt follows the first call's result at once.
    const t = demoWithScript(TWO_SHELL_CALLS);
    const first = await armedPrompt(t);
    const decided = () => logEvents(t).filter((e) => e.type === 'tool.decision' && e.data.by === 'operator');
    t.press('y');
    const pressedAt = Date.now();
    const screen = await t.waitUntil((s) => {
      const shown = PROMPT.exec(s);
      return shown !== null && shown[2] !== first && /\[y\] approve/.test(s);
    }, 'the next prompt, armed', 20_000);
    const next = PROMPT.exec(screen)![2]!;
    // The scenario needs the next prompt within a repeat delay of the press (HOLD_MS, 2 s).
    expect(Date.now() - pressedAt).toBeLessThan(HOLD_MS);
    for (const until = Date.now() + 1200; Date.now() < until; ) {
      t.press('y');
      await pause(every);
    }
    await pause(700);
    expect(decided().map((e) => [e.data.call_id, e.data.decision, e.data.by])).toEqual([[first, 'approve', 'operator']]);
    expect(t.screen()).toContain(`(${next})`);
    // Released, and pressed again after a pause: no repeat follows, so it is a press.
    t.press('y');
    await t.waitUntil(() => decided().length === 2, 'the second prompt to be answered');
    expect(decided()[1]!.data).toMatchObject({ call_id: next, decision: 'approve', by: 'operator' });
  });
});

describe('bracketed paste', () => {
  it('is turned on while the console runs and off after; a multi-line paste is one line in the bar, never submitted', async () => {
    const t = demo();
    await armedPrompt(t);
    expect(t.term.modes.bracketedPasteMode).toBe(true);
    t.press('/');
    await t.waitUntil((s) => bar(s) === '/', 'the bar to open');
    t.press('\u001b[200~goal add-constraint keep\r\nthe API\rstable\r\u001b[201~');
    await t.waitUntil((s) => bar(s) === '/goal add-constraint keep the API stable', 'the paste on one line');
    expect(t.screen()).not.toContain('[200~');
    expect(logEvents(t).some((e) => e.type === 'goal.revised')).toBe(false);
    t.press(KEY.enter);
    await t.waitFor(/goal\.revised +goal revised \(add-constraint\)/);
    // A paste split across reads, with the bar closed: the bar opens with all of it.
    t.press('\u001b[200~/goal add-constraint one');
    await pause(40);
    t.press(' two\u001b[201~');
    await t.waitUntil((s) => bar(s) === '/goal add-constraint one two', 'the split paste in the bar');
    // A paste whose rest and line break come 1.2 s late (the network stalled): text, never a submit.
    t.press('\u001b[200~ three');
    await pause(1200);
    t.press(' four\r?\u001b[201~');
    await t.waitUntil((s) => bar(s) === '/goal add-constraint one two three four ?', 'the late rest in the bar');
    expect(logEvents(t).filter((e) => e.type === 'goal.revised')).toHaveLength(1);
    t.press(KEY.escape);
    await t.waitUntil((s) => bar(s) === null, 'the bar to close');
    t.press('q');
    await t.waitFor('│ [y/enter/ctrl+c] quit'); // armed: the dialog's own key row (the footer lists the keys at once)
    t.press('y');
    await t.exit;
    expect((await t.leftModes()).bracketedPaste).toBe(false);
  });
});

describe('escape sequences cut or unfinished next to keys and pastes', () => {
  it('an answer key and the start of an escape sequence in one write answer nothing; y alone then does', async () => {
    const t = demo();
    const id = await armedPrompt(t);
    for (const write of ['y\u001b', 'y\u001b[', 'n\u001b']) {
      t.press(write);
      await pause(400);
      expect(logEvents(t).some((e) => e.type === 'tool.decision'), JSON.stringify(write)).toBe(false);
      expect(t.screen()).toContain(`(${id})`);
    }
    await pause(HOLD_MS); // past the Escape before it: y is a press of its own
    t.press('y');
    await t.waitUntil(() => logEvents(t).some((e) => e.type === 'tool.decision' && e.data.by === 'operator'), 'y alone to answer');
  });

  it("a paste's end marker cut after ESC or ESC [ with its rest 250 ms late ends the paste there; pasted text ending in an unfinished sequence ends at its marker", async () => {
    const t = demo();
    await armedPrompt(t);
    for (const cut of [1, 2, 3]) {
      t.press('/');
      await t.waitUntil((s) => bar(s) === '/', 'the bar to open');
      const sent = Date.now();
      t.press(`\u001b[200~goal status${'\u001b[201~'.slice(0, cut)}`);
      await pause(250);
      t.press('\u001b[201~'.slice(cut));
      await t.waitUntil((s) => bar(s) === '/goal status', `the paste cut after ${cut} in the bar`);
      expect(Date.now() - sent, 'the paste delivered by its marker, not the idle time').toBeLessThan(900);
      t.press(KEY.escape);
      await t.waitUntil((s) => bar(s) === null, 'the bar to close');
    }
    for (const end of ['\u001b[', '\u001b[1;5', '\u001bO', '\u001b\u001b']) {
      t.press('/');
      await t.waitUntil((s) => bar(s) === '/', 'the bar to open');
      t.press(`\u001b[200~goal add-constraint x${end}\u001b[201~`);
      await t.waitUntil((s) => bar(s) === '/goal add-constraint x', `the paste ending in ${JSON.stringify(end)} in the bar`);
      t.press(KEY.escape);
      await t.waitUntil((s) => bar(s) === null, 'the bar to close');
    }
    t.press('/');
    await t.waitUntil((s) => bar(s) === '/', 'the bar to open');
    t.press('\u001b[200~goal add-constraint end\u001b[\u001b[201~');
    await pause(300);
    t.press(KEY.enter);
    await t.waitFor(/goal\.revised +goal revised \(add-constraint\)/);
  });
});
