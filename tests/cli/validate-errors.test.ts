/**
 * `loopdeck validate` on hostile files, as a user meets it: every error on stderr at the
 * deepest path, `file:line:column`, one path style, what was expected and what was found,
 * the loop.yaml's errors and those of the files it names in one pass. Needs the built CLI
 * (`npm run build`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-validate-errors-'));
  mkdirSync(path.join(cwd, 'project'));
  writeFileSync(path.join(cwd, 'script.yaml'), 'turns:\n  - final: done\n');
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const validate = (file: string) => execa('node', [cli, 'validate', file], { cwd, reject: false, env: { NO_COLOR: '1' } });

/** A loop.yaml whose success criteria are written by the case, from line 3. */
function withCriteria(criteria: string): string {
  return `goal:\n  objective: fix it\n  success_criteria:\n${criteria}agent:\n  kind: scripted\n  script: script.yaml\nworkspace:\n  path: project\nverify:\n  - command: "true"\n`;
}

describe('validate: hostile success criteria', { timeout: 60_000 }, () => {
  it('places each bad check at its value, in the path style of every other error', async () => {
    writeFileSync(
      path.join(cwd, 'loop.yaml'),
      withCriteria(
        [
          '    - {text: a, check: {command: 5}}',
          '    - {text: b, check: {signal: tests.failing, target: "x"}}',
          '    - {text: c, check: {command: "npm test", expect_exit: 1.5}}',
          '    - {text: d, check: {command: "npm test", signal: observed.tests.failing, target: 0}}',
          '    - {text: e, check: {}}',
          '',
        ].join('\n'),
      ),
    );
    const result = await validate('loop.yaml');
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      'loop.yaml:4:34: goal.success_criteria[0].check.command: expected a string, found 5',
      'loop.yaml:5:33: goal.success_criteria[1].check.signal: expected an observed signal like observed.tests.failing, found "tests.failing"',
      'loop.yaml:5:56: goal.success_criteria[1].check.target: expected a number, found "x"',
      'loop.yaml:6:59: goal.success_criteria[2].check.expect_exit: expected an exit code from 0 to 125, found 1.5',
      'loop.yaml:7:24: goal.success_criteria[3].check: expected either command or signal, not both, found command and signal',
      'loop.yaml:7:54: goal.success_criteria[3].check.signal: expected a metric of an observe entry (there is none), found "observed.tests.failing"',
      'loop.yaml:8:24: goal.success_criteria[4].check: expected command or signal, found neither (an empty mapping)',
    ]);
  });

  it('lists the errors of loop.yaml, its workspace and its transcript in one pass', async () => {
    writeFileSync(path.join(cwd, 'script.yaml'), 'turns:\n  - {thought: 5}\n');
    writeFileSync(path.join(cwd, 'loop.yaml'), withCriteria('    - {text: a, check: {comand: "npm test"}}\n').replace('path: project', 'path: gone'));
    const result = await validate('loop.yaml');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      'loop.yaml:4:24: goal.success_criteria[0].check: expected command or signal, found neither (only comand)',
      'loop.yaml:4:25: goal.success_criteria[0].check.comand: unknown key "comand"; did you mean "command"?',
      `loop.yaml:9:9: workspace.path: expected a directory, found nothing at ${cwd}/gone`,
      `${cwd}/script.yaml:2:15: turns[0].thought: expected a string, found 5`,
    ]);
  });

  it('a file in a folder that does not exist: says the folder is missing too', async () => {
    const result = await validate('sub/nope.yaml');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: cannot read config',
      `sub/nope.yaml: no such file: the folder ${cwd}/sub does not exist either (the nearest existing folder is ${cwd})`,
    ]);
  });
});

describe('validate: control characters in the text of a loop.yaml', { timeout: 60_000 }, () => {
  it('a raw NUL byte in the goal is an error naming the path and the character; nothing is printed as the config', async () => {
    const source = withCriteria('    - every test passes\n').replace('objective: fix it', 'objective: "gr\0et"');
    writeFileSync(path.join(cwd, 'loop.yaml'), source);
    const result = await validate('loop.yaml');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      'loop.yaml:2:17: goal.objective: expected printable characters, found U+0000 (NUL) written raw (YAML takes no control character but tab and line breaks): remove it (a value that may hold one takes it escaped in double quotes: "\\x00")',
    ]);
  });

  it('an escaped ESC in a verify command is refused as well', async () => {
    writeFileSync(path.join(cwd, 'loop.yaml'), withCriteria('    - every test passes\n').replace('command: "true"', 'command: "true \\e[2J"'));
    const result = await validate('loop.yaml');
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      'loop.yaml:11:14: verify[0].command: expected text without control characters (tab and newline aside), found U+001B (ESC) in "true \\u001b[2J"',
    ]);
  });
});

describe('validate: YAML merge keys', { timeout: 60_000 }, () => {
  it('says merge keys are not supported and what works instead, not only that "<<" is an unknown key', async () => {
    writeFileSync(path.join(cwd, 'loop.yaml'), `${withCriteria('    - every test passes\n')}x-b: &b {max_iterations: 5}\nbudget: {<<: *b, max_tool_calls: 3}\n`);
    const result = await validate('loop.yaml');
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      'loop.yaml:13:10: budget.<<: expected plain keys, found a merge key (<<), which loopdeck does not support (YAML 1.2 has no merge keys): write the keys out, or use the alias alone (budget: *b) when no key is added or changed',
    ]);
  });
});

describe('validate: file and folder names on one line', { timeout: 60_000 }, () => {
  it('a missing file whose name holds a newline is named on one line', async () => {
    const result = await validate('x\ny.yaml');
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n')).toEqual(['loopdeck: cannot read config', `x^Jy.yaml: no such file in ${cwd}`]);
  });

  it("a file and a workspace whose names hold a newline: each warning and error names them on one line", async () => {
    mkdirSync(path.join(cwd, 'pro\nject'));
    const name = 'n\nl.yaml';
    writeFileSync(path.join(cwd, name), withCriteria('    - every test passes\n').replace('path: project', 'path: "pro\\nject"'));
    const valid = await validate(name);
    expect(valid.exitCode, valid.stderr).toBe(0);
    expect(valid.stderr.split('\n')).toContain(
      `loopdeck: warning: n^Jl.yaml: workspace.copy is none and ${cwd}/pro^Jject is in no git repository: the agent edits its files directly, nothing can undo the edits, and an abort cannot stash them; set workspace.copy: temp, or run git init there and commit first`,
    );
    expect(valid.stderr.split('\n').every((line) => line.startsWith('loopdeck: '))).toBe(true);
    writeFileSync(path.join(cwd, name), `${withCriteria('    - every test passes\n').replace('path: project', 'path: "gone\\nfolder"')}goal2: 1\n`);
    const invalid = await validate(name);
    expect(invalid.stderr.split('\n')).toEqual([
      'loopdeck: invalid config',
      `n^Jl.yaml:9:9: workspace.path: expected a directory, found nothing at ${cwd}/gone^Jfolder`,
      'n^Jl.yaml:12:1: goal2: unknown key "goal2"; did you mean "goal"?',
    ]);
  });
});

describe('every command that takes a path names it on one line', { timeout: 120_000 }, () => {
  // A newline and a tab, each followed by a combining mark: ^J and ^I, the mark escaped, never a raw break or an accent on J.
  const name = 'nf\n\u0301x\t\u0301y';
  const shown = 'nf^J\\u{301}x^I\\u{301}y';
  const run = (...args: string[]) => execa('node', [cli, ...args], { cwd, reject: false, env: { NO_COLOR: '1' }, stdin: 'ignore', timeout: 20_000 });

  it.each([
    ['replay', ['replay', name], `loopdeck: ${shown}: no such file`],
    ['resume', ['resume', name, '--headless'], `loopdeck: ${shown}/events.jsonl: no such file`],
    ['audit', ['audit', name], `loopdeck: ${shown}: no such file or folder`],
    ['watch', ['watch', name], `loopdeck: ${shown}: no such file or folder`],
    ['runs', ['runs', name], `loopdeck: <cwd>/${shown} is not a folder`],
  ])('%s of a missing path', async (_command, args, expected) => {
    const start = expected.replace('<cwd>', cwd);
    const result = await run(...args);
    expect(result.exitCode).not.toBe(0);
    const lines = result.stderr.split('\n').filter((line) => !line.includes('running headless'));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(start), lines[0]).toBe(true);
    expect(result.stderr).not.toMatch(/\p{M}|\t/u);
  });

  it('replay and audit of an existing folder, and runs --prune under it', async () => {
    mkdirSync(path.join(cwd, name));
    const replay = await run('replay', name);
    expect(replay.stderr.trim()).toBe(`loopdeck: ${shown} is a folder without an events.jsonl (a run folder holds one)`);
    const audit = await run('audit', name);
    expect(audit.stderr.trim()).toBe(`loopdeck: ${shown}: no transcript files (*.jsonl, *.json) in this folder`);
    const prune = await run('runs', '--prune', '--older-than', '0s', '-y', name);
    expect(prune.stdout.trim().split('\n')).toHaveLength(1);
    expect(prune.stdout).toContain(`under ${cwd}/${shown}/.loopdeck/runs`);
  });
});
