// The built-in demo (loop.yaml at the repository root) as the end-to-end tests start it:
// its loop.yaml written to a test's own folder, paths made absolute, with the changes a
// test asks for; the run's log; and the removal of what a run leaves behind (its folder
// and the temporary copy of the workspace it worked in).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';

export const ROOT = path.resolve(import.meta.dirname, '../..');
/** The demo's loop.yaml. */
export const DEMO_CONFIG = path.join(ROOT, 'loop.yaml');
/** The demo agent's transcript. */
export const DEMO_SCRIPT = path.join(ROOT, 'fixtures/scripts/payload-bug.yaml');

export interface DemoChanges {
  /** The goal's objective. */
  objective?: string;
  /** The scripted agent's transcript (an absolute path) instead of the demo's. */
  script?: string;
  /** Other lines of the demo's loop.yaml replaced, each `[line, by]` (the line must be there). */
  lines?: Array<[string, string]>;
}

/** The demo's loop.yaml with absolute paths and `changes` made. */
export function demoConfig(changes: DemoChanges = {}): string {
  let text = readFileSync(DEMO_CONFIG, 'utf8');
  const replace = (line: string, by: string) => {
    if (!text.includes(line)) throw new Error(`the demo's loop.yaml has no line ${JSON.stringify(line)}`);
    text = text.replace(line, by);
  };
  replace('script: fixtures/scripts/payload-bug.yaml', `script: ${JSON.stringify(changes.script ?? DEMO_SCRIPT)}`);
  replace('path: fixtures/workspaces/payload-bug', `path: ${JSON.stringify(path.join(ROOT, 'fixtures/workspaces/payload-bug'))}`);
  if (changes.objective !== undefined) replace('objective: Names with accents must survive the payload round trip', `objective: ${JSON.stringify(changes.objective)}`);
  for (const [line, by] of changes.lines ?? []) replace(line, by);
  return text;
}

/** Writes {@link demoConfig} to `dir`/loop.yaml and returns its path. */
export function writeDemoConfig(dir: string, changes: DemoChanges = {}): string {
  const file = path.join(dir, 'loop.yaml');
  writeFileSync(file, demoConfig(changes));
  return file;
}

/**
 * Writes a transcript to `dir`/`name` made of the demo agent's turns that `keep` picks
 * (by the turn and its index) and returns its path.
 */
export function writeDemoTurns(dir: string, keep: (turn: { tool_calls?: Array<{ name: string }>; final?: string }, index: number) => boolean, name = 'script.yaml'): string {
  const script = parse(readFileSync(DEMO_SCRIPT, 'utf8')) as { turns: Array<{ tool_calls?: Array<{ name: string }>; final?: string }> };
  const file = path.join(dir, name);
  writeFileSync(file, stringify({ ...script, turns: script.turns.filter(keep) }));
  return file;
}

/** The log (events.jsonl) of the run recorded under `cwd`, or `null` before there is one. */
export function runLog(cwd: string): string | null {
  const runs = path.join(cwd, '.loopdeck/runs');
  const [run] = existsSync(runs) ? readdirSync(runs) : [];
  return run ? path.join(runs, run, 'events.jsonl') : null;
}

/** The temporary workspace copy the run under `cwd` worked in, named by its log's first event; `null` when there is none. */
export function runWorkspace(cwd: string): string | null {
  const file = runLog(cwd);
  try {
    const first = file ? readFileSync(file, 'utf8').split('\n', 1)[0] : '';
    const workspace = first ? (JSON.parse(first) as { data: { workspace?: unknown } }).data.workspace : undefined;
    return typeof workspace === 'string' && workspace.startsWith(os.tmpdir()) ? workspace : null;
  } catch {
    return null; // no complete first line: nothing was copied yet
  }
}

/** Removes `cwd` and the temporary workspace copy of the run recorded there. */
export function removeRun(cwd: string): void {
  const workspace = runWorkspace(cwd);
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
}
