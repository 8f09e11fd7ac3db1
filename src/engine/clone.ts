/**
 * Deep copies of the JSON-like values the engine hands around (tool calls, their
 * arguments), as `structuredClone` makes them, without its fixed cost: on Node 20 each
 * `structuredClone` call costs microseconds however small the value, several times a
 * step.
 */

/** Objects a value may hold before {@link cloneData} leaves it to `structuredClone`: past that, its fixed cost no longer counts. */
const MAX_OBJECTS = 64;

/** Marks a value {@link copyPlain} cannot copy the way `structuredClone` would. */
const UNLIKE = Symbol('unlike structuredClone');

/**
 * `structuredClone(value)`: copied here when it is made of primitives (not symbols), plain
 * objects (prototype `Object.prototype`) and dense arrays without extra keys, each object
 * met once (no shared or circular reference) and at most {@link MAX_OBJECTS} of them;
 * anything else (a Date, a Map, a class instance, a null-prototype object, a sparse array,
 * a shared reference, a function, a symbol) is copied, or refused with its `DataCloneError`,
 * by `structuredClone` itself. A getter of a plain object is then read twice.
 * @throws DOMException (DataCloneError) where `structuredClone` throws
 */
export function cloneData<T>(value: T): T {
  const copied = copyPlain(value, []);
  return copied === UNLIKE ? structuredClone(value) : (copied as T);
}

/** The copy of `value`, or {@link UNLIKE}; `seen` holds every object met so far. */
function copyPlain(value: unknown, seen: object[]): unknown {
  if (value === null) return value;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
    case 'bigint':
      return value;
    case 'object':
      break;
    default:
      return UNLIKE;
  }
  const object = value as object;
  if (seen.length >= MAX_OBJECTS || seen.includes(object)) return UNLIKE;
  seen.push(object);
  const proto = Object.getPrototypeOf(object);
  if (proto === Array.prototype) {
    const array = object as unknown[];
    if (Object.keys(array).length !== array.length) return UNLIKE;
    const out: unknown[] = new Array(array.length);
    for (let i = 0; i < array.length; i++) {
      if (!(i in array)) return UNLIKE;
      const item = copyPlain(array[i], seen);
      if (item === UNLIKE) return UNLIKE;
      out[i] = item;
    }
    return out;
  }
  if (proto !== Object.prototype) return UNLIKE;
  const record = object as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    const item = copyPlain(record[key], seen);
    if (item === UNLIKE) return UNLIKE;
    // defineProperty: a `__proto__` key stays an own field, as structuredClone keeps it.
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}
