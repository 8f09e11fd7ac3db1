// The outline of the console's first screen (src/ui/outline.ts) and the cheap readers of
// what it shows (src/ui/outline-source.ts): the goal read from loop.yaml only when it is
// read exactly as the YAML parser reads it, hostile text made safe and cut to the width
// the console measures, NO_COLOR, and the hand-over to Ink's first write.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { Writable } from 'node:stream';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { eraseOutline, handOverOutline, measureFor, outlineRows, outlineShown, showOutline } from '../../src/ui/outline.js';
import { objectiveOfYaml, outlineOfConfig, outlineOfLog } from '../../src/ui/outline-source.js';
import { cellWidth } from '../../src/ui/text.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-outline-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  eraseOutline();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the goal read cheaply from loop.yaml', () => {
  const read: Array<[string, string]> = [
    ['goal:\n  objective: Names with accents must survive\n', 'Names with accents must survive'],
    ['# c\ngoal:   # the goal\n  success_criteria:\n    - a: b\n  objective: fix it   # why\n', 'fix it'],
    ['goal:\n    objective: "quoted \\"x\\" \\u00e9 \\ud83d\\ude00"\n', 'quoted "x" é 😀'],
    ["goal:\n  objective: 'it''s # not a comment'\n", "it's # not a comment"],
    ['---\ngoal:\n  objective: x#y\n\npattern: react\n', 'x#y'],
    ['goal:\r\n  objective: crlf\r\n', 'crlf'],
    ['\uFEFFgoal:\n  objective: bom\n', 'bom'],
  ];
  it.each(read)('%j → %j, as the YAML parser reads it', (text, objective) => {
    expect(objectiveOfYaml(text)).toBe(objective);
    expect((parse(text) as { goal: { objective: string } }).goal.objective).toBe(objective);
  });

  const refused = [
    'goal:\n  objective: |\n    block\n',
    'goal:\n  objective: >-\n    folded\n',
    'goal:\n  objective: two\n    lines\n',
    'goal:\n  objective: &a anchored\n',
    'goal:\n  objective: !!str tagged\n',
    'goal:\n  objective: *alias\n',
    'goal: { objective: flow }\n',
    'goal:\n  objective:\n    on the next line\n',
    'goal:\n  objective: "\\e escape YAML has and JSON not"\n',
    'goal:\n  objective: a: b\n',
    'goal:\n  objective: null\n',
    'goal:\n  objective: ~\n',
    'goal:\n  objective: one\ngoal:\n  objective: two\n',
    'goal:\n  objective: one\n  objective: two\n',
    'goal:\n\tobjective: tab\n',
    '%YAML 1.2\n---\ngoal:\n  objective: directive\n',
    '---\ngoal:\n  objective: a\n---\ngoal:\n  objective: b\n',
    'goal:\n  - objective: a list\n',
    '"goal":\n  objective: quoted key\n',
    'pattern: react\n',
    '',
    '\u0000\u0001binary\uFFFD garbage: [',
  ];
  it.each(refused)('%j → null (not the plain one-line form)', (text) => {
    expect(objectiveOfYaml(text)).toBeNull();
  });

  it('--goal wins; a missing, unreadable or huge file gives no goal and no error', () => {
    const dir = tempDir();
    expect(outlineOfConfig(path.join(dir, 'none.yaml'), '  given  ')).toEqual({ objective: 'given', run: null });
    expect(outlineOfConfig(path.join(dir, 'none.yaml'))).toEqual({ objective: null, run: null });
    // The run id made before the run is prepared goes into the outline as given.
    expect(outlineOfConfig(path.join(dir, 'none.yaml'), 'given', '20261201-000000-abcd')).toEqual({ objective: 'given', run: '20261201-000000-abcd' });
    expect(outlineOfConfig(path.join(dir, 'none.yaml'), undefined, '20261201-000000-abcd')).toEqual({ objective: null, run: '20261201-000000-abcd' });
    expect(outlineOfConfig(dir)).toEqual({ objective: null, run: null }); // a folder
    const huge = path.join(dir, 'huge.yaml');
    writeFileSync(huge, `goal:\n  objective: big\n# ${'x'.repeat(300 * 1024)}\n`);
    expect(outlineOfConfig(huge)).toEqual({ objective: null, run: null });
    const fine = path.join(dir, 'loop.yaml');
    writeFileSync(fine, 'goal:\n  objective: fine\n');
    expect(outlineOfConfig(fine)).toEqual({ objective: 'fine', run: null });
  });
});

describe('the run id and goal read cheaply from a log', () => {
  const start = (objective: string) => JSON.stringify({ seq: 0, at: 1, session: 'run-1', type: 'session.start', data: { goal: { objective } } });
  const revised = (seq: number, objective: string) => JSON.stringify({ seq, at: 2, session: 'run-1', type: 'goal.revised', data: { goal: { objective } } });

  it('the first event gives the run and the goal; the last revision wins', () => {
    const dir = tempDir();
    const file = path.join(dir, 'events.jsonl');
    writeFileSync(file, `${start('first')}\n${revised(1, 'second')}\n{torn "goal.revised"\n${revised(3, 'third')}\n`);
    expect(outlineOfLog(file)).toEqual({ objective: 'third', run: 'run-1' });
    writeFileSync(file, start('only')); // no newline at all
    expect(outlineOfLog(file)).toEqual({ objective: 'only', run: 'run-1' });
  });

  it('a log over 1 MiB gives the run but no goal (a revision could be anywhere)', () => {
    const dir = tempDir();
    const file = path.join(dir, 'events.jsonl');
    const filler = JSON.stringify({ seq: 1, type: 'note', data: { text: 'x'.repeat(2 * 1024 * 1024) } });
    writeFileSync(file, `${start('first')}\n${filler}\n`);
    expect(outlineOfLog(file)).toEqual({ objective: null, run: 'run-1' });
  });

  it('a missing, damaged or foreign log gives nothing and no error', () => {
    const dir = tempDir();
    const file = path.join(dir, 'events.jsonl');
    expect(outlineOfLog(file)).toEqual({ objective: null, run: null });
    writeFileSync(file, '\u0000\u0000\u0000\n');
    expect(outlineOfLog(file)).toEqual({ objective: null, run: null });
    writeFileSync(file, `${JSON.stringify({ type: 'tool.call', session: 'x' })}\n`);
    expect(outlineOfLog(file)).toEqual({ objective: null, run: null });
    writeFileSync(file, 'x'.repeat(100 * 1024)); // no line end within the first 64 KiB
    expect(outlineOfLog(file)).toEqual({ objective: null, run: null });
    expect(outlineOfLog(dir)).toEqual({ objective: null, run: null });
  });
});

describe('the outline rows', () => {
  const plain = (rows: string[]) => rows.map((r) => stripVTControlCharacters(r));

  it('as the header lays them out: title and goal, the run id at the right edge, then preparing…', async () => {
    const info = { objective: 'Names with accents must survive', run: '20261201-102100-9199' };
    const rows = plain(outlineRows(info, 80, await measureFor([info.objective, info.run]), true));
    expect(rows).toEqual([`loopdeck Names with accents must survive${' '.repeat(15)} run 20261201-102100-9199`, 'preparing…']);
    expect(rows[0]).toHaveLength(80);
  });

  it('a long goal is cut with … where the run id starts; no run id, no room kept for it', async () => {
    const info = { objective: 'a'.repeat(200), run: 'r1' };
    const measure = await measureFor([info.objective, info.run]);
    expect(plain(outlineRows(info, 40, measure, false))[0]).toBe(`loopdeck ${'a'.repeat(23)}… run r1`);
    expect(plain(outlineRows({ objective: 'a'.repeat(200), run: null }, 40, measure, false))[0]).toBe(`loopdeck ${'a'.repeat(30)}…`);
    expect(plain(outlineRows({ objective: null, run: null }, 40, measure, false))).toEqual(['loopdeck', 'preparing…']);
  });

  it('hostile goal text: no escape sequence of its own, joined emoji split, never wider than the terminal', async () => {
    const objective = `\u001b]52;c;aGVsbG8=\u0007\u001b[2J\u001b[H\r\b fake 👨‍👩‍👧‍👦 family 👍🏽 中文字 e\u0301 🏴󠁧󠁢󠁳󠁣󠁴󠁿 ${'长'.repeat(80)}`;
    for (const columns of [20, 37, 80, 121]) {
      const info = { objective, run: `run\u001b[31m-1` };
      const rows = outlineRows(info, columns, await measureFor([info.objective, info.run]), true);
      // Only the outline's own colours and bold: every ESC starts one of them.
      for (const row of rows) expect(row.replace(/\u001b\[(?:0|1|36|90)m/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      const shown = plain(rows);
      for (const row of shown) expect(cellWidth(row)).toBeLessThanOrEqual(columns);
      expect(shown[0]).not.toContain('\u200d');
      if (columns > 120) {
        expect(shown[0]).toContain('^[]52;c;aGVsbG8=^G^[[2J^[[H^M^H fake 👨\\u{200d}👩\\u{200d}👧\\u{200d}👦 family 👍\\u{1f3fd}');
        expect(shown[0]).toMatch(/… {1,2}run run\^\[\[31m-1$/);
      }
    }
  });

  it('NO_COLOR: bold only; otherwise the header colours', async () => {
    const info = { objective: 'goal', run: 'r' };
    const measure = await measureFor([info.objective, info.run]);
    expect(outlineRows(info, 40, measure, false).join('\n')).not.toMatch(/\u001b\[(3\d|9\d)m/);
    expect(outlineRows(info, 40, measure, false)[0]).toContain('\u001b[1m');
    expect(outlineRows(info, 40, measure, true)[0]).toContain('\u001b[36m');
  });
});

/** A terminal stdout that records what is written. */
class Tty extends Writable {
  readonly isTTY = true;
  text = '';
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super({ decodeStrings: false });
  }
  override _write(chunk: unknown, _encoding: BufferEncoding, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}

describe('drawing and handing over', () => {
  const env = { TERM: 'xterm-256color' };
  const info = { objective: 'the goal', run: 'r1' };

  it('the first write that shows something starts by erasing the outline: its rows one by one up to its first row (no erase of the display)', async () => {
    const tty = new Tty(60, 20);
    const stdout = tty as unknown as NodeJS.WriteStream;
    await showOutline(info, stdout, env);
    expect(outlineShown()).toBe(true);
    expect(stripVTControlCharacters(tty.text)).toBe(`loopdeck the goal${' '.repeat(36)} run r1\r\npreparing…`);
    tty.text = '';
    handOverOutline(stdout);
    expect(outlineShown()).toBe(false);
    // Ink: begin synchronized update, hide the cursor, then the frame.
    stdout.write('\u001b[?2026h');
    stdout.write('\u001b[?25l');
    stdout.write('frame\n');
    stdout.write('next\n');
    expect(tty.text).toBe('\u001b[?2026h\u001b[?25l\r\u001b[2K\u001b[1A\u001b[2Kframe\nnext\n');
  });

  it('erased instead (an error before the console): back where it started, nothing left', async () => {
    const tty = new Tty(60, 20);
    await showOutline(info, tty as unknown as NodeJS.WriteStream, env);
    tty.text = '';
    eraseOutline();
    eraseOutline();
    expect(tty.text).toBe('\r\u001b[2K\u001b[1A\u001b[2K');
  });

  it('no outline: not a terminal, TERM=dumb, or smaller than 20×4', async () => {
    for (const [tty, e] of [
      [Object.assign(new Tty(80, 24), { isTTY: false }), env],
      [new Tty(80, 24), { TERM: 'dumb' }],
      [new Tty(19, 24), env],
      [new Tty(80, 3), env],
    ] as const) {
      await showOutline(info, tty as unknown as NodeJS.WriteStream, e);
      expect(outlineShown()).toBe(false);
      expect(tty.text).toBe('');
    }
  });
});
