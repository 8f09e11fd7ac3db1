// Suspend and resume (Ctrl+Z, `kill -TSTP`, then SIGCONT as `fg` sends it) and NO_COLOR,
// in a real pseudo-terminal read through a terminal emulator. Needs `npm run build`.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeRun, runLog, writeDemoConfig } from '../support/demo-run.js';
import { KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const PROMPT = /Approve tool call (\S+) \((t\d+)\)/;
const terminals: PtyTerminal[] = [];

/** A fresh folder with the demo's loop.yaml and, when `script` is given, that agent transcript instead of the demo's. */
function demoFolder(script?: string): string {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-pty-'));
  if (script !== undefined) writeFileSync(path.join(cwd, 'script.yaml'), script);
  writeDemoConfig(cwd, script !== undefined ? { script: path.join(cwd, 'script.yaml') } : {});
  return cwd;
}

function demo(env: Record<string, string> = {}): PtyTerminal {
  const t = startPty({ args: ['run'], cwd: demoFolder(), cols: 100, rows: 30, env });
  terminals.push(t);
  return t;
}

/** Ends the CLI if it still runs (stopped or not) and removes what its run left. */
async function cleanUp(t: PtyTerminal): Promise<void> {
  await t.close();
  removeRun(t.cwd);
}

afterEach(async () => {
  for (const t of terminals.splice(0)) await cleanUp(t);
});

/** Polls `check` until it holds (or fails after `ms` with `what`). */
async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const armed = (t: PtyTerminal) => t.waitUntil((s) => PROMPT.test(s) && /\[y\] approve/.test(s), 'an armed approval prompt', 20_000);

/** Stops the console with `stop`, checks the terminal was given back, continues it and checks it is back. */
async function suspendAndResume(t: PtyTerminal, stop: () => void): Promise<void> {
  stop();
  await until(() => t.cliState() === 'T', 'the CLI to stop');
  // The restoring bytes were written before the stop; on a loaded machine they may reach the emulator a little later.
  let modes = await t.leftModes();
  for (const deadline = Date.now() + 5_000; (!modes.cursorShown || modes.bracketedPaste) && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    modes = await t.leftModes();
  }
  expect({ cursorShown: modes.cursorShown, bracketedPaste: modes.bracketedPaste }, t.describe('stopped')).toEqual({ cursorShown: true, bracketedPaste: false });
  const stopped = t.ttyModes();
  expect({ icanon: stopped.icanon, echo: stopped.echo, isig: stopped.isig }, stopped.stty).toEqual({ icanon: true, echo: true, isig: true });
  // The frame is taken off the screen while stopped.
  expect(t.screen(), t.describe('stopped')).not.toMatch(PROMPT);

  t.signalCli('SIGCONT');
  await until(() => t.cliState() !== 'T', 'the CLI to continue');
  await armed(t);
  await until(() => !t.ttyModes().icanon, 'raw mode again');
  const back = t.ttyModes();
  expect({ icanon: back.icanon, echo: back.echo, isig: back.isig }, back.stty).toEqual({ icanon: false, echo: false, isig: false });
  expect(t.term.modes.bracketedPasteMode, t.describe('continued')).toBe(true);
}

describe('suspend and resume', { timeout: 60_000 }, () => {
  it('Ctrl+Z and kill -TSTP give the terminal back and stop; after SIGCONT keys work without Enter and Ctrl+C pauses', { retry: 1 }, async () => {
    const t = demo();
    await armed(t);
    await suspendAndResume(t, () => t.press('\u001a'));
    await suspendAndResume(t, () => t.signalCli('SIGTSTP'));

    // Keys act at once (no Enter): `/` opens the command bar, Esc closes it.
    t.press('/');
    await t.waitUntil((s) => /^› \//m.test(s), 'the command bar');
    t.press(KEY.escape);
    await t.waitUntil((s) => !/^› /m.test(s), 'the bar to close');
    // Ctrl+C asks for a pause rather than ending the process.
    t.press(KEY.ctrlC);
    await t.waitFor(/Pausing at the next safe point; Ctrl\+C again quits/);
    expect(t.done).toBe(false);
    t.press('y');
    await t.waitFor('Paused by the operator');
  });
});

describe('a window resized while the console was stopped', { timeout: 60_000 }, () => {
  // Started at an interactive shell, a stopped console is a job the shell has taken the
  // terminal back from: a resize meanwhile signals the shell, not the console. After `fg`
  // the frame is drawn at the size the window has then, not the size it had.
  it('Ctrl+Z, the window resized to 70×20, then fg at the shell: the prompt box spans the new width; and again at 120×36', async () => {
    const t = startPty({ args: ['run'], cwd: demoFolder(), cols: 100, rows: 30, shell: 'job-control' });
    terminals.push(t);
    await armed(t);
    for (const [cols, rows] of [
      [70, 20],
      [120, 36],
    ] as const) {
      const stops = (t.screen().match(/Stopped/g) ?? []).length;
      t.press('\u001a');
      await until(() => t.cliState() === 'T', 'the CLI to stop');
      await t.waitUntil((s) => (s.match(/Stopped/g) ?? []).length > stops, 'the shell to say the job stopped');
      // The resize reaches the terminal at once (the ioctl), and its SIGWINCH the shell, not the stopped job.
      t.resize(cols, rows);
      t.press('fg\r');
      await until(() => t.cliState() !== 'T', 'the CLI to continue');
      const border = `╭${'─'.repeat(cols - 2)}╮`;
      await t.waitUntil((s) => PROMPT.test(s) && s.split('\n').includes(border), `the prompt box drawn ${cols} wide`);
      expect(t.lines().every((row) => row.length <= cols), t.describe()).toBe(true);
    }
  });
});

describe('a key typed while the console was stopped', { timeout: 60_000 }, () => {
  // `fg⏎y` typed at the shell: the y waits in the terminal's input and reaches the console
  // the moment it continues, before its prompt is on screen again.
  // One run serves both tests, in order: its agent makes two shell calls in one turn, so a
  // prompt waits for each.
  let t: PtyTerminal;
  beforeAll(() => {
    const cwd = demoFolder('turns:\n  - tool_calls:\n      - { id: t1, name: shell, args: { command: "echo one" } }\n      - { id: t2, name: shell, args: { command: "echo two" } }\n  - final: Done.\n');
    t = startPty({ args: ['run'], cwd, cols: 100, rows: 30 });
  });
  afterAll(() => cleanUp(t));

  it.each([
    ['Ctrl+Z', (t: PtyTerminal) => t.press('\u001a')],
    ['kill -STOP, which the console never sees', (t: PtyTerminal) => t.signalCli('SIGSTOP')],
  ])('stopped by %s: never answers the prompt the console comes back to; a press once the prompt is armed again does', async (_how, stop) => {
    const shown = await armed(t);
    const id = PROMPT.exec(shown)![2]!;
    // The decisions on this prompt's call.
    const decided = () => {
      const file = runLog(t.cwd);
      if (!file) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"type":"tool.decision"') && line.includes(`"call_id":"${id}"`));
    };
    stop(t);
    await until(() => t.cliState() === 'T', 'the CLI to stop');
    // Typed while it is stopped, as a person does: it stays stopped a while.
    t.press('y');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.signalCli('SIGCONT');
    await until(() => t.cliState() !== 'T', 'the CLI to continue');
    await armed(t);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(decided(), t.describe('continued')).toEqual([]);
    expect(t.screen()).toContain(`(${id})`);
    t.press('y');
    await until(() => decided().length === 1, 'the prompt to be answered by a new press');
    await t.waitForGone(new RegExp(`Approve tool call \\S+ \\(${id}\\)`));
  });
});

describe('NO_COLOR', { timeout: 60_000 }, () => {
  // SGR parameters that set a colour: 30–37, 38;…, 39, 40–47, 48;…, 49, 90–97, 100–107.
  const COLOUR = /\u001b\[(?:[\d;]*;)?(?:3\d|4\d|9[0-7]|10[0-7])(?:;[\d;]*)?m/;

  it('with NO_COLOR set, nothing the console draws sets a colour; without it, colours are drawn', async () => {
    const plain = demo({ NO_COLOR: '1' });
    const coloured = demo();
    await armed(plain);
    await plain.waitFor('Timeline');
    expect(plain.output).toMatch(/Approve tool call/);
    expect(COLOUR.exec(plain.output)?.[0] ?? null, plain.describe()).toBeNull();

    await armed(coloured);
    expect(coloured.output).toMatch(COLOUR);
  });

  it('a TERM without colours (xterm-mono) is drawn without colours too', async () => {
    const mono = demo({ TERM: 'xterm-mono' });
    await armed(mono);
    await mono.waitFor('Timeline');
    expect(COLOUR.exec(mono.output)?.[0] ?? null, mono.describe()).toBeNull();
  });
});
