// The terminal cursor at the caret of the focused field, after every frame the console
// writes while the run is live (the clock ticking, events arriving, an alert shown and
// acknowledged), in the command bar and in the deny note; and a command bar scrolled
// through a line wider than itself keeps the caret on a character shown, never on a `…`.
// An input method opens its window where the cursor is. A pseudo-terminal and a terminal
// emulator; needs `npm run build`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeRun, writeDemoConfig } from '../support/demo-run.js';
import { KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const terminals: PtyTerminal[] = [];

/** Ends the CLI if it still runs and removes its folder and the temporary workspace copy its run made. */
async function cleanUp(t: PtyTerminal): Promise<void> {
  await t.close();
  removeRun(t.cwd);
}

afterEach(async () => {
  for (const t of terminals.splice(0)) await cleanUp(t);
});

/** Where the cursor is after a frame, whether it shows, and the row it is on. */
interface Sample {
  x: number;
  y: number;
  shown: boolean;
  row: string;
}

function sample(t: PtyTerminal): Sample {
  const buffer = t.term.buffer.active;
  return { x: buffer.cursorX, y: buffer.cursorY, shown: t.cursorShown, row: buffer.getLine(buffer.viewportY + buffer.cursorY)?.translateToString(true) ?? '' };
}

/**
 * Samples the cursor after every frame until `enough(samples, screen)` holds.
 * @returns the samples, one per read of output that ended outside a frame
 */
async function sampleFrames(t: PtyTerminal, enough: (samples: Sample[], screen: string) => boolean, what: string): Promise<Sample[]> {
  const samples: Sample[] = [];
  const stop = t.onFrame(() => samples.push(sample(t)));
  try {
    await t.waitUntil((screen) => enough(samples, screen), what, 60_000);
  } finally {
    stop();
  }
  return samples;
}

/** A run that goes on by itself for several seconds: a shell call a turn (allowed), a checkpoint a turn, a stagnation alert after two. */
function liveRun(): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-caret-'));
  mkdirSync(path.join(dir, 'ws'));
  writeFileSync(path.join(dir, 'ws', 'README.md'), 'nothing changes here\n');
  const turns = Array.from({ length: 24 }, (_, i) => `  - tool_calls: [{ id: s${i + 1}, name: shell, args: { command: "sleep 0.${30 + i}" } }]`);
  writeFileSync(path.join(dir, 'script.yaml'), `turns:\n${turns.join('\n')}\n  - final: done\n`);
  const file = path.join(dir, 'loop.yaml');
  writeFileSync(
    file,
    [
      'goal: { objective: keep the cursor at the caret }',
      'agent: { kind: scripted, script: script.yaml }',
      'workspace: { path: ws, copy: temp }',
      'budget: { max_iterations: 40, max_tool_calls: 40 }',
      'checkpoint: { every_iterations: 1 }',
      'observe: [{ name: files, command: "ls | wc -l", parser: regex, pattern: "(?<count>\\\\d+)" }]',
      'progress: { observed: [{ signal: observed.files.count, direction: increase }] }',
      'stagnation: { checkpoints_without_observed_progress: 2, on_detect: alert }',
      'verify: [{ command: "true" }]',
      'approval: { default: allow }',
      '',
    ].join('\n'),
  );
  return { dir, file };
}

/** The demo's loop.yaml with absolute paths: its first shell call waits for approval. */
function demo(): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-caret-'));
  return { dir, file: writeDemoConfig(dir) };
}

/** Starts `run` in a terminal of `cols` × `rows`, closed and cleaned up after the test. */
function start(run: { dir: string; file: string }, cols = 80, rows = 24): PtyTerminal {
  const t = launch(run, cols, rows);
  terminals.push(t);
  return t;
}

/** Starts `run` in a terminal of `cols` × `rows` (the caller closes it). */
function launch(run: { dir: string; file: string }, cols = 80, rows = 24): PtyTerminal {
  return startPty({ args: ['run', '--config', run.file], cwd: run.dir, cols, rows });
}

/** The samples not at the caret (`x`, `y`) with the cursor shown. */
const astray = (samples: Sample[], x: number, y: number) => samples.filter((s) => !(s.shown && s.x === x && s.y === y));

describe('the terminal cursor at the caret, frame after frame', { timeout: 180_000 }, () => {
  it('the command bar open while the run goes on: every frame (clock, events, an alert, after it is acknowledged) leaves the cursor at the caret', async () => {
    const t = start(liveRun());
    await t.waitFor(/react · /, 60_000);
    t.press('/');
    await t.waitUntil((s) => /^› \/\s*$/m.test(s), 'the command bar');
    t.press('abc');
    await t.waitUntil((s) => /^› \/abc\s*$/m.test(s), 'the typed text');
    // The bar is the last row of the frame (one row above the terminal's last): "› /abc", the caret after it.
    const caret = { x: 6, y: 22 };
    const firstPart = await sampleFrames(t, (samples, screen) => samples.length >= 30 && /STAGNATION_DETECTED/.test(screen) && samples.filter((s) => s.row.startsWith('› /abc')).length >= 30, 'frames with the alert shown');
    expect(astray(firstPart, caret.x, caret.y), `${firstPart.length} frames${t.describe()}`).toEqual([]);

    // Acknowledged (x, with the bar closed), then the bar again.
    t.press(KEY.escape);
    await t.waitUntil((s) => !/^› /m.test(s), 'the bar to close');
    t.press('x');
    await t.waitUntil((s) => !/x to acknowledge/.test(s), 'the alert acknowledged');
    t.press('/');
    await t.waitUntil((s) => /^› \/\s*$/m.test(s), 'the command bar again');
    t.press('abc');
    await t.waitUntil((s) => /^› \/abc\s*$/m.test(s), 'the typed text again');
    const secondPart = await sampleFrames(t, (samples, screen) => samples.length >= 20 || /Run finished/.test(screen), 'frames after the acknowledgement');
    expect(secondPart.length, t.describe()).toBeGreaterThan(5);
    expect(astray(secondPart, caret.x, caret.y), `${secondPart.length} frames${t.describe()}`).toEqual([]);
  });

  // One run at its first prompt (80×24) serves this test and the next, in order: the note
  // is closed without an answer, then the command bar is used.
  describe('at one approval prompt', () => {
    let t: PtyTerminal;
    beforeAll(() => {
      t = launch(demo(), 80, 24);
    });
    afterAll(() => cleanUp(t));

    it('the deny note open at an approval prompt: every frame (the clock, the countdown) leaves the cursor at its caret', async () => {
      await t.waitUntil((s) => /\[d\] deny with note/.test(s), 'an armed approval prompt', 60_000);
      t.press('d');
      await t.waitFor('note to the agent ›');
      t.press('later');
      const screen = await t.waitUntil((s) => /note to the agent › later/.test(s), 'the typed note');
      const y = screen.split('\n').findIndex((l) => l.includes('note to the agent › later'));
      // "│ " then the prompt (20 cells) and the text (5 cells).
      const caret = { x: 2 + 20 + 5, y };
      // Three seconds of the clock and the countdown.
      const started = Date.now();
      const samples = await sampleFrames(t, () => Date.now() - started > 3_000, 'three seconds of frames');
      expect(samples.length, t.describe()).toBeGreaterThan(2);
      expect(astray(samples, caret.x, caret.y), `${samples.length} frames${t.describe()}`).toEqual([]);
      // Closed without an answer, for the next test.
      t.press(KEY.escape);
      await t.waitUntil((s) => !/note to the agent ›/.test(s), 'the note to close');
    });

    it('a command bar line wider than the bar, 80×24: End, then Left step by step and Right from Home: the cursor is on the character at the caret, never on a "…"', async () => {
      await wideLine(t, 80);
    });
  });
});

/** The character under the cursor, and the cursor's column. */
function underCursor(t: PtyTerminal): { x: number; char: string } {
  const buffer = t.term.buffer.active;
  const line = buffer.getLine(buffer.viewportY + buffer.cursorY);
  // A cell never written reads '', one written with a space ' ': both are a blank.
  return { x: buffer.cursorX, char: line?.getCell(buffer.cursorX)?.getChars() || ' ' };
}

/**
 * Pastes a command line wider than the bar at `t`'s armed prompt, then checks the character
 * under the cursor after End, each Left and each Right from Home.
 */
async function wideLine(t: PtyTerminal, cols: number): Promise<void> {
  await t.waitUntil((s) => /\[y\] approve/.test(s), 'an armed approval prompt', 60_000);
  const letters = 'abcdefghij'.repeat(10);
  const text = `/goal add-constraint ${letters}名前`;
  t.press('/');
  await t.waitUntil((s) => /^› \/\s*$/m.test(s), 'the command bar');
  // Pasted, as a terminal sends a paste: one write.
  t.press(`\u001b[200~${text.slice(1)}\u001b[201~`);
  await t.waitUntil((s) => /名前\s*$/m.test(s), 'the end of the line');
  const clusters = Array.from(text);
  let caret = clusters.length;
  const check = async (what: string) => {
    await t.frame();
    await t.waitUntil(() => t.cursorShown, `${what}: the cursor shown`, 5_000);
    const at = underCursor(t);
    const want = clusters[caret] ?? ' ';
    expect(at.char, `${what}, caret ${caret}${t.describe()}`).toBe(want);
    expect(at.x, `${what}${t.describe()}`).toBeLessThan(cols);
  };
  await check('End');
  for (let i = 0; i < 8; i++) {
    t.press(KEY.left);
    caret--;
    await t.waitUntil(() => underCursor(t).char === clusters[caret], `Left ${i + 1}: the caret on ${clusters[caret]}`, 5_000).catch(() => undefined);
    await check(`Left ${i + 1}`);
  }
  t.press('\u001b[H'); // Home: after the leading /
  caret = 1;
  await t.waitUntil(() => underCursor(t).char === 'g', 'Home', 5_000).catch(() => undefined);
  await check('Home');
  for (let i = 0; i < cols + 4; i++) {
    t.press(KEY.right);
    caret++;
    await t.waitUntil(() => underCursor(t).char === (clusters[caret] ?? ' '), `Right ${i + 1}`, 5_000).catch(() => undefined);
    await check(`Right ${i + 1}`);
  }
}

describe('a command bar line wider than the bar', { timeout: 180_000 }, () => {
  it('40×12: End, then Left step by step and Right from Home: the cursor is on the character at the caret, never on a "…"', async () => {
    await wideLine(start(demo(), 40, 12), 40);
  });
});
