// The real-process crash test (docs/design.md, "Resume points"): a headless run of the
// built CLI with tools that append their call id to a file, approvals answered by policy
// and a verify command, SIGKILLed at an exact event boundary (scripts/crash-at-line.mjs)
// or at a random time while a tool runs, then resumed to the end and checked. Used by
// tests/e2e/crash.test.ts (a sample) and scripts/crash-sweep.mjs (every boundary).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const cli = path.join(root, 'dist/cli.js');
const preload = path.join(root, 'scripts/crash-at-line.mjs');
const APPENDS = 'appends.txt';

const append = (id, sleep) => ({ id, name: 'shell', args: { command: `${sleep ? `sleep ${sleep}; ` : ''}echo ${id} >> ${APPENDS}` } });

/** The transcript: tools that append (two of them after a sleep, a3's `slow` seconds), a turn without a tool, a claim. */
const transcript = (slow) => ({
  turns: [
    { thought: 'two appends', tool_calls: [append('a1', 0.3), append('a2')] },
    { thought: 'one more', tool_calls: [append('a3', slow)] },
    { thought: 'nothing to run' },
    { final: 'every id is appended' },
  ],
});

const LOOP = {
  goal: { objective: 'Append every id' },
  pattern: 'react',
  agent: { kind: 'scripted', script: 'script.json' },
  workspace: { path: 'work', copy: 'none' },
  checkpoint: { every_iterations: 2 },
  verify: [{ command: `test -s ${APPENDS}` }],
  approval: { default: 'ask' },
  on_abort: { stash: false, report: false },
};

/** A folder holding loop.yaml (JSON is YAML), the transcript (a3 sleeping `slow` seconds) and an empty workspace. */
export function setup(slow = 0.3) {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-crash-'));
  mkdirSync(path.join(cwd, 'work'));
  writeFileSync(path.join(cwd, 'loop.yaml'), JSON.stringify(LOOP, null, 2));
  writeFileSync(path.join(cwd, 'script.json'), JSON.stringify(transcript(slow), null, 2));
  return cwd;
}

const ANSWERS = ['--headless', '--approve', 'all', '--on-pause', 'continue'];

function cliProcess(cwd, args, env = {}) {
  const child = spawn(process.execPath, [cli, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  return { child, exit };
}

/** The run's folder under `cwd` (null before its log exists). */
export function runDir(cwd) {
  const runs = path.join(cwd, '.loopdeck/runs');
  const names = existsSync(runs) ? readdirSync(runs) : [];
  return names.length > 0 ? path.join(runs, names[0]) : null;
}

/** Events of the run's log; a torn last line (a crash mid-write) is left out. */
export function readEvents(cwd) {
  const dir = runDir(cwd);
  if (!dir || !existsSync(path.join(dir, 'events.jsonl'))) return [];
  return readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n').flatMap((line) => {
    try {
      return line.trim() ? [JSON.parse(line)] : [];
    } catch {
      return [];
    }
  });
}

/** Starts the run; `crashAfter`: SIGKILL after that many log lines. */
export function start(cwd, crashAfter) {
  return cliProcess(cwd, ['run', '--config', 'loop.yaml', ...ANSWERS], crashAfter ? { NODE_OPTIONS: `--import ${preload}`, LOOPDECK_CRASH_AFTER: String(crashAfter) } : {});
}

/** Starts the run and SIGKILLs it `delayMs` after the log first shows tool call `id` approved. */
export async function killDuringTool(cwd, id, delayMs) {
  const run = start(cwd);
  const poll = setInterval(() => {
    if (readEvents(cwd).some((e) => e.type === 'tool.decision' && e.data.call_id === id)) {
      clearInterval(poll);
      setTimeout(() => run.child.kill('SIGKILL'), delayMs);
    }
  }, 5);
  const result = await run.exit;
  clearInterval(poll);
  return result;
}

/** Resumes the run to its end. */
export function resume(cwd) {
  return cliProcess(cwd, ['resume', runDir(cwd), '--yes', ...ANSWERS]).exit;
}

/**
 * Resumes the run to its end, and looks for processes of the killed run as soon as the
 * resumed run records its first event: by then it must have dealt with them.
 */
async function resumeWatching(cwd, logged, workspace) {
  const found = new Set();
  let looked = false;
  const poll = setInterval(() => {
    if (looked || readEvents(cwd).length <= logged) return;
    looked = true;
    for (const s of survivors(workspace)) found.add(s);
  }, 5);
  const result = await resume(cwd);
  clearInterval(poll);
  return { ...result, survivors: [...found] };
}

/**
 * Processes of a run still alive: loopdeck's children carry LOOPDECK_PROCESS_TAG in their
 * environment; those whose working folder is in `workspace` are the run's (Linux /proc).
 */
export function survivors(workspace) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd !== workspace && !cwd.startsWith(`${workspace}/`)) continue;
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').includes('LOOPDECK_PROCESS_TAG=')) continue;
      found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()}`);
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** Ends what is left of the killed run's processes (they are this harness's descendants). */
function killSurvivors(workspace) {
  for (const line of survivors(workspace)) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function waitForNoSurvivors(workspace, ms) {
  const until = Date.now() + ms;
  while (survivors(workspace).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
}

/** The facts of a log that happen once in a run: a repeat is a duplicate, a missing one is lost. */
function factKeys(events) {
  let step = 0;
  return events.flatMap((e) => {
    if (e.type === 'step.start') step = e.data.step;
    if (e.type === 'step.start') return [`step.start ${e.data.step}`];
    if (e.type === 'model.call') return [`model.call ${e.data.turn}`];
    if (e.type === 'tool.call') return [`tool.call ${e.data.call.id}`];
    if (e.type === 'tool.result') return [`tool.result ${e.data.result.call_id}`];
    if (e.type === 'checkpoint.recorded') return [`checkpoint ${e.data.checkpoint.iteration}`];
    if (e.type === 'verify.result') return [`verify.result step ${step}`];
    if (e.type === 'plan.commit' || e.type === 'session.complete') return [e.type];
    return [];
  });
}

/**
 * The invariants of one crash and resume, as messages (empty when all hold): the resume
 * ended as the uncrashed run did; every call id appended at most once; every once-only fact
 * recorded once and none lost; seqs 0..n-1; no process of the run alive after it ended
 * (`survivors`, reported apart).
 */
export function check(cwd, resumed, uncrashed, survived) {
  const out = [];
  const events = readEvents(cwd);
  const reason = events.at(-1)?.type === 'session.complete' ? events.at(-1).data.reason : `no end (exit ${resumed.code}: ${resumed.stderr.trim().split('\n').at(-1)})`;
  if (reason !== uncrashed.reason) out.push(`ended ${reason}, uncrashed ${uncrashed.reason}`);
  const file = path.join(cwd, 'work', APPENDS);
  const appends = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  for (const id of new Set(appends)) {
    const n = appends.filter((a) => a === id).length;
    if (n > 1) out.push(`${id} ran ${n} times`);
  }
  if (events.some((e, i) => e.seq !== i)) out.push(`seqs are not 0..${events.length - 1}`);
  const keys = factKeys(events);
  const dup = keys.filter((k, i) => keys.indexOf(k) !== i);
  if (dup.length > 0) out.push(`recorded twice: ${dup.join(', ')}`);
  const lost = uncrashed.keys.filter((k) => !keys.includes(k));
  if (lost.length > 0) out.push(`lost: ${lost.join(', ')}`);
  return { violations: out, survivors: survived };
}

/** Runs the uncrashed run once: its outcome, its event count and its once-only facts. */
export async function uncrashedRun() {
  const cwd = setup();
  try {
    const { code, stderr } = await start(cwd).exit;
    const events = readEvents(cwd);
    if (code !== 0) throw new Error(`the uncrashed run failed (exit ${code}): ${stderr}`);
    return { reason: events.at(-1).data.reason, count: events.length, types: events.map((e) => e.type), keys: factKeys(events) };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * One crash: `kill` is `{ after: k }` (SIGKILL right after the k-th log line) or
 * `{ tool: id, delayMs }` (SIGKILL that long after the call was approved), with
 * `slow`, the seconds a3 sleeps (default 0.3); then resume.
 * @returns the cut (last event type before the crash), violations and survivors
 */
export async function crashAndResume(kill, uncrashed) {
  const cwd = setup(kill.slow);
  const workspace = path.join(cwd, 'work');
  try {
    const killed = kill.after ? await start(cwd, kill.after).exit : await killDuringTool(cwd, kill.tool, kill.delayMs);
    const before = readEvents(cwd);
    const cut = `${before.length} events, last ${before.at(-1)?.type ?? '(none)'}`;
    if (killed.signal !== 'SIGKILL') return { cut, violations: [`the run was not killed (exit ${killed.code})`], survivors: [] };
    const resumed = await resumeWatching(cwd, before.length, workspace);
    const survived = [...new Set([...resumed.survivors, ...survivors(workspace)])];
    await waitForNoSurvivors(workspace, 3000);
    killSurvivors(workspace);
    return { cut, ...check(cwd, resumed, uncrashed, survived) };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
