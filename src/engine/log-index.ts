import { closeSync, fstatSync, readSync } from 'node:fs';
import type { LoopEvent } from './events.js';
import { draftOf, fold, INITIAL_STATE, reduce, type SessionState } from './fold.js';
import { filePieces, LogScanner, openLog, stoppedAt, type Piece } from './log.js';

/** Events between fold snapshots at first; the spacing doubles whenever {@link MAX_SNAPSHOTS} would be passed. */
export const FIRST_SNAPSHOT_EVERY = 1000;

/**
 * Fold snapshots an index keeps at most, whatever the log's length. A snapshot shares
 * with its neighbours every array the events between them left alone, but each copies the
 * records those events touched (the tool calls, the agent's history), which grow with the
 * run: about 2 MB each at the end of a 1,000,000-event log. At 32, the spacing is 32,000
 * events at 1,000,000 (a seek folds at most that many) and the snapshots hold about 60 MB.
 */
export const MAX_SNAPSHOTS = 32;

/** Fine states kept between two snapshots around the cursor, so stepping back one event folds at most 1/FINE_STEPS of a spacing. */
const FINE_STEPS = 16;

/**
 * A recorded log read lazily: the byte offset and length of every event kept (the events
 * {@link parseLog} keeps, with the same warnings, in the same order), and the folded state
 * every `every` events. An event is parsed again from the file when it is asked for; the
 * state as of any event is the nearest snapshot before it plus the events after it.
 * Memory: 12 bytes an event for the offsets, {@link MAX_SNAPSHOTS} states at most, and the
 * fold of the whole log (the state at the end).
 *
 * Built in steps ({@link readMore}) so a console can draw while it reads.
 */
export class LogIndex {
  private starts = new Float64Array(1 << 16);
  private lengths = new Uint32Array(1 << 16);
  /** Events indexed so far. */
  count = 0;
  /** `snapshots[i]` is the fold of the first `i * every` events. */
  private snapshots: SessionState[] = [INITIAL_STATE];
  /** Events between snapshots (a power of two times {@link FIRST_SNAPSHOT_EVERY}). */
  every = FIRST_SNAPSHOT_EVERY;
  /** The fold of every event indexed so far, changed in place as events are read. */
  private front: SessionState = draftOf(INITIAL_STATE);
  /** A copy of `front` for callers, made when asked for after a change. */
  private frozen: SessionState | null = INITIAL_STATE;
  /** Bytes read so far, and the file's size when it was opened. */
  bytesRead = 0;
  readonly size: number;
  /** Set when the whole file is read: every warning ({@link parseLog}'s, in its order). */
  warnings: string[] | null = null;
  unresumable: string | undefined;
  private readonly fd: number;
  private readonly pieces: Generator<Piece>;
  private readonly scanner: LogScanner;
  private damaged = false;
  /** Set when the fold after a gap could not take an event: nothing after it is indexed. */
  private stopped: string | null = null;
  /** States every `every / FINE_STEPS` events inside one spacing (`slot`), filled as stepping needs them. */
  private fine: { slot: number; states: SessionState[] } | null = null;

  private readonly maxSnapshots: number;
  /** The newest events indexed, parsed (at least `keepTail` once that many are read), so reading the end asks nothing of the file. */
  private tail: LoopEvent[] = [];
  private readonly keepTail: number;

  /**
   * `options` (for tests): the first spacing of snapshots ({@link FIRST_SNAPSHOT_EVERY}),
   * how many are kept at most ({@link MAX_SNAPSHOTS}), the bytes read at a time; and
   * `keepTail`, how many of the newest events to keep parsed (a console following the
   * reading shows them; default none).
   * @throws LogError naming the file when it cannot be read
   */
  constructor(readonly file: string, options: { every?: number; maxSnapshots?: number; chunkBytes?: number; keepTail?: number } = {}) {
    this.fd = openLog(file);
    this.size = fstatSync(this.fd).size;
    this.every = options.every ?? FIRST_SNAPSHOT_EVERY;
    this.maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
    this.keepTail = options.keepTail ?? 0;
    this.scanner = new LogScanner(file, (e, piece) => this.add(e, piece), () => (this.damaged = true));
    this.pieces = filePieces(this.fd, file, this.scanner.nulWarnings, (bytes) => (this.bytesRead = bytes), options.chunkBytes);
  }

  /** Reads and indexes the whole file (`options` as for the constructor). @throws LogError */
  static read(file: string, options: ConstructorParameters<typeof LogIndex>[1] = {}): LogIndex {
    const index = new LogIndex(file, options);
    while (!index.readMore(1 << 20));
    return index;
  }

  /** The whole file is read. */
  get complete(): boolean {
    return this.warnings !== null;
  }

  /**
   * Reads up to `pieces` more lines; `true` once the whole file is read.
   * @throws LogError for a `session.start` of an unreadable schema version
   */
  readMore(pieces: number): boolean {
    if (this.warnings) return true;
    for (let i = 0; i < pieces; i++) {
      const next = this.pieces.next();
      if (next.done) {
        const { warnings, unresumable } = this.scanner.end();
        this.warnings = this.stopped ? [...warnings, this.stopped] : warnings;
        this.unresumable = unresumable;
        return true;
      }
      this.scanner.push(next.value);
    }
    return false;
  }

  /** The fold of every event indexed so far. */
  get state(): SessionState {
    this.frozen ??= draftOf(this.front);
    return this.frozen;
  }

  /** Folds and indexes one event the scanner kept; keeps a snapshot when a spacing is reached. */
  private add(e: LoopEvent, piece: Piece): void {
    if (this.stopped) return;
    if (!this.damaged) reduce(this.front, e);
    else if (!this.reduceAfterDamage(e)) return;
    this.frozen = null;
    if (this.count === this.starts.length) {
      const starts = new Float64Array(this.count * 2);
      const lengths = new Uint32Array(this.count * 2);
      starts.set(this.starts);
      lengths.set(this.lengths);
      this.starts = starts;
      this.lengths = lengths;
    }
    this.starts[this.count] = piece.offset!;
    this.lengths[this.count] = piece.bytes!;
    this.count += 1;
    if (this.keepTail > 0) {
      this.tail.push(e);
      if (this.tail.length >= 2 * this.keepTail) this.tail = this.tail.slice(-this.keepTail);
    }
    if (this.count === this.snapshots.length * this.every) {
      this.snapshots.push(this.state);
      if (this.snapshots.length > this.maxSnapshots) {
        this.every *= 2;
        this.snapshots = this.snapshots.filter((_, i) => i % 2 === 0);
        this.fine = null;
      }
    }
  }

  /**
   * After a gap: folds `e` on trial (as `parseLog` does); when the fold cannot take it,
   * nothing more is indexed, with a warning, and the front is folded again from the last
   * snapshot (the failed event may have changed part of it).
   */
  private reduceAfterDamage(e: LoopEvent): boolean {
    try {
      reduce(this.front, e);
      return true;
    } catch (error) {
      this.stopped = stoppedAt(this.file, e, error);
      const slot = this.snapshots.length - 1;
      this.front = draftOf(fold(this.read(slot * this.every, this.count), this.snapshots[slot]));
      this.frozen = null;
      return false;
    }
  }

  /** Events `from` (inclusive) to `to` (exclusive), parsed again from the file. */
  read(from: number, to: number): LoopEvent[] {
    const first = Math.max(0, from);
    const end = Math.min(this.count, to);
    if (end <= first) return [];
    const tailStart = this.count - this.tail.length;
    if (first >= tailStart) return this.tail.slice(first - tailStart, end - tailStart);
    const base = this.starts[first]!;
    const span = this.starts[end - 1]! + this.lengths[end - 1]! - base;
    const bytes = Buffer.allocUnsafe(span);
    for (let got = 0; got < span; ) {
      const n = readSync(this.fd, bytes, got, span - got, base + got);
      if (n === 0) throw new Error(`${this.file}: the log is shorter than when it was read (it was changed while shown)`);
      got += n;
    }
    const out: LoopEvent[] = new Array(end - first);
    for (let i = first; i < end; i++) {
      const at = this.starts[i]! - base;
      out[i - first] = JSON.parse(bytes.toString('utf8', at, at + this.lengths[i]!)) as LoopEvent;
    }
    return out;
  }

  /** The fold of events `0..index` (inclusive), from the nearest state kept before it. */
  stateAt(index: number): SessionState {
    const count = Math.max(0, Math.min(this.count, index + 1));
    if (count === this.count) return this.state;
    const slot = Math.min(Math.floor(count / this.every), this.snapshots.length - 1);
    const start = slot * this.every;
    const step = Math.max(1, Math.floor(this.every / FINE_STEPS));
    if (this.fine?.slot !== slot) this.fine = { slot, states: [this.snapshots[slot]!] };
    const { states } = this.fine;
    const k = Math.floor((count - start) / step);
    while (states.length <= k) {
      const at = start + (states.length - 1) * step;
      states.push(fold(this.read(at, at + step), states.at(-1)));
    }
    return fold(this.read(start + k * step, count), states[k]);
  }

  /**
   * The last event whose state is at hand without a fold or a copy: the last snapshot's
   * (or the last event, once the whole file is read); -1 before the first. A console
   * following the reading shows it, so following costs no copy of the growing state.
   */
  get atHand(): number {
    return this.complete ? this.count - 1 : (this.snapshots.length - 1) * this.every - 1;
  }

  /** Snapshots kept now (for tests and the bench). */
  get snapshotCount(): number {
    return this.snapshots.length;
  }

  close(): void {
    closeSync(this.fd);
  }
}
