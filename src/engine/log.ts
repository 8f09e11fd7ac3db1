import { closeSync, constants, fdatasyncSync, fstatSync, mkdirSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { LogError } from './errors.js';
import { isEventType, knownEventType, READABLE_SCHEMA_VERSIONS, type EventType, type LoopEvent } from './events.js';
import { draftOf, INITIAL_STATE, reduce, type SessionState } from './fold.js';
import { refusalReason } from './refusal.js';
import { toJson } from '../text/json.js';

/** What reading a log found. */
export interface ReadLogResult {
  events: LoopEvent[];
  /** Every problem found and passed over: torn lines, NUL blocks, skipped lines, `seq` gaps, each naming its line. */
  warnings: string[];
  /**
   * Lines passed over that are no damage, each naming its line: an event cut off when
   * loopdeck stopped (a torn write), whose `seq` the restart recorded right after it took
   * ({@link crashTearNote}). The restart continued from the event before it, as a resume
   * does from a torn last line.
   */
  notes: string[];
  /**
   * Set when the damage could hide a fact that `resume` must not guess: a `seq` gap or an
   * unreadable line that may have held a tool call, a decision or a state change. Names what
   * is missing and how to continue. Absent when the log can be resumed.
   */
  unresumable?: string;
}

/** True for a parsed log line with an event's envelope (a whole `seq`, `at` a finite time of 0 or more, session, a known type, data). */
export function isEnvelope(value: unknown): value is LoopEvent {
  return envelopeType(value) !== undefined;
}

/**
 * The type of a parsed log line with an event's envelope ({@link isEnvelope}), as the
 * constant string of that type ({@link knownEventType}); `undefined` for anything else.
 */
function envelopeType(value: unknown): EventType | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  // `at` a time: a finite number of ms, not negative (`1e400` parses to Infinity, which every clock sum would carry).
  const envelope = Number.isInteger(v.seq) && Number.isFinite(v.at) && (v.at as number) >= 0 && typeof v.session === 'string' && typeof v.type === 'string' && typeof v.data === 'object' && v.data !== null;
  return envelope ? knownEventType(v.type as string) : undefined;
}

/**
 * Event types whose loss changes nothing `resume` decides: notes and warnings that the
 * next step recomputes or that only the console shows. Any other missing event (a model
 * turn, a tool call, decision, result or error, a transition, a pause, a checkpoint, ...)
 * makes a log unresumable.
 */
const HARMLESS_TYPES: ReadonlySet<string> = new Set(['hook.error', 'agent.notice', 'budget.warn', 'process.start', 'process.reaped']);

/** A line that could not be read, with what can still be made out of it. */
interface BadLine {
  line: number;
  why: string;
  /** The `type` still legible in the damaged text, if any. */
  type: string | null;
  /** A legible event whose `seq` (this one) jumped ahead while the line after it went on from before it, or went back to one read already while the line after it went on past it. */
  jumped?: number;
  /** For a `seq` that went back: the `seq` whose place the line took. */
  standsFor?: number;
  /** The line's first characters, when it is not JSON: a torn write starts as its event did (`{"seq":12,`). */
  head?: string;
}

/** Characters of an unreadable line kept to tell a torn write ({@link BadLine.head}). */
const HEAD_CHARS = 24;

/**
 * True when `b`, the one bad line right before `event`, is the event that was being written
 * when loopdeck stopped, and `event` the restart that continued past it: `b` is not JSON,
 * starts as an event line with `event`'s `seq` would (the torn event was to have it; the
 * restart took it), and `event` is a `session.resume` of a restart.
 */
function isCrashTear(b: BadLine, event: LoopEvent): boolean {
  if (b.head === undefined || event.type !== 'session.resume' || (event.data as { restart?: unknown }).restart !== true) return false;
  const start = `{"seq":${event.seq},`;
  return b.head.length < start.length ? start.startsWith(b.head) : b.head.startsWith(start);
}

/** The note for a line torn when loopdeck stopped, which the restart at `restartLine` continued past ({@link isCrashTear}). */
function crashTearNote(file: string, b: BadLine, seq: number, restartLine: number): string {
  const what = b.type !== null ? `a ${b.type} event` : 'an event';
  return `${file}:${b.line}: ${what} cut off when loopdeck stopped (a torn write); the restart at line ${restartLine} took its seq ${seq} and continued from the event before it`;
}

/** The warning for a bad line passed over; `follows`: the `seq` read right after it, when no `seq` is missing. */
function badLineWarning(file: string, b: BadLine, follows: number | null): string {
  if (b.jumped !== undefined) {
    const where = b.standsFor !== undefined ? `it stands where seq ${b.standsFor} belongs` : 'the sequence goes on from before it';
    return `${file}:${b.line}: skipped a line whose seq ${b.jumped} does not follow (a damaged line: ${where})`;
  }
  return follows !== null ? `${file}:${b.line}: dropped a torn line (${b.why}); seq ${follows} follows without a gap` : `${file}:${b.line}: skipped an unreadable line (${b.why})`;
}

/** The `"type":"..."` still legible in a damaged line (the envelope writes it before `data`). */
function legibleType(text: string): string | null {
  const match = /"type"\s*:\s*"([a-z_]+\.[a-z_.]+)"/.exec(text);
  return match && isEventType(match[1]!) ? match[1]! : null;
}

/** One candidate line of the log: a physical line, or a piece of one between blocks of NUL bytes. */
export interface Piece {
  text: string;
  /** 1-based physical line. */
  line: number;
  /** The last line of the file, without its newline. */
  unterminated: boolean;
  /** Read from a file ({@link filePieces}): the piece's byte offset and length in UTF-8 bytes. */
  offset?: number;
  bytes?: number;
}

/**
 * The pieces of one line of the log text that is not an ordinary event line (one with NUL
 * bytes, one that may be longer than the cap, a blank one), warning about every block of NUL
 * bytes (a crash on ext4 can leave them) and every piece past the cap; `unterminated`: the
 * last line of the file, without its newline. Blank pieces are none.
 */
function textLinePieces(raw: string, line: number, unterminated: boolean, file: string, warnings: string[], maxLineBytes: number): Piece[] {
  const nuls = raw.match(/\0+/g);
  if (nuls) warnings.push(nulWarning(file, line, nuls.reduce((n, run) => n + run.length, 0)));
  // A piece of more UTF-8 bytes than the cap has more than a third as many characters.
  const longAt = maxLineBytes / 3;
  const pieces: Piece[] = [];
  for (const part of nuls ? raw.split(/\0+/) : [raw]) {
    const bytes = part.length > longAt ? Buffer.byteLength(part) : 0;
    if (bytes > maxLineBytes) warnings.push(overLongWarning(file, line, bytes, maxLineBytes));
    else if (part.trim() !== '') pieces.push({ text: part.charCodeAt(0) === BOM ? part.slice(1) : part, line, unterminated });
  }
  return pieces;
}

const rangeOf = (from: number, to: number) => (from === to ? `seq ${from}` : `seq ${from}–${to}`);
const linesOf = (bad: readonly BadLine[]) => (bad.length === 1 ? `line ${bad[0]!.line}` : `lines ${bad.map((b) => b.line).join(', ')}`);

/**
 * Why a `seq` gap from..to, with `bad` the unreadable lines just before it, may hide a fact
 * resume needs; `null` when every missing event is legible and harmless.
 */
function gapRisk(from: number, to: number, bad: readonly BadLine[]): string | null {
  if (bad.length === to - from + 1 && bad.every((b) => b.type !== null && HARMLESS_TYPES.has(b.type))) return null;
  const types = bad.map((b) => b.type).filter((t): t is string => t !== null);
  const what = types.length > 0 ? `(legible: ${types.join(', ')})` : '(their type is not legible)';
  return `${rangeOf(from, to)} ${from === to ? 'is' : 'are'} missing ${what} and may be a tool call, a decision or a state change`;
}

/**
 * Where a {@link LogScanner} hands what it finds. An object of a class, not a pair of
 * closures: the scanner's hot path then calls the same method on every scan of every log,
 * and stays compiled for it.
 */
export interface ScanSink {
  /**
   * An event kept, with the piece it came from (whose byte offset a file reader sets). The
   * piece is reused for the next line: copy what you keep of it. `folded` (given by
   * {@link scanLogFile}): whether the fold took the event; `false` for the first event it
   * refused and every event after it, which the state replay shows does not hold.
   */
  event(e: LoopEvent, piece: Piece, folded?: boolean): void;
  /** A `seq` gap or repeat was found (called before the event after the gap is handed on). */
  gap(): void;
}

/**
 * The checks of {@link parseLog}, one piece at a time: `push` each candidate line in file
 * order, then `end`. The sink gets every event kept and is told of each `seq` gap or
 * repeat. The scanner keeps no piece: a reader may push one object changed for each line.
 */
export class LogScanner {
  /** NUL-block warnings, as the reader of the pieces finds them; {@link end} puts every warning in line order. */
  readonly nulWarnings: string[] = [];
  private readonly warnings: string[] = [];
  private readonly notes: string[] = [];
  private readonly risks: string[] = [];
  private count = 0;
  /** The `seq` the next event is kept at without a second look: `count`, or -1 after damage or while a line is held back. */
  private expected = 0;
  private bad: BadLine[] = [];
  /**
   * An event whose `seq` jumped ahead (`back`: or back, to one already read), held back (not
   * handed to the sink) until the next event tells whether it is real (a repeat) or a lone
   * damaged line, with the bad lines before it.
   */
  private held: { event: LoopEvent; piece: Piece; bad: BadLine[]; back: boolean } | null = null;
  /** Where the last piece pushed was: its line, and whether it ended the file without a newline. */
  private lastLine = 0;
  private lastUnterminated = false;
  /** A `seq` gap or repeat was found. */
  gapped = false;

  constructor(
    private readonly file: string,
    private readonly sink: ScanSink,
  ) {}

  /** Checks one piece. @throws LogError for a `session.start` of an unreadable schema version */
  push(piece: Piece): void {
    this.check(piece, parsed(piece.text));
  }

  /**
   * {@link push} of a piece already parsed: `value` is what `JSON.parse` gave for its text,
   * `undefined` when it threw. @throws LogError as {@link push}
   */
  check(piece: Piece, value: unknown): void {
    this.lastLine = piece.line;
    this.lastUnterminated = piece.unterminated;
    const type = envelopeType(value);
    if (type === undefined) {
      // The pieces of one line split at NUL bytes: one unreadable line, named once.
      const last = this.bad.at(-1);
      if (last !== undefined && last.line === piece.line) {
        last.type ??= legibleType(piece.text);
        return;
      }
      const b: BadLine = { line: piece.line, why: value === undefined ? 'not a JSON event' : 'not a loopdeck event', type: legibleType(piece.text) };
      if (value === undefined) b.head = piece.text.slice(0, HEAD_CHARS);
      this.bad.push(b);
      this.expected = -1;
      return;
    }
    const event = value as LoopEvent;
    // The type's constant string for the parsed copy of it: equal, and from here on compared by identity.
    (event as { type: EventType }).type = type;
    // The common case: the next seq, after no damage and with no line held back.
    if (event.seq === this.expected) this.keep(event, piece);
    else this.checkSeq(event, piece);
  }

  /**
   * An event whose `seq` is not simply the next, or that comes after damage. One whose `seq`
   * is not the next is held back until the next event tells what it is. One that jumps
   * ahead: the `seq`s between were lost when the next follows it or repeats a `seq`; the held
   * line alone is damaged when the next goes on from before it. One that goes back to a `seq`
   * already read: the held line alone is damaged (its `seq` changed) when the next takes the
   * `seq` after the one the held line stood in for; any other next makes it a repeat,
   * skipped. An event after damage is kept once the lines before it are named.
   */
  private checkSeq(event: LoopEvent, piece: Piece): void {
    const { seq } = event;
    const held = this.held;
    if (held !== null) {
      this.held = null;
      if (held.back ? seq !== this.count + 1 : seq >= held.event.seq || seq < this.count) {
        // Nothing goes on past the held line as if it stood in its place: a real gap, or a repeat. This event is checked after it.
        const after = this.bad;
        this.bad = held.bad;
        if (held.back) {
          // A repeat is named as it is read; the bad lines around it are named with the next event kept.
          this.bad = [...held.bad, ...after];
          this.repeated(held.event, held.piece);
        } else {
          this.keep(held.event, held.piece);
          this.bad = after;
          if (after.length > 0) this.expected = -1;
        }
        this.check(piece, event);
        return;
      }
      // The sequence goes on as if the held line were not there, or held the next `seq`: that line alone is damaged.
      const jumped: BadLine = { line: held.piece.line, why: `its seq ${held.event.seq} does not follow; the line after it has seq ${seq}`, type: held.event.type, jumped: held.event.seq };
      if (held.back) jumped.standsFor = this.count;
      this.bad = [...held.bad, jumped, ...this.bad];
    } else if (seq < this.count) {
      this.hold(event, piece, true);
      return;
    }
    if (seq > this.count) {
      this.hold(event, piece, false);
      return;
    }
    this.keep(event, piece);
  }

  /** Holds `event` back ({@link held}) with the bad lines before it, until the next event. */
  private hold(event: LoopEvent, piece: Piece, back: boolean): void {
    this.held = { event, piece: { ...piece }, bad: this.bad, back };
    this.bad = [];
    this.expected = -1;
  }

  /** A repeated `seq`: skipped, named, and the log unresumable. */
  private repeated(event: LoopEvent, piece: Piece): void {
    const { seq } = event;
    this.warnings.push(`${this.file}:${piece.line}: skipped a line whose seq ${seq} was already read (expected seq ${this.count})`);
    this.risks.push(`seq ${seq} appears twice (line ${piece.line})`);
    this.gapped = true;
    this.sink.gap();
  }

  /** Keeps `event` (its `seq` at or past the next), naming the bad lines before it and the gap it leaves, if any. */
  private keep(event: LoopEvent, piece: Piece): void {
    const { file, warnings } = this;
    const { seq } = event;
    const count = this.count;
    const bad = this.bad;
    if (bad.length > 0) {
      this.bad = [];
      if (bad.length === 1 && seq === count && isCrashTear(bad[0]!, event)) this.notes.push(crashTearNote(file, bad[0]!, seq, piece.line));
      else for (const b of bad) warnings.push(badLineWarning(file, b, seq === count ? seq : null));
    }
    if (seq > count) this.gap(count, seq, piece.line, bad);
    if (event.type === 'session.start') checkSchemaVersion(event.data.schemaVersion, file, piece.line);
    this.count = seq + 1;
    this.expected = seq + 1;
    this.sink.event(event, piece);
  }

  /** Names the gap before `seq` (read at line `line`), with the bad lines just before it, and what it may hide. */
  private gap(count: number, seq: number, line: number, bad: readonly BadLine[]): void {
    const { file } = this;
    const where = bad.length > 0 ? bad[0]!.line : line;
    const lost = bad.length === 0 ? '' : `; ${linesOf(bad)} ${bad.some((b) => b.jumped !== undefined) ? 'damaged' : 'unreadable'}`;
    this.warnings.push(`${file}:${where}: seq gap: expected seq ${count}, found ${seq} at line ${line}: ${rangeOf(count, seq - 1)} missing${lost}`);
    const risk = gapRisk(count, seq - 1, bad);
    if (risk) this.risks.push(`${risk} (${file}:${where})`);
    this.gapped = true;
    this.sink.gap();
  }

  /**
   * Ends the scan: a line still held back is kept, or named a repeat (nothing after it says it is damaged), then
   * what the lines left unread at the end were, every warning, and whether the log can be
   * resumed. @throws LogError as {@link push}
   */
  end(): Omit<ReadLogResult, 'events'> & { gapped: boolean } {
    const held = this.held;
    if (held !== null) {
      this.held = null;
      const after = this.bad;
      if (held.back) {
        this.bad = [...held.bad, ...after];
        this.repeated(held.event, held.piece);
      } else {
        this.bad = held.bad;
        this.keep(held.event, held.piece);
        this.bad = after;
      }
    }
    const { file, risks, bad } = this;
    const warnings = [...this.nulWarnings, ...this.warnings];
    if (bad.length > 0) {
      const torn = bad.at(-1)!;
      const unterminated = this.lastUnterminated && torn.line === this.lastLine;
      warnings.push(...bad.slice(0, -1).map((b) => `${file}:${b.line}: skipped an unreadable line (${b.why})`));
      warnings.push(unterminated ? `${file}:${torn.line}: dropped an unterminated final line (a torn write)` : `${file}:${torn.line}: dropped a torn final line (${torn.why})`);
      if (bad.length > 1) risks.push(`${linesOf(bad)} at the end are unreadable and may hold a tool call, a decision or a state change (${file}:${bad[0]!.line})`);
    }
    // In line order (a repeated `seq` is named as it is read, the unreadable lines before it
    // only once the next event is): a line's NUL blocks before its other warnings.
    const lineOf = (w: string) => Number(/^(\d+):/.exec(w.slice(file.length + 1))?.[1] ?? Infinity);
    warnings.sort((a, b) => lineOf(a) - lineOf(b));
    const gapped = this.gapped;
    const notes = [...this.notes];
    return risks.length > 0 ? { warnings, notes, gapped, unresumable: unresumableText(file, risks) } : { warnings, notes, gapped };
  }
}

/** `JSON.parse(text)`, or `undefined` when the text is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A byte order mark (U+FEFF), which an editor may put at the start of a file it saves: not
 * part of the line it starts, and dropped from it (JSON does not allow it).
 */
const BOM = 0xfeff;

/** Lines parsed before their events are checked and folded (see {@link scanText}). */
const SCAN_BATCH = 128;

/** Characters of the log text split into lines at once (see {@link scanText}). */
const SPLIT_WINDOW = 1 << 20;

/**
 * Pushes every candidate line of the log text into `scanner`, in order: every line but a
 * blank one, split at its blocks of NUL bytes ({@link textLinePieces}). Its first line is line
 * `firstLine` of the file; `final`: it ends the file (its last line, when not empty, is one
 * without a newline). The text is split into lines a window of about {@link SPLIT_WINDOW}
 * characters at a time, so a long text is never held as a list of all its lines. The
 * scanner keeps no piece: it is one object, changed for each line (a log of many lines
 * then costs no object per line). Returns the line after the text's last newline (where a
 * text that follows it starts).
 *
 * An event line is JSON, which never holds a NUL character (not even inside a string):
 * only a line that fails to parse is looked at for NUL bytes.
 */
function scanText(text: string, file: string, scanner: LogScanner, firstLine = 1, final = true, maxLineBytes = MAX_LINE_BYTES): number {
  // A line of more characters than this may be past the cap in UTF-8 bytes: measured on its own.
  const longAt = maxLineBytes / 3;
  // The lines are parsed a batch at a time, then checked and folded: the parser and the fold
  // each run on while their code and data are at hand, which makes both cheaper.
  const texts: string[] = [];
  const lines: number[] = [];
  const values: unknown[] = [];
  const piece: Piece = { text: '', line: 0, unterminated: false };
  // The first `count` lines held; `count` stays the caller's (a local the loop keeps in a register).
  const flush = (count: number, lastUnterminated: boolean) => {
    for (let i = 0; i < count; i++) {
      piece.text = texts[i]!;
      piece.line = lines[i]!;
      piece.unterminated = lastUnterminated && i === count - 1;
      scanner.check(piece, values[i]);
    }
  };
  let count = 0;
  let line = firstLine;
  for (let from = 0; ; ) {
    // The next window ends at a newline (or at the text's end).
    const cut = text.length - from > 2 * SPLIT_WINDOW ? text.indexOf('\n', from + SPLIT_WINDOW) : -1;
    const rows = (cut < 0 ? (from === 0 ? text : text.slice(from)) : text.slice(from, cut)).split('\n');
    const ending = cut < 0;
    for (let k = 0; k < rows.length; k++, line++) {
      const raw = rows[k]!;
      // The file's last line, without its newline (`ending`: the window holds the text's end).
      const unterminated = final && ending && k === rows.length - 1;
      // An ordinary event line: a JSON object, short enough to be under the cap whatever it holds.
      const ordinary = raw.charCodeAt(0) === 0x7b && raw.length <= longAt;
      let value = ordinary ? parsed(raw) : undefined;
      // Holding NUL bytes (never in a line that parses), or perhaps past the cap: read in pieces.
      if (ordinary ? value === undefined && raw.includes('\0') : raw.length > longAt || raw.includes('\0')) {
        flush(count, false);
        count = 0;
        for (const p of textLinePieces(raw, line, unterminated, file, scanner.nulWarnings, maxLineBytes)) scanner.push(p);
        continue;
      }
      let body = raw;
      if (!ordinary) {
        if (raw.trim() === '') continue;
        if (raw.charCodeAt(0) === BOM) body = raw.slice(1);
        value = parsed(body);
      }
      texts[count] = body;
      lines[count] = line;
      values[count] = value;
      count += 1;
      if (unterminated || count === SCAN_BATCH) {
        flush(count, unterminated);
        count = 0;
      }
    }
    flush(count, false);
    count = 0;
    if (ending) return line - 1;
    from = cut + 1;
  }
}

/** What a damaged log is missing and how to go on. */
function unresumableText(file: string, risks: readonly string[]): string {
  return `${file} is damaged where it may hide a tool call or a decision: ${risks.join('; ')}. ` +
    'Resuming could run a tool twice or skip one. Its replay shows everything readable; to continue, start a new run, or restore the missing lines from a copy of the log and resume again.';
}

/**
 * Parses the text of an events.jsonl file, keeping every event it can read and naming
 * everything it passes over (docs/design.md, "The log on disk"):
 * - a last line that parses and passes the checks is kept, with or without its newline;
 *   one that does not (a write cut by a crash) is dropped with a warning;
 * - a bad line that the writer repaired (the next event carries the very `seq` the torn
 *   line was meant to have) is dropped with a warning naming its line;
 * - blocks of NUL bytes are skipped with a warning; the text around them is read;
 * - a line whose `seq` jumps ahead while the next event goes on from before it is one
 *   damaged line: named, its `seq` counted missing, the rest read (it is held back until
 *   the next event tells, and never folded);
 * - a piece of a line longer than {@link MAX_LINE_BYTES} (`options.maxLineBytes`) is skipped
 *   with a warning naming its line and size;
 * - a bad line followed by a `seq` gap, a gap without a bad line, and a repeated `seq` are
 *   skipped with a warning naming the lines and the missing `seq`s; when what is missing
 *   could be a tool call, a decision or a state change, `unresumable` says so (replay
 *   still shows the rest, resume refuses);
 * - events are folded on trial: from the first one the fold cannot take (a transition
 *   whose start a gap lost, a line damaged into another legible value) they are left out
 *   with a warning, and `unresumable` says so.
 *
 * A `session.start` whose `schemaVersion` this version cannot read (one written by a
 * newer loopdeck, or none at all) is refused before anything is folded.
 *
 * @throws LogError naming the file and line, for an unreadable schema version only
 */
export function parseLog(text: string, file: string, options: LogReadOptions = {}): ReadLogResult {
  return eventsRead(file, (scanner) => void scanText(text, file, scanner, 1, true, options.maxLineBytes));
}

/** How a log is read. */
export interface LogReadOptions {
  /** The longest piece of a line taken as a candidate event, in UTF-8 bytes ({@link MAX_LINE_BYTES}). */
  maxLineBytes?: number;
}

/** The events `feed` has a scanner keep, checked as {@link parseLog} says. @throws LogError as there */
function eventsRead(file: string, feed: (scanner: LogScanner) => void): ReadLogResult {
  const events: LoopEvent[] = [];
  // The index of the first event after a `seq` gap or repeat (-1: none): the fold's warning
  // says "after the damage named above" only from there on, as the fold while reading does.
  let damagedFrom = -1;
  const scanner = new LogScanner(file, {
    event: (e) => events.push(e),
    gap: () => {
      if (damagedFrom < 0) damagedFrom = events.length;
    },
  });
  feed(scanner);
  const { gapped: _gapped, ...result } = scanner.end();
  // Folded on trial: a line damaged into another legible event (or one a gap left without
  // its start) ends the events kept, and a resume of them would go on from a run that
  // never was: the log is unresumable.
  const state = draftOf(INITIAL_STATE);
  const kept = events.findIndex((e, k) => !reduceOnTrial(state, e, file, result.warnings, damagedFrom >= 0 && k >= damagedFrom));
  if (kept < 0) return { events, ...result };
  const refused = events[kept]!;
  const unresumable = result.unresumable ?? unresumableText(file, [refusedRisk(refused)]);
  return { events: events.slice(0, kept), ...result, unresumable };
}

/** A log folded: the state `replay` shows, every warning, and why `resume` refuses it, if it does. */
export type Folded = { state: SessionState; warnings: string[]; notes: string[]; unresumable?: string };

/**
 * Folds each event a scanner keeps into a fresh state, on trial: from the first event the
 * fold cannot take (past a `seq` gap, or a line whose value was damaged into another legible
 * one, such as a state no machine has), nothing more, with a warning; the state is the
 * run up to before it, and the log is unresumable (as {@link parseLog} says it). `next`,
 * when given, is handed every event and gap too, the refused event and those after it
 * included, each with whether the fold took it.
 */
class FoldingSink implements ScanSink {
  readonly state = draftOf(INITIAL_STATE);
  /** The warning for the event the fold could not take, if any. */
  readonly stopped: string[] = [];
  /** The first event the fold could not take. */
  private refused: LoopEvent | null = null;
  private damaged = false;

  constructor(
    private readonly file: string,
    private readonly next: ScanSink | null = null,
  ) {}

  event(e: LoopEvent, piece: Piece): void {
    if (this.refused === null && !reduceOnTrial(this.state, e, this.file, this.stopped, this.damaged)) this.refused = e;
    if (this.next !== null) this.next.event(e, piece, this.refused === null);
  }

  gap(): void {
    this.damaged = true;
    if (this.next !== null) this.next.gap();
  }

  /** Ends the scan: the state and every warning, and why the log cannot be resumed, if it cannot. */
  finish(scanner: LogScanner): Folded {
    const { gapped: _gapped, ...result } = scanner.end();
    const warnings = [...result.warnings, ...this.stopped];
    const refused = this.refused;
    if (refused === null || result.unresumable !== undefined) return { state: this.state, ...result, warnings };
    return { state: this.state, warnings, notes: result.notes, unresumable: refusedUnresumable(this.file, refused) };
  }
}

/** What resume says of a log whose event `e` the fold refused (and that is otherwise whole). */
export function refusedUnresumable(file: string, e: LoopEvent): string {
  return unresumableText(file, [refusedRisk(e)]);
}

/** Why an event the fold refused makes its log unresumable, for {@link unresumableText}. */
function refusedRisk(e: LoopEvent): string {
  // Nothing comes before seq 0: it starts the run, or cannot.
  return e.seq === 0 ? `seq 0 (${e.type}) cannot start the run` : `seq ${e.seq} (${e.type}) does not follow from the events before it`;
}

/** Folds the text of an events.jsonl file as it parses it, keeping no event (the checks of {@link parseLog}). */
export function foldLog(text: string, file: string, options: LogReadOptions = {}): Folded {
  const folder = new LogFolder(file, options);
  folder.push(text, true);
  return folder.finish();
}

/**
 * {@link foldLog} of a text given a part at a time: `push` each part in order, then
 * `finish`. Every part but the last holds whole lines (it ends with a newline); the result
 * is the one `foldLog` gives for the parts joined, warnings and line numbers included.
 */
export class LogFolder {
  private readonly sink: FoldingSink;
  private readonly scanner: LogScanner;
  /** The file's line the next part starts with. */
  private line = 1;
  private ended = false;

  constructor(
    private readonly file: string,
    private readonly options: LogReadOptions = {},
  ) {
    this.sink = new FoldingSink(file);
    this.scanner = new LogScanner(file, this.sink);
  }

  /**
   * Scans and folds the next part of the text; `last` when it ends the file (then its last
   * line may lack a newline). @throws LogError as {@link parseLog}; Error for a part that
   * is not whole lines, or one after the last
   */
  push(part: string, last = false): void {
    if (this.ended) throw new Error(`${this.file}: LogFolder.push after the last part`);
    if (!last && part !== '' && !part.endsWith('\n')) throw new Error(`${this.file}: LogFolder.push of a part that does not end with a newline (line ${this.line} on); only the last part may`);
    this.ended = last;
    this.line = scanText(part, this.file, this.scanner, this.line, last, this.options.maxLineBytes);
  }

  /** The state and every warning, as {@link foldLog} gives them. */
  finish(): Folded {
    return this.sink.finish(this.scanner);
  }
}

const CHUNK_BYTES = 1 << 20;
/** The smallest chunk {@link scanLogFile} reads in. */
const SMALL_CHUNK_BYTES = 16 * 1024;

/**
 * The longest piece of a line (the text between a line's ends and its blocks of NUL bytes)
 * the readers take as a candidate event, in UTF-8 bytes: 256 MiB. The longest event line
 * loopdeck writes is far shorter: a tool's output is kept to at most 16 MiB (the largest
 * `output_limit_bytes`), and even a result of 16 MiB of control characters, each escaped
 * in six bytes, is under 100 MiB. A longer piece (garbage, a crash's debris, a huge JSON
 * value that is no event) is skipped without being made a string, with a warning naming its
 * line and size ({@link overLongWarning}).
 */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * A line still without its newline past this many bytes is read as a stream
 * ({@link LongLine}): its NUL bytes are counted, not held, and a piece past the cap is
 * counted, not held, so a block of zeros or garbage of any length is read in bounded memory.
 */
const STREAM_LINE_BYTES = 8 * 1024 * 1024;

/** The warning for a piece of `bytes` bytes longer than `cap`, on line `line`. */
function overLongWarning(file: string, line: number, bytes: number, cap: number): string {
  return `${file}:${line}: skipped ${bytes} bytes without a newline, longer than an event line can be (at most ${cap} bytes)`;
}

/** The warning for `count` NUL bytes skipped on line `line`. */
function nulWarning(file: string, line: number, count: number): string {
  return `${file}:${line}: skipped ${count} NUL bytes (a block of zeros a crash can leave)`;
}

/** Zeros to compare a block of NUL bytes with, a window at a time. */
const ZEROS = Buffer.alloc(64 * 1024);

/** The first index in `data[at..to)` of a byte other than 0, or `to`. */
function afterZeros(data: Buffer, at: number, to: number): number {
  while (to - at >= ZEROS.length && data.compare(ZEROS, 0, ZEROS.length, at, at + ZEROS.length) === 0) at += ZEROS.length;
  while (at < to && data[at] === 0) at++;
  return at;
}

/**
 * A line read as a stream, a part at a time ({@link STREAM_LINE_BYTES}, or one longer
 * than the cap): the pieces of {@link linePieces}, with the same warnings, but holding only
 * the piece being read, and that only while it is within the cap. Its byte offsets and
 * lengths are those of the bytes in the file.
 */
class LongLine {
  private nuls = 0;
  /** The piece being read: the file offset of its first byte (-1: none, in a NUL block) and its length so far. */
  private start = -1;
  private length = 0;
  /** The last piece found, handed on once the next one is found or the line ends (only then is its `unterminated` known). */
  private held: Piece | null = null;
  private readonly overLong: string[] = [];

  constructor(
    readonly line: number,
    private readonly file: string,
    private readonly warnings: string[],
    private readonly cap: number,
  ) {}

  /**
   * Reads `data[at..to)` (file offset `base` at `data[0]`), a part of the line that goes on
   * after it; the piece being read, when held, is `data[start - base .. at)`.
   */
  *scan(data: Buffer, base: number, at: number, to: number): Generator<Piece> {
    while (at < to) {
      if (this.start < 0) {
        const next = afterZeros(data, at, to);
        this.nuls += next - at;
        if (next < to) {
          this.start = base + next;
          this.length = 0;
        }
        at = next;
        continue;
      }
      let end = data.indexOf(0, at);
      if (end < 0 || end > to) end = to;
      this.length += end - at;
      at = end;
      if (at < to) yield* this.close(data, base);
    }
  }

  /**
   * Moves the piece being read (when within the cap) to the start of `data` before the next
   * part is read after it; returns its length there.
   */
  keep(data: Buffer, base: number): number {
    if (this.start < 0 || this.length > this.cap) return 0;
    data.copyWithin(0, this.start - base, this.start - base + this.length);
    return this.length;
  }

  /** Reads the line's last part `data[at..to)` and hands on what is left; warns of its NUL bytes and over-long pieces. */
  *finish(data: Buffer, base: number, at: number, to: number, unterminated: boolean): Generator<Piece> {
    yield* this.scan(data, base, at, to);
    if (this.start >= 0) yield* this.close(data, base);
    if (this.held !== null) yield { ...this.held, unterminated };
    if (this.nuls > 0) this.warnings.push(nulWarning(this.file, this.line, this.nuls));
    this.warnings.push(...this.overLong);
  }

  /** Ends the piece being read: held when within the cap and not blank, skipped with a warning when past it. */
  private *close(data: Buffer, base: number): Generator<Piece> {
    const { start, length } = this;
    this.start = -1;
    if (length > this.cap) {
      this.overLong.push(overLongWarning(this.file, this.line, length, this.cap));
      return;
    }
    const found = data.toString('utf8', start - base, start - base + length);
    if (found.trim() === '') return;
    if (this.held !== null) yield this.held;
    // A byte order mark is left out of the piece, and so of what is read again at its offset.
    const bom = found.charCodeAt(0) === BOM;
    this.held = { text: bom ? found.slice(1) : found, line: this.line, unterminated: false, offset: bom ? start + 3 : start, bytes: bom ? length - 3 : length };
  }
}

/**
 * The pieces of a log file read from `fd` a chunk at a time, never the whole file: the
 * same pieces {@link parseLog} splits the text into (physical lines, split at blocks of
 * NUL bytes, each block named in `nulWarnings`), each with its byte offset and length.
 * `read` (when given) is told the bytes read so far after each chunk of `chunkBytes`.
 * A piece longer than `maxLineBytes` ({@link MAX_LINE_BYTES}) is skipped with a warning in
 * `nulWarnings`, never made a string; a line of any length is read in bounded memory
 * (about `chunkBytes` plus the cap at most, and NUL bytes are never held).
 */
export function* filePieces(fd: number, file: string, nulWarnings: string[], read?: (bytes: number) => void, chunkBytes = CHUNK_BYTES, maxLineBytes = MAX_LINE_BYTES): Generator<Piece> {
  const streamAt = Math.min(STREAM_LINE_BYTES, maxLineBytes);
  let block = Buffer.allocUnsafe(chunkBytes);
  // The start of a line the previous chunk did not end (or of the piece a long line is reading), at the start of `block`.
  let kept = 0;
  let readAt = 0;
  let line = 0;
  // The line being read as a stream: one that has gone on without a newline past `streamAt` bytes.
  let long: LongLine | null = null;
  for (;;) {
    if (block.length < kept + chunkBytes) {
      const bigger = Buffer.allocUnsafe(Math.max(kept + chunkBytes, Math.min(2 * block.length, maxLineBytes + chunkBytes)));
      block.copy(bigger, 0, 0, kept);
      block = bigger;
    }
    const n = readSync(fd, block, kept, chunkBytes, readAt);
    readAt += n;
    read?.(readAt);
    const data = block.subarray(0, kept + n);
    const base = readAt - data.length;
    let from = 0;
    if (long !== null) {
      const to = n === 0 ? data.length : data.indexOf(0x0a, kept);
      if (to < 0) {
        yield* long.scan(data, base, kept, data.length);
        kept = long.keep(data, base);
        continue;
      }
      yield* long.finish(data, base, kept, to, n === 0);
      if (n === 0) return;
      long = null;
      from = to + 1;
    }
    if (n === 0) {
      line += 1;
      yield* linePieces(data, from, data.length, base, line, true, file, nulWarnings, maxLineBytes);
      return;
    }
    // No NUL byte and no line past the cap: every line starting like an event is one piece.
    const clean = data.length <= maxLineBytes && data.indexOf(0, from) < 0;
    for (let to = data.indexOf(0x0a, from); to >= 0; to = data.indexOf(0x0a, from)) {
      line += 1;
      if (clean && data[from] === 0x7b) yield { text: data.toString('utf8', from, to), line, unterminated: false, offset: base + from, bytes: to - from };
      else yield* linePieces(data, from, to, base, line, false, file, nulWarnings, maxLineBytes);
      from = to + 1;
    }
    if (data.length - from > streamAt) {
      // A line longer than a chunk can sensibly hold so far: read on as a stream.
      line += 1;
      long = new LongLine(line, file, nulWarnings, maxLineBytes);
      yield* long.scan(data, base, from, data.length);
      kept = long.keep(data, base);
      continue;
    }
    // The rest is the start of a line the next chunk ends: moved to the start of `block`, read on after it.
    data.copyWithin(0, from);
    kept = data.length - from;
  }
}

/** The pieces of the line `data[from..to)` (file offset `base + from`), as {@link textLinePieces} splits a line. */
function* linePieces(data: Buffer, from: number, to: number, base: number, line: number, unterminated: boolean, file: string, nulWarnings: string[], maxLineBytes: number): Generator<Piece> {
  if (to - from > maxLineBytes) {
    // Longer than the cap: never made one string.
    yield* new LongLine(line, file, nulWarnings, maxLineBytes).finish(data, base, from, to, unterminated);
    return;
  }
  const raw = data.toString('utf8', from, to);
  if (raw.charCodeAt(0) === 0x7b && !raw.includes('\0')) {
    yield { text: raw, line, unterminated, offset: base + from, bytes: to - from };
    return;
  }
  const nuls = raw.match(/\0+/g);
  if (nuls) nulWarnings.push(nulWarning(file, line, nuls.reduce((n, run) => n + run.length, 0)));
  for (const match of raw.matchAll(/[^\0]+/g)) {
    const found = match[0];
    if (found.trim() === '') continue;
    // A byte order mark is left out of the piece, and so of what is read again at its offset.
    const part = found.charCodeAt(0) === BOM ? found.slice(1) : found;
    const offset = base + from + Buffer.byteLength(raw.slice(0, match.index)) + (part === found ? 0 : 3);
    yield { text: part, line, unterminated, offset, bytes: Buffer.byteLength(part) };
  }
}

/**
 * Why a log cannot be read, in words, from the error of opening or reading it: `no such
 * file`, `permission denied`, `is a folder, not a log file`; any other errno code is named.
 */
export function unreadableLog(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'ENOTDIR':
      return 'no such file (a part of its path is a file, not a folder)';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a folder, not a log file';
    default:
      return `cannot read the log (${code ? `${code}: ${(error as Error).message}` : String(error)})`;
  }
}

/** Why a log opened as `fd` cannot be read as one, or `null` for a regular file. */
export function notALogFile(fd: number): string | null {
  const stat = fstatSync(fd);
  if (stat.isFile()) return null;
  return stat.isDirectory() ? 'is a folder, not a log file' : NOT_REGULAR;
}

/** Why a named pipe, a socket or a device is not read as a log: it may never end. */
export const NOT_REGULAR = 'not a regular file: a named pipe, a socket or a device (a log is a file, read to its end)';

/**
 * Opens a log for reading: a regular file only. It is opened without waiting (a named
 * pipe no one writes to would block the open) and refused when it is not a file: a pipe or
 * a device such as `/dev/zero` may never end.
 * @throws LogError naming the file when it cannot be read or is not a regular file
 */
export function openLog(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new LogError(file, 0, unreadableLog(error));
  }
  const why = notALogFile(fd);
  if (why === null) return fd;
  closeSync(fd);
  throw new LogError(file, 0, why);
}

/**
 * Whether the log holds nothing but blanks (spaces, tabs, line breaks), 0 bytes included:
 * no event at all, so nothing to replay or resume. Reads only up to the first other byte.
 * @throws LogError naming the file when it cannot be read
 */
export function isBlankLog(file: string): boolean {
  const fd = openLog(file);
  try {
    const block = Buffer.allocUnsafe(64 * 1024);
    for (let at = 0; ; ) {
      const n = readSync(fd, block, 0, block.length, at);
      if (n === 0) return true;
      for (let i = 0; i < n; i++) {
        const byte = block[i]!;
        if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
      }
      at += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** Why a log that is not blank has no event: {@link noEventsIn}'s answer for it. */
export const NO_READABLE_EVENT = 'no line in it is a readable event';

/**
 * Why the log has no event to replay, with the warnings about its lines (as {@link foldLogFile}
 * gives them), or `null` as soon as one readable event is found: reads only up to it.
 * @throws LogError naming the file when it cannot be read, or for an unreadable schema version
 */
export function noEventsIn(file: string): { why: string; warnings: string[] } | null {
  if (isBlankLog(file)) return { why: statSync(file).size === 0 ? 'the file is empty' : 'the file is only blank lines', warnings: [] };
  const fd = openLog(file);
  try {
    let found = false;
    const scanner = new LogScanner(file, { event: () => (found = true), gap: () => undefined });
    for (const piece of filePieces(fd, file, scanner.nulWarnings)) {
      scanner.push(piece);
      if (found) return null;
    }
    // An event held back to the end (its seq jumped ahead) is kept there.
    const { warnings } = scanner.end();
    return found ? null : { why: NO_READABLE_EVENT, warnings };
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link foldLogFile} of a file (the state `replay` shows, every warning and, when the damage
 * may hide a fact `resume` needs, `unresumable`: what `resume` would refuse), with every
 * event the scanner keeps also handed to `sink`, each with whether the fold took it (the
 * sink copies what it keeps: the piece is reused). Holds no text and no event, only the
 * folded state while it reads.
 * @throws LogError naming the file when it cannot be read, or for an unreadable schema version
 */
export function scanLogFile(file: string, sink: ScanSink, options: LogReadOptions = {}): Folded {
  const fd = openLog(file);
  try {
    const folding = new FoldingSink(file, sink);
    const scanner = new LogScanner(file, folding);
    // Chunks no larger than the file: `runs` scans many small logs, and a chunk is allocated for each.
    const chunkBytes = Math.min(CHUNK_BYTES, Math.max(fstatSync(fd).size + 1, SMALL_CHUNK_BYTES));
    for (const piece of filePieces(fd, file, scanner.nulWarnings, undefined, chunkBytes, options.maxLineBytes)) scanner.push(piece);
    return folding.finish(scanner);
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link foldLog} of a file, read a chunk at a time: neither the text nor the events are
 * held, so a log of any length folds in the memory of its state.
 * @throws LogError naming the file when it cannot be read, or for an unreadable schema version
 */
export function foldLogFile(file: string, options: LogReadOptions = {}): Folded {
  const fd = openLog(file);
  try {
    const sink = new FoldingSink(file);
    const scanner = new LogScanner(file, sink);
    for (const piece of filePieces(fd, file, scanner.nulWarnings, undefined, CHUNK_BYTES, options.maxLineBytes)) scanner.push(piece);
    return sink.finish(scanner);
  } finally {
    closeSync(fd);
  }
}

/**
 * The warning for the event a fold cannot take: the run is shown up to before it. `reason`:
 * why the fold refused it ({@link refusalReason}); `damaged`: after damage named in an
 * earlier warning (a `seq` gap).
 */
export function stoppedAt(file: string, e: LoopEvent, reason: string, damaged = true): string {
  const what = e.seq === 0 ? 'it cannot start the run' : 'it does not follow from the events before it';
  const why = damaged ? 'after the damage named above it does not follow' : `${what} (a damaged line, legible but wrong)`;
  return `${file}: stopped showing the run at seq ${e.seq} (${e.type}): ${why} (${reason})`;
}

/**
 * Folds `e` into `state` on trial: `false`, with the warning of {@link stoppedAt} in
 * `warnings`, when the fold cannot take it. The state is then the run up to before it:
 * {@link reduce} changes nothing for an event it refuses (a transition is checked before its
 * reducer changes anything; data a reducer cannot read fails it at its first read, before
 * its first change; the counts every event moves are moved after its reducer).
 */
function reduceOnTrial(state: SessionState, e: LoopEvent, file: string, warnings: string[], damaged: boolean): boolean {
  try {
    reduce(state, e);
    return true;
  } catch (error) {
    warnings.push(stoppedAt(file, e, refusalReason(state, e, error), damaged));
    return false;
  }
}

/**
 * Refuses a log whose `session.start` carries a schema version this reader does not know.
 * @throws LogError naming the file, the line and the version found
 */
function checkSchemaVersion(version: unknown, file: string, line: number): void {
  if (typeof version === 'number' && READABLE_SCHEMA_VERSIONS.includes(version)) return;
  const found = version === undefined ? 'no schemaVersion' : `schemaVersion ${JSON.stringify(version)}`;
  throw new LogError(
    file,
    line,
    `session.start has ${found}; this loopdeck reads event logs of schema version ${READABLE_SCHEMA_VERSIONS.join(', ')} (a log written by a newer loopdeck needs that version to replay or resume)`,
  );
}

/**
 * Reads an events.jsonl file as {@link parseLog} reads its text, a chunk at a time
 * ({@link filePieces}): a line of any length, a block of NUL bytes included, is read in
 * bounded memory. Holds the events kept, not the text.
 * @throws LogError naming the file when it cannot be read or is not a regular file, or for an unreadable schema version
 */
export function readLog(file: string, options: LogReadOptions = {}): ReadLogResult {
  const fd = openLog(file);
  try {
    return eventsRead(file, (scanner) => {
      for (const piece of filePieces(fd, file, scanner.nulWarnings, undefined, CHUNK_BYTES, options.maxLineBytes)) scanner.push(piece);
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * An append-only JSONL event log. One `writeSync` per event; `sync()` flushes to disk
 * (used before effects that must not repeat: approvals, checkpoints). The file is never
 * rewritten: if it ends in a torn line, the first append starts on a fresh line. Opening a
 * log changes nothing in it: a resume that is refused or cancelled leaves it as it was.
 */
export class EventLog {
  private fd: number | null;
  /** The file ends in a line without its newline, which the first append ends first. */
  private torn = false;

  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.fd = openSync(file, 'a+');
    const size = fstatSync(this.fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(this.fd, last, 0, 1, size - 1);
      this.torn = last[0] !== 0x0a;
    }
  }

  /** Appends one event as one line (control and bidi characters escaped: the log is safe to `cat` or `tail -f`). */
  append(event: LoopEvent): void {
    if (this.fd === null) throw new LogError(this.file, 0, 'the log is closed');
    writeSync(this.fd, `${this.torn ? '\n' : ''}${toJson(event)}\n`);
    this.torn = false;
  }

  /** Flushes appended events to disk. */
  sync(): void {
    if (this.fd !== null) fdatasyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    fdatasyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}
