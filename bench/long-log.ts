// Long-run benchmarks (`npm run bench`, after `npm run build`): `loopdeck replay` of a
// generated 1,000,000-event log (about 210 MiB), made in a temporary directory and deleted
// afterwards; never committed, never part of `npm test`. Each target is printed as a number
// measured in this run against its goal, with MISSED when it is not met; exit 0 either way.
//
//   tsx bench/long-log.ts [console] [headless] [events] [--log <file>]
//   (default: both parts, a new log of 1000000 events; --log measures a log already made)
//
//   1. the replay console in a pty: the first screen ≤ 2 s; Home, End and a step back
//      from the end (the farthest a fold runs from a snapshot) ≤ 200 ms each; peak RSS
//      ≤ 300 MB;
//   2. `replay --headless`: ≤ 5 s end to end and peak RSS ≤ 300 MB.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { startPty } from '../tests/support/pty-terminal.js';
import { makeLog } from './make-log.js';
import { detail, header, summary, target } from './report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

const FIRST_SCREEN_TARGET_MS = 2000;
const SEEK_TARGET_MS = 200;
const CONSOLE_RSS_TARGET_MB = 300;
const HEADLESS_TARGET_MS = 5000;
const HEADLESS_RSS_TARGET_MB = 300;

const ms = (value: number) => value.toFixed(0);

/** Peak resident memory of a live process so far (VmHWM, Linux), in MB; `null` once it is gone. */
function peakMb(pid: number): number | null {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return null;
  }
}

/**
 * 1. The replay console of the log in a 120x32 pty, as a person opens it: the ms from
 * spawn to the first whole frame with the replay header, to the end of reading, then Home,
 * End and ← (each from the key to the frame that shows its event), and the peak RSS.
 */
async function benchConsoleReplay(file: string, events: number): Promise<void> {
  const t = startPty({ args: ['replay', file], cols: 120, rows: 32 });
  try {
    const started = performance.now();
    await t.waitUntil((s) => s.includes('replay ') && s.includes('Timeline'), 'the first screen', 60_000);
    const first = performance.now() - started;
    await t.waitUntil((s) => s.includes(`replay ${events}/${events} `) && !s.includes('reading the log'), 'the end of reading', 600_000);
    const read = performance.now() - started;
    const peakRead = peakMb(t.cliPid());
    const timed = async (keys: string, shown: string) => {
      const at = performance.now();
      t.press(keys);
      await t.waitFor(shown, 60_000);
      return performance.now() - at;
    };
    const home = await timed('\u001b[H', 'replay 1/');
    const end = await timed('\u001b[F', `replay ${events}/${events} `);
    const back = await timed('\u001b[D', `replay ${events - 1}/${events} `);
    const peak = peakMb(t.cliPid());
    target('long', `replay console of ${events} events: first screen ${ms(first)} ms (target ≤ ${FIRST_SCREEN_TARGET_MS} ms)`, first <= FIRST_SCREEN_TARGET_MS);
    target('long', `replay console seeks: Home ${ms(home)} ms, End ${ms(end)} ms, ← from the end ${ms(back)} ms (target ≤ ${SEEK_TARGET_MS} ms each)`, Math.max(home, end, back) <= SEEK_TARGET_MS);
    target('long', `replay console peak RSS ${peak === null ? '?' : ms(peak)} MB (target ≤ ${CONSOLE_RSS_TARGET_MB} MB)`, peak !== null && peak <= CONSOLE_RSS_TARGET_MB);
    detail(
      `node dist/cli.js replay <log> in a 120x32 pty: spawn to the first whole frame with the replay header and the timeline; the whole log read (the cursor at its last event) after ${ms(read)} ms; ` +
        'each key timed from the write to the frame that shows its event (the screen is polled every 25 ms or on output); ' +
        `peak RSS is VmHWM of the CLI process after the keys (${peakRead === null ? '?' : ms(peakRead)} MB once the log was read, before them)`,
    );
    t.press('q');
    await t.exit;
  } finally {
    await t.close();
  }
}

/** The ms from spawn to the first screen of the replay console of `file` (the same measure as {@link benchConsoleReplay}'s first line). */
async function firstScreenMs(file: string): Promise<number> {
  const t = startPty({ args: ['replay', file], cols: 120, rows: 32 });
  try {
    const started = performance.now();
    await t.waitUntil((s) => s.includes('replay ') && s.includes('Timeline'), 'the first screen', 60_000);
    return performance.now() - started;
  } finally {
    await t.close();
  }
}

/** 2. `replay --headless` of the log: spawn to exit with stdout drained, and the peak RSS polled from /proc every 20 ms. */
async function benchHeadless(file: string, events: number): Promise<void> {
  const started = performance.now();
  const child = execa('node', [CLI, 'replay', file, '--headless'], { reject: false, stdout: 'pipe', buffer: false });
  let peak = 0;
  let bytes = 0;
  child.stdout!.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const poll = setInterval(() => (peak = Math.max(peak, peakMb(child.pid!) ?? 0)), 20);
  const result = await child;
  clearInterval(poll);
  const took = performance.now() - started;
  if (result.exitCode !== 0) {
    target('long', `replay --headless of ${events} events: failed with exit code ${result.exitCode}`, false);
    return;
  }
  target('long', `replay --headless of ${events} events: ${ms(took)} ms (target ≤ ${HEADLESS_TARGET_MS} ms)`, took <= HEADLESS_TARGET_MS);
  target('long', `replay --headless peak RSS ${ms(peak)} MB (target ≤ ${HEADLESS_RSS_TARGET_MB} MB)`, peak > 0 && peak <= HEADLESS_RSS_TARGET_MB);
  detail(`node dist/cli.js replay <log> --headless, one run, spawn to exit, ${(bytes / 2 ** 20).toFixed(0)} MiB of JSON drained from stdout; peak RSS is the last VmHWM read before the exit (polled every 20 ms)`);
}

/** The parts of the long-run benchmark, in the order they run. */
export const PARTS = ['console', 'headless'] as const;
export type Part = (typeof PARTS)[number];

/** Makes the log, runs the parts (all, or those named) and deletes the log. */
export async function benchLongLog(parts: readonly Part[] = PARTS, events = 1_000_000, given?: string): Promise<void> {
  header('long log');
  if (!existsSync(CLI)) {
    target('long', `long log: not measured, ${path.relative(ROOT, CLI)} is missing (run npm run build)`, false);
    return;
  }
  if (given) {
    const count = readFileSync(given, 'utf8').split('\n').filter((line) => line !== '').length;
    detail(`the log: ${given}, ${count} lines`);
    if (parts.includes('console')) await benchConsoleReplay(given, count);
    if (parts.includes('headless')) await benchHeadless(given, count);
    return;
  }
  const made = await makeLog(events);
  try {
    detail(`the log: ${events} events, ${(made.bytes / 2 ** 20).toFixed(1)} MiB, made in ${ms(made.ms)} ms (bench/make-log.ts, replicated from a real session)`);
    if (parts.includes('console')) {
      // For scale on a busy machine: the same first screen of a short log.
      const small = await makeLog(500, undefined, 'session');
      const short = await firstScreenMs(small.file).finally(() => rmSync(path.dirname(small.file), { recursive: true, force: true }));
      detail(`first screen of a 500-event log, spawned the same way: ${ms(short)} ms`);
      await benchConsoleReplay(made.file, events);
    }
    if (parts.includes('headless')) await benchHeadless(made.file, events);
  } finally {
    rmSync(path.dirname(made.file), { recursive: true, force: true });
  }
}

// tsx bench/long-log.ts [console] [headless] [events]
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const logAt = args.indexOf('--log');
  const given = logAt >= 0 ? path.resolve(args.splice(logAt, 2)[1]!) : undefined;
  const count = args.find((a) => /^\d+$/.test(a));
  const named = args.filter((a) => a !== count) as Part[];
  for (const part of named) if (!PARTS.includes(part)) throw new Error(`bench/long-log.ts: unknown part ${part}; expected ${PARTS.join(', ')} or a number of events`);
  await benchLongLog(named.length > 0 ? named : PARTS, count ? Number(count) : 1_000_000, given);
  summary('long log');
  process.exit(0);
}
