// Ink's frame writer keeps the cursor where the root asked for it (src/ui/ink-cursor.ts):
// a frame that commits only a memoized child (a clock, a batch of events) leaves the
// cursor at the caret, shown; so does Ink's full redraw after the terminal got shorter;
// Ink's clear() shows no cursor. Ink writes to a terminal (a TTY stream, not Ink's debug
// mode) read by a terminal emulator.
import { describe, expect, test } from 'vitest';

import { EventEmitter } from 'node:events';
import React, { memo, useState } from 'react';
import { Box, render, Text, useCursor } from 'ink';
import xterm from '@xterm/headless';
import { installed } from '../../src/ui/ink-cursor.js';

/** A terminal for Ink: what Ink writes goes to an emulator of the same size. */
class Tty extends EventEmitter {
  isTTY = true;
  readonly term: InstanceType<typeof xterm.Terminal>;
  cursorShown = true;
  private parsed: Promise<void> = Promise.resolve();
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
    // A terminal's line discipline turns "\n" into "\r\n" (onlcr).
    this.term = new xterm.Terminal({ cols: columns, rows, allowProposedApi: true, scrollback: 100, convertEol: true });
    const mode = (shown: boolean) => (params: (number | number[])[]) => {
      if (params.includes(25)) this.cursorShown = shown;
      return false;
    };
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, mode(true));
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, mode(false));
  }
  write = (text: string, callback?: () => void): boolean => {
    this.parsed = new Promise((resolve) => this.term.write(text, resolve));
    callback?.();
    return true;
  };
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.term.resize(columns, rows);
    this.emit('resize');
  }
  /** The cursor once everything written is parsed. */
  async cursor(): Promise<{ x: number; y: number; shown: boolean }> {
    await this.parsed;
    const buffer = this.term.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY, shown: this.cursorShown };
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let tickClock: (n: number) => void = () => undefined;

/** A memoized child with its own state: its updates commit it alone, not the root. */
const Clock = memo(function Clock() {
  const [n, setN] = useState(0);
  tickClock = setN;
  return <Text>tick {n}</Text>;
});

/** The root owns the cursor, at column 4 of the field row (the frame's row `rows - 2`). */
function Root({ rows }: { rows: number }) {
  const { setCursorPosition } = useCursor();
  setCursorPosition({ x: 4, y: rows - 2 });
  return (
    <Box flexDirection="column" height={rows - 1}>
      <Clock />
      <Box flexGrow={1} />
      <Text>› abc</Text>
    </Box>
  );
}

describe("Ink's frame writer and the cursor", () => {
  test('the patch is in place (Ink has the shape it expects)', () => {
    expect(installed).toBe(true);
  });

  test('frames that commit a memoized child only, a shorter terminal (full redraw), a clear', async () => {
    const tty = new Tty(30, 10);
    const ink = render(<Root rows={10} />, { stdout: tty as unknown as NodeJS.WriteStream, stdin: new EventEmitter() as unknown as NodeJS.ReadStream, patchConsole: false, exitOnCtrlC: false, maxFps: 1000 });
    try {
      await wait(20);
      // The frame starts on the emulator's first row: the field is on row 8.
      expect(await tty.cursor()).toEqual({ x: 4, y: 8, shown: true });
      for (let n = 1; n <= 5; n++) {
        tickClock(n);
        await wait(20);
        expect(await tty.cursor(), `after tick ${n}`).toEqual({ x: 4, y: 8, shown: true });
        expect(tty.term.buffer.active.getLine(0)?.translateToString(true)).toBe(`tick ${n}`);
      }
      // Shorter: Ink redraws the whole frame (its last one was as tall as the terminal now).
      tty.resize(30, 6);
      ink.rerender(<Root rows={6} />);
      await wait(30);
      expect(await tty.cursor(), 'after the full redraw').toEqual({ x: 4, y: 4, shown: true });
      expect(tty.term.buffer.active.getLine(tty.term.buffer.active.viewportY + 4)?.translateToString(true)).toBe('› abc');
      tickClock(6);
      await wait(20);
      expect(await tty.cursor(), 'after the frame after it').toEqual({ x: 4, y: 4, shown: true });
      expect(tty.term.buffer.active.getLine(tty.term.buffer.active.viewportY)?.translateToString(true)).toBe('tick 6');
      // Ink's clear(): the frame goes, and no cursor shows where it was.
      ink.clear();
      await wait(20);
      expect((await tty.cursor()).shown).toBe(false);
    } finally {
      ink.unmount();
      tty.term.dispose();
    }
  });
});
