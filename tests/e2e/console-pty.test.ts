// The console as a person sees it: the built CLI runs the demo in a pseudo-terminal, the
// screen is read through a terminal emulator, and keys are the bytes a terminal sends.
// Needs `npm run build` (dist/cli.js). Each test has its own working directory and run,
// but for the first group, whose tests take one demo run from its first prompt to its end.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG, removeRun, ROOT, runLog, writeDemoConfig, writeDemoTurns } from '../support/demo-run.js';
import { CLI, childEnv, KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const root = ROOT;
const DEMO = ['run', '--config', DEMO_CONFIG];

interface LogEvent {
  seq: number;
  type: string;
  data: Record<string, any>;
}

const terminals: PtyTerminal[] = [];

/** Starts the demo in a terminal of `cols` × `rows`, closed and cleaned up after the test. */
function demo(cols = 100, rows = 30, env: Record<string, string> = {}): PtyTerminal {
  const t = startPty({ args: DEMO, cols, rows, env });
  terminals.push(t);
  return t;
}

/** The run's log file under a working directory, once it exists. */
const logFile = runLog;

/** The run's log, every line parsed (a torn or non-JSON line fails the test). */
function logEvents(t: PtyTerminal): LogEvent[] {
  const file = logFile(t.cwd);
  if (!file) throw new Error(`no run log under ${t.cwd}`);
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n'), 'the log ends with a complete line').toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line) as LogEvent;
      } catch {
        throw new Error(`${file}:${i + 1} is not JSON: ${line.slice(0, 200)}`);
      }
    });
}

/** Ends the CLI if it still runs and removes what its run left. */
async function cleanUp(t: PtyTerminal): Promise<void> {
  await t.close();
  removeRun(t.cwd);
}

afterEach(async () => {
  for (const t of terminals.splice(0)) await cleanUp(t);
});

const PROMPT = /Approve tool call (\S+) \((t\d+)\)/;

/** Waits for an approval prompt whose keys are armed; returns the tool and call id. */
async function armedPrompt(t: PtyTerminal, timeoutMs = 20_000): Promise<{ tool: string; id: string; screen: string }> {
  const screen = await t.waitUntil((s) => PROMPT.test(s) && /\[y\] approve/.test(s), 'an armed approval prompt', timeoutMs);
  const [, tool, id] = PROMPT.exec(screen)!;
  return { tool: tool!, id: id!, screen };
}

/** Approves the prompt on screen by `y` and waits until it is answered. */
async function approve(t: PtyTerminal): Promise<string> {
  const { id } = await armedPrompt(t);
  t.press('y');
  await t.waitForGone(new RegExp(`Approve tool call \\S+ \\(${id}\\)`));
  return id;
}

/** The pause prompt for stagnation, its keys armed. */
const STAGNATION_PAUSE = (s: string) => /STAGNATION_DETECTED/.test(s) && /Paused: stagnation/.test(s) && /\[c\] continue/.test(s);

/** Approves every approval prompt until `until` passes on the screen (at most `limit` of them). */
async function driveUntil(t: PtyTerminal, until: (screen: string) => boolean, what: string, limit = 40): Promise<string> {
  const armed = (s: string) => PROMPT.test(s) && /\[y\] approve/.test(s);
  for (let answered = 0; answered <= limit; answered++) {
    const screen = await t.waitUntil((s) => until(s) || armed(s), `${what} (or a prompt to approve)`, 30_000);
    if (until(screen)) return screen;
    await approve(t);
  }
  throw new Error(`no ${what} after ${limit} approvals${t.describe()}`);
}

/** After a quit: the console says the log is kept and the process is gone soon after. */
async function quitsPromptly(t: PtyTerminal): Promise<void> {
  await t.waitFor(/quit before the run ended; the log is kept/);
  // It says how to go on: the resume command, runnable as printed (node and the CLI's path).
  // Read from the raw output, not the screen: a long checkout path wraps on a narrow terminal.
  await t.waitUntil(() => /\ncontinue with:\r?\nnode \S+ resume \S+\r?\n/.test(t.output), 'the continue command');
  const command = /\ncontinue with:\r?\n(node (\S+) resume (\S+))\r?\n/.exec(t.output)!;
  // The command is on its own line, each path the shorter of relative and absolute, and names this CLI and a run.
  expect(path.resolve(t.cwd, command[2]!)).toBe(path.resolve(CLI));
  expect(command[3]).toMatch(/^\.loopdeck\/runs\/[^/]+$/);
  const shown = Date.now();
  await t.exit;
  // Nothing keeps the process alive once the console has said goodbye (a pending
  // 5 s timer once did).
  expect(Date.now() - shown, t.describe()).toBeLessThan(3_000);
}

/** Checks what a person finds after the CLI exited: cursor shown, modes off, line editing back. */
async function expectRestored(t: PtyTerminal): Promise<void> {
  const { tty } = await t.exit;
  const modes = await t.leftModes();
  const where = t.describe('screen after exit');
  expect(modes, where).toEqual({
    cursorShown: true,
    alternateScreen: false,
    bracketedPaste: false,
    mouseTracking: 'none',
    applicationCursorKeys: false,
    synchronizedOutput: false,
  });
  expect(tty, `stty after exit${where}`).not.toBeNull();
  expect({ icanon: tty!.icanon, echo: tty!.echo, isig: tty!.isig }, tty!.stty).toEqual({ icanon: true, echo: true, isig: true });
}

// One demo run serves this group, its tests in order: the first prompt (t1) is read, help
// and the command bar are used at it and it is approved; the next shell call's prompt is
// denied with a note; then the run is driven to its end. Each test starts from where the
// one before left the run and waits for the prompt it needs.
describe('one demo run in a real terminal, by keys, from its first prompt to goal_met', { timeout: 60_000 }, () => {
  let t: PtyTerminal;
  beforeAll(() => {
    t = startPty({ args: DEMO, cols: 100, rows: 30 });
  });
  afterAll(() => cleanUp(t));

  it('starts the demo: goal, budget gauges, the shell prompt', async () => {
    const { tool, id, screen } = await armedPrompt(t);
    expect(tool, t.describe()).toBe('shell');
    expect(id, t.describe()).toBe('t1');
    expect(screen, t.describe()).toContain('Names with accents must survive the payload round trip');
    expect(screen, t.describe()).toContain('$ node --test');
    // The budget gauges: turns, tool calls and cost against their limits.
    expect(screen, t.describe()).toMatch(/turns/);
    expect(screen, t.describe()).toMatch(/\b1\/40\b/);
    expect(screen, t.describe()).toMatch(/\b1\/60\b/);
    expect(screen, t.describe()).toMatch(/\$0\.\d\d\/\$2\.00/);
  });

  it('? opens help with the key list; Esc closes it, and so does ?', async () => {
    await armedPrompt(t);
    t.press('?');
    const help = await t.waitFor(/Help/);
    expect(help, t.describe()).toMatch(/quit \(asks first while a run is live\)/);
    expect(help, t.describe()).toMatch(/once: pause at the next safe point; twice: quit/);
    // ↓ scrolls down to the approval prompt's keys.
    const approvalKeys = /^Approval prompt\n\s+y\s+approve once/m;
    for (let shown = help; !approvalKeys.test(shown); ) {
      t.press(KEY.down);
      shown = await t.waitUntil((s) => s !== shown, 'help to scroll down to the approval prompt', 5_000);
    }
    t.press(KEY.escape);
    expect(await t.waitForGone(/Help/), t.describe()).toContain('Timeline');
    t.press('?');
    await t.waitFor(/Help/);
    t.press('?');
    expect(await t.waitForGone(/Help/), t.describe()).toContain('Timeline');
    // Help answered nothing: the prompt still waits (a later test answers it by y).
    expect(await t.frame(), t.describe()).toMatch(/Approve tool call shell \(t1\)/);
    expect(logEvents(t).some((e) => e.type === 'tool.decision'), t.describe()).toBe(false);
  });

  it('/goal add-constraint from the command bar shows the constraint in the goal panel', async () => {
    await armedPrompt(t);
    t.press('/');
    await t.waitFor(/› \/(\s|$)/m);
    await t.type('goal add-constraint keep the public API', (typed) => `› /${typed}`);
    t.press(KEY.enter);
    // The timeline's row of the event, not the command's notice: the panels show the store,
    // which takes the event in its next batch.
    await t.waitFor(/goal\.revised +goal revised \(add-constraint\)/);
    // The goal panel (Tab cycles the panels) lists it beside the original constraint,
    // apart from the revision's own row in the timeline and the notice.
    const inGoal = (s: string) => /do not edit the tests/.test(s) && s.split('\n').some((line) => line.includes('keep the public API') && !/revised/.test(line));
    // The row of panel names marks the one shown; a clock tick elsewhere is no new panel.
    const panels = (s: string) => s.split('\n').find((line) => /Checkpoint .*│.*Goal .*│.*Tool call/.test(line)) ?? '';
    for (let shown = await t.frame(), tabs = 0; !inGoal(shown); tabs++) {
      if (tabs === 5) throw new Error(`the constraint is in no panel${t.describe()}`);
      const before = panels(shown);
      t.press(KEY.tab);
      shown = await t.waitUntil((s) => panels(s) !== before, 'the next panel', 5_000);
    }
    const revised = logEvents(t).find((e) => e.type === 'goal.revised');
    expect(JSON.stringify(revised?.data), t.describe()).toContain('keep the public API');
    // The prompt is still there, unanswered (the next test answers it).
    expect(await t.frame(), t.describe()).toMatch(/Approve tool call shell \(t1\)/);
    expect(logEvents(t).some((e) => e.type === 'tool.decision'), t.describe()).toBe(false);
  });

  it('y approves the prompt (still answering after help and the command bar) and the result shows', async () => {
    const { id } = await armedPrompt(t);
    expect(id, t.describe()).toBe('t1');
    t.press('y');
    // The timeline shows the decision and the shell's result (3 of 7 tests fail: exit 1).
    await t.waitFor('approved by operator');
    await t.waitFor(/shell \S*\s*exit 1/);
    await t.waitForGone(new RegExp(`Approve tool call \\S+ \\(${id}\\)`));
    expect(logEvents(t).find((e) => e.type === 'tool.decision')?.data).toMatchObject({ call_id: 't1', decision: 'approve', by: 'operator' });
  });

  it('d denies with a note: the timeline shows it and the log records it', async () => {
    const { id } = await armedPrompt(t);
    t.press('d');
    await t.waitFor('note to the agent');
    await t.type('run the unit tests later', (typed) => `› ${typed}`);
    t.press(KEY.enter);
    await t.waitFor(/denied by operator: run the unit tests later/);
    await t.waitForGone(new RegExp(`Approve tool call \\S+ \\(${id}\\)`));
    // The log is written before the console shows an event.
    const decision = logEvents(t).find((e) => e.type === 'tool.decision' && e.data.call_id === id);
    expect(decision?.data, t.describe()).toMatchObject({ decision: 'deny', by: 'operator', note: 'run the unit tests later' });
  });

  it('a whole run by keys: the stagnation banner and pause at iteration 9, c continues, goal_met, q exits 0', { timeout: 120_000 }, async () => {
    // Approving on, the loop circles until three checkpoints show no observed progress.
    const paused = await driveUntil(t, STAGNATION_PAUSE, 'the stagnation pause');
    expect(paused, t.describe()).toMatch(/⚠ STAGNATION_DETECTED/);
    expect(paused, t.describe()).toMatch(/\[r\] redirect/);
    expect(paused, t.describe()).toMatch(/\[s\] stop/);
    expect(paused, t.describe()).toMatch(/\b9\/40\b/);
    const atPause = logEvents(t);
    expect(atPause.find((e) => e.type === 'stagnation.detected')?.data).toMatchObject({ iteration: 9, action: 'pause' });
    expect(atPause.at(-1)).toMatchObject({ type: 'session.pause', data: { reason: 'stagnation' } });
    // c continues; approving on, the agent fixes the bug until the verifier passes.
    t.press('c');
    await driveUntil(t, (s) => /goal_met/.test(s), 'goal_met on screen');
    const events = logEvents(t);
    expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
    expect(events.filter((e) => e.type === 'session.pause').map((e) => e.data.reason)).toEqual(['stagnation']);
    // The run is over: q quits without asking.
    t.press('q');
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(0);
    expect(t.history(), t.describe()).toMatch(/loopdeck: goal_met/);
    await expectRestored(t);
  });
});

describe('the console in a real terminal (demo run)', { timeout: 60_000 }, () => {
  it('resized to 70 columns, the compact layout fits and the prompt still answers; SIGTERM restores the terminal', async () => {
    const t = demo();
    await armedPrompt(t);
    t.resize(70, 30);
    // The prompt's frame redrawn 70 wide: the layout followed the new size.
    await t.waitFor(/^╭─{68}╮$/m);
    const screen = await t.frame();
    expect(screen, t.describe()).toMatch(PROMPT);
    expect(t.wrappedRows(), `rows wider than 70 columns wrapped${t.describe()}`).toEqual([]);
    for (const line of t.lines()) expect(line.length, t.describe()).toBeLessThanOrEqual(70);
    const { id } = await armedPrompt(t);
    t.press('y');
    await t.waitForGone(new RegExp(`Approve tool call \\S+ \\(${id}\\)`));
    await t.waitFor('approved by operator');
    await t.frame();
    expect(t.wrappedRows(), `rows wider than 70 columns wrapped${t.describe()}`).toEqual([]);
    // SIGTERM is a quit too: 130, the terminal restored, the log complete.
    t.signalCli('SIGTERM');
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(130);
    expect(t.history(), t.describe()).toMatch(/terminated \(SIGTERM\)/);
    await expectRestored(t);
    logEvents(t);
  });

  it('made narrower, the console adds no copy of its own to the one the terminal re-wraps into the scrollback', async () => {
    const t = demo(120, 30);
    await armedPrompt(t);
    await t.frame();
    const headers = () => t.history().split('\n').filter((line) => line.startsWith('loopdeck ')).length;
    for (const cols of [100, 80]) {
      const before = headers();
      t.resize(cols, 30);
      await t.waitUntil((s) => s.split('\n').every((row) => row.trimEnd().length <= cols) && PROMPT.test(s), `the frame at ${cols} columns`);
      await t.frame();
      // At most the copy the terminal's re-wrap of the frame pushed up; Ink's frame of the
      // old layout, wrapped at the new width, pushed a second one before.
      expect(headers() - before, t.history()).toBeLessThanOrEqual(1);
    }
  });

  it("made shorter, the console redraws without erasing the terminal's scrollback; q asks first while the run is live: n stays, y quits with 130 and the terminal restored", async () => {
    const t = demo();
    // What the operator had in the terminal before loopdeck started.
    t.term.write(Array.from({ length: 60 }, (_, i) => `earlier output ${i + 1}\r\n`).join(''));
    await armedPrompt(t);
    t.resize(100, 26);
    await t.waitFor(PROMPT);
    await t.frame();
    t.resize(100, 22);
    await t.waitFor(PROMPT);
    await t.frame();
    expect(t.output.includes('\u001b[3J'), 'ESC[3J written').toBe(false);
    // Nor is the screen cleared whole (tmux and VTE keep a copy of a screen cleared whole):
    // above the header on screen, at most the rows the terminal itself moved up at each of
    // the two resizes, one header each.
    expect(t.output.includes('\u001b[2J'), 'ESC[2J written').toBe(false);
    const headers = t.history().split('\n').filter((line) => line.startsWith('loopdeck '));
    expect(headers.length, t.history()).toBeLessThanOrEqual(3);
    const history = t.history();
    for (const line of ['earlier output 1', 'earlier output 30', 'earlier output 60']) expect(history, t.describe()).toContain(line);

    // The same run, quit by q: asked first; n stays.
    await armedPrompt(t);
    t.press('q');
    await t.waitFor(/Quit while the run is live\?/);
    t.press('n');
    await t.waitForGone(/Quit while the run is live\?/);
    await armedPrompt(t);
    t.press('q');
    await t.waitFor('│ [y/enter/ctrl+c] quit'); // armed: the dialog's own key row (the footer lists the keys at once)
    t.press('y');
    await quitsPromptly(t);
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(130);
    await expectRestored(t);
    // The log was flushed: every line is complete JSON, the last one included.
    const events = logEvents(t);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });

  it('Ctrl+C once pauses at the next safe point; Ctrl+C again quits', async () => {
    const t = demo();
    await armedPrompt(t);
    t.press(KEY.ctrlC);
    await t.waitFor(/next safe point/);
    // The approval still waits; once answered, the run pauses for the operator.
    t.press('y');
    await t.waitUntil((s) => /Paused by the operator/.test(s) && /\[c\] continue/.test(s), 'the operator pause');
    expect(logEvents(t).at(-1)?.data.reason).toBe('operator');
    t.press(KEY.ctrlC);
    await quitsPromptly(t);
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(130);
    await expectRestored(t);
    logEvents(t);
  });

  it('a crash restores the terminal too: exit 1, the error shown, the log complete', async () => {
    const t = demo(100, 30, { NODE_OPTIONS: `--import ${path.join(root, 'tests/support/crash-on-sigusr2.mjs')}` });
    await armedPrompt(t);
    t.signalCli('SIGUSR2');
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(1);
    expect(t.history(), t.describe()).toMatch(/loopdeck: crashed: Error: injected crash/);
    await expectRestored(t);
    const events = logEvents(t);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });

});

describe('before the run', { timeout: 60_000 }, () => {
  it('a loop.yaml with errors: the console makes way for them, each names the file, line and path; exit 1', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bad-config-'));
    writeFileSync(path.join(cwd, 'loop.yaml'), 'goal:\n  objective: Fix it\npattern: sideways\n');
    const t = startPty({ args: ['run'], cwd, cols: 100, rows: 30 });
    terminals.push(t);
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(1);
    const shown = t.history();
    expect(shown, t.describe()).toMatch(/^loopdeck: invalid config$/m);
    expect(shown, t.describe()).toMatch(/^loop\.yaml:3:10: pattern: expected one of react, plan-and-execute, reflexion, auto, found "sideways"$/m);
    // The console was drawn while loop.yaml loaded, then cleared: the errors come first.
    expect(t.output, 'the console drew first').toContain('Timeline');
    expect(shown.slice(0, shown.indexOf('loopdeck: invalid config')).trim(), t.describe()).toBe('');
    await expectRestored(t);
  });

  it('warnings before the run: every one shown whole, nothing runs until Enter; q quits with nothing run', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-start-warnings-'));
    mkdirSync(path.join(cwd, 'app'));
    await execa('git', ['init', '-q'], { cwd: path.join(cwd, 'app'), env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    writeFileSync(path.join(cwd, 'app', 'notes.txt'), 'mine\n');
    writeFileSync(path.join(cwd, 'script.yaml'), 'turns:\n  - final: done\n');
    // In place with an uncommitted file, and nothing to measure: two warnings.
    writeFileSync(
      path.join(cwd, 'loop.yaml'),
      'goal:\n  objective: Tidy the notes\nagent:\n  kind: scripted\n  script: script.yaml\nworkspace:\n  path: app\n  copy: none\nverify:\n  - command: "true"\n',
    );
    for (const [key, ends] of [['q', /quit before the run started/], [KEY.enter, /goal_met/]] as const) {
      const t = startPty({ args: ['run'], cwd, cols: 100, rows: 30 });
      terminals.push(t);
      await t.waitFor('2 warnings before the run starts. Start it anyway?');
      const screen = t.screen().replace(/[│\s]+/g, ' ');
      expect(screen, t.describe()).toContain('nothing to measure (no `observe` command)');
      expect(screen, t.describe()).toContain("has 1 uncommitted change: the agent's edits will mix with them, and an abort stashes both together");
      expect(screen, t.describe()).toContain('[enter] start the run [q] quit');
      // Nothing ran yet: no turn, no tool call.
      expect(t.screen(), t.describe()).not.toMatch(/model\.call|session\.complete/);
      t.press(key);
      // Started, the run goes to its end; the console stays until q.
      if (key === KEY.enter) {
        await t.waitFor('Run finished: goal_met');
        t.press('q');
      }
      await t.exit;
      expect(t.history(), t.describe()).toMatch(ends);
    }
  });
});

/**
 * A folder with the demo's loop.yaml, but for a checkpoint after every turn and stagnation
 * at the first one without progress: headless, the run stops at that pause after turn 1.
 */
function stopsAfterOneTurn(): string {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-pty-'));
  writeDemoConfig(cwd, {
    lines: [
      ['every_iterations: 3', 'every_iterations: 1'],
      ['checkpoints_without_observed_progress: 3', 'checkpoints_without_observed_progress: 1'],
    ],
  });
  return cwd;
}

// Concurrent with each other: neither reads a live screen, and each cleans up after itself.
describe.concurrent('without a terminal', { timeout: 60_000 }, () => {
  it('stdin not a terminal, stdout one: says so in one line and runs headless, no raw-mode crash', async ({ expect, onTestFinished }) => {
    const t = startPty({ args: ['run'], cwd: stopsAfterOneTurn(), stdin: 'null', cols: 100, rows: 30 });
    onTestFinished(() => cleanUp(t));
    const { code } = await t.exit;
    const shown = t.history();
    // No --on-pause: headless stops at the stagnation pause (exit 2).
    expect(code, t.describe()).toBe(2);
    expect(shown.match(/running headless/g), shown).toHaveLength(1);
    expect(shown, t.describe()).toMatch(/^loopdeck: no terminal.*running headless$/m);
    expect(shown, t.describe()).toMatch(/"type":"session\.start"/);
    expect(shown, t.describe()).toMatch(/loopdeck: stopped/);
    expect(shown, t.describe()).not.toMatch(/raw mode|setRawMode|crashed/i);
    // The console never drew: the cursor was never hidden.
    expect(t.output).not.toContain('\u001b[?25l');
    await expectRestored(t);
  });

  it('TERM=dumb (an editor shell buffer): says why in one line and runs headless; the console never draws', async ({ expect, onTestFinished }) => {
    const t = startPty({ args: ['run'], cwd: stopsAfterOneTurn(), cols: 100, rows: 30, env: { TERM: 'dumb' } });
    onTestFinished(() => cleanUp(t));
    const { code } = await t.exit;
    const shown = t.history();
    expect(code, t.describe()).toBe(2);
    expect(shown, t.describe()).toMatch(/^loopdeck: TERM=dumb: this terminal cannot draw the console; running headless$/m);
    expect(shown, t.describe()).toMatch(/"type":"session\.start"/);
    expect(t.output).not.toContain('\u001b[?25l');
    expect(t.output).not.toMatch(/[╭╰│]/);
    const replay = startPty({ args: ['replay', logFile(t.cwd)!], cols: 100, rows: 30, env: { TERM: 'dumb' } });
    onTestFinished(() => cleanUp(replay));
    expect((await replay.exit).code, replay.describe()).toBe(0);
    expect(replay.history(), replay.describe()).toMatch(/"eventCount": \d+/);
    expect(replay.output).not.toContain('\u001b[?25l');
  });

  it('stdin /dev/null and stdout a pipe: one line on stderr, headless to goal_met, JSONL on stdout', async ({ expect, onTestFinished }) => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-notty-'));
    onTestFinished(() => removeRun(cwd));
    // The demo's agent with only its turns that fix the bug, and its final claim.
    const script = writeDemoTurns(cwd, (turn) => turn.final !== undefined || (turn.tool_calls ?? []).some((call) => call.name === 'edit'));
    writeDemoConfig(cwd, { script });
    const result = await execa(process.execPath, [CLI, 'run', '--approve', 'all', '--on-pause', 'continue'], {
      cwd,
      stdin: 'ignore',
      env: childEnv(),
      extendEnv: false,
      reject: false,
    });
    const stderr = result.stderr.split('\n');
    expect(stderr.filter((line) => /headless/.test(line)), result.stderr).toEqual([stderr[0]]);
    expect(stderr[0]).toMatch(/^loopdeck: no terminal.*running headless$/);
    expect(result.stderr).not.toMatch(/raw mode|setRawMode|Error/i);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as LogEvent);
    expect(events[0]?.type).toBe('session.start');
    expect(events.at(-1)?.data.reason).toBe('goal_met');
  });
});
