/**
 * File names as loopdeck prints them: within a line (`shownName`) and as a word of a command
 * to copy (`printedShellWord`). A name with a newline, a tab or another control character
 * stays on one line, and the printed command still names the same file when a shell reads it.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { shownName } from '../../src/text/sanitize.js';
import { printedShellWord } from '../../src/text/shell-quote.js';

const NAMES = ['nl\n.yaml', 'tab\there.yaml', 'esc\x1b[2J.yaml', 'rtl\u202eoverride.yaml', "it's a \\ name\n.yaml", 'zero\u200bwidth.yaml', 'del\x7f.yaml'];

describe('shownName', () => {
  it('shows tab and newline as ^I and ^J, with every other control as sanitize shows it: one line', () => {
    expect(shownName('nl\n.yaml')).toBe('nl^J.yaml');
    expect(shownName('tab\there.yaml')).toBe('tab^Ihere.yaml');
    expect(shownName('esc\x1b[2J.yaml')).toBe('esc^[[2J.yaml');
    expect(shownName('rtl\u202eoverride.yaml')).toBe('rtl\\u{202e}override.yaml');
    expect(shownName('my loop.yaml')).toBe('my loop.yaml');
  });
});

describe('printedShellWord', () => {
  it('an ordinary name is quoted as shellQuote quotes it', () => {
    expect(printedShellWord('loop.yaml')).toBe('loop.yaml');
    expect(printedShellWord('my loop.yaml')).toBe("'my loop.yaml'");
    expect(printedShellWord('café.yaml')).toBe("'café.yaml'");
  });

  it.each(NAMES)('%j: printed on one line with nothing a terminal acts on, and bash reads it back as the same name', async (name) => {
    const word = printedShellWord(name);
    expect(word).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u202a-\u202e]/);
    expect(shownName(word)).toBe(word);
    const echoed = await execa('bash', ['-c', `printf %s ${word}`], { stripFinalNewline: false });
    expect(echoed.stdout).toBe(name);
  });

  it.each(['\u0301comb.yaml', '\u20dd\u0301two marks', 'x\u0301 fine'])('%j: no combining mark right after a quote (it would be drawn on it), and bash reads it back', async (name) => {
    const word = printedShellWord(name);
    expect(word).not.toMatch(/['"][\p{Mn}\p{Me}]/u);
    const echoed = await execa('bash', ['-c', `printf %s ${word}`], { stripFinalNewline: false });
    expect(echoed.stdout).toBe(name);
  });
});
