// Escape sequences as terminals send them beyond a classic xterm's keys: extended key
// forms (xterm's modifyOtherKeys, tmux's extended-keys, the CSI u form of kitty, foot and
// WezTerm) and reports nobody asked for (mouse reports left on by a crashed program, cursor
// position and device attribute replies, OSC and DCS strings). A key form is the key; a
// report is nothing, never text; either may be split across reads anywhere.
import { describe, expect, test, vi } from 'vitest';
import { createKeyDecoder, type Keypress } from '../../src/ui/terminal-input.js';

/** The keys of `reads` (each one read), once every timer of the decoder has run: `name:input` of each, a read's keys joined by spaces. */
async function keysOf(...reads: string[]): Promise<string[]> {
  const out: string[] = [];
  const decoder = createKeyDecoder((keys) => out.push(keys.map((k) => `${k.name}:${k.input}`).join(' ')), { escapeMs: 30 });
  for (const read of reads) decoder.push(read);
  await new Promise((resolve) => setTimeout(resolve, 50));
  decoder.dispose();
  return out;
}

/** Every key of `reads`, in order, whichever reads they came in. */
async function flatKeysOf(...reads: string[]): Promise<string[]> {
  return (await keysOf(...reads)).flatMap((read) => read.split(' ')).filter((k) => k !== '');
}

/** Reports a terminal may send that no key makes. */
const REPORTS: ReadonlyArray<readonly [string, string]> = [
  ['SGR mouse press', '\u001b[<0;10;20M'],
  ['SGR mouse release', '\u001b[<0;10;20m'],
  ['SGR mouse wheel', '\u001b[<64;33;7M'],
  ['urxvt mouse', '\u001b[32;10;20M'],
  ['X10 mouse', '\u001b[M !!'],
  ['X10 mouse with letters in it', '\u001b[Mfqy'],
  ['cursor position report', '\u001b[12;40R'],
  ['device attributes', '\u001b[?1;2c'],
  ['secondary device attributes', '\u001b[>41;330;0c'],
  ['DEC mode report', '\u001b[?2004;1$y'],
  ['OSC colour reply ended by ST', '\u001b]11;rgb:0000/0000/0000\u001b\\'],
  ['OSC colour reply ended by BEL', '\u001b]10;rgb:ffff/ffff/ffff\u0007'],
  ['DCS reply', '\u001bP>|xterm(390)\u001b\\'],
  ['APC string', '\u001b_Gi=1;OK\u001b\\'],
];

describe('a report no key made is nothing, never text', () => {
  test.each(REPORTS)('%s', async (_name, report) => {
    expect(await keysOf(report)).toEqual([]);
    // Between typed keys: the keys around it, nothing of it.
    expect(await flatKeysOf(`a${report}b`)).toEqual(['a:a', 'b:b']);
    expect(await flatKeysOf('a', report, 'b')).toEqual(['a:a', 'b:b']);
  });

  test.each(REPORTS)('%s, split across two reads anywhere', async (_name, report) => {
    const splits = Array.from({ length: report.length - 1 }, (_, i) => i + 1);
    const decoded = await Promise.all(splits.map((at) => flatKeysOf(`x${report.slice(0, at)}`, `${report.slice(at)}y`)));
    decoded.forEach((keys, i) => expect(keys, `split at ${splits[i]}`).toEqual(['x:x', 'y:y']));
  });
});

/** The real `setTimeout`, for the timer readline keeps of its own (not the simulated clock's). */
const realSetTimeout = globalThis.setTimeout;

/**
 * The keys a decoder with `options` makes of reads that come at the given times (ms from the
 * first), each as `show` writes it. On a simulated clock: the decoder's timers and the clock
 * it reads move only as the reads say, so a busy machine cannot reorder a read and a timer.
 * readline's own escape timer (1 ms, on the real clock) is let run after each step: it is
 * due before the real 20 ms waited, and timers run in the order they are due.
 */
async function decodedOverTime(options: Parameters<typeof createKeyDecoder>[1], show: (k: Keypress) => string, reads: ReadonlyArray<[number, string]>): Promise<string[]> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  try {
    const out: string[] = [];
    const decoder = createKeyDecoder((keys) => out.push(...keys.map(show)), options);
    let clock = 0;
    const step = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      await new Promise((resolve) => realSetTimeout(resolve, 20));
    };
    for (const [at, read] of reads) {
      await step(Math.max(0, at - clock));
      clock = Math.max(clock, at);
      decoder.push(read);
    }
    await step(80);
    decoder.dispose();
    return out;
  } finally {
    vi.useRealTimers();
  }
}

/** The keys of reads that come at the given times (ms from the first), each key `name:input`. */
async function keysOverTime(...reads: Array<[number, string]>): Promise<string[]> {
  return (await decodedOverTime({ escapeMs: 30 }, (k) => `${k.name}:${k.input}`, reads)).filter((k) => k !== ':');
}

describe('a paste whose end marker never comes', () => {
  /**
   * The keys (`name:input:source`) of a paste left open (`ESC[200~one`, delivered after 60 ms
   * without input), then of `read` pushed `after` ms from its start: within the 200 ms the
   * rest of the paste may still come, or long after.
   */
  const afterOpenPaste = (read: string, after: number) =>
    decodedOverTime({ escapeMs: 30, pasteIdleMs: 60, latePasteMs: 200 }, (k) => `${k.name}:${k.input}:${k.source}`, [
      [0, '\u001b[200~one'],
      [after, read],
    ]);

  const KEY_FORMS = ['\u001b[27;5;119~', '\u001b[119;5u', '\u001b[13;2u', '\u001b[D', '\u001bb', 'abc', 'y', '\r', 'y\r', '\u001b[201~x', '\u0003'];
  const READS = [...REPORTS.map(([name, read]) => [name, read] as const), ...KEY_FORMS.map((read) => [JSON.stringify(read), read] as const)];

  test.each(READS)('is delivered as pasted once the input is idle, and what comes long after it reads as in a fresh decoder: %s', async (_name, read) => {
    const fresh = (await keysOf(read)).flatMap((k) => k.split(' ')).filter((k) => k !== '' && k !== ':');
    const keys = await afterOpenPaste(read, 400);
    expect(keys[0]).toBe(':one:paste');
    expect(keys.slice(1).map((k) => k.replace(/:[a-z]+$/, '')).filter((k) => k !== ':')).toEqual(fresh);
  });

  test.each(READS)('what comes soon after it is the rest of the paste: text and line breaks are pasted, other keys typed ahead, none a key press: %s', async (_name, read) => {
    const keys = await afterOpenPaste(read, 120);
    expect(keys[0]).toBe(':one:paste');
    const rest = keys.slice(1);
    // Nothing can answer a prompt (only a `key` may) or submit (an Enter key).
    expect(rest.filter((k) => k.endsWith(':key'))).toEqual([]);
    expect(rest.filter((k) => k.startsWith('enter:'))).toEqual([]);
    // Typed text comes as pasted text, whole.
    if (!read.includes('\u001b') && read !== '\u0003') expect(rest).toEqual([`:${read}:paste`]);
  });

  test('a start marker inside a paste is no text, and the text before it stays pasted', async () => {
    expect(await keysOf('\u001b[200~pq\u001b[200~rs\u001b[201~')).toEqual([':pqrs']);
    expect(await keysOf('\u001b[200~pq', '\u001b[200~', 'rs\u001b[201~')).toEqual([':pqrs']);
  });
});

describe('a paste whose markers come late or cut', () => {
  /** The keys (`name:input:source`) of reads at the given times (ms from the first). */
  const sourcedOverTime = (...reads: Array<[number, string]>) =>
    decodedOverTime({ escapeMs: 30, pasteIdleMs: 60, latePasteMs: 200 }, (k) => `${k.name}:${k.input}:${k.source}`, reads);

  test('an end marker with no paste open makes the keys before it in its read one paste, however late; the keys after it are keys', async () => {
    expect(await sourcedOverTime([0, 'y\u001b[201~'])).toEqual([':y:paste']);
    expect(await sourcedOverTime([0, 'goal status\r?\u001b[201~x'])).toEqual([':goal status\r?:paste', 'x:x:chunk']);
    // A paste whose rest came after the idle time, and after the time it was still waited for.
    expect(await sourcedOverTime([0, '\u001b[200~'], [400, ' tail\r\u001b[201~'])).toEqual(['::paste', ': tail\r:paste']);
  });

  test.each([
    [1, ['escape::key', ':y\r:paste']],
    [2, ['meta+[::key', ':y\r:paste']],
    [3, [':y\r:paste']],
    [4, [':y\r:paste']],
    [5, [':y\r:paste']],
  ])('a start marker cut after %i characters and finished late still starts a paste: y after it answers nothing', async (at, keys) => {
    // Cut after `ESC` or `ESC [`, these were Escape and Alt+[ by the time the rest came.
    const marker = '\u001b[200~';
    expect(await sourcedOverTime([0, marker.slice(0, at)], [150, `${marker.slice(at)}y\r\u001b[201~`])).toEqual(keys);
    // The rest of the paste, and its end marker, in reads of their own (once the marker's
    // `ESC [` has come, what follows it can only be the rest of a sequence).
    if (at > 2) expect(await sourcedOverTime([0, marker.slice(0, at)], [150, `${marker.slice(at)}y`], [200, '\r'], [230, '\u001b[201~'])).toEqual([':y\r:paste']);
  });

  test('keys typed after the start of a report that never ended are keys, not its rest: letters, an arrow', async () => {
    expect(await sourcedOverTime([0, 'a\u001b]11;rgb:1e1e/1e1e'], [150, 'h'], [200, 'i'])).toEqual(['a:a:chunk', 'h:h:key', 'i:i:key']);
    expect(await sourcedOverTime([0, 'a\u001b]11;rgb:1e1e/1e1e'], [150, '\u001b[D'], [200, 'i'])).toEqual(['a:a:chunk', 'left::key', 'i:i:key']);
  });

  test('a paste that stalls again: each late read of several characters keeps its rest pasted; a key typed alone does not', async () => {
    // Delivered at 60 ms, its rest waited for until 260 ms; `two ` at 200 ms waits on until 400 ms.
    expect(await sourcedOverTime([0, '\u001b[200~one '], [200, 'two '], [350, 'three\r'])).toEqual([':one :paste', ':two :paste', ':three\r:paste']);
    expect(await sourcedOverTime([0, '\u001b[200~a'], [100, 'b'], [330, '\r'])).toEqual([':a:paste', ':b:paste', 'enter::key']);
  });

  test.each([3, 5])('a start marker cut after %i characters whose rest came over a second later: the rest is no text', async (at) => {
    const marker = '\u001b[200~';
    expect(await sourcedOverTime([0, `k${marker.slice(0, at)}`], [1200, `${marker.slice(at)}text\u001b[201~`])).toEqual(['k:k:chunk', ':text:paste']);
  });
});

describe('ESC [ or ESC O alone for longer than the escape time', () => {
  test.each([['\u001b[', 'meta+[:'], ['\u001bO', 'meta+O:']])('%j is Alt+[ / Alt+O, and the keys typed after it are keys, however late', async (start, alt) => {
    for (const late of [100, 400]) {
      expect(await keysOverTime([0, start], [late, 'abc'])).toEqual([alt, 'a:a', 'b:b', 'c:c']);
    }
    // A sequence finished within the escape time is still the key it makes.
    expect(await keysOverTime([0, start], [5, 'D'])).toEqual(['left:']);
  });
});

describe('a report cut by the network for longer than the escape time', () => {
  test.each(REPORTS)('%s: neither part types anything, and a key after it is a key', async (_name, report) => {
    const half = Math.max(3, report.length >> 1);
    expect(await keysOverTime([0, `x${report.slice(0, half)}`], [150, `${report.slice(half)}y`])).toEqual(['x:x', 'y:y']);
  });

  test('the tail of an X10 mouse report that ends in y, cut after the report began, is not a y', async () => {
    expect(await keysOverTime([0, '\u001b[M !'], [200, 'y'])).toEqual([]);
  });

  test('a key typed long after a report was given up on is a key again; a lone ESC is still Escape', async () => {
    expect(await keysOverTime([0, '\u001b[<0;10'], [1200, 'y'])).toEqual(['y:y']);
    expect(await keysOverTime([0, '\u001b'], [150, 'y'])).toEqual(['escape:', 'y:y']);
  });
});

/** Extended key forms and the bytes a terminal sends for the same key without them. */
const KEY_FORMS: ReadonlyArray<readonly [string, string, string]> = [
  ['Ctrl+C, modifyOtherKeys', '\u001b[27;5;99~', '\u0003'],
  ['Ctrl+W, modifyOtherKeys', '\u001b[27;5;119~', '\u0017'],
  ['Ctrl+U, modifyOtherKeys', '\u001b[27;5;117~', '\u0015'],
  ['Ctrl+Z, modifyOtherKeys', '\u001b[27;5;122~', '\u001a'],
  ['Enter, modifyOtherKeys', '\u001b[27;1;13~', '\r'],
  ['Ctrl+Enter, modifyOtherKeys', '\u001b[27;5;13~', '\r'],
  ['Shift+Tab, modifyOtherKeys', '\u001b[27;2;9~', '\u001b[Z'],
  ['Alt+b, modifyOtherKeys', '\u001b[27;3;98~', '\u001bb'],
  ['Shift+y, modifyOtherKeys', '\u001b[27;2;89~', 'Y'],
  ['Ctrl+C, CSI u', '\u001b[99;5u', '\u0003'],
  ['Ctrl+C with caps lock on, CSI u', '\u001b[99;69u', '\u0003'],
  ['Enter, CSI u', '\u001b[13u', '\r'],
  ['Shift+Enter, CSI u', '\u001b[13;2u', '\r'],
  ['Backspace, CSI u', '\u001b[127u', '\u007f'],
  ['Ctrl+Backspace, CSI u', '\u001b[127;5u', '\u007f'],
  ['Tab, CSI u', '\u001b[9u', '\t'],
  ['Shift+Tab, CSI u', '\u001b[9;2u', '\u001b[Z'],
  ['y, CSI u', '\u001b[121u', 'y'],
  ['y with num lock on, CSI u', '\u001b[121;129u', 'y'],
  ['Alt+x, CSI u', '\u001b[120;3u', '\u001bx'],
  ['é, CSI u', '\u001b[233u', 'é'],
];

describe('an extended key form is the key it stands for', () => {
  test.each(KEY_FORMS)('%s', async (_name, form, legacy) => {
    const keys = await keysOf(form);
    expect(keys).toEqual(await keysOf(legacy));
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toBe(':');
  });

  test.each(KEY_FORMS)('%s, split across two reads anywhere', async (_name, form, legacy) => {
    // Nothing after a line break: anything after it in one read would be a paste.
    const after = /^[\r\n]+$/.test(legacy) ? '' : 'b';
    const expected = await flatKeysOf(`a${legacy}${after}`);
    const splits = Array.from({ length: form.length - 1 }, (_, i) => i + 1);
    const decoded = await Promise.all(splits.map((at) => flatKeysOf(`a${form.slice(0, at)}`, `${form.slice(at)}${after}`)));
    decoded.forEach((keys, i) => expect(keys, `split at ${splits[i]}`).toEqual(expected));
  });

  test('keys with no legacy form (Super, kitty function keys, a key released) are nothing', async () => {
    expect(await keysOf('\u001b[121;9u')).toEqual([]); // Super+y
    expect(await keysOf('\u001b[57399u')).toEqual([]); // kitty's keypad 0
    expect(await keysOf('\u001b[121;1:3u')).toEqual([]); // y released
    expect(await keysOf('\u001b[27;5;49~')).toEqual([]); // Ctrl+1
  });
});

describe('what readline reads itself still reads as before', () => {
  test.each([
    ['\u001b[A', 'up:'],
    ['\u001b[1;5D', 'ctrl+left:'],
    ['\u001bOH', 'home:'],
    ['\u001b[7~', 'home:'],
    ['\u001b[24~', ':'],
    ['\u001b[[A', ':'],
    ['\u001bb', 'meta+b:'],
    ['\u001b\u007f', 'meta+backspace:'],
  ])('%j', async (read, key) => {
    expect(await keysOf(read)).toEqual([key]);
  });

  test('a lone ESC is Escape once the rest of a sequence had its time; Alt+Shift+P (ESC P) is a key, not the start of a string', async () => {
    expect(await keysOf('\u001b')).toEqual(['escape:']);
    expect(await keysOf('\u001bP')).toEqual(['meta+P:']);
    expect(await flatKeysOf('\u001b]', 'x')).toEqual(['meta+]:', 'x:x']);
  });

  test('a paste keeps what it holds, sequences too, and its end marker may be split', async () => {
    expect(await keysOf('\u001b[200~a\u001b[<0;1;1Mb', 'c\u001b[20', '1~')).toEqual([':a\u001b[<0;1;1Mbc']);
  });
});

/** Starts of escape sequences a read may end inside, of every kind the splitter holds back. */
const UNFINISHED = ['\u001b', '\u001b[', '\u001b[2', '\u001b[20', '\u001b[1;', '\u001b[1;5', '\u001bO', '\u001bO5', '\u001b[[', '\u001b\u001b', '\u001b\u001b[', '\u001b[<0;1', '\u001b]11;rgb'];

describe('a key and the start of an escape sequence in one read', () => {
  const sourced = (...reads: Array<[number, string]>) => decodedOverTime({ escapeMs: 30 }, (k) => `${k.name}:${k.source}`, reads);

  test.each(UNFINISHED.flatMap((start) => ['y', 'n'].map((key) => [key, start] as const)))('%s then %j: no key of the read is alone in it, whether the rest comes or not', async (key, start) => {
    for (const reads of [[[0, key + start]], [[0, key + start], [10, 'A']], [[0, key + start], [100, 'A']]] as Array<Array<[number, string]>>) {
      const keys = await sourced(...reads);
      expect(keys[0], JSON.stringify(reads)).toBe(`${key}:chunk`);
      // What the sequence makes (Escape, Alt+[, an arrow) belongs to that read too; a key typed after the escape time is a key.
      const late = reads.length === 2 && reads[1]![0] > 30;
      expect(keys.slice(1).filter((k) => k.endsWith(':key') && !(late && k === 'A:key')), JSON.stringify(reads)).toEqual([]);
    }
  });

  test('a key alone in its read, before or after such a read, is still a key', async () => {
    expect(await sourced([0, 'y\u001b'], [100, 'y'])).toEqual(['y:chunk', 'escape:chunk', 'y:key']);
    expect(await sourced([0, '\u001b'], [100, 'y'])).toEqual(['escape:key', 'y:key']);
    expect(await sourced([0, '\u001b'], [10, '[A'])).toEqual(['up:key']);
  });
});

describe("a paste's end marker cut anywhere", () => {
  const END = '\u001b[201~';
  /** The keys (`name:input:source`) of a paste whose end marker is cut after `at` characters, its rest `after` ms later, then `y` alone 50 ms after that. */
  const cutEnd = (at: number, after: number, rest = '') =>
    decodedOverTime({ escapeMs: 30, pasteIdleMs: 200, latePasteMs: 500 }, (k) => `${k.name}:${k.input}:${k.source}`, [
      [0, `\u001b[200~goal status${END.slice(0, at)}`],
      [after, END.slice(at) + rest],
      [after + 50, 'y'],
    ]);

  test.each([1, 2, 3, 4, 5].flatMap((at) => [10, 100, 150].map((after) => [at, after] as const)))('cut after %i characters, its rest %i ms later (past the escape time, within the paste idle time): one paste, ended there', async (at, after) => {
    expect(await cutEnd(at, after)).toEqual([':goal status:paste', 'y:y:key']);
  });

  test.each([1, 2, 3, 4, 5])('cut after %i characters, its rest after the paste was delivered for want of it: the rest is no text, and what follows it is typed', async (at) => {
    expect(await cutEnd(at, 300, 'X')).toEqual([':goal status:paste', 'X:X:chunk', 'y:y:key']);
  });

  test('a colour in pasted text split anywhere, the rest 100 ms later, stays whole in the paste', async () => {
    const paste = `\u001b[200~a\u001b[31mb\u001b[0m${END}`;
    for (let at = '\u001b[200~'.length; at < paste.length; at++) {
      const keys = await decodedOverTime({ escapeMs: 30, pasteIdleMs: 200 }, (k) => `${k.name}:${k.input}:${k.source}`, [[0, paste.slice(0, at)], [100, paste.slice(at)]]);
      expect(keys, `cut after ${at}`).toEqual([':a\u001b[31mb\u001b[0m:paste']);
    }
  });
});

describe('pasted text that ends in an unfinished escape sequence', () => {
  test.each(UNFINISHED)('%j then the end marker: the marker ends the paste at once, and the keys after it are keys', async (start) => {
    const keys = await decodedOverTime({ escapeMs: 30, pasteIdleMs: 200 }, (k) => `${k.name}:${k.input}:${k.source}`, [[0, `\u001b[200~goal status${start}\u001b[201~`], [50, '\r']]);
    expect(keys).toEqual([`:goal status${start}:paste`, 'enter::key']);
  });

  test.each(UNFINISHED)('%j, the end marker split after it anywhere: one paste', async (start) => {
    const whole = `\u001b[200~goal status${start}\u001b[201~`;
    for (let at = whole.length - 8; at < whole.length; at++) {
      const keys = await decodedOverTime({ escapeMs: 30, pasteIdleMs: 200 }, (k) => `${k.name}:${k.input}:${k.source}`, [[0, whole.slice(0, at)], [100, whole.slice(at)], [150, 'y']]);
      expect(keys, `cut after ${at}`).toEqual([`:goal status${start}:paste`, 'y:y:key']);
    }
  });
});
