/**
 * `loopdeck init`: a first loop.yaml for the project in a folder. It looks at the project's
 * files to find its test runner (`init-detect.ts`), and writes an observer that measures
 * failing and passing tests with the matching parser, a verify command (never one that passes
 * when no test runs), a bounded budget, approval defaults, an agent block with the other kinds
 * as comments, and `workspace.path` pointing at the folder it searched (or at the root of
 * the npm, yarn or pnpm workspace that folder is a package of, with commands that run in
 * the package). It never overwrites a file, nor writes through a symbolic link, nor writes
 * one that `loopdeck validate` would refuse.
 */
import { closeSync, lstatSync, openSync, readlinkSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { selfCommand, shortPath } from './continue-command.js';
import { parseShell, simpleCommand } from './engine/approval/shell-syntax.js';
import { parsePolicy } from './engine/policy.js';
import { detectTestRunner, inPackage, type Detection, type TestRunner } from './init-detect.js';
import { shownName } from './text/sanitize.js';

/** A YAML scalar in double quotes (JSON's escaping is valid YAML). */
function q(text: string): string {
  return JSON.stringify(text);
}

/**
 * A comment line of the file, `# text`: what it quotes from the project (a test file's name,
 * a script) is kept on the line, its control characters shown (see {@link shownName}), so
 * no part of it becomes YAML of its own.
 */
function comment(text: string): string {
  return `# ${shownName(text)}`;
}

function observeBlock(runner: TestRunner | null): string[] {
  if (!runner || runner.observe === null) {
    return [
      comment(runner ? `loopdeck has no parser for ${runner.name}'s output: add a command whose output a parser reads, e.g.` : 'No test runner was found: add a command whose output a parser reads, e.g.'),
      '# observe:',
      '#   - { name: tests, command: "node --test --test-reporter=tap", parser: tap }',
      'observe: []',
      'progress:',
      '  observed: []',
    ];
  }
  return [
    comment(`The harness measures progress itself: ${runner.name}, read by the ${runner.parser} parser.`),
    'observe:',
    `  - name: tests`,
    `    command: ${q(runner.observe)}`,
    `    parser: ${runner.parser}`,
    ...(runner.pattern ? [`    pattern: ${q(runner.pattern)}`] : []),
    ...(runner.reportFile ? [`    report_file: ${runner.reportFile}`] : []),
    '    timeout: 5m',
    'progress:',
    '  observed:',
    '    - { signal: observed.tests.failing, direction: decrease }',
    '    - { signal: observed.tests.passing, direction: increase }',
  ];
}

/** Whether `command` is one command of literal words (what an approval rule `shell-exact: ...` is written for). */
function plainWords(command: string): boolean {
  const parsed = parseShell(command);
  return parsed.ok && simpleCommand(parsed.file, parsed.source).ok;
}

/** The verify command written when there is none to write: it fails until it is set. */
const UNSET_VERIFY = "echo 'set verify in loop.yaml: a command that exits 0 when the goal is met' >&2; exit 1";

/** Comment lines naming the runners found and not chosen, with their commands. */
function othersBlock(detection: Pick<Detection, 'others' | 'chosenWhy'>): string[] {
  if (detection.others.length === 0) return [];
  return [
    '',
    comment(`${detection.chosenWhy}. Also found:`),
    ...detection.others.flatMap((other) => [
      comment(`  ${other.name} (${other.because})`),
      ...(other.observe ? [comment(`    observe: { command: ${q(other.observe)}, parser: ${other.parser}${other.pattern ? `, pattern: ${q(other.pattern)}` : ''}${other.reportFile ? `, report_file: ${other.reportFile}` : ''} }`)] : []),
      comment(`    verify: ${other.verify === null ? `none (${other.noVerify})` : q(other.verify)}`),
    ]),
  ];
}

/**
 * The text of the loop.yaml `init` writes for a project whose runner is `detection.runner`
 * (`null`: none found), with `workspace.path: workspace` (relative to the file's folder).
 */
export function renderInitConfig(detection: Pick<Detection, 'runner' | 'others' | 'chosenWhy'> & { inWorkspace?: string }, workspace = '.'): string {
  const { runner } = detection;
  const verify = runner?.verify ?? UNSET_VERIFY;
  // The verify command exactly, never as a prefix: further options can run any code
  // (`node --test --import data:…`, `cargo test --config …runner=…`). An allow rule takes
  // literal words only: a verify with a glob or an assignment is asked about.
  const allowTests = runner?.verify && plainWords(runner.verify) ? [`    - ${q(`shell-exact: ${runner.verify}`)}`] : [];
  return [
    '# A first loop for this project, written by `loopdeck init`. Every key is described in',
    '# docs/loop-yaml.md of the loopdeck package; `loopdeck validate` prints the effective config.',
    '',
    'goal:',
    '  objective: Make the failing tests pass   # say what the agent should achieve',
    '  success_criteria:',
    '    - every test passes',
    '  constraints:',
    '    - do not edit or delete tests to make them pass',
    '',
    '# Who does the work. A local model through Ollama (no key, nothing leaves the machine):',
    'agent:',
    '  kind: openai',
    '  model: qwen2.5-coder:7b',
    '  base_url: http://localhost:11434/v1',
    '# An OpenAI-compatible service instead:',
    '# agent:',
    '#   kind: openai',
    '#   model: gpt-4.1-mini',
    '#   base_url: https://api.openai.com/v1',
    '#   api_key_env: OPENAI_API_KEY',
    '# Claude Code, Codex or Gemini CLI, a new run of it each lap (their output is parsed):',
    '# agent:',
    '#   kind: command',
    '#   command: claude -p --output-format stream-json --verbose   # the prompt on stdin',
    '#   # Codex: codex exec --json --sandbox workspace-write -   (`-`: the prompt on stdin)',
    '#   # Gemini CLI: gemini --output-format stream-json -p "$LOOPDECK_PROMPT", with prompt: argument',
    '#   timeout: 20m',
    '# laps: { enabled: true, max_laps: 5, progress_file: PROGRESS.md }',
    '',
    '# The agent works on a temporary git copy of the project folder (its path is printed when',
    '# the run ends; loopdeck\'s own .loopdeck/ folder is left out); `copy: none` lets it work',
    '# there in place. The path is relative to this file\'s folder.',
    ...(detection.inWorkspace === undefined ? [] : [
      comment(`This package is one of the workspace at workspace.path, whose dependencies are installed at its root: the copy is of the whole`),
      comment(`workspace, so the tests can run in it, and the observer and the verify run in the package's folder (${detection.inWorkspace}).`),
    ]),
    'workspace:',
    `  path: ${q(workspace)}`,
    '  copy: temp',
    '',
    'budget:',
    '  max_iterations: 30',
    '  max_tool_calls: 120',
    '  max_wall_clock: 30m',
    '  max_tokens: 2000000',
    '',
    ...observeBlock(runner),
    ...othersBlock(detection),
    '',
    '# The goal is met only when these pass: the agent saying so is not enough.',
    ...(runner && runner.verify === null ? [comment(`No verify command was written: ${runner.noVerify}.`)] : []),
    ...(runner?.leftOut?.length ? [comment(`Left out of the observer and the verify: ${runner.leftOut.join('; ')}.`)] : []),
    ...(runner?.added?.length ? [comment(`Added to the observer and the verify: ${runner.added.join('; ')}.`)] : []),
    'verify:',
    `  - command: ${q(verify)}`,
    '    timeout: 10m',
    '',
    '# Reading is allowed; anything else is asked about by keypress.',
    'approval:',
    '  default: ask',
    '  allow:',
    '    - read_file',
    '    - list_files',
    '    - git_status',
    '    - git_diff',
    ...allowTests,
    '',
  ].join('\n');
}

/** What `init` did, for the message it prints. */
export interface InitResult extends Detection {
  /** The file written, absolute. */
  file: string;
  /** The project folder: the test runner was looked for there, and `workspace.path` points there. */
  project: string;
  /** `workspace.path` as written, relative to the file's folder. */
  workspace: string;
  /** The project's folder relative to `workspaceRoot`, when the project is a package of a workspace (`workspace.path` is then the root). */
  packageDir?: string;
}

/**
 * A name beside `file` (in its folder) that is free, for the message when `file` is a folder:
 * `loopdeck.yaml`, else `loop-2.yaml`, ... A symbolic link is never free, even one to nothing.
 */
function freeName(file: string): string {
  const dir = path.dirname(file);
  for (const name of ['loop.yaml', 'loopdeck.yaml', ...Array.from({ length: 98 }, (_, i) => `loop-${i + 2}.yaml`)]) {
    if (!lstatSync(path.join(dir, name), { throwIfNoEntry: false })) return path.join(dir, name);
  }
  return path.join(dir, `loop-${process.pid}.yaml`);
}

/** A symbolic link at a path: its target as written, and what following it reaches. */
interface Link {
  target: string;
  reaches: 'a file' | 'a folder' | 'nothing' | 'a loop';
}

/** The symbolic link at `file`, or `undefined` when `file` is none. */
function linkAt(file: string): Link | undefined {
  if (!lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return undefined;
  const target = readlinkSync(file);
  try {
    const stat = statSync(file);
    return { target, reaches: stat.isDirectory() ? 'a folder' : 'a file' };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { target, reaches: 'nothing' };
    if (code === 'ELOOP') return { target, reaches: 'a loop' };
    throw error;
  }
}

/** `missing.yaml (/abs/missing.yaml)`: a link's target as written, and where it is when written relative to the link's folder. */
function targetText(file: string, target: string): string {
  const where = path.resolve(path.dirname(file), target);
  return where === target ? shownName(target) : `${shownName(target)} (${shownName(where)})`;
}

/**
 * Why `file`, a symbolic link that reaches no file or folder, is not written: init never
 * writes through a link (`open` with O_EXCL refuses one, dangling or not), and the link
 * names a file that does not exist, or leads round in a loop of links.
 */
function linkRefusal(file: string, link: Link): Error {
  const leads = link.reaches === 'nothing' ? 'which does not exist' : 'which leads round in a loop of links and never reaches a file (ELOOP)';
  return new Error(`cannot write ${shownName(file)}: it is a symbolic link to ${targetText(file, link.target)}, ${leads}; loopdeck init never writes through a link (remove the link, or pass another name)`);
}

/** Why `file` cannot be created (an error of `open(file, 'wx')`), in words; the file and its folder named on one line ({@link shownName}). */
function cannotWrite(file: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const shown = shownName(file);
  const folder = shownName(path.dirname(file));
  const link = code === 'EEXIST' ? linkAt(file) : undefined;
  if (link && (link.reaches === 'nothing' || link.reaches === 'a loop')) return linkRefusal(file, link);
  const isFolder = link ? link.reaches === 'a folder' : statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  if ((code === 'EEXIST' || code === 'EISDIR') && isFolder) {
    // A folder named as a file is (`loop.yaml/`): a free name beside it. Another (`init conf`,
    // `init .`): a free name inside the folder named.
    const near = /\.ya?ml$/i.test(file) ? file : path.join(file, 'loop.yaml');
    return new Error(`cannot write ${shown}: it is a folder (pass the name of a file that does not exist yet, e.g. ${selfCommand()} init ${shortPath(freeName(near))})`);
  }
  const linked = link ? ` (a symbolic link to ${targetText(file, link.target)})` : '';
  if (code === 'EEXIST') return new Error(`${shown} exists already${linked}: loopdeck init never overwrites a file (remove it, or pass another name)`);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    const at = statSync(path.dirname(file), { throwIfNoEntry: false });
    if (!at) return new Error(`cannot write ${shown}: the folder ${folder} does not exist (create it first)`);
    if (!at.isDirectory()) return new Error(`cannot write ${shown}: ${folder} is not a folder`);
    return new Error(`cannot write ${shown}: the folder ${folder} takes no new files (${code}: a file system such as /proc or /sys that the kernel fills); write it in your project's folder`);
  }
  if (code === 'EACCES' || code === 'EPERM') return new Error(`cannot write ${shown}: permission denied in ${folder} (${code})`);
  if (code === 'EROFS') return new Error(`cannot write ${shown}: ${folder} is on a read-only file system (EROFS)`);
  return new Error(`cannot write ${shown}: ${(error as Error).message}`, { cause: error });
}

/**
 * Writes a first loop.yaml for the project in `project` as `name` (relative to `project`),
 * never over an existing file. The runner is looked for in `project`, and the file's
 * `workspace.path` points there (relative to the file's folder), so both agree wherever the
 * file goes. The name is tried before the project is searched, so one that cannot be
 * written fails at once; the file is made once its text is ready.
 * @throws Error naming the file when the name is empty or a folder's (`x.yaml/`), the text
 *   made is one `loopdeck validate` refuses, the file exists already, is a symbolic link (to a missing file: named so, with its target), its
 *   folder is missing, it is a folder or the folder cannot be written
 */
export function writeInitConfig(project: string, name = 'loop.yaml'): InitResult {
  if (name.trim() === '') throw new Error(`expected the name of the file to write, found ${JSON.stringify(name)} (e.g. ${selfCommand()} init loop.yaml)`);
  const file = path.resolve(project, name);
  // `x.yaml/` names a folder: never the file `x.yaml` that resolving the name would give.
  if (/[/\\]$/.test(name) && !statSync(file, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`cannot write ${shownName(name)}: a name that ends in ${name.at(-1)} is a folder's (pass the file's name without it, e.g. ${selfCommand()} init ${shortPath(name.replace(/[/\\]+$/, '') || 'loop.yaml')})`);
  }
  // Tried first, and removed again: the file is made only with its text, so an init stopped
  // while it searches (Ctrl+C) leaves no empty loop.yaml for the next one to refuse.
  closeSync(create(file));
  unlinkSync(file);
  const found = detectTestRunner(project);
  // A package of an npm, yarn or pnpm workspace: its dependencies are installed at the
  // workspace's root, and a copy of the package alone could not run its tests. The
  // workspace is the root, and the commands run in the package's folder.
  const root = found.workspaceRoot;
  const rel = root ? path.relative(root.dir, project).split(path.sep).join('/') : '';
  const detection: Detection = rel === '' ? found : { ...found, runner: found.runner && inPackage(found.runner, rel), others: found.others.map((other) => inPackage(other, rel)) };
  const workspace = path.relative(path.dirname(file), rel === '' ? project : root!.dir) || '.';
  const text = renderInitConfig(rel === '' ? detection : { ...detection, inWorkspace: rel }, workspace);
  refusedByValidate(text, file);
  const fd = create(file);
  try {
    writeSync(fd, text);
  } catch (error) {
    closeSync(fd);
    unlinkSync(file);
    throw error;
  }
  closeSync(fd);
  return { ...detection, file, project, workspace, ...(rel === '' ? {} : { packageDir: rel }) };
}

/**
 * Checks `text`, the loop.yaml about to be written as `file`, as `loopdeck validate` reads
 * it: init never writes a file that validate refuses (a control character in a folder's
 * name that `workspace.path` would quote, ...).
 * @throws Error naming the file and validate's reasons
 */
function refusedByValidate(text: string, file: string): void {
  try {
    parsePolicy(text, file);
  } catch (error) {
    throw new Error(`not writing ${shownName(file)}: loopdeck validate would refuse what init made of this project (${shownName((error as Error).message)}); write the file by hand from docs/loop-yaml.md`, { cause: error });
  }
}

/** A new file `file`, open to write (never over one, never through a link). @throws Error as {@link writeInitConfig} */
function create(file: string): number {
  try {
    return openSync(file, 'wx');
  } catch (error) {
    throw cannotWrite(file, error);
  }
}

/** The line saying which runner was chosen and why, with its observer and verify. */
function runnerLine(result: InitResult): string {
  const { runner } = result;
  if (!runner) {
    return `test runner: none found (looked for package.json's test script and dependencies, pytest's config and Python test files, go.mod, Cargo.toml, and test files node --test runs by default; ${result.searched}): set observe and verify by hand (verify fails until then)`;
  }
  const verify = runner.verify ?? `none: ${runner.noVerify}; the verify written fails until you set one`;
  return `test runner: ${runner.name} (${runner.because}); observer: ${runner.observe ?? 'none'}; verify: ${verify}`;
}

/**
 * The lines `init` prints: what it wrote, what it chose and why, what to do next. Each is one
 * line whatever the names in it hold: a file or folder name with a newline (the file's, a
 * test file's) shows it as `^J` ({@link shownName}), and a command names it `$'…'`
 * ({@link shortPath}).
 */
export function initReport(result: InitResult, shown: string): string[] {
  const self = selfCommand();
  const file = shortPath(result.file);
  const inPlace = path.dirname(result.file) === result.project;
  const lines = [
    `wrote ${shown}`,
    result.workspaceRoot && result.packageDir !== undefined
      ? `workspace: ${shortPath(result.workspaceRoot.dir)} (workspace.path: ${result.workspace}${inPlace ? '' : `, from the file's folder`}), the root of the workspace this package is in (${result.workspaceRoot.why}): its dependencies are installed there, and a copy of this package alone could not run its tests; the observer and the verify run in ${result.packageDir}, where the test runner was looked for`
      : `workspace: ${shortPath(result.project)} (the current folder; workspace.path: ${result.workspace}${inPlace ? '' : `, from the file's folder`}): its test runner was looked for there`,
    ...result.notes.map((note) => `note: ${note}`),
    runnerLine(result),
    ...(result.runner?.leftOut?.length ? [`left out of the observer and the verify: ${result.runner.leftOut.join('; ')}`] : []),
    ...(result.runner?.added?.length ? [`added to the observer and the verify: ${result.runner.added.join('; ')}`] : []),
    ...(result.others.length > 0 ? [`also found: ${result.others.map((other) => `${other.name} (${other.because})`).join('; ')}, in the file as comments; ${result.chosenWhy}`] : []),
    'agent: a local Ollama model (qwen2.5-coder:7b); the other kinds are in the file as comments',
    'budget: 30 turns, 120 tool calls, 30 minutes, 2M tokens; reads allowed, everything else asked',
    `next: edit goal.objective, then check the file with: ${self} validate ${file}`,
    `then run it with: ${self} run${file === 'loop.yaml' ? '' : ` -c ${file}`}`,
  ];
  return lines.map(shownName);
}
