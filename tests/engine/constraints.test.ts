// Constraints that can be checked are checked (docs/design.md, "Goals"): a `protect` glob or
// a `command` on an entry of goal.constraints, evaluated at each checkpoint against the
// workspace as the run started. Real git repositories in temp dirs, real sessions with the
// scripted agent, real child processes for the command checks.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { AgentContext } from '../../src/engine/agents/agent.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { checkConstraints, protectBaseline } from '../../src/engine/constraints.js';
import type { EventOf, LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { git, gitRepo, tempDir, writeFiles as write } from '../support/git-workspace.js';
import type { ConfigErrors } from '../../src/engine/errors.js';

/** A committed repository with sources and tests, plus an untracked test file present from the start. */
function repo(): string {
  const ws = gitRepo('loopdeck-constraints-', { 'src/a.ts': 'a v1\n', 'test/a.test.ts': 'test v1\n', 'test/old.test.ts': 'old\n' });
  write(ws, { 'test/draft.test.ts': 'untracked at start\n' });
  return ws;
}

type Call = { id: string; name: string; args: Record<string, unknown> };

interface Run {
  events: LoopEvent[];
  /** What the agent was sent at each turn (its history). */
  seen: Array<AgentContext['history']>;
  /** Every yield, with the answer given. */
  yields: Array<{ kind: string; reason?: string; prompt?: string }>;
  reason: string;
}

/** Runs `turns` (one tool call each, then two turns without one) with a checkpoint every turn; every pause is answered by `answers`, in order. */
async function run(ws: string, constraints: unknown[], turns: Call[], answers: Array<'continue' | 'stop'>, extra: Record<string, unknown> = {}): Promise<Run> {
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'fix the bug', constraints, ...extra },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'false' }],
      hooks: [],
      pattern: 'react',
      checkpoint: { every_iterations: 1 },
      stagnation: { checkpoints_without_observed_progress: 50 },
      // The budget ends the run at the extra last turn, before its checkpoint: every other turn's is recorded.
      budget: { max_iterations: turns.length + 2 },
      approval: { default: 'allow' },
    }),
    path.join(ws, 'loop.yaml'),
  );
  const script = ScriptedAgent.fromYaml(stringify({ turns: [...turns.map((c) => ({ tool_calls: [c] })), { thought: 'looking' }, { thought: 'still looking' }] }));
  const seen: Run['seen'] = [];
  const agent = Object.assign(Object.create(script) as ScriptedAgent, {
    nextTurn: (context: AgentContext) => {
      seen.push([...context.history]);
      return script.nextTurn(context);
    },
  });
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const runDir = path.join(tempDir('loopdeck-cwd-'), 'run');
  const session = new Session({ id: 's1', agent, policy, workspace: ws, runDir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
  const gen = session.run(newGoal('fix the bug', [], policy.goal.constraints));
  const yields: Run['yields'] = [];
  const pending = [...answers];
  let step = await gen.next();
  while (!step.done) {
    const y = step.value;
    if (y.kind === 'tool') {
      yields.push({ kind: 'tool' });
      step = await gen.next({ decision: 'approve' });
      continue;
    }
    yields.push({ kind: y.kind, reason: y.reason, prompt: y.prompt });
    step = await gen.next({ action: pending.shift() ?? 'stop' });
  }
  return { events, seen, yields, reason: step.value.reason };
}

const of = <T extends LoopEvent['type']>(events: LoopEvent[], type: T) => events.filter((e): e is EventOf<T> & LoopEvent => e.type === type);
const edit = (id: string, file: string, content: string): Call => ({ id, name: 'write_file', args: { path: file, content } });
const shell = (id: string, command: string): Call => ({ id, name: 'shell', args: { command } });
const DO_NOT_EDIT_TESTS = { text: 'do not edit the tests', protect: ['test/**'] };

describe('a protect constraint in a git workspace', () => {
  it('the agent edits a protected test file: constraint.violated naming it, a pause, and the agent is told which constraint it broke', async () => {
    const ws = repo();
    const r = await run(ws, [DO_NOT_EDIT_TESTS], [edit('t1', 'test/a.test.ts', 'expect(true)\n'), edit('t2', 'src/a.ts', 'a v2\n')], ['continue', 'stop']);

    const violated = of(r.events, 'constraint.violated');
    expect(violated.map((e) => e.data)).toEqual([
      { iteration: 1, index: 0, text: 'do not edit the tests', check: 'protect', paths: ['test/a.test.ts'], changed: 1, action: 'pause' },
      { iteration: 2, index: 0, text: 'do not edit the tests', check: 'protect', paths: ['test/a.test.ts'], changed: 1, action: 'pause' },
    ]);
    expect(r.yields).toEqual([
      {
        kind: 'pause',
        reason: 'constraint',
        prompt:
          'constraint "do not edit the tests" violated: protected paths changed since the run started: test/a.test.ts. Continue, redirect the goal (/goal redirect <text>), or stop?',
      },
      expect.objectContaining({ kind: 'pause', reason: 'constraint' }),
    ]);
    expect(r.reason).toBe('stopped');
    // Turn 2 was asked after the violation: its history carries the note.
    const note = r.seen[1]!.find((m) => m.role === 'harness');
    expect(note?.content).toBe(
      'You broke a constraint of the goal. constraint "do not edit the tests" violated: protected paths changed since the run started: test/a.test.ts. Undo what breaks it: the constraint still holds.',
    );
    expect(r.seen[0]!.some((m) => m.role === 'harness')).toBe(false);
    const state = fold(r.events);
    expect(state.constraintFindings).toEqual([expect.objectContaining({ outcome: 'violated', text: 'do not edit the tests', paths: ['test/a.test.ts'] })]);
    expect(state.alerts.filter((a) => a.kind === 'constraint')).toHaveLength(2);
  });

  it('edits elsewhere (a source file, an untracked file outside the tests): no event, no pause', async () => {
    const ws = repo();
    const r = await run(ws, [DO_NOT_EDIT_TESTS], [edit('t1', 'src/a.ts', 'a v2\n'), edit('t2', 'notes/new.md', 'new\n')], []);
    expect(of(r.events, 'constraint.violated')).toEqual([]);
    expect(of(r.events, 'constraint.unchecked')).toEqual([]);
    expect(r.yields.filter((y) => y.kind === 'pause' && y.reason === 'constraint')).toEqual([]);
    // The baseline taken at the start and one checkpoint per turn: none found a violation.
    expect(of(r.events, 'checkpoint.recorded')).toHaveLength(4);
    expect(r.seen.flat().some((m) => m.role === 'harness')).toBe(false);
  });

  it.each<[string, string, string[]]>([
    ['a deleted test', 'rm test/old.test.ts', ['test/old.test.ts']],
    ['a renamed test (old and new path)', 'git mv test/old.test.ts test/renamed.test.ts', ['test/old.test.ts', 'test/renamed.test.ts']],
    ['a new untracked test', 'echo x > test/new.test.ts', ['test/new.test.ts']],
    ['a test untracked at start, edited', 'echo changed > test/draft.test.ts', ['test/draft.test.ts']],
    ['a hidden file under test/', 'echo x > test/.snap', ['test/.snap']],
    ['a same-size edit staged right away', 'echo "test v2" > test/a.test.ts && git add -A', ['test/a.test.ts']],
    ['a change committed', 'echo y > test/a.test.ts && git add -A && git -c user.name=a -c user.email=a@b commit -qm x', ['test/a.test.ts']],
    ['a tracked test edited under a new .gitignore (an untracked one then hidden reads as deleted)', 'echo "test/" > .gitignore && echo y > test/a.test.ts', ['test/a.test.ts', 'test/draft.test.ts']],
  ])('%s is a violation', async (_name, command, paths) => {
    const ws = repo();
    const baseline = await protectBaseline(ws);
    execFileSync('sh', ['-c', command], { cwd: ws, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
    const findings = await checkConstraints([DO_NOT_EDIT_TESTS], ws, baseline);
    expect(findings).toEqual([{ outcome: 'violated', index: 0, text: 'do not edit the tests', check: 'protect', paths, changed: paths.length }]);
  });

  it('reverting the edit keeps the constraint again; a run without a recorded start cannot be checked', async () => {
    const ws = repo();
    const baseline = await protectBaseline(ws);
    writeFileSync(path.join(ws, 'test/a.test.ts'), 'changed\n');
    expect((await checkConstraints([DO_NOT_EDIT_TESTS], ws, baseline))[0]!.outcome).toBe('violated');
    writeFileSync(path.join(ws, 'test/a.test.ts'), 'test v1\n');
    expect(await checkConstraints(['be kind', DO_NOT_EDIT_TESTS], ws, baseline)).toEqual([{ outcome: 'kept', index: 1, text: 'do not edit the tests', check: 'protect' }]);
    expect(await checkConstraints([DO_NOT_EDIT_TESTS], ws, undefined)).toEqual([expect.objectContaining({ outcome: 'error', error: expect.stringContaining('no starting tree was recorded') })]);
  });

  it('in a sub-folder of a larger repository, globs are relative to the workspace and changes outside it do not count', async () => {
    const top = repo();
    write(top, { 'pkg/test/x.test.ts': 'x\n', 'pkg/src/x.ts': 'x\n' });
    git(top, 'add', '-A');
    git(top, 'commit', '-qm', 'pkg');
    const ws = path.join(top, 'pkg');
    const r = await run(ws, [DO_NOT_EDIT_TESTS], [shell('t1', 'echo changed > ../test/a.test.ts'), edit('t2', 'test/x.test.ts', 'y\n')], ['stop']);
    expect(of(r.events, 'constraint.violated').map((e) => [e.data.iteration, e.data.paths])).toEqual([[2, ['test/x.test.ts']]]);
  });

  it('on_violation: alert goes on without a pause; stop ends the run stopped', async () => {
    const alerted = await run(repo(), [DO_NOT_EDIT_TESTS], [edit('t1', 'test/a.test.ts', 'x\n')], [], { on_violation: 'alert' });
    expect(of(alerted.events, 'constraint.violated').map((e) => e.data.action)).toEqual(['alert', 'alert']);
    expect(alerted.yields.filter((y) => y.kind === 'pause' && y.reason === 'constraint')).toEqual([]);
    const stopped = await run(repo(), [DO_NOT_EDIT_TESTS], [edit('t1', 'test/a.test.ts', 'x\n')], [], { on_violation: 'stop' });
    expect(stopped.reason).toBe('stopped');
    expect(stopped.yields).toEqual([]);
    expect(of(stopped.events, 'session.complete')[0]!.data.summary).toContain('constraint "do not edit the tests" violated');
  });
});

describe('a protect constraint outside git', () => {
  it('cannot be evaluated: constraint.unchecked says so at each checkpoint, never a pass', async () => {
    const ws = tempDir('loopdeck-nogit-');
    write(ws, { 'test/a.test.ts': 'v1\n' });
    const r = await run(ws, [DO_NOT_EDIT_TESTS], [edit('t1', 'test/a.test.ts', 'v2\n')], []);
    expect(of(r.events, 'session.start')[0]!.data.protect_baseline).toEqual({ tree: null, error: 'the workspace is not a git repository: changed paths cannot be listed' });
    expect(of(r.events, 'constraint.unchecked').map((e) => e.data)).toEqual([1, 2].map((iteration) => ({
      iteration, index: 0, text: 'do not edit the tests', check: 'protect', error: 'the workspace is not a git repository: changed paths cannot be listed',
    })));
    expect(fold(r.events).constraintFindings).toEqual([expect.objectContaining({ outcome: 'error' })]);
  });
});

describe('a command constraint', () => {
  const NO_TODO = { text: 'leave no TODO in src', command: '! grep -rq TODO src' };

  it('a failing check is a violation with its exit code, and a pause', async () => {
    const ws = repo();
    const r = await run(ws, [NO_TODO], [edit('t1', 'src/a.ts', '// TODO later\n')], ['stop']);
    expect(of(r.events, 'constraint.violated').map((e) => e.data)).toEqual([{ iteration: 1, index: 0, text: 'leave no TODO in src', check: 'command', exit_code: 1, action: 'pause' }]);
    expect(r.yields).toEqual([expect.objectContaining({ reason: 'constraint', prompt: expect.stringContaining('constraint "leave no TODO in src" violated: its check exited 1') })]);
  });

  it('a passing check is nothing', async () => {
    const r = await run(repo(), [NO_TODO], [edit('t1', 'src/a.ts', 'done\n')], []);
    expect(of(r.events, 'constraint.violated')).toEqual([]);
    expect(of(r.events, 'constraint.unchecked')).toEqual([]);
  });

  it.each([
    ['not found', 'no-such-program-xyz --check', 'could not run (exit 127: not found)'],
    ['timed out', 'sleep 5', 'timed out after 1s'],
  ])('a command that cannot run (%s) is an error shown as such, not a pass and not a violation', async (_name, command, error) => {
    const r = await run(repo(), [{ text: 'checked', command, timeout: '1s' }], [], []);
    expect(of(r.events, 'constraint.violated')).toEqual([]);
    const unchecked = of(r.events, 'constraint.unchecked');
    expect(unchecked).toHaveLength(1);
    expect(unchecked[0]!.data.error).toContain(error);
  });
});

describe('loop.yaml', () => {
  const parse = (constraints: unknown) =>
    parsePolicy(stringify({ goal: { objective: 'x', constraints }, agent: { kind: 'scripted', script: 'x.yaml' }, workspace: { path: '.' }, verify: [{ command: 'true' }] }), '/tmp/loop.yaml');

  it('plain strings keep working; checks default to a 2m timeout and a pause', () => {
    const policy = parse(['be kind', DO_NOT_EDIT_TESTS]);
    expect(policy.goal.constraints).toEqual(['be kind', { ...DO_NOT_EDIT_TESTS, timeout: 120 }]);
    expect(policy.goal.on_violation).toBe('pause');
    expect(newGoal('x', [], policy.goal.constraints).constraints).toEqual(['be kind', 'do not edit the tests']);
  });

  it.each([
    [{ text: 'x' }, 'expected protect or command'],
    [{ text: 'x', protect: ['/etc/**'] }, 'expected a glob relative to the workspace'],
    [{ text: 'x', protect: ['../other/**'] }, 'expected a glob relative to the workspace'],
    [{ text: 'x', protect: [] }, 'expected at least one glob'],
    [{ text: 'x', protect: ['a'], bogus: 1 }, 'bogus'],
  ])('%j is refused', (entry, message) => {
    let error: ConfigErrors | undefined;
    try {
      parse([entry]);
    } catch (e) {
      error = e as ConfigErrors;
    }
    expect(String(error?.message)).toContain(message);
  });
});

describe('a constraint pause and resume', () => {
  it('a run restarted at a constraint pause asks it again; continue goes on with the same starting tree', async () => {
    const ws = repo();
    const policy = parsePolicy(
      stringify({
        goal: { objective: 'fix', constraints: [DO_NOT_EDIT_TESTS] },
        agent: { kind: 'scripted', script: 'x.yaml' },
        workspace: { path: '.', copy: 'none' },
        verify: [{ command: 'false' }],
        hooks: [],
        checkpoint: { every_iterations: 1 },
        budget: { max_iterations: 3 },
        approval: { default: 'allow' },
      }),
      path.join(ws, 'loop.yaml'),
    );
    const transcript = stringify({ turns: [{ tool_calls: [edit('t1', 'test/a.test.ts', 'x\n')] }, { thought: 'after the pause' }, { thought: 'the budget ends here' }] });
    let now = 1_700_000_000_000;
    const first: LoopEvent[] = [];
    const live = new Session({ id: 's1', agent: ScriptedAgent.fromYaml(transcript), policy, workspace: ws, clock: () => (now += 1000), sinks: [(e) => first.push(e)] });
    const gen = live.run(newGoal('fix', [], policy.goal.constraints));
    const asked = await gen.next();
    expect(asked.value).toMatchObject({ kind: 'pause', reason: 'constraint' });
    await gen.return({ reason: 'stopped', summary: 'killed' });

    const again: LoopEvent[] = [...first];
    const agent = ScriptedAgent.fromYaml(transcript);
    const resumed = new Session({ id: 's1', agent, policy, workspace: ws, clock: () => (now += 1000), sinks: [(e) => again.push(e)], prior: first });
    const run2 = resumed.resume();
    const reasked = await run2.next();
    expect(reasked.value).toMatchObject({ kind: 'pause', reason: 'constraint', prompt: expect.stringContaining('"do not edit the tests" violated') });
    let step = await run2.next({ action: 'continue' });
    while (!step.done) step = await run2.next({ action: 'stop' });
    const after = again.slice(first.length);
    // The checkpoint after the resumed turn compares with the start recorded before the restart.
    expect(of(after, 'constraint.violated').map((e) => [e.data.iteration, e.data.paths])).toEqual([[2, ['test/a.test.ts']]]);
    expect(of(after, 'session.start')).toEqual([]);
  });
});
