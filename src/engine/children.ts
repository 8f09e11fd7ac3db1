import { AsyncLocalStorage } from 'node:async_hooks';
import { listProcesses, taggedProcesses } from './descendants.js';

/**
 * The child processes loopdeck starts, all through `runShellProcess` (process.ts): who is
 * told when one starts, which still run, and how the ones a crashed process left behind
 * are found and killed. docs/design.md, "Child processes".
 */

/** A child process as it started: it leads its own process group (`pgid` = `pid`). */
export interface ChildStart {
  pid: number;
  pgid: number;
  /** The value of `LOOPDECK_PROCESS_TAG` it and every descendant carry. */
  tag: string;
  /** Its command line, at most 200 characters. */
  command: string;
}

const watchers = new AsyncLocalStorage<(child: ChildStart) => void>();

/**
 * Runs `fn` so that every child started within it (across its awaits) is reported to
 * `onStart` as it starts. A run uses it to record `process.start` in its own log, so two
 * sessions in one process never see each other's children.
 */
export function watchChildren<T>(onStart: (child: ChildStart) => void, fn: () => T): T {
  return watchers.run(onStart, fn);
}

/** Children that still run, by pid: killed when loopdeck exits. */
const live = new Map<number, ChildStart>();
let exitHook = false;

/**
 * Registers a child that just started and tells the watcher of the current run. Called by
 * the process runner right after the spawn. A watcher that throws does not stop the child
 * from being tracked (it is killed at exit however the run ends).
 */
export function childStarted(child: ChildStart): void {
  live.set(child.pid, child);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', killLiveChildren);
  }
  watchers.getStore()?.(child);
}

/** The child `pid` and its group are done (its group reaped): no longer killed at exit. */
export function childEnded(pid: number): void {
  live.delete(pid);
}

/** How many children still run (started and not yet reaped). */
export function liveChildren(): number {
  return live.size;
}

/**
 * Kills every child still running, its whole process group and the descendants that left
 * the group (found by tag), with SIGKILL, synchronously: it runs on `process.on('exit')`,
 * where nothing asynchronous happens any more. Headless and console exits call it before
 * they exit too.
 * @returns how many children (groups) it killed
 */
export function killLiveChildren(): number {
  const children = [...live.values()];
  live.clear();
  for (const child of children) {
    signal(-child.pgid, 'SIGKILL');
    for (const escaped of taggedProcesses(child.tag) ?? []) signal(escaped.pid, 'SIGKILL');
  }
  return children.length;
}

/** Sends `sig` to `target` (a pid, or a group as `-pgid`); already gone is not an error. */
function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

/** A process an earlier process of this run left behind. */
export interface Survivor {
  pid: number;
  pgid: number;
  command: string;
}

/**
 * The processes of `recorded` children (from `process.start` events) that still run:
 * every process whose environment carries one of their tags (wherever it went, `setsid`
 * included), and every other member of a process group one of those is in (a member that
 * cleared its environment). A recorded group with no tagged member is not ours any more
 * (its number may have been reused) and is left alone.
 * @returns `null` when the platform cannot list processes (no `/proc`)
 */
export function findSurvivors(recorded: ReadonlyArray<Pick<ChildStart, 'pgid' | 'tag'>>): Survivor[] | null {
  const tags = new Set(recorded.map((child) => child.tag));
  const groups = new Set(recorded.map((child) => child.pgid));
  const all = listProcesses();
  if (all === null) return null;
  const tagged = all.filter((p) => p.tag !== null && tags.has(p.tag));
  const verified = new Set(tagged.map((p) => p.pgid).filter((pgid) => groups.has(pgid)));
  return all.filter((p) => (p.tag !== null && tags.has(p.tag)) || verified.has(p.pgid)).map(({ pid, pgid, command }) => ({ pid, pgid, command }));
}

/**
 * Kills `survivors`: SIGTERM, then SIGKILL to what still runs after `graceMs`.
 * @returns once every one is gone (or half a second after SIGKILL)
 */
export async function killSurvivors(survivors: readonly Survivor[], recorded: ReadonlyArray<Pick<ChildStart, 'pgid' | 'tag'>>, graceMs = 1000): Promise<void> {
  for (const p of survivors) signal(p.pid, 'SIGTERM');
  const until = performance.now() + graceMs;
  let left = survivors;
  while (left.length > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const still = new Set((findSurvivors(recorded) ?? []).map((p) => p.pid));
    left = left.filter((p) => still.has(p.pid));
  }
  for (const p of left) signal(p.pid, 'SIGKILL');
  const gone = performance.now() + 500;
  while (left.length > 0 && performance.now() < gone) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const still = new Set((findSurvivors(recorded) ?? []).map((p) => p.pid));
    left = left.filter((p) => still.has(p.pid));
  }
}
