// The console's first screen in a real terminal: `run`, `resume` and `replay` write the
// frame's outline (title, goal, run id, preparing…) before React and Ink are loaded, and
// Ink's first frame takes its rows over: no full clear, no copy of the outline in the
// scrollback, no row of it left on screen. Hostile goal text, a broken loop.yaml,
// NO_COLOR, a terminal too small. A pseudo-terminal and a terminal emulator; needs
// `npm run build`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import xterm from '@xterm/headless';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoConfig } from '../support/demo-run.js';
import { childEnv, CLI, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const BSU = '\u001b[?2026h';
const ESU = '\u001b[?2026l';
const CLEARS = ['\u001b[2J', '\u001b[3J', '\u001bc'];
const COLS = 100;
const ROWS = 30;
/** What the terminal showed before the CLI started: a shell's earlier lines, the cursor on the last row. */
const EARLIER = Array.from({ length: ROWS + 5 }, (_, i) => `$ earlier line ${i}`).join('\r\n') + '\r\n';
const terminals: PtyTerminal[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const t of terminals.splice(0)) await t.close();
});
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-first-'));
  dirs.push(dir);
  return dir;
}

/** The demo's loop.yaml in `dir` with absolute paths, its objective replaced when given. */
function config(dir: string, objective?: string): string {
  return writeDemoConfig(dir, { objective });
}

/**
 * The environment of a CLI started in `dir`: its temporary files (the run's copy of the
 * workspace) go there too, and so are removed with it, even when the test ends the CLI
 * before its log names the copy.
 */
function inside(dir: string, env: Record<string, string> = {}): Record<string, string> {
  return { TMPDIR: dir, ...env };
}

/** Starts the CLI in a terminal that already shows a shell's earlier lines. */
function start(args: string[], options: { cwd?: string; env?: Record<string, string>; cols?: number; rows?: number } = {}): PtyTerminal {
  const cwd = options.cwd ?? tempDir();
  const t = startPty({ args, cwd, cols: options.cols ?? COLS, rows: options.rows ?? ROWS, env: inside(cwd, options.env) });
  // Written before any output of the CLI reaches the emulator (that arrives in a later tick).
  t.term.write(EARLIER);
  terminals.push(t);
  return t;
}

/** A fresh emulator fed the earlier lines and `output`: its screen and everything it holds. */
async function emulate(output: string, cols = COLS, rows = ROWS): Promise<{ screen: string[]; history: string[]; wrapped: number[] }> {
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 5000 });
  await new Promise<void>((resolve) => term.write(EARLIER + output, resolve));
  const buffer = term.buffer.active;
  const line = (y: number) => buffer.getLine(y)?.translateToString(true) ?? '';
  const screen = Array.from({ length: rows }, (_, y) => line(buffer.viewportY + y));
  const history = Array.from({ length: buffer.length }, (_, y) => line(y));
  const wrapped = Array.from({ length: rows }, (_, y) => y).filter((y) => buffer.getLine(buffer.viewportY + y)?.isWrapped);
  term.dispose();
  return { screen, history, wrapped };
}

/** The output before Ink's first frame (the outline), and up to the end of that frame. */
function split(output: string): { outline: string; firstFrame: string } {
  const begin = output.indexOf(BSU);
  const end = output.indexOf(ESU, begin);
  expect(begin, `no Ink frame in ${JSON.stringify(output.slice(0, 400))}`).toBeGreaterThanOrEqual(0);
  return { outline: output.slice(0, begin), firstFrame: output.slice(0, end + ESU.length) };
}

/**
 * The screen after each frame Ink wrote (each synchronized update) in `output`, in order,
 * in one emulator fed the earlier lines first.
 */
async function frameScreens(output: string, cols = COLS, rows = ROWS): Promise<string[][]> {
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 5000 });
  const write = (text: string) => new Promise<void>((resolve) => term.write(text, resolve));
  await write(EARLIER);
  const screens: string[][] = [];
  let from = 0;
  for (let end = output.indexOf(ESU); end >= 0; end = output.indexOf(ESU, from)) {
    await write(output.slice(from, end + ESU.length));
    from = end + ESU.length;
    const buffer = term.buffer.active;
    screens.push(Array.from({ length: rows }, (_, y) => buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? ''));
  }
  term.dispose();
  return screens;
}

/**
 * Every frame Ink wrote shows the title row `header` once; the frames before the run's
 * session.start (the state row still `- · …`: no pattern yet) are there and show it too.
 * @returns how many frames came before session.start
 */
async function headerInEveryFrame(output: string, header: RegExp): Promise<number> {
  const screens = await frameScreens(output);
  expect(screens.length).toBeGreaterThan(0);
  let before = 0;
  for (const [i, screen] of screens.entries()) {
    const titles = screen.filter((l) => l.startsWith('loopdeck'));
    expect(titles, `frame ${i}:\n${screen.join('\n')}`).toHaveLength(1);
    expect(titles[0], `frame ${i}:\n${screen.join('\n')}`).toMatch(header);
    if (screen.some((l) => l.startsWith('- · '))) before += 1;
  }
  return before;
}

/**
 * What a terminal that keeps an erased screen in its scrollback would keep: tmux (its
 * `scroll-on-clear`, on by default) and PuTTY move the screen into the scrollback when the
 * whole of it is erased, by an erase of the display from the top-left corner (`ESC[J`
 * there) or of all of it (`ESC[2J`); xterm.js erases it only. Records, in `term`, the rows
 * such a terminal would have kept, and lets xterm.js erase as it does.
 */
function keptOnClear(term: InstanceType<typeof xterm.Terminal>): string[] {
  const kept: string[] = [];
  term.parser.registerCsiHandler({ final: 'J' }, (params) => {
    const mode = typeof params[0] === 'number' ? params[0] : 0;
    const buffer = term.buffer.active;
    if (mode === 2 || (mode === 0 && buffer.cursorX === 0 && buffer.cursorY === 0)) {
      for (let y = 0; y < term.rows; y++) kept.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    }
    return false;
  });
  return kept;
}

/** Whether tmux can be run here (the repro of a terminal that keeps an erased screen). */
function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const count = (lines: string[], pattern: RegExp) => lines.filter((l) => pattern.test(l)).length;

/** Every earlier line is still there exactly once, in order, above what the CLI drew. */
function earlierKept(history: string[]): void {
  const earlier = history.filter((l) => l.startsWith('$ earlier line '));
  expect(earlier).toEqual(EARLIER.trimEnd().split('\r\n'));
}

describe('the first screen in a real terminal', { timeout: 120_000 }, () => {
  it('run: the outline (title, goal, preparing…) comes first, at the cursor; Ink takes its rows over without a clear or a copy', async () => {
    const dir = tempDir();
    const t = start(['run', '--config', config(dir)], { cwd: dir });
    await t.waitFor(/loopdeck Names with accents must survive the payload round trip +run \S+/, 60_000);
    await t.waitFor('Timeline');
    // The run has started (its session.start is folded: the pattern shows).
    await t.waitFor(/react · /, 60_000);
    const { outline, firstFrame } = split(t.output);
    const [run] = readdirSync(path.join(dir, '.loopdeck/runs'));
    const header = new RegExp(`^loopdeck Names with accents must survive the payload round trip +run ${run}$`);

    // The outline: plain writes, the header's colours, at the bottom where the cursor was;
    // the run id is the one the run got.
    expect(outline).toContain('\u001b[36mloopdeck');
    const before = await emulate(outline);
    expect(before.screen[ROWS - 3]).toBe('$ earlier line 34');
    expect(before.screen[ROWS - 2]).toMatch(header);
    expect(before.screen[ROWS - 1]).toBe('preparing…');
    earlierKept(before.history);

    // From Ink's first frame on, the header keeps the goal and the run id the outline
    // showed, also before the run is prepared: they never go away and come back.
    expect(await headerInEveryFrame(t.output, header)).toBeGreaterThan(0);

    // Ink's first frame erases the outline in its own write, inside its synchronized update:
    // no moment shows neither.
    expect(firstFrame.slice(outline.length)).toMatch(/^\u001b\[\?2026h(\u001b\[\?25l)?\r\u001b\[2K\u001b\[1A\u001b\[2K\S/);
    // Ink's first frame: the outline gone from the screen and from the scrollback.
    const first = await emulate(firstFrame);
    expect(first.screen.join('\n')).toContain('Timeline');
    expect(count(first.history, /preparing…/)).toBe(0);
    expect(count(first.history, /^loopdeck /)).toBe(1);
    earlierKept(first.history);

    // And so it stays: one header, no outline, nothing cleared.
    const history = t.history().split('\n');
    expect(count(history, /preparing…/), t.describe()).toBe(0);
    expect(count(history, /^loopdeck /), t.describe()).toBe(1);
    earlierKept(history);
    for (const clear of CLEARS) expect(t.output).not.toContain(clear);
  });

  it('run at the top of the screen (a new terminal, or after `clear`): nothing of the outline is kept in the scrollback, even by a terminal that keeps an erased screen', async () => {
    const dir = tempDir();
    // No earlier lines: the outline stands on the first rows, where erasing "from here down" erases the whole screen.
    const t = startPty({ args: ['run', '--config', config(dir)], cwd: dir, cols: COLS, rows: ROWS, env: inside(dir) });
    terminals.push(t);
    const kept = keptOnClear(t.term);
    await t.waitFor('Timeline', 60_000);
    await t.waitFor(/react · /, 60_000);
    const { outline } = split(t.output);
    const before = await emulate(outline, COLS, ROWS);
    expect(before.history.filter((l) => l.includes('preparing…')), 'the outline was drawn').toHaveLength(1);
    // The rows erased as a whole screen: what such a terminal would keep above the console.
    expect(kept.filter((l) => l !== ''), 'rows a terminal with scroll-on-clear keeps in its scrollback').toEqual([]);
    const history = t.history().split('\n');
    expect(count(history, /preparing…/), t.describe()).toBe(0);
    expect(count(history, /^loopdeck /), t.describe()).toBe(1);
    expect(history[0], t.describe()).toMatch(/^loopdeck /);
  });

  it.runIf(hasTmux())('run in a new tmux window: the scrollback stays empty (no copy of the outline)', async () => {
    const dir = tempDir();
    const file = config(dir);
    const socket = `loopdeck-first-${process.pid}-${Date.now()}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env: childEnv() });
    tmux('new-session', '-d', '-s', 'first', '-x', '80', '-y', '24', `cd ${JSON.stringify(dir)} && TMPDIR=${JSON.stringify(dir)} ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run --config ${JSON.stringify(file)}; sleep 60`);
    try {
      const until = Date.now() + 60_000;
      let screen = '';
      while (!/react · /.test(screen) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        screen = tmux('capture-pane', '-p', '-t', 'first');
      }
      expect(screen).toMatch(/react · /);
      const all = tmux('capture-pane', '-p', '-S', '-', '-E', '-', '-t', 'first');
      expect(tmux('display', '-p', '-t', 'first', '#{history_size}').trim(), all).toBe('0');
      expect(count(all.split('\n'), /preparing…/), all).toBe(0);
    } finally {
      tmux('kill-server');
    }
  });

  it('hostile goal text in loop.yaml: escape sequences shown as text, joined emoji split (what joined them escaped), cut to the width', async () => {
    const dir = tempDir();
    const hostile = `\u001b]52;c;aGVsbG8=\u0007\u001b[2J\u001b[H\r fake 👨‍👩‍👧‍👦 family 👍🏽 中文字 ${'长'.repeat(100)} end`;
    const t = start(['run', '--config', config(dir, hostile)], { cwd: dir });
    await t.waitFor('Timeline', 60_000);
    const { outline, firstFrame } = split(t.output);
    // Nothing of the goal acts on the terminal: no OSC, no BEL, no clear, no cursor move.
    expect(outline).not.toMatch(/\u001b\]|\u0007|\u001b\[2J|\u001b\[H/);
    const before = await emulate(outline);
    const [title, preparing] = before.screen.slice(-2);
    expect(title).toMatch(/^loopdeck \^\[\]52;c;aGVsbG8=\^G\^\[\[2J\^\[\[H\^M fake 👨\\u\{200d\}👩\\u\{200d\}👧\\u\{200d\}… *run \S+$/);
    expect(preparing).toBe('preparing…');
    expect(before.wrapped).toEqual([]);
    // The console's header carries the same goal from its first frame.
    await headerInEveryFrame(t.output, /^loopdeck \^\[\]52;c;aGVsbG8=\^G\^\[\[2J\^\[\[H\^M fake 👨\\u\{200d\}👩\\u\{200d\}👧\\u\{200d\}… *run \S+$/);
    const first = await emulate(firstFrame);
    // The goal once, in the console's header: no copy of the outline left.
    expect(count(first.history, /preparing…/)).toBe(0);
    expect(count(first.history, /aGVsbG8/)).toBe(1);
    earlierKept(first.history);
    for (const clear of CLEARS) expect(t.output).not.toContain(clear);
  });

  it('a loop.yaml the outline cannot read: no goal in it, and the error replaces it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'loop.yaml');
    writeFileSync(file, 'goal: [unclosed\n\u0000\u001b[2J garbage: {\n');
    const t = start(['run', '--config', file], { cwd: dir });
    const exit = await t.exit;
    expect(exit.code).toBe(1);
    const before = await emulate(t.output.slice(0, t.output.indexOf(BSU)));
    // The title without a goal, and the run id made for the run (none is made: the config is refused).
    expect(before.screen[ROWS - 2]).toMatch(/^loopdeck +run \S+$/);
    expect(before.screen[ROWS - 1]).toBe('preparing…');
    const history = t.history().split('\n');
    expect(history.join('\n'), t.describe()).toContain('invalid config');
    expect(count(history, /preparing…|^loopdeck( |$)/), t.describe()).toBe(0);
    earlierKept(history);
  });

  it('NO_COLOR: the outline in bold only', async () => {
    const dir = tempDir();
    const t = start(['run', '--config', config(dir)], { cwd: dir, env: { NO_COLOR: '1' } });
    await t.waitFor('Timeline', 60_000);
    const { outline } = split(t.output);
    expect(outline).toContain('\u001b[1mloopdeck');
    expect(outline).not.toMatch(/\u001b\[[0-9;]*(3[0-9]|9[0-7])m/);
  });

  it('a terminal too small for the outline: the console draws first', async () => {
    const dir = tempDir();
    const t = start(['run', '--config', config(dir)], { cwd: dir, cols: 19, rows: 12 });
    await t.waitUntil(() => t.output.includes(ESU), 'the first frame', 60_000);
    expect(t.output.slice(0, t.output.indexOf(BSU))).not.toMatch(/loopdeck|preparing/);
  });
});

describe('the first screen of a recorded run', { timeout: 120_000 }, () => {
  // One real run, killed after 30 events: replay shows it, resume continues it.
  let cwd: string;
  let runDir: string;
  let run: string;
  let workspace: string;
  beforeAll(async () => {
    cwd = tempDir();
    const child: ChildProcess = spawn('node', [CLI, 'run', '--config', config(cwd), '--headless', '--approve', 'all', '--on-pause', 'continue'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = 0;
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString().split('\n').length - 1;
        if (seen >= 30 && child.exitCode === null) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`ended before the kill (exit ${code})`))));
    });
    run = readdirSync(path.join(cwd, '.loopdeck/runs'))[0]!;
    runDir = path.join(cwd, '.loopdeck/runs', run);
    workspace = (JSON.parse(readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').split('\n', 1)[0]!) as { data: { workspace: string } }).data.workspace;
  }, 120_000);
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  for (const command of ['replay', 'resume'] as const) {
    it(`${command}: the outline names the run and its goal; the console takes its rows over`, async () => {
      const t = start([command, runDir], { cwd });
      await t.waitFor('Timeline', 60_000);
      const { outline, firstFrame } = split(t.output);
      const before = await emulate(outline);
      const [title, preparing] = before.screen.slice(-2);
      const header = new RegExp(`^loopdeck Names with accents must survive the payload round trip +run ${run}$`);
      expect(title).toMatch(header);
      expect(preparing).toBe('preparing…');
      // Every frame of the console, from its first, has the same title row.
      await headerInEveryFrame(t.output, header);
      const first = await emulate(firstFrame);
      expect(count(first.history, /preparing…/)).toBe(0);
      expect(count(first.history, /^loopdeck /)).toBe(1);
      earlierKept(first.history);
      const history = t.history().split('\n');
      expect(count(history, /preparing…/), t.describe()).toBe(0);
      for (const clear of CLEARS) expect(t.output).not.toContain(clear);
    });
  }
});
