// The tokens Ink's text pass makes of a line, made unit by unit (src/ui/tokenize-units.ts),
// are the ones @alcalzone/ansi-tokenize makes with its segmenter: styled lines as chalk
// writes them, compound, 8-bit and 24-bit colour codes, links, broken escape sequences,
// box drawing, CJK, and the characters left to the library (joined emoji, marks, jamo).
import { test, expect } from 'vitest';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { unitTokenizer, type AnsiTokenizeParts } from '../../src/ui/tokenize-units.js';
import { unitsAreClusters } from '../../src/ui/unit-clusters.js';
import { seededRandom as random } from '../support/random.js';

// The library as Ink resolves it (src/ui/ink-output-cache.ts does the same).
const inkDir = path.dirname(createRequire(import.meta.url).resolve('ink'));
const libDir = path.dirname(createRequire(path.join(inkDir, 'output.js')).resolve('@alcalzone/ansi-tokenize/package.json'));
const lib = (await import(pathToFileURL(path.join(libDir, 'build', 'index.js')).href)) as { tokenize: AnsiTokenizeParts['tokenize'] };
const codes = (await import(pathToFileURL(path.join(libDir, 'build', 'ansiCodes.js')).href)) as Omit<AnsiTokenizeParts, 'tokenize'>;
const tokenize = unitTokenizer({ ...codes, tokenize: lib.tokenize });
/** SGR codes as chalk (Ink's colours) writes them: an open code, the text, its close code. */
const sgr = (open: string, close: string) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

const STYLES = [
  sgr('31', '39'),
  sgr('1', '22'),
  sgr('2', '22'),
  sgr('7', '27'),
  (s: string) => sgr('90', '39')(sgr('1', '22')(s)),
  (s: string) => sgr('44', '49')(sgr('37', '39')(s)),
  sgr('38;5;208', '39'),
  (s: string) => sgr('38;2;10;200;30', '39')(sgr('4', '24')(s)),
  sgr('48;2;1;2;3', '49'),
  (s: string) => `\u001b[1;3;31m${s}\u001b[0m`,
  (s: string) => `\u001b[38;5;12;48;2;1;2;3m${s}\u001b[39;49m`,
  (s: string) => `\u001b]8;;https://example.com/a?b=1\u0007${s}\u001b]8;;\u0007`,
  (s: string) => `\u001b[${s}`, // not a code: the characters stay characters
  (s: string) => `${s}\u001b`,
  (s: string) => `\u001b]8;x${s}`,
  (s: string) => `\u009b31m${s}`,
  (s: string) => s,
];
const WORDS = ['turn 780:', ' 5463 ', 'model.call', '── ', 'Timeline', ' · ', '…', '│', '░░░░', '████', '名前を保つ', '›', '←', 'e\u0301', '👨‍👩‍👧', '한', '\u1100\u1161', 'tab\there', '(f)', ''];

test('tokens of styled lines are the library\'s, unit by unit or not', () => {
  const next = random(3);
  let fast = 0;
  for (let i = 0; i < 5_000; i++) {
    let line = '';
    for (let k = Math.floor(next() * 8); k >= 0; k--) {
      const word = WORDS[Math.floor(next() * WORDS.length)]!;
      line += STYLES[Math.floor(next() * STYLES.length)]!(word);
    }
    if (unitsAreClusters(line)) fast += 1;
    expect(tokenize(line), JSON.stringify(line)).toEqual(lib.tokenize(line));
  }
  // Most lines took the unit-by-unit path, some were left to the library.
  expect(fast).toBeGreaterThan(1_000);
  expect(fast).toBeLessThan(5_000);
});

test('a full-width character is marked as the library marks it', () => {
  for (const line of ['名', 'a名b', `${sgr('31', '39')('全角')}x`, '\uff21\uff22', '─│']) expect(tokenize(line)).toEqual(lib.tokenize(line));
});
