import type { TestOutcome } from '../types.js';
import type { TestReport } from './types.js';

const SUMMARY = /^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/;
const SUBTEST = /^((?: {4})*)# Subtest: (.*)$/;
const POINT = /^((?: {4})*)(not ok|ok)\b(?: +\d+)?(?: +-)?(?: +(.*?))?(?: +# +(SKIP|TODO)\b.*)?$/i;

/**
 * Parses TAP 13/14 as written by `node --test --test-reporter=tap`.
 *
 * Counts come from the runner's own `# pass N` / `# fail N` / `# cancelled N` summary
 * (cancelled tests count as failing; `total` is `passing + failing`, so skipped and todo
 * tests are excluded). Per-test outcomes come from the `ok` / `not ok` test points at
 * every depth: a subtest is named after its parents, `parent > child`, from the
 * `# Subtest:` comments; points with a SKIP or TODO directive go to `skipped` by name,
 * and `describe` suites (`type: 'suite'` in their YAML block) are left out, as node
 * leaves them out of its counts. A failing top-level point named by the file of its own
 * `location` is node's entry for a test file that could not be loaded: marked
 * `load_error`. Returns `null` when the output has no TAP summary, so a crash is never
 * read as zero failures. Never throws.
 */
export function parseTap(output: string): TestReport | null {
  const { summary, tests, skipped } = readTap(output);
  if (summary.pass === undefined || summary.fail === undefined) return null;
  const failing = summary.fail + (summary.cancelled ?? 0);
  return { passing: summary.pass, failing, total: summary.pass + failing, tests, ...(skipped.length > 0 ? { skipped } : {}) };
}

/** The test points of a TAP text (what {@link parseTap} lists), whether or not it has a summary. */
export function tapTestPoints(output: string): Pick<TestReport, 'tests'> & { skipped: string[] } {
  const { tests, skipped } = readTap(output);
  return { tests, skipped };
}

/** The summary's counts by name (`pass`, `fail`, ...), and the test points, run and skipped. */
function readTap(output: string): { summary: Record<string, number>; tests: TestOutcome[]; skipped: string[] } {
  const summary: Record<string, number> = {};
  const tests: TestOutcome[] = [];
  const skipped: string[] = [];
  const parents: string[] = [];
  const lines = output.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const count = SUMMARY.exec(line);
    if (count) {
      summary[count[1]!] = Number(count[2]);
      continue;
    }
    const subtest = SUBTEST.exec(line);
    if (subtest) {
      const depth = subtest[1]!.length / 4;
      parents.length = depth;
      parents[depth] = unescapeTap(subtest[2]!);
      continue;
    }
    const point = POINT.exec(line);
    if (!point) continue;
    const indent = point[1]!;
    if (isSuite(lines, i + 1, indent)) continue;
    const name = [...parents.slice(0, indent.length / 4), unescapeTap(point[3] ?? '')].join(' > ');
    const ok = point[2]!.toLowerCase() === 'ok';
    if (point[4] !== undefined) skipped.push(name);
    // node's entry for a test file that failed to load: a top-level point named by the file its location is in.
    else if (!ok && indent === '' && locationFile(lines, i + 1, indent) === name) tests.push({ name, ok, load_error: true, in: name });
    else tests.push({ name, ok });
  }
  return { summary, tests, skipped };
}

/** Whether the YAML block that starts at `lines[start]` says `type: 'suite'`. */
function isSuite(lines: readonly string[], start: number, indent: string): boolean {
  if (lines[start] !== `${indent}  ---`) return false;
  // The block's lines are indented under its point: one that is not ends it (a block never closed is not read on to the end).
  for (let i = start + 1; i < lines.length && lines[i]!.startsWith(`${indent}  `); i++) {
    const line = lines[i]!;
    if (line === `${indent}  ...`) return false;
    if (line === `${indent}  type: 'suite'`) return true;
  }
  return false;
}

/** The file of the `location: '<file>:<line>:<column>'` in the YAML block that starts at `lines[start]`, if it has one. */
function locationFile(lines: readonly string[], start: number, indent: string): string | undefined {
  if (lines[start] !== `${indent}  ---`) return undefined;
  for (let i = start + 1; i < lines.length && lines[i]!.startsWith(`${indent}  `); i++) {
    const line = lines[i]!;
    if (line === `${indent}  ...`) return undefined;
    // YAML quoting as node writes it: single quotes (a quote doubled), or double quotes (backslash escapes) when the path has a single quote.
    const quoted = /^ {2}location: ('.*'|".*")$/.exec(line.slice(indent.length))?.[1];
    if (quoted === undefined) continue;
    // node doubles a backslash in a path (`C:\\p\\a.test.mjs`) inside single quotes too, as in the point's name.
    const where = quoted.startsWith("'") ? unescapeTap(quoted.slice(1, -1).replaceAll("''", "'")) : jsonString(quoted);
    return where === undefined ? undefined : /^(.*):\d+:\d+$/.exec(where)?.[1];
  }
  return undefined;
}

/** A double-quoted string read as JSON reads it, or `undefined`. */
function jsonString(quoted: string): string | undefined {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Undoes node's escaping of `\` and `#` in test names (newlines stay escaped as `\n`). */
function unescapeTap(name: string): string {
  return name.replace(/\\([\\#])/g, '$1');
}
