// Approvals of a CLI agent by keypress, end to end, for each CLI: the built CLI runs a fake
// Claude Code, Codex or Gemini CLI (a script printing its format) in a pseudo-terminal;
// loopdeck starts it with its per-run hook configuration (a settings file, a `-c` override,
// a system defaults file), the script's pre-tool hook runs `loopdeck bridge`, which asks
// the run over its real socket; the operator answers `y` for one call and `d` with a note
// for the other, and the script acts on the answers. Needs `npm run build` (dist/cli.js).
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const root = path.resolve(import.meta.dirname, '../..');
const terminals: PtyTerminal[] = [];
afterEach(async () => {
  for (const t of terminals.splice(0)) {
    await t.close();
    rmSync(t.cwd, { recursive: true, force: true });
  }
});

interface LogEvent {
  seq: number;
  type: string;
  data: Record<string, any>;
}

function runDir(cwd: string): string {
  const runs = path.join(cwd, '.loopdeck/runs');
  const [run] = existsSync(runs) ? readdirSync(runs) : [];
  if (!run) throw new Error(`no run under ${cwd}`);
  return path.join(runs, run);
}

function logEvents(cwd: string): LogEvent[] {
  return readFileSync(path.join(runDir(cwd), 'events.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as LogEvent);
}

const PROMPT = /Approve tool call (\S+) \((\S+)\)/;

async function armedPrompt(t: PtyTerminal, command: string): Promise<string> {
  const screen = await t.waitUntil((s) => PROMPT.test(s) && /\[y\] approve/.test(s) && s.includes(command), `an armed prompt for ${command}`, 30_000);
  return PROMPT.exec(screen)![2]!;
}


/** What a fake CLI heard from its hook for one call. */
interface Heard {
  id: string;
  exit: number | null;
  decision: string | null;
  reason: string;
}

/** A CLI whose fake prints its format and asks through its own hook configuration. */
interface FakeCli {
  name: string;
  fake: string;
  output: string;
  /** The agent's ids of the two calls, as its output prints them. */
  ids: [string, string];
  /** The one tool.call the log records for a command (the parsed use and the hook's request are one call). */
  recorded: (command: string) => [string, Record<string, unknown>];
  /** The hook's exit codes for the approved and the denied call. */
  exits: [number, number];
  /** The tool.result status of the denied call. */
  deniedStatus: string;
  /** The file of the run's hook configuration. */
  hookFile: string;
  /** What the fake heard, from its log in `cwd`. */
  heard: (cwd: string) => Heard[];
}

const jsonLines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

const CLIS: FakeCli[] = [
  {
    name: 'Claude Code',
    fake: 'fake-claude.mjs',
    output: 'claude-stream-json',
    ids: ['toolu_01', 'toolu_02'],
    recorded: (command) => ['Bash', { command }],
    exits: [0, 0],
    deniedStatus: 'failed',
    hookFile: 'hooks/claude-settings.json',
    heard: (cwd) => jsonLines(path.join(cwd, 'fake-claude.log')).map((h) => ({ id: h.id, exit: h.exit, decision: h.answer?.permissionDecision ?? null, reason: h.answer?.permissionDecisionReason ?? '' })),
  },
  {
    name: 'Gemini CLI',
    fake: 'fake-gemini.mjs',
    output: 'gemini-stream-json',
    ids: ['run_shell_command-1', 'run_shell_command-2'],
    recorded: (command) => ['run_shell_command', { command }],
    exits: [0, 0],
    deniedStatus: 'failed',
    hookFile: 'hooks/gemini-system-defaults.json',
    heard: (cwd) => jsonLines(path.join(cwd, 'fake-cli.log')),
  },
  {
    name: 'Codex',
    fake: 'fake-codex.mjs',
    output: 'codex-json',
    ids: ['item_1', 'item_2'],
    // Codex asks its hook before it prints the item: the call is recorded as the hook named it.
    recorded: (command) => ['Bash', { command }],
    // A Codex hook blocks by exit 2 with the reason on stderr.
    exits: [0, 2],
    deniedStatus: 'denied',
    hookFile: 'hooks/codex-config-override.txt',
    heard: (cwd) => jsonLines(path.join(cwd, 'fake-cli.log')),
  },
];

it.each(CLIS.map((cli) => [cli.name, cli] as const))('a fake %s asks through the bridge: y runs one call, d with a note denies the other and the note reaches it', { timeout: 90_000 }, async (_name, cli) => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bridge-pty-'));
  copyFileSync(path.join(root, 'tests/fixtures/bridge', cli.fake), path.join(cwd, cli.fake));
  const commands = ['echo approved > approved.txt', 'echo denied > denied.txt'];
  writeFileSync(path.join(cwd, 'calls.json'), JSON.stringify(commands.map((command, n) => ({ id: cli.ids[n], command }))));
  writeFileSync(
    path.join(cwd, 'loop.yaml'),
    [
      'goal: { objective: write the two files }',
      `agent: { kind: command, command: node ${cli.fake}, output: ${cli.output}, timeout: 60s }`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "true" }]',
      'approval: { default: ask, timeout: 60s }',
    ].join('\n'),
  );
  const t = startPty({ args: ['run', '--config', 'loop.yaml'], cols: 120, rows: 36, cwd });
  terminals.push(t);
  const first = await armedPrompt(t, commands[0]!);
  expect(first).toMatch(/^t\d+\.\d+:/);
  t.press('y');
  const second = await armedPrompt(t, commands[1]!);
  expect(second).not.toBe(first);
  t.press('d');
  await t.waitFor('note to the agent');
  await t.type('use the fixture instead', (typed) => `› ${typed}`);
  t.press(KEY.enter);
  await t.waitUntil(() => logEvents(t.cwd).some((e) => e.type === 'session.complete'), 'the end of the run', 30_000);

  // The fake CLI acted on the answers: the approved call ran, the denied one did not.
  expect(readFileSync(path.join(t.cwd, 'approved.txt'), 'utf8')).toBe('approved\n');
  expect(existsSync(path.join(t.cwd, 'denied.txt'))).toBe(false);
  const heard = cli.heard(t.cwd);
  expect(heard.map((h) => [h.id, h.exit, h.decision])).toEqual([
    [cli.ids[0], cli.exits[0], 'allow'],
    [cli.ids[1], cli.exits[1], 'deny'],
  ]);
  expect(heard[1]!.reason).toContain('use the fixture instead');

  const events = logEvents(t.cwd);
  // One tool.call per call: the parsed use and the hook's request are the same call.
  const calls = events.filter((e) => e.type === 'tool.call');
  expect(calls.map((e) => [e.data.by, e.data.call.name, e.data.call.args])).toEqual(commands.map((c) => ['agent', ...cli.recorded(c)]));
  expect(calls.map((e) => e.data.call.id)).toEqual([first, second]);
  expect(events.filter((e) => e.type === 'tool.ask').map((e) => [e.data.call_id, e.data.call.name, e.data.call.args])).toEqual([
    [first, 'shell', { command: commands[0] }],
    [second, 'shell', { command: commands[1] }],
  ]);
  expect(events.filter((e) => e.type === 'tool.decision').map((e) => e.data)).toEqual([
    { call_id: first, decision: 'approve', by: 'operator' },
    { call_id: second, decision: 'deny', by: 'operator', note: 'use the fixture instead' },
  ]);
  const results = events.filter((e) => e.type === 'tool.result');
  expect(results.map((e) => [e.data.by, e.data.result.call_id, e.data.result.status])).toEqual([
    ['agent', first, 'ok'],
    ['agent', second, cli.deniedStatus],
  ]);
  expect(results[1]!.data.result.output).toContain('use the fixture instead');
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met' } });
  // The socket's folder went with the run; the run directory named it.
  t.press('q');
  const { code } = await t.exit;
  expect(code, t.describe()).toBe(0);
  expect(existsSync(path.join(runDir(t.cwd), 'bridge.json'))).toBe(false);
  expect(existsSync(path.join(runDir(t.cwd), cli.hookFile))).toBe(true);
});
