// `--help` in a terminal is wrapped to that terminal's width, never broken mid-word by it.
import { describe, expect, it } from 'vitest';
import { startPty } from '../support/pty-terminal.js';

describe('--help in a terminal', () => {
  it.each([
    [['run', '--help'], 60],
    [['runs', '--help'], 60],
    [['watch', '--help'], 80],
    [['--help'], 70],
  ] as const)('%j at %i columns: every row fits, none wrapped by the terminal', async (args, cols) => {
    const t = startPty({ args: [...args], cols, rows: 120 });
    const { code } = await t.exit;
    await t.frame();
    expect(code, t.describe()).toBe(0);
    expect(t.history(), t.describe()).toMatch(/Usage: loopdeck/);
    expect(t.wrappedRows(), t.describe()).toEqual([]);
  });
});
