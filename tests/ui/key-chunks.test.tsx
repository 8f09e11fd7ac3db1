// Keys that arrive in one read (typed fast, key repeat over SSH, tmux send-keys, a paste):
// in a text input each DEL or BS in the chunk deletes the character before the cursor, in
// order with the text around it; outside a text input a chunk is never a hotkey.
import { describe, test, expect } from 'vitest';

import { KEY, operatorCalls, type ConsoleRig } from '../support/console-rig.js';
import { open, openAtPrompt, pendingSeq, WAITING } from '../support/ui-helpers.js';

const DEL = '\u007f';
const BS = '\b';

/** The deny note as the frame shows it, or null when it is not open. */
function note(rig: ConsoleRig): string | null {
  const line = rig
    .frame()
    .split('\n')
    .find((l) => l.includes('note to the agent ›'));
  if (line === undefined) return null;
  return line
    .slice(line.indexOf('note to the agent ›') + 'note to the agent ›'.length)
    .replace(/│\s*$/, '')
    .trim();
}

/** Waits for the prompt to take its keys, then opens the deny note with `d`. */
async function openNote(rig: ConsoleRig): Promise<void> {
  await rig.waitForFrame('Approve tool call shell (t1)');
  await rig.waitForArmed();
  await rig.press('d');
  await rig.waitFor(() => note(rig) === '', 'the deny note to open');
}

async function openBar(rig: ConsoleRig): Promise<void> {
  await rig.waitForFrame('Approve tool call shell (t1)');
  await rig.press('/');
  await rig.waitFor(() => rig.bar() === '/', 'the command bar to open with "/"');
}

describe('the deny note', () => {
  test('two Backspaces in one read delete two characters', async () => {
    const rig = await open({ transcript: WAITING });
    await openNote(rig);
    for (const ch of 'hello') await rig.press(ch);
    await rig.waitFor(() => note(rig) === 'hello', 'the note to read "hello"');
    await rig.press(DEL + DEL); // one chunk: tmux send-keys BSpace BSpace
    await rig.waitFor(() => note(rig) === 'hel', `the note to read "hel" (it reads "${note(rig)}")`);
  });

  test('text and DEL/BS in one chunk are applied in order; Enter denies with what the note shows', async () => {
    const rig = await open({ transcript: WAITING });
    await openNote(rig);
    const seq = pendingSeq(rig);
    await rig.press(`ab${DEL}c`);
    await rig.waitFor(() => note(rig) === 'ac', `the note to read "ac" (it reads "${note(rig)}")`);
    await rig.press(` use pwdd${BS} instead`);
    await rig.waitFor(() => note(rig) === 'ac use pwd instead', `the note to read "ac use pwd instead" (it reads "${note(rig)}")`);
    await rig.press(`${DEL}${DEL}${DEL}${DEL}${DEL}${DEL}${DEL}${DEL}first`); // more Backspaces than one word
    await rig.waitFor(() => note(rig) === 'ac use pwdfirst', `the note to read "ac use pwdfirst" (it reads "${note(rig)}")`);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    await rig.press(KEY.enter);
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'deny', note: 'ac use pwdfirst' }, seq);
  });
});

describe('a key held down types nothing into the input it opened', () => {
  const hold = async (rig: ConsoleRig, key: string, times: number) => {
    for (let i = 0; i < times; i++) {
      rig.pressNow(key);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  };

  test('d held at a prompt opens the deny note empty; typing after it is text, d too', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.waitForArmed();
    await hold(rig, 'd', 12);
    await rig.waitFor(() => note(rig) !== null, 'the deny note to open');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(note(rig)).toBe('');
    for (const ch of 'odd') await rig.press(ch);
    await rig.waitFor(() => note(rig) === 'odd', `the note to read "odd" (it reads "${note(rig)}")`);
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  // A held key repeats after the terminal's repeat delay (250–660 ms), then every 15–100 ms.
  test.each([250, 400, 660])('d held (its first repeat %i ms after the press, then every 30 ms) opens the deny note empty', async (delay) => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.waitForArmed();
    rig.pressNow('d');
    await sleep(delay);
    await hold(rig, 'd', 10);
    await rig.waitFor(() => note(rig) !== null, 'the deny note to open');
    await sleep(700);
    expect(note(rig)).toBe('');
  });

  // The note and the goal often start with the letter that opened them: "do not…", "run…".
  test.each([300, 1000, 2000])('d, then %i ms later "do not run it" typed: the note reads it whole, its first d included', async (pause) => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.waitForArmed();
    rig.pressNow('d');
    await rig.waitFor(() => note(rig) === '', 'the deny note to open');
    await sleep(pause);
    for (const ch of 'do not run it') {
      rig.pressNow(ch);
      await sleep(90);
    }
    await rig.waitFor(() => note(rig) === 'do not run it', `the note to read "do not run it" (it reads "${note(rig)}")`);
  });

  test('d, then d 400 ms later and nothing after it: the note reads "d" once the key is known not to be held', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.waitForArmed();
    rig.pressNow('d');
    await rig.waitFor(() => note(rig) === '', 'the deny note to open');
    await sleep(400);
    rig.pressNow('d');
    await rig.waitFor(() => note(rig) === 'd', `the note to read "d" (it reads "${note(rig)}")`);
  });

  test('/ held opens the command bar with one /', async () => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await hold(rig, '/', 12);
    await rig.waitFor(() => rig.bar() !== null, 'the bar to open');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rig.bar()).toBe('/');
  });
});

describe('the command bar', () => {
  test('a pasted DEL deletes: zz<DEL> inserts one z; Backspaces past the start stop there', async () => {
    const rig = await open({ transcript: WAITING });
    await openBar(rig);
    await rig.type('goal status');
    await rig.press(`zz${DEL}`);
    await rig.waitFor(() => rig.bar() === '/goal statusz', `the bar to read "/goal statusz" (it reads "${rig.bar()}")`);
    await rig.press(`${DEL}${BS}${DEL}`);
    await rig.waitFor(() => rig.bar() === '/goal stat', `the bar to read "/goal stat" (it reads "${rig.bar()}")`);
    await rig.press(KEY.home); // after the leading /
    await rig.press(KEY.home); // the very start
    await rig.press(`${DEL}${DEL}x`); // nothing before the cursor to delete
    await rig.waitFor(() => rig.bar() === 'x/goal stat', `the bar to read "x/goal stat" (it reads "${rig.bar()}")`);
    expect(operatorCalls(rig.controller)).toEqual([]);
  });

  test('DEL in a chunk narrows the open completion list like a Backspace key', async () => {
    const rig = await open({ transcript: WAITING });
    await openBar(rig);
    await rig.press(KEY.tab);
    await rig.waitForFrame('▸ /goal status');
    await rig.type('s');
    await rig.waitForFrame('▸ /stop');
    await rig.press(`${DEL}g`);
    await rig.waitFor(() => rig.bar() === '/g', `the bar to read "/g" (it reads "${rig.bar()}")`);
    await rig.waitForFrame('▸ /goal status');
    expect(rig.frame()).not.toContain('▸ /stop');
    expect(rig.frame()).not.toContain('/stop --abort');
  });
});

describe('outside a text input', () => {
  test('a chunk of prompt letters, Backspaces or q answers nothing and quits nothing', async () => {
    const rig = await openAtPrompt({ transcript: WAITING });
    await rig.press('dy'); // not `d` then `y`
    await rig.press(`${DEL}${DEL}`);
    await rig.press(`n${DEL}`);
    await rig.press('qq');
    await rig.press('\u001b[200~y\u001b[201~'); // a pasted y
    expect(rig.frame()).toContain('[y] approve once');
    expect(note(rig)).toBeNull();
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.controller.quit).not.toHaveBeenCalled();
    // The paste went to the command bar, as text to edit.
    await rig.waitFor(() => rig.bar() === '/y', `the bar to read "/y" (it reads "${rig.bar()}")`);
    await rig.press(KEY.escape);
    await rig.waitFor(() => rig.bar() === null, 'the bar to close');
    // One key at a time still answers.
    const seq = pendingSeq(rig);
    await rig.press('n');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'deny' }, seq);
  });
});

describe('an answer key and the start of an escape sequence in one read', () => {
  // Ink holds back an escape sequence a read ends inside and emits it on its own a moment
  // later; the read is still one read, a chunk, and answers nothing.
  test.each(['y\u001b', 'y\u001b[', 'n\u001b', 'y\u001bO', 'y\u001b\u001b'])('%j at an armed prompt answers nothing; a press after it does', async (read) => {
    const rig = await open({ transcript: WAITING });
    await rig.waitForFrame('Approve tool call shell (t1)');
    await rig.waitForArmed();
    await rig.press(read);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.frame()).toContain('Approve tool call shell (t1)');
    await rig.press('y');
    await rig.waitFor(() => rig.controller.answer.mock.calls.length === 1, 'y pressed alone to answer');
  });
});
