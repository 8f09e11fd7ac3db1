import { UNSAFE_RANGES } from './sanitize.js';

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

/**
 * `JSON.stringify`, safe to print: besides the C0 controls (which `JSON.stringify`
 * already escapes), DEL, the C1 controls (8-bit CSI U+009B, OSC U+009D…), the bidi
 * controls (U+202E…) and U+2028/U+2029 are written as `\uXXXX` escapes, which
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
  return json.replace(RAW_IN_JSON, (ch) => `\\u${hex(ch.charCodeAt(0))}`);
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
