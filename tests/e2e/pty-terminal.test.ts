// The pseudo-terminal helper itself: it must see keys, sizes and exit codes as a terminal
// does, and it must notice a program that leaves the terminal broken — otherwise the
// console's "terminal restored" checks would pass whatever the console did.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';

// A stand-in for a TUI: raw mode, cursor hidden, bracketed paste on; echoes keys as hex,
// prints its size on SIGWINCH; `q` exits cleanly, `k` dies without restoring anything.
const PROGRAM = `
const out = process.stdout;
process.stdin.setRawMode(true);
process.stdin.resume();
out.write('\\u001b[?25l\\u001b[?2004h');
out.write('ready ' + out.columns + 'x' + out.rows + '\\r\\n');
out.on('resize', () => out.write('size ' + out.columns + 'x' + out.rows + '\\r\\n'));
process.stdin.on('data', (data) => {
  if (data.toString() === 'q') {
    out.write('\\u001b[?2004l\\u001b[?25h');
    process.stdin.setRawMode(false);
    process.exit(3);
  }
  if (data.toString() === 'k') process.kill(process.pid, 'SIGKILL');
  out.write('key ' + data.toString('hex') + '\\r\\n');
});
`;

const open: Array<{ t: PtyTerminal; dir: string }> = [];

function start(): PtyTerminal {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-pty-self-'));
  const script = path.join(dir, 'tui.cjs');
  writeFileSync(script, PROGRAM);
  const t = startPty({ args: [], script, cwd: dir, cols: 60, rows: 10 });
  open.push({ t, dir });
  return t;
}

afterEach(async () => {
  for (const { t, dir } of open.splice(0)) {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the pseudo-terminal helper', () => {
  it('passes key bytes and sizes through, and sees a clean exit restore the terminal', async () => {
    const t = start();
    await t.waitFor('ready 60x10');
    t.press(KEY.ctrlC);
    await t.waitFor('key 03');
    t.press(KEY.escape);
    await t.waitFor('key 1b');
    t.resize(40, 8);
    await t.waitFor('size 40x8');
    t.press('q');
    const { code, tty } = await t.exit;
    expect(code).toBe(3);
    expect(tty).toMatchObject({ icanon: true, echo: true, isig: true });
    expect(await t.leftModes()).toMatchObject({ cursorShown: true, bracketedPaste: false });
  });

  it('notices a program that dies with the cursor hidden, raw mode on and bracketed paste on', async () => {
    const t = start();
    await t.waitFor('ready');
    t.press('k');
    const { code, tty } = await t.exit;
    expect(code).toBe(128 + 9);
    expect(tty).toMatchObject({ icanon: false, echo: false, isig: false });
    expect(await t.leftModes()).toMatchObject({ cursorShown: false, bracketedPaste: true });
  });

  it('fails a wait with the last screen in the message', async () => {
    const t = start();
    await t.waitFor('ready');
    await expect(t.waitFor('never shown', 300)).rejects.toThrow(/timed out after 300 ms waiting for "never shown"[\s\S]*ready 60x10/);
  });
});
