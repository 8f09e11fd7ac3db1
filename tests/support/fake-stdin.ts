// A terminal's stdin in raw mode, as ink-testing-library builds it, for Ink rendered
// into a test or benchmark terminal. Imports nothing of Ink (the benchmark imports Ink
// only after it has cleared the CI flag).
import { EventEmitter } from 'node:events';

/** Raw-mode stdin for Ink: `write(key)` delivers a key as a terminal would. */
export class FakeStdin extends EventEmitter {
  readonly isTTY = true;
  isRaw = false;
  private data: string | null = null;
  write = (data: string): void => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = (): string | null => {
    const { data } = this;
    this.data = null;
    return data;
  };
  setEncoding(): void {}
  setRawMode(mode: boolean): void {
    this.isRaw = mode;
  }
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}
