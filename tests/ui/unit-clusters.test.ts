// Text measured and split unit by unit (src/ui/unit-clusters.ts) gives exactly what the
// grapheme segmenter and string-width give: for every UTF-16 unit the fast path takes, and
// for random mixes of them with the characters it must leave to the segmenter (joined
// emoji, combining marks, Hangul jamo, CR LF, escape sequences).
import { describe, test, expect } from 'vitest';
import stringWidth from 'string-width';
import { cellWidth, clipEnd, clipStart, graphemes, sanitize, truncateCells, wrapCells } from '../../src/ui/text.js';
import { unitsAreClusters } from '../../src/ui/unit-clusters.js';
import { seededRandom as random } from '../support/random.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const clusters = (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);

/** clipEnd as it was written before the fast path: cluster by cluster with string-width. */
function clipEndByClusters(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const g of clusters(text)) {
    const w = stringWidth(g);
    if (used + w > width) break;
    out += g;
    used += w;
  }
  return out;
}

/** Every BMP unit the fast path takes as a cluster by itself. */
const simple: string[] = [];
const joining: string[] = [];
for (let code = 0; code < 0x10000; code++) {
  const unit = String.fromCharCode(code);
  (unitsAreClusters(unit) ? simple : joining).push(unit);
}

const TRICKY = ['👨‍👩‍👧‍👦', '🏳️‍🌈', '👍🏽', '🇫🇷', 'e\u0301', 'Z\u0335\u0338', '\u1100\u1161\u11a8', '한', '\r\n', '\u200d', '\ufe0f', '\u0915\u094d\u0937', '\u0600a', '\u001b[31m', '\u001b[0m', '\u001b]8;;https://x\u0007'];

describe('units that are clusters by themselves', () => {
  test('the fast path takes ASCII, box drawing, CJK and controls, and leaves marks, joiners, jamo, CR and surrogates', () => {
    for (const unit of ['a', '~', ' ', '─', '│', '·', '…', '›', '░', '█', '名', '前', '\u001b', '\t', '\n']) expect(unitsAreClusters(unit), JSON.stringify(unit)).toBe(true);
    for (const unit of ['\u0301', '\u200d', '\ufe0f', '\u1100', '\u1161', '\u11a8', '\uac00', '\r', '\ud83d', '\ude00', '\u0600', '\u0903']) expect(unitsAreClusters(unit), JSON.stringify(unit)).toBe(false);
    expect(simple.length).toBeGreaterThan(40_000);
  });

  test('any two units the fast path takes are two clusters, as the segmenter splits them', () => {
    const next = random(1);
    const pick = () => simple[Math.floor(next() * simple.length)]!;
    const wrong: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const pair = pick() + pick();
      if (clusters(pair).length !== 2) wrong.push(pair);
    }
    expect(wrong.map((p) => [...p].map((c) => c.codePointAt(0)!.toString(16)))).toEqual([]);
  });

  test('graphemes, cellWidth and clipEnd agree with the segmenter and string-width on random text', () => {
    const next = random(2);
    const pool = [...simple.filter((_, i) => i % 7 === 0), ...'abcdefghij ─│·…›░█名前を保つ'.split(''), ...TRICKY, ...joining.filter((_, i) => i % 97 === 0)];
    for (let i = 0; i < 3_000; i++) {
      const pieces = Array.from({ length: 1 + Math.floor(next() * 40) }, () => pool[Math.floor(next() * pool.length)]!);
      // Half of them from the fast path's units only.
      const text = i % 2 === 0 ? pieces.filter((p) => p.length === 1 && unitsAreClusters(p)).join('') : pieces.join('');
      expect(graphemes(text), JSON.stringify(text)).toEqual(clusters(text));
      expect(cellWidth(text), JSON.stringify(text)).toBe(stringWidth(text));
      const width = Math.floor(next() * 30);
      expect(clipEnd(text, width), JSON.stringify([text, width])).toBe(clipEndByClusters(text, width));
    }
  });

  test('each joined sequence, mark and escape sequence is measured as string-width measures it, also inside ASCII', () => {
    for (const tricky of TRICKY) {
      for (const text of [tricky, `ab ${tricky} cd`, `─${tricky}…`, `名${tricky}`]) {
        expect(cellWidth(text), JSON.stringify(text)).toBe(stringWidth(text));
        expect(graphemes(text), JSON.stringify(text)).toEqual(clusters(text));
        for (let width = 0; width < 12; width++) expect(clipEnd(text, width)).toBe(clipEndByClusters(text, width));
      }
    }
  });
});

// Texts longer than a piece of the segmenter's work (256 units) are segmented piece by piece;
// the clusters, widths and cuts must be those of the whole text, whatever runs across the
// pieces' ends: runs with no unit that is a cluster by itself (Thai with SARA AM, emoji,
// regional indicators in odd numbers, Hangul jamo), a letter under hundreds of marks.
const RUNS = ['กำ', 'ก\u0e34\u0e48', '👩‍💻', '👍🏽', '🇫', '🇫🇷', '\u1100\u1161', '\u11a8', 'e\u0301', '\u0915\u094d\u0937', '\r\n', '\r', '\u200d', 'a'];

describe('long text, piece by piece', () => {
  test('graphemes, cellWidth and clipEnd are those of the whole text for long runs of joining characters', () => {
    const next = random(7);
    for (let i = 0; i < 300; i++) {
      const parts: string[] = [];
      let length = 0;
      const target = 300 + Math.floor(next() * 2_700);
      while (length < target) {
        const run = RUNS[Math.floor(next() * RUNS.length)]!;
        // A run long enough to cross a piece's end, or one mark stack of up to 1,000 marks.
        const part = next() < 0.1 ? `x${'\u0301'.repeat(Math.floor(next() * 1_000))}` : run.repeat(1 + Math.floor(next() * 200));
        parts.push(part);
        length += part.length;
      }
      const text = parts.join('');
      expect(graphemes(text), `text ${i}`).toEqual(clusters(text));
      expect(cellWidth(text), `text ${i}`).toBe(stringWidth(text));
      const width = Math.floor(next() * 400);
      expect(clipEnd(text, width), `text ${i}, width ${width}`).toBe(clipEndByClusters(text, width));
    }
  });

  // Measured before: 160,000 units of Thai took 26 s to sanitize and 74 s to cut to a row.
  test.each(RUNS.filter((run) => run !== 'a'))('160,000 units of %j are sanitized, measured, cut and wrapped in linear time', (run) => {
    const text = run.repeat(Math.ceil(160_000 / run.length));
    const started = performance.now();
    const shown = sanitize(text);
    cellWidth(shown);
    truncateCells(shown, 80);
    clipStart(shown, 80);
    wrapCells(shown, 120);
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});
