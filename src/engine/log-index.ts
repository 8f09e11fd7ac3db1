import { closeSync, fstatSync, readSync } from 'node:fs';
import type { LoopEvent } from './events.js';
import { draftOf, INITIAL_STATE, reduce, type SessionState, type ToolRecord } from './fold.js';
import { filePieces, LogScanner, openLog, refusedUnresumable, stoppedAt, type Piece } from './log.js';
import { refusalReason } from './refusal.js';

/** Events between fold snapshots at first; the spacing doubles whenever {@link MAX_SNAPSHOTS} would be passed. */
export const FIRST_SNAPSHOT_EVERY = 1000;

/**
 * Fold snapshots an index keeps at most, whatever the log's length. A snapshot shares its
 * lists with the one before it ({@link Kept}): it costs what the events since then added
 * to them and a copy of the state's small fields. At 64, the spacing is 16,000 events at
 * 1,000,000 (a jump folds at most that many: measured 60–220 ms of CPU on a busy machine).
 */
export const MAX_SNAPSHOTS = 64;

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
 * A list of `length` items (`item(i)` the i-th) as kept: the longest start of it that
 * `before` holds (the same items, by identity) is shared with `before`, the rest is copied.
 * A list that only grows at its end (the agent's history, the tool calls in order) so
 * costs each kept state only what was added since the state before; a list changed
 * anywhere else is copied from there on.
 */
function share<T>(length: number, item: (i: number) => T, before: Shared<T>): Shared<T> {
  const spans: Span<T>[] = [];
  let at = 0;
  for (const span of before.spans) {
    const [held, from, to] = span;
    const n = Math.min(to - from, length - at);
    let same = 0;
    while (same < n && held[from + same] === item(at + same)) same++;
    at += same;
    if (same === to - from) {
      spans.push(span);
      continue;
    }
    if (same > 0) spans.push([held, from, from + same]);
    break;
  }
  if (at < length) {
    const rest: T[] = [];
    for (let i = at; i < length; i++) rest.push(item(i));
    spans.push([rest, 0, rest.length]);
  }
  return { spans, length };
}

/** The list {@link share} kept, as a new array. */
function unshare<T>(shared: Shared<T>): T[] {
  const out: T[] = [];
  for (const [held, from, to] of shared.spans) for (let i = from; i < to; i++) out.push(held[i]!);
  return out;
}

type Lists = Readonly<Record<string, Shared<unknown>>>;

/**
 * A state as an index keeps it: its lists (every array of the state, those of the claims
 * since the last checkpoint, and the record of tool calls as the list of its records in
 * the order of `toolOrder`) shared with the state kept before it ({@link share}), the rest
 * copied as {@link draftOf} copies a state. The lists of a long run grow with it (one
 * entry a tool call in the record, the order and the agent's history) and change only at
 * their end, so a kept state costs about what was added since the one before: at the end
 * of a 1,000,000-event log (71,420 tool calls) a few kB, where a copy of its lists is
 * 1.7 MB. {@link draftFrom} makes the state again.
 */
interface Kept {
  /** The state with every list left empty and no tool call. */
  readonly state: SessionState;
  /** The state's arrays, by field. */
  readonly lists: Lists;
  /** The arrays of `reportSinceCheckpoint`, by field. */
  readonly claims: Lists;
  /** `tools[toolOrder[i]]` for each `i` (the fold adds a call to both, and `toolOrder` lists a call id again if it is called again). */
  readonly toolCalls: Shared<ToolRecord>;
}

/** The arrays of `value`, each shared with the same field of `before` ({@link share}); `emptied` gets an empty array for each. */
function shareLists(value: object, before: Lists | undefined, emptied: Record<string, unknown>): Lists {
  const lists: Record<string, Shared<unknown>> = {};
  for (const [key, items] of Object.entries(value)) {
    if (!Array.isArray(items)) continue;
    lists[key] = share(items.length, (i) => items[i] as unknown, before?.[key] ?? NOTHING_SHARED);
    emptied[key] = [];
  }
  return lists;
}

/**
 * `state` as kept, sharing its lists with `before` (a state kept earlier, the closer the
 * better). `state` is not held: the index's front, changed in place later, may be given.
 * @throws Error when a call of `toolOrder` has no record (the fold records every call it lists)
 */
function keep(state: SessionState, before: Kept | null): Kept {
  const emptied: Record<string, unknown> = { tools: new Map() };
  const lists = shareLists(state, before?.lists, emptied);
  const claimsEmptied: Record<string, unknown> = {};
  const claims = shareLists(state.reportSinceCheckpoint, before?.claims, claimsEmptied);
  emptied.reportSinceCheckpoint = { ...state.reportSinceCheckpoint, ...claimsEmptied };
  const copy = draftOf({ ...state, ...emptied } as SessionState);
  const { tools, toolOrder } = state;
  const call = (i: number) => tools.get(toolOrder[i]!) ?? missingRecord(toolOrder[i]!);
  return { state: copy, lists, claims, toolCalls: share(toolOrder.length, call, before?.toolCalls ?? NOTHING_SHARED) };
}

function missingRecord(id: string): never {
  throw new Error(`the fold lists tool call ${id} in toolOrder without a record in tools`);
}

/** The lists of `lists` as new arrays, by field. */
function unshareLists(lists: Lists): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [key, list] of Object.entries(lists)) out[key] = unshare(list);
  return out;
}

/**
 * The state {@link keep} kept, as a draft: every array and record of it is new, so
 * {@link reduce} may change it in place without touching `kept` (its other fields are
 * shared with `kept`, and {@link reduce} replaces them, never changes them). Folding in place
 * spares {@link fold}'s copy of the record of tool calls (60 ms at 70,000 calls).
 */
function draftFrom(kept: Kept): SessionState {
  const draft = draftOf(kept.state);
  const lists = unshareLists(kept.lists);
  const order = lists.toolOrder as string[];
  const calls = unshare(kept.toolCalls);
  const tools = new Map<string, ToolRecord>();
  for (let i = 0; i < order.length; i++) tools.set(order[i]!, calls[i]!);
  const reportSinceCheckpoint = { ...draft.reportSinceCheckpoint, ...unshareLists(kept.claims) };
  return Object.assign(draft, lists, { reportSinceCheckpoint, tools });
}

/** Events a chunk of {@link Offsets} holds: 384 kB a chunk, allocated as the log is read. */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
/** Marks an offset or a length kept aside, as too large for its array. */
const FAR = 0xffffffff;
const LONG = 0xffff;

/**
 * The byte offset and length of every event of a log, in 6 bytes an event: a chunk of
 * {@link CHUNK} events keeps the offset of its first event, and for each event its offset
 * from there (4 bytes) and its length (2 bytes). The rare value too large for its array
 * (an event 64 kB long or more, or 4 GB past its chunk's first one) is kept aside, in a
 * map. Chunks are added as events are, so nothing is copied as the log grows.
 */
export class Offsets {
  private readonly bases: number[] = [];
  private readonly starts: Uint32Array[] = [];
  private readonly lengths: Uint16Array[] = [];
  private readonly far = new Map<number, number>();
  private readonly long = new Map<number, number>();
  /** Events kept. */
  count = 0;

  /** Keeps the next event's byte offset and length in bytes. */
  push(start: number, length: number): void {
    const chunk = this.count >>> CHUNK_BITS;
    const at = this.count & (CHUNK - 1);
    if (at === 0) {
      this.bases.push(start);
      this.starts.push(new Uint32Array(CHUNK));
      this.lengths.push(new Uint16Array(CHUNK));
    }
    const offset = start - this.bases[chunk]!;
    if (offset < FAR) this.starts[chunk]![at] = offset;
    else {
      this.starts[chunk]![at] = FAR;
      this.far.set(this.count, start);
    }
    if (length < LONG) this.lengths[chunk]![at] = length;
    else {
      this.lengths[chunk]![at] = LONG;
      this.long.set(this.count, length);
    }
    this.count += 1;
  }

  /** The byte offset of event `i` (`0 <= i < count`). */
  start(i: number): number {
    const chunk = i >>> CHUNK_BITS;
    const offset = this.starts[chunk]![i & (CHUNK - 1)]!;
    return offset === FAR ? this.far.get(i)! : this.bases[chunk]! + offset;
  }

  /** The length in bytes of event `i` (`0 <= i < count`). */
  length(i: number): number {
    const length = this.lengths[i >>> CHUNK_BITS]![i & (CHUNK - 1)]!;
    return length === LONG ? this.long.get(i)! : length;
  }
}

/**
 * A recorded log read lazily: the byte offset and length of every event kept (the events
 * {@link parseLog} keeps, with the same warnings, in the same order), and the folded state
 * every `every` events. An event is parsed again from the file when it is asked for; the
 * state as of any event is the nearest snapshot before it plus the events after it.
 * Memory: 6 bytes an event for the offsets ({@link Offsets}), {@link MAX_SNAPSHOTS} states at most, and the
 * fold of the whole log (the state at the end).
 *
 * Built in steps ({@link readMore}) so a console can draw while it reads.
 */
export class LogIndex {
  private readonly offsets = new Offsets();
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
  /** Set when the whole file is read: the lines passed over that are no damage ({@link ReadLogResult.notes}); empty until then. */
  notes: string[] = [];
  unresumable: string | undefined;
  private readonly fd: number;
  private readonly pieces: Generator<Piece>;
  private readonly scanner: LogScanner;
  private damaged = false;
  /** Set when the fold after a gap could not take an event: nothing after it is indexed. */
  private stopped: string | null = null;
  /** The event the fold could not take, if any. */
  private refused: LoopEvent | null = null;
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

  /**
   * `options` (for tests): the first spacing of snapshots ({@link FIRST_SNAPSHOT_EVERY}),
   * how many are kept at most ({@link MAX_SNAPSHOTS}), the bytes read at a time, the longest
   * piece of a line taken as an event (`MAX_LINE_BYTES` in log.ts).
   * @throws LogError naming the file when it cannot be read
   */
  constructor(readonly file: string, options: { every?: number; maxSnapshots?: number; chunkBytes?: number; maxLineBytes?: number } = {}) {
    this.fd = openLog(file);
    this.size = fstatSync(this.fd).size;
    this.every = options.every ?? FIRST_SNAPSHOT_EVERY;
    this.maxSnapshots = options.maxSnapshots ?? MAX_SNAPSHOTS;
    this.scanner = new LogScanner(file, { event: (e, piece) => this.add(e, piece), gap: () => (this.damaged = true) });
    this.pieces = filePieces(this.fd, file, this.scanner.nulWarnings, (bytes) => (this.bytesRead = bytes), options.chunkBytes, options.maxLineBytes);
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
        const { warnings, notes, unresumable } = this.scanner.end();
        this.warnings = this.stopped ? [...warnings, this.stopped] : warnings;
        this.notes = notes;
        // A log otherwise whole whose event the fold refused is unresumable too, as every reader says.
        this.unresumable = unresumable ?? (this.refused === null ? undefined : refusedUnresumable(this.file, this.refused));
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
    if (!this.reduceOnTrial(e)) return;
    this.frozen = null;
    this.offsets.push(piece.offset!, piece.bytes!);
    this.count += 1;
    const start = (this.snapshots.length - 1) * this.every;
    const step = Math.max(1, Math.floor(this.every / FINE_STEPS));
    if (this.count === this.snapshots.length * this.every) {
      // The states of the spacing just read are its fine states (a log that ends here steps back through them).
      if (this.trailing.length > 0) this.fine = { slot: this.snapshots.length - 1, states: [this.snapshots.at(-1)!, ...this.trailing] };
      this.trailing = [];
      this.snapshots.push(this.keepFront());
      if (this.snapshots.length > this.maxSnapshots) {
        this.every *= 2;
        this.snapshots = this.snapshots.filter((_, i) => i % 2 === 0);
        this.fine = null;
      }
    } else if ((this.count - start) % step === 0 && (this.count - start) / step === this.trailing.length + 1 && this.nearEnd()) {
      // Only from the spacing's first step on, one after the other: `trailing[j]` must be the state at its (j + 1)th step.
      this.trailing.push(this.keepFront());
    }
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
   * Folds `e` on trial (after a gap, or a line damaged into another legible value): when the
   * fold cannot take it, nothing more is indexed, with a warning, and the front is folded
   * again from the last snapshot (the failed event may have changed part of it).
   */
  private reduceOnTrial(e: LoopEvent): boolean {
    try {
      reduce(this.front, e);
      return true;
    } catch (error) {
      this.refused = e;
      const slot = this.snapshots.length - 1;
      this.front = draftFrom(this.snapshots[slot]!);
      for (const event of this.read(slot * this.every, this.count)) reduce(this.front, event);
      // Named from the state before it, as the other readers name it.
      this.stopped = stoppedAt(this.file, e, refusalReason(this.front, e, error), this.damaged);
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
    const { offsets } = this;
    const base = offsets.start(first);
    const span = offsets.start(end - 1) + offsets.length(end - 1) - base;
    const bytes = Buffer.allocUnsafe(span);
    for (let got = 0; got < span; ) {
      const n = readSync(this.fd, bytes, got, span - got, base + got);
      if (n === 0) throw new Error(`${this.file}: the log is shorter than when it was read (it was changed while shown)`);
      got += n;
    }
    const out: LoopEvent[] = new Array(end - first);
    for (let i = first; i < end; i++) {
      const at = offsets.start(i) - base;
      out[i - first] = JSON.parse(bytes.toString('utf8', at, at + offsets.length(i))) as LoopEvent;
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
    const state = draftFrom(states[at]!);
    for (; at < k; at++) {
      this.foldInto(state, start + at * step, start + (at + 1) * step);
      states.push(keep(state, states.at(-1)!));
    }
    this.foldInto(state, start + k * step, count);
    return state;
  }

  /** The fine states kept for spacing `slot` (only its snapshot until stepping needs more); those of another spacing are dropped. */
  private fineStates(slot: number): Kept[] {
    if (this.fine?.slot !== slot) this.fine = { slot, states: [this.snapshots[slot]!] };
    return this.fine.states;
  }

  /** Folds events `from..to` into `state` in place. */
  private foldInto(state: SessionState, from: number, to: number): void {
    const events = this.read(from, to);
    this.folded += events.length;
    for (const event of events) reduce(state, event);
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
