// A terminal for ink tests with a chosen size: ink-testing-library's stdout is fixed at
// 100 columns and has no rows. Frames are written whole (Ink's debug mode), as
// ink-testing-library does; `resize` changes the size and emits 'resize' like a TTY.
import { EventEmitter } from 'node:events';
import type { ReactElement } from 'react';
import { stripVTControlCharacters } from 'node:util';
import { render as inkRender, type Instance } from 'ink';
import { FakeStdin } from './fake-stdin.js';

export class FakeStdout extends EventEmitter {
  readonly frames: string[] = [];
  isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string): boolean => {
    this.frames.push(frame);
    return true;
  };
  lastFrame = (): string | undefined => this.frames.at(-1);
}

export interface Terminal {
  stdin: FakeStdin;
  stdout: FakeStdout;
  instance: Instance;
  /** The last frame as written (with colours). */
  lastFrame: () => string;
  /** The last frame, colours stripped. */
  frame: () => string;
  resize: (columns: number, rows: number) => void;
  unmount: () => void;
}

/** Renders `tree` into a terminal of `columns` × `rows`. */
export function renderTerminal(
  tree: ReactElement,
  { columns = 100, rows = 30, onRender }: { columns?: number; rows?: number; onRender?: () => void } = {},
): Terminal {
  const stdout = new FakeStdout(columns, rows);
  const stderr = new FakeStdout(columns, rows);
  const stdin = new FakeStdin();
  const instance = inkRender(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
    ...(onRender ? { onRender } : {}),
  });
  return {
    stdin,
    stdout,
    instance,
    lastFrame: () => stdout.lastFrame() ?? '',
    frame: () => stripVTControlCharacters(stdout.lastFrame() ?? ''),
    resize(c, r) {
      stdout.columns = c;
      stdout.rows = r;
      stdout.emit('resize');
    },
    unmount() {
      instance.unmount();
      instance.cleanup();
    },
  };
}
