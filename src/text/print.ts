// The only ways loopdeck writes text to stdout and stderr outside the console: every line
// is sanitized and every JSON is escaped, whatever part of it came from an agent, a tool,
// a file, a hook or a server. (Ink draws the console; its components sanitize what they
// show, and `guardConsole` covers what libraries print through `console` meanwhile.)
import { Writable } from 'node:stream';
import { toJson, toJsonChunks } from './json.js';
import { sanitize } from './sanitize.js';

/** Writes `text` and a newline to stderr, sanitized (see {@link sanitize}; newlines kept). */
export function printError(text: string): void {
  process.stderr.write(`${sanitize(text)}\n`);
}

/**
 * Writes each warning as `loopdeck: <warning>` on its own line of stderr, sanitized, in one
 * write: stderr's writes are redacted one by one against this process's secrets, and a log
 * of many bad lines has a warning for each.
 */
export function printWarnings(warnings: readonly string[]): void {
  if (warnings.length > 0) printError(warnings.map((warning) => `loopdeck: ${warning}`).join('\n'));
}

/** Prints notes (what is worth knowing and is no problem) on stderr, each as `loopdeck: note: …`. */
export function printNotes(notes: readonly string[]): void {
  if (notes.length > 0) printError(notes.map((note) => `loopdeck: note: ${note}`).join('\n'));
}

/** Writes `text` and a newline to stdout, sanitized (see {@link sanitize}; newlines kept). */
export function printLine(text: string): void {
  process.stdout.write(`${sanitize(text)}\n`);
}

/** Writes `value` as JSON and a newline to stdout, control and bidi characters escaped (see {@link toJson}). */
export function printJson(value: unknown, space?: number): void {
  process.stdout.write(`${toJson(value, space)}\n`);
}

/**
 * Writes `value` as {@link printJson} does, in chunks of about 1 MiB ({@link toJsonChunks}),
 * waiting for stdout to take each chunk before making the next one: a large value is
 * printed without building its whole text, and no more than a chunk of it waits in memory
 * when stdout is a pipe whose reader is slower than the serialisation.
 * Resolves once the last chunk was handed to stdout (or stdout was closed: its reader went
 * away, which the command line's `error` listener handles).
 */
export async function writeJsonChunks(value: unknown, space: number): Promise<void> {
  const stdout = process.stdout;
  let last = '';
  for (const chunk of toJsonChunks(value, space)) {
    if (last !== '' && !stdout.write(last)) await drained(stdout);
    last = chunk;
  }
  stdout.write(`${last}\n`);
}

/**
 * Resolves when `stream` drained, or closed. No `error` listener is added (as `events.once`
 * would add): a closed pipe's EPIPE stays with the listeners the command line set.
 */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** The `console` methods that print or keep printing state (group depth, counters, timers). */
const PRINTING = ['assert', 'count', 'countReset', 'debug', 'dir', 'dirxml', 'error', 'group', 'groupCollapsed', 'groupEnd', 'info', 'log', 'table', 'time', 'timeEnd', 'timeLog', 'trace', 'warn'] as const;

/**
 * Makes `console` print sanitized text: a library that logs what a server sent (the
 * OpenAI SDK prints a stream line it cannot parse with `console.error`) cannot reach the
 * terminal with it. Everything goes to the `console.error` in place now (stderr before
 * and after the console; Ink's own, drawn above the frame, while the console is up), so
 * stdout keeps only loopdeck's output (the JSONL stream when headless).
 * Call it at start-up, and again after Ink replaced `console` for its frame.
 * @returns a function that puts back the methods replaced, unless someone replaced them since
 */
export function guardConsole(): () => void {
  const target = console.error;
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      target('%s', sanitize(chunk.toString()).replace(/\n$/, ''));
      done();
    },
  });
  const inner = new console.Console({ stdout: sink, stderr: sink, colorMode: false });
  const previous = new Map<string, unknown>();
  const installed = new Map<string, unknown>();
  const methods = console as unknown as Record<string, unknown>;
  const guarded = inner as unknown as Record<string, unknown>;
  for (const name of PRINTING) {
    previous.set(name, methods[name]);
    installed.set(name, guarded[name]);
    methods[name] = guarded[name];
  }
  return () => {
    for (const name of PRINTING) if (methods[name] === installed.get(name)) methods[name] = previous.get(name);
  };
}
