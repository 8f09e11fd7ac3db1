/**
 * A deterministic pseudo-random source in [0, 1) (mulberry32, Tommy Ettinger's 32-bit
 * generator), so that a failing generated case can be reproduced from its seed. The same
 * seed gives the same sequence on every machine; recorded digests (tests/fixtures) depend
 * on that, so the arithmetic must not change.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
