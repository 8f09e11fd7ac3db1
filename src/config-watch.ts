import { lstatSync, realpathSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { describeError } from './engine/errors.js';
import type { CommandResult } from './engine/operator-command.js';
import type { ReloadRequest } from './engine/run/reload-step.js';
import type { SessionState } from './engine/fold.js';
import { writableFromWorkspace } from './engine/workspace-path.js';

/** Milliseconds of quiet after the last change before the file is read (an editor's save is several writes, a rename, a chmod). */
export const WATCH_DEBOUNCE_MS = 250;

/** What the watcher needs of a session. */
export interface WatchedSession {
  reload(request: ReloadRequest): CommandResult;
  readonly snapshot: SessionState;
}

/** Options of {@link watchConfig}. */
export interface WatchOptions {
  /** The loop.yaml the run was started with. */
  file: string;
  /** The folder the agent works in: a file inside it is never watched. */
  workspace: string;
  /** Approval rules and hooks apply without a key (headless `--watch-config-gates`). */
  gatesWithoutKey?: boolean;
  /** What each reload answered (headless prints it; the console shows the event). */
  onResult?: (result: CommandResult) => void;
  /** The watch itself failed (its folder went away, ...): said where the operator reads. */
  onError: (message: string) => void;
  /** A reload whose changes wait for a key that no one can give (headless): `seq` of its event. */
  onHeld?: (seq: number) => void;
  debounceMs?: number;
}

/** A watch that runs, or why none was started. */
export type ConfigWatch = { watching: true; close: () => void } | { watching: false; reason: string };

/**
 * Watches a run's loop.yaml (`run --watch-config`, docs/design.md, "Live reload") and
 * reloads it {@link WATCH_DEBOUNCE_MS} after the last change. The folder is watched, not
 * the file, so an editor that saves by writing a new file and renaming it over the old one
 * (vim, many IDEs) is still seen; a symlinked loop.yaml is watched at the link and at its
 * target. A file the agent can write (inside the workspace, or linked into it) is never
 * watched: the agent would be changing its own rules; `/reload` still reads it, with the
 * operator's key for every change. The watcher and its timer never keep the process alive.
 */
export function watchConfig(session: WatchedSession, options: WatchOptions): ConfigWatch {
  const file = path.resolve(options.file);
  const inside = writableFromWorkspace(options.workspace, file);
  if (inside) return { watching: false, reason: `--watch-config: ${file} is not watched: ${inside}; /reload in the console reads it, and every change needs your key` };
  const delay = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  let timer: NodeJS.Timeout | null = null;
  const fire = () => {
    timer = null;
    const state = session.snapshot;
    if (state.done) return close();
    const before = state.lastSeq;
    const result = session.reload({ trigger: 'watch', ...(options.gatesWithoutKey ? { gatesWithoutKey: true } : {}) });
    options.onResult?.(result);
    const pending = session.snapshot.reloadPending;
    if (pending && pending.seq > before) options.onHeld?.(pending.seq);
  };
  const changed = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, delay);
    timer.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const target of watchTargets(file)) {
    try {
      const watcher = watch(path.dirname(target), { persistent: false }, (_event, name) => {
        if (name === null || name === path.basename(target)) changed();
      });
      watcher.on('error', (error) => options.onError(`--watch-config: watching ${path.dirname(target)} failed (${describeError(error)}); /reload still reads ${file}`));
      watchers.push(watcher);
    } catch (error) {
      for (const w of watchers) w.close();
      return { watching: false, reason: `--watch-config: cannot watch ${path.dirname(target)} (${describeError(error)}); /reload still reads ${file}` };
    }
  }
  function close(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    for (const w of watchers.splice(0)) w.close();
  }
  return { watching: true, close };
}

/** The file as named and, when it is a symlink, the file it resolves to. */
function watchTargets(file: string): string[] {
  try {
    if (!lstatSync(file).isSymbolicLink()) return [file];
    const real = realpathSync(file);
    return real === file ? [file] : [file, real];
  } catch {
    return [file];
  }
}

/** What `run --watch-config` needs of a prepared run. */
export interface WatchedRun {
  session: WatchedSession & {
    answerReload(seq: number, accept: boolean): CommandResult;
    subscribe(sink: (event: { type: string }) => void): () => void;
    /** Records a line for the operator in the run's log (the console's timeline). */
    notice(text: string): void;
  };
  policy: { file: string };
  workspace: string;
}

/**
 * Starts `run --watch-config` for a prepared run, until the run completes. Headless, each
 * reload's answer goes to stderr through `say`, and changes that wait for a key (approval
 * rules, hooks) are declined at once unless `gates` (`--watch-config-gates`) let them apply:
 * no one is there to press it. In the console they wait for the operator's key.
 * @returns warnings to show (the file is not watched, and why); empty when the watch runs
 */
export function watchRun(run: WatchedRun, options: { headless: boolean; gates: boolean; say: (line: string) => void }): string[] {
  const { session } = run;
  const headless = options.headless;
  const watched = watchConfig(session, {
    file: run.policy.file,
    workspace: run.workspace,
    gatesWithoutKey: headless && options.gates,
    onError: headless ? options.say : (message: string) => session.notice(message),
    ...(headless
      ? {
          onResult: (result: CommandResult) => options.say(result.message),
          onHeld: (seq: number) => {
            const answer = session.answerReload(seq, false);
            options.say(`${answer.message}: a headless run applies changes of approval rules and hooks only with --watch-config-gates`);
          },
        }
      : {}),
  });
  if (!watched.watching) return [watched.reason];
  const unsubscribe = session.subscribe((event) => {
    if (event.type !== 'session.complete') return;
    watched.close();
    unsubscribe();
  });
  return [];
}
