// A verdict is measured, not claimed (docs/design.md, "Target tests" and "The end of a
// turn"): a verify command that passes while a target test is failing, deleted, skipped or
// no longer measured is no pass, and a criterion on a test count reads the frozen target
// set; a test file that cannot be loaded when the run begins stands for its tests once it
// loads. Real git workspaces in temp dirs, real `node --test` and pytest runs, the
// scripted agent.
import path from 'node:path';
import { execaSync } from 'execa';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { EventOf, LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { newGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { NOT_PASSING_SHOWN, targetsNotPassing, targetsHold, targetVerdicts, verdictMetrics, type TargetState } from '../../src/engine/target-tests.js';
import { gitRepo, tempDir } from '../support/git-workspace.js';

type Call = { id: string; name: string; args: Record<string, unknown> };
type Turn = { tool_calls?: Call[]; final?: string; thought?: string };

const shell = (id: string, command: string): Turn => ({ tool_calls: [{ id, name: 'shell', args: { command } }] });
const write = (id: string, file: string, content: string): Turn => ({ tool_calls: [{ id, name: 'write_file', args: { path: file, content } }] });

const CODE = 'export const greet = (name) => `hello ${name}`;\nexport const shout = (name) => `${name.toUpperCase()}!`;\n';
const FIXED = CODE.replace('`hello ', '`Hello ');
const TESTS = (greetOptions = '') =>
  "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { greet } from './greet.mjs';\n" +
  `test('greet says Hello', ${greetOptions}() => assert.equal(greet('Ada'), 'Hello Ada'));\n`;
const SHOUT_TESTS = "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { shout } from './greet.mjs';\ntest('shout shouts', () => assert.equal(shout('Ada'), 'ADA!'));\n";

/** A project of two tests in two files, `greet says Hello` failing; the observer runs them through `run-tests.sh`. */
function project(files: Record<string, string> = { 'greet.mjs': CODE, 'greet.test.mjs': TESTS(), 'shout.test.mjs': SHOUT_TESTS }): string {
  return gitRepo('loopdeck-verify-targets-', { 'run-tests.sh': 'node --test --test-reporter=tap\n', ...files });
}

function policyFor(ws: string, over: Record<string, unknown> = {}) {
  return parsePolicy(
    stringify({
      goal: { objective: 'greet says Hello with a capital H', success_criteria: ['every test passes'] },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      observe: [{ name: 'tests', command: 'sh run-tests.sh', parser: 'tap' }],
      progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }] },
      verify: [{ command: 'node --test' }],
      pattern: 'react',
      checkpoint: { every_iterations: 1 },
      stagnation: { checkpoints_without_observed_progress: 50 },
      budget: { max_iterations: 4 },
      approval: { default: 'allow' },
      ...over,
    }),
    path.join(ws, 'loop.yaml'),
  );
}

interface Run {
  events: LoopEvent[];
  reason: string;
  verdicts: Array<EventOf<'verify.result'>['data']>;
}

/** Runs the scripted `turns` to their end; every pause is answered `stop`. */
async function run(ws: string, turns: Turn[], over?: Record<string, unknown>): Promise<Run> {
  const policy = policyFor(ws, over);
  const agent = ScriptedAgent.fromYaml(stringify({ turns }));
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const runDir = path.join(tempDir('loopdeck-verify-targets-run-'), 'run');
  const session = new Session({ id: 's1', agent, policy, workspace: ws, runDir, hooks: new HookRegistry(), clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
  const gen = session.run(newGoal(policy.goal.objective, policy.goal.success_criteria, policy.goal.constraints));
  let step = await gen.next();
  while (!step.done) step = await gen.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'stop' });
  const verdicts = events.filter((e): e is EventOf<'verify.result'> & LoopEvent => e.type === 'verify.result').map((e) => e.data);
  return { events, reason: step.value.reason, verdicts };
}

/** What the agent was told after its claim was refuted. */
const told = (events: LoopEvent[]) => fold(events).history.filter((m) => m.role === 'harness').map((m) => m.content);

describe('a verify command that passes without every target test passing is no pass', () => {
  // Each way an agent can make `node --test` exit 0 without fixing the failing test.
  it.each<[string, Turn, 'gone' | 'skipped']>([
    ['the failing test file deleted', shell('c1', 'rm greet.test.mjs'), 'gone'],
    ['the failing test renamed', write('c1', 'greet.test.mjs', TESTS().replace("'greet says Hello'", "'greet says hello'").replace("'Hello Ada'", "'hello Ada'")), 'gone'],
    ['the failing test skipped', write('c1', 'greet.test.mjs', TESTS('{ skip: true }, ')), 'skipped'],
    ['the failing test marked todo', write('c1', 'greet.test.mjs', TESTS('{ todo: true }, ')), 'skipped'],
  ])('%s: the claim is refuted, naming the test; the run does not end goal_met', async (_name, hack, now) => {
    const r = await run(project(), [hack, { final: 'All tests pass.' }]);
    expect(r.reason).not.toBe('goal_met');
    const claim = r.verdicts[0]!;
    expect(claim.commands.every((c) => c.passed)).toBe(true);
    expect(claim.passed).toBe(false);
    expect(claim.targets).toEqual([{ observer: 'tests', of: 2, passing: 1, not_passing: [{ name: 'greet says Hello', now }], not_passing_count: 1 }]);
    expect(told(r.events).join('\n')).toContain(`1 of the 2 target tests of observer "tests" do not pass: "greet says Hello" (${now}) (every test that ran when the run began must pass`);
  });

  it('the verify command weakened (npm test filtered to the passing test): the failing target test is measured failing, and that is no pass', async () => {
    const ws = project({ 'greet.mjs': CODE, 'greet.test.mjs': TESTS(), 'shout.test.mjs': SHOUT_TESTS, 'package.json': '{"type":"module","scripts":{"test":"node --test"}}\n' });
    const filtered = '{"type":"module","scripts":{"test":"node --test --test-name-pattern=shout"}}\n';
    const r = await run(ws, [write('c1', 'package.json', filtered), { final: 'npm test passes.' }], { verify: [{ command: 'npm test --silent' }] });
    expect(r.reason).not.toBe('goal_met');
    expect(r.verdicts[0]).toMatchObject({ passed: false, commands: [{ passed: true }], targets: [{ of: 2, passing: 1, not_passing: [{ name: 'greet says Hello', now: 'failing' }], not_passing_count: 1 }] });
  });

  it('the measuring script replaced: the target tests cannot be measured, and that is no pass either', async () => {
    const r = await run(project(), [write('c1', 'run-tests.sh', 'echo all good\n'), { final: 'All tests pass.' }]);
    expect(r.reason).not.toBe('goal_met');
    expect(r.verdicts[0]).toMatchObject({ passed: false, targets: [{ observer: 'tests', of: 2, passing: null, not_passing_count: 0, unmeasured: expect.stringMatching(/./) }] });
    expect(told(r.events).join('\n')).toContain('the target tests of observer "tests" could not be measured');
  });

  it('the code fixed: every target test ran, and the goal is met', async () => {
    const r = await run(project(), [write('c1', 'greet.mjs', FIXED), { final: 'All tests pass.' }]);
    expect(r.reason).toBe('goal_met');
    expect(r.verdicts.at(-1)).toMatchObject({ passed: true, targets: [{ observer: 'tests', of: 2, passing: 2, not_passing: [], not_passing_count: 0 }] });
  });

  it('a test added beside the fixed one changes nothing: only the target set is asked for', async () => {
    const extra = "\ntest('a new test', () => {});\n";
    const r = await run(project(), [write('c1', 'greet.mjs', FIXED), write('c2', 'extra.test.mjs', `import test from 'node:test';${extra}`), { final: 'done' }]);
    expect(r.reason).toBe('goal_met');
    expect(r.verdicts.at(-1)!.targets).toEqual([{ observer: 'tests', of: 2, passing: 2, not_passing: [], not_passing_count: 0 }]);
  });
});

// A test module that cannot be loaded when the run begins (an import error, pytest's
// collection error) is one failing target standing for the tests it holds: the honest fix
// that makes it load, with its tests passing, meets the goal; a test of it failing does not.
describe('a test file that cannot be loaded when the run begins', () => {
  const loads = (file: string, content: string): Turn[] => [write('c1', file, content), { final: 'All tests pass.' }];

  describe('node --test', () => {
    const nodeProject = () =>
      project({
        'package.json': '{ "type": "module" }\n',
        'greet.test.mjs': TESTS().replace("'./greet.mjs'", "'./greeting.mjs'"),
        'shout.test.mjs': SHOUT_TESTS,
        'greet.mjs': CODE,
      });

    // node's TAP does not say which file a passing test is from, so nothing can stand in for the file:
    // deleting it and adding a trivial test must not pass (nor, for want of a way to tell, does the honest fix).
    it('deleted, and a trivial test added in another file: no pass', async () => {
      const r = await run(nodeProject(), [shell('c1', 'rm greet.test.mjs'), write('c2', 'trivial.test.mjs', "import test from 'node:test';\ntest('trivial', () => {});\n"), { final: 'All tests pass.' }]);
      expect(r.verdicts[0]).toMatchObject({ passed: false, targets: [{ of: 2, passing: 1, not_passing: [{ name: expect.stringMatching(/greet\.test\.mjs$/), now: 'gone' }] }] });
      expect(r.reason).not.toBe('goal_met');
    });
  });

  const hasPytest = execaSync('python3', ['-m', 'pytest', '--version'], { reject: false }).exitCode === 0;
  describe.skipIf(!hasPytest)('pytest', () => {
    const PYTEST = 'python3 -m pytest -q -p no:cacheprovider';
    const PYTEST_TESTS = 'from greeting import greet\n\n\ndef test_hello():\n    assert greet("Ada") == "Hello Ada"\n\n\nclass TestShout:\n    def test_shout(self):\n        assert greet("Ada").upper() == "HELLO ADA"\n';
    const pytestProject = () => gitRepo('loopdeck-verify-targets-', { 'tests/test_greeting.py': PYTEST_TESTS, 'tests/test_other.py': 'def test_other():\n    assert 1 + 1 == 2\n' });
    const over = { observe: [{ name: 'tests', command: `${PYTEST} --junitxml=report.xml`, parser: 'junit', report_file: 'report.xml' }], verify: [{ command: PYTEST }] };

    it('made to load with every test of it passing: the goal is met', async () => {
      const r = await run(pytestProject(), loads('greeting.py', 'def greet(name):\n    return f"Hello {name}"\n'), over);
      expect(r.verdicts.at(-1)!.targets).toEqual([{ observer: 'tests', of: 1, passing: 1, not_passing: [], not_passing_count: 0 }]);
      expect(r.reason).toBe('goal_met');
    });

    it('made to load with a test of it failing (in a class of it): no pass, naming the module', async () => {
      const r = await run(pytestProject(), loads('greeting.py', 'def greet(name):\n    return f"Hello {name}!"\n'), over);
      expect(r.verdicts[0]).toMatchObject({ passed: false, targets: [{ of: 1, passing: 0, not_passing: [{ name: 'tests.test_greeting', now: 'failing' }] }] });
      expect(r.reason).not.toBe('goal_met');
    });
  });
});

describe('a criterion on a test count reads the target set', () => {
  const criteria = [{ text: 'no failing test', check: { signal: 'observed.tests.failing', op: '<=', target: 0 } }];

  it('the failing test deleted: "observed.tests.failing <= 0" is not done (the deleted test still counts as not passing)', async () => {
    const r = await run(project(), [shell('c1', 'rm greet.test.mjs'), { final: 'done' }], { goal: { objective: 'fix it', success_criteria: criteria } });
    expect(r.reason).not.toBe('goal_met');
    expect(r.verdicts[0]!.acceptance).toEqual({ met: false, not_done: [{ index: 0, text: 'no failing test', status: 'PENDING', why: 'checked: not met' }] });
  });

  it('no test at all (nothing frozen, tests.total 0): the row is BLOCKED, saying no test ran, and the goal is not met', async () => {
    const ws = project({ 'greet.mjs': CODE });
    const r = await run(ws, [{ final: 'Nothing fails.' }], { goal: { objective: 'fix it', success_criteria: criteria } });
    expect(r.reason).not.toBe('goal_met');
    const claim = r.verdicts[0]!;
    expect(claim.commands.every((c) => c.passed)).toBe(true);
    expect(claim.targets).toBeUndefined();
    expect(claim.acceptance?.not_done).toEqual([
      { index: 0, text: 'no failing test', status: 'BLOCKED', why: 'not measured: no test of observer "tests" ran (tests.total = 0): no failing test out of none is not a pass' },
    ]);
  });
});

describe('targetVerdicts and verdictMetrics: what a verdict reads of the frozen sets', () => {
  const set = (observer: string, names: string[]): TargetState => ({ observer, frozen_at: 0, last: names.map((n): [string, 'failing'] => [n, 'failing']) });
  const ran = (observer: string, names: string[], ok = true) => names.map((name) => ({ name, ok, observer }));

  it('names the first 20 target tests not passing and counts them all; a name run twice is failing if either run fails', () => {
    const names = Array.from({ length: 30 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    const input = { observed: { 'tests.failing': 1, 'tests.total': 5 }, tests: [...ran('tests', names.slice(0, 5)), ...ran('tests', ['t00'], false)], skipped_tests: [{ name: 't05', observer: 'tests' }] };
    const [verdict] = targetVerdicts([set('tests', names)], input, ['tests']);
    expect(verdict).toMatchObject({ observer: 'tests', of: 30, passing: 4, not_passing_count: 26 });
    expect(verdict!.not_passing).toHaveLength(NOT_PASSING_SHOWN);
    expect(verdict!.not_passing.slice(0, 3)).toEqual([{ name: 't00', now: 'failing' }, { name: 't05', now: 'skipped' }, { name: 't06', now: 'gone' }]);
    expect(targetsNotPassing(verdict!)).toMatch(/^26 of the 30 target tests of observer "tests" do not pass: "t00" \(failing\), "t05" \(skipped\), "t06" \(gone\), .*, and 6 more$/);
    expect(targetsHold([verdict!])).toBe(false);
  });

  it('an observer that gave no report is unmeasured, with its failure; one no longer in loop.yaml is not asked for', () => {
    const input = { observed: { 'tests.failing': null, 'tests.total': null } };
    const verdicts = targetVerdicts([set('tests', ['a']), set('old', ['b'])], input, ['tests'], { tests: 'command not found (exit 127)' });
    expect(verdicts).toEqual([{ observer: 'tests', of: 1, passing: null, not_passing: [], not_passing_count: 0, unmeasured: 'command not found (exit 127)' }]);
    expect(targetsHold(verdicts)).toBe(false);
    expect(targetsHold([])).toBe(true);
  });

  it('test counts of a followed observer are counted over its set; an observer with no set and no test has no failing count', () => {
    const input = { observed: { 'tests.failing': 0, 'tests.passing': 3, 'tests.total': 3, 'lint.failing': 0, 'lint.total': 0, 'size.kb': 0 }, tests: ran('tests', ['a', 'x', 'y']) };
    const { metrics, unmeasured } = verdictMetrics([set('tests', ['a', 'b'])], input);
    expect(metrics).toEqual({ 'tests.failing': 1, 'tests.passing': 1, 'tests.total': 1, 'lint.failing': null, 'lint.total': 0, 'size.kb': 0 });
    expect(unmeasured).toEqual({ 'observed.lint.failing': 'no test of observer "lint" ran (lint.total = 0): no failing test out of none is not a pass' });
  });
});
