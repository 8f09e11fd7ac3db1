/**
 * `loopdeck init`: a first loop.yaml for the project in a folder. It looks at the project's
 * files to find its test runner, and writes an observer that measures failing and passing
 * tests with the matching parser, a verify command, a bounded budget, approval defaults and
 * an agent block with the other kinds as comments. It never overwrites a file.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { selfCommand, shortPath } from './continue-command.js';

/** A test runner found in a project, and how loopdeck measures and verifies with it. */
export interface TestRunner {
  /** Shown to the user: `vitest`, `node --test`, `pytest`, ... */
  name: string;
  /** Why it was chosen: the file and what in it. */
  because: string;
  /** The observer's command; its output is read by `parser`. */
  observe: string;
  parser: 'tap' | 'vitest-json' | 'jest-json' | 'junit' | 'regex';
  /** `parser: regex` only. */
  pattern?: string;
  /** `report_file` of the observer, relative to the workspace, when the command writes one. */
  reportFile?: string;
  /** The verify command: exits 0 when every test passes. */
  verify: string;
}

/** Counts of a runner that prints no per-test report loopdeck parses, summed by awk; no line when no test ran (so the count is missing, never 0). */
const SUMMED = 'failing=(?<failing>\\d+) passing=(?<passing>\\d+)';

function readJson(file: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The runner of a Node project, from package.json's `test` script, else its dependencies. */
function nodeRunner(dir: string): TestRunner | null {
  const pkg = readJson(path.join(dir, 'package.json'));
  if (!pkg) return null;
  const test = typeof record(pkg.scripts).test === 'string' ? (record(pkg.scripts).test as string) : '';
  const deps = { ...record(pkg.dependencies), ...record(pkg.devDependencies) };
  const vitest: TestRunner = { name: 'vitest', because: '', observe: 'npx vitest run --reporter=json', parser: 'vitest-json', verify: 'npx vitest run' };
  const jest: TestRunner = { name: 'jest', because: '', observe: 'npx jest --json', parser: 'jest-json', verify: 'npx jest' };
  const node: TestRunner = { name: 'node --test', because: '', observe: 'node --test --test-reporter=tap', parser: 'tap', verify: 'node --test' };
  if (/\bvitest\b/.test(test)) return { ...vitest, because: `package.json's test script runs vitest (${JSON.stringify(test)})` };
  if (/\bjest\b/.test(test)) return { ...jest, because: `package.json's test script runs jest (${JSON.stringify(test)})` };
  if (/\bnode\b.*--test\b/.test(test)) return { ...node, because: `package.json's test script runs node --test (${JSON.stringify(test)})` };
  if ('vitest' in deps) return { ...vitest, because: 'package.json depends on vitest' };
  if ('jest' in deps) return { ...jest, because: 'package.json depends on jest' };
  return { ...node, because: 'package.json names no test framework: Node’s own runner (node --test)' };
}

/**
 * The test runner of the project in `dir`, or `null` when none is recognised. Checked in
 * this order: package.json (vitest, jest, node --test), pytest (pytest.ini, conftest.py,
 * pyproject.toml or setup.cfg naming pytest, tox.ini), go.mod, Cargo.toml.
 */
export function detectTestRunner(dir: string): TestRunner | null {
  const has = (name: string) => existsSync(path.join(dir, name));
  const mentions = (name: string, word: string) => has(name) && readFileSync(path.join(dir, name), 'utf8').includes(word);
  const node = nodeRunner(dir);
  if (node) return node;
  const pytestBy = ['pytest.ini', 'conftest.py', 'tox.ini'].find(has) ?? ['pyproject.toml', 'setup.cfg'].find((f) => mentions(f, 'pytest'));
  if (pytestBy) {
    return { name: 'pytest', because: `${pytestBy} is there`, observe: 'python -m pytest -q --junitxml=.loopdeck/pytest-report.xml', parser: 'junit', reportFile: '.loopdeck/pytest-report.xml', verify: 'python -m pytest -q' };
  }
  if (has('go.mod')) {
    return {
      name: 'go test',
      because: 'go.mod is there',
      observe: `go test -v ./... 2>&1 | awk '/^--- FAIL/{f++} /^--- PASS/{p++} END{if (f+p>0) printf "failing=%d passing=%d\\n", f, p}'`,
      parser: 'regex',
      pattern: SUMMED,
      verify: 'go test ./...',
    };
  }
  if (has('Cargo.toml')) {
    return {
      name: 'cargo test',
      because: 'Cargo.toml is there',
      observe: `cargo test 2>&1 | awk '/^test result:/{p+=$4; f+=$6; n++} END{if (n>0) printf "failing=%d passing=%d\\n", f, p}'`,
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
  if (!runner) {
    return [
      '# No test runner was found: add a command whose output a parser reads, e.g.',
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
}

/**
 * Writes a first loop.yaml into `dir` (as `name`), never over an existing file.
 * @throws Error naming the file when it exists already, its folder is missing, it is a
 *   folder or the folder cannot be written
 */
export function writeInitConfig(dir: string, name = 'loop.yaml'): InitResult {
  const file = path.resolve(dir, name);
  const runner = detectTestRunner(dir);
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
  return { file, runner };
}

/** The lines `init` prints: what it wrote, what it chose and why, what to do next. */
export function initReport(result: InitResult, shown: string): string[] {
  const { runner } = result;
  return [
    `wrote ${shown}`,
    runner
      ? `test runner: ${runner.name} (${runner.because}); observer: ${runner.observe}; verify: ${runner.verify}`
      : 'test runner: none found (looked for package.json, pytest, go.mod, Cargo.toml): set observe and verify by hand',
    'agent: a local Ollama model (qwen2.5-coder:7b); the other kinds are in the file as comments',
    'budget: 30 turns, 120 tool calls, 30 minutes, 2M tokens; reads allowed, everything else asked',
    `next: edit goal.objective, then check the file with: ${selfCommand()} validate ${shortPath(result.file)}`,
  ];
}
