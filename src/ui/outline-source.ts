// What the outline (src/ui/outline.ts) shows, read as cheaply as possible: before the
// YAML parser, the schema or the log reader are loaded. These readers are best effort by
// design: any file they cannot read at once, or any form they do not recognise exactly,
// gives `null` (the outline then shows no goal), never an error. The full readers that
// run next (loadPolicy, readLog) read the same files and report every problem.
import { closeSync, openSync, readSync, statSync, readFileSync } from 'node:fs';
import type { OutlineInfo } from './outline.js';

/** A loop.yaml larger than this is not read for the outline. */
const YAML_LIMIT = 256 * 1024;
/** The first line of a log is looked for in this many bytes. */
const FIRST_LINE_LIMIT = 64 * 1024;
/** A log up to this size is searched for goal revisions; a longer one shows no goal. */
const LOG_LIMIT = 1024 * 1024;

/** A line with nothing but spaces and perhaps a comment. */
const EMPTY = /^\s*(#.*)?$/;
const indentOf = (line: string) => /^ */.exec(line)![0].length;

/**
 * The value of a one-line YAML scalar (`value` is what follows `key: `), or `null` for
 * anything but a single-quoted, JSON-compatible double-quoted or plain scalar on one line:
 * block scalars, anchors, aliases, tags, flow collections, `null`, a plain value with
 * `: ` in it.
 */
function oneLineScalar(value: string): string | null {
  const double = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/.exec(value);
  if (double) {
    try {
      return JSON.parse(`"${double[1]}"`) as string;
    } catch {
      return null; // a YAML escape JSON does not have (\x, \e, \N…)
    }
  }
  const single = /^'((?:[^']|'')*)'\s*(?:#.*)?$/.exec(value);
  if (single) return single[1]!.replace(/''/g, "'");
  if (/^[&*!|>%@`{}[\],#'"]|^[-?:](\s|$)/.test(value)) return null;
  const plain = value.replace(/(^|\s)#.*$/, '').trim();
  if (plain === '' || plain === '~' || /^null$/i.test(plain) || /:(\s|$)/.test(plain)) return null;
  return plain;
}

/**
 * `goal.objective` of a loop.yaml's text, when it is written in the plain form
 * `goal:` at the start of a line, `objective: <scalar>` one level in, on one line (as
 * `loopdeck init` and every example write it); otherwise `null`. A value read here is the
 * value the YAML parser reads: any form this does not handle exactly gives `null`.
 */
export function objectiveOfYaml(text: string): string | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  // A second document, a directive or a tab in the indentation: not the plain form.
  if (lines.filter((l) => /^---(\s|$)/.test(l)).length > 1 || lines.some((l) => /^%|^\.\.\.(\s|$)|^ *\t/.test(l))) return null;
  const goals = lines.flatMap((line, i) => (/^["']?goal["']?\s*:/.test(line) ? [i] : []));
  if (goals.length !== 1 || !/^goal:\s*(#.*)?$/.test(lines[goals[0]!]!)) return null;
  // The goal's block: the lines after `goal:` up to the next line at the left margin.
  const block: string[] = [];
  for (const line of lines.slice(goals[0]! + 1)) {
    if (!EMPTY.test(line) && indentOf(line) === 0) break;
    block.push(line);
  }
  const first = block.find((l) => !EMPTY.test(l));
  if (first === undefined) return null;
  const indent = indentOf(first);
  const key = new RegExp(`^ {${indent}}objective:(?:\\s+(.*))?$`);
  const at = block.flatMap((line, i) => (key.test(line) ? [i] : []));
  if (at.length !== 1 || block.some((l) => /^ *- /.test(l) && indentOf(l) === indent)) return null;
  const value = key.exec(block[at[0]!]!)![1]?.trim() ?? '';
  if (value === '') return null;
  // A plain scalar goes on over more-indented lines: not a one-line value then.
  const next = block.slice(at[0]! + 1).find((l) => l.trim() !== '');
  if (next !== undefined && indentOf(next) > indent && !next.trim().startsWith('#')) return null;
  return oneLineScalar(value);
}

/**
 * The outline of `run`: the objective given with `--goal`, else the one in `file`
 * (read as {@link objectiveOfYaml} reads it, files over 256 KiB skipped), and `run`, the
 * id made for the run before it is prepared (the id it is then prepared with; `null`:
 * none shown). Never throws.
 */
export function outlineOfConfig(file: string, goal?: string, run: string | null = null): OutlineInfo {
  if (goal !== undefined) return { objective: goal.trim(), run };
  try {
    const size = statSync(file, { throwIfNoEntry: false })?.size;
    if (size === undefined || size > YAML_LIMIT) return { objective: null, run };
    return { objective: objectiveOfYaml(readFileSync(file, 'utf8')), run };
  } catch {
    return { objective: null, run }; // loadPolicy reads it next and says what is wrong
  }
}

/** The goal's objective in a `session.start` or `goal.revised` event, or `null`. */
function objectiveIn(event: unknown): string | null {
  const goal = (event as { data?: { goal?: { objective?: unknown } } } | null)?.data?.goal;
  return typeof goal?.objective === 'string' ? goal.objective : null;
}

/**
 * The outline of `resume` and `replay`: the run id and objective of the log's first event
 * (`session.start`), the objective of its last `goal.revised` when the log is at most
 * 1 MiB; in a longer log a revision could be anywhere, so no objective. Never throws.
 */
export function outlineOfLog(file: string): OutlineInfo {
  const none: OutlineInfo = { objective: null, run: null };
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const size = statSync(file).size;
    const head = Buffer.alloc(Math.min(size, FIRST_LINE_LIMIT));
    const read = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, read).toString('utf8');
    const end = text.indexOf('\n');
    if (end < 0 && read < size) return none;
    const first = JSON.parse(end < 0 ? text : text.slice(0, end)) as { type?: unknown; session?: unknown };
    if (first?.type !== 'session.start') return none;
    const run = typeof first.session === 'string' ? first.session : null;
    if (size > LOG_LIMIT) return { objective: null, run };
    const all = size === read ? text : readFileSync(file, 'utf8');
    let objective = objectiveIn(first);
    for (const line of all.split('\n')) {
      if (!line.includes('"goal.revised"')) continue;
      try {
        const event = JSON.parse(line) as { type?: unknown };
        if (event.type === 'goal.revised') objective = objectiveIn(event) ?? objective;
      } catch {
        // a damaged line: readLog names it next
      }
    }
    return { objective, run };
  } catch {
    return none; // readLog reads it next and says what is wrong
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
