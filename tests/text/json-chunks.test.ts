// toJsonChunks, the printer of `replay --headless`: joined, its chunks are byte for byte the
// text of toJson (JSON.stringify, escaped), whatever the chunk size, on states with hostile
// text and shapes; and writeJsonChunks in a child process writes that text through a pipe
// whose reader is slow, holding back instead of queueing the whole text.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJson, toJsonChunks, toJsonPieces } from '../../src/text/json.js';
import { seededRandom as random } from '../support/random.js';

const root = path.resolve(import.meta.dirname, '../..');

/** Text pieces a state may hold: controls, C1, bidi, line separators, lone and paired surrogates, joined emoji, CJK, quotes. */
const TEXTS = [
  '',
  'plain',
  'naïve café 漢字 👩‍💻 🏴󠁧󠁢󠁥󠁮󠁧󠁿',
  '\u001b]52;c;RVZJTA==\u0007\u001b[2J\r\b\t\f\n\u0000',
  'a\u009b2Jb\u009d\u0085\u007f',
  'abc\u202Efed \u2066i\u2069 \u200e\u200f\u061c',
  'a\u2028b\u2029c',
  'hidden\u200b \u00ad\u2060\ufeff\u{E0041}\u034f next to ❤\ufe0f 👩\u200d💻 and caf\u00e9',
  'lone \ud800 high, lone \udfff low, \udc00\ud800 reversed, \ud83d\ude00 paired',
  '"quoted" \\back\\slash /slash',
  '{"looks": ["like", "json"]}\n  ,\n',
];

/** A random JSON-like value `depth` levels deep, with every kind of member JSON.stringify treats specially. */
function valueOf(next: () => number, depth: number): unknown {
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const kind = Math.floor(next() * (depth > 0 ? 14 : 9));
  switch (kind) {
    case 0:
      return pick(TEXTS) + pick(TEXTS);
    case 1:
      return pick([0, -0, 1.5, -1e21, 1e-7, 2 ** 53, NaN, Infinity, -Infinity]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return undefined;
    case 4:
      return () => 1;
    case 5:
      return Symbol('s');
    case 6:
      return new Date(0);
    case 7:
      return pick([[], {}]);
    case 8:
      return 'x'.repeat(Math.floor(next() * 3000));
    case 9:
    case 10: {
      const items: unknown[] = [];
      const n = Math.floor(next() * 40);
      for (let i = 0; i < n; i++) items.push(valueOf(next, depth - 1));
      if (next() < 0.2) items[n + 3] = 'after holes';
      return items;
    }
    default: {
      const out: Record<string, unknown> = {};
      const n = Math.floor(next() * 40);
      for (let i = 0; i < n; i++) {
        const key = pick([`k${i}`, String(i * 7), `${pick(TEXTS)}${i}`, '__proto__', 'toJSON', '', '10', '-1', '01']);
        Object.defineProperty(out, key, { value: valueOf(next, depth - 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
}

const joined = (value: unknown, chunkChars?: number) => [...toJsonChunks(value, 2, chunkChars)].join('');

describe('toJsonChunks', () => {
  it('joins to toJson(value, 2) on random hostile states, for chunk sizes from 1 character to 1 MiB', () => {
    for (let seed = 1; seed <= 120; seed++) {
      const next = random(seed);
      const state: Record<string, unknown> = {};
      for (let i = 0; i < 12; i++) state[`m${i}`] = valueOf(next, 3);
      const want = toJson(state, 2);
      for (const chunk of [1, 100, 1 << 20]) expect(joined(state, chunk), `seed ${seed}, chunks of ${chunk}`).toBe(want);
    }
  });

  it('joins to toJson(value, 2) for a top level that is an array, a string, a number, null, or empty', () => {
    const next = random(7);
    const values: unknown[] = [[valueOf(next, 3), undefined, [1, [2, [3]]], { a: { b: { c: 'd' } } }], [], {}, 'top \u202e', 42, null, [[]], [{}], { a: [] }, { a: {} }];
    for (const value of values) for (const chunk of [1, 50, 1 << 20]) expect(joined(value, chunk)).toBe(toJson(value, 2));
  });

  it('keeps what the member-by-member printer did where JSON.stringify differs: toJSON gets the key "" and a toJSON without JSON throws', () => {
    const keyed = { toJSON: (key: string) => `key=${key}` };
    for (const value of [{ a: { b: keyed, c: [keyed, 1] } }, [keyed, { x: keyed }], { list: [1, keyed, 2, keyed] }]) {
      expect(joined(value, 1)).toBe([...toJsonPieces(value, 2)].join(''));
      expect(joined(value)).toContain('"key="');
      expect(joined(value)).not.toContain('"key=b"');
    }
    expect(() => joined({ a: { b: { toJSON: () => undefined } } })).toThrow(TypeError);
    expect(() => joined({ a: { b: 10n } })).toThrow(TypeError);
    expect(() => joined(undefined)).toThrow('toJson: undefined has no JSON form');
  });

  it('a long array or object comes in chunks of about the size asked, each ending after a whole member', () => {
    const history = Array.from({ length: 20_000 }, (_, i) => ({ seq: i, text: `step ${i} \u202e é` }));
    const tools = Object.fromEntries(history.map((h) => [`call_${h.seq}`, h]));
    const state = { history, tools, n: 1 };
    const chunks = [...toJsonChunks(state, 2, 65_536)];
    expect(chunks.join('')).toBe(toJson(state, 2));
    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThan(65_536 / 4);
      expect(chunk.length).toBeLessThan(65_536 * 4);
      expect(chunk).toMatch(/[}\]"\d]$/);
    }
  });

  it('one string longer than a chunk is one chunk', () => {
    const huge = `${'漢'.repeat(300_000)}\ud800${'\u2028'.repeat(10)}`;
    const state = { a: { b: huge, c: [huge] } };
    expect(joined(state, 1000)).toBe(toJson(state, 2));
  });
});

describe('writeJsonChunks', () => {
  it('writes toJson(value, 2) and a newline through a pipe whose reader is slow, without queueing the whole text', async () => {
    // 10,000 members of about 600 characters (6 million), printed while the reader takes nothing for 1.5 s.
    const script = [
      `const { writeJsonChunks } = await import(${JSON.stringify(path.join(root, 'src/text/print.ts'))});`,
      "const state = { history: Array.from({ length: 10000 }, (_, i) => ({ seq: i, text: 'é漢'.repeat(280) })) };",
      'let queued = 0;',
      'const write = process.stdout.write.bind(process.stdout);',
      'process.stdout.write = (chunk) => { const ok = write(chunk); queued = Math.max(queued, process.stdout.writableLength); return ok; };',
      'await writeJsonChunks(state, 2);',
      "process.stderr.write(String(queued));",
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    setTimeout(() => {
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.stdout.resume();
    }, 1500);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    const state = { history: Array.from({ length: 10000 }, (_, i) => ({ seq: i, text: 'é漢'.repeat(280) })) };
    const want = `${toJson(state, 2)}\n`;
    expect(Buffer.concat(chunks).toString()).toBe(want);
    // Of the 6 million characters, at most a chunk of about a million waited in the stream at a time.
    expect(want.length).toBeGreaterThan(6_000_000);
    expect(Number(stderr)).toBeLessThan(2_500_000);
  }, 60_000);
});
