// The tool call panel's history in the real CLI, in a pseudo-terminal: `[` and `]` step
// through the run's earlier calls while the panel is shown, the panel stays on the call
// read while the run goes on (live) or the replay cursor moves, End comes back to the live
// call. Needs `npm run build` (dist/cli.js).
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeRun } from '../support/demo-run.js';
import { KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const root = path.resolve(import.meta.dirname, '../..');
const DEMO_LOG = path.join(root, 'tests/fixtures/logs/demo.jsonl');
const END = '\u001b[F';
const PROMPT = /Approve tool call (\S+) \((t\d+)\)/;

const terminals: PtyTerminal[] = [];
afterEach(async () => {
  for (const t of terminals.splice(0)) {
    await t.close();
    removeRun(t.cwd);
  }
});

/** The tool call panel's title row (`call N of M · …`), or ''. */
function title(screen: string): string {
  return screen.split('\n').find((line) => /^call \d+ of \d+ · /.test(line)) ?? '';
}

/** Presses `key` and waits until the panel's title matches `want`. */
async function pressFor(t: PtyTerminal, key: string, want: RegExp): Promise<string> {
  t.press(key);
  return t.waitUntil((s) => want.test(title(s)), `the tool panel title to match ${want}`);
}

describe('the tool call panel steps back through earlier calls (real terminal)', { timeout: 90_000 }, () => {
  it('replay of the demo log: [ steps back to call 8 with its command and output; ← moves the replay, not the panel; End twice', async () => {
    const t = startPty({ args: ['replay', DEMO_LOG], cols: 100, rows: 30 });
    terminals.push(t);
    await t.waitFor(/replay 194\/194/);
    t.press(KEY.tab);
    await t.waitFor(/│  Goal  │/);
    t.press(KEY.tab);
    let screen = await t.waitFor(/│  Tool call  │/);
    expect(title(screen), t.describe()).toBe('call 17 of 17 · latest · [ older');
    for (let n = 16; n >= 8; n--) screen = await pressFor(t, '[', new RegExp(`^call ${n} of 17 · `));
    expect(title(screen), t.describe()).toBe('call 8 of 17 · earlier call, 9 newer · [ older ] newer · end live');
    expect(screen, t.describe()).toMatch(/^shell \(t8\) · ok · exit 0 · 164 ms$/m);
    expect(screen, t.describe()).toMatch(/^approved by operator: headless --approve all$/m);
    expect(screen, t.describe()).toContain(`args $ node -e "console.log(Buffer.from('José Núñez', 'utf8').toString('latin1'))"`);
    expect(screen, t.describe()).toMatch(/^output\n JosÃ© NÃºÃ±ez$/m);

    // The replay steps back 30 events (to before call 17's and 16's tool.call): the panel stays on call 8.
    for (let i = 1; i <= 30; i++) {
      t.press(KEY.left);
      await t.waitFor(`replay ${194 - i}/194`);
    }
    screen = await t.frame();
    expect(title(screen), t.describe()).toBe('call 8 of 15 · earlier call, 7 newer · [ older ] newer · end live');
    expect(screen, t.describe()).toMatch(/^output\n JosÃ© NÃºÃ±ez$/m);

    // ] one forward; End: the latest call as of the cursor; End again: the replay's last event.
    await pressFor(t, ']', /^call 9 of 15 · earlier call, 6 newer/);
    screen = await pressFor(t, END, /^call 15 of 15 · latest/);
    expect(screen, t.describe()).toContain('replay 164/194');
    t.press(END);
    screen = await t.waitFor('replay 194/194');
    expect(title(screen), t.describe()).toBe('call 17 of 17 · latest · [ older');
    t.press('q');
    expect((await t.exit).code, t.describe()).toBe(0);
  });

  it('live demo: the panel stays on an earlier call while new calls run; End returns to the live call', async () => {
    const t = startPty({ args: ['run', '--config', path.join(root, 'loop.yaml')], cols: 100, rows: 32 });
    terminals.push(t);
    const armed = (s: string) => PROMPT.test(s) && /\[y\] approve/.test(s);
    const count = (s: string) => Number(/^call \d+ of (\d+)/.exec(title(s))?.[1] ?? 0);
    /** Approves the prompt on screen and waits until it is gone (or another call's prompt replaced it). */
    const approve = async (screen: string) => {
      const id = PROMPT.exec(screen)![2];
      t.press('y');
      await t.waitUntil((s) => PROMPT.exec(s)?.[2] !== id, `the prompt of ${id} to go`);
    };
    // The first call (t1, a shell call) needs a y; the read_file calls after it are allowed by rule, up to the next shell call.
    await approve(await t.waitUntil(armed, 'the first approval prompt', 30_000));
    t.press(KEY.tab);
    await t.waitFor(/│  Goal  │/);
    t.press(KEY.tab);
    let screen = await t.waitUntil((s) => armed(s) && count(s) >= 3 && /· latest/.test(title(s)), 'the next prompt, the panel on its call', 30_000);
    const at = count(screen);
    expect(title(screen), t.describe()).toBe(`call ${at} of ${at} · latest · [ older`);
    screen = await pressFor(t, '[', new RegExp(`^call ${at - 1} of ${at} · earlier call, 1 newer`));
    expect(screen, t.describe()).toMatch(new RegExp(`^\\S+ \\(t${at - 1}\\) · `, 'm'));

    // Keep answering: two more calls run (continue past the stagnation pause if it comes); the panel stays on the call read.
    while (count(screen) < at + 2) {
      screen = await t.waitUntil((s) => armed(s) || /Paused: stagnation/.test(s) || count(s) >= at + 2, 'a prompt, a pause or two more calls', 30_000);
      if (count(screen) >= at + 2) break;
      if (armed(screen)) await approve(screen);
      else t.press('c');
      screen = await t.frame();
    }
    screen = await t.frame();
    expect(title(screen), t.describe()).toMatch(new RegExp(`^call ${at - 1} of \\d+ · earlier call, \\d+ newer · \\[ older \\] newer · end live$`));
    expect(screen, t.describe()).toMatch(new RegExp(`^\\S+ \\(t${at - 1}\\) · `, 'm'));

    screen = await pressFor(t, END, /^call \d+ of \d+ · latest/);
    const live = /^call (\d+) of (\d+)/.exec(title(screen))!;
    expect(live[1], t.describe()).toBe(live[2]);
    expect(Number(live[2]), t.describe()).toBeGreaterThanOrEqual(at + 2);
  });
});
