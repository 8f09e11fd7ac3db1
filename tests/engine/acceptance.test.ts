// The acceptance matrix (docs/design.md, "The acceptance matrix"): one row per success
// criterion, its status derived by the harness from its own check at each checkpoint and
// before each verdict, never from the agent. Real git workspaces in temp dirs, the scripted
// agent, real commands for the checks and the observer.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { AgentContext } from '../../src/engine/agents/agent.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { AcceptanceRow } from '../../src/engine/acceptance.js';
import { reviseCriteria } from '../../src/engine/criteria-command.js';
import type { ConfigErrors } from '../../src/engine/errors.js';
import type { EventOf, LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal, parseGoalCommand, reviseGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { parseSavedPolicy, savedPolicyText } from '../../src/engine/saved-policy.js';
import { Session } from '../../src/engine/session.js';
import { git, gitRepo, tempDir } from '../support/git-workspace.js';

type Call = { id: string; name: string; args: Record<string, unknown> };
type Turn = { tool_calls?: Call[]; final?: string; thought?: string; report?: Record<string, unknown> };

const shell = (id: string, command: string): Turn => ({ tool_calls: [{ id, name: 'shell', args: { command } }] });

/** Three criteria: a signal with a target, a command, and a text that no check can judge. */
const CRITERIA = [
  { text: 'no failing items', check: { signal: 'observed.work.failing', op: '<=', target: 0 } },
  { text: 'the flag file exists', check: { command: 'test -f done.flag' } },
  'the code reads well',
];

function workspace(): string {
  return gitRepo('loopdeck-acceptance-', { 'count.txt': 'failing=3\n' });
}

function policyFor(ws: string, criteria: unknown[], extra: Record<string, unknown> = {}) {
  return parsePolicy(
    stringify({
      goal: { objective: 'finish the work', success_criteria: criteria },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      observe: [{ name: 'work', command: 'cat count.txt', parser: 'regex', pattern: 'failing=(?<failing>\\d+)' }],
      progress: { observed: [{ signal: 'observed.work.failing', direction: 'decrease' }] },
      verify: [{ command: 'true' }],
      hooks: [],
      pattern: 'react',
      checkpoint: { every_iterations: 1 },
      stagnation: { checkpoints_without_observed_progress: 50 },
      budget: { max_iterations: 8 },
      approval: { default: 'allow' },
      ...extra,
    }),
    path.join(ws, 'loop.yaml'),
  );
}

interface Run {
  events: LoopEvent[];
  /** What the agent was sent at each turn. */
  seen: Array<AgentContext['history']>;
  /** acceptance.json as it was when each turn began (after the checkpoint of the turn before). */
  files: Array<{ iteration: number; rows: AcceptanceRow[] } | null>;
  reason: string;
  runDir: string;
  session: Session;
}

/**
 * Runs the scripted `turns`; `atYield(i, session)` runs at the i-th tool question (approval
 * `ask` only) before it is approved; every pause is answered `stop`.
 */
async function run(ws: string, policy: ReturnType<typeof policyFor>, turns: Turn[], atYield?: (i: number, s: Session) => Promise<void>, prior?: LoopEvent[]): Promise<Run> {
  const script = ScriptedAgent.fromYaml(stringify({ turns }));
  const seen: Run['seen'] = [];
  const files: Run['files'] = [];
  const runDir = path.join(tempDir('loopdeck-acceptance-run-'), 'run');
  const file = path.join(runDir, 'acceptance.json');
  const agent = Object.assign(Object.create(script) as ScriptedAgent, {
    nextTurn: (context: AgentContext) => {
      seen.push([...context.history]);
      files.push(existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Run['files'][number]) : null);
      return script.nextTurn(context);
    },
    restore: (done: Parameters<NonNullable<ScriptedAgent['restore']>>[0]) => script.restore(done),
  });
  const events: LoopEvent[] = [...(prior ?? [])];
  let now = 1_700_000_000_000;
  // With `atYield`, every tool call is asked about, so the operator can type between turns.
  const hooks = new HookRegistry();
  if (atYield) hooks.on('before_tool_call', 'ask', () => ({ type: 'pause', prompt: 'run it?' }));
  const session = new Session({ id: 's1', agent, policy, workspace: ws, runDir, hooks, clock: () => (now += 1000), sinks: [(e) => events.push(e)], ...(prior ? { prior } : {}) });
  const gen = prior ? session.resume() : session.run(newGoal(policy.goal.objective, policy.goal.success_criteria, policy.goal.constraints));
  let asked = 0;
  let step = await gen.next();
  while (!step.done) {
    if (step.value.kind === 'tool') {
      await atYield?.(asked++, session);
      step = await gen.next({ decision: 'approve' });
    } else step = await gen.next({ action: 'stop' });
  }
  return { events, seen, files, reason: step.value.reason, runDir, session };
}

const of = <T extends LoopEvent['type']>(events: LoopEvent[], type: T) => events.filter((e): e is EventOf<T> & LoopEvent => e.type === type);
const statuses = (e: EventOf<'acceptance.checked'>) => e.data.rows.map((r) => r.status);

describe('rows follow the workspace, checked by the harness', () => {
  it('PENDING → IN_PROGRESS → DONE as the signal moves toward its target and the command starts passing; then the goal is met', async () => {
    const ws = workspace();
    const r = await run(ws, policyFor(ws, CRITERIA), [
      shell('t1', 'cat count.txt'),
      shell('t2', 'echo failing=1 > count.txt'),
      shell('t3', 'echo failing=0 > count.txt && touch done.flag'),
      { final: 'all done' },
    ]);
    const checks = of(r.events, 'acceptance.checked');
    expect(checks.map((e) => [e.data.trigger, e.data.iteration, ...statuses(e)])).toEqual([
      ['checkpoint', 1, 'PENDING', 'PENDING', 'NOT_CHECKABLE'],
      ['checkpoint', 2, 'IN_PROGRESS', 'PENDING', 'NOT_CHECKABLE'],
      ['checkpoint', 3, 'DONE', 'DONE', 'NOT_CHECKABLE'],
      // The claim of turn 4 is judged first (a pass wins over the checkpoint due then).
      ['verify', 4, 'DONE', 'DONE', 'NOT_CHECKABLE'],
    ]);
    // The evidence: the metric against its target, the command and its exit code.
    expect(checks[1]!.data.rows[0]).toEqual({
      index: 0,
      text: 'no failing items',
      status: 'IN_PROGRESS',
      evidence: { kind: 'signal', signal: 'observed.work.failing', op: '<=', target: 0, value: 1 },
      why: 'moved toward the target: 3 at the first check, 1 now',
    });
    expect(checks[1]!.data.rows[1]).toMatchObject({ status: 'PENDING', evidence: { kind: 'command', command: 'test -f done.flag', exit_code: 1, expect_exit: 0 } });
    expect(checks[2]!.data.rows[1]).toMatchObject({ status: 'DONE', evidence: { kind: 'command', exit_code: 0 } });
    expect(of(r.events, 'verify.result').map((e) => [e.data.passed, e.data.acceptance])).toEqual([[true, { met: true, not_done: [] }]]);
    expect(r.reason).toBe('goal_met');
    // The matrix was frozen at start, with its checks.
    expect(of(r.events, 'session.start')[0]!.data.acceptance).toEqual([
      { text: 'no failing items', check: { signal: 'observed.work.failing', op: '<=', target: 0 } },
      { text: 'the flag file exists', check: { command: 'test -f done.flag', timeout: 120, expect_exit: 0 } },
      { text: 'the code reads well' },
    ]);
  });

  it('a row met once and then broken again is IN_PROGRESS (met before, not now), and the claim of done is refuted', async () => {
    const ws = workspace();
    const r = await run(ws, policyFor(ws, CRITERIA.slice(1), { budget: { max_iterations: 3 } }), [
      shell('t1', 'touch done.flag'),
      shell('t2', 'rm done.flag'),
      { final: 'done' },
    ]);
    expect(of(r.events, 'acceptance.checked').map((e) => [e.data.trigger, ...statuses(e)])).toEqual([
      ['checkpoint', 'DONE', 'NOT_CHECKABLE'],
      ['checkpoint', 'IN_PROGRESS', 'NOT_CHECKABLE'],
      ['verify', 'IN_PROGRESS', 'NOT_CHECKABLE'],
    ]);
    expect(of(r.events, 'acceptance.checked')[1]!.data.rows[0]!.why).toBe('met at an earlier check, not now');
    expect(r.reason).not.toBe('goal_met');
  });
});

describe('BLOCKED: a check that cannot run is never a pass', () => {
  it('a missing command and an unmeasured signal are BLOCKED with why; the goal is not met though verify passes', async () => {
    const ws = workspace();
    const policy = policyFor(
      ws,
      [
        { text: 'the tool agrees', check: { command: 'no-such-checker-xyz --strict' } },
        { text: 'nothing left', check: { signal: 'observed.work.failing', target: 0 } },
      ],
      { budget: { max_iterations: 2 } },
    );
    // The observer's file is gone: nothing is measured (a missing number is not zero).
    const r = await run(ws, policy, [shell('t1', 'rm count.txt'), { final: 'done' }]);
    const checks = of(r.events, 'acceptance.checked');
    expect(checks.map((e) => [e.data.trigger, ...statuses(e)])).toEqual([
      ['checkpoint', 'BLOCKED', 'BLOCKED'],
      ['verify', 'BLOCKED', 'BLOCKED'],
    ]);
    const [command, signal] = checks[0]!.data.rows;
    expect(command).toMatchObject({ why: 'command not found (exit 127)', evidence: { kind: 'command', command: 'no-such-checker-xyz --strict', exit_code: 127 } });
    expect(signal).toMatchObject({ evidence: { kind: 'signal', signal: 'observed.work.failing', value: null, target: 0, op: '==' } });
    expect(signal!.why).toMatch(/^not measured: observer "work" \(cat count\.txt\): /);
    const verdicts = of(r.events, 'verify.result');
    expect(verdicts.map((e) => [e.data.passed, e.data.commands.every((c) => c.passed)])).toEqual([[false, true]]);
    expect(verdicts[0]!.data.acceptance).toEqual({
      met: false,
      not_done: [
        { index: 0, text: 'the tool agrees', status: 'BLOCKED', why: 'command not found (exit 127)' },
        { index: 1, text: 'nothing left', status: 'BLOCKED', why: signal!.why },
      ],
    });
    expect(r.reason).not.toBe('goal_met');
  });

  it('a command past its timeout is BLOCKED, not failed', async () => {
    const ws = workspace();
    const policy = policyFor(ws, [{ text: 'slow check', check: { command: 'sleep 5', timeout: '1s' } }], { budget: { max_iterations: 1 }, observe: [], progress: { observed: [] } });
    const r = await run(ws, policy, [shell('t1', 'true')]);
    expect(of(r.events, 'acceptance.checked')[0]!.data.rows[0]).toMatchObject({ status: 'BLOCKED', why: 'timed out after 1s' });
  });
});

describe('the goal is met only when every checkable row is DONE and verify passes', () => {
  it('a claim of done with a row not DONE goes back to the agent naming the row; the run goes on and ends goal_met once it is DONE', async () => {
    const ws = workspace();
    const r = await run(ws, policyFor(ws, CRITERIA), [
      shell('t1', 'echo failing=0 > count.txt'),
      { final: 'all done' },
      shell('t3', 'touch done.flag'),
      { final: 'now really done' },
    ]);
    const verdicts = of(r.events, 'verify.result');
    expect(verdicts.map((e) => e.data.passed)).toEqual([false, true]);
    expect(verdicts[0]!.data.commands.map((c) => c.passed)).toEqual([true]);
    const note = r.seen[2]!.find((m) => m.role === 'harness');
    expect(note?.content).toBe(
      'Your claim that the goal is met was refuted: these success criteria are not done: #2 "the flag file exists": PENDING (checked: not met); test -f done.flag → exit 1.',
    );
    expect(r.reason).toBe('goal_met');
    expect(of(r.events, 'session.complete')[0]!.data.summary).toBe('now really done');
  });

  it('text-only criteria do not block the goal: rows not checkable (with the claim as reported) in acceptance.json, verify decides', async () => {
    const ws = workspace();
    const claim = { new_evidence: [{ claim: 'the code reads well now', evidence_ref: 'src/' }] };
    const r = await run(ws, policyFor(ws, ['the code reads well']), [{ ...shell('t1', 'true'), report: claim }, { final: 'done' }]);
    expect(of(r.events, 'acceptance.checked')).toEqual([]);
    expect(of(r.events, 'verify.result').map((e) => [e.data.passed, e.data.acceptance])).toEqual([[true, undefined]]);
    expect(r.reason).toBe('goal_met');
    const rows = [{ index: 0, text: 'the code reads well', status: 'NOT_CHECKABLE', reported: 'the code reads well now (src/)' }];
    expect(r.files[1]).toEqual({ session: 's1', iteration: 1, trigger: 'checkpoint', revision: 0, met: true, rows });
    expect(fold(r.events).acceptance.rows).toEqual(rows);
  });
});

describe('the agent cannot change a row', () => {
  it('its claim about a criterion is shown as reported; the status stays what the check says', async () => {
    const ws = workspace();
    const claims = {
      new_evidence: [
        { claim: 'criterion 2 is met: I created the flag', evidence_ref: 'done.flag' },
        { claim: 'The code reads well now', evidence_ref: 'src/' },
        { claim: 'no failing items remain', evidence_ref: 'count.txt' },
      ],
    };
    const r = await run(ws, policyFor(ws, CRITERIA, { budget: { max_iterations: 2 } }), [{ ...shell('t1', 'true'), report: claims }, { final: 'done', report: claims }]);
    const first = of(r.events, 'acceptance.checked')[0]!;
    expect(first.data.rows.map((row) => [row.status, row.reported])).toEqual([
      ['PENDING', 'no failing items remain (count.txt)'],
      ['PENDING', 'criterion 2 is met: I created the flag (done.flag)'],
      ['NOT_CHECKABLE', 'The code reads well now (src/)'],
    ]);
    expect(of(r.events, 'verify.result')[0]!.data.passed).toBe(false);
    expect(r.reason).not.toBe('goal_met');
    // The agent has no way to add a row: the matrix is the one frozen at start.
    expect(fold(r.events).acceptance.criteria.map((c) => c.text)).toEqual(['no failing items', 'the flag file exists', 'the code reads well']);
  });
});

describe('only the operator changes the matrix, through /goal', () => {
  const askPolicy = (ws: string, extra: Record<string, unknown> = {}) => policyFor(ws, CRITERIA, extra);

  it('/goal redirect with criteria replaces the rows with those typed (checks included), recorded in goal.revised', async () => {
    const ws = workspace();
    const r = await run(
      ws,
      askPolicy(ws),
      [shell('t1', 'touch done.flag'), shell('t2', 'touch other.txt'), { final: 'done' }],
      async (i, s) => {
        if (i !== 1) return;
        const answer = await s.command('/goal redirect ship the flag only --criterion the flag file exists --check test -f done.flag --criterion items at most 5 --signal observed.work.failing <= 5');
        expect(answer).toEqual({ ok: true, message: 'goal revised (redirect): revision 1' });
      },
    );
    const revised = of(r.events, 'goal.revised')[0]!.data;
    expect(revised.goal.objective).toBe('ship the flag only');
    expect(revised.goal.success_criteria).toEqual(['the flag file exists', 'items at most 5']);
    expect(revised.acceptance).toEqual([
      { text: 'the flag file exists', check: { command: 'test -f done.flag', timeout: 120, expect_exit: 0 } },
      { text: 'items at most 5', check: { signal: 'observed.work.failing', op: '<=', target: 5 } },
    ]);
    const checks = of(r.events, 'acceptance.checked');
    expect(checks.map((e) => e.data.rows.map((row) => `${row.text}: ${row.status}`))).toEqual([
      ['no failing items: PENDING', 'the flag file exists: DONE', 'the code reads well: NOT_CHECKABLE'],
      ['the flag file exists: DONE', 'items at most 5: DONE'],
      ['the flag file exists: DONE', 'items at most 5: DONE'],
    ]);
    expect(r.reason).toBe('goal_met');
  });

  it('/goal redirect without criteria keeps the matrix and its rows; /goal add-criterion appends a checked row', async () => {
    const ws = workspace();
    const r = await run(ws, askPolicy(ws, { budget: { max_iterations: 3 } }), [shell('t1', 'touch done.flag'), shell('t2', 'touch other.txt'), { final: 'done' }], async (i, s) => {
      if (i !== 1) return;
      expect((await s.command('/goal redirect focus on the flag')).ok).toBe(true);
      expect((await s.command('/goal add-criterion a readme exists --check test -f README.md')).ok).toBe(true);
      // A typed check that cannot be read, or a signal no observer gives, is refused: nothing is recorded.
      expect(await s.command('/goal add-criterion fast --signal observed.work.speed >= 3')).toEqual({
        ok: false,
        message: 'criterion "fast": expected one of observed.work.failing, found "observed.work.speed"',
      });
      expect(await s.command('/goal add-criterion fast --signal quickly')).toEqual({
        ok: false,
        message: 'expected --signal observed.<name>.<metric> [==|>=|<=] <number> (criterion "fast"), found "quickly"',
      });
    });
    const revised = of(r.events, 'goal.revised').map((e) => e.data);
    expect(revised.map((d) => d.revision.directive)).toEqual(['redirect', 'add-criterion']);
    expect(revised[0]!.goal.success_criteria).toEqual(['no failing items', 'the flag file exists', 'the code reads well']);
    expect(revised[1]!.acceptance?.map((c) => c.text)).toEqual(['no failing items', 'the flag file exists', 'the code reads well', 'a readme exists']);
    // Right after the revisions, before any new check, the kept rows keep their status.
    const cut = r.events.findIndex((e) => e.type === 'goal.revised' && e.data.revision.directive === 'add-criterion');
    expect(fold(r.events.slice(0, cut + 1)).acceptance.rows.map((row) => row.status)).toEqual(['PENDING', 'DONE', 'NOT_CHECKABLE', 'PENDING']);
    expect(statuses(of(r.events, 'acceptance.checked').at(-1)!)).toEqual(['PENDING', 'DONE', 'NOT_CHECKABLE', 'PENDING']);
  });
});

describe('acceptance.json and the log', () => {
  it('acceptance.json is written at each checkpoint with the rows as checked', async () => {
    const ws = workspace();
    const r = await run(ws, policyFor(ws, CRITERIA), [shell('t1', 'true'), shell('t2', 'echo failing=2 > count.txt'), shell('t3', 'echo failing=0 > count.txt && touch done.flag'), { final: 'done' }]);
    expect(r.files.map((f) => (f ? [f.iteration, ...f.rows.map((row) => row.status)] : null))).toEqual([
      null,
      [1, 'PENDING', 'PENDING', 'NOT_CHECKABLE'],
      [2, 'IN_PROGRESS', 'PENDING', 'NOT_CHECKABLE'],
      [3, 'DONE', 'DONE', 'NOT_CHECKABLE'],
    ]);
    const last = JSON.parse(readFileSync(path.join(r.runDir, 'acceptance.json'), 'utf8'));
    expect(last).toMatchObject({ session: 's1', trigger: 'verify', met: true, revision: 0 });
  });

  it('replay folds the same matrix as the live run, and a resumed run derives its rows from the log (IN_PROGRESS needs the first value it recorded)', async () => {
    const ws = workspace();
    const turns: Turn[] = [shell('t1', 'true'), shell('t2', 'echo failing=1 > count.txt'), { final: 'done' }];
    const live = await run(ws, policyFor(ws, CRITERIA, { budget: { max_iterations: 3 } }), turns);
    expect(fold(live.events).acceptance).toEqual(live.session.snapshot.acceptance);

    // The same run cut right after its first checked matrix, and resumed in a new process.
    git(ws, 'checkout', '--', 'count.txt');
    const cut = live.events.findIndex((e) => e.type === 'acceptance.checked');
    const prior = live.events.slice(0, cut + 1);
    const resumed = await run(ws, policyFor(ws, CRITERIA, { budget: { max_iterations: 3 } }), turns, undefined, prior);
    const after = of(resumed.events.slice(prior.length), 'acceptance.checked');
    expect(after.map((e) => [e.data.iteration, ...statuses(e)])).toEqual([
      [2, 'IN_PROGRESS', 'PENDING', 'NOT_CHECKABLE'],
      [3, 'IN_PROGRESS', 'PENDING', 'NOT_CHECKABLE'],
    ]);
    expect(fold(resumed.events).acceptance).toEqual(resumed.session.snapshot.acceptance);
  });
});

describe('loop.yaml: criteria with checks', () => {
  const bad = (criteria: unknown[]) => {
    const ws = tempDir('loopdeck-acceptance-yaml-');
    try {
      policyFor(ws, criteria);
    } catch (error) {
      return (error as ConfigErrors).errors.map((e) => e.message);
    }
    return [];
  };

  it('a text criterion is read as before; a check is read with its defaults', () => {
    const ws = tempDir('loopdeck-acceptance-yaml-');
    expect(policyFor(ws, CRITERIA).goal.success_criteria).toEqual([
      { text: 'no failing items', check: { signal: 'observed.work.failing', op: '<=', target: 0 } },
      { text: 'the flag file exists', check: { command: 'test -f done.flag', timeout: 120, expect_exit: 0 } },
      'the code reads well',
    ]);
  });

  it('the run\'s saved policy (what resume reads) gives back the same criteria and checks', () => {
    const ws = tempDir('loopdeck-acceptance-yaml-');
    writeFileSync(path.join(ws, 'x.yaml'), 'turns: []\n');
    const policy = policyFor(ws, [...CRITERIA, { text: 'slow', check: { command: 'make bench', timeout: '5m', expect_exit: 3 } }]);
    expect(parseSavedPolicy(savedPolicyText(policy), path.join(ws, 'loop.yaml')).goal.success_criteria).toEqual(policy.goal.success_criteria);
    expect(policy.goal.success_criteria[3]).toEqual({ text: 'slow', check: { command: 'make bench', timeout: 300, expect_exit: 3 } });
  });

  it.each<[string, unknown, string]>([
    ['a signal no observer gives', { text: 'x', check: { signal: 'observed.work.failed', target: 0 } }, 'goal.success_criteria[0].check.signal: expected one of observed.work.failing, found "observed.work.failed"; did you mean "observed.work.failing"?'],
    ['a target that is not a number', { text: 'x', check: { signal: 'observed.work.failing', target: 'zero' } }, 'goal.success_criteria[0].check.target: expected a number, found "zero"'],
    ['an unknown operator', { text: 'x', check: { signal: 'observed.work.failing', target: 0, op: '<' } }, 'goal.success_criteria[0].check.op: expected one of ==, >=, <=, found "<"'],
    ['a check of neither kind', { text: 'x', check: { run: 'npm test' } }, 'goal.success_criteria[0].check: expected command or signal, found neither (only run)'],
    ["the shell's own exit code", { text: 'x', check: { command: 'x', expect_exit: 127 } }, 'goal.success_criteria[0].check.expect_exit: expected an exit code from 0 to 125 (126 and 127 are the shell\'s own: the command could not run), found 127'],
    ['a criterion without text', { check: { command: 'true' } }, 'goal.success_criteria[0].text: expected a string, found nothing'],
  ])('%s is refused naming the path and what was expected', (_name, criterion, message) => {
    const errors = bad([criterion]);
    expect(errors.some((e) => /loop\.yaml:\d+:\d+: /.test(e) && e.includes(message)), errors.join('\n')).toBe(true);
  });
});

describe('criteria typed in /goal', () => {
  it.each<[string, string]>([
    ['/goal redirect --criterion tests pass', '/goal redirect needs the new objective before --criterion'],
    ['/goal redirect fix it --criterion', 'a criterion needs text before its check, found ""'],
    ['/goal redirect fix it --criterion --check npm test', 'a criterion needs text before its check, found "--check npm test"'],
    ['/goal add-criterion tests pass --check', '--check needs a command, e.g. --check npm test (criterion "tests pass")'],
    ['/goal add-criterion none left --signal observed.work.failing', 'expected --signal observed.<name>.<metric> [==|>=|<=] <number> (criterion "none left"), found "observed.work.failing"'],
    ['/goal add-criterion none left --signal observed.work.failing < 1', 'expected --signal observed.<name>.<metric> [==|>=|<=] <number> (criterion "none left"), found "observed.work.failing < 1"'],
    ['/goal add-criterion none left --signal tests.failing <= 0', 'expected --signal observed.<name>.<metric> [==|>=|<=] <number> (criterion "none left"), found "tests.failing <= 0"'],
  ])('%s is refused: %s', (line, message) => {
    expect(parseGoalCommand(line)).toEqual({ kind: 'error', message });
  });

  it('a check may hold any shell text; a signal takes an optional operator (== by default) and a signed number', () => {
    expect(parseGoalCommand('/goal add-criterion lint is clean --check npm run lint -- --max-warnings=0 && echo ok')).toEqual({
      kind: 'revise',
      directive: 'add-criterion',
      text: 'lint is clean --check npm run lint -- --max-warnings=0 && echo ok',
    });
    const goal = newGoal('x', ['a']);
    expect(reviseGoal(goal, 'add-criterion', 'lint is clean --check npm run lint -- --max-warnings=0 && echo ok').success_criteria).toEqual(['a', 'lint is clean']);
    expect(reviseCriteria([{ text: 'a' }], 'add-criterion', 'drift --signal observed.work.failing -1.5')).toEqual({
      ok: true,
      criteria: [{ text: 'a' }, { text: 'drift', check: { signal: 'observed.work.failing', op: '==', target: -1.5 } }],
    });
    // Only redirect and add-criterion read criteria: a modify's text is the objective as typed.
    expect(reviseGoal(goal, 'modify', 'keep --criterion as plain text')).toMatchObject({ objective: 'keep --criterion as plain text', success_criteria: ['a'] });
  });
});
