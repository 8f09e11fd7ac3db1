// A test module that cannot be loaded when the run begins (pytest's collection error, an
// import error under node --test) is one failing target standing for the tests it holds
// (docs/design.md, "Target tests"): the honest fix that makes it load, with its tests
// passing, meets the goal; a test of it still failing does not. Real pytest and node --test
// in real git workspaces, the scripted agent.
import path from 'node:path';
import { execaSync } from 'execa';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import type { EventOf, LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { gitRepo, tempDir } from '../support/git-workspace.js';

const hasPytest = execaSync('python3', ['-m', 'pytest', '--version'], { reject: false }).exitCode === 0;

const TESTS = 'from greeting import greet\n\n\ndef test_hello():\n    assert greet("Ada") == "Hello Ada"\n\n\nclass TestShout:\n    def test_shout(self):\n        assert greet("Ada").upper() == "HELLO ADA"\n';
const OTHER = 'def test_other():\n    assert 1 + 1 == 2\n';
const PYTEST = 'python3 -m pytest -q -p no:cacheprovider';

interface Project {
  files: Record<string, string>;
  observe: Record<string, unknown>;
  verify: string;
  /** The file the agent writes to make the tests load. */
  fixes: string;
}

const PYTEST_PROJECT: Project = {
  files: { 'tests/test_greeting.py': TESTS, 'tests/test_other.py': OTHER },
  observe: { name: 'tests', command: `${PYTEST} --junitxml=report.xml`, parser: 'junit', report_file: 'report.xml' },
  verify: PYTEST,
  fixes: 'greeting.py',
};

const NODE_PROJECT: Project = {
  files: {
    'package.json': '{ "type": "module" }\n',
    'greet.test.mjs': "import assert from 'node:assert/strict';\nimport test from 'node:test';\nimport { greet } from './greeting.mjs';\ntest('greets', () => assert.equal(greet('Ada'), 'Hello Ada'));\n",
    'other.test.mjs': "import test from 'node:test';\ntest('other', () => {});\n",
  },
  observe: { name: 'tests', command: 'node --test --test-reporter=tap', parser: 'tap' },
  verify: 'node --test',
  fixes: 'greeting.mjs',
};

async function run(fix: string, project: Project = PYTEST_PROJECT): Promise<{ reason: string; verdict: EventOf<'verify.result'>['data'] }> {
  const ws = gitRepo('loopdeck-load-error-', project.files);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'the greeting tests pass', success_criteria: ['every test passes'] },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      observe: [project.observe],
      verify: [{ command: project.verify }],
      pattern: 'react',
      checkpoint: { every_iterations: 1 },
      budget: { max_iterations: 4 },
      approval: { default: 'allow' },
    }),
    path.join(ws, 'loop.yaml'),
  );
  const turns = [{ tool_calls: [{ id: 'c1', name: 'write_file', args: { path: project.fixes, content: fix } }] }, { final: 'All tests pass.' }];
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({
    id: 's1',
    agent: ScriptedAgent.fromYaml(stringify({ turns })),
    policy,
    workspace: ws,
    runDir: path.join(tempDir('loopdeck-load-error-run-'), 'run'),
    hooks: new HookRegistry(),
    clock: () => (now += 1000),
    sinks: [(e) => events.push(e)],
  });
  const gen = session.run(newGoal(policy.goal.objective, policy.goal.success_criteria, policy.goal.constraints));
  let step = await gen.next();
  while (!step.done) step = await gen.next(step.value.kind === 'tool' ? { decision: 'approve' } : { action: 'stop' });
  const verdict = events.find((e): e is EventOf<'verify.result'> & LoopEvent => e.type === 'verify.result')!.data;
  return { reason: step.value.reason, verdict };
}

describe.skipIf(!hasPytest)('a test module that pytest cannot collect when the run begins', () => {
  it('made to load with every test of it passing: the goal is met', async () => {
    const r = await run('def greet(name):\n    return f"Hello {name}"\n');
    expect(r.verdict.targets).toEqual([{ observer: 'tests', of: 1, passing: 1, not_passing: [], not_passing_count: 0 }]);
    expect(r.reason).toBe('goal_met');
  }, 60_000);

  it('made to load with a test of it failing (in a class of it): no pass, naming the module', async () => {
    const r = await run('def greet(name):\n    return f"Hello {name}!"\n');
    expect(r.verdict.passed).toBe(false);
    expect(r.verdict.targets).toEqual([{ observer: 'tests', of: 1, passing: 0, not_passing: [{ name: 'tests.test_greeting', now: 'failing' }], not_passing_count: 1 }]);
    expect(r.reason).not.toBe('goal_met');
  }, 60_000);
});

describe('a test file that node --test cannot load when the run begins', () => {
  it('made to load with its test passing: the goal is met', async () => {
    const r = await run('export const greet = (name) => `Hello ${name}`;\n', NODE_PROJECT);
    expect(r.verdict.targets).toEqual([{ observer: 'tests', of: 2, passing: 2, not_passing: [], not_passing_count: 0 }]);
    expect(r.reason).toBe('goal_met');
  }, 60_000);

  it('made to load with its test failing: no pass, naming the file', async () => {
    const r = await run('export const greet = (name) => `hello ${name}`;\n', NODE_PROJECT);
    expect(r.verdict.passed).toBe(false);
    expect(r.verdict.targets![0]).toMatchObject({ passing: 1, not_passing: [{ name: expect.stringMatching(/greet\.test\.mjs$/), now: 'failing' }] });
    expect(r.reason).not.toBe('goal_met');
  }, 60_000);
});
