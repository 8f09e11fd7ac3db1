// `loopdeck replay` of a long log, as a person runs it: the built CLI in a pseudo-terminal
// over a generated 50,000-event log (read lazily through an index: the console holds a
// window of events, not the log), and `replay --headless` printing exactly the JSON it
// always printed. Needs `npm run build`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeLog } from '../../bench/make-log.js';
import { foldLog } from '../../src/engine/log.js';
import { stateAsJson } from '../../src/engine/fold.js';
import { toJson } from '../../src/text/json.js';
import { CLI, startPty, type PtyTerminal } from '../support/pty-terminal.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/logs');
const HOME = '\u001b[H';
const END = '\u001b[F';
const EVENTS = 50_000;

let dir: string;
let log: string;
const terminals: PtyTerminal[] = [];
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-long-replay-'));
  log = path.join(dir, 'events.jsonl');
  await makeLog(EVENTS, log);
}, 120_000);
afterAll(async () => {
  for (const t of terminals.splice(0)) await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Peak resident memory of a process so far (VmHWM), in MB. */
function peakMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

it('a 50,000-event log: opens at the last event holding a window of the log; Home and End jump; q quits', async () => {
  const t = startPty({ args: ['replay', log], cols: 120, rows: 32, cwd: dir });
  terminals.push(t);
  // The end, as for a short log; the timeline says the older events stay in the log.
  await t.waitFor(`replay ${EVENTS}/${EVENTS} #${EVENTS - 1} session.complete`, 60_000);
  await t.waitForGone('reading the log', 30_000);
  expect(t.screen()).toContain(`(${EVENTS - 10_000} older in the log)`);
  expect(t.screen()).toContain('DONE (goal_met)');

  let started = Date.now();
  t.press(HOME);
  await t.waitFor('replay 1/50000 #0 session.start');
  const home = Date.now() - started;
  expect(t.screen()).toContain('filter activity (f) · 1 event · at the replay cursor');
  expect(t.screen()).not.toContain('older in the log');

  started = Date.now();
  t.press(END);
  await t.waitFor(`replay ${EVENTS}/${EVENTS} #${EVENTS - 1}`);
  const end = Date.now() - started;
  expect(t.screen()).toContain('DONE (goal_met)');
  // Generous bounds for a busy machine (the bench measures the 200 ms target on 1M events).
  expect(home, t.describe()).toBeLessThan(3000);
  expect(end, t.describe()).toBeLessThan(3000);
  const peak = peakMb(t.cliPid());
  console.log(`replay of ${EVENTS} events: Home ${home} ms, End ${end} ms, peak RSS ${Math.round(peak)} MB`);
  expect(peak).toBeLessThan(300);

  t.press('q');
  const exit = await t.exit;
  expect(exit.code, t.describe()).toBe(0);
}, 180_000);

it('replay --headless prints the same JSON and warnings as the whole-text fold, for an intact and a damaged log', async () => {
  const demo = fs.readFileSync(path.join(FIXTURES, 'demo.jsonl'), 'utf8');
  const lines = demo.split('\n');
  const torn = `${lines.slice(0, 20).join('\n')}\n${lines[20]!.slice(0, 30)}\n${lines.slice(20).join('\n')}${lines[25]!.slice(0, 15)}`;
  for (const [name, text] of [['intact.jsonl', demo], ['torn.jsonl', torn]] as const) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    const { state: folded, warnings } = foldLog(text, file);
    const state = stateAsJson(folded);
    expect(Object.keys(state.tools)).toHaveLength(new Set(folded.toolOrder).size);
    const run = await execa('node', [CLI, 'replay', file, '--headless'], { cwd: dir, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout + '\n').toBe(`${toJson(warnings.length > 0 ? { ...state, log_warnings: warnings } : state, 2)}\n`);
    expect(run.stderr).toBe(warnings.map((w) => `loopdeck: ${w}\n`).join('').trimEnd());
    if (name === 'torn.jsonl') expect(warnings.length).toBe(2);
  }
}, 60_000);
