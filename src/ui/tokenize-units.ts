// `tokenize` of @alcalzone/ansi-tokenize (0.2.5, MIT, build/tokenize.js), the tokens Ink's
// text pass makes of every line it draws, for lines whose every UTF-16 unit is a grapheme
// cluster by itself (src/ui/unit-clusters.ts). The library walks the line cluster by
// cluster with `Intl.Segmenter` (~1 µs a cluster on Node 20); for such a line the clusters
// are its units, so the same walk is done unit by unit. The escape-sequence parsing below
// is the library's, copied as it is; its constants and `getEndCode` are the library's own
// (passed in). tests/ui/tokenize-units.test.ts compares the tokens with the library's.
import { unitsAreClusters } from './unit-clusters.js';

/** A token as the library makes it: an escape code, or a visible character. */
export type Token = { type: 'ansi'; code: string; endCode: string } | { type: 'char'; value: string; fullWidth: boolean };

/** What is used of the library: its `tokenize`, and the constants and `getEndCode` of build/ansiCodes.js. */
export interface AnsiTokenizeParts {
  tokenize(text: string): Token[];
  ESCAPES: ReadonlySet<number>;
  CSI: number;
  OSC: number;
  linkCodePrefix: string;
  linkCodePrefixCharCodes: readonly number[];
  getEndCode(code: string): string;
}

const CC_0 = '0'.charCodeAt(0);
const CC_9 = '9'.charCodeAt(0);
const CC_SEMI = ';'.charCodeAt(0);
const CC_M = 'm'.charCodeAt(0);

/**
 * The library's `tokenize` for lines whose units are clusters by themselves, and its own
 * `tokenize` for every other line: the same tokens either way.
 */
export function unitTokenizer(lib: AnsiTokenizeParts): (text: string) => Token[] {
  /** Per UTF-16 unit: 0 not yet asked, 1 narrow, 2 full width (as the library's tokens say). */
  const fullWidths = new Uint8Array(0x10000);
  const fullWidth = (code: number): boolean => {
    let known = fullWidths[code]!;
    if (known === 0) {
      const [token] = lib.tokenize(String.fromCharCode(code));
      known = fullWidths[code] = token?.type === 'char' && token.fullWidth ? 2 : 1;
    }
    return known === 2;
  };

  function parseLinkCode(string: string, offset: number): string | undefined {
    string = string.slice(offset);
    for (let index = 1; index < lib.linkCodePrefixCharCodes.length; index++) {
      if (string.charCodeAt(index) !== lib.linkCodePrefixCharCodes[index]) return undefined;
    }
    const paramsEndIndex = string.indexOf(';', lib.linkCodePrefix.length);
    if (paramsEndIndex === -1) return undefined;
    const endIndex = string.indexOf('\x07', paramsEndIndex + 1);
    if (endIndex === -1) return undefined;
    return string.slice(0, endIndex + 1);
  }

  function findSGRSequenceEndIndex(str: string): number {
    for (let index = 2; index < str.length; index++) {
      const charCode = str.charCodeAt(index);
      if (charCode === CC_M) return index;
      if (charCode === CC_SEMI) continue;
      if (charCode >= CC_0 && charCode <= CC_9) continue;
      break;
    }
    return -1;
  }

  function parseSGRSequence(string: string, offset: number): string | undefined {
    string = string.slice(offset);
    const endIndex = findSGRSequenceEndIndex(string);
    if (endIndex === -1) return undefined;
    return string.slice(0, endIndex + 1);
  }

  function splitCompoundSGRSequences(code: string): string[] {
    if (!code.includes(';')) return [code];
    const codeParts = code.slice(2, -1).split(';');
    const ret: string[] = [];
    for (let i = 0; i < codeParts.length; i++) {
      const rawCode = codeParts[i]!;
      if (rawCode === '38' || rawCode === '48') {
        if (i + 2 < codeParts.length && codeParts[i + 1] === '5') {
          ret.push(codeParts.slice(i, i + 3).join(';'));
          i += 2;
          continue;
        } else if (i + 4 < codeParts.length && codeParts[i + 1] === '2') {
          ret.push(codeParts.slice(i, i + 5).join(';'));
          i += 4;
          continue;
        }
      }
      ret.push(rawCode);
    }
    return ret.map((part) => `\x1b[${part}m`);
  }

  return function tokenize(str: string): Token[] {
    if (!unitsAreClusters(str)) return lib.tokenize(str);
    const ret: Token[] = [];
    let codeEndIndex = 0;
    for (let index = 0; index < str.length; index++) {
      // Units consumed as part of an ANSI sequence are skipped.
      if (index < codeEndIndex) continue;
      const codePoint = str.charCodeAt(index);
      if (lib.ESCAPES.has(codePoint)) {
        let code: string | undefined;
        const nextCodePoint = str.codePointAt(index + 1);
        if (nextCodePoint === lib.OSC) {
          code = parseLinkCode(str, index);
          if (code) ret.push({ type: 'ansi', code, endCode: lib.getEndCode(code) });
        } else if (nextCodePoint === lib.CSI) {
          code = parseSGRSequence(str, index);
          if (code) {
            for (const individualCode of splitCompoundSGRSequences(code)) ret.push({ type: 'ansi', code: individualCode, endCode: lib.getEndCode(individualCode) });
          }
        }
        if (code) {
          codeEndIndex = index + code.length;
          continue;
        }
      }
      ret.push({ type: 'char', value: str[index]!, fullWidth: fullWidth(codePoint) });
    }
    return ret;
  };
}
