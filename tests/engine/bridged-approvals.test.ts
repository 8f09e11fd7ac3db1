// A CLI agent's calls through the run's real socket decided like loopdeck's own: the
// approval rules, the workspace checks, the operator's yield with "always allow", and
// headless answers by policy. The run is prepared as `loopdeck run` prepares it (its
// socket, the per-run settings file, the command agent); the agent is a fake Claude Code
// whose hook runs the built `node dist/cli.js bridge` (needs `npm run build`).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { offeredRules } from '../../src/engine/approval/always-allow.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { parsePolicy } from '../../src/engine/policy.js';
import type { LoopYield, ResumePayload } from '../../src/engine/session.js';
import { prepareRun, type PreparedRun } from '../../src/launch.js';
import { fold } from '../../src/engine/fold.js';
import { recover } from '../../src/engine/run/recover.js';

const root = path.resolve(import.meta.dirname, '../..');
let dir: string;
let prepared: PreparedRun | null = null;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ld-bridged-'));
  mkdirSync(path.join(dir, '.git'));
  writeFileSync(path.join(dir, '.git/config'), '[core]\n');
  copyFileSync(path.join(root, 'tests/fixtures/bridge/fake-claude.mjs'), path.join(dir, 'fake-claude.mjs'));
});
afterEach(async () => {
  await prepared?.dispose();
  prepared?.log.close();
  prepared = null;
  rmSync(dir, { recursive: true, force: true });
});

interface Call {
  id: string;
  command?: string;
  tool?: string;
  input?: Record<string, unknown>;
  hookFirst?: boolean;
}

async function run(calls: Call[], approval: string, answer: (y: LoopYield) => ResumePayload): Promise<{ events: LoopEvent[]; heard: Array<{ id: string; answer: { permissionDecision: string; permissionDecisionReason: string } }>; yields: LoopYield[] }> {
  writeFileSync(path.join(dir, 'calls.json'), JSON.stringify(calls));
  const yaml = [
    'goal: { objective: do the calls }',
    'agent: { kind: command, command: node fake-claude.mjs, output: claude-stream-json, timeout: 60s }',
    'workspace: { path: ., copy: none }',
    'verify: [{ command: "true" }]',
    `approval: ${approval}`,
  ].join('\n');
  writeFileSync(path.join(dir, 'loop.yaml'), yaml);
  prepared = await prepareRun(parsePolicy(yaml, path.join(dir, 'loop.yaml')), { cwd: dir });
  const events: LoopEvent[] = [];
  prepared.session.subscribe((e) => events.push(e));
  const yields: LoopYield[] = [];
  const outcome = await drive(prepared.session.run(prepared.goal), (y) => {
    yields.push(structuredClone(y));
    return answer(y);
  });
  expect(outcome.reason, JSON.stringify(events.filter((e) => e.type === 'agent.notice' || e.type === 'step.end'))).toBe('goal_met');
  const heard = readFileSync(path.join(dir, 'fake-claude.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  return { events, heard, yields };
}

const of = <T extends LoopEvent['type']>(events: LoopEvent[], type: T) => events.filter((e) => e.type === type) as Array<Extract<LoopEvent, { type: T }>>;

it('the approval rules decide without asking: an allow rule runs, a deny rule refuses; each call is one tool.call', async () => {
  const { events, heard, yields } = await run(
    [
      { id: 'toolu_a', command: 'echo hi > hi.txt' },
      { id: 'toolu_b', command: 'rm -rf src', hookFirst: true },
      { id: 'toolu_c', command: 'ls -a' },
    ],
    "{ default: ask, allow: ['shell-exact: echo hi > hi.txt', 'shell: ls'], deny: ['shell: rm'] }",
    () => {
      throw new Error('nobody should be asked');
    },
  );
  expect(yields).toEqual([]);
  expect(heard.map((h) => h.answer.permissionDecision)).toEqual(['allow', 'deny', 'allow']);
  expect(heard[1]!.answer.permissionDecisionReason).toBe('denied by the policy of loopdeck: deny rule "shell: rm"');
  expect(existsSync(path.join(dir, 'hi.txt'))).toBe(true);
  // The hook came before the parsed use for toolu_b, after it for the others: one tool.call each.
  const calls = of(events, 'tool.call');
  expect(calls.map((e) => [e.data.by, e.data.call.name, e.data.call.id.split(':')[1]])).toEqual([
    ['agent', 'Bash', 'toolu_a'],
    ['agent', 'Bash', 'toolu_b'],
    ['agent', 'Bash', 'toolu_c'],
  ]);
  expect(of(events, 'tool.decision').map((e) => [e.data.call_id, e.data.decision, e.data.by])).toEqual(calls.map((c, i) => [c.data.call.id, i === 1 ? 'deny' : 'approve', 'policy']));
  expect(of(events, 'tool.result').map((e) => [e.data.result.call_id, e.data.result.status])).toEqual(calls.map((c, i) => [c.data.call.id, i === 1 ? 'failed' : 'ok']));
  expect(prepared!.session.snapshot.usage.tool_calls).toBe(3);
});

it("refuses writes outside the workspace and into .git before anyone is asked, even when a rule allows writes", async () => {
  const { events, heard, yields } = await run(
    [
      { id: 'toolu_1', tool: 'Write', input: { file_path: path.join(dir, '.git/config'), content: '[core]\n\tfsmonitor = touch pwned\n' } },
      { id: 'toolu_2', tool: 'Write', input: { file_path: path.join(dir, '../escaped.txt'), content: 'x' } },
      { id: 'toolu_3', tool: 'Write', input: { file_path: path.join(dir, 'ok.txt'), content: 'fine' } },
    ],
    "{ default: ask, allow: ['write_file'] }",
    () => {
      throw new Error('nobody should be asked');
    },
  );
  expect(yields).toEqual([]);
  expect(heard.map((h) => h.answer.permissionDecision)).toEqual(['deny', 'deny', 'allow']);
  expect(heard[0]!.answer.permissionDecisionReason).toMatch(/inside git's own files/);
  expect(heard[1]!.answer.permissionDecisionReason).toMatch(/outside the workspace/);
  expect(readFileSync(path.join(dir, '.git/config'), 'utf8').includes('fsmonitor')).toBe(false);
  expect(readFileSync(path.join(dir, 'ok.txt'), 'utf8')).toBe('fine');
  expect(of(events, 'tool.decision').map((e) => [e.data.decision, e.data.by])).toEqual([
    ['deny', 'policy'],
    ['deny', 'policy'],
    ['approve', 'policy'],
  ]);
  expect(of(events, 'tool.ask')).toEqual([]);
});

it('asks the operator with the call in loopdeck terms; "always allow" approves the same call again without asking', async () => {
  const { events, heard, yields } = await run(
    [
      { id: 'toolu_1', command: 'touch made.txt && echo made' },
      { id: 'toolu_2', command: 'touch made.txt && echo made' },
      { id: 'toolu_3', command: 'echo more >> made.txt' },
    ],
    '{ default: ask }',
    (y) => {
      if (y.kind !== 'tool') throw new Error('expected a tool yield');
      if (y.call.args.command === 'echo more >> made.txt') return { decision: 'deny', note: 'no network' };
      return { decision: 'approve', always: offeredRules(y.call)[0]! };
    },
  );
  expect(yields.map((y) => (y.kind === 'tool' ? [y.call.name, y.call.args.command] : y.kind))).toEqual([
    ['shell', 'touch made.txt && echo made'],
    ['shell', 'echo more >> made.txt'],
  ]);
  expect(heard.map((h) => h.answer.permissionDecision)).toEqual(['allow', 'allow', 'deny']);
  expect(heard[2]!.answer.permissionDecisionReason).toBe('denied by the operator of loopdeck: no network');
  const decisions = of(events, 'tool.decision').map((e) => [e.data.decision, e.data.by, e.data.always ?? e.data.note ?? null]);
  expect(decisions).toEqual([
    ['approve', 'operator', 'shell-exact: touch made.txt && echo made'],
    ['approve', 'policy', null],
    ['deny', 'operator', 'no network'],
  ]);
  expect(of(events, 'tool.ask').map((e) => e.data.reason)).toEqual([expect.any(String), expect.any(String)]);
  expect(prepared!.session.snapshot.pending).toBeNull();

  // A crash while the prompt was open: the log ends at tool.ask. Resuming never asks about
  // the agent's call again (its hook died with the run) and closes the prompt.
  const cut = events.slice(0, events.findIndex((e) => e.type === 'tool.ask') + 1);
  const state = fold(cut);
  expect(state.pending).toMatchObject({ kind: 'tool', call: { name: 'shell', args: { command: 'touch made.txt && echo made' } } });
  const resumed: LoopEvent[] = [];
  recover({
    state,
    emit: (type, data) => {
      const event = { seq: cut.length + resumed.length, at: 0, session: cut[0]!.session, type, data } as LoopEvent;
      resumed.push(event);
      return event;
    },
    go: () => undefined,
    restarted: true,
  });
  expect(resumed.map((e) => [e.type, (e.data as { reask?: string }).reask])).toEqual([['session.resume', undefined]]);
  expect(fold([...cut, ...resumed]).pending).toBeNull();
});

it('headless answers by policy: --approve none denies what the rules ask about', async () => {
  const { heard, events } = await run([{ id: 'toolu_1', command: 'echo a > a.txt' }], '{ default: ask }', headlessAnswerer({ approve: 'none', onPause: 'stop' }) as (y: LoopYield) => ResumePayload);
  expect(heard[0]!.answer).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'denied by the policy of loopdeck: headless run: tool calls are denied unless --approve all' });
  // Recorded as the policy's decision: no operator answered.
  expect(of(events, 'tool.decision').map((e) => [e.data.decision, e.data.by])).toEqual([['deny', 'policy']]);
  expect(existsSync(path.join(dir, 'a.txt'))).toBe(false);
});
