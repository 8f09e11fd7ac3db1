// `loopdeck watch` as a person sees it: the built CLI follows a transcript in a
// pseudo-terminal while the test appends to it as an agent would. Needs `npm run build`.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, expect, it } from 'vitest';
import { toolResult, toolUse } from '../support/claude-lines.js';
import { CLI, childEnv, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const BEL = '\u0007';
const terminals: PtyTerminal[] = [];
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-watch-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const t of terminals.splice(0)) await t.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Appends `text` and returns how long the screen took to show `shown` (ms). */
async function appendAndTime(t: PtyTerminal, file: string, text: string, shown: string | RegExp): Promise<number> {
  const started = Date.now();
  appendFileSync(file, text);
  await t.waitFor(shown, 10_000);
  return Date.now() - started;
}

it('shows calls appended to a live transcript within a second, holds a partial line, notes a malformed one, and rings the bell on a repeated call', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'session.jsonl');
  writeFileSync(file, `${JSON.stringify({ type: 'summary', summary: 'fixing the parser' })}\n`);
  const t = startPty({ args: ['watch', file], cols: 140, rows: 40, cwd: dir });
  terminals.push(t);
  await t.waitFor('Timeline');

  // A new call shows within one second of being written.
  const first = await appendAndTime(t, file, `${toolUse('toolu_1', 'Read', { file_path: 'src/parser.ts' }, 'Reading the parser.')}\n`, 'agent ran Read');
  expect(first, t.describe()).toBeLessThan(1000);
  await appendAndTime(t, file, `${toolResult('toolu_1', 'export function parse() {}')}\n`, 'Read');

  // A malformed line gives a notice (the console goes on); a partial line read in the same
  // write is held until its newline comes.
  const partial = toolUse('toolu_2', 'Bash', { command: 'echo partial-marker' });
  appendFileSync(file, `this is not json {\n${partial.slice(0, 40)}`);
  const noticed = await t.waitFor('not JSON', 10_000);
  expect(noticed).not.toContain('partial-marker');
  expect(t.output).not.toContain('partial-marker');
  const completed = await appendAndTime(t, file, `${partial.slice(40)}\n`, 'partial-marker');
  expect(completed, t.describe()).toBeLessThan(1000);
  appendFileSync(file, `${toolResult('toolu_2', 'partial-marker')}\n`);

  // The same failing test run three times: the repetition guard fires on the third, the
  // bell rings, and the alert is listed in the banner.
  for (const n of [1, 2]) {
    appendFileSync(file, `${toolUse(`toolu_t${n}`, 'Bash', { command: 'npm test' })}\n${toolResult(`toolu_t${n}`, 'FAIL tests/parser.test.ts\n1 failing', true)}\n`);
  }
  await t.waitUntil((s) => (s.match(/agent ran Bash \{"command":"npm test"\}/g) ?? []).length >= 2, 'two test runs');
  expect(t.output).not.toContain(BEL);
  const alerted = await appendAndTime(t, file, `${toolUse('toolu_t3', 'Bash', { command: 'npm test' })}\n`, /⚠ .*the same Bash call 3×/);
  expect(alerted, t.describe()).toBeLessThan(1000);
  await t.settled();
  expect(t.output.split(BEL)).toHaveLength(2);
  const screen = await t.waitFor(/repetition detected: 3×/);
  // Tokens are reported per message (5 messages of 110); cost never is: unknown, not $0.
  expect(screen).toMatch(/550\/∞/);
  expect(screen).toMatch(/unknown\/∞/);
  expect(screen).not.toMatch(/\$0\.00/);

  t.press('q');
  expect((await t.exit).code).toBe(0);
});

it('--latest follows the newest session file under HOME, and a folder lists its sessions', async () => {
  const home = tempDir();
  const claude = path.join(home, '.claude/projects/my-app');
  const codex = path.join(home, '.codex/sessions/2026/12/01');
  mkdirSync(claude, { recursive: true });
  mkdirSync(codex, { recursive: true });
  const older = path.join(claude, 'old-session.jsonl');
  const newest = path.join(codex, 'rollout-2026-12-01T08-00-00-abc.jsonl');
  writeFileSync(older, `${toolUse('toolu_1', 'Read', { file_path: 'a' })}\n`);
  writeFileSync(newest, `${JSON.stringify({ type: 'thread.started', thread_id: 't1' })}\n`);
  const hourAgo = Date.now() / 1000 - 3600;
  utimesSync(older, hourAgo, hourAgo);

  const listed = await execa('node', [CLI, 'watch', path.join(home, '.claude/projects')], { env: childEnv({ HOME: home }), reject: false });
  expect(listed.exitCode, listed.stderr).toBe(0);
  expect(listed.stdout).toContain(older);

  const watch = execa('node', [CLI, 'watch', '--latest', '--headless'], { env: childEnv({ HOME: home }), reject: false, cwd: home });
  let stderr = '';
  watch.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const until = Date.now() + 15_000;
  while (!stderr.includes('reading the transcript as codex-json') && Date.now() < until && watch.exitCode === null) await new Promise((r) => setTimeout(r, 25));
  expect(stderr).toContain(`watching ${newest}`);
  expect(stderr).toContain('reading the transcript as codex-json');
  watch.kill('SIGINT');
  const ended = await watch;
  expect(ended.exitCode, ended.stderr).toBe(0);
  expect(ended.stderr).toContain('stopped watching');

  // Both were written in the last two hours: listed, and one must be named (or --latest).
  const recent = await execa('node', [CLI, 'watch', '--since', '2h', '--headless'], { env: childEnv({ HOME: home }), reject: false });
  expect(recent.exitCode).toBe(1);
  expect(recent.stdout.split('\n').map((l) => l.split(/\s+/).at(-1))).toEqual([newest, older]);
  expect(recent.stderr).toContain('2 sessions were modified after');
});

it('--headless prints each alert as a line on stdout, without the bell, as calls are appended', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'run.jsonl');
  writeFileSync(file, '');
  const watch = execa('node', [CLI, 'watch', file, '--headless'], { env: childEnv(), reject: false, cwd: dir });
  let stdout = '';
  let stderr = '';
  watch.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  watch.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const waitFor = async (check: () => boolean, what: string) => {
    const until = Date.now() + 15_000;
    while (!check()) {
      if (Date.now() > until || watch.exitCode !== null) throw new Error(`no ${what}; stdout: ${stdout}\nstderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await waitFor(() => stderr.includes('watching'), 'start');
  for (const n of [1, 2, 3]) appendFileSync(file, `${toolUse(`h${n}`, 'Bash', { command: 'make' })}\n${toolResult(`h${n}`, 'make: *** [all] Error 2', true)}\n`);
  await waitFor(() => stdout.includes('alert: repetition'), 'alert line');
  appendFileSync(file, 'garbage line\n');
  await waitFor(() => stderr.includes('garbage line'), 'notice of a malformed line');
  watch.kill('SIGINT');
  const ended = await watch;
  expect(ended.exitCode, ended.stderr).toBe(0);
  expect(ended.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^alert: repetition: repeat rule: the same Bash call 3× within the last 3 calls/)]);
  expect(ended.stdout).not.toContain(BEL);
  expect(ended.stderr).toContain('1 alert(s)');
});

/** `count` assistant turns, each reading another file, with their results: no repetition. */
function readingTurns(count: number, from = 0): string {
  const lines: string[] = [];
  for (let n = from; n < from + count; n++) lines.push(toolUse(`r${n}`, 'Read', { file_path: `src/file${n}.ts` }), toolResult(`r${n}`, `contents of file ${n}`));
  return `${lines.join('\n')}\n`;
}

it('without --config no budget limit applies: 60 turns and calls are shown against no limit, with no budget alert, and the checkpoint panel says none is taken', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'session.jsonl');
  writeFileSync(file, '');
  const t = startPty({ args: ['watch', file], cols: 140, rows: 40, cwd: dir });
  terminals.push(t);
  await t.waitFor('Timeline');
  appendFileSync(file, readingTurns(60));
  const screen = await t.waitFor(/agent ran Read \{"file_path":"src\/file59\.ts"\}/);
  await t.settled();
  expect(screen, t.describe()).toMatch(/60\/∞/);
  expect(screen).not.toMatch(/60\/50|60\/100|120%/);
  expect(screen).toContain('No checkpoints: nothing is measured in this session.');
  expect(screen).not.toContain('No checkpoint yet');
  expect(t.output).not.toContain('reached its limit');
  expect(t.output).not.toContain(BEL);
  t.press('q');
  expect((await t.exit).code).toBe(0);
});

it('--headless without --config prints no budget alert past 50 turns and 100 calls; with --config the loop.yaml limit alerts', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'run.jsonl');
  writeFileSync(file, readingTurns(110));
  // Three identical failing calls after them: the repetition alert says every line before was read.
  const repeated = [1, 2, 3].map((n) => `${toolUse(`m${n}`, 'Bash', { command: 'make' })}\n${toolResult(`m${n}`, 'make: *** [all] Error 2', true)}\n`).join('');
  appendFileSync(file, repeated);
  const follow = async (args: string[]) => {
    const watch = execa('node', [CLI, 'watch', file, '--headless', ...args], { env: childEnv(), reject: false, cwd: dir });
    let stdout = '';
    watch.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const until = Date.now() + 15_000;
    while (!stdout.includes('alert: repetition') && Date.now() < until && watch.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    watch.kill('SIGINT');
    const ended = await watch;
    expect(ended.exitCode, ended.stderr).toBe(0);
    return ended.stdout.trim().split('\n');
  };
  expect(await follow([])).toEqual([expect.stringMatching(/^alert: repetition: /)]);
  writeFileSync(path.join(dir, 'loop.yaml'), ['goal: { objective: watch }', "agent: { kind: command, command: 'true' }", 'workspace: { path: . }', "verify: [{ command: 'true' }]", 'budget: { max_iterations: 50, max_tool_calls: unlimited }'].join('\n'));
  expect(await follow(['--config', 'loop.yaml'])).toEqual(['alert: budget: turns reached its limit (50 of 50)', expect.stringMatching(/^alert: repetition: /)]);
});
