// `--help` in a terminal is wrapped to that terminal's width, never broken mid-word by it.
import { rmSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startPty } from '../support/pty-terminal.js';
import { cellWidth } from '../../src/ui/text.js';

describe('--help in a terminal', () => {
  it.each([
    [['run', '--help'], 60],
    [['runs', '--help'], 60],
    [['watch', '--help'], 80],
    [['--help'], 70],
  ] as const)('%j at %i columns: every line it writes fits the terminal', async (args, cols) => {
    const t = startPty({ args: [...args], cols, rows: 120 });
    onTestFinished(async () => {
      await t.close();
      rmSync(t.cwd, { recursive: true, force: true });
    });
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(0);
    // What the CLI wrote, up to the test wrapper's own lines.
    const written = t.output.split('<<pty-exit')[0]!.split(/\r?\n/);
    expect(written.join('\n')).toMatch(/Usage: loopdeck/);
    // Only a word longer than the row may overflow it (loopdeck's own path, when it is started from a deep folder): on a row of its own.
    expect(written.filter((line) => cellWidth(line) >= cols && !/^\s*\S+( \\)?$/.test(line))).toEqual([]);
  });
});
