/**
 * `validate` refuses every config `run` would refuse, abort or fail at its start or first
 * turn, with the same errors: both go through one start check (src/preflight.ts). Each
 * case is checked with `validate` and with `run --headless`, which must refuse it before a
 * session starts. Needs the built CLI (`npm run build`).
 *
 * Every case runs both commands in this process (tests/support/cli-in-process.ts: the same
 * command line, output and exit code), and one of them also through the built CLI, both
 * commands as separate processes; FULL_SWEEP=1 spawns the CLI for every case.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI as cli, loopdeckInProcess } from '../support/cli-in-process.js';

/** Every case through the built CLI too when FULL_SWEEP=1 (as `CRASH_SWEEP=all` elsewhere); else the one marked `spawned`. */
const FULL_SWEEP = process.env.FULL_SWEEP === '1';

const BASE = `goal:
  objective: fix it
workspace:
  path: project
observe:
  - { name: tests, command: "printf '# pass 1\\\\n# fail 1\\\\n'", parser: tap }
progress:
  observed:
    - { signal: observed.tests.failing, direction: decrease }
verify:
  - command: "true"
`;
const SCRIPTED = 'agent: {kind: scripted, script: script.yaml}\n';
const ONE_TURN = 'turns:\n  - final: done\n';

interface Case {
  name: string;
  /** What follows BASE in loop.yaml (line 12 on). */
  config: string;
  script?: string;
  /** The error lines both commands print after `loopdeck: invalid config` (`<dir>` is the folder). */
  errors: string[];
  /** Also run through the built CLI (a case that reads the environment). */
  spawned?: boolean;
}

const CASES: Case[] = [
  {
    name: 'approvals: bridge for a command whose CLI is not known',
    config: 'agent: {kind: command, command: cat, approvals: bridge, output: text}\n',
    errors: [
      'loop.yaml:12:49: agent.approvals: bridge needs to know the CLI: set agent.output to claude-stream-json, codex-json or gemini-stream-json, or start the command with claude, codex or gemini',
    ],
  },
  {
    name: 'plan-and-execute with a command agent',
    config: 'agent: {kind: command, command: cat}\npattern: plan-and-execute\n',
    errors: [
      'loop.yaml:13:10: pattern: expected a pattern a command agent can follow, found plan-and-execute: command:cat cannot plan; Plan-and-Execute needs an agent that plans (only a scripted transcript plans and reflects; use pattern: react)',
    ],
  },
  {
    name: 'auto picking plan-and-execute for a command agent',
    config: 'agent: {kind: command, command: cat}\npattern: auto\ntask: {known_procedure: true}\n',
    errors: [
      'loop.yaml:13:10: pattern: expected a pattern a command agent can follow, found auto, which picks plan-and-execute (the task follows a known procedure): command:cat cannot plan; Plan-and-Execute needs an agent that plans (only a scripted transcript plans and reflects; use pattern: react)',
    ],
  },
  {
    name: 'reflexion with an openai agent',
    config: 'agent: {kind: openai, model: m, base_url: "http://127.0.0.1:9/v1"}\npattern: reflexion\n',
    errors: [
      'loop.yaml:13:10: pattern: expected a pattern an openai agent can follow, found reflexion: openai:m cannot reflect; Reflexion needs an agent that reflects (only a scripted transcript plans and reflects; use pattern: react)',
    ],
  },
  {
    name: 'plan-and-execute with a transcript without plan:',
    config: `${SCRIPTED}pattern: plan-and-execute\n`,
    errors: ['<dir>/script.yaml: expected a plan: list (pattern: plan-and-execute asks the agent for its plan first), found none'],
  },
  {
    name: 'a transcript with only laps: and laps off',
    config: SCRIPTED,
    script: 'laps:\n  - - final: done\n',
    errors: ['<dir>/script.yaml:1:1: laps: expected at least one entry in turns: (laps.enabled is false, so the run plays turns:), found only laps: (read when laps.enabled is true)'],
  },
  {
    name: 'a transcript with only turns: and laps on',
    config: `${SCRIPTED}laps: {enabled: true, max_laps: 1}\n`,
    errors: ['<dir>/script.yaml:1:1: turns: expected laps: with at least one turn in the first lap (laps.enabled is true, so each lap plays its list in laps:), found only turns: (read when laps.enabled is false)'],
  },
  {
    name: 'an empty transcript file',
    config: SCRIPTED,
    script: '',
    errors: ['<dir>/script.yaml: expected at least one entry in turns: (laps.enabled is false, so the run plays turns:), found none'],
  },
  {
    name: 'the OpenAI API without a key',
    config: 'agent: {kind: openai, model: m}\n',
    spawned: true,
    errors: ['loop.yaml:12:8: agent: openai:m: no API key: set OPENAI_API_KEY or name the variable holding it in agent.api_key_env of loop.yaml'],
  },
  {
    name: 'base_url that is not a URL',
    config: 'agent: {kind: openai, model: m, base_url: "not a url"}\n',
    errors: ['loop.yaml:12:43: agent.base_url: expected an http:// or https:// URL like http://localhost:11434/v1, found "not a url": not a URL'],
  },
  {
    name: 'base_url of another scheme',
    config: 'agent: {kind: openai, model: m, base_url: "ftp://x/"}\n',
    errors: ['loop.yaml:12:43: agent.base_url: expected an http:// or https:// URL like http://localhost:11434/v1, found "ftp://x/": the scheme ftp is not http or https'],
  },
  {
    name: 'a report_file outside the workspace',
    config: `${SCRIPTED}observe:\n  - { name: tests, command: "true", parser: tap, report_file: ../../etc/passwd }\n`,
    errors: ['loop.yaml:9:63: observe[0].report_file: expected a path relative to the workspace, inside it, found "../../etc/passwd"'],
  },
  {
    name: 'tool call ids used twice in a transcript',
    config: SCRIPTED,
    script: 'turns:\n  - tool_calls:\n      - {id: c1, name: list_files, args: {}}\n  - tool_calls:\n      - {id: c1, name: list_files, args: {}}\n  - final: done\n',
    errors: [
      '<dir>/script.yaml:5:14: turns[1].tool_calls[0].id: expected an id unique in the transcript, found "c1" again (first at turns[0].tool_calls[0]); the log, approvals and the repetition guard key on it',
    ],
  },
];

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-agree-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A folder with the case's loop.yaml (BASE, with the case's observe replacing BASE's when it
 * has one), script.yaml and project/, a git repository (the workspace is used in place: one
 * in no git repository gets a warning of its own).
 */
function folderOf(c: Case, index: number): string {
  const dir = path.join(root, String(index));
  mkdirSync(path.join(dir, 'project'), { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: path.join(dir, 'project') });
  const base = c.config.includes('observe:') ? BASE.replace(/observe:\n.*\nprogress:\n.*\n.*\n/, '') : BASE;
  writeFileSync(path.join(dir, 'loop.yaml'), base + c.config);
  writeFileSync(path.join(dir, 'script.yaml'), c.script ?? ONE_TURN);
  return dir;
}

const env = { NO_COLOR: '1', OPENAI_API_KEY: '' };

describe('validate refuses what run refuses, with the same errors', { timeout: 120_000 }, () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, index) => {
    const dir = folderOf(c, index);
    const expected = ['loopdeck: invalid config', ...c.errors.map((line) => line.replaceAll('<dir>', dir))];
    const inProcess = async () => ({
      checked: await loopdeckInProcess(['validate', 'loop.yaml'], { cwd: dir, env }),
      ran: await loopdeckInProcess(['run', '--headless', '-c', 'loop.yaml'], { cwd: dir, env }),
    });
    const spawned = async () => {
      const [checked, ran] = await Promise.all([
        execa('node', [cli, 'validate', 'loop.yaml'], { cwd: dir, reject: false, env }),
        execa('node', [cli, 'run', '--headless', '-c', 'loop.yaml'], { cwd: dir, reject: false, env, stdin: 'ignore' }),
      ]);
      return { checked, ran };
    };
    for (const { checked, ran } of [await inProcess(), ...(FULL_SWEEP || c.spawned ? [await spawned()] : [])]) {
      expect(checked.exitCode, checked.stderr).toBe(1);
      expect(checked.stdout).toBe('');
      expect(checked.stderr.split('\n')).toEqual(expected);
      expect(ran.exitCode, ran.stderr).toBe(1);
      expect(ran.stdout, 'no session started').not.toContain('session.start');
      expect(ran.stderr.split('\n').filter((line) => !line.startsWith('loopdeck: headless:'))).toEqual(expected);
    }
  });
});

describe('what runs but is not what was meant: a warning', { timeout: 120_000 }, () => {
  it('a transcript with both turns: and laps: says which one is never read; a rule naming no tool never matches', async () => {
    const dir = folderOf(
      { name: 'warnings', config: `${SCRIPTED}approval:\n  allow: [read_fiel, list_files]\n`, script: 'turns:\n  - final: done\nlaps:\n  - - final: done\n', errors: [] },
      100,
    );
    const checked = await loopdeckInProcess(['validate', 'loop.yaml'], { cwd: dir, env });
    expect(checked.exitCode, checked.stderr).toBe(0);
    expect(checked.stderr.split('\n')).toEqual([
      `loopdeck: warning: ${dir}/script.yaml:3:1: laps: never read: laps.enabled is false in loop.yaml, so the run plays turns:`,
      'loopdeck: warning: loop.yaml:14:11: approval.allow[0]: the rule names "read_fiel", which is not a tool: it never matches (known: list_files, git_status, git_diff, shell, read_file, write_file, edit); did you mean "read_file"?',
    ]);
  });

  it('run with the loop.yaml as an argument says how to name it', async () => {
    const dir = folderOf({ name: 'positional', config: SCRIPTED, errors: [] }, 101);
    const ran = await loopdeckInProcess(['run', 'loop.yaml'], { cwd: dir, env });
    expect(ran.exitCode).toBe(1);
    expect(ran.stderr).toBe(`loopdeck: run takes no arguments, found "loop.yaml"; name the loop.yaml with -c: node ${cli} run -c loop.yaml`);
  });
});
