// What the panels say about laps, workspace progress, the verifier's verdict, an abort,
// the hand-over file and the approval reason; and that nothing untrusted reaches the
// terminal raw. Stores are folded from a real run plus the events a lap run would add.
import { describe, test, expect, beforeAll } from 'vitest';

import type { EventDataMap, EventType, LoopEvent } from '../../src/engine/index.js';
import { createConsoleStore, LIVE_EVENTS } from '../../src/ui/store.js';
import { wrapJoinable } from '../../src/ui/text.js';
import stringWidth from 'string-width';
import { KEY, runHeadless } from '../support/console-rig.js';
import { renderStore } from '../support/ui-helpers.js';

const HOSTILE = '\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u001b]0;pwned\u0007ok\r\u009b31m\u202eevil';

let base: LoopEvent[];
beforeAll(async () => {
  base = (
    await runHeadless(`
turns:
  - thought: "Print something hostile. ${HOSTILE.replace(/\\/g, '\\\\').replace(/\u001b/g, '\\e').replace(/\u0007/g, '\\a').replace(/\r/g, '\\r').replace(/\u009b/g, '\\x9b').replace(/\u202e/g, '\\u202e')}"
    tool_calls:
      - { id: t1, name: shell, args: { command: "printf '\\\\033]52;c;ZXZpbA==\\\\007\\\\033[2Jdone\\\\n'" } }
  - final: Done.
`)
  ).events;
});

/** `base` plus events a lap run would add, numbered after it. */
function extend(...items: Array<{ [T in EventType]: [T, EventDataMap[T]] }[EventType]>): LoopEvent[] {
  const last = base.at(-2)!; // before session.complete: the run is still going
  const events = base.slice(0, -1);
  let seq = last.seq;
  for (const [type, data] of items) events.push({ seq: ++seq, at: last.at + seq, session: last.session, type, data } as LoopEvent);
  return events;
}

/** Control characters other than the colour codes Ink writes itself. */
function rawControls(frame: string): string[] {
  const withoutSgr = frame.replace(/\u001b\[[0-9;]*m/g, '');
  return [...withoutSgr].filter((ch) => {
    const code = ch.codePointAt(0)!;
    return (code < 0x20 && ch !== '\n') || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e);
  });
}

describe('untrusted text', () => {
  test('tool output, agent text and event data never reach the terminal raw, in any panel', async () => {
    const c = await renderStore(createConsoleStore(base), { rows: 40 });
    await c.waitForFrame('── Timeline');
    expect(rawControls(c.lastFrame())).toEqual([]);
    expect(c.frame()).toContain('^[]52;c;ZXZpbA==^G^[[2J');
    for (const key of [KEY.tab, KEY.tab, KEY.tab, KEY.tab]) {
      await c.press(key);
      expect(rawControls(c.lastFrame())).toEqual([]);
    }
    await c.press(KEY.tab); // the tool panel
    await c.press(KEY.tab);
    await c.waitForFrame('output');
    expect(rawControls(c.lastFrame())).toEqual([]);
    for (let i = 0; i < 12; i++) await c.press(KEY.up);
    await c.press(KEY.enter);
    await c.waitForFrame('── Event #');
    expect(rawControls(c.lastFrame())).toEqual([]);
    // Every frame ever written, not only the last.
    for (const frame of c.stdout.frames) expect(rawControls(frame)).toEqual([]);
  });
});

describe('usage a CLI agent did not report', () => {
  test('cost it never reported is unknown, not $0; tokens it reported are counted', async () => {
    const events = extend(
      ['agent.message', { turn: 3, starts_turn: true, text: 'Running the tests.', reasoning: '' }],
      ['agent.usage', { turn: 3, input_tokens: 1200, output_tokens: 345, cost_usd: null }],
      ['model.call', {
        turn: 3, request_hash: 'h', usage: { input_tokens: 0, output_tokens: 0 }, cost_usd: 0,
        response: { tool_calls: [], usage: { input_tokens: 0, output_tokens: 0 }, final: 'done', agent_run: { format: 'codex-json', messages: 1, reported: { tokens: true, cost_usd: false } } },
      }],
    );
    const c = await renderStore(createConsoleStore(events), { rows: 40 });
    await c.waitForFrame('── Timeline');
    expect(c.frame()).toContain('1.5k/100k');
    expect(c.frame()).toContain('unknown/$1.00');
    expect(c.frame()).toContain('cost ?');
  });
});

describe('laps, workspace, verdict, abort', () => {
  test('unknown workspace progress is said as unknown, never as no progress', async () => {
    const c = await renderStore(createConsoleStore(extend(['workspace.snapshot', { head: null, tree: null, new_commits: null, git: false }])));
    await c.waitForFrame('workspace progress unknown (not git)');
    expect(c.frame()).not.toContain('no file changed');
  });

  test('a lap: its number, request sizes, files unchanged for N steps, commits this lap, the hand-over file (sanitized)', async () => {
    const events = extend(
      ['lap.start', { lap: 2, max_laps: 5, progress: `Done: parser.\nNext: serializer ${HOSTILE}` }],
      ['workspace.snapshot', { head: 'a1', tree: 't1', new_commits: 1, git: true }],
      ['workspace.snapshot', { head: 'a1', tree: 't1', new_commits: 0, git: true }],
      ['workspace.snapshot', { head: 'a1', tree: 't1', new_commits: 0, git: true }],
      ['workspace.snapshot', { head: 'a1', tree: 't1', new_commits: 1, git: true }],
    );
    const c = await renderStore(createConsoleStore(events), { rows: 34 });
    await c.waitForFrame('lap 2/5');
    expect(c.frame()).toMatch(/^react · \S+ · iteration 2\/20 · lap 2\/5 · /m);
    expect(c.frame()).toContain('lap 2/5 request');
    expect(c.frame()).toContain('no file changed in 3 steps · 2 commits this lap');
    for (let i = 0; i < 3; i++) await c.press(KEY.tab);
    await c.waitForFrame('laps        lap 2/5, each with a fresh agent');
    const frame = c.frame();
    expect(frame).toMatch(/request this lap +█+░* \d+ chars/);
    expect(frame).toMatch(/as one long session +█+ \d+ chars/);
    expect(frame).toContain('progress    Done: parser. Next: serializer ^[]52;c;ZXZpbA==^G^[[2J');
    expect(frame).toContain('workspace   no file changed in 3 steps · 2 commits this lap');
    expect(rawControls(c.lastFrame())).toEqual([]);
  });

  test('the hand-over file still shows when its lap.start is older than the events the console holds', async () => {
    const notices = Array.from({ length: LIVE_EVENTS + 5 }, (_, i): ['agent.notice', { text: string }] => ['agent.notice', { text: `retry ${i}` }]);
    const events = extend(['lap.start', { lap: 2, max_laps: 5, progress: 'Done: parser. Next: serializer' }], ...notices);
    const store = createConsoleStore(events.slice(0, -LIVE_EVENTS - 5));
    store.getState().apply(events.slice(-LIVE_EVENTS - 5)); // a live batch: the lap.start is let go
    expect(store.getState().events.some((e) => e.type === 'lap.start')).toBe(false);
    const c = await renderStore(store, { rows: 34 });
    for (let i = 0; i < 3; i++) await c.press(KEY.tab);
    await c.waitForFrame('laps        lap 2/5, each with a fresh agent');
    expect(c.frame()).toContain('progress    Done: parser. Next: serializer');
  });

  test("the verifier's verdict on the agent's claim: refuted with the failing command's output", async () => {
    const events = extend(
      ['verify.result', {
        passed: false,
        trigger: 'claim',
        commands: [
          { command: 'node --test', exit_code: 1, passed: false, output: 'not ok 3 - accented names round-trip\n# fail 1\n' },
          { command: 'npm run lint', exit_code: 0, passed: true, output: '' },
        ],
      }],
    );
    const c = await renderStore(createConsoleStore(events), { rows: 34 });
    await c.waitForFrame('✗ claim refuted: node --test exit 1');
    for (let i = 0; i < 3; i++) await c.press(KEY.tab);
    await c.waitForFrame('claim       ✗ refuted · node --test → 1, npm run lint → 0');
    expect(c.frame()).toContain('  │ not ok 3 - accented names round-trip');
    expect(c.frame()).toContain('  │ # fail 1');
  });

  test('an abort: the report path in the status line, and how to restore in the progress panel', async () => {
    const events = extend(['abort.recorded', { report: '/runs/x/failure-report.json', stash: 'stash@{0}: loopdeck-abort x', restore: 'git stash apply stash@{0}' }]);
    const c = await renderStore(createConsoleStore(events), { rows: 34 });
    await c.waitForFrame('aborted: report /runs/x/failure-report.json');
    for (let i = 0; i < 3; i++) await c.press(KEY.tab);
    await c.waitForFrame('aborted     report /runs/x/failure-report.json · workspace stash@{0}: loopdeck-abort x');
    expect(c.frame()).toContain('restore     git stash apply stash@{0}');
  });

  test('the abort event opened at 80 columns: its long restore command, copied over its rows, is the command', async () => {
    const restore = 'cd /tmp/trialrun/p4/repo && git stash apply stash@{0}  # loopdeck-abort 20260101-0000-abcd, keep the untracked files too';
    const events = extend(['abort.recorded', { report: '/tmp/trialrun/p4/.loopdeck/runs/x/failure-report.json', stash: 'stash@{0}: loopdeck-abort x', restore }]);
    const c = await renderStore(createConsoleStore(events), { columns: 80, rows: 34 });
    await c.waitForFrame('aborted: report');
    await c.press(KEY.enter);
    const frame = await c.waitForFrame('abort.recorded at');
    const rows = frame.split('\n');
    const from = rows.findIndex((r) => r.startsWith('── Event #'));
    expect(rows.slice(from + 2, from + 12).map((r) => r.trimEnd())).toEqual([
      ' {',
      '   "report": "/tmp/trialrun/p4/.loopdeck/runs/x/failure-report.json",',
      '   "stash": "stash@{0}: loopdeck-abort x",',
      '   "restore": "cd /tmp/trialrun/p4/repo && git stash apply stash@{0}  # loopdec',
      'k-abort 20260101-0000-abcd, keep the untracked files too"',
      ' }',
      'esc or enter closes',
      '',
      '',
      '',
    ]);
    // What a terminal copies over the value's rows (each row without its trailing blanks), joined.
    const start = rows.findIndex((r) => r.includes('"restore": '));
    const copied = rows.slice(start, start + 2).map((r) => r.trimEnd()).join('');
    expect(copied).toBe(`   "restore": ${JSON.stringify(restore)}`);
  });

  test('a row of a long value never ends in a blank a terminal would drop on copy: the blank starts the next row', () => {
    expect(wrapJoinable('cd /tmp/a b/c', 6)).toEqual(['cd /tm', 'p/a b/', 'c']);
    expect(wrapJoinable('abcd efgh', 5)).toEqual(['abcd', ' efgh']);
    expect(wrapJoinable('abcdef  gh', 6)).toEqual(['abcdef', '  gh']);
    expect(wrapJoinable('abcde  gh', 6)).toEqual(['abcde', '  gh']);
    for (const [line, width] of [['cd /tmp/trialrun/p4/repo && git stash apply', 7], ['a          b', 4], ['日本語 のパス /tmp/x', 5]] as const) {
      const rows = wrapJoinable(line, width);
      expect(rows.join('')).toBe(line);
      for (const row of rows.slice(0, -1)) expect(row.trim() === '' || !row.endsWith(' '), `${JSON.stringify(rows)}`).toBe(true);
      for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(width);
    }
  });

  test('a run that ended failed: why in the status line; the progress panel says nothing was parked', async () => {
    const events = extend(['session.complete', { reason: 'failed', summary: 'the agent failed: HTTP 401: invalid key' }]);
    const c = await renderStore(createConsoleStore(events), { rows: 34 });
    await c.waitForFrame('failed: the agent failed: HTTP 401: invalid key');
    expect(c.frame()).not.toContain('aborted');
    for (let i = 0; i < 3; i++) await c.press(KEY.tab);
    await c.waitForFrame('failed      the agent failed: HTTP 401: invalid key');
    expect(c.frame()).toContain('workspace   as the agent left it: nothing stashed, no failure report');
  });
});
