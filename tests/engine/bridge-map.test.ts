// A CLI agent's calls in loopdeck's terms, and the checks they get before anyone is asked:
// the workspace boundary (`..`, absolute paths, symlinks), no writes into git's or
// loopdeck's own files. Real folders and links in a temp dir.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bridgedCallProblem, mapAgentCall, patchPaths, shellScript, withRelativePaths, type MappedCall } from '../../src/engine/bridge/map.js';
import type { BridgeCli } from '../../src/engine/bridge/protocol.js';

let ws: string;
let outside: string;
beforeEach(() => {
  ws = mkdtempSync(path.join(os.tmpdir(), 'ld-map-ws-'));
  outside = mkdtempSync(path.join(os.tmpdir(), 'ld-map-out-'));
  mkdirSync(path.join(ws, '.git'));
  mkdirSync(path.join(ws, 'src'));
  writeFileSync(path.join(ws, 'src/a.ts'), 'x');
  symlinkSync(outside, path.join(ws, 'escape'));
  symlinkSync(path.join(ws, '.git'), path.join(ws, 'innocent'));
  symlinkSync(path.join(ws, '.gitattributes'), path.join(ws, 'notes.txt'));
});
afterEach(() => {
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function mapped(cli: BridgeCli, name: string, input: Record<string, unknown>): MappedCall {
  const result = mapAgentCall(cli, name, input);
  if (!result.ok) throw new Error(result.problem);
  return withRelativePaths(result.mapped, ws, realpathSync(ws));
}

function problem(cli: BridgeCli, name: string, input: Record<string, unknown>, harness: Array<{ path: string; what: string }> = []): string | null {
  return bridgedCallProblem(mapped(cli, name, input), ws, realpathSync(ws), harness);
}

describe('mapping', () => {
  it('shells become shell with the command', () => {
    expect(mapped('claude', 'Bash', { command: 'npm test', description: 'run tests' }).call).toEqual({ name: 'shell', args: { command: 'npm test' } });
    expect(mapped('gemini', 'run_shell_command', { command: 'ls -la', description: 'x' }).call).toEqual({ name: 'shell', args: { command: 'ls -la' } });
    expect(mapped('codex', 'shell', { command: ['bash', '-lc', 'rm -rf build && make'] }).call).toEqual({ name: 'shell', args: { command: 'rm -rf build && make' } });
    expect(mapped('codex', 'shell', { command: ['git', 'commit', '-m', "it's done"] }).call.args.command).toBe(`git commit -m 'it'\\''s done'`);
  });

  it('file edits, writes and reads become edit, write_file and read_file with the path relative to the workspace', () => {
    expect(mapped('claude', 'Edit', { file_path: path.join(ws, 'src/a.ts'), old_string: 'x', new_string: 'y' }).call).toEqual({ name: 'edit', args: { path: 'src/a.ts', find: 'x', replace: 'y' } });
    expect(mapped('claude', 'Write', { file_path: path.join(ws, 'src/b.ts'), content: 'z' }).call).toEqual({ name: 'write_file', args: { path: 'src/b.ts', content: 'z' } });
    expect(mapped('claude', 'MultiEdit', { file_path: 'src/a.ts', edits: [{ old_string: 'x', new_string: 'y' }] }).call).toEqual({ name: 'edit', args: { path: 'src/a.ts', edits: [{ old_string: 'x', new_string: 'y' }] } });
    expect(mapped('gemini', 'replace', { file_path: path.join(ws, 'src/a.ts'), old_string: 'x', new_string: 'y' }).call.name).toBe('edit');
    expect(mapped('gemini', 'write_file', { file_path: 'src/c.ts', content: '' }).call).toEqual({ name: 'write_file', args: { path: 'src/c.ts', content: '' } });
    expect(mapped('claude', 'Read', { file_path: path.join(ws, 'src/a.ts') }).call).toEqual({ name: 'read_file', args: { path: 'src/a.ts' } });
    expect(mapped('gemini', 'read_file', { absolute_path: path.join(ws, 'src/a.ts') }).call).toEqual({ name: 'read_file', args: { path: 'src/a.ts' } });
  });

  it('a Codex patch is an edit of each file it names; several files are each judged', () => {
    const patch = ['*** Begin Patch', '*** Update File: src/a.ts', '@@', '-x', '+y', '*** Add File: src/new.ts', '+hello', '*** End Patch'].join('\n');
    const m = mapped('codex', 'apply_patch', { command: patch });
    expect(m.call).toEqual({ name: 'edit', args: { paths: ['src/a.ts', 'src/new.ts'], patch } });
    expect(m.judged.slice(1)).toEqual([
      { name: 'edit', args: { path: 'src/a.ts' } },
      { name: 'edit', args: { path: 'src/new.ts' } },
    ]);
    expect(patchPaths('*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Delete File: c\n')).toEqual(['a', 'b', 'c']);
  });

  it('other tools keep their own name and arguments', () => {
    expect(mapped('claude', 'WebFetch', { url: 'https://example.com' }).call).toEqual({ name: 'WebFetch', args: { url: 'https://example.com' } });
    expect(mapped('claude', 'mcp__github__create_issue', { title: 't' }).call.name).toBe('mcp__github__create_issue');
    expect(mapped('claude', 'Grep', { pattern: 'x' }).paths).toEqual([]);
  });

  it('refuses what cannot be judged: a shell without a command, a file tool without a path, a patch naming no file', () => {
    expect(mapAgentCall('claude', 'Bash', {})).toEqual({ ok: false, problem: 'Bash: no command in its input' });
    expect(mapAgentCall('claude', 'Bash', { command: '   ' })).toMatchObject({ ok: false });
    expect(mapAgentCall('codex', 'shell', { command: [1, 2] })).toMatchObject({ ok: false });
    expect(mapAgentCall('claude', 'Write', { content: 'x' })).toEqual({ ok: false, problem: 'Write: no file path in its input' });
    expect(mapAgentCall('claude', 'Edit', { file_path: 42 })).toMatchObject({ ok: false });
    expect(mapAgentCall('codex', 'apply_patch', { command: 'rm -rf /' })).toEqual({ ok: false, problem: 'apply_patch: a patch that names no file' });
  });
});

describe('checks', () => {
  it('allows reads and writes inside the workspace', () => {
    expect(problem('claude', 'Write', { file_path: path.join(ws, 'src/new.ts'), content: '' })).toBeNull();
    expect(problem('claude', 'Read', { file_path: 'src/a.ts' })).toBeNull();
    expect(problem('claude', 'Read', { file_path: path.join(ws, '.git/config') })).toBeNull();
    expect(problem('claude', 'Bash', { command: 'cat /etc/passwd' })).toBeNull();
  });

  it.each([
    ['an absolute path outside', { file_path: '/etc/passwd' }],
    ['.. out of the workspace', { file_path: '../../etc/passwd' }],
    ['.. inside an absolute path', { file_path: 'WS/src/../../x' }],
    ['a symlink out of the workspace', { file_path: 'WS/escape/x' }],
    ['a relative symlink path out', { file_path: 'escape/deeper/x' }],
  ])('refuses %s, for reads and writes', (_what, input) => {
    const given = { file_path: input.file_path.replace(/^WS\//, `${ws}/`) };
    expect(problem('claude', 'Write', { ...given, content: 'x' })).toMatch(/outside the workspace/);
    expect(problem('claude', 'Read', given)).toMatch(/outside the workspace/);
  });

  it.each([
    ['.git/config', 'Write', { file_path: '.git/config', content: '[core]\n\tfsmonitor = evil' }],
    ['.GIT/hooks/pre-commit in another case', 'Edit', { file_path: '.GIT/hooks/pre-commit', old_string: 'a', new_string: 'b' }],
    ['.git. with a trailing dot', 'Write', { file_path: '.git./config', content: '' }],
    ['a nested .git', 'Write', { file_path: 'src/.git/config', content: '' }],
    ['.git through a symlink', 'Write', { file_path: 'innocent/config', content: '' }],
    ['an absolute path into .git', 'Write', { file_path: 'WS/.git/HEAD', content: '' }],
  ])('refuses a write into git (%s)', (_what, tool, input) => {
    const given = { ...input, file_path: String(input.file_path).replace(/^WS\//, `${ws}/`) };
    expect(problem('claude', tool, given)).toMatch(/inside git's own files/);
  });

  it('refuses a Codex patch when any file it names is outside or in .git', () => {
    const patch = (file: string) => `*** Begin Patch\n*** Update File: src/a.ts\n*** Add File: ${file}\n+x\n*** End Patch`;
    expect(problem('codex', 'apply_patch', { command: patch('.git/config') })).toMatch(/inside git's own files/);
    expect(problem('codex', 'apply_patch', { command: patch('../x') })).toMatch(/outside the workspace/);
    expect(problem('codex', 'apply_patch', { command: patch('src/b.ts') })).toBeNull();
  });

  it("refuses writes into loopdeck's own state and to git config through a link of another name", () => {
    const runDir = path.join(ws, '.loopdeck/runs/r1');
    mkdirSync(runDir, { recursive: true });
    expect(problem('claude', 'Write', { file_path: '.loopdeck/runs/r1/events.jsonl', content: '' }, [{ path: runDir, what: 'the run directory of this run' }])).toMatch(/loopdeck's own state/);
    expect(problem('claude', 'Write', { file_path: path.join(ws, 'loop.yaml'), content: '' }, [{ path: path.join(ws, 'loop.yaml'), what: 'the config file this run was started with' }])).toMatch(
      /the config file this run was started with/,
    );
    expect(problem('claude', 'Write', { file_path: 'notes.txt', content: '' })).toMatch(/symlink to git's \.gitattributes/);
  });

  it('refuses a NUL byte or an over-long path instead of throwing', () => {
    expect(problem('claude', 'Write', { file_path: 'src/a\0b', content: '' })).toMatch(/NUL|nul/i);
    expect(problem('claude', 'Read', { file_path: `${'a'.repeat(300)}/x` })).toMatch(/too long|255/);
  });
});

describe('the script of a shell run on one word (how Codex prints a call its hook got as the script)', () => {
  it.each([
    ["/bin/bash -lc 'npm test'", 'npm test'],
    ["bash -lc 'echo approved > approved.txt'", 'echo approved > approved.txt'],
    ["/usr/bin/zsh -c 'it'\\''s'", "it's"],
    [`sh -lc 'it'"'"'s here'`, "it's here"],
    ['bash -lc ls', 'ls'],
  ])('%s is %s', (line, script) => {
    expect(shellScript(line)).toBe(script);
  });

  it.each([
    "/bin/bash -lc 'ls'; rm -rf x",
    "/bin/bash -lc 'ls' extra",
    'bash -lc "ls"',
    "bash -lc 'unterminated",
    'bash -lc $(evil)',
    'bash -lc ',
    'npm test',
    "python -c 'print(1)'",
  ])('%s stays whole', (line) => {
    expect(shellScript(line)).toBe(line);
  });
});
