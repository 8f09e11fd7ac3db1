import { closeSync, fstatSync, readSync } from 'node:fs';
import type { LoopEvent } from './events.js';
import { draftOf, fold, INITIAL_STATE, reduce, type SessionState, type ToolRecord } from './fold.js';
import { filePieces, LogScanner, openLog, stoppedAt, type Piece } from './log.js';

/** Events between fold snapshots at first; the spacing doubles whenever {@link MAX_SNAPSHOTS} would be passed. */
export const FIRST_SNAPSHOT_EVERY = 1000;

/**
 * Fold snapshots an index keeps at most, whatever the log's length. A snapshot shares its
 * lists with the one before it ({@link Kept}): it costs what the events since then added
 * to them and a copy of the state's small fields. At 32, the spacing is 32,000 events at
 * 1,000,000 (a jump folds at most that many).
 */
export const MAX_SNAPSHOTS = 32;

/** Fine states kept between two snapshots around the cursor, so stepping back one event folds at most 1/FINE_STEPS of a spacing. */
const FINE_STEPS = 16;

/**
 * A part of an array no one changes any more: `items[from..to)`. Kept states point into
 * the same frozen arrays, so the part of a list two states have in common is held once.
 */
type Span<T> = readonly [items: readonly T[], from: number, to: number];

/** A list as a state is kept: spans in order, shared with the state kept before it. */
interface Shared<T> {
  readonly spans: readonly Span<T>[];
  readonly length: number;
}

const NOTHING_SHARED: Shared<never> = { spans: [], length: 0 };

/**
 * `items` as kept: the longest start of it that `before` holds (the same elements, by
 * identity) is shared with `before`, the rest is copied. A list that only grows at its end
 * (the agent's history, the order of tool calls) so costs each kept state only what was
 * added since the state before; a list changed anywhere else is copied from there on.
 */
function share<T>(items: readonly T[], before: Shared<T>): Shared<T> {
  const spans: Span<T>[] = [];
  let at = 0;
  for (const span of before.spans) {
    const [held, from, to] = span;
    const n = Math.min(to - from, items.length - at);
    let same = 0;
    while (same < n && held[from + same] === items[at + same]) same++;
    at += same;
    if (same === to - from) {
      spans.push(span);
      continue;
    }
    if (same > 0) spans.push([held, from, from + same]);
    break;
  }
  if (at < items.length) spans.push([items.slice(at), 0, items.length - at]);
  return { spans, length: items.length };
}

/** The list {@link share} kept, as a new array. */
function unshare<T>(shared: Shared<T>): T[] {
  const out: T[] = [];
  for (const [held, from, to] of shared.spans) for (let i = from; i < to; i++) out.push(held[i]!);
  return out;
}

type Lists = Readonly<Record<string, Shared<unknown>>>;

/**
 * A state as an index keeps it: its lists (every array of the state, the claims since the
 * last checkpoint, and the record of tool calls as two lists, its keys and its values)
 * shared with the state kept before it ({@link share}), the rest copied as {@link draftOf}
 * copies a state. The lists of a long run grow with it (one entry a tool call in the
 * record, the order and the agent's history) and change only at their end, so a kept
 * state costs about what was added since the one before (measured at the end of a
 * 1,000,000-event log, 71,420 tool calls: a few kB, where a copy of the lists is 1.7 MB).
 * {@link expand} makes the state again.
 */
interface Kept {
  /** The state with every list left empty and no tool call. */
  readonly state: SessionState;
  /** The state's arrays, by field. */
  readonly lists: Lists;
  /** The arrays of `reportSinceCheckpoint`, by field. */
  readonly claims: Lists;
  readonly toolIds: Shared<string>;
  readonly toolCalls: Shared<ToolRecord>;
}

/** The arrays of `value`, each shared with the same field of `before` ({@link share}); `emptied` gets an empty array for each. */
function shareLists(value: object, before: Lists | undefined, emptied: Record<string, unknown>): Lists {
  const lists: Record<string, Shared<unknown>> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!Array.isArray(item)) continue;
    lists[key] = share(item, before?.[key] ?? NOTHING_SHARED);
    emptied[key] = [];
  }
  return lists;
}

/** `state` as kept, sharing its lists with `before` (a state kept earlier, the closer the better). `state` is not held: the index's front may be given. */
function keep(state: SessionState, before: Kept | null): Kept {
  const emptied: Record<string, unknown> = { tools: {} };
  const lists = shareLists(state, before?.lists, emptied);
  const claimsEmptied: Record<string, unknown> = {};
  const claims = shareLists(state.reportSinceCheckpoint, before?.claims, claimsEmptied);
  emptied.reportSinceCheckpoint = { ...state.reportSinceCheckpoint, ...claimsEmptied };
  const copy = draftOf({ ...state, ...emptied } as SessionState);
  const ids = Object.keys(state.tools);
  const order = state.toolOrder;
  // The keys are the tool calls in order, as a rule: then the order serves for both.
  const same = ids.length === order.length && ids.every((id, i) => id === order[i]);
  const toolIds = same ? (lists.toolOrder as Shared<string>) : share(ids, before?.toolIds ?? NOTHING_SHARED);
  return { state: copy, lists, claims, toolIds, toolCalls: share(Object.values(state.tools), before?.toolCalls ?? NOTHING_SHARED) };
}

/** The lists of `lists` as new arrays, by field. */
function unshareLists(lists: Lists): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [key, list] of Object.entries(lists)) out[key] = unshare(list);
  return out;
}

/** The state {@link keep} kept; its lists and record of tool calls are new (the rest is shared, not to be changed in place). */
function expand(kept: Kept): SessionState {
  const tools: SessionState['tools'] = {};
  const ids = unshare(kept.toolIds);
  const calls = unshare(kept.toolCalls);
  for (let i = 0; i < ids.length; i++) tools[ids[i]!] = calls[i]!;
  const reportSinceCheckpoint = { ...kept.state.reportSinceCheckpoint, ...unshareLists(kept.claims) };
  return { ...kept.state, ...unshareLists(kept.lists), reportSinceCheckpoint, tools };
}

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
  private snapshots: Kept[] = [keep(INITIAL_STATE, null)];
  /** The state kept last from the front: the next one shares its lists with it. */
  private lastKept: Kept = this.snapshots[0]!;
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
  private fine: { slot: number; states: Kept[] } | null = null;
  /**
   * The fine states of the last spacing (after the last snapshot), kept as the events are
   * read: `trailing[j]` is the fold of the first `last snapshot + (j + 1) * every / FINE_STEPS`
   * events. So the end of the log (where a console opens, and where End goes) needs no fold
   * of a whole spacing before a step back.
   */
  private trailing: Kept[] = [];
  /** Events {@link stateAt} has folded so far (for tests and the bench: what a seek cost). */
  folded = 0;

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
        // Nothing changes the front any more: it is the state callers get, not a copy of it.
        this.frozen = this.front;
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
    const start = (this.snapshots.length - 1) * this.every;
    const step = Math.max(1, Math.floor(this.every / FINE_STEPS));
    if (this.count === this.snapshots.length * this.every) {
      this.trailing = [];
      this.snapshots.push(this.keepFront());
      if (this.snapshots.length > this.maxSnapshots) {
        this.every *= 2;
        this.snapshots = this.snapshots.filter((_, i) => i % 2 === 0);
        this.fine = null;
      }
    } else if ((this.count - start) % step === 0 && this.nearEnd()) this.trailing.push(this.keepFront());
  }

  /** The front as kept, sharing its lists with the state kept before it. */
  private keepFront(): Kept {
    this.lastKept = keep(this.front, this.lastKept);
    return this.lastKept;
  }

  /**
   * The last spacing of the file is being read (judged by the bytes an event took so far):
   * only its fine states are kept while reading, as earlier ones would be dropped again.
   */
  private nearEnd(): boolean {
    return this.size - this.bytesRead <= (2 * this.every * this.bytesRead) / Math.max(1, this.count);
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
      this.front = draftOf(fold(this.read(slot * this.every, this.count), expand(this.snapshots[slot]!)));
      this.frozen = null;
      // The event that failed may have changed the states kept since the last snapshot too.
      this.trailing = [];
      this.fine = null;
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
    const k = Math.floor((count - start) / step);
    const states = slot === this.snapshots.length - 1 && k <= this.trailing.length ? [this.snapshots[slot]!, ...this.trailing] : this.fineStates(slot);
    let at = states.length > k ? k : states.length - 1;
    let state = expand(states[at]!);
    for (; at < k; at++) {
      state = this.foldCounted(this.read(start + at * step, start + (at + 1) * step), state);
      states.push(keep(state, states.at(-1)!));
    }
    return this.foldCounted(this.read(start + k * step, count), state);
  }

  /** The fine states kept for spacing `slot` (only its snapshot until stepping needs more); those of another spacing are dropped. */
  private fineStates(slot: number): Kept[] {
    if (this.fine?.slot !== slot) this.fine = { slot, states: [this.snapshots[slot]!] };
    return this.fine.states;
  }

  private foldCounted(events: LoopEvent[], state: SessionState): SessionState {
    this.folded += events.length;
    return fold(events, state);
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
