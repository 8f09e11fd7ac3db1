import { MARK_CLASS, NON_ASCII, replaceInvisible, UNSAFE_RANGES } from './sanitize.js';

const hex = (code: number) => code.toString(16).padStart(4, '0');

/**
 * The unsafe code points `JSON.stringify` leaves raw: all but the C0 controls (those it
 * escapes inside strings; outside them, the newlines of indentation are its own).
 */
const RAW_IN_JSON = new RegExp(
  `[${UNSAFE_RANGES.filter(([from]) => from >= 0x20)
    .map(([from, to]) => `\\u${hex(from)}-\\u${hex(to)}`)
    .join('')}]`,
  'g',
);

/** A character as JSON escapes: `\uXXXX` for each of its UTF-16 code units. */
const jsonEscape = (ch: string) => Array.from({ length: ch.length }, (_, i) => `\\u${hex(ch.charCodeAt(i))}`).join('');

/**
 * `JSON.stringify`, safe to print: besides the C0 controls (which `JSON.stringify`
 * already escapes), DEL, the C1 controls (8-bit CSI U+009B, OSC U+009D…), the bidi
 * controls (U+202E…), U+2028/U+2029 and the characters a terminal draws as nothing
 * (zero-width spaces and joiners, the soft hyphen, Hangul fillers, variation selectors,
 * tags; not those inside an emoji) are written as `\uXXXX` escapes, which
 * `JSON.stringify` leaves raw. Only strings can hold them, so the result is valid JSON
 * and parses back to the same value. Every JSON loopdeck writes to stdout, stderr or a
 * file a person may `cat` goes through here.
 * @param space indentation, as for `JSON.stringify`
 * @throws TypeError for a value `JSON.stringify` cannot serialise (a cycle, a BigInt) or
 *   one that has no JSON form at all (`undefined`, a function)
 */
export function toJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, null, space) as string | undefined;
  if (json === undefined) throw new TypeError(`toJson: ${typeof value} has no JSON form`);
  return escapeRaw(json);
}

/**
 * JSON text with the code points {@link toJson} escapes written as `\uXXXX`. They occur
 * only inside strings (keys and values) and an escape is ASCII, so escaping a whole text
 * of members is escaping each string.
 */
function escapeRaw(json: string): string {
  return escapeMarksOnSyntax(replaceInvisible(json.replace(RAW_IN_JSON, (ch) => `\\u${hex(ch.charCodeAt(0))}`), jsonEscape));
}

/**
 * Nonspacing and enclosing marks right after a JSON escape (`\u0007`, `\n`, `\"`) or right
 * after a string's opening quote. A terminal draws a mark on the character before it, which
 * there is the escape's last character or the quote, not a character of the text.
 */
const MARKS_ON_SYNTAX = new RegExp(`(?<=\\\\u[0-9a-fA-F]{4}|\\\\["\\\\/bfnrt]|(?<!\\\\)")[${MARK_CLASS}]+`, 'gu');

/**
 * JSON text with every mark that {@link MARKS_ON_SYNTAX} finds written as `\uXXXX` too, so
 * it is read as the code point it is, never drawn on the escape or the quote before it. The
 * value the text parses to is unchanged.
 */
export function escapeMarksOnSyntax(json: string): string {
  return NON_ASCII.test(json) ? json.replace(MARKS_ON_SYNTAX, jsonEscape) : json;
}

/**
 * {@link toJson} of `value` with `space` indentation, in pieces: the members of the value
 * and of its members are serialised one at a time, so a large state is printed without
 * building its whole text. Joined, the pieces equal `toJson(value, space)` for plain data
 * (objects, arrays, strings, numbers, booleans, `null`; no `toJSON`).
 * @throws TypeError as {@link toJson}
 */
export function* toJsonPieces(value: unknown, space: number, depth = 2, indent = ''): Generator<string> {
  const plain = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
  if (depth === 0 || !plain) {
    const json = toJson(value, space);
    yield indent === '' ? json : json.replace(/\n/g, `\n${indent}`);
    return;
  }
  const inner = indent + ' '.repeat(space);
  if (Array.isArray(value)) {
    if (value.length === 0) return yield '[]';
    yield '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      yield `${i === 0 ? '' : ','}\n${inner}`;
      // As JSON.stringify: what has no JSON form is `null` in an array.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield 'null';
      else yield* toJsonPieces(item, space, depth - 1, inner);
    }
    return yield `\n${indent}]`;
  }
  let first = true;
  for (const [key, item] of Object.entries(value)) {
    // As JSON.stringify: a member that has no JSON form is left out.
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    yield `${first ? '{' : ','}\n${inner}${toJson(key)}: `;
    first = false;
    yield* toJsonPieces(item, space, depth - 1, inner);
  }
  yield first ? '{}' : `\n${indent}}`;
}

/** An object or array that `JSON.stringify` walks member by member (no `toJSON` of its own). */
function isPlainContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** A member `JSON.stringify` has no text for: `null` in an array, left out of an object. */
const hasNoJson = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** An object with a `toJSON` of its own: `JSON.stringify` serialises what that returns. */
const isOwnJson = (value: unknown) => value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function';

/**
 * The members `keys[from..to)` of `value`, in that order, in an object without a prototype
 * (a `__proto__` key stays a member). Integer-like keys come first in both, ascending, so
 * `JSON.stringify` walks them in the order they have in `value`.
 */
function pick(value: Record<string, unknown>, keys: readonly string[], from: number, to: number): Record<string, unknown> {
  const picked = Object.create(null) as Record<string, unknown>;
  for (let i = from; i < to; i++) picked[keys[i]!] = value[keys[i]!];
  return picked;
}

/** Text gathered into chunks of about `limit` characters, each escaped as {@link toJson} escapes. */
class ChunkText {
  private parts: string[] = [];
  private size = 0;

  constructor(readonly limit: number) {}

  add(text: string): void {
    this.parts.push(text);
    this.size += text.length;
  }

  get full(): boolean {
    return this.size >= this.limit;
  }

  /** The text gathered so far, escaped, and empties the buffer. */
  take(): string {
    const text = this.parts.join('');
    this.parts = [];
    this.size = 0;
    // A chunk ends after a whole member: no string is cut in two.
    return escapeRaw(text);
  }
}

/**
 * {@link toJson} of `value` with `space` indentation (1 or more), in chunks of about
 * `chunkChars` characters (a member longer than that is one chunk): joined, the chunks are
 * the text {@link toJsonPieces} gives, so `toJson(value, space)` for plain data. The value
 * and its members are walked as {@link toJsonPieces} walks them; the members of its members
 * are serialised by `JSON.stringify` many at a time, nested in a wrapper that gives them
 * their indentation (a member with a `toJSON` of its own alone, as {@link toJsonPieces}
 * does). A chunk ends after a whole member, so a key and its value are in the same chunk,
 * and the chunks of a long array or object cost one `JSON.stringify` call and one escape
 * pass per chunk instead of one per member.
 * @throws TypeError as {@link toJson}
 */
export function* toJsonChunks(value: unknown, space: number, chunkChars = 1 << 20): Generator<string> {
  if (!(space >= 1)) throw new RangeError(`toJsonChunks: space must be 1 or more, not ${space}`);
  const out = new ChunkText(chunkChars);
  const inner = ' '.repeat(space);
  if (!isPlainContainer(value)) {
    out.add(toJson(value, space));
  } else if (Array.isArray(value)) {
    if (value.length === 0) out.add('[]');
    for (let i = 0; i < value.length; i++) {
      out.add(`${i === 0 ? '[' : ','}\n${inner}`);
      const item: unknown = value[i];
      if (hasNoJson(item)) out.add('null');
      else yield* memberChunks(item, space, out);
      if (out.full) yield out.take();
    }
    if (value.length > 0) out.add('\n]');
  } else {
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (hasNoJson(item)) continue;
      out.add(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `);
      first = false;
      yield* memberChunks(item, space, out);
      if (out.full) yield out.take();
    }
    out.add(first ? '{}' : '\n}');
  }
  yield out.take();
}

/** A member of the value {@link toJsonChunks} prints (its text indented one level), its own members many at a time. */
function* memberChunks(value: unknown, space: number, out: ChunkText): Generator<string> {
  const inner = ' '.repeat(space);
  if (!isPlainContainer(value)) {
    out.add(toJson(value, space).replace(/\n/g, `\n${inner}`));
    return;
  }
  const array = Array.isArray(value);
  const keys = array ? null : Object.keys(value).filter((key) => !hasNoJson((value as Record<string, unknown>)[key]));
  const count = array ? value.length : keys!.length;
  if (count === 0) {
    out.add(array ? '[]' : '{}');
    return;
  }
  const indent = inner + inner;
  // JSON.stringify([[a, b]] or [{k: a, l: b}], null, space) puts a, b at the indentation of
  // members of members: the text between the wrapper's head and tail is theirs.
  const head = `[\n${inner}${array ? '[' : '{'}\n${indent}`.length;
  const tail = `\n${inner}${array ? ']' : '}'}\n]`.length;
  const members = value as Record<string, unknown>;
  let batch = 64;
  for (let from = 0; from < count; ) {
    out.add(`${from === 0 ? (array ? '[' : '{') : ','}\n${indent}`);
    const first: unknown = array ? members[from] : members[keys![from]!];
    if (isOwnJson(first)) {
      // As toJsonPieces: a member with its own toJSON is serialised alone (toJSON gets the key '').
      out.add(`${array ? '' : `${JSON.stringify(keys![from])}: `}${toJson(first, space).replace(/\n/g, `\n${indent}`)}`);
      from += 1;
    } else {
      let to = from + 1;
      while (to < count && to - from < batch && !isOwnJson(array ? members[to] : members[keys![to]!])) to++;
      const wrapped = array ? (value as unknown[]).slice(from, to) : pick(members, keys!, from, to);
      const json = JSON.stringify([wrapped], null, space);
      out.add(json.slice(head, json.length - tail));
      // The next batch aims at a chunk's length, from the mean length of this one's members.
      batch = Math.max(1, Math.min(65_536, Math.floor(out.limit / Math.max(1, json.length / (to - from)))));
      from = to;
    }
    if (out.full) yield out.take();
  }
  out.add(`\n${inner}${array ? ']' : '}'}`);
}
