// Every exit path restores the terminal and flushes the log: a crash anywhere, a rejected
// promise, SIGTERM, SIGHUP, SIGINT. guardExits is exercised on a stand-in process.
import { EventEmitter } from 'node:events';
import { describe, expect, test, vi } from 'vitest';
import type { Instance } from 'ink';
import { guardExits, restoreTerminal, type ExitHost } from '../../src/ui/run-console.js';

function host() {
  const events = new EventEmitter();
  const written: string[] = [];
  const stdin = {
    isTTY: true,
    isRaw: true,
    setRawMode: vi.fn((mode: boolean): void => {
      stdin.isRaw = mode;
    }),
  };
  const stdout = { isTTY: true, write: vi.fn((text: string) => written.push(text)) };
  const stderr: string[] = [];
  const exit = vi.fn();
  const h: ExitHost = {
    on: (event, listener) => events.on(event, listener),
    off: (event, listener) => events.off(event, listener),
    exit,
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: { write: (text: string) => stderr.push(text) },
  };
  return { h, events, stdin, written, stderr, exit };
}

describe('guardExits', () => {
  test.each([
    ['uncaughtException', new Error('boom'), 1, /^loopdeck: crashed: Error: boom/],
    ['unhandledRejection', 'nope', 1, /^loopdeck: crashed: nope/],
    ['SIGTERM', undefined, 130, /^loopdeck: terminated \(SIGTERM\); the log is kept/],
    ['SIGHUP', undefined, 130, /^loopdeck: the terminal went away \(SIGHUP\)/],
    ['SIGINT', undefined, 130, /^loopdeck: interrupted \(SIGINT\); the log is kept/],
    ['SIGQUIT', undefined, 130, /^loopdeck: quit \(SIGQUIT\); the log is kept/],
  ] as const)('%s: unmounts, restores the terminal, flushes the log, reports, exits %i', (event, payload, code, message) => {
    const { h, events, stdin, written, stderr, exit } = host();
    const unmount = vi.fn();
    const flush = vi.fn();
    const order: string[] = [];
    unmount.mockImplementation(() => order.push('unmount'));
    stdin.setRawMode.mockImplementation((mode: boolean) => {
      order.push(`raw ${mode}`);
      stdin.isRaw = mode;
    });
    flush.mockImplementation(() => order.push('flush'));
    exit.mockImplementation(() => order.push('exit'));
    const remove = guardExits(() => ({ unmount }) as unknown as Instance, flush, h);
    events.emit(event, payload);
    expect(order).toEqual(['unmount', 'raw false', 'flush', 'exit']);
    expect(written.join('')).toContain('\u001b[?25h');
    expect(written.join('')).toContain('\u001b[?2004l'); // bracketed paste off
    expect(stderr.join('')).toMatch(message);
    expect(exit).toHaveBeenCalledExactlyOnceWith(code);
    // A second signal while exiting does nothing more.
    events.emit('SIGTERM');
    expect(exit).toHaveBeenCalledTimes(1);
    remove();
    expect(['uncaughtException', 'unhandledRejection', 'SIGTERM', 'SIGHUP', 'SIGINT', 'SIGQUIT'].map((e) => events.listenerCount(e))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  test('a log that cannot be flushed is reported, and the exit still happens', () => {
    const { h, events, stderr, exit } = host();
    guardExits(() => null, () => {
      throw new Error('disk full');
    }, h);
    events.emit('SIGTERM');
    expect(stderr.join('')).toContain('loopdeck: could not flush the log: disk full');
    expect(exit).toHaveBeenCalledWith(130);
  });

  test('a crash quoting an agent or a server is printed sanitized: no escape sequence, bidi control or \\r reaches stderr', () => {
    const { h, events, stderr } = host();
    const remove = guardExits(() => null, () => {
      throw new Error('disk full \u001b]0;flush\u0007');
    }, h);
    events.emit('uncaughtException', new Error('server said \u001b]52;c;ZXZpbA==\u0007\u001b[2J\u009b2J\u202Eevil\rfake'));
    const text = stderr.join('');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(text).toContain('loopdeck: could not flush the log: disk full ^[]0;flush^G\n');
    expect(text).toContain('loopdeck: crashed: Error: server said ^[]52;c;ZXZpbA==^G^[[2J\\u{9b}2J\\u{202e}evil^Mfake');
    remove();
  });

  test('restoreTerminal leaves a terminal that is not in raw mode alone, turns bracketed paste off and shows the cursor', () => {
    const { h, stdin, written } = host();
    stdin.isRaw = false;
    restoreTerminal(h.stdin, h.stdout);
    expect(stdin.setRawMode).not.toHaveBeenCalled();
    expect(written.join('')).toBe('\u001b[?2004l\u001b[?25h');
  });
});
