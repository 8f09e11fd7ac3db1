import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { sanitize, truncate } from '../../src/text/sanitize.js';

/** Code points that must never reach the terminal raw (`\n` and `\t` are checked separately). */
function rawControls(text: string): string[] {
  return [...text].filter((ch) => {
    const code = ch.codePointAt(0)!;
    const bidi = code === 0x061c || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    return (code < 0x20 && ch !== '\n' && ch !== '\t') || (code >= 0x7f && code <= 0x9f) || bidi;
  });
}

/** Hostile inputs and exactly how each is shown. */
const CASES: Array<[string, string, string]> = [
  ['CSI clear screen', 'a\x1b[2Jb', 'a^[[2Jb'],
  ['CSI cursor up and colour', '\x1b[1A\x1b[31mred\x1b[0m', '^[[1A^[[31mred^[[0m'],
  ['OSC 52 clipboard write', '\x1b]52;c;ZXZpbA==\x07', '^[]52;c;ZXZpbA==^G'],
  ['OSC 0 title, BEL-terminated', '\x1b]0;pwned\x07', '^[]0;pwned^G'],
  ['OSC 2 title, ST-terminated', '\x1b]2;pwned\x1b\\', '^[]2;pwned^[\\'],
  ['OSC 8 hyperlink', '\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\', '^[]8;;https://evil.example^[\\click^[]8;;^[\\'],
  ['carriage return', 'safe\rEVIL', 'safe^MEVIL'],
  ['backspace', 'rm -rf /\b\b\b\bls', 'rm -rf /^H^H^H^Hls'],
  ['NUL', 'a\x00b', 'a^@b'],
  ['BEL, VT, FF', '\x07\x0b\x0c', '^G^K^L'],
  ['DEL', 'a\x7fb', 'a\\u{7f}b'],
  ['C1 CSI', 'a\x9b2Jb', 'a\\u{9b}2Jb'],
  ['C1 OSC and ST', '\x9d0;t\x9c', '\\u{9d}0;t\\u{9c}'],
  ['right-to-left override', 'abc\u202Efed', 'abc\\u{202e}fed'],
  ['isolates LRI RLI FSI PDI', '\u2066a\u2067b\u2068c\u2069', '\\u{2066}a\\u{2067}b\\u{2068}c\\u{2069}'],
  ['LRE RLE PDF LRO', '\u202Aa\u202Bb\u202Cc\u202Dd', '\\u{202a}a\\u{202b}b\\u{202c}c\\u{202d}d'],
  ['LRM RLM ALM', '\u200Ea\u200Fb\u061Cc', '\\u{200e}a\\u{200f}b\\u{61c}c'],
];

describe('sanitize', () => {
  it.each(CASES)('shows %s visibly', (_name, input, shown) => {
    expect(sanitize(input)).toBe(shown);
    expect(rawControls(sanitize(input))).toEqual([]);
  });

  it('leaves no raw control code point in any of the cases at once, one-line or not', () => {
    const all = CASES.map(([, input]) => input).join('\n\t');
    expect(rawControls(sanitize(all))).toEqual([]);
    const oneLine = sanitize(all, { oneLine: true });
    expect(rawControls(oneLine)).toEqual([]);
    expect(oneLine).not.toMatch(/[\n\t]/);
  });

  it('keeps newlines and tabs, or turns them into single spaces with oneLine', () => {
    expect(sanitize('a\n\tb\n')).toBe('a\n\tb\n');
    expect(sanitize('  a\n\n\tb  ', { oneLine: true })).toBe('a b');
    expect(sanitize('x\r\ny', { oneLine: true })).toBe('x^M y');
  });

  it('leaves plain text, accents, CJK, emoji and ZWJ sequences unchanged', () => {
    for (const text of ['plain ASCII: ls -la ~/src && echo "ok" (100%)', 'naïve café — ünïcödé', '漢字かなカナ 한국어', '👍🏽 🚀 👩‍💻 👨‍👩‍👧 🇫🇷 🏴󠁧󠁢󠁥󠁮󠁧󠁿', 'a\u00a0b']) {
      expect(sanitize(text)).toBe(text);
    }
  });

  it('keeps a terminal untouched: no title change, no clear, no return to column 0', async () => {
    const hostile = 'before\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\rafter';
    const screen = async (text: string) => {
      const term = new xterm.Terminal({ cols: 120, rows: 4, allowProposedApi: true });
      let title: string | null = null;
      term.onTitleChange((t) => (title = t));
      await new Promise<void>((resolve) => term.write(text, resolve));
      const line = term.buffer.active.getLine(0)?.translateToString(true) ?? '';
      term.dispose();
      return { line, title };
    };
    expect(await screen(hostile)).toEqual({ line: 'after', title: 'pwned' });
    expect(await screen(sanitize(hostile))).toEqual({ line: 'before^[]0;pwned^G^[]52;c;ZXZpbA==^G^[[2J^Mafter', title: null });
  });
});

describe('truncate', () => {
  it('cuts to width code points with an ellipsis', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcd', 4)).toBe('abcd');
    expect(truncate('🚀🚀🚀', 2)).toBe('🚀…');
    expect(truncate('abc', 0)).toBe('');
  });
});
