/**
 * Follows a file another program appends to, as `tail -F` does: complete lines as they are
 * appended (a partial last line waits for its newline), with a notice when the file is
 * truncated (read again from its start), replaced by another file (rotation: the new file
 * is read from its start), removed, or unreadable. Polls `stat` at a fixed interval: file
 * system events are unreliable across platforms and network mounts, and a poll of 100 ms
 * keeps a new line on screen well within a second.
 */
import { closeSync, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { LineSplitter } from '../engine/agents/transcripts/index.js';
import { shownName } from '../text/sanitize.js';

/** What a tail reports, in file order. */
export type TailItem = { kind: 'line'; text: string } | { kind: 'notice'; cause: TailTrouble; text: string };

/**
 * Why a tail says something: the file is not there (yet, or any more), cannot be read, was
 * truncated (read again from its start), was replaced by another file (rotation: the new one
 * is read from its start), or its last line was cut off when it went away.
 */
export type TailTrouble = 'missing' | 'unreadable' | 'truncated' | 'replaced' | 'cut';

/** Bytes read per poll at most: a huge append is read over several polls, memory stays bounded. */
export const TAIL_CHUNK_BYTES = 4 * 1024 * 1024;

/** Milliseconds between polls by default. */
export const TAIL_POLL_MS = 100;

export interface TailOptions {
  /** Milliseconds between polls; default {@link TAIL_POLL_MS}. */
  pollMs?: number;
  /** Called with each batch of items a poll found (never empty). */
  onItems: (items: TailItem[]) => void;
}

/**
 * Reads `file` from its start, then follows it. Call {@link FileTail.poll} directly (tests,
 * a synchronous first read) or {@link FileTail.start} to poll on a timer; `stop` ends it.
 */
export class FileTail {
  private fd: number | null = null;
  private ino: number | null = null;
  private offset = 0;
  private decoder = new StringDecoder('utf8');
  private splitter = new LineSplitter();
  private timer: NodeJS.Timeout | null = null;
  /** The last problem reported, so a missing file is said once, not every poll. */
  private trouble: string | null = null;
  /** Whether the file was ever opened (a missing file is then "removed", not "not there yet"). */
  private opened = false;

  constructor(
    readonly file: string,
    private readonly options: TailOptions,
  ) {}

  /** Polls now and then every `pollMs` until {@link stop}. */
  start(): void {
    this.poll();
    this.timer ??= setInterval(() => this.poll(), this.options.pollMs ?? TAIL_POLL_MS);
  }

  /** Stops polling and closes the file. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.close();
  }

  /** Reads what was appended since the last poll and reports it. */
  poll(): void {
    const items: TailItem[] = [];
    try {
      this.readInto(items);
    } catch (error) {
      this.problem(items, 'unreadable', `${this.file}: reading it failed (${(error as NodeJS.ErrnoException).code ?? String(error)}); trying again`);
    }
    if (items.length > 0) this.options.onItems(items);
  }

  private readInto(items: TailItem[]): void {
    let current: Stats | undefined;
    try {
      current = statSync(this.file, { throwIfNoEntry: false });
    } catch (error) {
      this.problem(items, 'unreadable', `${this.file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)}); still waiting`);
      return;
    }
    if (!current) {
      this.problem(items, 'missing', this.opened ? `${shownName(this.file)} was removed; waiting for it to come back` : `${shownName(this.file)}: no such file yet; waiting for it`);
      return;
    }
    if (this.fd !== null && current.ino !== this.ino) {
      this.flushPartial(items);
      items.push({ kind: 'notice', cause: 'replaced', text: `${this.file} was replaced by another file (rotated); following the new one from its start` });
      this.close();
    }
    if (this.fd === null && !this.open(items)) return;
    const size = fstatSync(this.fd!).size;
    if (size < this.offset) {
      items.push({ kind: 'notice', cause: 'truncated', text: `${this.file} was truncated (from ${this.offset} to ${size} bytes); reading it again from its start` });
      this.offset = 0;
      this.decoder = new StringDecoder('utf8');
      this.splitter = new LineSplitter();
    }
    this.trouble = null;
    this.readAppended(items, size);
  }

  private open(items: TailItem[]): boolean {
    try {
      this.fd = openSync(this.file, 'r');
    } catch (error) {
      this.problem(items, 'unreadable', `${this.file}: cannot open it (${(error as NodeJS.ErrnoException).code ?? String(error)}); still waiting`);
      return false;
    }
    this.ino = fstatSync(this.fd).ino;
    this.opened = true;
    this.offset = 0;
    this.decoder = new StringDecoder('utf8');
    this.splitter = new LineSplitter();
    return true;
  }

  private readAppended(items: TailItem[], size: number): void {
    const want = Math.min(size - this.offset, TAIL_CHUNK_BYTES);
    if (want <= 0) return;
    const buffer = Buffer.alloc(want);
    const got = readSync(this.fd!, buffer, 0, want, this.offset);
    this.offset += got;
    for (const text of this.splitter.push(this.decoder.write(buffer.subarray(0, got)))) items.push({ kind: 'line', text });
  }

  /** A partial line left when the file goes away is reported as cut off, never parsed as whole. */
  private flushPartial(items: TailItem[]): void {
    const rest = this.splitter.rest() + this.decoder.end();
    if (rest.trim() !== '') items.push({ kind: 'notice', cause: 'cut', text: `${this.file}: its last line was cut off (${rest.length} characters without a newline); left out` });
  }

  private problem(items: TailItem[], cause: TailTrouble, text: string): void {
    if (this.fd !== null) {
      this.flushPartial(items);
      this.close();
    }
    if (this.trouble === text) return;
    this.trouble = text;
    items.push({ kind: 'notice', cause, text });
  }

  private close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.ino = null;
  }
}
