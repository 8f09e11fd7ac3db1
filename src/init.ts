/**
 * `loopdeck init`: a first loop.yaml for the project in a folder. It looks at the project's
 * files to find its test runner, and writes an observer that measures failing and passing
 * tests with the matching parser, a verify command, a bounded budget, approval defaults and
 * an agent block with the other kinds as comments. It never overwrites a file.
 */
import { readdirSync, readFileSync, statSync, writeFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { selfCommand, shortPath } from './continue-command.js';

/** A test runner found in a project, and how loopdeck measures and verifies with it. */
export interface TestRunner {
  /** Shown to the user: `vitest`, `node --test`, `pytest`, ... */
  name: string;
  /** Why it was chosen: the file and what in it. */
  because: string;
  /** The observer's command; its output is read by `parser`. `null`: loopdeck has no parser for this runner (verify only). */
  observe: string | null;
  parser: 'tap' | 'vitest-json' | 'jest-json' | 'junit' | 'regex' | null;
  /** `parser: regex` only. */
  pattern?: string;
  /** `report_file` of the observer, relative to the workspace, when the command writes one. */
  reportFile?: string;
  /** The verify command: exits 0 when every test passes. */
  verify: string;
}

/**
 * Counts of a runner that prints no per-test report loopdeck parses, summed by awk after
 * the runner's own output and exit status (which an observer error then quotes: `go: not
 * found`, `exit 127`); no count line when no test ran (so the count is missing, never 0).
 */
const SUMMED = 'failing=(?<failing>\\d+) passing=(?<passing>\\d+)';

/** What a project's files told `init`, and what it could not read (each a sentence naming the file). */
interface Look {
  dir: string;
  notes: string[];
}

/** The text of `name` in the project, or `null` when there is no such file; a file it cannot read is a note. */
function readText(look: Look, name: string): string | null {
  const file = path.join(look.dir, name);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') look.notes.push(`${name}: not read (${code ?? (error as Error).message}): the runner it might name was not considered`);
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

/** package.json's object, or `null` when there is none or it is not a JSON object (a note says which). */
function packageJson(look: Look): Record<string, unknown> | null {
  const text = readText(look, 'package.json');
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
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

/** The test script `npm init` writes: it names no runner. */
const NPM_PLACEHOLDER = /no test specified/;

/** The runner of a Node project, from package.json's `test` script, else its dependencies. */
function nodeRunner(look: Look): TestRunner | null {
  const pkg = packageJson(look);
  if (!pkg) return null;
  const test = typeof record(pkg.scripts).test === 'string' ? (record(pkg.scripts).test as string) : '';
  const deps = { ...record(pkg.dependencies), ...record(pkg.devDependencies) };
  const vitest: TestRunner = { name: 'vitest', because: '', observe: 'npx vitest run --reporter=json', parser: 'vitest-json', verify: 'npx vitest run' };
  const jest: TestRunner = { name: 'jest', because: '', observe: 'npx jest --json', parser: 'jest-json', verify: 'npx jest' };
  const node: TestRunner = { name: 'node --test', because: '', observe: 'node --test --test-reporter=tap', parser: 'tap', verify: 'node --test' };
  if (/\bvitest\b/.test(test)) return { ...vitest, because: `package.json's test script runs vitest (${JSON.stringify(test)})` };
  if (/\bjest\b/.test(test)) return { ...jest, because: `package.json's test script runs jest (${JSON.stringify(test)})` };
  if (/\bnode\b.*--test\b/.test(test)) return { ...node, because: `package.json's test script runs node --test (${JSON.stringify(test)})` };
  if (test.trim() !== '' && !NPM_PLACEHOLDER.test(test)) {
    // A runner loopdeck reads no report of (mocha, ava, tap, a custom script): its exit code still verifies.
    return {
      name: 'npm test',
      because: `package.json's test script runs ${JSON.stringify(test)}, whose output loopdeck has no parser for: npm test verifies, nothing is measured until you add an observer`,
      observe: null,
      parser: null,
      verify: 'npm test',
    };
  }
  if ('vitest' in deps) return { ...vitest, because: 'package.json depends on vitest' };
  if ('jest' in deps) return { ...jest, because: 'package.json depends on jest' };
  return { ...node, because: 'package.json names no test framework: Node’s own runner (node --test)' };
}

/** Folders never searched for test files: dependencies, virtual environments, build output. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.venv', 'venv', 'env', '.tox', '__pycache__', 'build', 'dist', 'site-packages', 'target']);
/** How deep below the project folder, and how many folders in all, the search for Python test files goes. */
const TEST_FILE_DEPTH = 3;
const TEST_FILE_DIRS = 200;

/** The first Python test file as pytest finds them (`test_*.py`, `*_test.py`), relative to the project, or `null`. */
function pythonTestFile(look: Look): string | null {
  const queue: Array<{ rel: string; depth: number }> = [{ rel: '', depth: 0 }];
  for (let seen = 0; queue.length > 0 && seen < TEST_FILE_DIRS; seen++) {
    const { rel, depth } = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(path.join(look.dir, rel), { withFileTypes: true });
    } catch (error) {
      look.notes.push(`${rel || '.'}: not searched for Python test files (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (entry.isFile() && /^test_.*\.py$|^.+_test\.py$/.test(entry.name)) return path.join(rel, entry.name);
    }
    if (depth >= TEST_FILE_DEPTH) continue;
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) queue.push({ rel: path.join(rel, entry.name), depth: depth + 1 });
    }
  }
  return null;
}

/** Why the project is a pytest project: a pytest config, a file that names pytest, or Python test files; `null` when none. */
function pytestReason(look: Look): string | null {
  const config = ['pytest.ini', 'conftest.py'].find((name) => has(look, name));
  if (config) return `${config} is there`;
  const naming = ['pyproject.toml', 'setup.cfg', 'tox.ini', 'setup.py', 'Pipfile', 'requirements-dev.txt', 'requirements.txt', 'requirements-test.txt'].find((name) =>
    /\bpytest\b/.test(readText(look, name) ?? ''),
  );
  if (naming) return `${naming} names pytest`;
  const file = pythonTestFile(look);
  return file ? `${file} is a Python test file (pytest runs unittest-style tests too)` : null;
}

/**
 * The test runner of the project in `dir`, or `null` when none is recognised, and notes on
 * the files that could not be read. Checked in this order: package.json (vitest, jest,
 * node --test, another test script: verified by `npm test`), pytest (pytest.ini,
 * conftest.py, a project file naming pytest, or `test_*.py` / `*_test.py` files within
 * three folders), go.mod, Cargo.toml.
 */
export function detectTestRunner(dir: string): { runner: TestRunner | null; notes: string[] } {
  const look: Look = { dir, notes: [] };
  return { runner: findRunner(look), notes: look.notes };
}

function findRunner(look: Look): TestRunner | null {
  const node = nodeRunner(look);
  if (node) return node;
  const pytest = pytestReason(look);
  if (pytest) {
    return { name: 'pytest', because: pytest, observe: 'python -m pytest -q --junitxml=.loopdeck/pytest-report.xml', parser: 'junit', reportFile: '.loopdeck/pytest-report.xml', verify: 'python -m pytest -q' };
  }
  if (has(look, 'go.mod')) {
    return {
      name: 'go test',
      because: 'go.mod is there',
      observe: `{ go test -v ./... 2>&1; echo "exit $?"; } | awk '{print} /^--- FAIL/{f++} /^--- PASS/{p++} END{if (f+p>0) printf "failing=%d passing=%d\\n", f, p}'`,
      parser: 'regex',
      pattern: SUMMED,
      verify: 'go test ./...',
    };
  }
  if (has(look, 'Cargo.toml')) {
    return {
      name: 'cargo test',
      because: 'Cargo.toml is there',
      observe: `{ cargo test 2>&1; echo "exit $?"; } | awk '{print} /^test result:/{p+=$4; f+=$6; n++} END{if (n>0) printf "failing=%d passing=%d\\n", f, p}'`,
      parser: 'regex',
      pattern: SUMMED,
      verify: 'cargo test',
    };
  }
  return null;
}

/** A YAML scalar in double quotes (JSON's escaping is valid YAML). */
function q(text: string): string {
  return JSON.stringify(text);
}

function observeBlock(runner: TestRunner | null): string[] {
  if (!runner || runner.observe === null) {
    return [
      runner ? `# loopdeck has no parser for ${runner.name}'s output: add a command whose output a parser reads, e.g.` : '# No test runner was found: add a command whose output a parser reads, e.g.',
      '# observe:',
      '#   - { name: tests, command: "node --test --test-reporter=tap", parser: tap }',
      'observe: []',
      'progress:',
      '  observed: []',
    ];
  }
  return [
    `# The harness measures progress itself: ${runner.name}, read by the ${runner.parser} parser.`,
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

/** The text of the loop.yaml `init` writes for a project whose runner is `runner` (`null`: none found). */
export function renderInitConfig(runner: TestRunner | null): string {
  const verify = runner ? runner.verify : "echo 'set verify in loop.yaml: a command that exits 0 when the goal is met' >&2; exit 1";
  const allowTests = runner ? [`    - ${q(`shell: ${runner.verify}`)}`] : [];
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
    '#   command: claude -p --output-format stream-json --verbose',
    '#   # or: codex exec --json / gemini -p --output-format stream-json',
    '#   timeout: 20m',
    '# laps: { enabled: true, max_laps: 5, progress_file: PROGRESS.md }',
    '',
    '# The agent works on a temporary git copy of this folder (its path is printed when the run',
    '# ends); `copy: none` lets it work here in place.',
    'workspace:',
    '  path: .',
    '  copy: temp',
    '',
    'budget:',
    '  max_iterations: 30',
    '  max_tool_calls: 120',
    '  max_wall_clock: 30m',
    '  max_tokens: 2000000',
    '',
    ...observeBlock(runner),
    '',
    '# The goal is met only when these pass: the agent saying so is not enough.',
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
export interface InitResult {
  file: string;
  runner: TestRunner | null;
  /** Files of the project it could not read or use, each a sentence naming the file. */
  notes: string[];
}

/**
 * Writes a first loop.yaml into `dir` (as `name`), never over an existing file.
 * @throws Error naming the file when it exists already, its folder is missing, it is a
 *   folder or the folder cannot be written
 */
export function writeInitConfig(dir: string, name = 'loop.yaml'): InitResult {
  const file = path.resolve(dir, name);
  const { runner, notes } = detectTestRunner(dir);
  try {
    writeFileSync(file, renderInitConfig(runner), { flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`cannot write ${file}: it is a folder (pass a file name, e.g. ${path.join(name, 'loop.yaml')})`);
    if (code === 'EEXIST') throw new Error(`${file} exists already: loopdeck init never overwrites a file (remove it, or pass another name)`);
    if (code === 'ENOENT') throw new Error(`cannot write ${file}: the folder ${path.dirname(file)} does not exist (create it first, or run loopdeck init inside it)`);
    if (code === 'EISDIR') throw new Error(`cannot write ${file}: it is a folder (pass a file name, e.g. ${path.join(name, 'loop.yaml')})`);
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') throw new Error(`cannot write ${file}: not allowed here (${code})`);
    throw error;
  }
  return { file, runner, notes };
}

/** The lines `init` prints: what it wrote, what it chose and why, what to do next. */
export function initReport(result: InitResult, shown: string): string[] {
  const { runner } = result;
  return [
    `wrote ${shown}`,
    ...result.notes.map((note) => `note: ${note}`),
    !runner
      ? 'test runner: none found (looked for package.json, pytest and Python test files, go.mod, Cargo.toml): set observe and verify by hand'
      : runner.observe === null
        ? `test runner: ${runner.name} (${runner.because}); observer: none; verify: ${runner.verify}`
        : `test runner: ${runner.name} (${runner.because}); observer: ${runner.observe}; verify: ${runner.verify}`,
    'agent: a local Ollama model (qwen2.5-coder:7b); the other kinds are in the file as comments',
    'budget: 30 turns, 120 tool calls, 30 minutes, 2M tokens; reads allowed, everything else asked',
    `next: edit goal.objective, then check the file with: ${selfCommand()} validate ${shortPath(result.file)}`,
  ];
}
