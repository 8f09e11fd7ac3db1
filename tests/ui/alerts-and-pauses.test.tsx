// Alerts and the pauses they bring, as the operator sees them: a banner that said its
// condition cleared keeps saying so until a new detection; a repetition banner says when
// the repeated call has thinned out of the window; a redirect from the bar answers every
// pause whose prompt offers `r`; the tool panel at a repetition pause shows the call the
// pause is about; the checkpoint panel reads a claim said again after a pause as said
// again, and a baseline after unmeasured checkpoints as the first measured one.
import { describe, test, expect, beforeAll } from 'vitest';

import type { LoopEvent } from '../../src/engine/index.js';
import { PAUSE_KINDS, type PauseReason } from '../../src/engine/reasons.js';
import { commandDone } from '../../src/ui/reducers/bar.js';
import type { KeyInput } from '../../src/ui/reducers/reduction.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless } from '../support/console-rig.js';
import { normalize, open, renderStore, type StoreConsole } from '../support/ui-helpers.js';

const read = (id: string, path = 'greet.js') => `      - { id: ${id}, name: read_file, args: { path: ${path} } }`;

/** Three reads of README.md (the third is a repeat with the guard's defaults), then other calls. */
const REPEATS = `
turns:
${['c1', 'c2', 'c3'].map((id) => `  - thought: read\n    tool_calls:\n${read(id, 'README.md')}`).join('\n')}
  - thought: other 1
    tool_calls:
${read('c4')}
  - thought: other 2
    tool_calls:
      - { id: c5, name: list_files, args: {} }
  - thought: other 3
    tool_calls:
      - { id: c6, name: shell, args: { command: "ls" } }
  - final: done
`;

/** The banner row of a frame (the one that starts with its mark). */
function banner(frame: string): string {
  return frame.split('\n').find((l) => l.startsWith(' ⚠ ') || l.startsWith(' ✓ cleared')) ?? '(no banner)';
}

/** Waits for the banner and returns its row. */
async function bannerOf(c: StoreConsole): Promise<string> {
  return banner(await c.waitForFrame(/^ (⚠|✓ cleared) /m));
}

/** The events up to and including the `tool.call` of call `id`. */
function throughCall(events: readonly LoopEvent[], id: string): LoopEvent[] {
  const end = events.findIndex((e) => e.type === 'tool.call' && e.data.call.id === id);
  expect(end).toBeGreaterThan(0);
  return events.slice(0, end + 1);
}

async function showToolPanel(c: StoreConsole): Promise<void> {
  await c.press(KEY.tab);
  await c.press(KEY.tab);
  await c.waitForFrame('Checkpoint │ Goal │  Tool call  │');
}

/** The tool call panel's rows of a full-layout frame: from the panel tabs to the timeline's title. */
function panel(frame: string): string {
  const lines = frame.split('\n');
  const from = lines.findIndex((l) => l.includes('│ Progress (tab)'));
  const to = lines.findIndex((l) => l.startsWith('── Timeline'));
  return normalize(lines.slice(from, to).join('\n')).trimEnd();
}

/** The checkpoint panel's rows of a full-layout frame: from its title to the timeline's. */
function checkpointRows(frame: string): string {
  const lines = frame.split('\n');
  const start = lines.findIndex((l) => l.startsWith('──  Checkpoint'));
  const end = lines.findIndex((l) => l.startsWith('── Timeline'));
  return normalize(lines.slice(start + 1, end).filter((l) => l.trim() !== '').join('\n'));
}

describe('the alert banner', () => {
  test('a stagnation banner that cleared on progress stays cleared at a later checkpoint without progress', async () => {
    const transcript = `
turns:
  - thought: look
    tool_calls:
${read('c1')}
  - thought: look again
    tool_calls:
${read('c2', 'README.md')}
  - thought: fix one
    tool_calls:
      - { id: c3, name: write_file, args: { path: fail.txt, content: "1" } }
  - thought: look once more
    tool_calls:
${read('c4')}
  - thought: and again
    tool_calls:
      - { id: c5, name: shell, args: { command: "ls" } }
  - final: done
`;
    const { events } = await runHeadless(transcript, {
      every: 1,
      threshold: 2,
      onDetect: 'pause',
      observe: [{ name: 'tests', command: `printf '# pass 1\\n# fail %s\\n' "$(cat fail.txt 2>/dev/null || echo 2)"` }],
      signals: [{ signal: 'observed.tests.failing', direction: 'decrease' }],
      allow: ['read_file', 'write_file'],
    });
    // At the c5 prompt: checkpoint #5 moved nothing (counter 1/2), and no new detection came.
    const c = await renderStore(createConsoleStore(throughCall(events, 'c5')), { rows: 34 });
    const row = await bannerOf(c);
    expect(c.frame()).toContain('#5/5 · iteration 4 · NO_OBSERVED_PROGRESS · counter 1/2');
    expect(row).toBe(' ✓ cleared (progress observed at checkpoint #4 (turn 3)): STAGNATION_DETECTED: 2/2 checkpoints with…');
  });

  test('a repetition banner says it cleared once one more of the repeated call would stay under the threshold', async () => {
    const { events } = await runHeadless(REPEATS, { allow: ['read_file', 'list_files'] });
    const atC5 = await renderStore(createConsoleStore(throughCall(events, 'c5')), { rows: 34 });
    // c2, c3, c4, c5: the repeated read is there twice; one more would be detected.
    expect(await bannerOf(atC5)).toMatch(/^ ⚠ repeat rule: the same read_file call 3× /);
    atC5.unmount();
    const atC6 = await renderStore(createConsoleStore(throughCall(events, 'c6')), { rows: 34 });
    expect(await bannerOf(atC6)).toBe(
      ' ✓ cleared (read_file call 1× in the last 4 calls: one more stays under 3 in 5): repeat rule: the s…',
    );
  });
});

describe('a redirect from the bar answers every pause whose prompt offers r', () => {
  /** A pause of `kind` waiting at seq 7, as the key reducers see it. */
  function pausedAt(kind: PauseReason['kind']): KeyInput {
    const cause = (kind === 'budget_exceeded' ? { kind, dimension: 'turns' } : { kind }) as PauseReason;
    return { session: { pending: { kind: 'pause', reason: kind, cause, prompt: '?', from: 'EXECUTING', seq: 7 } } } as unknown as KeyInput;
  }

  test.each(PAUSE_KINDS.map((kind) => [kind, ['stagnation', 'repetition', 'constraint'].includes(kind)] as const))('%s pause: answered with continue: %s', (kind, answers) => {
    const { effects } = commandDone(pausedAt(kind), { kind: 'revise-goal', directive: 'redirect', text: 'x' } as never, { ok: true, message: 'goal revised' } as never);
    expect(effects.filter((e) => e.kind === 'answer')).toEqual(answers ? [{ kind: 'answer', payload: { action: 'continue' }, seq: 7 }] : []);
  });

  test('at a repetition pause: r, a new objective and Enter revise the goal and the run goes on', async () => {
    const rig = await open({ transcript: REPEATS, policy: { allow: ['read_file', 'list_files', 'shell'] }, rows: 34 });
    await rig.waitForFrame('Paused: repetition');
    await rig.waitForArmed();
    expect(rig.frame()).toContain('[c] continue  [r] redirect the goal  [s] stop');
    await rig.press('r');
    await rig.waitFor(() => rig.bar() === '/goal redirect', 'the bar to open with /goal redirect');
    await rig.type('Look at another file');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ goal revised (redirect): revision 1');
    // No `c`: the redirect answered the pause; the repeated call runs and the agent goes on.
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(rig.events.filter((e) => e.type === 'session.resume')).toHaveLength(1);
  });

  test('at a constraint pause: r, a new objective and Enter revise the goal and the run goes on', async () => {
    const transcript = `
turns:
  - thought: break it
    tool_calls:
      - { id: c1, name: write_file, args: { path: README.md, content: "gone\\n" } }
  - final: done
`;
    const rig = await open({
      transcript,
      policy: { every: 1, constraints: [{ text: 'README says hello', command: 'grep -q "Says hello" README.md' }], allow: ['write_file'] },
      rows: 34,
    });
    await rig.waitForFrame('Paused: constraint');
    await rig.waitForArmed();
    expect(rig.frame()).toContain('[c] continue  [r] redirect the goal  [s] stop');
    await rig.press('r');
    await rig.waitFor(() => rig.bar() === '/goal redirect', 'the bar to open with /goal redirect');
    await rig.type('Put the README back');
    await rig.press(KEY.enter);
    await rig.waitForFrame('✓ goal revised (redirect): revision 1');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  });
});

describe('the tool panel at a repetition pause', () => {
  let paused: LoopEvent[];
  beforeAll(async () => {
    const { events } = await runHeadless(REPEATS, { allow: ['read_file', 'list_files', 'shell'] });
    paused = events.slice(0, events.findIndex((e) => e.type === 'session.pause') + 1);
  });

  test('shows the call the pause is about, not made yet; [ steps back to the last call made', async () => {
    const c = await renderStore(createConsoleStore(paused), { rows: 34 });
    await showToolPanel(c);
    expect(panel(c.frame())).toMatchInlineSnapshot(`
      "── Checkpoint │ Goal │  Tool call  │ Progress (tab)
      call 3 of 3 · not made: the repetition pause is about it · [ older
      read_file (c3) · stopped before it ran
      args path: README.md
      output
       (none: continuing runs it, stopping ends the run without it)"
    `);
    await c.press('[');
    await c.waitForFrame('call 2 of 3 · earlier call');
    expect(panel(c.frame())).toContain('read_file (c2) · ok');
  });

  test('stepping back and forth from the call not made: the count stays 3 and each position says how many are newer', async () => {
    const c = await renderStore(createConsoleStore(paused), { rows: 34 });
    await showToolPanel(c);
    const unmade = 'call 3 of 3 · not made: the repetition pause is about it · [ older';
    const second = 'call 2 of 3 · earlier call, 1 newer · [ older ] newer · end live';
    const first = 'call 1 of 3 · earlier call, 2 newer · ] newer · end live';
    // Each key, and the title the panel shows after it (`[` at the first call stays there).
    const steps: Array<[string, string]> = [['[', second], ['[', first], ['[', first], [']', second], [']', unmade], [']', unmade]];
    expect(panel(c.frame()).split('\n')[1]).toBe(unmade);
    for (const [key, title] of steps) {
      await c.press(key);
      const frame = await c.waitForFrame(title);
      expect(panel(frame).split('\n')[1], `after ${key}`).toBe(title);
    }
  });
});

describe('the checkpoint panel', () => {
  test('a claim said again after a checkpoint that did not repeat it counts as said again, not as new', async () => {
    const transcript = `
turns:
  - thought: t1
    report:
      remaining_hypotheses: [alpha, beta, gamma]
      eliminated_hypotheses: [delta]
  - thought: t2 repeats only alpha
    report:
      remaining_hypotheses: [alpha]
  - thought: t3 says nothing
  - thought: t4 eliminates beta
    report:
      eliminated_hypotheses: [beta]
      remaining_hypotheses: [alpha, gamma, epsilon]
  - final: done
`;
    const { events } = await runHeadless(transcript, { every: 1, threshold: 10 });
    const c = await renderStore(createConsoleStore(events), { rows: 34 });
    await c.waitForFrame('#5/5 · iteration 4');
    expect(checkpointRows(c.frame())).toContain('reported (claims) vs #1–#4');
    expect(checkpointRows(c.frame())).toContain('eliminated +beta\n');
    expect(checkpointRows(c.frame())).toMatch(/remaining {2}\+epsilon \(2 said again\)/);
    expect(checkpointRows(c.frame())).not.toContain('+alpha');
    expect(checkpointRows(c.frame())).not.toContain('+gamma');
  });

  test('a baseline after checkpoints that measured nothing says it is the first measured one', async () => {
    const transcript = `
turns:
  - thought: a
  - thought: measure
    tool_calls:
      - { id: c1, name: write_file, args: { path: m.txt, content: "# pass 1\\n# fail 1\\n" } }
  - final: done
`;
    const { events } = await runHeadless(transcript, {
      every: 1,
      threshold: 10,
      observe: [{ name: 'm', command: 'cat m.txt 2>/dev/null' }],
      signals: [{ signal: 'observed.m.failing', direction: 'decrease' }],
      allow: ['write_file'],
    });
    const c = await renderStore(createConsoleStore(events), { rows: 34 });
    await c.waitForFrame('#3/3');
    const rows = checkpointRows(c.frame()).split('\n');
    expect(rows.slice(0, 3)).toEqual([
      '#3/3 · iteration 2 · first measured · BASELINE · counter 0/10 · [ earlier',
      'why baseline rule: the first measured checkpoint: the 2 before it measured nothing, so no measured',
      'value came before to compare with (observed.m.failing first measured at 1); counter 0/10',
    ]);
  });
});
