/**
 * The files side of `loopdeck import` and `loopdeck audit`: reading transcripts, writing a
 * run directory, printing reports. The logic is in src/engine/audit/ (pure).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseTranscript, type ImportFormat } from './engine/agents/transcripts/index.js';
import { auditEntries, describeSpend, type AuditOptions, type AuditReport } from './engine/audit/audit.js';
import { importEvents } from './engine/audit/import.js';
import { parsePolicy, type LoopPolicy } from './engine/policy.js';
import { describeError } from './engine/errors.js';
import { CliError, EXIT } from './exit-codes.js';
import { toJson } from './text/json.js';
import { printError, printJson, printLine } from './text/print.js';
import { sanitize, shownName } from './text/sanitize.js';

/** Files a folder audit reads: transcripts by their usual names. */
const TRANSCRIPT_FILE = /\.(jsonl|json|ndjson)$/i;

function readTranscript(file: string): { format: ImportFormat; entries: ReturnType<typeof parseTranscript>['entries']; text: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`${file}: cannot read the transcript (${(error as NodeJS.ErrnoException).code ?? describeError(error)})`, EXIT.usage);
  }
  try {
    return { ...parseTranscript(text, file), text };
  } catch (error) {
    throw new CliError(describeError(error), EXIT.usage);
  }
}

/**
 * `loopdeck import <file> [-o dir]`: writes `<dir>/events.jsonl` (default dir: the file's
 * name without its extensions plus `.loopdeck`, in the current folder). Refuses to
 * overwrite a run directory that already has a log.
 * @returns the log's path
 */
export function importTranscript(file: string, out: string | undefined, logFile: string): string {
  const { format, entries, text } = readTranscript(file);
  const dir = out ?? `${path.basename(file).replace(/(\.[a-z]+)+$/i, '')}.loopdeck`;
  const log = path.join(dir, logFile);
  if (existsSync(log)) throw new CliError(`${log}: a run log is already there; choose another directory with -o`, EXIT.usage);
  const session = `import-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
  const events = importEvents(entries, { name: path.basename(file), format, session, at: Math.round(statSync(file).mtimeMs) });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(log, events.map((e) => toJson(e)).join('\n') + '\n', { mode: 0o600 });
  return log;
}

/** The audit settings of a loaded loop.yaml. */
export function auditOptionsOf(policy: LoopPolicy): AuditOptions {
  const { on_detect: _onDetect, ...repetition } = policy.repetition;
  return { limits: policy.budget.limits, repetition, stagnation_threshold: policy.stagnation.checkpoints_without_observed_progress };
}

/** The transcripts an audit reads: the file, or a folder's transcript files in name order. */
function targets(target: string): string[] {
  const stat = statSync(target, { throwIfNoEntry: false });
  if (!stat) throw new CliError(`${shownName(target)}: no such file or folder`, EXIT.usage);
  if (!stat.isDirectory()) return [target];
  return readdirSync(target)
    .filter((name) => TRANSCRIPT_FILE.test(name))
    .sort()
    .map((name) => path.join(target, name))
    .filter((file) => statSync(file).isFile());
}

function printReport(file: string, format: ImportFormat, report: AuditReport): void {
  printLine(`${shownName(file)} (${format}): ${describeSpend(report.total)}; ${report.test_runs} test run(s) found in the agent's own tool output`);
  for (const f of report.firings) {
    printLine(`  ${f.detector} at turn ${f.at.turn}, tool call ${f.at.tool_call}: ${sanitize(f.detail, { oneLine: true })}; after it: ${describeSpend(f.after)}`);
  }
  printLine(`  verdict: ${report.verdict}`);
}

/**
 * `loopdeck audit <file|folder>`: one report per session; for a folder one line each and
 * the total saved by the earliest firing of each session. Unreadable files in a folder are
 * reported and skipped; a single unreadable file is an error.
 */
export function auditCommand(target: string, options: AuditOptions, json: boolean): void {
  const files = targets(target);
  const folder = files.length !== 1 || files[0] !== target;
  if (files.length === 0) throw new CliError(`${shownName(target)}: no transcript files (*.jsonl, *.json) in this folder`, EXIT.usage);
  const saved = { turns: 0, cost_usd: 0, costUnknown: 0, sessions: 0, estimated: false };
  for (const file of files) {
    let read: ReturnType<typeof readTranscript>;
    try {
      read = readTranscript(file);
    } catch (error) {
      if (!folder) throw error;
      printError(`loopdeck: skipped ${describeError(error)}`);
      continue;
    }
    const report = auditEntries(read.entries, options);
    saved.sessions += 1;
    const first = report.firings[0];
    if (first) {
      saved.turns += first.after.turns;
      if (first.after.cost_usd === null) saved.costUnknown += 1;
      else saved.cost_usd += first.after.cost_usd;
      if (first.after.cost_estimated) saved.estimated = true;
    }
    if (json) printJson({ file, format: read.format, ...report });
    else if (folder) printLine(`${shownName(file)}: ${report.verdict}`);
    else printReport(file, read.format, report);
  }
  if (!folder) return;
  const unknown = saved.costUnknown > 0 ? ` (cost unknown for ${saved.costUnknown} of them)` : '';
  const total = `${saved.sessions} session(s): would have saved ${saved.turns} turns and ${saved.estimated ? 'about ' : ''}$${saved.cost_usd.toFixed(2)}${unknown}`;
  if (json) printJson({ total: { sessions: saved.sessions, turns: saved.turns, cost_usd: Number(saved.cost_usd.toFixed(6)), cost_unknown_sessions: saved.costUnknown, cost_estimated: saved.estimated } });
  else printLine(total);
}

/** loopdeck's defaults, read through the loop.yaml schema (the one source of them). */
export function defaultAuditPolicy(): LoopPolicy {
  const source = "goal: { objective: audit }\nagent: { kind: command, command: 'true' }\nworkspace: { path: . }\nverify: [{ command: 'true' }]\n";
  return parsePolicy(source, path.join(process.cwd(), '(defaults).yaml'));
}
