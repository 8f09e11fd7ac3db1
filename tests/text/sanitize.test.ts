import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { sanitize, shownName, truncate } from '../../src/text/sanitize.js';

/** Code points that must never reach the terminal raw (`\n` and `\t` are checked separately); written out here, not taken from the module under test. */
function rawControls(text: string): string[] {
  return [...text].filter((ch) => {
    const code = ch.codePointAt(0)!;
    const bidi = code === 0x061c || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    return (code < 0x20 && ch !== '\n' && ch !== '\t') || (code >= 0x7f && code <= 0x9f) || bidi || code === 0x2028 || code === 0x2029;
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
  ['DCS (ESC P … ST)', '\x1bP1$r0m\x1b\\', '^[P1$r0m^[\\'],
  ['APC, PM, SOS', '\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\', '^[_apc^[\\^[^pm^[\\^[Xsos^[\\'],
  ['8-bit DCS, APC, PM, SOS', '\x90q\x9c\x9fa\x9c\x9ep\x9c\x98s\x9c', '\\u{90}q\\u{9c}\\u{9f}a\\u{9c}\\u{9e}p\\u{9c}\\u{98}s\\u{9c}'],
  ['8-bit OSC 52 and title, BEL-terminated', '\x9d52;c;ZXZpbA==\x07\x9d2;t\x07', '\\u{9d}52;c;ZXZpbA==^G\\u{9d}2;t^G'],
  ['NEL, IND, RI (C1 line moves)', 'a\x85b\x84c\x8dd', 'a\\u{85}b\\u{84}c\\u{8d}d'],
  ['SO/SI character-set shifts', 'a\x0eqqq\x0fb', 'a^Nqqq^Ob'],
  ['ESC c (full reset) and ESC 7/8 (cursor save/restore)', '\x1bc\x1b7x\x1b8y', '^[c^[7x^[8y'],
  ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u{2028}b\\u{2029}c'],
  ['fake output after a clear', '\x1b[2J\x1b[H\x1b[32m52 passed\x1b[0m', '^[[2J^[[H^[[32m52 passed^[[0m'],
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

  // What a terminal draws as nothing hides words in what the operator reads: `echo ok` +
  // zero-width spaces + ` rm` reads "echo ok rm". Outside an emoji, every such code point
  // is shown, after any kind of character (checked against Unicode's own properties).
  it('shows every invisible code point (default-ignorable or format) outside an emoji, after any base', () => {
    const invisible: string[] = [];
    for (let code = 0xa0; code <= 0xeffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      if (code === 0x20000) code = 0xe0000; // planes 2 and 3 hold none
      const ch = String.fromCodePoint(code);
      if (/^[\p{Default_Ignorable_Code_Point}\p{Cf}]$/u.test(ch)) invisible.push(ch);
    }
    expect(invisible.length).toBeGreaterThan(4000); // tags, variation selectors, fillers, ...
    for (const base of ['a', 'é', '漢', 'ก', ' ', '1']) {
      for (const ch of invisible) {
        if (base === '1' && (ch === '\uFE0E' || ch === '\uFE0F')) continue; // a keycap's selector
        const shown = sanitize(`${base}${ch}z`);
        expect(shown, `U+${ch.codePointAt(0)!.toString(16)} after ${base}`).toBe(`${base}\\u{${ch.codePointAt(0)!.toString(16)}}z`);
        expect(sanitize(shown)).toBe(shown);
      }
    }
    expect(sanitize('echo ok\u200b\u200b\u200b rm -rf ~', { oneLine: true })).toBe('echo ok\\u{200b}\\u{200b}\\u{200b} rm -rf ~');
  });

  it('keeps the invisible parts of an emoji: joiners between pictographs, presentation selectors, a flag\'s tags', () => {
    for (const text of ['👩‍💻', '👨‍👩‍👧‍👦', '🏳️‍🌈', '❤️', '☺︎', '1️⃣', '🏴󠁧󠁢󠁳󠁣󠁴󠁿']) {
      expect(sanitize(text), JSON.stringify(text)).toBe(text);
    }
    // The same code points outside an emoji are shown.
    expect(sanitize('a\u200db')).toBe('a\\u{200d}b');
    expect(sanitize('👩\u200db')).toBe('👩\\u{200d}b');
    expect(sanitize('x\u{E0067}\u{E007F}')).toBe('x\\u{e0067}\\u{e007f}');
  });

  it('shows the marks after an escaped character escaped too: an accent is never drawn on the escape', () => {
    const COMBINING = ['\u0301', '\u0308\u0323', '\u20dd', '\u0e31'];
    // After every kind of character shown escaped: invisible, bidi, C1, C0 (as ^X).
    for (const escaped of ['\u200b', '\u2060', '\u00ad', '\u202e', '\u200f', '\u009b', '\u001b', '\u0007']) {
      for (const marks of COMBINING) {
        const out = sanitize(`cafe${escaped}${marks} x`);
        expect(out, JSON.stringify(escaped + marks)).toMatch(/^cafe(\^.|\\u\{[0-9a-f]+\})(\\u\{[0-9a-f]+\})+ x$/);
        expect(out).not.toMatch(/\p{M}/u);
        expect(sanitize(out)).toBe(out);
      }
    }
    expect(sanitize('cafe\u200b\u0301')).toBe('cafe\\u{200b}\\u{301}');
    // A name's tab or newline is shown as ^I, ^J: the marks after it are escaped too.
    for (const marks of COMBINING) {
      for (const [ch, caret] of [['\n', '^J'], ['\t', '^I']]) {
        const out = shownName(`f${ch}${marks}.yaml`);
        expect(out.startsWith(`f${caret}\\u{`), out).toBe(true);
        expect(out).not.toMatch(/\p{M}|[\n\t]/u);
      }
    }
    // After an escape written in the text itself: a quoted value in a message (`"ok\u0007"`), `\x1b`, `\n`.
    for (const escape of ['\\u0007', '\\u001B', '\\x1b', '\\n', '\\t', '\\"', '\\\\', '\\u{200b}']) {
      for (const marks of COMBINING) {
        const out = sanitize(`"ok${escape}${marks}x"`);
        expect(out, escape + marks).not.toMatch(/\p{M}/u);
        expect(out.startsWith(`"ok${escape}\\u{`), out).toBe(true);
        expect(sanitize(out)).toBe(out);
      }
    }

    // A mark on a letter stays on it; an emoji's own parts stay as they are.
    expect(sanitize('cafe\u0301 na\u0308ive 👩\u200d💻')).toBe('cafe\u0301 na\u0308ive 👩\u200d💻');
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

/**
 * What a terminal makes of `text`: the rows it shows (a terminal wide enough that nothing
 * wraps, `\n` as a new line), the title set and every OSC, DCS and ESC sequence run.
 */
async function emulate(text: string) {
  const term = new xterm.Terminal({ cols: 400, rows: 40, allowProposedApi: true, convertEol: true });
  const acted: string[] = [];
  term.onTitleChange((t) => acted.push(`title ${t}`));
  for (const id of [0, 1, 2, 4, 7, 8, 10, 11, 12, 52, 104, 133, 777, 1337]) term.parser.registerOscHandler(id, (data) => (acted.push(`OSC ${id};${data}`), false));
  for (let final = 0x40; final <= 0x7e; final++) {
    const f = String.fromCharCode(final);
    term.parser.registerDcsHandler({ final: f }, (data) => (acted.push(`DCS ${f} ${data}`), false));
    term.parser.registerDcsHandler({ intermediates: '$', final: f }, (data) => (acted.push(`DCS $${f} ${data}`), false));
  }
  for (let final = 0x30; final <= 0x7e; final++) {
    const f = String.fromCharCode(final);
    term.parser.registerEscHandler({ final: f }, () => (acted.push(`ESC ${f}`), false));
  }
  await new Promise<void>((resolve) => term.write(text, resolve));
  const buffer = term.buffer.active;
  const rows: string[] = [];
  for (let y = 0; y <= buffer.cursorY; y++) rows.push(buffer.getLine(y)?.translateToString(true) ?? '');
  term.dispose();
  return { shown: rows.join('\n'), acted };
}

describe('sanitized text in a terminal emulator', () => {
  it.each(CASES)('%s: the terminal shows exactly the sanitized text and runs nothing', async (_name, input) => {
    const safe = sanitize(input);
    expect(await emulate(safe)).toEqual({ shown: safe, acted: [] });
  });

  it('all cases at once, between ordinary lines: every line shown as sanitized, in order', async () => {
    const text = CASES.map(([name, input]) => `${name}: ${input}`).join('\n');
    const safe = sanitize(text);
    expect(safe.split('\n')).toHaveLength(CASES.length);
    expect(await emulate(safe)).toEqual({ shown: safe, acted: [] });
  });

  it('the raw cases do act on the terminal (the emulator sees what a terminal would)', async () => {
    for (const input of ['\x1b]52;c;ZXZpbA==\x07', '\x9d0;t\x07', '\x1bP1$r0m\x1b\\', '\x1bc']) {
      expect((await emulate(input)).acted, JSON.stringify(input)).not.toEqual([]);
    }
    // The 8-bit CSI clears the screen: the x is gone, the cursor stayed in column 2.
    expect((await emulate('x\x9b2Jy')).shown).toBe(' y');
    expect((await emulate('safe\rEVIL')).shown).toBe('EVIL');
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
