// The command bar's pure parts: the line editor, history and completion.
import React from 'react';
import { render } from 'ink-testing-library';
import { describe, expect, test } from 'vitest';
import { caretColumn, LineView } from '../../src/ui/LineView.js';
import { LineViewport } from '../../src/ui/line-viewport.js';
import { BAR_COMMANDS, candidates, complete } from '../../src/ui/commands.js';
import { browse, cleanInput, edit, EMPTY_HISTORY, EMPTY_LINE, insert, lineOf, remember, type LineState } from '../../src/ui/line-editor.js';
import { cellWidth, wrapCells, wrapWords } from '../../src/ui/text.js';
import { resolveKey } from '../../src/ui/keymap.js';

describe('line editor', () => {
  // The keys as terminals send them, resolved through the key map as the bar and the note do.
  test.each(['bar', 'note'] as const)('in the %s, Delete and Ctrl+D delete at the caret, Ctrl+K to the end, Alt+B/F and Ctrl+←/→ move by words, Alt+Backspace deletes a word', (scope) => {
    const press = (line: LineState, key: string) => {
      const command = resolveKey(key, [scope]);
      expect(command, key).not.toBeNull();
      return edit(line, command!);
    };
    let line = lineOf('abcdef');
    for (let i = 0; i < 3; i++) line = press(line, 'left');
    expect(press(line, 'delete')).toEqual({ text: 'abcef', cursor: 3 });
    expect(press(line, 'ctrl+d')).toEqual({ text: 'abcef', cursor: 3 });
    expect(press(line, 'backspace')).toEqual({ text: 'abdef', cursor: 2 });
    expect(press(line, 'ctrl+k')).toEqual({ text: 'abc', cursor: 3 });
    expect(press(lineOf('abc'), 'delete')).toEqual({ text: 'abc', cursor: 3 });
    line = lineOf('/goal redirect fix  it');
    expect(press(line, 'meta+b').cursor).toBe(20);
    expect(press(press(line, 'meta+b'), 'ctrl+left').cursor).toBe(15);
    expect(press({ ...line, cursor: 6 }, 'meta+f').cursor).toBe(14);
    expect(press({ ...line, cursor: 5 }, 'ctrl+right').cursor).toBe(14);
    expect(press(line, 'meta+backspace')).toEqual({ text: '/goal redirect fix  ', cursor: 20 });
  });

  test('inserts at the cursor and moves it', () => {
    let line = insert(EMPTY_LINE, '/goal');
    expect(line).toEqual({ text: '/goal', cursor: 5 });
    line = edit(edit(line, 'cursor-left'), 'cursor-left');
    line = insert(line, 'XY');
    expect(line).toEqual({ text: '/goXYal', cursor: 5 });
  });

  test('edits: delete back, delete word, clear, home and end, bounds', () => {
    const line: LineState = lineOf('/goal add-constraint keep it');
    expect(edit(line, 'delete-back')).toEqual({ text: '/goal add-constraint keep i', cursor: 27 });
    expect(edit(line, 'delete-word')).toEqual({ text: '/goal add-constraint keep ', cursor: 26 });
    expect(edit(edit(line, 'delete-word'), 'delete-word')).toEqual({ text: '/goal add-constraint ', cursor: 21 });
    expect(edit(line, 'clear-line')).toEqual(EMPTY_LINE);
    expect(edit(line, 'cursor-home').cursor).toBe(0);
    expect(edit(edit(line, 'cursor-home'), 'cursor-left').cursor).toBe(0);
    expect(edit(edit(line, 'cursor-home'), 'delete-back')).toEqual({ ...line, cursor: 0 });
    expect(edit(line, 'cursor-right').cursor).toBe(line.text.length);
    expect(edit(line, 'submit')).toBe(line);
  });

  test('counts characters as a person sees them, so emoji and CJK move the cursor by one', () => {
    const line = insert(EMPTY_LINE, '名前🚀');
    expect(line.cursor).toBe(3);
    expect(edit(line, 'delete-back')).toEqual({ text: '名前', cursor: 2 });
  });

  // Flags (two regional indicators), joined emoji (ZWJ sequences, skin tones, keycaps) and
  // letters with combining accents are one character each: the caret never lands inside one.
  test.each([
    ['a flag', '🇯🇵'],
    ['a family', '👨‍👩‍👧'],
    ['a skin-toned hand', '👋🏽'],
    ['a keycap', '1️⃣'],
    ['a subdivision flag', '🏴󠁧󠁢󠁳󠁣󠁴󠁿'],
    ['a letter and two accents', 'e\u0301\u0323'],
    ['Hangul jamo', '\u1100\u1161\u11A8'],
  ])('%s is stepped over and deleted whole, never split', (_, cluster) => {
    const line = insert(EMPTY_LINE, `a${cluster}b`);
    expect(line.cursor).toBe(3);
    const before = edit(edit(line, 'cursor-left'), 'cursor-left');
    expect(before.cursor).toBe(1);
    expect(insert(before, 'X').text).toBe(`aX${cluster}b`);
    const after = edit(line, 'cursor-left');
    expect(insert(after, 'Y').text).toBe(`a${cluster}Yb`);
    expect(edit(after, 'delete-back')).toEqual({ text: 'ab', cursor: 1 });
    expect(edit(edit(EMPTY_LINE, 'cursor-end'), 'cursor-end')).toEqual(EMPTY_LINE);
  });

  test('an accent typed after its letter joins it: the caret stays after the one character they make', () => {
    const line = insert(insert(EMPTY_LINE, 'cafe'), '\u0301');
    expect(line).toEqual({ text: 'cafe\u0301', cursor: 4 });
    expect(edit(line, 'delete-back')).toEqual({ text: 'caf', cursor: 3 });
  });

  test('a multi-line paste is inserted on one line, never submitted; controls and escape sequences are dropped whole', () => {
    expect(cleanInput('keep\nthe\r\nAPI\n')).toBe('keep the API');
    expect(cleanInput('a\tb')).toBe('a b');
    expect(cleanInput('x\u001b[31my\u0007')).toBe('xy');
    // Every kind a terminal or an agent's output may hold: CSI, SS3, OSC ended by BEL or ST, DCS, Alt+key, one cut at the end.
    expect(cleanInput('ab\u001b[Dcd\u001b[1;5Ared\u001b[0m\u001bOA\u0007\u001b]0;title\u0007zz\u001b]8;;http://x\u001b\\ok\u001bP>|x\u001b\\\u001bbq\u001b[3')).toBe('abcdredzzokq');
    // Text that merely looks like a sequence's tail stays.
    expect(cleanInput('[D [31m ]0;title')).toBe('[D [31m ]0;title');
    expect(cleanInput('\u001b[200~pasted\u001b[201~')).toBe('pasted');
    expect(insert(lineOf('/goal add-constraint '), 'line one\nline two\n')).toEqual(lineOf('/goal add-constraint line one line two'));
  });
});

describe('history', () => {
  test('↑ walks back from the draft, ↓ walks forward and restores the draft', () => {
    let history = remember(remember(EMPTY_HISTORY, '/goal status'), '/budget turns +5');
    expect(history.entries).toEqual(['/goal status', '/budget turns +5']);
    let moved = browse(history, '/goal mo', 'previous');
    expect(moved.text).toBe('/budget turns +5');
    moved = browse(moved.history, moved.text, 'previous');
    expect(moved.text).toBe('/goal status');
    moved = browse(moved.history, moved.text, 'previous');
    expect(moved.text).toBe('/goal status'); // the oldest stays
    moved = browse(moved.history, moved.text, 'next');
    expect(moved.text).toBe('/budget turns +5');
    moved = browse(moved.history, moved.text, 'next');
    expect(moved.text).toBe('/goal mo');
    expect(moved.history.index).toBeNull();
    history = remember(moved.history, '/budget turns +5');
    expect(history.entries).toHaveLength(2); // a repeat of the newest is not added
    expect(browse(EMPTY_HISTORY, 'x', 'previous').text).toBe('x');
    expect(browse(EMPTY_HISTORY, 'x', 'next').text).toBe('x');
  });
});

describe('completion', () => {
  test('candidates extend the typed line, in table order', () => {
    expect(candidates('/go')).toEqual(['/goal status', '/goal add-constraint ', '/goal add-criterion ', '/goal redirect ', '/goal modify ']);
    expect(candidates('/st')).toEqual(['/stop', '/stop --abort']);
    expect(candidates('/budget t')).toEqual(['/budget turns +', '/budget tool_calls +', '/budget tokens +']);
    expect(candidates('/x')).toEqual([]);
    expect(candidates('/')).toHaveLength(BAR_COMMANDS.length);
  });

  test('Tab: one candidate completes, several extend to the common prefix and list', () => {
    expect(complete('/goal st')).toEqual({ text: '/goal status', list: [] });
    expect(complete('/go')).toEqual({ text: '/goal ', list: candidates('/go') });
    expect(complete('/goal add')).toEqual({ text: '/goal add-c', list: ['/goal add-constraint ', '/goal add-criterion '] });
    expect(complete('/stop')).toEqual({ text: '/stop --abort', list: [] });
    expect(complete('/nope')).toEqual({ text: '/nope', list: [] });
  });

  test('spaces typed twice, or a tab, between the words still complete (after Tab gave "/goal ", a typed " r")', () => {
    expect(complete('/goal  r')).toEqual({ text: '/goal redirect ', list: [] });
    expect(complete('  /goal \t st')).toEqual({ text: '/goal status', list: [] });
    expect(candidates('/budget   t')).toEqual(candidates('/budget t'));
    expect(complete('/goal  add')).toEqual({ text: '/goal add-c', list: ['/goal add-constraint ', '/goal add-criterion '] });
    // Text past the commands' words is the operator's: left as typed when nothing completes.
    expect(complete('/goal redirect keep  two  spaces')).toEqual({ text: '/goal redirect keep  two  spaces', list: [] });
  });
});

describe('cell widths', () => {
  test('wide characters count two cells', () => {
    expect(cellWidth('abc')).toBe(3);
    expect(cellWidth('名前')).toBe(4);
    expect(cellWidth('🚀x')).toBe(3);
    expect(wrapCells('名前を保つ', 4)).toEqual(['名前', 'を保', 'つ']);
    expect(wrapWords('continue, redirect the goal, or stop?', 12)).toEqual(['continue,', 'redirect the', 'goal, or', 'stop?']);
  });
});

describe('the field as drawn', () => {
  // Terminals draw a skin-toned hand or a family wider than string-width measures it: the
  // field draws them as their parts, as the panels do, so what is measured is what is drawn.
  function drawnRow(text: string, width = 40): string {
    const { lastFrame, unmount } = render(React.createElement(LineView, { prefix: '› ', state: lineOf(text), width }));
    const row = (lastFrame() ?? '').replace(/\u001b\[[0-9;]*m/g, '');
    unmount();
    return row;
  }

  test.each([
    ['a skin-toned hand', '👋🏽', '👋\\u{1f3fd}'],
    ['a family', '👨‍👩‍👧', '👨\\u{200d}👩\\u{200d}👧'],
    ['a subdivision flag', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🏴\\u{e0067}\\u{e0062}\\u{e0073}\\u{e0063}\\u{e0074}\\u{e007f}'],
  ])('%s is drawn as its parts, what joined them escaped; the typed text keeps it whole', (_, typed, parts) => {
    const state = lineOf(`ab${typed}c`);
    expect(state.text).toBe(`ab${typed}c`);
    expect(drawnRow(state.text, 80).trimEnd()).toBe(`› ab${parts}c`);
    expect(caretColumn(new LineViewport(), '› ', state, 80)).toBe(cellWidth(`› ab${parts}c`));
  });

  test('a line of skin-toned hands wider than the field scrolls by what is drawn and never overflows it', () => {
    const text = `${'👋🏽'.repeat(10)}${'x'.repeat(60)}`;
    for (const width of [20, 33, 50]) {
      const row = drawnRow(text, width);
      expect(cellWidth(row)).toBeLessThanOrEqual(width);
      expect(caretColumn(new LineViewport(), '› ', lineOf(text), width)).toBeLessThanOrEqual(width - 1);
    }
  });
});
