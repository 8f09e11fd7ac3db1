/**
 * The runs recorded under `<folder>/.loopdeck/runs/`, and their temporary workspace copies
 * (docs/design.md, "Workspace copies and `loopdeck runs`").
 *
 * A `copy: temp` run works in a copy under the temp folder. loopdeck deletes such a copy
 * only when asked (`loopdeck runs --prune`), and only when nobody can still need it: never
 * while its run can be resumed or is running, never while the copy's repository still
 * holds the stash an abort parked the work in, never while any other run that is kept
 * records the same folder (a run folder copied by hand does), and never a folder that does
 * not carry loopdeck's mark for the run ({@link COPY_MARK} in the copy's own `.git`: a run
 * folder can be edited or forged, the copy it names is proof only of itself). A run's state
 * is the one `replay` folds from its log, so a line replay leaves out cannot end a run.
 * What is removed is recorded
 * beside the log of every run that recorded it ({@link PRUNED_FILE}), so `runs` and
 * `resume` say so instead of failing on a missing folder.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LogError } from './engine/errors.js';
import type { LoopEvent } from './engine/events.js';
import { isBlankLog, NO_READABLE_EVENT, scanLogFile, type Folded, type Piece, type ScanSink } from './engine/log.js';
import { DONE_REASONS, type DoneReason } from './engine/machine.js';
import { POLICY_FILE } from './engine/saved-policy.js';
import { COPY_MARK, copyMarkOf } from './engine/workspace.js';

/** Where a project's runs are: `.loopdeck/runs/` under the folder loopdeck was started in. */
export function runsFolder(project: string): string {
  return path.join(project, '.loopdeck', 'runs');
}

/** The file a running loopdeck writes in its run directory: who holds the run now ({@link OwnerRecord}). */
export const OWNER_FILE = 'owner.json';

/** The file `runs --prune` writes in a run directory when it removed the run's workspace copy ({@link PrunedRecord}). */
export const PRUNED_FILE = 'workspace-pruned.json';

/** The process that holds a run: written by `run` and `resume` when they open it. */
export interface OwnerRecord {
  pid: number;
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat`, field 22), so a reused pid is not taken for it; `null` where `/proc` is missing. */
  start_ticks: number | null;
  /** When it opened the run, ISO 8601 UTC. */
  opened_at: string;
}

/** What `runs --prune` records when it removes a copy. */
export interface PrunedRecord {
  workspace: string;
  /** ISO 8601 UTC. */
  pruned_at: string;
  /** Bytes the copy held (apparent size of its files), `null` when they could not all be read. */
  bytes: number | null;
}

/** Where a run stands. */
export type RunState =
  /** Its process is alive and the run has not ended. */
  | 'running'
  /** Not ended and nobody holds it: `loopdeck resume` continues it. */
  | 'resumable'
  /** Not ended, nobody holds it, and its log is damaged where `resume` must refuse it ({@link RunLog.unresumable}). */
  | 'unresumable'
  /** `session.complete` is recorded. */
  | 'ended'
  /** The directory holds no started run (no log, or a blank one). */
  | 'not_started'
  /** The log is there but tells nothing of the run: no event in it is readable, not its `session.start` either, or it cannot be opened ({@link RunLog.unreadable}). */
  | 'unreadable';

/** What the engine's reader found wrong with a run's log (as `replay` reads it). */
export interface RunLog {
  /** Every problem it passed over (a torn or garbage line, NUL bytes, a repeated or missing `seq`), each naming the file and line as `replay` prints it; `[]` for a sound log. */
  warnings: string[];
  /** Set when the damage may hide a fact `resume` needs (`resume` then refuses the run): what is missing and how to go on. */
  unresumable: string | null;
  /** Why the log tells nothing of the run (state `unreadable`), naming the file; else `null`. */
  unreadable: string | null;
  /**
   * The end a `session.complete` line states (one of `DONE_REASONS`) when the fold did not
   * take it: it came after an event the fold refused, so the run `replay` shows does not
   * reach it and the end cannot be trusted. `null` when there is no such line.
   */
  untrustedEnd: DoneReason | null;
}

/** A run's workspace as `runs` reports it. */
export interface RunWorkspace {
  /** The folder the run worked in (`session.start`), `null` when the log does not say. */
  path: string | null;
  /** `temp`: a copy loopdeck made; `none`: the project itself, in place (never pruned); `unknown`: `policy.json` unreadable. */
  copy: 'temp' | 'none' | 'unknown';
  exists: boolean;
  /** The folder's real path (links resolved) while it is there, `null` when it is gone: runs that recorded one folder, by whatever path, have the same. */
  real: string | null;
  /** Apparent size of its files in bytes (symlinks not followed; measured once per folder by {@link listRuns}); `null` when gone or unreadable. */
  bytes: number | null;
  /** The stash the workspace's repository holds: the one an abort parked the work in (also when that cannot be told), another, or none. */
  stash: 'abort' | 'other' | null;
  /** Set when `runs --prune` removed the copy. */
  pruned: PrunedRecord | null;
  /** Whether the folder proves it is the copy loopdeck made for this run ({@link CopyProof}); `null` when there is no folder to check (gone, or not recorded). */
  proof: CopyProof | null;
}

/**
 * What the folder a run records proves of itself: `marked` when its own `.git` holds
 * loopdeck's mark ({@link COPY_MARK}) naming this run; `unmarked` when it is a real folder
 * with a real `.git` and no mark (a copy made before loopdeck marked its copies, or a
 * repository loopdeck never made); `not_ours` for anything else, with why (a symlink, no
 * `.git` of its own, a mark naming another run).
 */
export type CopyProof = { kind: 'marked' } | { kind: 'unmarked' } | { kind: 'not_ours'; why: string };

/** One run directory, its log read and folded on trial (what `replay` and `resume` would say of it), no event kept. */
export interface RunEntry {
  id: string;
  runDir: string;
  /** The run's id as its log records it (`session` of its events), `null` when no event is folded. */
  session: string | null;
  /** Epoch ms of `session.start`, `null` when not started. */
  started: number | null;
  /** Epoch ms of the last event recorded. */
  lastAt: number | null;
  state: RunState;
  /** The live process holding the run (also for an ended run whose console is still open). */
  pid: number | null;
  /** The end recorded by `session.complete`. */
  outcome: { reason: DoneReason; summary: string; at: number } | null;
  workspace: RunWorkspace;
  log: RunLog;
}

/** What `runs` reads of a log: the state `replay` folds from it, reduced to its start, end, abort and last event, with what was wrong with it. */
interface LogFacts {
  session: string | null;
  start: { at: number; workspace: string | null } | null;
  lastAt: number | null;
  complete: { at: number; reason: DoneReason; summary: string } | null;
  abort: { stash: string; restore: string } | null;
  log: RunLog;
}

/**
 * Counts the events a {@link scanLogFile} hands on and notes what the folded state does not
 * keep: the type of the first, and the time of the last `session.complete` the fold took
 * (an event it refused, and every one after it, is not part of the run `replay` shows).
 */
class FactsSink implements ScanSink {
  /** Events the scanner kept, those the fold refused included. */
  events = 0;
  firstType: string | null = null;
  /** `at` of the last `session.complete` the fold took. */
  completeAt: number | null = null;
  /** The reason of the last `session.complete` the fold did not take (it came after one it refused), when it is a known end. */
  untrustedEnd: DoneReason | null = null;

  event(e: LoopEvent, _piece: Piece, folded = false): void {
    if (this.events++ === 0) this.firstType = e.type;
    if (e.type !== 'session.complete') return;
    if (folded) this.completeAt = e.at;
    else this.untrustedEnd = (DONE_REASONS as readonly unknown[]).includes(e.data.reason) ? e.data.reason : this.untrustedEnd;
  }

  gap(): void {
    // Named in the warnings the scan returns.
  }
}

/** The facts of a log that tells nothing of its run. */
const NO_FACTS: Omit<LogFacts, 'log'> = { session: null, start: null, lastAt: null, complete: null, abort: null };

/**
 * Reads a log as `replay` does ({@link scanLogFile}: a chunk at a time, every line checked
 * and folded on trial) and keeps only what `runs` shows, taken from the folded state, with
 * every problem the reader passed over and whether `resume` would refuse it: an event the
 * fold refuses (and any after it) neither ends the run nor moves its last event. A log that
 * is missing or blank is a run not started; one that cannot be opened, has no readable
 * event, whose schema version this loopdeck cannot read, or whose first event is not a
 * `session.start` the fold takes has `log.unreadable` set.
 */
function scanLog(file: string): LogFacts {
  const sink = new FactsSink();
  const log: RunLog = { warnings: [], unresumable: null, unreadable: null, untrustedEnd: null };
  if (!existsSync(file)) return { ...NO_FACTS, log };
  let folded: Folded;
  try {
    folded = scanLogFile(file, sink);
  } catch (error) {
    if (!(error instanceof LogError)) throw error;
    // Opening it failed, or its session.start is of a schema version this loopdeck cannot read.
    return { ...NO_FACTS, log: { ...log, unreadable: error.message } };
  }
  log.warnings = folded.warnings;
  log.unresumable = folded.unresumable ?? null;
  log.untrustedEnd = sink.untrustedEnd;
  const { state } = folded;
  if (sink.events === 0) {
    if (!isBlankLog(file)) log.unreadable = `${file}: ${NO_READABLE_EVENT}`;
    return { ...NO_FACTS, log };
  }
  if (sink.firstType !== 'session.start' || state.startedAt === null) {
    log.unreadable = sink.firstType !== 'session.start' ? `${file}: its first readable event is not session.start, so where the run worked is not known` : `${file}: its session.start cannot be folded, so where the run worked is not known`;
    return { ...NO_FACTS, log };
  }
  const complete = state.done === null ? null : { at: sink.completeAt ?? state.lastAt ?? state.startedAt, reason: state.done.reason, summary: state.done.summary };
  const abort = state.abort === null ? null : { stash: state.abort.stash, restore: state.abort.restore };
  return { session: state.session, start: { at: state.startedAt, workspace: state.workspace }, lastAt: state.lastAt, complete, abort, log };
}

/** `policy.json`'s workspace: how the run's workspace was made, and from where. */
function savedWorkspace(runDir: string): { copy: 'temp' | 'none' | 'unknown'; source: string | null } {
  try {
    const saved = JSON.parse(readFileSync(path.join(runDir, POLICY_FILE), 'utf8')) as { workspace?: { copy?: unknown; path?: unknown } };
    const copy = saved.workspace?.copy;
    return { copy: copy === 'temp' || copy === 'none' ? copy : 'unknown', source: typeof saved.workspace?.path === 'string' ? saved.workspace.path : null };
  } catch {
    return { copy: 'unknown', source: null }; // `unknown` is never pruned; `runs` shows it as such
  }
}

/** The process's start time in clock ticks since boot, from `/proc/<pid>/stat`; `null` where it cannot be read. */
function startTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read after the last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return Number.isFinite(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/** Records this process as the holder of the run in `runDir` ({@link OWNER_FILE}). */
export function recordOwner(runDir: string, now: Date = new Date()): void {
  const record: OwnerRecord = { pid: process.pid, start_ticks: startTicks(process.pid), opened_at: now.toISOString() };
  writeFileSync(path.join(runDir, OWNER_FILE), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

/** The pid of the live process that holds `runDir`, else `null` (no record, the process gone, or its pid reused). */
export function liveOwner(runDir: string): number | null {
  let record: Partial<OwnerRecord>;
  try {
    record = JSON.parse(readFileSync(path.join(runDir, OWNER_FILE), 'utf8')) as Partial<OwnerRecord>;
  } catch {
    return null;
  }
  const pid = record.pid;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  if (typeof record.start_ticks === 'number') {
    const now = startTicks(pid);
    if (now !== null && now !== record.start_ticks) return null;
  }
  return pid;
}

/**
 * The stash the workspace's repository holds: `abort` when the stash an abort recorded is
 * still there (its sha, from the restore instruction `git stash apply <sha>`, is in the
 * stash reflog or is `refs/stash`), `other` for any other stash entry (the user's own, or
 * one copied with the source's `.git`), `null` for none. An abort that made a stash whose
 * sha the record does not give, or stash files that cannot be read, count as `abort`: a
 * copy is kept when in doubt.
 */
function stashIn(workspace: string, abort: LogFacts['abort']): 'abort' | 'other' | null {
  const sha = abort ? /git stash apply ([0-9a-f]{7,64})/.exec(abort.restore)?.[1] : undefined;
  if (abort && !sha && /^(stashed|failed)/.test(abort.stash)) return 'abort';
  const dotGit = path.join(workspace, '.git');
  let texts: string[];
  try {
    const read = (file: string) => (existsSync(path.join(dotGit, file)) ? readFileSync(path.join(dotGit, file), 'utf8') : '');
    texts = [read('refs/stash'), read('logs/refs/stash'), read('packed-refs').split('\n').filter((l) => l.endsWith(' refs/stash')).join('\n')];
  } catch {
    return 'abort';
  }
  if (sha && texts.some((text) => text.includes(sha))) return 'abort';
  return texts.some((text) => text.trim() !== '') ? 'other' : null;
}

/** Apparent size in bytes of the files under `dir` (symlinks counted as links, never followed); `null` when any entry cannot be read. */
export function folderBytes(dir: string): number | null {
  let total = 0;
  const stack = [dir];
  try {
    while (stack.length > 0) {
      const current = stack.pop()!;
      const stat = lstatSync(current);
      total += stat.size;
      if (stat.isDirectory()) for (const name of readdirSync(current)) stack.push(path.join(current, name));
    }
  } catch {
    return null;
  }
  return total;
}

/**
 * The record `runs --prune` left in `runDir`, or `null` when the copy was never pruned.
 * @throws Error naming the file when it is there but not the JSON `runs --prune` writes
 */
function readPruned(runDir: string): PrunedRecord | null {
  const file = path.join(runDir, PRUNED_FILE);
  if (!existsSync(file)) return null;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<PrunedRecord>;
    if (typeof record.workspace === 'string' && typeof record.pruned_at === 'string') return { workspace: record.workspace, pruned_at: record.pruned_at, bytes: typeof record.bytes === 'number' ? record.bytes : null };
  } catch (error) {
    throw new Error(`${file}: cannot read it (${(error as Error).message}); expected the JSON runs --prune writes: workspace, pruned_at, bytes`, { cause: error });
  }
  throw new Error(`${file}: expected the JSON runs --prune writes: workspace, pruned_at, bytes`);
}

/**
 * The real path of `folder` (links resolved), `null` when it is not there.
 * @throws Error naming the folder when it is there but its real path cannot be read
 */
function realFolder(folder: string): string | null {
  if (!existsSync(folder)) return null;
  try {
    return realpathSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // removed since
    throw new Error(`${folder}: cannot read the workspace's real path (${(error as Error).message})`, { cause: error });
  }
}

/** Reads one run directory (see {@link RunEntry}). `sizes: false` skips measuring the workspace. */
export function readRun(runDir: string, options: { sizes?: boolean } = {}): RunEntry {
  const facts = scanLog(path.join(runDir, 'events.jsonl'));
  const saved = savedWorkspace(runDir);
  const pid = liveOwner(runDir);
  const workspacePath = facts.start?.workspace ?? null;
  const real = workspacePath === null ? null : realFolder(workspacePath);
  const exists = real !== null;
  const state: RunState = facts.complete ? 'ended' : pid !== null ? 'running' : facts.start ? (facts.log.unresumable !== null ? 'unresumable' : 'resumable') : facts.log.unreadable !== null ? 'unreadable' : 'not_started';
  return {
    id: path.basename(runDir),
    runDir,
    session: facts.session,
    started: facts.start?.at ?? null,
    lastAt: facts.lastAt,
    state,
    pid,
    outcome: facts.complete,
    workspace: {
      path: workspacePath,
      copy: saved.copy,
      exists,
      real,
      bytes: real !== null && options.sizes !== false ? folderBytes(real) : null,
      stash: real !== null ? stashIn(real, facts.abort) : null,
      pruned: readPruned(runDir),
      proof: workspacePath === null || !exists ? null : proofOf(workspacePath, facts.session),
    },
    log: facts.log,
  };
}

/**
 * Every run under `project`'s `.loopdeck/runs/`, newest first (by start, else by folder
 * name); `[]` when there is none. A folder several runs recorded is measured once.
 */
export function listRuns(project: string, options: { sizes?: boolean } = {}): RunEntry[] {
  const folder = runsFolder(project);
  if (!existsSync(folder)) return [];
  const dirs = readdirSync(folder, { withFileTypes: true }).filter((d) => d.isDirectory());
  const runs = dirs.map((d) => readRun(path.join(folder, d.name), { sizes: false }));
  if (options.sizes !== false) measureWorkspaces(runs);
  return runs.sort((a, b) => (b.started ?? 0) - (a.started ?? 0) || b.id.localeCompare(a.id));
}

/** Sets the size of each run's workspace, measuring each folder (by its real path) once however many runs recorded it. */
function measureWorkspaces(runs: RunEntry[]): void {
  const sizes = new Map<string, number | null>();
  for (const { workspace } of runs) {
    if (workspace.real === null) continue;
    if (!sizes.has(workspace.real)) sizes.set(workspace.real, folderBytes(workspace.real));
    workspace.bytes = sizes.get(workspace.real)!;
  }
}

/** {@link keepReason} of a run whose copy is gone (pruned or missing) or was never recorded. */
export const NO_COPY_LEFT = 'no copy left';

/** {@link keepReason} of a run whose workspace is not proved to be the copy loopdeck made for it ({@link CopyProof} `not_ours`, or not named as loopdeck names its copies). */
export const NOT_LOOPDECK_COPY = 'not a folder loopdeck made';

/** {@link keepReason} of a run whose workspace carries no mark at all ({@link CopyProof} `unmarked`): a copy an earlier loopdeck made, or a repository it never made. */
export const UNMARKED_COPY = 'no mark that loopdeck made it';

/** {@link keepReason} of an ended run whose log is damaged where it may hide a state change (`resume` would refuse it): its end cannot be trusted. */
export const DAMAGED_END = 'log damaged (its end cannot be trusted)';

/** Why `runs --prune` keeps the copy of a run that did not end and that resume refuses. */
export const DAMAGED_STOP = 'not ended (log damaged, resume refuses it)';

/**
 * What the folder `folder` proves of itself for the run `session` ({@link CopyProof}),
 * read from the mark in its own `.git` ({@link copyMarkOf}), never through a link.
 */
function proofOf(folder: string, session: string | null): CopyProof {
  const found = copyMarkOf(folder);
  if (found.kind === 'unmarked') return found;
  if (found.kind === 'foreign') return { kind: 'not_ours', why: found.why };
  if (session === null || found.mark.run !== session) return { kind: 'not_ours', why: `its mark names run ${found.mark.run}${session === null ? '' : `, not ${session}`}` };
  return { kind: 'marked' };
}

/**
 * Why a run's workspace copy must stay, or `null` when `runs --prune` may remove it: the
 * run ended at least `olderThanMs` before `now`, nothing holds it, and its workspace is a
 * copy loopdeck made that is still there without an abort's stash in it.
 */
export function keepReason(run: RunEntry, now: number, olderThanMs: number): string | null {
  const ws = run.workspace;
  if (run.pid !== null) return run.state === 'running' ? 'running' : `still open (pid ${run.pid})`;
  if (run.state === 'resumable') return 'resumable';
  // Never ended: its work may be all there is of it (its log cannot be resumed).
  if (run.state === 'unresumable') return DAMAGED_STOP;
  if (run.state === 'not_started') return 'never started';
  if (run.state === 'unreadable') return 'log unreadable';
  if (run.log.unresumable !== null) return DAMAGED_END;
  if (ws.copy === 'none') return 'in place, not a copy';
  if (ws.copy === 'unknown') return `not known to be a copy (${POLICY_FILE} unreadable)`;
  if (ws.pruned !== null || !ws.exists || ws.path === null) return NO_COPY_LEFT;
  // The run folder says where its copy is, but only the copy proves it is one: its mark.
  if (ws.proof?.kind === 'unmarked' && isLoopdeckCopy(ws.path) && isLoopdeckCopy(ws.real!)) return UNMARKED_COPY;
  if (ws.proof?.kind !== 'marked' || !isLoopdeckCopy(ws.path) || !isLoopdeckCopy(ws.real!)) return NOT_LOOPDECK_COPY;
  if (ws.stash === 'abort') return "holds the abort's stash";
  if (ws.stash === 'other') return 'holds a stash';
  if (run.outcome && now - run.outcome.at < olderThanMs) return 'ended recently';
  return null;
}

/** Named as `prepareWorkspace` names a copy: absolute, `loopdeck-<source>-XXXXXX` (what proves it is one is its mark, {@link CopyProof}). */
function isLoopdeckCopy(folder: string): boolean {
  return path.isAbsolute(folder) && /^loopdeck-[^]+-[A-Za-z0-9]{6}$/.test(path.basename(folder));
}

/**
 * Why a run's workspace is kept as {@link NOT_LOOPDECK_COPY} or {@link UNMARKED_COPY}, in
 * words (`no .git folder of its own`, `its mark names run <id>, not <id>`); `null` for any
 * other reason.
 */
export function proofText(run: RunEntry, why: string): string | null {
  const { proof } = run.workspace;
  if (why === UNMARKED_COPY) return `its .git holds no ${COPY_MARK} (a copy made before loopdeck marked its copies is kept: remove it by hand)`;
  if (why !== NOT_LOOPDECK_COPY) return null;
  if (proof?.kind === 'not_ours') return proof.why;
  if (proof?.kind === 'unmarked') return `its .git holds no ${COPY_MARK}`;
  return 'not named as loopdeck names its copies';
}

/** {@link KeptRun.why} of a run whose own copy could go, but that folder is also one a kept run needs. */
export const SHARED_COPY = "sharing a kept run's copy";

/** How a folder `runs --prune` would remove lies to the workspace of another run: the same folder, one holding it, or one inside it. */
export type Overlap = 'same' | 'holds' | 'inside';

/** A workspace copy `runs --prune` may remove: one folder, with every run that recorded it. */
export interface PrunableCopy {
  /** The folder as the newest of its runs recorded it. */
  path: string;
  /** Its real path (see {@link RunWorkspace.real}). */
  real: string;
  /** Apparent size of its files in bytes, `null` when unknown (as {@link RunWorkspace.bytes}). */
  bytes: number | null;
  /** Every run whose workspace it is, newest first: each ended long enough ago and kept by nothing of its own. */
  runs: RunEntry[];
}

/** A run whose copy `runs --prune` keeps. */
export interface KeptRun {
  run: RunEntry;
  /** Its own {@link keepReason}, or {@link SHARED_COPY}. */
  why: string;
  /** With {@link SHARED_COPY}: the kept run whose workspace overlaps the copy, why that run is kept, and how they overlap; else `null`. */
  keeper: { run: RunEntry; why: string; overlap: Overlap } | null;
}

/** What `runs --prune` does: the copies it may remove, and the runs whose copy it keeps. */
export interface PrunePlan {
  /** One per folder (by real path), in the order of their newest run. */
  copies: PrunableCopy[];
  /** Every run it keeps the copy of, in the order given, those kept for a shared copy last; a run with no copy left too ({@link NO_COPY_LEFT}). */
  kept: KeptRun[];
}

/** Whether `child` is a folder inside `parent` (both real, absolute paths). */
function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** How the folder `copy` lies to `workspace` (both real paths), `null` when removing one leaves the other whole. */
function overlapOf(copy: string, workspace: string): Overlap | null {
  if (copy === workspace) return 'same';
  if (isInside(workspace, copy)) return 'holds';
  return isInside(copy, workspace) ? 'inside' : null;
}

/** The first of the kept runs (`real`: the real path of its workspace) whose workspace overlaps the folder `copy`, `null` when none does. */
function keeperOf(copy: string, keepers: ReadonlyArray<{ run: RunEntry; why: string; real: string }>): KeptRun['keeper'] {
  for (const { run, why, real } of keepers) {
    const overlap = overlapOf(copy, real);
    if (overlap !== null) return { run, why, overlap };
  }
  return null;
}

/**
 * What `runs --prune` does with `runs`, which must be every run of the folder (a run left
 * out cannot keep its copy). A copy goes when every run that recorded it may lose it
 * ({@link keepReason} is `null`) and no kept run works in that folder, in one inside it or
 * in one holding it: it is then one {@link PrunableCopy}, counted and measured once
 * however many runs recorded it (compared by real path). Otherwise every run that recorded
 * it is kept too, with {@link SHARED_COPY} and the run that keeps it.
 */
export function planPrune(runs: readonly RunEntry[], now: number, olderThanMs: number): PrunePlan {
  const kept: KeptRun[] = [];
  const keepers: Array<{ run: RunEntry; why: string; real: string }> = [];
  const groups = new Map<string, RunEntry[]>();
  for (const run of runs) {
    const why = keepReason(run, now, olderThanMs);
    const real = run.workspace.real;
    if (why === null) groups.set(real!, [...(groups.get(real!) ?? []), run]);
    else kept.push({ run, why, keeper: null });
    if (why !== null && why !== NO_COPY_LEFT && real !== null) keepers.push({ run, why, real });
  }
  const copies: PrunableCopy[] = [];
  for (const [real, group] of groups) {
    const keeper = keeperOf(real, keepers);
    if (keeper !== null) kept.push(...group.map((run) => ({ run, why: SHARED_COPY, keeper })));
    else copies.push({ path: group[0]!.workspace.path!, real, bytes: group[0]!.workspace.bytes, runs: group });
  }
  return { copies, kept };
}

/**
 * Why the copy of a kept run stays, in full: its own reason, or for a shared copy which
 * run keeps it and why (`sharing a kept run's copy: it is also the workspace of <id> (resumable)`).
 */
export function keptText(kept: KeptRun): string {
  if (kept.keeper !== null) return `${kept.why}: ${overlapText(kept.keeper)}`;
  const proof = proofText(kept.run, kept.why);
  return proof === null ? kept.why : `${kept.why}: ${proof}`;
}

/** How a kept run's workspace and a copy overlap, from the copy's side: `it is also the workspace of <id> (<why>)`. */
export function overlapText(keeper: NonNullable<KeptRun['keeper']>): string {
  const { run, why, overlap } = keeper;
  const where = run.workspace.path ?? '';
  if (overlap === 'same') return `it is also the workspace of ${run.id} (${why})`;
  return `${overlap === 'holds' ? 'it holds' : 'it is inside'} ${where}, the workspace of ${run.id} (${why})`;
}

/**
 * Removes a copy of the plan ({@link planPrune}) and records it in the folder of every run
 * that recorded it ({@link PRUNED_FILE}); their logs, `policy.json` and any report stay.
 * Each of those runs is read again first, and nothing is removed when any of them may no
 * longer be pruned (it was resumed, its console opened, a stash appeared) or no longer
 * records that folder (it is gone, or the run names another).
 * @returns the record written (each run's records the folder as that run named it)
 * @throws Error naming the run's folder, the copy and why it stays; any error of the removal itself
 */
export function pruneCopy(copy: PrunableCopy, now: number, olderThanMs: number): PrunedRecord {
  for (const run of copy.runs) {
    const fresh = readRun(run.runDir, { sizes: false });
    if (fresh.workspace.real !== copy.real) {
      const why = fresh.workspace.real === null ? 'it is no longer there' : `the run now records ${fresh.workspace.path}`;
      throw new Error(`${run.runDir}: the workspace copy ${copy.path} was not removed: ${why}`);
    }
    const keep = keepReason(fresh, now, olderThanMs);
    if (keep !== null) throw new Error(`${run.runDir}: the workspace copy ${copy.path} is kept (${keep})`);
  }
  const prunedAt = new Date(now).toISOString();
  rmSync(copy.real, { recursive: true, force: true });
  for (const run of copy.runs) {
    const record: PrunedRecord = { workspace: run.workspace.path!, pruned_at: prunedAt, bytes: copy.bytes };
    writeFileSync(path.join(run.runDir, PRUNED_FILE), `${JSON.stringify(record)}\n`);
  }
  return { workspace: copy.path, pruned_at: prunedAt, bytes: copy.bytes };
}
