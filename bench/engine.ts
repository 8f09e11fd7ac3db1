// Engine benchmarks (`npm run bench`, after `npm run build`). Each target is printed as a
// number measured in this run against its goal, with MISSED when it is not met; the
// process exits 0 either way, so further bench files can be chained after this one
// (`tsx bench/engine.ts && tsx bench/<next>.ts`), or import `benchEngine`.
//
//   tsx bench/engine.ts [fold] [replay] [step]     (default: all three)
//
//   1. fold of a 100k-event log at no more than 1.3x the time of only parsing its lines,
//      in each of five consecutive runs;
//   2. `loopdeck replay <log> --headless` of that log under 1 s, end to end;
//   3. engine overhead per step (no-op agent and tool) under 0.2 ms median.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fold } from '../src/engine/fold.js';
import { foldLog, LogFolder, parseLog } from '../src/engine/log.js';
import { NoopAgent, noopTool, runBenchSession, tempWorkspace, withLog } from './make-log.js';
import { collectGarbage, detail, header, median, namedParts, quantile, summary, target } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

export const LOG_EVENTS = 100_000;
const FOLD_RATIO_TARGET = 1.3;
/** Consecutive runs of the fold/parse measurement: the target must hold in each. */
const FOLD_RUNS = 5;
/** Alternating rounds of parse and fold in one run. */
const FOLD_ROUNDS = 7;
/** Parts of whole lines the log is measured in, parse only and fold taking turns (about 5,000 events a part). */
const FOLD_PARTS = 20;
const REPLAY_TARGET_MS = 1000;
const STEP_TARGET_MS = 0.2;
/** Steps of the measured no-op run, unless it reaches {@link STEP_TIME_CAP_MS} first. */
const STEPS = 20_000;
const WARMUP_STEPS = 500;
/** The no-op run stops here even short of {@link STEPS}: per-step time grows with the run. */
const STEP_TIME_CAP_MS = 20_000;

const ms = (n: number, digits = 1) => n.toFixed(digits);

/** split + `JSON.parse` of every non-empty line: the floor any reader pays. */
function parseOnly(text: string): number {
  let parsed = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    JSON.parse(line);
    parsed += 1;
  }
  return parsed;
}

/**
 * CPU time of this process's main thread so far, in ms (Linux: `/proc/<pid>/task/<pid>/schedstat`,
 * nanoseconds on the CPU); `null` where it cannot be read. Unlike wall time it leaves out
 * the time the thread waited for a CPU, which on a shared machine is most of the noise.
 */
function mainThreadCpuMs(): number | null {
  try {
    return Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/** Medians of one fold/parse run in ms: parse only, `foldLog`, and (when asked) `parseLog` and `fold` apart. */
interface FoldRun {
  parse: number;
  streamed: number;
  /** Main-thread CPU time of `foldLog` over that of parse only, summed over the rounds (`null`: not measurable here). */
  cpuRatio: number | null;
  parseLog?: number;
  fold?: number;
}

/**
 * One run of the fold/parse measurement in one piece: `rounds` alternating rounds of parse
 * only and `foldLog` on the whole text, a full GC before each; with `split`, each round also
 * times `parseLog` then `fold` of its events (for the detail line).
 */
function foldRun(text: string, file: string, events: number, split: boolean, rounds = FOLD_ROUNDS): FoldRun {
  const parse: number[] = [];
  const streamed: number[] = [];
  const parseLogMs: number[] = [];
  const foldMs: number[] = [];
  let parseCpu = 0;
  let streamedCpu = 0;
  for (let i = 0; i < rounds; i++) {
    collectGarbage();
    const c0 = mainThreadCpuMs();
    const t0 = performance.now();
    const count = parseOnly(text);
    const t1 = performance.now();
    const c1 = mainThreadCpuMs();
    collectGarbage();
    const c2 = mainThreadCpuMs();
    const t2 = performance.now();
    const folded = foldLog(text, file).state;
    const t3 = performance.now();
    const c3 = mainThreadCpuMs();
    parseCpu += (c1 ?? 0) - (c0 ?? 0);
    streamedCpu += (c3 ?? 0) - (c2 ?? 0);
    if (count !== events || folded.eventCount !== events) throw new Error(`expected ${events} events, parsed ${count}, folded ${folded.eventCount}`);
    parse.push(t1 - t0);
    streamed.push(t3 - t2);
    if (!split) continue;
    collectGarbage();
    const t4 = performance.now();
    const { events: parsed } = parseLog(text, file);
    const t5 = performance.now();
    const state = fold(parsed);
    const t6 = performance.now();
    if (state.eventCount !== events) throw new Error(`expected ${events} events, parseLog + fold folded ${state.eventCount}`);
    parseLogMs.push(t5 - t4);
    foldMs.push(t6 - t5);
  }
  const run: FoldRun = { parse: median(parse), streamed: median(streamed), cpuRatio: parseCpu > 0 ? streamedCpu / parseCpu : null };
  return split ? { ...run, parseLog: median(parseLogMs), fold: median(foldMs) } : run;
}

/** The text cut into `count` parts of whole lines, of about the same length. */
function partsOf(text: string, count: number): string[] {
  const parts: string[] = [];
  let from = 0;
  for (let k = 1; k <= count && from < text.length; k++) {
    const newline = k === count ? -1 : text.indexOf('\n', Math.max(from, Math.floor((text.length * k) / count)));
    const to = newline < 0 ? text.length : newline + 1;
    parts.push(text.slice(from, to));
    from = to;
  }
  return parts;
}

/**
 * One run of the fold/parse measurement in parts: `rounds` rounds, each a full GC, then the
 * whole log part by part, each part parsed only and folded by one {@link LogFolder} (the
 * order of the two alternating from part to part). A round's ratio is its summed fold
 * time (with `finish`) over its summed parse time: the same work as {@link foldRun}, with
 * the two sides measured a few ms apart, so a change in the machine's speed (a busy
 * neighbour on a shared host) falls on both alike. The run's ratio is the median round's.
 */
function partedRun(parts: readonly string[], file: string, events: number, rounds = FOLD_ROUNDS): { ratio: number; parse: number; fold: number } {
  const ratios: number[] = [];
  const parseMs: number[] = [];
  const foldMs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    collectGarbage();
    const folder = new LogFolder(file);
    let parse = 0;
    let folding = 0;
    let count = 0;
    parts.forEach((part, k) => {
      const last = k === parts.length - 1;
      const timeParse = () => {
        const t0 = performance.now();
        count += parseOnly(part);
        parse += performance.now() - t0;
      };
      const timeFold = () => {
        const t0 = performance.now();
        folder.push(part, last);
        folding += performance.now() - t0;
      };
      if (k % 2 === 0) {
        timeParse();
        timeFold();
      } else {
        timeFold();
        timeParse();
      }
    });
    const t0 = performance.now();
    const folded = folder.finish().state;
    folding += performance.now() - t0;
    if (count !== events || folded.eventCount !== events) throw new Error(`expected ${events} events, parsed ${count}, folded ${folded.eventCount} (in parts)`);
    ratios.push(folding / parse);
    parseMs.push(parse);
    foldMs.push(folding);
  }
  return { ratio: median(ratios), parse: median(parseMs), fold: median(foldMs) };
}

/**
 * 1. fold/parse ratio on the same text: after a warm-up, {@link FOLD_RUNS} consecutive runs
 * in {@link FOLD_PARTS} parts ({@link partedRun}); the target holds when every run meets it.
 * Beside them, the same in one piece ({@link foldRun}: one side after the other, so a
 * shared machine's changes of speed land on one of them), then 3 more rounds that split
 * `parseLog` + `fold` for the detail line.
 */
function benchFold(text: string, file: string, events: number): void {
  const parts = partsOf(text, FOLD_PARTS);
  foldRun(text, file, events, true, 2);
  partedRun(parts, file, events, 2);
  const runs = Array.from({ length: FOLD_RUNS }, () => partedRun(parts, file, events));
  const whole: FoldRun[] = [];
  for (let i = 0; i < FOLD_RUNS; i++) whole.push(foldRun(text, file, events, false));
  const split = foldRun(text, file, events, true, 3);
  const ratios = runs.map((r) => r.ratio);
  const worst = Math.max(...ratios);
  const list = (values: readonly number[]) => values.map((r) => r.toFixed(2)).join(', ');
  target(
    'fold',
    `fold/parse ratio over ${FOLD_RUNS} consecutive runs: max ${worst.toFixed(2)} (${list(ratios)}) (target ≤ ${FOLD_RATIO_TARGET} in every run)`,
    worst <= FOLD_RATIO_TARGET,
  );
  detail(
    `each run: ${FOLD_ROUNDS} rounds over the log in ${parts.length} parts, parse only and LogFolder.push of each part in turn, the median round's summed fold over summed parse; ` +
      `parse only ${ms(median(runs.map((r) => r.parse)))} ms (split + JSON.parse per line), fold ${ms(median(runs.map((r) => r.fold)))} ms (checks and fold while parsing, as replay does; medians over the runs)`,
  );
  detail(
    `in one piece (parse only, then foldLog of the whole text; ${FOLD_ROUNDS} rounds a run, median over median): ${list(whole.map((r) => r.streamed / r.parse))}; ` +
      (whole[0]!.cpuRatio === null ? '' : `main-thread CPU time, foldLog over parse: ${list(whole.map((r) => r.cpuRatio!))} (waits for a CPU left out); `) +
      `then parseLog + fold ${ms(split.parseLog! + split.fold!)} ms ` +
      `(parseLog ${ms(split.parseLog!)} = ${(split.parseLog! / split.parse).toFixed(2)}x parse, ` +
      `fold alone ${ms(split.fold!)} = ${(split.fold! / split.parse).toFixed(2)}x parse; medians of 3 rounds)`,
  );
}

/** Runs `node <args>` to its end; the time from spawn to exit, and what it printed. */
function runNode(args: string[]): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ ms: performance.now() - start, code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
  });
}

/** 2. `loopdeck replay --headless` end to end: process start, read, parse, fold, print. */
async function benchReplay(file: string, events: number): Promise<void> {
  const label = `replay ${Math.round(events / 1000)}k events`;
  if (!existsSync(CLI)) {
    target('replay', `${label}: not measured, ${path.relative(ROOT, CLI)} is missing (run npm run build)`, false);
    return;
  }
  const args = [CLI, 'replay', file, '--headless'];
  const first = await runNode(args);
  if (first.code !== 0) {
    target('replay', `${label}: failed with exit code ${first.code}: ${first.stderr.trim().split('\n')[0]}`, false);
    return;
  }
  const state = JSON.parse(first.stdout) as { eventCount: number; done: { reason: string } | null };
  if (state.eventCount !== events) throw new Error(`replay folded ${state.eventCount} events, expected ${events}`);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push((await runNode(args)).ms);
  const fixed: number[] = [];
  for (let i = 0; i < 3; i++) fixed.push((await runNode([CLI, '--version'])).ms);
  const t = median(times);
  target('replay', `${label}: ${ms(t, 0)} ms (target < ${REPLAY_TARGET_MS} ms)`, t < REPLAY_TARGET_MS);
  detail(
    `node dist/cli.js replay <log> --headless, median of 5 runs (min ${ms(Math.min(...times), 0)}, max ${ms(Math.max(...times), 0)}); ` +
      `prints ${(Buffer.byteLength(first.stdout) / 2 ** 20).toFixed(1)} MiB of state (${state.done?.reason ?? 'not done'}); ` +
      `node dist/cli.js --version alone: ${ms(median(fixed), 0)} ms`,
  );
}

/**
 * One session of the no-op agent and tool for up to `steps` steps (or `capMs`): the time
 * of each step is the time between two consecutive agent turns, everything the engine
 * does for a step (budget check, hooks, events, fold, tool dispatch, transitions).
 */
async function noopRun(steps: number, capMs: number): Promise<{ times: number[]; events: number; capped: boolean; cpuMs: number }> {
  const workspace = tempWorkspace();
  const times: number[] = [];
  let last = 0;
  let events = 0;
  let capped = false;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const stop = (turn: number) => {
    if (turn > steps) return true;
    capped = performance.now() - start > capMs;
    return capped;
  };
  const onTurn = () => {
    const now = performance.now();
    if (last > 0) times.push(now - last);
    last = now;
  };
  try {
    await runBenchSession({ agent: new NoopAgent(stop, onTurn), runTool: noopTool, workspace: workspace.dir, sinks: [() => void (events += 1)] });
  } finally {
    workspace.remove();
  }
  const used = process.cpuUsage(cpu);
  return { times, events, capped, cpuMs: (used.user + used.system) / 1000 };
}

/** 3. engine overhead per step. */
async function benchSteps(): Promise<void> {
  await noopRun(WARMUP_STEPS, STEP_TIME_CAP_MS);
  collectGarbage();
  const { times, events, capped, cpuMs } = await noopRun(STEPS, STEP_TIME_CAP_MS);
  const m = median(times);
  const window = Math.min(1000, Math.floor(times.length / 4));
  target(
    'step',
    `engine overhead per step: median ${ms(m, 3)} ms, p95 ${ms(quantile(times, 0.95), 3)} ms (target median < ${STEP_TARGET_MS} ms)`,
    m < STEP_TARGET_MS,
  );
  detail(
    `${times.length} steps of a no-op agent and tool (one tool call per turn, ${Math.round(events / (times.length + 1))} events per step, no hooks, no log)` +
      (capped ? `, stopped at the ${STEP_TIME_CAP_MS / 1000} s cap short of ${STEPS}` : '') +
      `; median of the first ${window} steps ${ms(median(times.slice(0, window)), 3)} ms, of the last ${window} ${ms(median(times.slice(-window)), 3)} ms` +
      `; CPU time of this process ${ms(cpuMs / (times.length + 1), 3)} ms per step (mean)`,
  );
}

/** The parts of the engine benchmark, in the order they run. */
export const PARTS = ['fold', 'replay', 'step'] as const;
export type Part = (typeof PARTS)[number];

/** Runs the engine benchmarks (all parts, or those named) and prints one line per target. */
export async function benchEngine(parts: readonly Part[] = PARTS): Promise<void> {
  header('engine');
  if (parts.includes('fold') || parts.includes('replay')) {
    await withLog(LOG_EVENTS, async (made) => {
      if (parts.includes('fold')) benchFold(readFileSync(made.file, 'utf8'), made.file, made.events);
      if (parts.includes('replay')) await benchReplay(made.file, made.events);
    });
  }
  if (parts.includes('step')) await benchSteps();
}

// tsx bench/engine.ts [fold] [replay] [step]   (default: all three)
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchEngine(namedParts('bench/engine.ts', PARTS));
  summary('engine');
}
