// Ink's text pass with its caches kept across frames (src/ui/ink-output-cache.ts) makes
// the very text Ink's own `Output.get` makes, frame after frame: the whole console with
// colours, joined emoji and CJK, keys that open and close overlays and panels, at several
// sizes; and a box clipped sideways, which is left to Ink's own pass.
import { vi, test, expect } from 'vitest';

vi.hoisted(() => {
  // Colours on, so every frame carries styles to compare.
  process.env.FORCE_COLOR = '3';
});

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

type Get = (this: unknown) => { output: string; height: number };

// Ink's own `Output.get`, taken before the console's modules replace it: nothing above
// imports them, so they are imported below, after this.
const inkDir = path.dirname(createRequire(import.meta.url).resolve('ink'));
const { default: Output } = (await import(pathToFileURL(path.join(inkDir, 'output.js')).href)) as { default: { prototype: { get: Get } } };
const inkGet = Output.prototype.get;

const React = await import('react');
const { Box, Text } = await import('ink');
const { installed } = await import('../../src/ui/ink-output-cache.js');
const { createConsoleStore } = await import('../../src/ui/store.js');
const { runHeadless, KEY } = await import('../support/console-rig.js');
const { renderStore } = await import('../support/ui-helpers.js');
const { renderTerminal } = await import('../support/terminal.js');

/** Counts frames whose text differs from what Ink's own pass makes of the same drawing. */
function compareEveryFrame(): { frames: () => number; differing: () => string[]; restore: () => void } {
  const ours = Output.prototype.get;
  let frames = 0;
  const differing: string[] = [];
  Output.prototype.get = function (this: unknown) {
    const mine = ours.call(this);
    const ink = inkGet.call(this);
    frames += 1;
    if (mine.output !== ink.output || mine.height !== ink.height) differing.push(`ours:\n${mine.output}\nInk's:\n${ink.output}`);
    return mine;
  };
  return { frames: () => frames, differing: () => differing, restore: () => void (Output.prototype.get = ours) };
}

const GOAL = 'Fix the 👨‍👩‍👧‍👦 名前を保つ encoding bug 🏳️‍🌈 e\u0301 and make every test pass';

test("Ink's text pass is replaced: its shape is the one expected", () => {
  expect(installed).toBe(true);
  expect(Output.prototype.get).not.toBe(inkGet);
});

test("every frame of the console is the text Ink's own pass makes, through keys, events and sizes", async () => {
  const { events } = await runHeadless(
    `turns:\n${Array.from({ length: 30 }, (_, i) => `  - thought: \"turn ${i + 1} 名前 👍🏽 ${'x'.repeat(i * 3)}\"`).join('\n')}\n  - final: Done.\n`,
    { objective: GOAL },
  );
  const check = compareEveryFrame();
  try {
    for (const [columns, rows] of [
      [120, 40],
      [80, 24],
      [60, 20],
    ] as const) {
      const store = createConsoleStore(events.slice(0, 20));
      const ui = await renderStore(store, { columns, rows });
      let at = 20;
      for (const key of ['?', '?', KEY.tab, KEY.tab, KEY.up, KEY.up, KEY.enter, KEY.escape, KEY.end, 'f', 'F', KEY.tab]) {
        store.getState().apply(events.slice(at, at + 10));
        at += 10;
        await ui.press(key);
      }
      await ui.waitForFrame('Fix the');
      ui.unmount();
    }
    expect(check.frames()).toBeGreaterThan(30);
    expect(check.differing()).toEqual([]);
  } finally {
    check.restore();
  }
});

test("a box clipped sideways, and wide characters, come out as Ink's own pass makes them", () => {
  const check = compareEveryFrame();
  try {
    const tree = (width: number) =>
      React.createElement(
        Box,
        { flexDirection: 'column', width: 40 },
        React.createElement(
          Box,
          { width, overflow: 'hidden' },
          React.createElement(Box, { width: 60, flexShrink: 0 }, React.createElement(Text, { color: 'green' }, `clipped ${'名前'.repeat(10)} end`)),
        ),
        React.createElement(Text, { bold: true }, `👨‍👩‍👧‍👦 wide 名前 ${width}`),
      );
    const terminal = renderTerminal(tree(12), { columns: 40, rows: 10 });
    terminal.instance.rerender(tree(15));
    expect(terminal.frame()).toContain('clipped');
    expect(terminal.frame()).not.toContain('end');
    terminal.unmount();
    expect(check.frames()).toBeGreaterThanOrEqual(2);
    expect(check.differing()).toEqual([]);
  } finally {
    check.restore();
  }
});

test('a row drawn again, moved sideways, up or down, or under other rows, comes out as Ink\'s own pass makes it', () => {
  const check = compareEveryFrame();
  try {
    // The same lines in a bordered box at another column, row or order in every frame:
    // a row's text kept from an earlier frame must be taken only for the very same row.
    const tree = (left: number, top: number, flip: boolean) =>
      React.createElement(
        Box,
        { flexDirection: 'column', width: 40, height: 8 },
        React.createElement(Box, { height: top, flexShrink: 0 }),
        React.createElement(
          Box,
          { marginLeft: left, borderStyle: 'single', flexDirection: 'column', width: 20, flexShrink: 0 },
          React.createElement(Text, { color: flip ? 'red' : 'green' }, flip ? 'second 名前' : 'first ─ row'),
          React.createElement(Text, { color: flip ? 'green' : 'red' }, flip ? 'first ─ row' : 'second 名前'),
        ),
      );
    const terminal = renderTerminal(tree(0, 0, false), { columns: 40, rows: 10 });
    const frames = [terminal.frame()];
    for (const [left, top, flip] of [
      [2, 0, false],
      [4, 1, false],
      [2, 1, true],
      [0, 0, true],
      [0, 0, false],
      [2, 0, false],
    ] as const) {
      terminal.instance.rerender(tree(left, top, flip));
      frames.push(terminal.frame());
    }
    terminal.unmount();
    expect(check.differing()).toEqual([]);
    expect(check.frames()).toBeGreaterThanOrEqual(7);
    expect(new Set(frames).size).toBeGreaterThanOrEqual(5);
  } finally {
    check.restore();
  }
});
