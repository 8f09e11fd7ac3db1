import { closeSync, fdatasyncSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { LogError } from './errors.js';
import { isEventType, READABLE_SCHEMA_VERSIONS, type LoopEvent } from './events.js';
import { draftOf, INITIAL_STATE, reduce, type SessionState } from './fold.js';
import { toJson } from '../text/json.js';

/** What reading a log found. */
export interface ReadLogResult {
  events: LoopEvent[];
  /** Recoverable problems, e.g. a torn final line that was dropped. */
  warnings: string[];
}

function isEnvelope(value: unknown): value is LoopEvent {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    Number.isInteger(v.seq) && typeof v.at === 'number' && typeof v.session === 'string' &&
    typeof v.type === 'string' && isEventType(v.type) && typeof v.data === 'object' && v.data !== null
  );
}

/**
 * Parses the text of an events.jsonl file.
 *
 * An unterminated final line (a torn write) is dropped with a warning. A bad line that
 * the writer repaired (the next event carries the very `seq` the torn line was meant to
 * have) is dropped with a warning naming its line. A bad line followed by a `seq` gap, or
 * any gap or duplicate in `seq`, is an error naming the line and the gap: nothing is ever
 * skipped silently. A `session.start` whose `schemaVersion` this version cannot read
 * (one written by a newer loopdeck, or none at all) is refused before anything is folded.
 *
 * @throws LogError naming the file and line
 */
export function parseLog(text: string, file: string): ReadLogResult {
  const events: LoopEvent[] = [];
  const { warnings } = scanLog(text, file, (e) => events.push(e));
  return { events, warnings };
}

/** Folds the text of an events.jsonl file as it parses it, keeping no event (the checks of {@link parseLog}). */
export function foldLog(text: string, file: string): { state: SessionState; warnings: string[] } {
  const state = draftOf(INITIAL_STATE);
  const { warnings } = scanLog(text, file, (e) => reduce(state, e));
  return { state, warnings };
}

function scanLog(text: string, file: string, onEvent: (e: LoopEvent) => void): { warnings: string[] } {
  const warnings: string[] = [];
  const lines = text.split('\n');
  const torn = lines.pop() ?? '';
  if (torn.replace(/\0/g, '').trim() !== '') {
    warnings.push(`${file}:${lines.length + 1}: dropped an unterminated final line (a torn write)`);
  }
  let count = 0;
  let bad: { line: number; why: string } | null = null;
  lines.forEach((line, index) => {
    // A line that starts like a JSON object is not blank: skip the scan for NULs and spaces.
    if (line.charCodeAt(0) !== 0x7b && line.replace(/\0/g, '').trim() === '') return;
    const lineNo = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (!isEnvelope(value)) {
      if (bad) throw new LogError(file, bad.line, `${bad.why}, followed by another bad line ${lineNo}`);
      bad = { line: lineNo, why: value === undefined ? 'not a JSON event' : 'not a loopdeck event' };
      return;
    }
    if (value.seq !== count) {
      const where = bad ? bad.line : lineNo;
      const why = bad ? `${bad.why}; ` : '';
      throw new LogError(file, where, `${why}seq gap: expected seq ${count}, found ${value.seq} at line ${lineNo}`);
    }
    if (bad) warnings.push(`${file}:${bad.line}: dropped a torn line (${bad.why}); seq ${value.seq} follows without a gap`);
    bad = null;
    if (value.type === 'session.start') checkSchemaVersion(value.data.schemaVersion, file, lineNo);
    count += 1;
    onEvent(value);
  });
  if (bad) {
    const last: { line: number; why: string } = bad;
    warnings.push(`${file}:${last.line}: dropped a torn final line (${last.why})`);
  }
  return { warnings };
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

/** Reads an events.jsonl file with {@link parseLog}. @throws LogError */
export function readLog(file: string): ReadLogResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new LogError(file, 0, `cannot read the log (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return parseLog(text, file);
}

/**
 * An append-only JSONL event log. One `writeSync` per event; `sync()` flushes to disk
 * (used before effects that must not repeat: approvals, checkpoints). The file is never
 * rewritten: if it ends in a torn line, the next append starts on a fresh line.
 */
export class EventLog {
  private fd: number | null;

  constructor(readonly file: string) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.fd = openSync(file, 'a+');
    const size = fstatSync(this.fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(this.fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) writeSync(this.fd, '\n');
    }
  }

  /** Appends one event as one line (control and bidi characters escaped: the log is safe to `cat` or `tail -f`). */
  append(event: LoopEvent): void {
    if (this.fd === null) throw new LogError(this.file, 0, 'the log is closed');
    writeSync(this.fd, `${toJson(event)}\n`);
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
