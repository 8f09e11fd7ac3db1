/**
 * The files-and-terminal side of `loopdeck watch` and `loopdeck attach`: which session to
 * follow, the console or headless alert lines, and how a headless follow ends.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { LoopEvent } from '../engine/events.js';
import type { LoopPolicy } from '../engine/policy.js';
import { CliError, EXIT } from '../exit-codes.js';
import { printError, printLine } from '../text/print.js';
import { sanitize, shownName } from '../text/sanitize.js';
import { alertOf } from './alerts.js';
import { answerLineOf, sendAnswer } from './attach-answer.js';
import { attachSource, runLogOf } from './attach.js';
import type { ResumePayload } from '../engine/session.js';
import type { FollowSource } from './console.js';
import { defaultSessionFolders, findSessions, homeFolder, parseSince, type SessionFile } from './sessions.js';
import { watchSource } from './watch.js';
import { consoleTerminal } from '../console-terminal.js';
import { importLive } from '../ui/live-import.js';

/** Options of `loopdeck watch`. */
export interface WatchCommandOptions {
  since?: string;
  latest?: boolean;
  headless?: boolean;
  workspace?: string;
}

/** One line per candidate session: when it was last written, its size, its path. */
function listSessions(sessions: readonly SessionFile[]): void {
  for (const s of sessions) printLine(`${new Date(s.mtimeMs).toISOString()}  ${String(s.size).padStart(10)}  ${shownName(s.file)}`);
}

/**
 * The file to follow, or `null` when the candidates were listed instead: the file named;
 * the newest under a folder (or the default folders) with `--latest`; the only one
 * modified after `--since`. A folder without `--latest` lists its sessions.
 * @throws CliError for a missing file, no candidates, or several without `--latest`
 */
export function pickSession(target: string | undefined, options: WatchCommandOptions, now = Date.now()): string | null {
  let since: number | null = null;
  if (options.since !== undefined) {
    try {
      since = parseSince(options.since, now);
    } catch (error) {
      throw new CliError((error as Error).message, EXIT.usage);
    }
  }
  const stat = target === undefined ? undefined : statSync(target, { throwIfNoEntry: false });
  if (target !== undefined && !stat) throw new CliError(`${shownName(target)}: no such file or folder`, EXIT.usage);
  if (target !== undefined && !stat!.isDirectory()) {
    if (options.latest || since !== null) throw new CliError(`${shownName(target)} is a file: --latest and --since pick a session in a folder (or in the default folders)`, EXIT.usage);
    return target;
  }
  if (target === undefined && !options.latest && since === null) {
    throw new CliError('name the transcript to watch, or pick one with --latest or --since (loopdeck watch --help)', EXIT.usage);
  }
  const folders = target === undefined ? defaultSessionFolders(homeFolder()) : [target];
  const sessions = findSessions(folders, since);
  const where = folders.map(shownName).join(' and ');
  if (sessions.length === 0) throw new CliError(`no session files (*.jsonl) ${since !== null ? `modified after ${new Date(since).toISOString()} ` : ''}under ${where}`, EXIT.usage);
  if (options.latest) return sessions[0]!.file;
  if (since === null) {
    // A folder alone: its sessions, newest first, to pick from.
    listSessions(sessions);
    return null;
  }
  if (sessions.length === 1) return sessions[0]!.file;
  listSessions(sessions);
  throw new CliError(`${sessions.length} sessions were modified after ${new Date(since).toISOString()}: name one, or add --latest for the newest`, EXIT.usage);
}

/** The workspace a `--workspace` names, resolved. @throws CliError when it is not a folder */
export function workspaceOf(given: string | undefined): string | null {
  if (given === undefined) return null;
  if (!statSync(given, { throwIfNoEntry: false })?.isDirectory()) throw new CliError(`--workspace ${given}: no such folder`, EXIT.usage);
  return path.resolve(given);
}

/**
 * Follows `source` without a console: each alert is one line on stdout (`alert: …`), each
 * notice one line on stderr, until SIGINT or SIGTERM, stdout is closed, or `until` says the
 * session ended.
 * @returns the number of alerts printed
 */
export async function followHeadless(source: FollowSource, until: (event: LoopEvent) => boolean = () => false): Promise<number> {
  let alerts = 0;
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  const say = (text: string) => printError(`loopdeck: ${sanitize(text, { oneLine: true })}`);
  // Before anything is read: a signal that comes while the first lines are printed ends the watch cleanly too.
  const onSignal = () => done();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The reader of the alert lines went away (e.g. `| head -1`): that ends the watch too.
  const onStdoutError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    done();
  };
  process.stdout.on('error', onStdoutError);
  const stop = source.start(
    (event) => {
      const alert = alertOf(event);
      if (alert !== null) {
        alerts += 1;
        printLine(`alert: ${sanitize(alert, { oneLine: true })}`);
      } else if (event.type === 'agent.notice') say(event.data.text);
      if (until(event)) done();
    },
    say,
  );
  try {
    await ended;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.stdout.off('error', onStdoutError);
    await stop();
  }
  return alerts;
}

/** Whether to draw the console: not asked to be headless, and a terminal on both ends. */
function interactive(headless: boolean | undefined): boolean {
  return !headless && consoleTerminal();
}

/**
 * `loopdeck watch`. `policy`: the loop.yaml of `--config`; `null` without one (no budget
 * limits, the repetition guard's defaults, no checkpoints).
 */
export async function watchCommand(target: string | undefined, options: WatchCommandOptions, policy: LoopPolicy | null): Promise<void> {
  const file = pickSession(target, options);
  if (file === null) return;
  const workspace = workspaceOf(options.workspace);
  const source = watchSource({ file, policy, workspace });
  if (!interactive(options.headless)) {
    printError(`loopdeck: watching ${shownName(path.resolve(file))}; alerts on stdout; Ctrl+C ends`);
    const alerts = await followHeadless(source);
    printError(`loopdeck: stopped watching ${sanitize(source.describe(), { oneLine: true })}; ${alerts} alert(s)`);
    return;
  }
  const { followConsole } = await importLive(() => import('./console.js'));
  await followConsole(source);
  printLine(`loopdeck: stopped watching ${source.describe()}`);
}

/** `loopdeck attach`. */
export async function attachCommand(target: string, options: { headless?: boolean }): Promise<void> {
  if (!statSync(target, { throwIfNoEntry: false })) throw new CliError(`${target}: no such run directory`, EXIT.usage);
  const interactiveAttach = interactive(options.headless);
  // Only a console answers: a headless attach prints alerts and never answers.
  const line = interactiveAttach ? answerLineOf(path.dirname(runLogOf(target))) : null;
  const source = attachSource({
    target,
    ...(line?.ok ? { answer: (payload: ResumePayload, seq: number) => sendAnswer(line.line, payload, seq) } : {}),
    ...(line && !line.ok ? { readOnlyWhy: line.why } : {}),
  });
  if (!interactiveAttach) {
    printError(`loopdeck: attached to ${shownName(source.file)}; alerts on stdout; ends with the run or Ctrl+C`);
    const alerts = await followHeadless(source, (event) => event.type === 'session.complete');
    printError(`loopdeck: detached; ${alerts} alert(s)`);
    return;
  }
  const { followConsole } = await importLive(() => import('./console.js'));
  await followConsole(source);
  printLine(`loopdeck: detached from ${source.file}`);
}
