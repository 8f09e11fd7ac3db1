// Observers measure what a terminal would draw: a summary redrawn after `\r` or by a cursor
// move counts as redrawn, and no escape sequence can add, hide or change a digit.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { observe } from '../../src/engine/observe.js';
import { parseOutput, renderTerminalText } from '../../src/engine/parsers/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const failed = (output: string): number | null => {
  const parsed = parseOutput('regex', output, { prefix: 'run', pattern: '(?<failed>\\d+) failed' });
  return parsed?.type === 'metrics' ? (parsed.report.metrics['run.failed'] ?? null) : null;
};

describe('the regex observer reads what a terminal draws', () => {
  it.each<[string, string, number | null]>([
    ['carriage return overwrite', '3 failed\r0 failed', 0],
    ['overwrite of the first column only', '10 failed\r0', 0], // the terminal shows "00 failed"
    ['backspace', '3\b0 failed', 0],
    ['line redrawn from below (cursor up, erase line)', '3 failed\n\x1b[1A\x1b[2K0 failed\n', 0],
    ['cursor back', '3 failed\x1b[8D0', 0],
    ['column move', '3 failed\x1b[1G0', 0],
    ['erase to end of line leaves no summary', '30 failed\r1\x1b[K', null],
    ['colour codes around the number', 'Tests: \x1b[31m3\x1b[39m failed', 3],
    ['colour code between the digits', '1\x1b[0m2 failed', 12],
    ['a window title naming a count', '2 failed\x1b]0;99 failed\x07', 2],
    ['a hyperlink with digits in its target', '\x1b]8;;http://x/7 failed\x1b\\2\x1b]8;;\x1b\\ failed', 2],
    ['an unterminated escape at the end', '4 failed\x1b[9', 4],
    ['a private mode (cursor hide)', '\x1b[?25l5 failed\x1b[?25h', 5],
    ['CRLF line ends', '1 failed\r\n2 failed\r\n', 2],
  ])('%s', (_name, output, expected) => {
    expect(failed(output)).toBe(expected);
  });

  it('leaves text without control characters as it is', () => {
    const text = 'a\tb  \nc 3 failed\n';
    expect(renderTerminalText(text)).toBe(text);
  });

  it('stays bounded on hostile cursor moves', () => {
    const hostile = '\x1b[999999999G1\n\x1b[999999999B'.repeat(2000) + '7 failed';
    const drawn = renderTerminalText(hostile);
    expect(drawn.length).toBeLessThanOrEqual(3 * hostile.length);
    expect(failed(hostile)).toBe(7);
  });

  it('the TAP parser reads a redrawn summary the same way', () => {
    const tap = 'TAP version 13\nok 1 - a\n# pass 1\n# fail 3\r# fail 0\n';
    const parsed = parseOutput('tap', tap, { prefix: 'tests' });
    expect(parsed).toMatchObject({ type: 'tests', report: { failing: 0, passing: 1 } });
  });

  it('a real observer command printing "3 failed\\r0 failed" measures 0', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-termtext-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'run.sh'), "printf 'running\\n3 failed\\r0 failed\\n\\033[32mdone\\033[0m in 12ms\\n'\n");
    const observation = await observe([{ name: 'run', command: 'sh run.sh', parser: 'regex', pattern: '(?<failed>\\d+) failed', timeout: 10 }], dir);
    expect(observation).toEqual({ metrics: { 'run.failed': 0 }, tests: [], skipped: [], errors: [] });
  });
});

describe('a redraw never makes a TAP test point', () => {
  const tap = (body: string) => `TAP version 13\n${body}1..2\n# tests 2\n# pass 2\n# fail 0\n`;
  const names = (output: string) => {
    const parsed = parseOutput('tap', output, { prefix: 'tests' });
    return parsed?.type === 'tests' ? { tests: parsed.report.tests.map((t) => `${t.ok ? 'ok' : 'not ok'} ${t.name}`), skipped: parsed.report.skipped ?? [] } : null;
  };

  it.each([
    ['a name that moves the cursor back over itself', 'ok 1 - shout\nok 2 - \x1b[1Gok 2 - greet says Hello\n'],
    ['a name that returns the carriage', 'ok 1 - shout\nok 2 - x\rok 2 - greet says Hello\n'],
    ['a comment erased and drawn over into an ok line', 'ok 1 - shout\n# \x1b[2K\x1b[1Gok 2 - greet says Hello\n'],
    ['a later line that moves up and rewrites a failing point', 'ok 1 - shout\nnot ok 2 - greet says Hello\n\x1b[1A\x1b[2K\rok 2 - greet says Hello\n'],
    ['a name that backspaces over a prefix', 'ok 1 - shout\nok 2 - zz\b\bgreet says Hello\n'],
  ])('%s: "greet says Hello" is no passing test point', (_name, body) => {
    expect(names(tap(body))?.tests).not.toContain('ok greet says Hello');
    expect(names(tap(body))?.tests).toContain('ok shout');
  });

  it('colours and links around test points and names are read as written without them', () => {
    const body = '\x1b[32mok\x1b[0m 1 - \x1b[1mshout\x1b[0m\n\x1b]8;;https://x\x07ok\x1b]8;;\x07 2 - greet\nok 3 - later # \x1b[33mSKIP\x1b[0m\n';
    expect(names(tap(body))).toEqual({ tests: ['ok shout', 'ok greet'], skipped: ['later'] });
  });

  it('the counts are still read as drawn', () => {
    expect(parseOutput('tap', 'TAP version 13\nok 1 - a\n# pass 1\n# fail 3\r# fail 0\n', { prefix: 'tests' })).toMatchObject({ report: { failing: 0, passing: 1, tests: [{ name: 'a', ok: true }] } });
  });
});
