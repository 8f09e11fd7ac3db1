import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/text/json.js';

/** Raw code points that must not be in JSON printed to a terminal (indentation newlines aside). */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

const HOSTILE = {
  csi8: 'a\u009b2Jb',
  osc8: '\u009d52;c;ZXZpbA==\u0007',
  st: '\u009c',
  del: 'x\u007fy',
  bidi: 'abc\u202Efed \u2066i\u2069 \u200e\u200f\u061c',
  separators: 'a\u2028b\u2029c',
  esc: '\u001b]0;title\u0007\u001b[2J\r\b',
  nested: [{ ['key\u009b\u202e']: ['\u0085', 'naïve café 漢字 👩‍💻 🏴󠁧󠁢󠁥󠁮󠁧󠁿'] }],
};

describe('toJson', () => {
  it('escapes C1 controls (8-bit CSI and OSC included), DEL, bidi controls and line separators as \\uXXXX', () => {
    expect(toJson('a\u009b2J\u202Eb\u007f\u2028')).toBe('"a\\u009b2J\\u202eb\\u007f\\u2028"');
    expect(toJson({ ['k\u009d']: '\u0090' })).toBe('{"k\\u009d":"\\u0090"}');
  });

  it('prints no raw control or bidi code point, on one line or indented, and parses back to the same value', () => {
    for (const space of [undefined, 2]) {
      const json = toJson(HOSTILE, space);
      expect(json).not.toMatch(RAW);
      expect(JSON.parse(json)).toEqual(HOSTILE);
    }
    expect(toJson(HOSTILE)).not.toContain('\n');
  });

  it('escapes characters drawn as nothing (zero-width space and joiners, soft hyphen, Hangul filler, tags) as \\uXXXX, not those inside an emoji', () => {
    expect(toJson('a\u200bb\u200c\u200d\u2060c\u00add\u3164\ufeff')).toBe('"a\\u200bb\\u200c\\u200d\\u2060c\\u00add\\u3164\\ufeff"');
    // A tag character outside a flag: its two UTF-16 halves, each escaped.
    expect(toJson('x\u{E0041}y')).toBe('"x\\udb40\\udc41y"');
    // Joined emoji, a presentation selector and a subdivision flag keep their parts.
    const emoji = '👩\u200d💻 ❤\ufe0f 🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}';
    expect(toJson(emoji)).toBe(JSON.stringify(emoji));
    const hidden = { command: 'echo a\u200b; rm -rf x', ['key\u2060']: ['\u034f', '\ufe0f alone'] };
    for (const space of [undefined, 2]) {
      const json = toJson(hidden, space);
      expect(json).not.toMatch(/[\u200b\u2060\u034f\ufe0f]/u);
      expect(JSON.parse(json)).toEqual(hidden);
    }
  });

  it('escapes the marks after every escape it writes, and at the start of a string: an accent is never drawn on the escape or the quote', () => {
    const COMBINING = ['\u0301', '\u0308\u0323', '\u20dd', '\u0e31'];
    // Every kind of character JSON writes escaped: C0 (\u0007, \n, \t), a quote, a backslash, C1, bidi, invisible; and a string's start.
    for (const before of ['\u0007', '\u001b', '\n', '\t', '"', '\\', '\u009b', '\u202e', '\u200b', '\u2060', '']) {
      for (const marks of COMBINING) {
        const value = before === '' ? { [marks]: [marks, `${marks}y`] } : { [`k${before}${marks}`]: [`x${before}${marks}y`, `${before}${marks}`] };
        for (const space of [undefined, 2]) {
          const json = toJson(value, space);
          expect(json, JSON.stringify(before + marks)).not.toMatch(/\p{M}/u);
          expect(JSON.parse(json)).toEqual(value);
        }
      }
    }
    expect(toJson('ok\u0007\u0301x')).toBe('"ok\\u0007\\u0301x"');
    // A mark on a letter, and an emoji's own parts, stay as they are.
    expect(toJson('cafe\u0301 👩\u200d💻')).toBe(JSON.stringify('cafe\u0301 👩\u200d💻'));
  });

  it('is JSON.stringify for text without such characters', () => {
    const plain = { a: 'naïve café 漢字 👩‍💻', b: [1, true, null], c: 'line\nbreak\ttab "quoted"' };
    expect(toJson(plain)).toBe(JSON.stringify(plain));
    expect(toJson(plain, 2)).toBe(JSON.stringify(plain, null, 2));
  });

  it('says so for a value with no JSON form', () => {
    expect(() => toJson(undefined)).toThrow('toJson: undefined has no JSON form');
  });
});
