// The stream Ink draws on keeps the operator's scrollback: no ESC[3J, no screen cleared
// whole (a copy of it kept by tmux and VTE), and no redraw of the frame of the old size
// while a resize is handled (Ink's own listener draws the tree it has; the console's
// re-render at the new size follows).
import { EventEmitter } from 'node:events';
import { describe, expect, test } from 'vitest';
import { keepingScrollback } from '../../src/ui/keep-scrollback.js';

/** A terminal stream that records what is written to it. */
function fakeTerminal() {
  const written: string[] = [];
  const stream = Object.assign(new EventEmitter(), {
    columns: 80,
    rows: 24,
    write(chunk: string, callback?: () => void) {
      written.push(chunk);
      callback?.();
      return true;
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, written };
}

describe('keepingScrollback', () => {
  test('a full redraw erases the screen without ESC[2J or ESC[3J, and draws the frame', () => {
    const { stream, written } = fakeTerminal();
    keepingScrollback(stream).write('\u001b[2J\u001b[3J\u001b[Hframe');
    expect(written).toEqual(['\u001b[H\u001b[2K\u001b[2;1H\u001b[J\u001b[H\u001b[Hframe']);
  });

  test('the redraw Ink writes while a resize is handled is dropped; its callback still runs; the next one is written', async () => {
    const { stream, written } = fakeTerminal();
    const ink = keepingScrollback(stream);
    let done = false;
    // Ink's own listener, added after the wrapper was made (as Ink does in its constructor).
    ink.on('resize', () => ink.write('\u001b[2J\u001b[3J\u001b[Hold frame', () => (done = true)));
    stream.emit('resize');
    await Promise.resolve();
    expect(written).toEqual([]);
    expect(done).toBe(true);
    ink.write('\u001b[2J\u001b[3J\u001b[Hnew frame');
    expect(written).toEqual(['\u001b[H\u001b[2K\u001b[2;1H\u001b[J\u001b[H\u001b[Hnew frame']);
  });

  test("an incremental frame written during a resize (Ink's old layout, as wide as before) is dropped too; the next write passes", async () => {
    const { stream, written } = fakeTerminal();
    const ink = keepingScrollback(stream);
    ink.on('resize', () => ink.write('\u001b[2K\u001b[1Aline'));
    stream.emit('resize');
    expect(written).toEqual([]);
    await Promise.resolve();
    ink.write('\u001b[2K\u001b[1Anew line');
    expect(written).toEqual(['\u001b[2K\u001b[1Anew line']);
  });
});
