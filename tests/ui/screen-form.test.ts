// How untrusted text becomes screen text (src/ui/screen-form.ts through the console's
// `sanitize`): over whole classes of characters, the form the console draws has nothing
// invisible in it, and string-width (what Ink lays the frame out with) measures it at the
// width a terminal draws it (glibc's wcwidth, the table tmux 3.3a draws with).
import { describe, expect, test } from 'vitest';
import { cellWidth, clipEnd, clipStart, graphemes, sanitize, wrapCells, wrapWords } from '../../src/ui/text.js';
import { terminalWidth } from '../support/terminal-width.js';

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}\p{Cn}\p{Cc}]/u;
const hex = (code: number) => code.toString(16);

/** Every code point (surrogates aside) matching `pattern`. */
function codePoints(pattern: RegExp): number[] {
  const out: number[] = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    if (pattern.test(String.fromCodePoint(code))) out.push(code);
  }
  return out;
}

/** What is wrong with the screen form of `text`: an invisible character left, or a width Ink and the terminal disagree on. */
function problem(text: string): string | null {
  const shown = sanitize(text);
  const left = [...shown].find((c) => c !== '\n' && c !== '\t' && INVISIBLE.test(c));
  if (left) return `${JSON.stringify(text)} → ${JSON.stringify(shown)} keeps U+${hex(left.codePointAt(0)!)}`;
  const lines = shown.split('\n');
  for (const line of lines) {
    if (line.includes('\t')) continue;
    if (cellWidth(line) !== terminalWidth(line)) return `${JSON.stringify(text)} → ${JSON.stringify(line)}: measured ${cellWidth(line)}, drawn ${terminalWidth(line)}`;
  }
  return null;
}

const problems = (texts: Iterable<string>) => [...texts].map(problem).filter((p) => p !== null);

/** Bases a following character may join: none, a letter, Thai, Devanagari, a Hangul leading jamo, an emoji. */
const BASES = ['', 'a', 'ก', 'क', '\u1100', '😀'];

describe('invisible and filler characters are shown escaped, whatever their kind', () => {
  test('every Default_Ignorable and format code point (soft hyphen, fillers, zero-width characters, variation selectors, tags)', () => {
    const all = codePoints(/[\p{Default_Ignorable_Code_Point}\p{Cf}]/u);
    expect(all.length).toBeGreaterThan(4000);
    for (const code of [0x00ad, 0x115f, 0x1160, 0x3164, 0xffa0, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x0600, 0xfff9, 0xe0041]) expect(all).toContain(code);
    const texts = all.flatMap((code) => BASES.map((base) => `${base}${String.fromCodePoint(code)}b`));
    expect(problems(texts)).toEqual([]);
    // Shown as `\u{…}`, as bidi controls are, where nothing else took them (a joiner between emoji splits them).
    for (const code of all) expect(sanitize(`a${String.fromCodePoint(code)}b`)).toBe(`a\\u{${hex(code)}}b`);
  });

  test('the trial payloads: fillers, a hidden word break in a command, a zero-width run', () => {
    expect(sanitize('Fillers ㅤᅟ­ﾠ end')).toBe('Fillers \\u{3164}\\u{115f}\\u{ad}\\u{ffa0} end');
    expect(sanitize('echo invisible\u200b\u2060\u200b\u2060 rm')).toBe('echo invisible\\u{200b}\\u{2060}\\u{200b}\\u{2060} rm');
    expect(sanitize(`echo ${'ab\u200b'.repeat(3)}`)).toBe('echo ab\\u{200b}ab\\u{200b}ab\\u{200b}');
    // Lone surrogates and unassigned code points: unknown to every terminal.
    expect(sanitize('a\ud800b\u{50000}c')).toBe('a\\u{d800}b\\u{50000}c');
  });
});

describe('clusters are drawn at the width Ink measures, in every terminal', () => {
  test('every code point of planes 0 and 1, alone and after each kind of base it can join (CJK and Hangul syllables sampled)', () => {
    const texts: string[] = [];
    for (let code = 0; code <= 0x1ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const sampled = (code >= 0x3400 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xe000 && code <= 0xf8ff) || (code >= 0x17000 && code <= 0x18cff);
      if (sampled && code % 61 !== 0) continue;
      const char = String.fromCodePoint(code);
      if (/\p{Cc}/u.test(char)) continue;
      texts.push(`${char}b`);
      // What joins the letter before it (marks, spacing marks, joiners, modifiers) joins other bases too.
      if (graphemes(`a${char}`).length === 1) for (const base of BASES) texts.push(`${base}${char}b`);
    }
    expect(texts.length).toBeGreaterThan(80_000);
    expect(problems(texts)).toEqual([]);
  });

  test('Indic conjuncts (consonant, virama, consonant: one cluster measured as one letter) in six scripts', () => {
    const texts: string[] = [];
    for (const block of [0x0900, 0x0980, 0x0a80, 0x0b00, 0x0c00, 0x0d00]) {
      const virama = String.fromCodePoint(block + 0x4d);
      for (let a = block + 0x15; a <= block + 0x39; a += 1)
        for (let b = block + 0x15; b <= block + 0x39; b += 5) texts.push(`${String.fromCodePoint(a)}${virama}${String.fromCodePoint(b)}${virama}${String.fromCodePoint(a)}\u093f`);
    }
    expect(problems(texts)).toEqual([]);
    // Where a conjunct is cut, it is at its virama: the letters stay readable.
    expect(sanitize('हिन्दी')).toBe('हिन\\u{94d}दी');
  });

  test('Thai and Lao SARA AM: the compatibility form (nikhahit + sara aa), drawn as measured', () => {
    expect(sanitize('กำ')).toBe('ก\u0e4d\u0e32');
    expect(sanitize('ນຳ')).toBe('ນ\u0ecd\u0eb2');
    expect(cellWidth(sanitize('กำกำ'))).toBe(4);
  });

  test('emoji with a presentation selector lose it; keycaps keep their base and show the keycap mark escaped', () => {
    // Every text-default emoji (❤ ✔ ☺ ↔ …) with U+FE0F: measured 2, drawn 1 by wcwidth terminals.
    const textDefault = codePoints(/^(?=\p{Emoji})(?!\p{Emoji_Presentation})(?![\d#*])./u);
    expect(textDefault.length).toBeGreaterThan(100);
    for (const code of textDefault) {
      const base = String.fromCodePoint(code);
      expect(sanitize(`${base}\ufe0f`)).toBe(base);
      expect(sanitize(`${base}\ufe0e`)).toBe(base);
    }
    expect(problems(textDefault.map((code) => `x ${String.fromCodePoint(code)}\ufe0f y`))).toEqual([]);
    for (const base of '0123456789#*') {
      expect(sanitize(`${base}\ufe0f\u20e3`)).toBe(`${base}\\u{20e3}`);
      expect(sanitize(`${base}\u20e3`)).toBe(`${base}\\u{20e3}`);
    }
    expect(sanitize('❤️ ✔️ ☺️ 1️⃣ #️⃣')).toBe('❤ ✔ ☺ 1\\u{20e3} #\\u{20e3}');
    // A selector on what is not an emoji is an invisible character like any other.
    expect(sanitize('a\ufe0f')).toBe('a\\u{fe0f}');
  });

  test('skin tones, flags and joined emoji: what joins a letter is escaped; a flag, a lone swatch, an emoji stay', () => {
    expect(sanitize('a\u{1f3fb}')).toBe('a\\u{1f3fb}');
    // A skin tone on a pictograph is shown escaped beside it: 👍🏽 never looks like 👍.
    expect(sanitize('\u{1f3fb} 👍🏽 🇯🇵 😀')).toBe('\u{1f3fb} 👍\\u{1f3fd} 🇯🇵 😀');
    // After a space a swatch joins it: measured as the space, drawn as three cells.
    expect(sanitize('x \u{1f3fb}')).toBe('x \\u{1f3fb}');
    // Two regional indicators that are no flag: measured as one letter, drawn as two.
    expect(sanitize('\u{1f1e6}\u{1f1e6}')).toBe('\u{1f1e6}\\u{1f1e6}');
    // Joined emoji side by side, what joined them escaped: never the same as the parts typed apart.
    expect(sanitize('👨‍👩‍👧 🏴󠁧󠁢󠁳󠁣󠁴󠁿')).toBe('👨\\u{200d}👩\\u{200d}👧 🏴\\u{e0067}\\u{e0062}\\u{e0073}\\u{e0063}\\u{e0074}\\u{e007f}');
    expect(sanitize('👨👩👧 🏴 👍')).toBe('👨👩👧 🏴 👍');
    // Tag characters outside a subdivision flag carry hidden text: shown, not dropped.
    expect(sanitize('ok\u{e0041}\u{e0042}')).toBe('ok\\u{e0041}\\u{e0042}');
  });

  test('lone combining marks and jamo, whose cell Ink counts and the terminal does not, are escaped', () => {
    expect(sanitize('\u0301abc')).toBe('\\u{301}abc');
    expect(sanitize('x\n\u0301y')).toBe('x\n\\u{301}y');
    expect(sanitize('\u1161')).toBe('\\u{1161}');
  });

  test('text every terminal draws as measured is left as it is, without segmenting it', () => {
    for (const text of ['plain ASCII', '名前を保つ 漢字', 'e\u0301 Z\u0335\u0338 ñ', 'हिंदी का', '🇫🇷 😀 ✅ 🙂', '한국어 \u1100\u1161', 'box ─│╭╯ … ·', 'العربية'])
      expect(sanitize(text)).toBe(text);
  });

  test('idempotent: the screen form of a screen form is itself', () => {
    for (const text of ['❤️ 1️⃣ กำ ㅤ\u200b a\u{1f3fb} \u0301 👨‍👩‍👧', '\u001b]52;c;x\u0007 \u202e'])
      expect(sanitize(sanitize(text))).toBe(sanitize(text));
  });
});

describe('rows and cuts never split an escape form', () => {
  const text = sanitize('echo \u001b]52;c;QUJD\u0007 and\u200bthen\u3164 \u202eend');

  test('wrapping: no row starts or ends inside ^[ or \\u{…}', () => {
    for (let width = 1; width <= 20; width++) {
      for (const row of [...wrapCells(text, width), ...wrapWords(text, width)]) {
        expect(row, `${width}: ${row}`).not.toMatch(/^(\[|u\{|\{|[0-9a-f]+\})/);
        expect(row, `${width}: ${row}`).not.toMatch(/(\^|\\|\\u|\\u\{[0-9a-f]*)$/);
      }
      expect(wrapCells(text, width).join('')).toBe(text);
    }
  });

  test('clipping from either end stops before an escape form it would cut', () => {
    for (let width = 0; width <= text.length; width++) {
      const start = clipEnd(text, width);
      const end = clipStart(text, width);
      expect(cellWidth(start)).toBeLessThanOrEqual(width);
      expect(cellWidth(end)).toBeLessThanOrEqual(width);
      expect(start, `${width}`).not.toMatch(/(\^|\\|\\u|\\u\{[0-9a-f]*)$/);
      expect(end, `${width}`).not.toMatch(/^(\[|u\{|\{|[0-9a-f]*\})/);
    }
  });
});

describe('hostile lengths', () => {
  test('thousands of marks on one letter, a long conjunct chain, a long run of invisible characters: made safe in linear time', () => {
    const started = process.cpuUsage();
    const zalgo = sanitize(`a\u{1f3fb}${'\u0301'.repeat(20_000)} x\u0e33${'\u0301'.repeat(20_000)}`);
    const chain = sanitize(`क${'\u094dक'.repeat(5_000)}`);
    const run = sanitize(`${'名'.repeat(60_000)}😀${'\u200b'.repeat(20_000)}`);
    const spent = process.cpuUsage(started);
    // Segmenting such text at once (V8 copies the input into every segment) took minutes here.
    expect((spent.user + spent.system) / 1e6).toBeLessThan(15);
    expect(zalgo.startsWith('a\\u{1f3fb}\u0301')).toBe(true);
    expect(chain.startsWith('क\\u{94d}क\\u{94d}')).toBe(true);
    expect(run.includes('名😀\\u{200b}\\u{200b}') && run.endsWith('\\u{200b}')).toBe(true);
    for (const text of [zalgo, chain, run]) expect([...text].some((c) => INVISIBLE.test(c))).toBe(false);
  });
});
