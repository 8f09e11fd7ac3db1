// The approval prompt: y, a, A, n, d; the rule that asked and the rules `a` and `A` store; long
// arguments; the approval timeout. A real session and workspace behind a live console.
import { vi, describe, test, expect } from 'vitest';

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KEY } from '../support/console-rig.js';
import { fits, normalize, open, openAtPrompt, pendingSeq } from '../support/ui-helpers.js';

const COMPOUND = `
turns:
  - thought: Mark the workspace.
    tool_calls:
      - { id: t1, name: shell, args: { command: "touch ran.txt && echo marked" } }
  - thought: Mark it again, the same way.
    tool_calls:
      - { id: t2, name: shell, args: { command: "touch ran.txt && echo marked" } }
  - thought: A variation is not the same command.
    tool_calls:
      - { id: t3, name: shell, args: { command: "touch ran.txt && echo marked twice" } }
  - final: Marked.
`;

describe('a: always allow for this run', () => {
  test('a compound command stores only the literal command; the gate then allows exactly that text', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND });
    const frame = rig.frame();
    expect(frame).toContain('│ why  compound command (&&)');
    expect(frame).toContain('│ $ touch ran.txt && echo marked');
    expect(frame).toContain('│ a stores shell-exact: touch ran.txt && echo marked');

    const seq = pendingSeq(rig);
    await rig.press('a');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve', always: 'shell-exact: touch ran.txt && echo marked' }, seq);

    // t2 is the same text: the gate allows it without asking. t3 differs: asked again.
    await rig.waitForFrame('Approve tool call shell (t3)');
    const { tools, granted } = rig.session.snapshot;
    expect(granted).toEqual(['shell-exact: touch ran.txt && echo marked']);
    expect(tools.get('t1')?.decision).toEqual({ decision: 'approve', by: 'operator' });
    expect(tools.get('t2')?.decision).toEqual({ decision: 'approve', by: 'policy' });
    expect(rig.frame()).toContain('│ a stores shell-exact: touch ran.txt && echo marked twice');
    await rig.waitForArmed();
    await rig.press('n');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(rig.events.find((e) => e.type === 'tool.decision' && e.data.call_id === 't1')?.data).toEqual({
      call_id: 't1',
      decision: 'approve',
      by: 'operator',
      always: 'shell-exact: touch ran.txt && echo marked',
    });
  });

  test('a simple command stores only that exact command: a longer one is asked about again', async () => {
    const rig = await openAtPrompt({
      transcript: `
turns:
  - tool_calls:
      - { id: t1, name: shell, args: { command: "rm -r ./tmp" } }
  - tool_calls:
      - { id: t2, name: shell, args: { command: "rm -r ./tmp ./src /elsewhere" } }
  - final: Done.
`,
    });
    expect(rig.frame()).toContain('│ a stores shell-exact: rm -r ./tmp ');
    expect(rig.frame()).not.toContain('A stores');
    expect(rig.frame()).not.toContain('[A]');
    const seq = pendingSeq(rig);
    await rig.press('a');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve', always: 'shell-exact: rm -r ./tmp' }, seq);

    await rig.waitForFrame('Approve tool call shell (t2)');
    expect(rig.frame()).toContain('│ $ rm -r ./tmp ./src /elsewhere');
    expect(rig.frame()).toContain('│ a stores shell-exact: rm -r ./tmp ./src /elsewhere');
    expect(rig.session.snapshot.granted).toEqual(['shell-exact: rm -r ./tmp']);
    await rig.waitForArmed();
    await rig.press('n');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(rig.session.snapshot.tools.get('t2')?.decision).toEqual({ decision: 'deny', by: 'operator' });
  });

  test('A stores the wider rule shown, offered only for a read-only command; its refused options are asked about', async () => {
    const rig = await openAtPrompt({
      transcript: `
turns:
  - tool_calls:
      - { id: t1, name: shell, args: { command: "git diff --stat" } }
  - tool_calls:
      - { id: t2, name: shell, args: { command: "git diff README.md" } }
  - tool_calls:
      - { id: t3, name: shell, args: { command: "git diff --output=leak.txt" } }
  - final: Done.
`,
    });
    const frame = rig.frame();
    expect(frame).toContain('│ a stores shell-exact: git diff --stat ');
    
    expect(frame).toContain('│ A stores shell-read-only: git diff  = git diff with any arguments except --output, --ext-diff');
    expect(frame).toContain('[a] always allow  [A] wider rule');
    const seq = pendingSeq(rig);
    await rig.press('A');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve', always: 'shell-read-only: git diff' }, seq);

    await rig.waitForFrame('Approve tool call shell (t3)');
    expect(rig.session.snapshot.tools.get('t2')?.decision).toEqual({ decision: 'approve', by: 'policy' });
    expect(rig.frame()).toContain('│ a stores shell-exact: git diff --output=leak.txt');
    expect(rig.frame()).not.toContain('A stores');
    await rig.waitForArmed();
    await rig.press('n');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
    expect(existsSync(path.join(rig.workspace.dir, 'leak.txt'))).toBe(false);
  });

  test('a command with an expansion stores nothing: the keys do not offer a, and a says so and leaves the prompt waiting', async () => {
    const rig = await openAtPrompt({
      transcript: `
turns:
  - tool_calls:
      - { id: t1, name: shell, args: { command: "cat $(cat dirs.txt)" } }
  - final: Done.
`,
    });
    expect(rig.frame()).toContain('│ a stores nothing: command substitution ($(...)) is known only when it runs (y approves once)');
    expect(rig.frame()).toContain('[y] approve once  [n] deny');
    expect(rig.frame()).not.toContain('always allow');
    await rig.press('a');
    await rig.waitForFrame('nothing can be stored for this call');
    expect(rig.controller.answer).not.toHaveBeenCalled();
    await rig.press('n');
    await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  });
});

describe('d: deny with a note', () => {
  test('the note is typed (hotkey letters are text), Enter denies with it, and the agent is told', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND });
    const seq = pendingSeq(rig);
    await rig.press('d');
    await rig.waitForFrame('note to the agent ›');
    expect(rig.frame()).toContain('enter: deny with this note · esc: back to the prompt');
    for (const ch of 'no: use printf; yes, a quick one') await rig.press(ch);
    await rig.waitForFrame('note to the agent › no: use printf; yes, a quick one');
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(rig.controller.quit).not.toHaveBeenCalled();
    await rig.press(KEY.enter);
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'deny', note: 'no: use printf; yes, a quick one' }, seq);
    await rig.waitFor(() => rig.session.snapshot.tools.get('t1')?.result !== null, 'the denial to be recorded');
    expect(rig.session.snapshot.tools.get('t1')).toMatchObject({
      decision: { decision: 'deny', by: 'operator', note: 'no: use printf; yes, a quick one' },
      result: { status: 'denied', output: 'denied by the operator: no: use printf; yes, a quick one' },
    });
    expect(existsSync(path.join(rig.workspace.dir, 'ran.txt'))).toBe(false);
  });

  test('Esc goes back to the prompt without answering; the prompt still takes its keys', async () => {
    const rig = await openAtPrompt({ transcript: COMPOUND });
    await rig.press('d');
    await rig.waitForFrame('note to the agent ›');
    for (const ch of 'never') await rig.press(ch);
    await rig.press(KEY.escape);
    await rig.waitForFrame('[y] approve once');
    expect(rig.frame()).not.toContain('note to the agent');
    expect(rig.controller.answer).not.toHaveBeenCalled();
    const seq = pendingSeq(rig);
    await rig.press('y');
    expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve' }, seq);
  });
});

test('help open over a prompt: the prompt says to close help to answer it, y does nothing; after Esc, y approves', async () => {
  const rig = await openAtPrompt({ transcript: COMPOUND, rows: 40 });
  await rig.press('?');
  const frame = normalize(await rig.waitForFrame('── Help · keys and commands'));
  expect(frame).toContain('close help (esc, ? or q) to answer the prompt');
  expect(frame).not.toContain('[y] approve once');
  expect(frame).toMatchInlineSnapshot(`
    "loopdeck Make the greeting friendlier                                                    run ui-test
    react · AWAITING_TOOL · iteration 1/20 · T
    IDLE › PLANNING › EXECUTING ›  AWAITING_TOOL  › REFLECTING › DONE  ← EXECUTING #10
    turns 5%            tool calls 5%       wall clock #%       tokens 0%           cost 0%
    █░░░░░░░░░░░░░ 1/20 █░░░░░░░░░░░░░ 1/20 ~~~~~~~~~~~~ #s/30m ░░░░░░░░░░░░ 0/100k ░░░░░░░ $0.00/$1.00
    workspace progress not measured yet
    ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
    │ Approve tool call shell (t1) · denied in ##m##s unless answered                                  │
    │ why  compound command (&&)                                                                       │
    │ $ touch ran.txt && echo marked                                                                   │
    │ a stores shell-exact: touch ran.txt && echo marked                                               │
    │ close help (esc, ? or q) to answer the prompt                                                    │
    ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
    ── Help · keys and commands · ↑/↓ scroll · esc, ? or q closes
    Anywhere on the dashboard
      /                      command bar (/goal, /budget, /stop, /help)
      ?                      this help
      q                      quit (asks first while a run is live)
      ctrl+c                 once: pause at the next safe point; twice: quit
      ctrl+z                 suspend (the run waits; fg resumes; works in every view)
    Timeline and panels
      ↑                      timeline: select the previous event (stops following)
      ↓                      timeline: select the next event
      pgup                   timeline: one page up
      pgdn                   timeline: one page down
      home                   timeline: first event
      end                    timeline: follow the newest event
      enter                  open the selected event
      f                      timeline: next type filter
      F                      timeline: previous type filter
      tab                    next panel (checkpoint, goal, tool, progress)
      shift+tab              previous panel
      [                      checkpoint: show the previous one (tool call panel: the previous call)
      ]                      checkpoint: show the next one (tool call panel: the next call)
      x                      acknowledge the alert banner
    Tool call panel (Tab to it): earlier calls of the run
      [                      the call before (the panel stays on it as new calls arrive)
    … 116 more (↓)
    [esc/?/q] close  [↑] up  [↓] down  [pgup] page up  [pgdn] page down"
  `);
  await rig.press('y');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(rig.controller.answer).not.toHaveBeenCalled();
  await rig.press(KEY.escape);
  await rig.waitForFrame('[y] approve once');
  expect(rig.frame()).not.toContain('close help');
  await rig.waitForArmed();
  const seq = pendingSeq(rig);
  await rig.press('y');
  expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve' }, seq);
});

test('an event opened over a prompt: the prompt says to close it to answer, y does nothing; after Esc, y approves', async () => {
  const rig = await openAtPrompt({ transcript: COMPOUND, rows: 40 });
  await rig.press(KEY.enter);
  await rig.waitFor(() => rig.store.getState().overlay === 'event', 'the event to open');
  await rig.waitForFrame('close the event (esc or enter) to answer the prompt');
  expect(rig.frame()).not.toContain('[y] approve once');
  await rig.press('y');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(rig.controller.answer).not.toHaveBeenCalled();
  await rig.press(KEY.escape);
  await rig.waitForFrame('[y] approve once');
  const seq = pendingSeq(rig);
  await rig.press('y');
  await rig.waitFor(() => vi.mocked(rig.controller.answer).mock.calls.length > 0, 'y to approve');
  expect(rig.controller.answer).toHaveBeenCalledExactlyOnceWith({ decision: 'approve' }, seq);
});

test('long arguments show their start and their end; v opens them all, within the terminal', async () => {
  const content = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of the new greeter`).join('\n');
  const rig = await open({
    transcript: `
turns:
  - tool_calls:
      - { id: t1, name: write_file, args: { path: greet.js, content: ${JSON.stringify(content)} } }
  - final: Written.
`,
    rows: 40,
  });
  await rig.waitForFrame('Approve tool call write_file (t1)');
  await rig.waitForArmed();
  const collapsed = normalize(rig.frame());
  const box = (frame: string) => frame.split('\n').filter((l) => l.startsWith('│')).map((l) => l.slice(2, -1).trimEnd());
  expect(box(collapsed)).toEqual([
    'Approve tool call write_file (t1) · denied in ##m##s unless answered',
    'why  no rule names tool "write_file" (default: ask)',
    'path: greet.js',
    'content: |',
    '  line 1 of the new greeter',
    '  line 2 of the new greeter',
    expect.stringMatching(/^⋯ \d+ more characters · v shows all$/),
    '  line 12 of the new greeter',
    expect.stringMatching(/^a stores exact: write_file sha256:[0-9a-f]{32}$/),
    '[y] approve once  [a] always allow  [n] deny  [d] deny with note  [v] all args',
  ]);

  await rig.press('v');
  await rig.waitForFrame('Arguments of write_file (t1)');
  const expanded = rig.frame();
  expect(box(normalize(expanded)).slice(1, 15)).toEqual(['path: greet.js', 'content: |', ...content.split('\n').map((l) => `  ${l}`)]);
  expect(expanded).not.toContain('more characters');
  expect(fits(expanded, 100, 40).ok).toBe(true);
  await rig.press('v');
  await rig.waitForFrame(/⋯ \d+ more characters · v shows all/);
  await rig.press('y');
  await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  expect(readFileSync(path.join(rig.workspace.dir, 'greet.js'), 'utf8')).toBe(content);
});

test('the arguments view is cut to what the terminal can show, never taller than it, and scrolls', async () => {
  const content = Array.from({ length: 60 }, (_, i) => `row ${i + 1}`).join('\n');
  const rig = await open({
    transcript: `
turns:
  - tool_calls:
      - { id: t1, name: write_file, args: { path: big.txt, content: ${JSON.stringify(content)} } }
  - final: Written.
`,
    rows: 24,
    columns: 80,
  });
  await rig.waitForFrame('Approve tool call write_file (t1)');
  await rig.waitForArmed();
  expect(fits(rig.frame(), 80, 24)).toEqual({ height: 23, widest: 80, ok: true });
  expect(rig.frame()).toContain('│ [y] approve once');
  expect(rig.frame()).toContain('│   row 60');
  await rig.press('v');
  await rig.waitForFrame('Arguments of write_file (t1)');
  expect(fits(rig.frame(), 80, 24)).toEqual({ height: 23, widest: 80, ok: true });
  expect(rig.frame()).toMatch(/rows 1–\d+ of 62/);
  await rig.press(KEY.end);
  await rig.press(KEY.pageDown);
  await rig.waitForFrame(/rows \d+–\d+ of 62/);
  expect(rig.frame()).not.toMatch(/rows 1–/);
});

test('an approval left unanswered for approval.timeout is denied by policy, never approved, and no operator is named; the prompt counts down', async () => {
  const rig = await open({
    transcript: `
turns:
  - tool_calls:
      - { id: t1, name: shell, args: { command: "touch ran.txt" } }
  - final: Nothing ran.
`,
    policy: { approvalTimeout: '2s' },
  });
  await rig.waitForFrame(/Approve tool call shell \(t1\) · denied in [12]s unless answered/);
  expect(rig.store.getState().approvalDeadline).not.toBeNull();
  await rig.waitFor(() => rig.session.snapshot.tools.get('t1')?.decision !== null, 'the timeout to deny the call');
  expect(rig.session.snapshot.tools.get('t1')?.decision).toEqual({ decision: 'deny', by: 'policy', note: 'no answer within 2s' });
  // The agent is told no operator denied it.
  expect(rig.session.snapshot.tools.get('t1')?.result?.output).toBe('denied by the policy: no answer within 2s');
  expect(rig.controller.answer).not.toHaveBeenCalled();
  await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  expect(rig.store.getState().approvalDeadline).toBeNull();
  expect(existsSync(path.join(rig.workspace.dir, 'ran.txt'))).toBe(false);
  await rig.waitForFrame(/tool\.decision\s+denied by policy: no answer within 2s/);
});

test('an answer before the timeout cancels it', async () => {
  const rig = await open({
    transcript: `
turns:
  - tool_calls:
      - { id: t1, name: shell, args: { command: "echo quick" } }
  - tool_calls:
      - { id: t2, name: shell, args: { command: "echo slow" } }
  - final: Done.
`,
    policy: { approvalTimeout: '1s' },
  });
  await rig.waitForFrame('Approve tool call shell (t1)');
  await rig.waitForArmed();
  await rig.press('y');
  await rig.waitForFrame('Approve tool call shell (t2)');
  await rig.waitFor(() => rig.session.snapshot.tools.get('t2')?.decision !== null, 'the timeout to deny t2');
  expect(rig.session.snapshot.tools.get('t1')?.decision).toEqual({ decision: 'approve', by: 'operator' });
  expect(rig.session.snapshot.tools.get('t2')?.decision).toEqual({ decision: 'deny', by: 'policy', note: 'no answer within 1s' });
});

test('a write to .gitattributes is asked about even though write_file is allowed; the prompt says why, in full', async () => {
  const rig = await open({
    transcript: `
turns:
  - tool_calls:
      - { id: t1, name: write_file, args: { path: "src/.gitattributes", content: "* filter=run\\n" } }
  - tool_calls:
      - { id: t2, name: write_file, args: { path: notes.txt, content: "noted" } }
  - final: Done.
`,
    policy: { allow: ['write_file'] },
  });
  await rig.waitForFrame('Approve tool call write_file (t1)');
  await rig.waitForArmed();
  const box = (frame: string) => frame.split('\n').filter((l) => l.startsWith('│')).map((l) => l.slice(2, -1).trimEnd());
  expect(box(normalize(rig.frame())).slice(0, 4)).toEqual([
    'Approve tool call write_file (t1) · denied in ##m##s unless answered',
    'why  writes .gitattributes: git runs the filter, diff and merge drivers it names (always asked;',
    '     the rules alone say: allow rule "write_file")',
    'path: src/.gitattributes',
  ]);
  await rig.press('n');
  // The next write is allowed by the rule without a prompt.
  await expect(rig.outcome).resolves.toMatchObject({ reason: 'goal_met' });
  expect(rig.session.snapshot.tools.get('t1')?.decision).toEqual({ decision: 'deny', by: 'operator' });
  expect(rig.session.snapshot.tools.get('t2')?.decision).toEqual({ decision: 'approve', by: 'policy' });
  expect(existsSync(path.join(rig.workspace.dir, 'src', '.gitattributes'))).toBe(false);
  expect(readFileSync(path.join(rig.workspace.dir, 'notes.txt'), 'utf8')).toBe('noted');
});
