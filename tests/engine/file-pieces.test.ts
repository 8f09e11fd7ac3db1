// filePieces, the reader of `replay --headless` and of the replay console: on files of
// random bytes (ASCII and UTF-8 lines, invalid UTF-8, lines that are not events, blank
// lines, lines longer than a chunk, with and without a last newline), read in chunks of any
// size, every piece is the line of the whole file decoded as UTF-8 at once and split at its
// newlines, with its byte offset in the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { filePieces, openLog, type Piece } from '../../src/engine/log.js';
import { seededRandom as random } from '../support/random.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-file-pieces-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Byte runs a line may hold: ASCII, UTF-8 of two, three and four bytes, and invalid UTF-8. */
const RUNS: Buffer[] = [
  Buffer.from('{"seq":1,"type":"tool.call","data":{"a":"b"}}'),
  Buffer.from('plain ascii text '),
  Buffer.from('naïve café 漢字 👩‍💻'),
  Buffer.from([0xff]),
  Buffer.from([0x80, 0x80]),
  Buffer.from([0xe6, 0xbc]), // a three-byte sequence cut short
  Buffer.from([0xf0, 0x9f, 0x98]), // a four-byte sequence cut short
  Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate, not UTF-8
  Buffer.from([0xc0, 0xaf]), // an overlong encoding
  Buffer.from('   '),
  Buffer.from('\t'),
];

/** A file of `lines` random lines; most start with `{`, as events do. */
function randomFile(next: () => number, lines: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < lines; i++) {
    const kind = next();
    if (kind < 0.7) parts.push(Buffer.from('{'));
    else if (kind < 0.8) parts.push(Buffer.from(' '));
    const n = Math.floor(next() * 6);
    for (let j = 0; j < n; j++) parts.push(RUNS[Math.floor(next() * RUNS.length)]!);
    if (next() < 0.1) parts.push(Buffer.from('x'.repeat(Math.floor(next() * 3000))));
    if (i < lines - 1 || next() < 0.5) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

/**
 * The pieces of a file without NUL bytes, from its whole text: every line but a blank one,
 * decoded with the rest of the file; the offset of its first byte; its length in bytes
 * (an event-like line, starting with `{`) or of its text as UTF-8 (any other line).
 */
function expected(bytes: Buffer): Piece[] {
  const lines = bytes.toString('utf8').split('\n');
  const pieces: Piece[] = [];
  let offset = 0;
  lines.forEach((text, index) => {
    const newline = bytes.indexOf(0x0a, offset);
    const end = newline < 0 ? bytes.length : newline;
    const unterminated = index === lines.length - 1;
    if (bytes[offset] === 0x7b) pieces.push({ text, line: index + 1, unterminated, offset, bytes: end - offset });
    else if (text.trim() !== '') pieces.push({ text, line: index + 1, unterminated, offset, bytes: Buffer.byteLength(text) });
    offset = end + 1;
  });
  return pieces;
}

function read(file: string, chunkBytes: number): { pieces: Piece[]; warnings: string[]; reads: number[] } {
  const fd = openLog(file);
  try {
    const warnings: string[] = [];
    const reads: number[] = [];
    return { pieces: [...filePieces(fd, file, warnings, (bytes) => reads.push(bytes), chunkBytes)], warnings, reads };
  } finally {
    fs.closeSync(fd);
  }
}

describe('filePieces', () => {
  it('gives the lines of the whole file decoded at once, with their byte offsets, whatever the chunk size', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const next = random(seed);
      const bytes = randomFile(next, 1 + Math.floor(next() * 200));
      const file = path.join(dir, `random-${seed}.jsonl`);
      fs.writeFileSync(file, bytes);
      const want = expected(bytes);
      for (const chunk of [7, 64, 1000, 65_536, 1 << 20]) {
        const { pieces, warnings, reads } = read(file, chunk);
        expect(warnings).toEqual([]);
        expect(pieces, `seed ${seed}, chunks of ${chunk}`).toEqual(want);
        // Read a chunk at a time, to the end.
        expect(reads.at(-1)).toBe(bytes.length);
        expect(reads.length).toBe(Math.floor(bytes.length / chunk) + 2 - (bytes.length % chunk === 0 ? 1 : 0));
      }
    }
  });

  it('a chunk with a NUL block and a chunk without give the same pieces around it', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"é"}\n{"b":1}\n'), Buffer.alloc(20), Buffer.from('{"c":"漢"}\n{"d":2}\n')]);
    const file = path.join(dir, 'nul.jsonl');
    fs.writeFileSync(file, bytes);
    for (const chunk of [5, 16, 1 << 20]) {
      const { pieces, warnings } = read(file, chunk);
      expect(warnings).toEqual([`${file}:3: skipped 20 NUL bytes (a block of zeros a crash can leave)`]);
      expect(pieces.map((p) => [p.text, p.line, p.offset, p.bytes])).toEqual([
        ['{"a":"é"}', 1, 0, 10],
        ['{"b":1}', 2, 11, 7],
        ['{"c":"漢"}', 3, 39, 11],
        ['{"d":2}', 4, 51, 7],
      ]);
    }
  });
});
