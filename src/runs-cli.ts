/**
 * `loopdeck runs [folder] [--json] [--prune [--older-than 7d] [--yes]]`: the runs recorded
 * under a folder's `.loopdeck/runs/`, newest first, with their workspace copies; and the
 * removal of the copies of runs that ended long ago (see `runs.ts` for what is kept).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseDuration } from './engine/duration.js';
import { CliError, EXIT } from './exit-codes.js';
import { keptText, listRuns, NO_COPY_LEFT, overlapText, planPrune, proofText, pruneCopy, runsFolder, SHARED_COPY, type KeptRun, type PrunableCopy, type RunEntry } from './runs.js';
import { printError, printJson, printLine } from './text/print.js';
import { sanitize, shownName } from './text/sanitize.js';
import { selfCommand, shortPath } from './continue-command.js';

/**
 * Options of `loopdeck runs`. `olderThan`: a duration (`7d`, `12h`, `90m`, `1h30m`, `0s`);
 * with `--prune` how long ago a run must have ended (default 7d), without it the listing
 * shows only runs whose age (the AGE column) is at least that.
 */
export interface RunsOptions {
  json?: boolean;
  prune?: boolean;
  olderThan?: string;
  yes?: boolean;
}

/** `--older-than` when `--prune` is given without it. */
export const DEFAULT_PRUNE_AGE = '7d';

/**
 * `--older-than` in milliseconds: `<n>d` days, a duration of loop.yaml's grammar, or zero
 * (`0`, `0s`, `0m`, `0h`, `0d`: every run, however recent).
 * @throws CliError (exit 1) naming the value and the accepted forms
 */
export function parseAge(text: string): number {
  const value = text.trim();
  if (/^0[dhms]?$/.test(value)) return 0;
  const days = /^([1-9]\d{0,4})d$/.exec(value);
  if (days) return Number(days[1]) * 86_400_000;
  const seconds = parseDuration(value);
  if (seconds !== null && Number.isFinite(seconds)) return seconds * 1000;
  throw new CliError(`--older-than ${JSON.stringify(text)}: expected a duration such as 7d, 12h, 90m, 1h30m or 0s`);
}

/** Bytes for a person: `512 B`, `4.0 KiB`, `12.3 MiB`, `1.2 GiB`. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return 'size unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** An age for the listing: `45s`, `12m`, `3h`, `9d`. */
function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/** `2026-12-01 10:19` (UTC) or `-`. */
function formatTime(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * The state column: {@link stateOf}, then `, log damaged` when the log reader passed lines
 * over (`ended: goal_met, log damaged`); an unresumable run's state says so already.
 */
function stateText(run: RunEntry): string {
  const state = stateOf(run);
  return run.log.warnings.length > 0 && run.state !== 'unreadable' && run.state !== 'unresumable' ? `${state}, log damaged` : state;
}

/**
 * The state alone: `running (pid 123)`, `resumable`, `ended: goal_met`, `not started`,
 * `log unreadable`; for a run not ended whose log resume refuses, `not ended (log damaged,
 * resume refuses it)`, or `end not trusted: log damaged before its goal_met` when the log
 * states an end the fold could not reach.
 */
function stateOf(run: RunEntry): string {
  switch (run.state) {
    case 'running':
      return `running (pid ${run.pid})`;
    case 'resumable':
      return 'resumable';
    case 'unresumable':
      // Not ended, and its log damaged where resume must refuse it: not resumable.
      return run.log.untrustedEnd !== null ? `end not trusted: log damaged before its ${run.log.untrustedEnd}` : 'not ended (log damaged, resume refuses it)';
    case 'ended':
      return `ended: ${run.outcome!.reason}`;
    case 'not_started':
      return run.pid !== null ? `preparing (pid ${run.pid})` : 'not started';
    case 'unreadable':
      return 'log unreadable';
  }
}

/**
 * The note under the table for a run whose log is damaged or unreadable, `null` for a
 * sound one: why it is unreadable, or how many problems the reader passed over and whether
 * `resume` refuses the run for them; then the `replay` command that names each with its line.
 */
function logNote(run: RunEntry): string | null {
  const { warnings, unresumable, unreadable } = run.log;
  if (warnings.length === 0 && unreadable === null) return null;
  const replay = `see ${selfCommand()} replay ${shortPath(run.runDir)}`;
  const problems = `${warnings.length} problem${warnings.length === 1 ? '' : 's'}`;
  if (unreadable !== null) return `${run.id}: log unreadable: ${unreadable}${warnings.length > 0 ? ` (${problems}); ${replay}` : ''}`;
  const refused = unresumable !== null && run.state === 'unresumable' ? '; resume refuses it (a tool call, a decision or a state change may be missing or wrong)' : '';
  return `${run.id}: log damaged: ${problems}${refused}; ${replay}`;
}

/** The workspace column: where the copy is, whether it is there, its size, its stash; or why there is none. */
function workspaceText(run: RunEntry): string {
  const ws = run.workspace;
  // One row a run: a newline or tab in a folder's name is shown as ^J, ^I.
  if (ws.pruned) return `pruned ${ws.pruned.pruned_at.slice(0, 10)} (${formatBytes(ws.pruned.bytes)} freed): ${shownName(ws.pruned.workspace)}`;
  if (ws.path === null) return '-';
  if (ws.copy === 'none') return `in place (not a copy): ${shownName(ws.path)}`;
  if (!ws.exists) return `missing: ${shownName(ws.path)}`;
  const stash = ws.stash === 'abort' ? ", holds the abort's stash" : ws.stash === 'other' ? ', holds a stash' : '';
  return `${shownName(ws.path)} (${formatBytes(ws.bytes)}${stash})`;
}

/** The age column: since the run ended, else since its last event. */
function ageOf(run: RunEntry, now: number): string {
  const at = run.outcome?.at ?? run.lastAt ?? run.started;
  return at === null ? '-' : formatAge(now - at);
}

/** When a run was last heard of (its end, its last event, its start): what its age counts from. */
function lastHeard(run: RunEntry): number | null {
  return run.outcome?.at ?? run.lastAt ?? run.started;
}

/** One JSON object per run for `--json`: times ISO 8601 UTC, sizes in bytes; `keptByPrune`: why `--prune` would keep its copy ({@link keptText}), `null` when it would go. */
function jsonOf(run: RunEntry, now: number, keptByPrune: string | null) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const end = lastHeard(run);
  return {
    id: run.id,
    run_dir: run.runDir,
    started: iso(run.started),
    state: run.state,
    pid: run.pid,
    outcome: run.outcome ? { reason: run.outcome.reason, summary: run.outcome.summary, ended: iso(run.outcome.at) } : null,
    age_seconds: end === null ? null : Math.max(0, Math.floor((now - end) / 1000)),
    workspace: {
      path: run.workspace.path,
      copy: run.workspace.copy,
      exists: run.workspace.exists,
      bytes: run.workspace.bytes,
      stash: run.workspace.stash,
      pruned: run.workspace.pruned,
    },
    log: run.log,
    kept_by_prune: keptByPrune,
  };
}

/** The listing as a table: a header, then one row per run, the workspace last (it may be long). */
function printTable(runs: RunEntry[], now: number): void {
  const rows = runs.map((run) => [run.id, formatTime(run.started), stateText(run), ageOf(run, now), workspaceText(run)]);
  const header = ['RUN', 'STARTED (UTC)', 'STATE', 'AGE', 'WORKSPACE'];
  const widths = header.slice(0, -1).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) printLine(row.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell)).join('  '));
  const notes = runs.map(logNote).filter((note) => note !== null);
  if (notes.length > 0) printLine(['', ...notes].join('\n'));
}

/** Asks a y/N question on the terminal; `true` only for `y` or `yes`. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

/**
 * Lists the runs of `project`, or prunes their copies (`--prune`).
 * @throws CliError: exit 1 for a folder that is not there, a bad `--older-than` or options
 *   that do not go together,
 *   exit 2 when there is something to prune but no terminal to ask on and no `--yes`
 */
export async function runsCommand(project: string, options: RunsOptions): Promise<void> {
  const olderThanMs = parseAge(options.olderThan ?? DEFAULT_PRUNE_AGE);
  if (!options.prune && options.yes) throw new CliError(`--yes goes with --prune (${selfCommand()} runs --prune --yes)`);
  if (options.prune && options.json) throw new CliError('--json lists runs; --prune removes copies: use one at a time');
  if (!statSync(project, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliError(`${shownName(path.resolve(project))} is not a folder: pass the folder \`${selfCommand()} run\` was started in`);
  }
  const now = Date.now();
  const listed = listRuns(project);
  const where = shownName(runsFolder(project));
  // Without --prune, --older-than narrows the listing to runs of at least that age.
  const oldEnough = (run: RunEntry) => {
    const at = lastHeard(run);
    return at !== null && now - at >= olderThanMs;
  };
  const runs = options.prune || options.olderThan === undefined ? listed : listed.filter(oldEnough);
  if (!options.prune) {
    if (options.json) {
      // Planned over every run: a run left out of the listing may still keep a copy it shares.
      const kept = new Map(planPrune(listed, now, olderThanMs).kept.map((k) => [k.run, keptText(k)]));
      for (const run of runs) printJson(jsonOf(run, now, kept.get(run) ?? null));
      return;
    }
    if (runs.length === 0 && listed.length > 0) {
      printLine(`no runs older than ${sanitize(options.olderThan ?? '', { oneLine: true }).trim()} under ${where} (${listed.length} newer)`);
      return;
    }
    if (runs.length === 0) {
      printLine(`no runs under ${where} (a run is recorded under .loopdeck/runs of the folder \`${selfCommand()} run\` was started in)`);
      return;
    }
    printTable(runs, now);
    return;
  }
  await prune(runs, now, olderThanMs, options, where);
}

/** `kept: 1 resumable, 2 holds the abort's stash`: how many runs `--prune` keeps the copy of, by reason (runs with no copy left not counted); `''` for none. */
function keptSummary(kept: readonly KeptRun[]): string {
  const counts = new Map<string, number>();
  for (const { why } of kept) if (why !== NO_COPY_LEFT) counts.set(why, (counts.get(why) ?? 0) + 1);
  return [...counts].map(([why, n]) => `${n} ${why}`).join(', ');
}

/** One line per copy kept because a kept run needs that folder: the copy, whose it is, and which run keeps it and why. */
function sharedLines(kept: readonly KeptRun[], age: string): string[] {
  const byCopy = new Map<string, KeptRun[]>();
  for (const k of kept) if (k.why === SHARED_COPY) byCopy.set(k.run.workspace.real!, [...(byCopy.get(k.run.workspace.real!) ?? []), k]);
  return [...byCopy.values()].map((group) => {
    const whose = group.length === 1 ? group[0]!.run.id : `${group.length} runs`;
    return `kept ${shownName(group[0]!.run.workspace.path!)}, the copy of ${whose} ended more than ${age} ago: ${overlapText(group[0]!.keeper!)}`;
  });
}

/** One line per run whose workspace is not proved to be loopdeck's copy for it: the folder, the run, and why it stays. */
function proofLines(kept: readonly KeptRun[]): string[] {
  return kept.flatMap(({ run, why }) => {
    const proof = proofText(run, why);
    return proof === null ? [] : [`kept ${shownName(run.workspace.path!)}, the workspace of ${run.id}: ${why}: ${proof}`];
  });
}

/** The lines of a copy to remove: its newest run with the folder and its size, then each other run that recorded it. */
function copyLines(copy: PrunableCopy, now: number): string[] {
  return copy.runs.map((run, i) => {
    const ended = `ended: ${run.outcome!.reason}, ${formatAge(now - run.outcome!.at)} ago`;
    return i === 0 ? `  ${run.id}  ${ended}  ${shownName(copy.path)}  ${formatBytes(copy.bytes)}` : `  ${run.id}  ${ended}  (the same copy)`;
  });
}

async function prune(runs: RunEntry[], now: number, olderThanMs: number, options: RunsOptions, where: string): Promise<void> {
  const age = (options.olderThan ?? DEFAULT_PRUNE_AGE).trim();
  const { copies, kept } = planPrune(runs, now, olderThanMs);
  const keptText = keptSummary(kept);
  const shared = [...sharedLines(kept, age), ...proofLines(kept)];
  if (copies.length === 0) {
    printLine(`nothing to prune under ${where}: no run that ended more than ${age} ago has a workspace copy that may go${keptText ? ` (kept: ${keptText})` : ''}`);
    for (const line of shared) printLine(line);
    return;
  }
  const total = copies.reduce((sum, copy) => sum + (copy.bytes ?? 0), 0);
  printLine(`copies of runs ended more than ${age} ago (logs and reports stay):`);
  for (const copy of copies) for (const line of copyLines(copy, now)) printLine(line);
  if (keptText) printLine(`kept: ${keptText}`);
  for (const line of shared) printLine(line);
  const what = `${copies.length} workspace cop${copies.length === 1 ? 'y' : 'ies'} (${formatBytes(total)})`;
  if (!options.yes) {
    if (process.stdin.isTTY !== true) {
      throw new CliError(`runs --prune: no terminal to ask on, so nothing was removed; add --yes to remove the ${what}`, EXIT.unconfirmed);
    }
    if (!(await confirm(`remove the ${what}? [y/N] `))) {
      printLine('nothing removed');
      return;
    }
  }
  let freed = 0;
  const failures: string[] = [];
  for (const copy of copies) {
    try {
      const record = pruneCopy(copy, now, olderThanMs);
      freed += record.bytes ?? 0;
      printLine(`removed ${shownName(record.workspace)}`);
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  printLine(`freed ${formatBytes(freed)}; ${path.join('.loopdeck', 'runs')} keeps every log`);
  if (failures.length > 0) {
    for (const failure of failures) printError(`loopdeck: ${shownName(failure)}`);
    throw new CliError(`runs --prune: ${failures.length} of ${copies.length} copies were not removed (listed above)`);
  }
}
