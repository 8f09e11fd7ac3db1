/**
 * What `loopdeck init` finds in a project: every test runner its files name (package.json's
 * test script and dependencies, pytest's config and test files, go.mod, Cargo.toml, the test
 * files `node --test` runs by default), which one it chooses and why, and whether a verify
 * command for it would fail when no test runs (one that passes on nothing is never written).
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { picomatch } from './engine/constraints.js';
import { CONTROL_CHARACTER } from './engine/policy.js';
import { findProgram } from './engine/program-path.js';
import { describeCharacter } from './engine/yaml-file.js';
import { shellQuote } from './text/shell-quote.js';
import { literalWord, nodeType, parseShell, type ShBinaryCmd, type ShCallExpr, type ShStmt, type Source } from './engine/approval/shell-syntax.js';

/** A test runner found in a project, and how loopdeck measures and verifies with it. */
export interface TestRunner {
  /** Shown to the user: `vitest`, `node --test`, `pytest`, `npm test`, ... */
  name: string;
  /** Why it is there: the file and what in it. */
  because: string;
  /** The observer's command; its output is read by `parser`. `null`: loopdeck has no parser for this runner (verify only). */
  observe: string | null;
  parser: 'tap' | 'vitest-json' | 'jest-json' | 'junit' | 'regex' | null;
  /** `parser: regex` only. */
  pattern?: string;
  /** `report_file` of the observer, relative to the workspace, when the command writes one. */
  reportFile?: string;
  /** The verify command: exits 0 when every test passes; `null` when none is written (see `noVerify`). */
  verify: string | null;
  /** Why no verify command is written when `verify` is `null`: the runner passes when no test runs, and no test was found. */
  noVerify?: string;
  /**
   * The options of the command as written that the observer and the verify leave out, each
   * with why: watch flags (`--watchAll`, `vitest watch`), which never exit, and options that
   * leave tests unrun (`-o`, `--changed`, `--lf`). When any is, `npm test` cannot stand for the
   * command: it would run them.
   */
  leftOut?: string[];
  /**
   * The options the observer and the verify add to the command as written, each with why: the
   * no-watch flag of a runner that watches by default when not in CI (`react-scripts test`,
   * `ng test`, `karma start`). As with `leftOut`, `npm test` cannot stand for the command.
   */
  added?: string[];
  /** Set when the script runs a program that waits for file changes (`ptw`, `cargo watch`, `nodemon`): why it never ends. */
  waits?: string;
}

/** What `init` found in a project. */
export interface Detection {
  /** The runner chosen, `null` when none was found. */
  runner: TestRunner | null;
  /** The other runners found, not chosen (each named once). */
  others: TestRunner[];
  /** Why `runner` was chosen over `others`; `''` when there are no others. */
  chosenWhy: string;
  /** Files that could not be read or used, each a sentence naming the file. */
  notes: string[];
  /** What the search for test files covered: `12 folders up to 3 deep`, and whether it stopped at its bound. */
  searched: string;
  /** The npm, yarn or pnpm workspace the project is a package of, when it is one: its dependencies are installed at the root. */
  workspaceRoot?: WorkspaceRoot;
}

/** The root of the npm, yarn or pnpm workspace a package is in. */
export interface WorkspaceRoot {
  /** The root folder, absolute. */
  dir: string;
  /** The file that names the package as one of the workspace's: `package.json's workspaces`, `pnpm-workspace.yaml`. */
  why: string;
}

/** How far up from the project a workspace root is looked for. */
const WORKSPACE_LEVELS = 8;


/**
 * The npm, yarn or pnpm workspace whose packages include the folder `dir`: the nearest
 * folder above it (at most {@link WORKSPACE_LEVELS} up) with a package.json whose
 * `workspaces` (a list of globs, or yarn's `{ packages: [...] }`) or a pnpm-workspace.yaml
 * whose `packages` match `dir`. `null` when there is none. A file that cannot be read or
 * parsed is passed over: it names no workspace.
 */
export function findWorkspaceRoot(project: string): WorkspaceRoot | null {
  const dir = path.resolve(project);
  let root = dir;
  for (let level = 0; level < WORKSPACE_LEVELS; level++) {
    const parent = path.dirname(root);
    if (parent === root) return null;
    root = parent;
    const rel = path.relative(root, dir).split(path.sep).join('/');
    for (const [file, why, globs] of [
      ['pnpm-workspace.yaml', 'pnpm-workspace.yaml', (text: string) => record(parseYaml(text)).packages],
      ['package.json', "package.json's workspaces", (text: string) => { const list = record(JSON.parse(text)).workspaces; return Array.isArray(list) ? list : record(list).packages; }],
    ] as const) {
      let patterns: unknown;
      try {
        patterns = globs(readSmallFile(path.join(root, file), CONFIG_BYTES));
      } catch {
        continue;
      }
      if (!Array.isArray(patterns)) continue;
      const globsOf = (negated: boolean) => patterns.filter((p): p is string => typeof p === 'string' && p.startsWith('!') === negated).map((p) => p.replace(/^!/, '').replace(/^\.\//, '').replace(/\/+$/, ''));
      const included = globsOf(false);
      if (included.length > 0 && picomatch(included, { dot: false })(rel) && !(globsOf(true).length > 0 && picomatch(globsOf(true), { dot: false })(rel))) return { dir: root, why: `${why} (${path.join(root, file)})` };
    }
  }
  return null;
}

/**
 * `runner` run from the workspace root `root` in its package at `rel` (relative to the root,
 * `/`-separated): each command goes into the package's folder first (`cd packages/a && …`),
 * and a report file is named from the root.
 */
export function inPackage(runner: TestRunner, rel: string): TestRunner {
  const cd = `cd ${shellQuote(rel)} && `;
  return {
    ...runner,
    observe: runner.observe === null ? null : cd + runner.observe,
    verify: runner.verify === null ? null : cd + runner.verify,
    ...(runner.reportFile ? { reportFile: `${rel}/${runner.reportFile}` } : {}),
  };
}

/**
 * Counts of a runner that prints no per-test report loopdeck parses, summed by awk after
 * the runner's own output and exit status (which an observer error then quotes: `go: not
 * found`, `exit 127`); no count line when no test ran (so the count is missing, never 0).
 */
const SUMMED = 'failing=(?<failing>\\d+) passing=(?<passing>\\d+)';
const PYTEST_REPORT = '.loopdeck/pytest-report.xml';

/** What a project's files told `init`, and what it could not read (each a sentence naming the file). */
interface Look {
  dir: string;
  notes: string[];
  files: TestFiles;
  /** package.json's object, once read (`null`: none, or not an object). */
  pkg?: Record<string, unknown> | null;
  /** pytest's `addopts` from its config file, once read (`null`: none). */
  addopts?: { file: string; words: string[] } | null;
}

/** The most a project file `init` reads may hold (package.json, pytest's config, requirements), in bytes. */
const CONFIG_BYTES = 4 * 2 ** 20;

/**
 * The text of the regular file `file` when it holds at most `maxBytes` bytes. It is opened
 * without blocking and checked once open, so a named pipe or a device in a file's place (a
 * `package.json` that is a FIFO, a `requirements.txt` linked to /dev/zero) is refused at
 * once, never waited on or read without end.
 * @throws Error with `code` `ENOTREG` (not a regular file) or `EFBIG` (over `maxBytes`); the
 *   errors of open and read (`ENOENT`, `EACCES`, ...)
 */
export function readSmallFile(file: string, maxBytes: number): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error(`${file}: not a regular file`), { code: 'ENOTREG' });
    if (stat.size > maxBytes) throw Object.assign(new Error(`${file}: over ${maxBytes} bytes`), { code: 'EFBIG' });
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Why a project file was not read, in words, from the error of {@link readSmallFile} with `maxBytes`. */
function unread(error: unknown, maxBytes = CONFIG_BYTES): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTREG') return 'not a regular file: a named pipe, a socket or a device';
  if (code === 'EFBIG') return `larger than ${maxBytes / 2 ** 20} MiB`;
  if (code === 'EISDIR') return 'a folder';
  return code ?? (error as Error).message;
}

/** The text of `name` in the project, or `null` when there is no such file; a file it cannot read is a note. */
function readText(look: Look, name: string): string | null {
  try {
    return readSmallFile(path.join(look.dir, name), CONFIG_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') look.notes.push(`${name}: not read (${unread(error)}): the runner it might name was not considered`);
    return null;
  }
}

/** Whether the project has a file `name` (only its presence counts: it is not read). */
function has(look: Look, name: string): boolean {
  return statSync(path.join(look.dir, name), { throwIfNoEntry: false })?.isFile() === true;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** package.json's object, or `null` when there is none or it is not a JSON object (a note says which). A leading BOM is allowed, as npm allows it. */
function packageJson(look: Look): Record<string, unknown> | null {
  const text = readText(look, 'package.json');
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    look.notes.push(`package.json is not valid JSON (${(error as Error).message}): its test runner was not considered`);
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    look.notes.push('package.json is not a JSON object: its test runner was not considered');
    return null;
  }
  return value as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Test files.

/** Folders never searched for test files: dependencies, virtual environments, build output. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.venv', 'venv', 'env', '.tox', '__pycache__', 'build', 'dist', 'site-packages', 'target']);
/** Folders searched first, with everything in them, before the rest: where tests usually are. */
const CONVENTIONAL_DIRS = ['tests', 'test', 'spec', '__tests__', 'src', 'lib'];
/** How deep below the project folder the search for test files goes (a test file three folders down is found, four is not). */
export const TEST_FILE_DEPTH = 3;
/** How many folders the search reads at most; past that it stops and says so. */
export const TEST_FILE_DIRS = 1000;
/** Rust files read for `#[test]` at most, and the largest one read. */
const RUST_READS = 200;
const RUST_BYTES = 512 * 1024;

/** The first test file of each kind found (relative to the project), and how far the search went. */
interface TestFiles {
  /** pytest's default: `test_*.py`, `*_test.py`. */
  python: string | null;
  /** What `node --test` runs with no arguments (Node's default patterns). */
  node: string | null;
  /** `*_test.go`. */
  go: string | null;
  /** A `.rs` file in a `tests` folder, or one holding `#[test]`. */
  rust: string | null;
  dirs: number;
  stopped: boolean;
}

/**
 * Whether `node --test` with no arguments runs `file` (relative): Node's default patterns
 * `**∕*.test.?(c|m)js`, `*-test.*`, `*_test.*`, `test-*.*`, `test.*`, and every such file
 * under a `test` folder.
 */
export function nodeTestFile(rel: string): boolean {
  const name = path.basename(rel);
  if (!/\.[cm]?js$/.test(name)) return false;
  if (/^test(-.+)?\.[cm]?js$/.test(name) || /.[.\-_]test\.[cm]?js$/.test(name)) return true;
  return path.dirname(rel).split(path.sep).includes('test');
}

/** Whether a Rust file holds a test: a `#[test]` (or `#[tokio::test]`, ...) attribute. */
function rustTest(file: string): boolean {
  try {
    return /#\[(\w+::)?test\b/.test(readSmallFile(file, RUST_BYTES));
  } catch {
    return false; // a file too large, unreadable or not a regular one is looked at no further
  }
}

/**
 * Searches the project for test files, breadth first within {@link TEST_FILE_DEPTH} folders,
 * the {@link CONVENTIONAL_DIRS} (and all below them) before any other folder, and stops after
 * {@link TEST_FILE_DIRS} folders or when one file of every kind is found.
 */
function findTestFiles(look: Look): TestFiles {
  const found: TestFiles = { python: null, node: null, go: null, rust: null, dirs: 0, stopped: false };
  // `goOut`: a folder `go test ./...` does not enter (testdata, `_`-named, a nested module's).
  const front: Array<{ rel: string; depth: number; goOut: boolean }> = [{ rel: '', depth: 0, goOut: false }];
  const back: Array<{ rel: string; depth: number; goOut: boolean }> = [];
  let rustReads = 0;
  while (front.length > 0 || back.length > 0) {
    if (found.python && found.node && found.go && found.rust) break;
    if (found.dirs >= TEST_FILE_DIRS) {
      found.stopped = true;
      break;
    }
    const inFront = front.length > 0;
    const { rel, depth, goOut: outside } = inFront ? front.shift()! : back.shift()!;
    found.dirs++;
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(look.dir, rel), { withFileTypes: true });
    } catch (error) {
      look.notes.push(`${rel || '.'}: not searched for test files (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    const goOut = outside || (depth > 0 && entries.some((entry) => entry.isFile() && entry.name === 'go.mod'));
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = path.join(rel, entry.name);
      if (!found.python && /^test_.*\.py$|^.+_test\.py$/.test(entry.name)) found.python = file;
      if (!found.node && nodeTestFile(file)) found.node = file;
      if (!found.go && !goOut && entry.name.endsWith('_test.go')) found.go = file;
      if (!found.rust && entry.name.endsWith('.rs')) {
        if (rel.split(path.sep).includes('tests')) found.rust = file;
        else if (rustReads < RUST_READS && (rustReads++, rustTest(path.join(look.dir, file)))) found.rust = file;
      }
    }
    if (depth >= TEST_FILE_DEPTH) continue;
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
      const next = { rel: path.join(rel, entry.name), depth: depth + 1, goOut: goOut || entry.name === 'testdata' || entry.name.startsWith('_') };
      (inFront && (depth > 0 || CONVENTIONAL_DIRS.includes(entry.name)) ? front : back).push(next);
    }
  }
  return found;
}

/** What the test file search covered, for the messages. */
function searchedText(files: TestFiles): string {
  const dirs = `${files.dirs} folder${files.dirs === 1 ? '' : 's'}`;
  return files.stopped
    ? `searched ${dirs} (up to ${TEST_FILE_DEPTH} deep, tests/, test/, spec/ and src/ first), stopped there: test files in the folders not searched were not looked for`
    : `searched ${dirs} up to ${TEST_FILE_DEPTH} deep`;
}

// ---------------------------------------------------------------------------------------------
// The runners.

/** What the observer and the verify change of the command as written: the options left out, then those added. */
function rewritten(runner: TestRunner): string[] {
  return [...(runner.leftOut ?? []), ...(runner.added ?? [])];
}

/** `runner` with `leftOut` set when anything was left out. */
function noting(runner: TestRunner, leftOut: string[]): TestRunner {
  return leftOut.length > 0 ? { ...runner, leftOut } : runner;
}

/**
 * Where vitest's observer writes its JSON report, relative to the workspace, and the options
 * that make it: `--outputFile` on the command line replaces the config's `test.outputFile`
 * (a string, or one file per reporter), which would otherwise take the JSON report, print
 * nothing to read, and write over the project's own report file (vitest 4). Not
 * `/dev/stdout`: the observer's output is a socket, which cannot be opened by that name
 * (ENXIO). `$PWD`: vitest resolves the path from its root, which the script may move
 * (`--root`). jest takes no `outputFile` from its config (only from its command line, where
 * the observer drops it): its `--json` prints to stdout.
 */
const VITEST_REPORT = '.loopdeck/vitest-report.json';
const VITEST_JSON = `--reporter=json --outputFile="$PWD/${VITEST_REPORT}"`;

/**
 * vitest with the script's `args` (after `vitest`): always `vitest run`, which runs once.
 * `vitest watch` and `vitest dev` watch even with no terminal, `vitest related <files>`
 * runs only the tests importing those files: they are left out, as watch flags are.
 */
function vitestRunner(args: string[], prefix: string, because: string): TestRunner {
  const sub = args[0];
  let rest = args;
  const leftOut: string[] = [];
  if (sub === 'run') rest = args.slice(1);
  else if (sub === 'watch' || sub === 'dev') {
    rest = args.slice(1);
    leftOut.push(`vitest ${sub}, run as vitest run (${WHY_LEFT_OUT.watch})`);
  } else if (sub === 'related') {
    const files = args.slice(1).findIndex((word) => word.startsWith('-'));
    const end = files < 0 ? args.length : files + 1;
    rest = args.slice(end);
    leftOut.push(`${args.slice(0, end).join(' ')} (${WHY_LEFT_OUT.unrun})`);
  }
  const { kept, leftOut: options } = leaveOut('vitest', rest);
  const measured = dropOptions(kept, ['--reporter', '--outputFile', ...STOP_EARLY.vitest]);
  return noting({ name: 'vitest', because, observe: join(prefix, NPX, 'vitest run', ...measured, VITEST_JSON), parser: 'vitest-json', reportFile: VITEST_REPORT, verify: join(prefix, NPX, 'vitest run', ...kept) }, [...leftOut, ...options]);
}

function jestRunner(args: string[], prefix: string, because: string): TestRunner {
  const { kept, leftOut } = leaveOut('jest', args);
  const measured = dropOptions(kept, ['--json', '--outputFile', ...STOP_EARLY.jest]);
  return noting({ name: 'jest', because, observe: join(prefix, NPX, 'jest', ...measured, '--json'), parser: 'jest-json', verify: join(prefix, NPX, 'jest', ...kept) }, leftOut);
}

/** Whether the assignments `prefix` set CI (to anything but nothing): what Create React App and others read as "not watching". */
function setsCI(prefix: string): boolean {
  return /(?:^|\s)CI=(?!(?:''|"")?(?:\s|$))/.test(prefix);
}

/** Why a no-watch flag is added to `command`, for what init prints; `ci`: the command does not watch when CI is set. */
const WHY_ADDED = (command: string, ci = false) => `${command} watches for file changes ${ci ? 'unless CI is set' : 'by default'}, even with no terminal, and would never exit`;

/**
 * Create React App's jest (`react-scripts test`, or `craco test`, `react-app-rewired test`)
 * with the script's `args`: the jest-json observer, and `--watchAll=false` added to both
 * commands unless CI is set or the script passes it (the script adds `--watch` itself
 * otherwise, even with no terminal). Watch flags and options that leave tests unrun are left
 * out as for jest.
 */
function craRunner(program: string, args: string[], prefix: string, because: string): TestRunner {
  const { kept, leftOut } = leaveOut('jest', args);
  const command = `${program} test`;
  const off = setsCI(prefix) || kept.includes('--watchAll=false') ? [] : ['--watchAll=false'];
  const measured = dropOptions(kept, ['--json', '--outputFile', ...STOP_EARLY.jest]);
  const runner = noting({ name: command, because, observe: join(prefix, NPX, command, ...measured, ...off, '--json'), parser: 'jest-json', verify: join(prefix, NPX, command, ...kept, ...off) }, leftOut);
  return off.length > 0 ? { ...runner, added: [`--watchAll=false (${WHY_ADDED(command, true)})`] } : runner;
}

/**
 * A runner loopdeck reads no report of that watches by default when not in CI: `ng test`
 * (`--watch=false` added) or `karma start` (`--single-run` added), with the script's `args`.
 * Verified by the command with its no-watch flag, nothing observed.
 */
function watchingByDefault(kind: 'ng' | 'karma', command: string, args: string[], prefix: string, because: string): TestRunner {
  const { kept, leftOut } = leaveOut(kind, args);
  const once = kind === 'ng' ? ['--watch=false', '--no-watch'] : ['--single-run', '--single-run=true'];
  const off = kept.some((word) => once.includes(word)) ? [] : [once[0]!];
  const runner = noting({ name: command, because: `${because}: nothing is measured (loopdeck has no parser for its output) until you add an observer`, observe: null, parser: null, verify: join(prefix, NPX, command, ...kept, ...off) }, leftOut);
  return off.length > 0 ? { ...runner, added: [`${off[0]} (${WHY_ADDED(command)})`] } : runner;
}

/**
 * mocha with the script's `args`: its TAP reporter (`--reporter tap`, read by the tap
 * parser) in the observer, the script's own reporter in the verify; watch flags and options
 * that leave tests unrun left out of both, `--bail` of the observer.
 */
function mochaRunner(args: string[], prefix: string, because: string): TestRunner {
  const { kept, leftOut } = leaveOut('mocha', args);
  const measured = dropOptions(kept, ['--reporter', '-R', '--reporter-option', '--reporter-options', '-O', ...STOP_EARLY.mocha]);
  return noting({ name: 'mocha', because, observe: join(prefix, NPX, 'mocha', ...measured, '--reporter tap'), parser: 'tap', verify: join(prefix, NPX, 'mocha', ...kept) }, leftOut);
}

/**
 * `node --test` with `words` (the program and every argument, `--test` among them). With no
 * test file named, what Node runs by default is checked: no such file, no verify.
 * `watching`: what was left out before (`tsx watch`).
 */
function nodeTestRunner(look: Look, words: string[], prefix: string, because: string, watching: string[] = []): TestRunner {
  const { kept, leftOut } = leaveOut('node', words);
  const at = kept.indexOf('--test');
  const measured = dropOptions(kept, ['--test-reporter', '--test-reporter-destination']);
  const insert = measured.indexOf('--test') + 1;
  const observe = join(prefix, ...measured.slice(0, insert), '--test-reporter=tap', ...measured.slice(insert));
  const runner = noting({ name: 'node --test', because, observe, parser: 'tap', verify: join(prefix, ...kept) }, [...watching, ...leftOut]);
  if (!namesTestFiles(kept.slice(at + 1)) && !look.files.node) {
    return { ...runner, verify: null, noVerify: `no test file that node --test finds by default (*.test.js, test-*.mjs, test/…) was found (${searchedText(look.files)}), and node --test passes when no test runs` };
  }
  return runner;
}

/** Node options that take the next word as their value. */
const NODE_VALUE_OPTIONS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--test-name-pattern', '--test-skip-pattern', '--test-reporter', '--test-reporter-destination', '--test-concurrency', '--test-timeout', '--conditions', '-C', '--env-file', '--input-type']);

/** Whether the words after `--test` name test files or folders (a word that is no option nor an option's value). */
function namesTestFiles(words: string[]): boolean {
  return words.some((word, i) => !word.startsWith('-') && !(i > 0 && NODE_VALUE_OPTIONS.has(words[i - 1]!)));
}

/**
 * pytest as `command` with the script's `args`. Watch flags and options that leave tests unrun
 * are left out of both commands, those that stop early of the observer; the same options in
 * the `addopts` of pytest's config are left out by `-o addopts=<the rest>` (pytest reads `-o`
 * before `addopts`).
 */
function pytestRunner(look: Look, command: string[], args: string[], prefix: string, because: string): TestRunner {
  const { kept, leftOut } = leaveOut('pytest', args);
  const measured = dropOptions(kept, ['--junitxml', '--junit-xml', ...STOP_EARLY.pytest]);
  if (look.addopts === undefined) look.addopts = pytestAddopts(look);
  const ini = look.addopts;
  const override = (words: string[]) => (ini === null || words.length === ini.words.length ? [] : ['-o', shellQuote(`addopts=${words.map(shellQuote).join(' ')}`)]);
  const iniKept = ini === null ? null : leaveOut('pytest', ini.words);
  const iniMeasured = iniKept === null ? [] : dropOptions(iniKept.kept, STOP_EARLY.pytest);
  const fromIni = iniKept === null ? [] : iniKept.leftOut.map((word) => word.replace(' (', ` (in ${ini!.file}'s addopts; `));
  return noting({
    name: 'pytest',
    because,
    observe: join(prefix, ...command, ...measured, ...override(iniMeasured), `--junitxml=${PYTEST_REPORT}`),
    parser: 'junit',
    reportFile: PYTEST_REPORT,
    verify: join(prefix, ...command, ...kept, ...(iniKept === null ? [] : override(iniKept.kept))),
  }, [...leftOut, ...fromIni]);
}

function goRunner(look: Look, args: string[], prefix: string, because: string): TestRunner {
  const { kept, leftOut } = leaveOut('go', args);
  const runs = join(prefix, 'go test', ...kept);
  const runner: TestRunner = {
    name: 'go test',
    because,
    ...(leftOut.length > 0 ? { leftOut } : {}),
    observe: `{ ${join(prefix, 'go test -v', ...dropOptions(kept, STOP_EARLY.go))} 2>&1; echo "exit $?"; } | awk '{print} /^--- FAIL/{f++} /^--- PASS/{p++} END{if (f+p>0) printf "failing=%d passing=%d\\n", f, p}'`,
    parser: 'regex',
    pattern: SUMMED,
    verify: runs,
  };
  return look.files.go ? runner : { ...runner, verify: null, noVerify: `no *_test.go file was found (${searchedText(look.files)}), and go test passes when no test runs` };
}

function cargoRunner(look: Look, args: string[], prefix: string, because: string): TestRunner {
  const { kept, leftOut } = leaveOut('cargo', args);
  const runner: TestRunner = {
    name: 'cargo test',
    because,
    ...(leftOut.length > 0 ? { leftOut } : {}),
    observe: `{ ${join(prefix, 'cargo test', ...noFailFast(kept))} 2>&1; echo "exit $?"; } | awk '{print} /^test result:/{p+=$4; f+=$6; n++} END{if (n>0) printf "failing=%d passing=%d\\n", f, p}'`,
    parser: 'regex',
    pattern: SUMMED,
    verify: join(prefix, 'cargo test', ...kept),
  };
  return look.files.rust ? runner : { ...runner, verify: null, noVerify: `no Rust test was found (a .rs file in tests/, or one with #[test]; ${searchedText(look.files)}), and cargo test passes when no test runs` };
}

/**
 * A test script that is not one command or an `&&` list (`node --test; echo done`,
 * `jest || true`, `vitest | tee out.txt`), whose exit status need not be its tests', or
 * one that runs no test (`echo ok`): `npm test` could pass while tests fail, so no verify
 * is written (`noVerify` says why; the one written fails until set).
 */
function unreadScript(because: string, noVerify: string): TestRunner {
  return { name: 'npm test', because: `${because}: nothing is measured until you add an observer`, observe: null, parser: null, verify: null, noVerify };
}

/** Programs that run no test and exit 0 (`"test": "echo ok"`): a test script of these alone passes whatever the tests do. */
const NO_TEST_PROGRAMS: ReadonlySet<string> = new Set(['echo', 'printf', 'true', ':', 'exit', 'cat', 'tee', 'sleep']);

/**
 * `cargo test`'s arguments with `--no-fail-fast` among cargo's own (before a `--`): cargo
 * stops after the first test binary that fails (a crate's unit tests, an integration test
 * file, a member of a workspace), and the tests of the rest would not be counted.
 */
function noFailFast(args: string[]): string[] {
  if (args.includes('--no-fail-fast')) return args;
  const at = args.indexOf('--');
  return at < 0 ? [...args, '--no-fail-fast'] : [...args.slice(0, at), '--no-fail-fast', ...args.slice(at)];
}

/** The verify-only runner of a test script loopdeck cannot measure or reproduce: `npm test` runs it as it is. */
function npmTest(because: string): TestRunner {
  return { name: 'npm test', because: `${because}: npm test verifies, nothing is measured until you add an observer`, observe: null, parser: null, verify: 'npm test' };
}

/**
 * `words` without the options named (`--x`, `--x=value`, `--x.sub=value`, and `--x value`
 * for options that take one). Watch flags are each runner's own (jest's `-w` is its worker
 * count, vitest's is watch).
 */
function dropOptions(words: string[], options: readonly string[]): string[] {
  return splitOptions(words, options).kept;
}

/** `words` split into those kept and the options named with their values, as written (`--changedSince main`); see {@link dropOptions}. */
function splitOptions(words: string[], options: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const written = word.split('=')[0]!.replace(/^(--[\w-]+)\..*$/, '$1');
    // jest (yargs) and vitest (cac) read `--watch-all` as `--watchAll`: either spelling is the option.
    const name = options.includes(written) ? written : camelOption(written);
    // `--watchAll=false`, `--watch=0`: the flag written off, as jest's and vitest's parsers read it.
    if (!options.includes(name) || (!ALWAYS_DROPPED.has(name) && !VALUE_TAKING.has(name) && writtenOff(word))) {
      kept.push(word);
      continue;
    }
    const taken = [word];
    // `--reporter json`: the value goes with it (flags that take none are never followed by one we drop).
    const next = () => words[i + 1];
    const value = (v: string | undefined) => v !== undefined && !v.startsWith('-');
    if (!word.includes('=') && value(next()) && (VALUE_TAKING.has(name) || (COUNT_TAKING.has(name) && /^\d+$/.test(next()!)))) taken.push(words[++i]!);
    // `--findRelatedTests a.js b.js`: every file named after it is its value.
    else if (LIST_TAKING.has(name)) while (value(next())) taken.push(words[++i]!);
    dropped.push(taken.join(' '));
  }
  return { kept, dropped };
}
/** Options dropped whatever their value says: those whose output or file loopdeck sets itself. */
const ALWAYS_DROPPED: ReadonlySet<string> = new Set(['--reporter', '--outputFile', '--json', '--test-reporter', '--test-reporter-destination', '--junitxml', '--junit-xml']);

/**
 * Whether `word` is a flag written off: `--watch=false`, `--watchAll=0` (jest's yargs and
 * vitest's cac read a flag's `false` as off). `--no-watch` is another word than `--watch`
 * and never matches the options listed, so it is kept as it is. Not asked of an option that
 * takes a value: vitest 4 reads `--changed=false` as the tests changed since a commit named
 * `false`, which runs none and passes.
 */
function writtenOff(word: string): boolean {
  return /^--[^=]+=(false|0)$/i.test(word);
}

/** `--only-changed` as `--onlyChanged`; any other word as it is. */
function camelOption(word: string): string {
  return /^--[a-z][a-z0-9]*(-[a-z0-9]+)+$/.test(word) ? word.replace(/-([a-z0-9])/g, (dash, letter: string, at: number) => (at < 2 ? dash : letter.toUpperCase())) : word;
}

/**
 * Short flags written together (`-io`) as one flag each (`-i -o`), as jest's and vitest's
 * parsers read them, so that one of them can be left out alone.
 */
function separateShortFlags(words: readonly string[]): string[] {
  return words.flatMap((word) => (/^-[a-zA-Z]{2,}$/.test(word) ? [...word.slice(1)].map((letter) => `-${letter}`) : [word]));
}

const VALUE_TAKING = new Set([
  '--reporter', '-R', '--reporter-option', '--reporter-options', '-O', '--watch-files', '--watch-ignore', '--outputFile', '--test-reporter', '--test-reporter-destination', '--junitxml', '--junit-xml', '--maxfail', '--changedSince',
  // vitest's `--changed [since]` reads the next word as its commit, as vitest does.
  '--changed', '--shard', '--test-shard', '--watch-path', '--lfnf', '--last-failed-no-failures', '-list',
]);
/** Options whose value is optional and a count (`jest --bail 2`, `jest --bail tests/`). */
const COUNT_TAKING = new Set(['--bail']);
/** Options that take every word after them that is no option (`jest --findRelatedTests a.js b.js`). */
const LIST_TAKING = new Set(['--findRelatedTests']);

type Runners = 'jest' | 'vitest' | 'node' | 'pytest' | 'go' | 'cargo' | 'mocha' | 'ng' | 'karma';

/**
 * Options of each runner that make it wait for file changes instead of exiting (watch
 * mode): dropped from the observer and the verify, which must end.
 */
const WATCH: Record<Runners, readonly string[]> = {
  jest: ['--watch', '--watchAll'],
  vitest: ['--watch', '-w', '--ui', '--open', '--standalone'],
  node: ['--watch', '--watch-path', '--watch-preserve-output'],
  // pytest-xdist's looponfail mode reruns on every change.
  pytest: ['-f', '--looponfail'],
  go: [],
  cargo: [],
  mocha: ['--watch', '-w', '--watch-files', '--watch-ignore'],
  ng: ['--watch'],
  karma: ['--auto-watch', '--no-single-run'],
};

/**
 * Options of each runner that leave tests unrun whatever they do: only the tests of changed
 * files, related ones, the last failed ones, a shard, or none at all (a listing, a build, a
 * pass when none is found). A verify with them could pass with no test run, and an observer
 * would count a part: dropped from both.
 */
const UNRUN: Record<Runners, readonly string[]> = {
  jest: ['--onlyChanged', '-o', '--changedSince', '--lastCommit', '--findRelatedTests', '--changedFilesWithAncestor', '--onlyFailures', '-f', '--passWithNoTests', '--shard', '--listTests', '--showConfig'],
  vitest: ['--changed', '--passWithNoTests', '--shard'],
  node: ['--test-only', '--test-shard'],
  pytest: ['--lf', '--last-failed', '--lfnf', '--last-failed-no-failures', '--sw', '--stepwise', '--sw-skip', '--stepwise-skip', '--picked', '--testmon', '--co', '--collect-only'],
  go: ['-list', '--list', '-c', '-n'],
  cargo: ['--no-run', '--list', '--ignored'],
  mocha: ['--dry-run', '--list-files', '--pass-on-failing-test'],
  ng: [],
  karma: [],
};

/**
 * Options of each runner that stop at the first failure: dropped from the observer, which
 * counts every test; the verify keeps them (its exit status is the same).
 */
const STOP_EARLY: Record<Runners, readonly string[]> = {
  jest: ['--bail', '-b'],
  vitest: ['--bail'],
  node: [],
  pytest: ['-x', '--exitfirst', '--maxfail'],
  go: ['-failfast', '--failfast'],
  cargo: [],
  mocha: ['--bail', '-b'],
  ng: [],
  karma: [],
};

/** Why each kind of option is left out of the observer and the verify, for what init prints. */
const WHY_LEFT_OUT = {
  watch: 'watch mode: waits for file changes, never exits',
  unrun: 'runs only changed, related or failed tests, or none: could pass with tests unrun',
};

/**
 * `args` without the watch flags and the options that leave tests unrun of `runner`: the
 * arguments the verify keeps, and what was left out, each with why (for what init prints).
 */
function leaveOut(runner: Runners, args: string[]): { kept: string[]; leftOut: string[] } {
  const watch = splitOptions(runner === 'jest' || runner === 'vitest' || runner === 'mocha' ? separateShortFlags(args) : args, WATCH[runner]);
  const unrun = splitOptions(watch.kept, UNRUN[runner]);
  return { kept: unrun.kept, leftOut: [...watch.dropped.map((word) => `${word} (${WHY_LEFT_OUT.watch})`), ...unrun.dropped.map((word) => `${word} (${WHY_LEFT_OUT.unrun})`)] };
}

function join(...parts: string[]): string {
  return parts.filter((part) => part !== '').join(' ');
}

// ---------------------------------------------------------------------------------------------
// package.json's test script.

/** The test script `npm init` writes: it runs no test. */
const NPM_PLACEHOLDER = /no test specified/;

/**
 * Whether a script runs no test: one list of commands, each of {@link NO_TEST_PROGRAMS}
 * (`echo "no js tests" && exit 0`). Such a script is taken for none, as npm's placeholder
 * is, so the runner is looked for in the project's other files.
 */
function runsNothing(script: string): boolean {
  const list = commandList(script);
  return typeof list !== 'string' && list.every((command) => NO_TEST_PROGRAMS.has(path.basename(command.words[0]!.value ?? '')));
}
/**
 * How a command runs a program of the project's own packages: `npx --no --`, which runs the
 * one installed and fails when there is none, where a bare `npx` would download the
 * registry's latest without asking (stdin is no terminal) and run that. The `--` ends npm's
 * own options: without it npm reads the program's (`jest --json`, `tsc -p x`, `--config`)
 * as its own, and the program never gets them.
 */
const NPX = 'npx --no --';

/** Words before a runner that only find it (`npx vitest`, `pnpm exec jest`, `yarn jest`). */
const FINDERS: Record<string, number> = { npx: 1, yarn: 1, 'pnpm exec': 2, 'npm exec': 2 };
/** pnpm's own commands: `pnpm <anything else>` runs that program of the project's packages. */
const PNPM_COMMANDS: ReadonlySet<string> = new Set(['run', 'exec', 'dlx', 'test', 't', 'install', 'i', 'add', 'remove', 'update', 'start', 'create', 'why', 'list', 'ls', '']);
/** How many `npm run <script>` steps are followed. */
const SCRIPT_HOPS = 3;

/** One word of a script: as written (quotes and globs kept, for the shell) and its literal value (`null`: known only when it runs). */
interface ScriptWord {
  raw: string;
  value: string | null;
}

/** One simple command of a script: its assignments as written (`CI=1`), and its words. */
interface ScriptCommand {
  prefix: string;
  words: ScriptWord[];
}

/**
 * The simple commands of a script that is one command or an `&&` list of them (`tsc &&
 * vitest run`), in order, or why it is neither (a pipe, `;`, `||`, a redirection, ...).
 */
function commandList(script: string): ScriptCommand[] | string {
  const parsed = parseShell(script);
  if (!parsed.ok) return `it does not parse as a shell command (${parsed.error})`;
  const { file, source } = parsed;
  const [stmt, second] = file.Stmts;
  if (!stmt?.Cmd) return 'it is empty';
  if (second) return 'it is more than one plain command';
  const commands: ScriptCommand[] = [];
  return listed(stmt, source, commands) ? commands : 'it is more than one plain command, or commands joined otherwise than by &&';
}

/** Adds the simple commands of `stmt` (one command, or an `&&` list) to `commands`; `false` when it is anything else. */
function listed(stmt: ShStmt, source: Source, commands: ScriptCommand[]): boolean {
  if (!stmt.Cmd || stmt.Background || stmt.Negated || stmt.Coprocess || stmt.Redirs.length > 0) return false;
  const type = nodeType(stmt.Cmd);
  if (type === 'BinaryCmd') {
    const list = stmt.Cmd as ShBinaryCmd;
    return source.operator(list.OpPos, '&|') === '&&' && listed(list.X, source, commands) && listed(list.Y, source, commands);
  }
  if (type !== 'CallExpr') return false;
  const call = stmt.Cmd as ShCallExpr;
  const text = (node: { Pos(): { Offset(): number }; End(): { Offset(): number } }) => source.slice(node.Pos().Offset(), node.End().Offset());
  const words = call.Args.map((word) => {
    const literal = literalWord(word, source);
    return { raw: text(word), value: literal.ok ? literal.value : null };
  });
  commands.push({ prefix: call.Assigns.map(text).join(' '), words });
  return words.length > 0;
}

/** A script's command as it runs outside npm: a program of the project's own packages through `npx` (npm puts them on PATH for a script, a shell does not). */
function outsideNpm(look: Look, command: ScriptCommand): string {
  const program = command.words[0]!.value;
  const own = program !== null && !program.includes('/') && packageBin(look, program);
  return join(command.prefix, own ? NPX : '', ...command.words.map((word) => word.raw));
}

/** Programs whose package has another name (the rest are looked for by their own name among the dependencies). */
const BIN_PACKAGES: Record<string, string> = { tsc: 'typescript', babel: '@babel/cli', 'ts-node': 'ts-node', 'vue-tsc': 'vue-tsc', ng: '@angular/cli' };

/** Whether `program` is a program of the project's packages: in node_modules/.bin, or its package among the dependencies. */
function packageBin(look: Look, program: string): boolean {
  if (existsSync(path.join(look.dir, 'node_modules', '.bin', program))) return true;
  const pkg = look.pkg ?? {};
  const deps = { ...record(pkg.dependencies), ...record(pkg.devDependencies) };
  return (BIN_PACKAGES[program] ?? program) in deps;
}

/**
 * Programs that run the rest of their words with the variables they name set, as a shell's
 * assignments do (`cross-env NODE_ENV=test jest` is `NODE_ENV=test jest` in sh).
 */
const ENV_SETTERS = new Set(['cross-env', 'env']);

/** `command` with a leading `cross-env A=1` or `env A=1` read as the assignments it makes. */
function withoutEnvSetter(command: ScriptCommand): ScriptCommand {
  const program = command.words[0]?.value;
  if (program === undefined || program === null || !ENV_SETTERS.has(program)) return command;
  let at = 1;
  while (at < command.words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(command.words[at]!.value ?? '')) at++;
  // `env -i ...` and other options change more than variables: read as written.
  if (at === 1 || at === command.words.length || (command.words[at]!.value ?? '-').startsWith('-')) return command;
  return { prefix: join(command.prefix, ...command.words.slice(1, at).map((word) => word.raw)), words: command.words.slice(at) };
}

/**
 * `runner` run after `steps` (the commands an `&&` list or npm's `pretest` runs before the
 * test command, as they run outside npm): its observer and verify run them first, as the
 * test script does, so a build step is not left out (a step that fails leaves the counts
 * missing, and the verify failed).
 */
function afterSteps(runner: TestRunner, steps: string[], said: string): TestRunner {
  // `npm test` runs the whole script itself.
  if (steps.length === 0 || runner.name === 'npm test') return runner;
  const before = steps.join(' && ');
  const observe = runner.observe === null ? null : `${before} && ${runner.observe}`;
  const verify = runner.verify === null ? null : `${before} && ${runner.verify}`;
  return { ...runner, because: `${runner.because}, after ${said}`, observe, verify };
}

/**
 * The runner of package.json's script `name` (its text `script`), from the command it runs:
 * vitest, jest, node --test (or tsx --test), pytest, go test or cargo test with the
 * script's own arguments (watch flags and options that leave tests unrun dropped, see
 * {@link leaveOut}; the reporter loopdeck reads added to the observer); `npm run <other>` is
 * followed; the commands before the runner in an `&&` list (`tsc && vitest run`) and npm's
 * `pretest` script run before it in the observer and the verify; checks after it (`jest &&
 * eslint .`) are left out of the observer, and `npm test` verifies, unless the runner's
 * command left something out: then the script written out does; `cross-env A=1` and `env
 * A=1` are read as assignments. Anything else is verified by `npm test`; a script with a
 * watcher (`ptw`, `cargo watch`), or that npm would run with an option left out where it
 * cannot be written out, by nothing (`noVerify` says why).
 */
function scriptRunner(look: Look, scripts: Record<string, unknown>, script: string, name = 'test', hops = 0): TestRunner {
  const shown = hops > 0 ? `package.json's script ${JSON.stringify(name)} (its test script runs it)` : "package.json's test script";
  const list = commandList(script);
  if (typeof list === 'string') {
    return unreadScript(
      `${shown} ${JSON.stringify(script)} is not read as one runner's command: ${list}`,
      "the script's exit status need not be its tests' (after `; echo done`, `|| true` or `| tee out.txt` it is 0 whatever the tests did), so npm test could pass while tests fail",
    );
  }
  if (list.every((command) => NO_TEST_PROGRAMS.has(path.basename(command.words[0]!.value ?? '')))) {
    return unreadScript(`${shown} ${JSON.stringify(script)} runs no test`, 'the script runs no test and exits 0, so npm test would pass whatever the tests do');
  }
  // Commands after the runner that run no test (`jest && echo ok`) change nothing measured or verified.
  while (NO_TEST_PROGRAMS.has(path.basename(list.at(-1)!.words[0]!.value ?? ''))) list.pop();
  const runners = list.map((command) => commandRunner(look, scripts, withoutEnvSetter(command), script, shown, hops));
  // A program that waits for file changes (`ptw`, `cargo watch`, `nodemon`) anywhere in it: npm test would never end.
  const waiting = runners.find((runner) => runner.waits !== undefined);
  if (waiting) return waiting;
  // The runner is the last command that names one: checks after it (`jest && eslint .`) are
  // left out of the observer, and the verify is the whole script (`npm test`).
  let at = list.length - 1;
  let runner = runners[at]!;
  // A command of no runner init knows is verified by npm test (`npmTest`); one it knows but
  // reads no report of (`ng test`) is a runner still, verified by its own command.
  const unknown = (r: TestRunner) => r.observe === null && r.name === 'npm test';
  for (let i = at - 1; unknown(runner) && i >= 0; i--) {
    const earlier = runners[i]!;
    if (unknown(earlier)) continue;
    const after = list.slice(i + 1).map(written).join(' && ');
    runner = { ...earlier, because: `${earlier.because}, then ${after}` };
    at = i;
  }
  const steps = list.slice(0, at).map((command) => outsideNpm(look, command));
  const said: string[] = [];
  if (hops === 0 && typeof scripts.pretest === 'string' && scripts.pretest.trim() !== '') {
    const pretest = scriptRunner(look, scripts, scripts.pretest, 'pretest', SCRIPT_HOPS);
    if (pretest.waits !== undefined) return pretest;
    steps.unshift('npm run pretest');
    said.push("npm's pretest script");
  }
  if (at > 0) said.push(list.slice(0, at).map(written).join(' && '));
  const measured = afterSteps(runner, steps, said.join(' and '));
  // Another command that watches or runs only some tests (`jest -o && vitest run`) runs as written in any verify.
  const partial = runners.findIndex((other, i) => i !== at && rewritten(other).length > 0);
  if (partial >= 0) {
    return { ...measured, verify: null, noVerify: `the script also runs ${JSON.stringify(written(list[partial]!))} as written, with ${rewritten(runners[partial]!).join(', ')}` };
  }
  if (at === list.length - 1 || measured.verify === null) return measured;
  // Checks after the runner are verified as the project runs them: by npm test (which runs
  // pretest too), unless the runner's command left something out (`jest --watchAll && eslint
  // .`): then by the commands written out, the runner's as in the verify.
  const changed = rewritten(runner);
  if (changed.length === 0) return { ...measured, verify: 'npm test' };
  const after = list.slice(at + 1);
  // What only npm sets (`$npm_package_version`, `$npm_config_…`) is not there outside npm.
  if (after.some((command) => /npm_(package|config|lifecycle)_/.test(written(command)))) {
    return { ...measured, verify: null, noVerify: `the checks after the runner (${JSON.stringify(after.map(written).join(' && '))}) read variables only npm sets, and npm test would run it with ${changed.join(', ')}` };
  }
  return { ...measured, verify: [measured.verify, ...after.map((command) => outsideNpm(look, command))].join(' && ') };
}

/** A command of a script as written: its assignments and words. */
function written(command: ScriptCommand): string {
  return join(command.prefix, ...command.words.map((word) => word.raw));
}

/** Programs that wait for file changes and run a command on each (`ptw`, `nodemon --exec jest`): they never exit. */
const WATCH_PROGRAMS: ReadonlySet<string> = new Set(['ptw', 'pytest-watch', 'pytest-watcher', 'nodemon', 'chokidar', 'onchange', 'watchexec', 'cargo-watch', 'bacon', 'gow', 'reflex', 'air', 'modd', 'entr', 'watchman-make', 'tsc-watch', 'watch']);
/** Programs whose `-w` is their watch mode. */
const SHORT_WATCH: ReadonlySet<string> = new Set(['mocha', 'ava', 'tsc', 'webpack', 'rollup']);

/**
 * What in a command of a program init does not run itself makes it wait for file changes:
 * a watcher ({@link WATCH_PROGRAMS}, `cargo watch`), or a watch flag (`--watch`,
 * `--watchAll`, `mocha -w`, `gotestsum --watch`); `null` when nothing does.
 */
function waitsForChanges(words: ScriptWord[]): string | null {
  const program = words[0]?.value;
  if (program === null || program === undefined) return null;
  const name = path.basename(program);
  const values = words.map((word) => word.value ?? '');
  if (WATCH_PROGRAMS.has(name)) return name;
  if (name === 'cargo' && values[1] === 'watch') return 'cargo watch';
  const flag = values.slice(1).find((value) => /^--watch(All|-all)?(=(?!false$|0$).*)?$/.test(value) || (SHORT_WATCH.has(name) && value === '-w'));
  return flag === undefined ? null : `${name} ${flag}`;
}

/** The runner of a command that waits for file changes (`what`): nothing measured, no verify. */
function waitingRunner(shown: string, what: string): TestRunner {
  return {
    ...unreadScript(`${shown} runs ${what} (${WHY_LEFT_OUT.watch})`, `npm test would never end: ${what} waits for file changes; set a verify that runs the tests once`),
    waits: what,
  };
}

/** The runner of the last command of a test script (`command`; `script`, the whole script, as the user wrote it). */
function commandRunner(look: Look, scripts: Record<string, unknown>, command: ScriptCommand, script: string, shown: string, hops: number): TestRunner {
  const { prefix } = command;
  let words = command.words;
  const value = (i: number) => words[i]?.value ?? null;
  const tool = value(0);
  const runs = tool === 'npm' ? ['run', 'run-script'] : tool === 'yarn' || tool === 'pnpm' ? ['run'] : [];
  // `yarn test:unit`, `pnpm test:unit`: yarn and pnpm run a script by its name alone, before a program of that name (pnpm's own commands excepted).
  const byName = (tool === 'yarn' || (tool === 'pnpm' && !PNPM_COMMANDS.has(value(1) ?? ''))) && typeof scripts[value(1) ?? ''] === 'string';
  if (runs.includes(value(1) ?? '') || byName) {
    const at = byName ? 1 : 2;
    const target = value(at);
    const rest = words.slice(at + 1).filter((word) => word.value !== '-s' && word.value !== '--silent');
    const other = target === null ? undefined : scripts[target];
    // The words after the script's name are appended to it: after `--` for npm (`npm run x -- --reporter=verbose`), all of them for yarn and pnpm.
    const passed = rest[0]?.value === '--' ? rest.slice(1) : rest.length === 0 || tool !== 'npm' ? rest : null;
    if (typeof other === 'string' && passed !== null && prefix === '' && hops < SCRIPT_HOPS) {
      // npm runs `pre<script>` before `<script>` (pnpm and yarn 2+ do not; npm's is the safer reading: it may build).
      const pre = `pre${target}`;
      const runner = scriptRunner(look, scripts, [other, ...passed.map((word) => word.raw)].join(' '), target!, hops + 1);
      return tool === 'npm' && typeof scripts[pre] === 'string' ? afterSteps(runner, [`npm run ${pre}`], `npm's ${pre} script`) : runner;
    }
    // Not followed (`cross-env CI=1 npm run x`), so verified by npm test, which runs it: unless it watches or runs only some tests.
    if (typeof other === 'string' && hops < SCRIPT_HOPS) {
      const inner = scriptRunner(look, scripts, other, target!, hops + 1);
      if (inner.waits !== undefined) return inner;
      if (rewritten(inner).length > 0) {
        return { ...npmTest(`${shown} runs ${JSON.stringify(script)}`), verify: null, noVerify: `npm test would run the script ${JSON.stringify(target)} as written, with ${rewritten(inner).join(', ')}` };
      }
    }
  }
  for (const [finder, count] of Object.entries(FINDERS)) {
    if (finder.split(' ').every((word, i) => value(i) === word)) {
      words = words.slice(count);
      while (value(0)?.startsWith('-')) words = words.slice(1);
      break;
    }
  }
  // `pnpm vitest run`: pnpm runs a package's program by its name, as npx does.
  if (value(0) === 'pnpm' && !PNPM_COMMANDS.has(value(1) ?? '')) words = words.slice(1);
  const program = value(0) === null ? null : path.basename(value(0)!);
  const args = words.slice(1).map((word) => word.raw);
  const because = (runner: string) => `${shown} runs ${runner} (${JSON.stringify(script)})`;
  const next = value(1);
  switch (program) {
    case 'vitest':
      return vitestRunner(args, prefix, because('vitest'));
    case 'jest':
      return jestRunner(args, prefix, because('jest'));
    case 'mocha':
      return mochaRunner(args, prefix, because('mocha'));
    case 'react-scripts':
    case 'craco':
    case 'react-app-rewired':
      if (next === 'test') return craRunner(program, args.slice(1), prefix, because(`${program} test (jest)`));
      break;
    case 'ng':
      if (next === 'test' || next === 't') return watchingByDefault('ng', 'ng test', args.slice(1), prefix, because('ng test'));
      break;
    case 'karma':
      if (next === 'start') return watchingByDefault('karma', 'karma start', args.slice(1), prefix, because('karma start'));
      break;
    case 'node':
    case 'tsx':
      if (words.some((word) => word.value === '--test')) {
        // `tsx watch --test`: tsx's watch mode, run as tsx.
        const watching = program === 'tsx' && next === 'watch' ? [`tsx watch, run as tsx (${WHY_LEFT_OUT.watch})`] : [];
        const runs = words.filter((_, i) => !(watching.length > 0 && i === 1)).map((word) => word.raw);
        return nodeTestRunner(look, program === 'tsx' ? [NPX, ...runs] : runs, prefix, because(`${program} --test`), watching);
      }
      break;
    case 'pytest':
    case 'py.test':
      return pytestRunner(look, [words[0]!.raw], args, prefix, because('pytest'));
    case 'python':
    case 'python3':
      if (value(1) === '-m' && value(2) === 'pytest') return pytestRunner(look, words.slice(0, 3).map((word) => word.raw), args.slice(2), prefix, because('pytest'));
      break;
    case 'go':
      if (next === 'test') return goRunner(look, args.slice(1), prefix, because('go test'));
      break;
    case 'cargo':
      if (next === 'test') return cargoRunner(look, args.slice(1), prefix, because('cargo test'));
      break;
  }
  const waits = waitsForChanges(words);
  if (waits !== null) return waitingRunner(`${shown} ${JSON.stringify(script)}`, waits);
  return npmTest(`${shown} runs ${JSON.stringify(script)}, whose output loopdeck has no parser for`);
}

// ---------------------------------------------------------------------------------------------
// Choosing.

/**
 * How strongly a runner is named: 3, package.json's test script (what the project itself
 * runs); 2, a config file or dependency; 1, test files alone.
 */
type Rank = 1 | 2 | 3;
interface Candidate {
  runner: TestRunner;
  rank: Rank;
}
const RANK_WORDS: Record<Rank, string> = {
  3: "package.json's test script (what the project itself runs)",
  2: 'a config file or dependency',
  1: 'test files alone',
};

function pytestConfig(look: Look): string | null {
  const config = ['pytest.ini', 'conftest.py'].find((name) => has(look, name));
  if (config) return `${config} is there`;
  const naming = ['pyproject.toml', 'setup.cfg', 'tox.ini', 'setup.py', 'Pipfile', 'requirements-dev.txt', 'requirements.txt', 'requirements-test.txt'].find((name) =>
    /\bpytest\b/.test(readText(look, name) ?? ''),
  );
  return naming ? `${naming} names pytest` : null;
}

/** The config files that name a JavaScript test runner by being there. */
const CONFIG_FILES = {
  vitest: ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].flatMap((ext) => [`vitest.config.${ext}`, `vitest.workspace.${ext}`]),
  jest: [...['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].map((ext) => `jest.config.${ext}`), 'jest.config.json'],
  mocha: ['.mocharc.yml', '.mocharc.yaml', '.mocharc.json', '.mocharc.jsonc', '.mocharc.js', '.mocharc.cjs', '.mocharc.mjs'],
};

/** The most of a test file read to see which runner it is written for, in bytes. */
const TEST_FILE_BYTES = 2 ** 20;

/**
 * The runner of a test file found where `node --test` looks: the one it imports (`vitest`,
 * `@jest/globals`), jest for one that calls `test()` or `describe()` without importing them
 * (jest's globals), else `node --test` (a file for another runner, run by node, fails as one
 * test and measures nothing of its own).
 */
function nodeFileRunner(look: Look, file: string): TestRunner {
  let text = '';
  try {
    text = readSmallFile(path.join(look.dir, file), TEST_FILE_BYTES);
  } catch (error) {
    look.notes.push(`${file}: not read (${unread(error, TEST_FILE_BYTES)}): taken for a node --test file`);
  }
  const imports = (name: string) => new RegExp(`(?:from\\s*|import\\s*\\(?\\s*|require\\s*\\(\\s*)['"]${name.replace('/', '\\/')}['"]`).test(text);
  if (imports('vitest')) return vitestRunner([], '', `${file} imports vitest`);
  if (imports('@jest/globals')) return jestRunner([], '', `${file} imports @jest/globals`);
  // `test(…)` or `describe(…)` called without importing them: jest's globals (node has none),
  // or mocha's when the project has mocha (its dependency or config).
  if (!imports('node:test') && !imports('test') && GLOBAL_TEST_CALL.test(text)) {
    const deps = { ...record(look.pkg?.dependencies), ...record(look.pkg?.devDependencies) };
    if ('mocha' in deps || CONFIG_FILES.mocha.some((name) => has(look, name))) return mochaRunner([], '', `${file} calls describe() or it() without importing them (mocha's globals)`);
    return jestRunner([], '', `${file} calls test() or describe() without importing them (jest's globals)`);
  }
  return nodeTestRunner(look, ['node', '--test'], '', `${file} is a test file node --test runs by default`);
}

/** A call of a test function at the start of a line (`test('…'`, `describe("…"`, `it(\`…\``), as a file using jest's globals makes. */
const GLOBAL_TEST_CALL = /^[ \t]*(?:describe|test|it)\s*\(\s*['"`]/m;

/** Every runner the project's files name, strongest first, in init's order within a rank. */
function candidates(look: Look): Candidate[] {
  const found: Candidate[] = [];
  const pkg = packageJson(look);
  look.pkg = pkg;
  if (pkg) {
    const scripts = record(pkg.scripts);
    const test = typeof scripts.test === 'string' ? scripts.test : '';
    if (scripts.test !== undefined && typeof scripts.test !== 'string') look.notes.push(`package.json's scripts.test is not a string (${JSON.stringify(scripts.test)?.slice(0, 60)}): npm cannot run it, and it was not read`);
    else if (NPM_PLACEHOLDER.test(test)) look.notes.push(`package.json's test script is npm's placeholder (${JSON.stringify(test)}): it runs no test`);
    else if (runsNothing(test)) look.notes.push(`package.json's test script (${JSON.stringify(test)}) only prints or exits: it runs no test`);
    else if (test.trim() !== '') found.push({ runner: withoutControlCharacters(look, scriptRunner(look, scripts, test)), rank: 3 });
    const deps = { ...record(pkg.dependencies), ...record(pkg.devDependencies) };
    if ('vitest' in deps) found.push({ runner: vitestRunner([], '', 'package.json depends on vitest'), rank: 2 });
    if ('jest' in deps) found.push({ runner: jestRunner([], '', 'package.json depends on jest'), rank: 2 });
    if ('mocha' in deps) found.push({ runner: mochaRunner([], '', 'package.json depends on mocha'), rank: 2 });
    if (found.length === 0 && scripts.test === undefined) look.notes.push('package.json names no test runner init knows (vitest, jest, mocha) and has no test script of its own: the runner was looked for in the other files');
  }
  const vitestConfig = CONFIG_FILES.vitest.find((name) => has(look, name));
  if (vitestConfig) found.push({ runner: vitestRunner([], '', `${vitestConfig} is there`), rank: 2 });
  const jestConfig = CONFIG_FILES.jest.find((name) => has(look, name));
  if (jestConfig) found.push({ runner: jestRunner([], '', `${jestConfig} is there`), rank: 2 });
  const mochaConfig = CONFIG_FILES.mocha.find((name) => has(look, name));
  if (mochaConfig) found.push({ runner: mochaRunner([], '', `${mochaConfig} is there`), rank: 2 });
  const pytest = pytestConfig(look);
  const defaults = { python: ['python', '-m', 'pytest'], args: ['-q'] };
  if (pytest) found.push({ runner: pytestRunner(look, defaults.python, defaults.args, '', pytest), rank: 2 });
  if (has(look, 'go.mod')) found.push({ runner: goRunner(look, ['./...'], '', 'go.mod is there'), rank: 2 });
  if (has(look, 'Cargo.toml')) found.push({ runner: cargoRunner(look, [], '', 'Cargo.toml is there'), rank: 2 });
  const { python, node } = look.files;
  if (python) found.push({ runner: pytestRunner(look, defaults.python, defaults.args, '', `${python} is a Python test file, and pytest runs unittest-style tests too`), rank: 1 });
  if (node) found.push({ runner: nodeFileRunner(look, node), rank: 1 });
  // The strongest evidence first; of one strength, in init's order (a vitest config before a jest dependency).
  const order = (c: Candidate) => ORDER.indexOf(c.runner.name) >>> 0;
  return found.sort((a, b) => b.rank - a.rank || order(a) - order(b));
}

/**
 * The runner's own command in place of `runner`, when a command of `runner` holds a control
 * character (an escape sequence copied from package.json's script: `echo \u001b[31m && jest`),
 * which loop.yaml cannot hold (`loopdeck validate` refuses it): the runner with none of the
 * script's words (`npx --no -- jest`), or none at all when loopdeck knows no command of its
 * own for it. A note says what was done and why. Any other runner is returned as it is.
 */
function withoutControlCharacters(look: Look, runner: TestRunner): TestRunner {
  const found = [runner.observe, runner.verify, runner.pattern].map((command) => (command ? CONTROL_CHARACTER.exec(command)?.[0] : undefined)).find((c) => c !== undefined);
  if (found === undefined) return runner;
  const character = describeCharacter(found.charCodeAt(0));
  const because = `${runner.name} runs in package.json's test script, whose text holds a control character (${character}) that loop.yaml cannot hold`;
  const own = ownRunner(look, runner.name, because);
  look.notes.push(
    own
      ? `package.json's test script holds a control character (${character}), which loop.yaml cannot hold: the observer and the verify run ${runner.name} as loopdeck runs it, without the script's other words (check that it runs the tests the script does)`
      : `package.json's test script holds a control character (${character}), which loop.yaml cannot hold: its commands are not written (set observe and verify by hand)`,
  );
  return own ?? { ...unreadScript(because, 'its commands would hold the control character, which loop.yaml cannot hold'), name: runner.name };
}

/** The runner named `name` as loopdeck runs it with none of a script's words, for {@link withoutControlCharacters}; `null` for a runner it has no command of its own for. */
function ownRunner(look: Look, name: string, because: string): TestRunner | null {
  switch (name) {
    case 'vitest':
      return vitestRunner([], '', because);
    case 'jest':
      return jestRunner([], '', because);
    case 'mocha':
      return mochaRunner([], '', because);
    case 'node --test':
      return nodeTestRunner(look, ['node', '--test'], '', because);
    case 'pytest':
      return pytestRunner(look, ['python', '-m', 'pytest'], ['-q'], '', because);
    case 'go test':
      return goRunner(look, ['./...'], '', because);
    case 'cargo test':
      return cargoRunner(look, [], '', because);
    default:
      return null;
  }
}

/** Where pytest reads its ini options, in the order it looks, and the section it reads in each. */
const PYTEST_INI: ReadonlyArray<readonly [string, string]> = [
  ['pytest.ini', 'pytest'],
  ['pyproject.toml', 'tool.pytest.ini_options'],
  ['tox.ini', 'pytest'],
  ['setup.cfg', 'tool:pytest'],
];

/**
 * The `addopts` of the config file pytest reads (the first of {@link PYTEST_INI} with its
 * section), as words (split as pytest splits them, shell-like); `null` when there is none.
 * An ini value may go on over indented lines; pyproject's is a string or a list of strings.
 */
function pytestAddopts(look: Look): { file: string; words: string[] } | null {
  for (const [file, section] of PYTEST_INI) {
    if (!has(look, file)) continue;
    const lines = (readText(look, file) ?? '').split(/\r?\n/);
    const start = lines.findIndex((line) => line.trim() === `[${section}]`);
    if (start < 0) continue;
    const body: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (/^\s*\[/.test(line) && !/^\s+/.test(line)) break;
      body.push(line);
    }
    const at = body.findIndex((line) => /^addopts\s*[=:]/.test(line));
    if (at < 0) return null;
    let value = body[at]!.replace(/^addopts\s*[=:]\s*/, '');
    if (file.endsWith('.toml')) {
      // A string, or a list of strings that may span lines.
      let i = at;
      while (value.trimStart().startsWith('[') && !value.includes(']') && i + 1 < body.length) value += ` ${body[++i]}`;
      const strings = [...value.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? '');
      return { file, words: value.trimStart().startsWith('[') ? strings : shellWords(strings[0] ?? '') };
    }
    for (const line of body.slice(at + 1)) {
      if (!/^\s+\S/.test(line)) break;
      value += ` ${line.trim()}`;
    }
    return { file, words: shellWords(value.replace(/\s+[#;].*$/, '')) };
  }
  return null;
}

/** `text` split into words as a shell (and Python's shlex) splits them: quotes group, backslashes escape. */
function shellWords(text: string): string[] {
  return [...text.matchAll(/(?:[^\s'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+/g)].map((m) =>
    m[0].replace(/'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)/g, (_, single: string | undefined, double: string | undefined, escaped: string | undefined) => single ?? double?.replace(/\\(.)/g, '$1') ?? escaped ?? ''),
  );
}

/** The runners in init's order, for those found on evidence of one strength. */
const ORDER = ['vitest', 'jest', 'mocha', 'pytest', 'go test', 'cargo test'];

/**
 * The test runner of the project in `dir`, the others found, why the one was chosen, and
 * notes on the files that could not be read. The strongest evidence wins: package.json's test
 * script, then a config file or dependency (vitest, jest, mocha, pytest config, go.mod,
 * Cargo.toml, in this order), then test files alone (Python's, then those `node --test` runs by default,
 * searched {@link TEST_FILE_DEPTH} folders deep, at most {@link TEST_FILE_DIRS} folders). A
 * package.json that names no runner and has no test script chooses nothing. The npm, yarn or
 * pnpm workspace `dir` is a package of, if any, is named too ({@link findWorkspaceRoot}).
 */
export function detectTestRunner(dir: string): Detection {
  const look: Look = { dir, notes: [], files: { python: null, node: null, go: null, rust: null, dirs: 0, stopped: false } };
  look.files = findTestFiles(look);
  const found = candidates(look);
  const [chosen] = found;
  const others: TestRunner[] = [];
  for (const { runner } of found.slice(1)) {
    if (runner.name !== chosen!.runner.name && !others.some((other) => other.name === runner.name)) others.push(runner);
  }
  let chosenWhy = '';
  if (chosen && others.length > 0) {
    const weaker = found.find((candidate) => candidate.runner.name === others[0]!.name)!;
    chosenWhy =
      weaker.rank < chosen.rank
        ? `${chosen.runner.name} was chosen: ${RANK_WORDS[chosen.rank]} names it, which counts before ${RANK_WORDS[weaker.rank]}`
        : `${chosen.runner.name} was chosen: ${RANK_WORDS[chosen.rank]} names each, and ${chosen.runner.name} comes first in init's order (vitest, jest, mocha, pytest, go test, cargo test)`;
  }
  const root = findWorkspaceRoot(dir);
  if (chosen) look.notes.push(...missingProgram(look, chosen.runner, root));
  return { runner: chosen?.runner ?? null, others, chosenWhy, notes: look.notes, searched: searchedText(look.files), ...(root ? { workspaceRoot: root } : {}) };
}


/**
 * Notes on what the chosen runner needs and this machine or project lacks: its program not
 * on PATH (`go`, `cargo`, the Python of `python -m pytest`, with `python3` named when only it
 * is there), or vitest or jest not installed in the project (`npx --no` will not download it).
 */
function missingProgram(look: Look, runner: TestRunner, root: WorkspaceRoot | null): string[] {
  const command = runner.verify ?? runner.observe ?? '';
  if (runner.name === 'vitest' || runner.name === 'jest' || runner.name === 'mocha') {
    if (!/\bnpx --no -- (vitest|jest|mocha)\b/.test(command)) return [];
    // npx looks in every node_modules/.bin up from the package: a workspace's are at its root.
    const top = root?.dir ?? look.dir;
    for (let dir = look.dir; ; dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, 'node_modules', '.bin', runner.name))) return [];
      if (dir === top || path.dirname(dir) === dir) break;
    }
    const where = root ? `this package nor at its workspace root (no node_modules/.bin/${runner.name} in either)` : `this project (no node_modules/.bin/${runner.name})`;
    return [`${runner.name} is not installed in ${where}: install the project's dependencies first; npx --no runs only the one installed`];
  }
  const program =
    runner.name === 'pytest' ? (/(?:^|\s)(\S+) -m pytest\b/.exec(command)?.[1] ?? (/(?:^|\s)(pytest|py\.test)\b/.test(command) ? 'pytest' : null))
    : runner.name === 'go test' ? 'go'
    : runner.name === 'cargo test' ? 'cargo'
    : null;
  if (program === null || findProgram(program, look.dir) !== null) return [];
  const instead = program === 'python' && findProgram('python3', look.dir) !== null ? ' (python3 is: write python3 -m pytest in observe and verify)' : '';
  return [`${program} is not on PATH here${instead}: the observer and the verify command cannot run until it is`];
}
