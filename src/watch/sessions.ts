/**
 * Finding the session to watch: the folders where Claude Code and Codex keep their session
 * files, the newest file (`--latest`), the files modified after a time (`--since`).
 * `HOME` is read from the environment each time (so a test, or a person, can point it
 * elsewhere).
 */
import { lstatSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseDuration } from '../engine/duration.js';

/** A session file found on disk. */
export interface SessionFile {
  file: string;
  /** Modification time, epoch milliseconds. */
  mtimeMs: number;
  size: number;
}

/** Files a search looks at: transcripts by their usual names. */
const SESSION_FILE = /\.(jsonl|ndjson)$/i;

/** Folder levels a search goes down (Codex: sessions/YYYY/MM/DD/rollout-*.jsonl). */
const MAX_DEPTH = 6;

/** Folder entries a search reads at most: a huge tree is cut short, not walked for minutes. */
const MAX_ENTRIES = 200_000;

/** The home folder: `$HOME` when set, else the system's. */
export function homeFolder(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME && env.HOME.trim() !== '' ? env.HOME : os.homedir();
}

/** Where Claude Code and Codex write their session files, under `home`. */
export function defaultSessionFolders(home: string): string[] {
  return [path.join(home, '.claude', 'projects'), path.join(home, '.codex', 'sessions')];
}

/**
 * The session files under `folders` (`*.jsonl`, `*.ndjson`, at most {@link MAX_DEPTH} levels
 * down; symbolic links are not followed), newest first. A folder that does not exist is
 * skipped; `modifiedAfter` (epoch ms) keeps only files modified after it.
 */
export function findSessions(folders: readonly string[], modifiedAfter: number | null = null): SessionFile[] {
  const found: SessionFile[] = [];
  let budget = MAX_ENTRIES;
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return; // missing or unreadable: nothing there to watch
    }
    for (const name of names) {
      if (--budget < 0) return;
      const full = path.join(dir, name);
      const stat = lstatSync(full, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory() && depth < MAX_DEPTH) walk(full, depth + 1);
      else if (stat.isFile() && SESSION_FILE.test(name) && (modifiedAfter === null || stat.mtimeMs > modifiedAfter)) {
        found.push({ file: full, mtimeMs: stat.mtimeMs, size: stat.size });
      }
    }
  };
  for (const folder of folders) walk(folder, 0);
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
}

/**
 * A `--since` value as epoch milliseconds: a duration back from `now` (`90m`, `2h`, `1h30m`,
 * `3d`), or a date and time `Date.parse` reads (`2026-12-01`, `2026-12-01T08:00`).
 * @throws Error naming the value and what is expected
 */
export function parseSince(text: string, now: number): number {
  const value = text.trim();
  const days = /^([1-9]\d*)d$/.exec(value);
  if (days) return now - Number(days[1]) * 86_400_000;
  const seconds = parseDuration(value);
  if (seconds !== null && Number.isFinite(seconds)) return now - seconds * 1000;
  const at = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(at)) return at;
  throw new Error(`--since ${JSON.stringify(text)}: expected a time back from now (90m, 2h, 1h30m, 3d) or a date and time (2026-12-01, 2026-12-01T08:00)`);
}
