/**
 * Why the fold refused an event, in the log's terms.
 *
 * A reducer that meets data it cannot read (a field missing, or of another type) fails with
 * the runtime's own words: `Cannot read properties of undefined (reading 'stagnation_detected')`
 * says neither which field of the event is wrong nor what it is. {@link refusalReason} folds
 * the event again, onto drafts of the state, with its fields read through a tracer and one
 * field changed at a time, and names the field the fold failed on by its path in the event
 * line (`data.checkpoint.signals`) and what it holds there. This runs only for an event the
 * fold refused, at most once a log.
 */
import { LoopdeckError } from './errors.js';
import { describeField } from './event-data.js';
import type { LoopEvent } from './events.js';
import { draftOf, reduce, type SessionState } from './fold.js';

/** One field a reducer read: its path in the event line (keys from the top) and the value it found. */
interface Read {
  keys: readonly string[];
  value: unknown;
}

/** A path of keys as it is written in the log's terms: `data.checkpoint.signals`, `data.calls[0].name`. */
export function fieldPath(keys: readonly string[]): string {
  let out = '';
  for (const key of keys) out += /^\d+$/.test(key) ? `[${key}]` : out === '' ? key : `.${key}`;
  return out;
}

/**
 * `value` with every read of a field (at any depth) appended to `reads`, with its keys from
 * the event line's top. A field the language will not let a proxy stand in for (one that is
 * neither writable nor configurable) is read as it is.
 */
function traced<T>(value: T, keys: readonly string[], reads: Read[]): T {
  if (value === null || typeof value !== 'object') return value;
  const list = Array.isArray(value);
  return new Proxy(value as object, {
    get(target, key, receiver) {
      const found: unknown = Reflect.get(target, key, receiver);
      if (typeof key === 'symbol' || (list && key === 'length')) return found;
      const at = [...keys, key];
      reads.push({ keys: at, value: found });
      const own = Reflect.getOwnPropertyDescriptor(target, key);
      if (own !== undefined && !own.configurable && !own.writable) return found;
      return traced(found, at, reads);
    },
  }) as T;
}

/** `value` with the field at `keys` set to `to`: the objects and lists on the way copied, the rest shared. */
function withField(value: unknown, keys: readonly string[], to: unknown): unknown {
  if (keys.length === 0) return to;
  const [key, ...rest] = keys as [string, ...string[]];
  const holder: Record<string, unknown> = Array.isArray(value) ? ([...value] as unknown as Record<string, unknown>) : value !== null && typeof value === 'object' ? { ...(value as Record<string, unknown>) } : {};
  holder[key] = withField(holder[key], rest, to);
  return holder;
}

/** `true` for a runtime error that reading a value of the wrong shape raises (not one loopdeck throws with its own words). */
function isShapeError(error: unknown): error is TypeError | RangeError {
  return (error instanceof TypeError || error instanceof RangeError) && !(error instanceof LoopdeckError);
}

/**
 * A fold of `e` onto a draft of `state`, its fields traced: what it threw (`null`: it took
 * the event) and the fields it read, in order. Throws {@link GIVE_UP} once `until`
 * (`performance.now()` time, ms) has passed.
 */
function attempt(state: SessionState, e: unknown, until: number): { error: unknown; reads: Read[] } {
  if (performance.now() > until) throw GIVE_UP;
  const reads: Read[] = [];
  try {
    reduce(draftOf(state), traced(e, [], reads) as LoopEvent);
    return { error: null, reads };
  } catch (error) {
    return { error, reads };
  }
}

/**
 * Time the search for the damaged field may take, in ms: a few folds of one event take far
 * less, but an event of millions of fields (a hostile line) would take minutes. Past it the
 * runtime's message is given as it is.
 */
const SEARCH_MS = 1000;
/** Thrown when the search is given up ({@link SEARCH_MS}). */
const GIVE_UP = Symbol('give up');

/** Values a field is given to see whether the fold takes the event with it. */
const PROBES: readonly unknown[] = ['', 0, false, [], {}];

/** The kind of a value, to give a field only probes of another kind than its own. */
const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value);

/** Most fields of an event {@link culpritOf} tries, from the one read last: a few folds each. */
const MAX_FIELDS_TRIED = 40;

/** The fields of `reads` under `data`, each once, the one read last first (at most {@link MAX_FIELDS_TRIED}). */
function candidates(reads: readonly Read[]): Read[] {
  const seen = new Set<string>();
  const out: Read[] = [];
  for (let i = reads.length - 1; i >= 0; i--) {
    const read = reads[i]!;
    const at = fieldPath(read.keys);
    if (read.keys[0] !== 'data' || read.keys.length < 2 || seen.has(at)) continue;
    seen.add(at);
    out.push(read);
    if (out.length === MAX_FIELDS_TRIED) break;
  }
  return out;
}

/**
 * The property a runtime message says could not be read or used: `k` of "Cannot read
 * properties of undefined (reading 'k')", `tool_calls` of "response.tool_calls is not
 * iterable"; `null` for any other message.
 */
function propertyOf(message: string): string | null {
  const reading = /^Cannot read properties of (?:undefined|null) \(reading '([^']*)'\)/.exec(message);
  if (reading) return reading[1]!;
  const used = /(?:^|\.)([\w$]+) is not (?:iterable|a function)\b/.exec(message);
  return used ? used[1]! : null;
}

/**
 * True for a property every plain value or every list has (`length`, `split`, `toFixed`,
 * `map`, ...): looking it up does not show that a record (an object with fields of its own)
 * was expected.
 */
const PLAIN_PROPERTIES = (key: string) => key in String.prototype || key in Number.prototype || key in Boolean.prototype || key in Array.prototype;

/** True when `keys` is `under` or a field inside it. */
const within = (keys: readonly string[], under: readonly string[]) => under.every((k, i) => keys[i] === k);

/**
 * The field of `e` the fold could not read, found by folding it again with one field
 * changed at a time (onto drafts: `state` is not changed). The fields the fold read are
 * tried from the one read last (the fold stops where it fails), and the first of them that
 * explains the error is named:
 * - a field holding nothing or a plain value that, given an object, is looked into: for the
 *   very property the runtime's message names ({@link propertyOf}), or for any property
 *   that is not one of every plain value or list ({@link PLAIN_PROPERTIES});
 * - a field the fold did not look into for such a property that, given a value of another
 *   kind, lets the fold take the event while it still reads every other field it read
 *   before (a value that only steers the fold past the damaged field, as an unknown call id
 *   does, is not it).
 * `null` when no field explains the error. Gives up ({@link GIVE_UP}) past `until`.
 */
function culpritOf(state: SessionState, e: LoopEvent, message: string, until: number): Read | null {
  const first = attempt(state, e, until);
  if (!isShapeError(first.error) || first.error.message !== message) return null;
  const property = propertyOf(message);
  /** The properties looked up inside `field` in a fold's reads. */
  const inside = (reads: readonly Read[], field: Read) => reads.filter((r) => r.keys.length > field.keys.length && within(r.keys, field.keys)).map((r) => r.keys[field.keys.length]!);
  const lookedInto = (field: Read) => {
    if (field.value !== null && typeof field.value === 'object') return false;
    const keys = inside(attempt(state, withField(e, field.keys, {}), until).reads, field);
    return keys.some((k) => k === property || !PLAIN_PROPERTIES(k));
  };
  const takenWith = (field: Read) => {
    if (inside(first.reads, field).some((k) => !PLAIN_PROPERTIES(k))) return false;
    const before = first.reads.filter((r) => !within(r.keys, field.keys)).map((r) => fieldPath(r.keys));
    return PROBES.some((probe) => {
      if (kindOf(probe) === kindOf(field.value)) return false;
      const again = attempt(state, withField(e, field.keys, probe), until);
      if (again.error !== null) return false;
      const read = new Set(again.reads.map((r) => fieldPath(r.keys)));
      return before.every((at) => read.has(at));
    });
  };
  return candidates(first.reads).find((field) => lookedInto(field) || takenWith(field)) ?? null;
}

/**
 * Why the fold refused `e` (it threw `error` folding it into `state`, the state before it),
 * in the log's terms. An error loopdeck throws with its own words (an illegal transition, a
 * broken invariant) is its message. A runtime error of data the reducer could not read is
 * named by the field it failed on, by its path in the event line, and what that field holds:
 * `data.checkpoint.signals is missing`, `data.result.output is the number 7 (not what the
 * fold reads there)`; the runtime's message when no one field explains it.
 *
 * Folds `e` again onto drafts of `state` ({@link culpritOf}), a few times per field it reads,
 * for at most `searchMs` ms (default {@link SEARCH_MS}): meant for the one event a log's fold
 * refuses. `state` is not changed.
 */
export function refusalReason(state: SessionState, e: LoopEvent, error: unknown, searchMs = SEARCH_MS): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!isShapeError(error)) return message;
  let culprit: Read | null;
  try {
    culprit = culpritOf(state, e, message, performance.now() + searchMs);
  } catch (thrown) {
    if (thrown !== GIVE_UP) throw thrown;
    culprit = null;
  }
  if (culprit === null) return message;
  const at = fieldPath(culprit.keys);
  const what = describeField(culprit.value);
  return culprit.value === undefined || culprit.value === null ? `${at} is ${what}` : `${at} is ${what} (not what the fold reads there)`;
}
