// cloneData stands in for structuredClone on tool calls: whatever the agent sends, the copy
// must be the one structuredClone makes (shape, prototypes, shared references, errors), and
// must not share an object with the original.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cloneData } from '../../src/engine/clone.js';

/** Every object reachable from `value` (own enumerable fields). */
function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
  if (value === null || typeof value !== 'object' || into.has(value)) return into;
  into.add(value);
  for (const item of Object.values(value)) objectsOf(item, into);
  return into;
}

/** Asserts `cloneData(value)` is what `structuredClone(value)` makes, and a copy. */
function expectLikeStructuredClone(value: unknown): unknown {
  const expected = structuredClone(value);
  const copied = cloneData(value);
  expect(isDeepStrictEqual(copied, expected)).toBe(true);
  expect(copied === null || typeof copied !== 'object' || Object.getPrototypeOf(copied) === Object.getPrototypeOf(expected)).toBe(true);
  const original = objectsOf(value);
  for (const object of objectsOf(copied)) expect(original.has(object)).toBe(false);
  return copied;
}

describe('cloneData copies as structuredClone does', () => {
  it.each([
    ['a tool call', { id: 'call_1', name: 'shell', args: { command: 'node --test', env: { A: '1' }, list: [1, 'two', null, true] } }],
    ['a list of tool calls', [{ id: 'a', name: 'read_file', args: { path: 'src/a.js' } }, { id: 'b', name: 'noop', args: {} }]],
    ['primitives', ['', 0, -0, NaN, Infinity, false, null, undefined, 12n]],
    ['an undefined field (kept, as structuredClone keeps it)', { a: undefined, b: 1 }],
    ['integer-like keys (in their own order)', { b: 1, 2: 'two', a: 3, 1: 'one' }],
    ['a __proto__ field (an own field, not a prototype)', JSON.parse('{"__proto__": {"polluted": true}, "x": 1}')],
    ['deep nesting', { a: { b: { c: { d: [[[{ e: 'deep' }]]] } } } }],
    ['a Date and a Map (left to structuredClone)', { when: new Date(0), map: new Map([['k', { v: 1 }]]) }],
    ['a null-prototype object (left to structuredClone: it becomes a plain object)', Object.assign(Object.create(null), { a: 1 })],
    ['a sparse array (left to structuredClone: the hole stays a hole)', [1, , 3]],
    ['an array with an extra key (left to structuredClone)', Object.assign([1, 2], { extra: 'x' })],
    ['more objects than the fast path takes', { items: Array.from({ length: 100 }, (_, i) => ({ i })) }],
  ])('%s', (_name, value) => {
    expectLikeStructuredClone(value);
  });

  it('a shared object stays shared in the copy, a cycle stays a cycle', () => {
    const shared = { k: 1 };
    const copied = expectLikeStructuredClone({ a: shared, b: shared }) as { a: object; b: object };
    expect(copied.a).toBe(copied.b);
    const cyclic: { self?: unknown; n: number } = { n: 1 };
    cyclic.self = cyclic;
    const copy = cloneData(cyclic);
    expect(copy.self).toBe(copy);
    expect(copy).not.toBe(cyclic);
  });

  it('what structuredClone refuses is refused with its error', () => {
    for (const value of [{ f: () => 1 }, { s: Symbol('x') }, [Symbol('y')]]) {
      expect(() => structuredClone(value)).toThrow(/could not be cloned/);
      expect(() => cloneData(value)).toThrow(/could not be cloned/);
    }
  });
});
