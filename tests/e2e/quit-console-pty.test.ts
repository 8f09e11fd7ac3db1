// Quit and abort in the console while a model request streams, as a person does it in a
// real terminal: `q` then `y` stops the run where it is (resumable, exit 130); `/stop
// --abort` kills the request, stashes, writes the failure report and exits 2.
// Needs `npm run build` (dist/cli.js).
import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { KEY, startPty, type PtyTerminal } from '../support/pty-terminal.js';
import { logEvents, ModelServer, until } from '../support/stop-rig.js';

const terminals: PtyTerminal[] = [];
const servers: ModelServer[] = [];

afterEach(async () => {
  for (const t of terminals.splice(0)) {
    await t.close();
    rmSync(t.cwd, { recursive: true, force: true });
  }
  for (const server of servers.splice(0)) server.close();
});

/** A workspace whose model stalls in the middle of its first answer, in a console. */
async function stalledConsole(): Promise<{ t: PtyTerminal; server: ModelServer }> {
  const server = await new ModelServer().start();
  servers.push(server);
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-quit-pty-'));
  execSync('git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init && echo work > file.txt', { cwd });
  writeFileSync(
    path.join(cwd, 'loop.yaml'),
    ['goal: { objective: finish }', 'workspace: { path: ., copy: none }', `agent: { kind: openai, model: test-model, base_url: "${server.url}" }`, 'verify: [{ command: "true" }]'].join('\n'),
  );
  const t = startPty({ args: ['run', '--config', 'loop.yaml'], cwd, cols: 100, rows: 30, env: { OPENAI_API_KEY: '' } });
  terminals.push(t);
  // In place over an uncommitted file: the console waits for the operator's word first.
  await t.waitFor('Start it anyway?');
  t.press(KEY.enter);
  await until(() => server.held.length === 1, 'the model request to stall', 30_000);
  await t.waitFor(/EXECUTING/);
  return { t, server };
}

it('q then y during a model request quits where the run is: exit 130, nothing recorded of the request, resumable', { timeout: 60_000, retry: 1 }, async () => {
  const { t } = await stalledConsole();
  t.press('q');
  await t.waitFor('│ [y/enter/ctrl+c] quit'); // armed: the dialog's own key row (the footer lists the keys at once)
  // It names the command that continues this run, its folder too, as the exit line does.
  const [run] = readdirSync(path.join(t.cwd, '.loopdeck/runs'));
  const said = t.screen().replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');
  expect(said, t.describe()).toContain(`resume .loopdeck/runs/${run}\` continues it later.`);
  t.press('y');
  const { code } = await t.exit;
  expect(code, t.describe()).toBe(130);
  expect(t.history()).toMatch(/quit before the run ended; the log is kept/);
  // Where the run's files are, as a headless run says it: the log as a path from the folder the command was typed in.
  // (Rows joined: the line is wider than the terminal, which wraps it.)
  expect(t.history().replaceAll('\n', '')).toContain(`loopdeck: log .loopdeck/runs/${run}/events.jsonl; workspace ${t.cwd}`);
  const types = logEvents(t.cwd).map((e) => e.type).filter((type) => type !== 'process.start');
  expect(types.slice(types.indexOf('step.start'))).toEqual(['step.start']);
});

it('/stop --abort during a model request kills it, stashes, writes the failure report and exits 2', { timeout: 60_000 }, async () => {
  const { t } = await stalledConsole();
  t.press('/');
  await t.type('stop --abort', (typed) => `› /${typed}`);
  t.press(KEY.enter);
  await until(() => logEvents(t.cwd).some((e) => e.type === 'session.complete'), `the run to end${t.describe()}`, 20_000).catch((error: Error) => {
    throw new Error(`${error.message}${t.describe()}\n${logEvents(t.cwd).map((e) => e.type).join(' ')}`);
  });
  await t.waitFor(/complete: aborted/);
  t.press('q');
  const { code } = await t.exit;
  expect(code, t.describe()).toBe(2);
  const events = logEvents(t.cwd);
  const recorded = events.find((e) => e.type === 'abort.recorded');
  expect(recorded?.data.report, JSON.stringify(events.map((e) => e.type))).toMatch(/failure-report\.json$/);
  expect(existsSync(recorded!.data.report)).toBe(true);
  expect(recorded!.data.stash).toMatch(/stash/);
  expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'aborted', summary: 'the operator aborted the run (/stop --abort)' } });
});
