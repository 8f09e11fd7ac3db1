import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolError } from '../../src/engine/errors.js';
import { runTool, type ToolContext } from '../../src/engine/tools.js';

let root: string;
let workspace: string;
let outside: string;
let ctx: ToolContext;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-tools-'));
  workspace = path.join(root, 'ws');
  outside = path.join(root, 'outside');
  fs.mkdirSync(workspace);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  ctx = { workspace, shellTimeoutSeconds: 10, outputLimit: 16 * 1024 };
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) => ({ id: 'c1', name, args });

async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    return error as ToolError;
  }
  throw new Error('expected the tool to throw ToolError');
}

describe('files inside the workspace', () => {
  it('write_file creates parent folders and read_file reads it back', async () => {
    const written = await runTool(call('write_file', { path: 'src/a.txt', content: 'héllo\n' }), ctx);
    expect(written).toEqual({ status: 'ok', output: 'wrote 7 bytes to src/a.txt', exit_code: null });
    expect(fs.readFileSync(path.join(workspace, 'src', 'a.txt'), 'utf8')).toBe('héllo\n');
    const read = await runTool(call('read_file', { path: 'src/a.txt' }), ctx);
    expect(read).toEqual({ status: 'ok', output: 'héllo\n', exit_code: null });
  });

  it('edit replaces the one occurrence, literally', async () => {
    fs.writeFileSync(path.join(workspace, 'a.js'), 'const x = 1;\nconst y = 2;\n');
    const edited = await runTool(call('edit', { path: 'a.js', find: 'const y = 2;', replace: "const y = '$&';" }), ctx);
    expect(edited).toEqual({ status: 'ok', output: 'edited a.js', exit_code: null });
    expect(fs.readFileSync(path.join(workspace, 'a.js'), 'utf8')).toBe("const x = 1;\nconst y = '$&';\n");
  });

  it('paths with .. that stay inside the workspace are fine', async () => {
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'b.txt'), 'b');
    expect((await runTool(call('read_file', { path: 'src/../b.txt' }), ctx)).output).toBe('b');
  });

  it('read_file of a missing file fails clearly', async () => {
    const error = await toolError(runTool(call('read_file', { path: 'nope.txt' }), ctx));
    expect(error.message).toBe('read_file: cannot read "nope.txt": no such file or folder (ENOENT)');
  });
});

describe('paths outside the workspace are refused', () => {
  it.each([
    ['read_file', { path: '../outside/secret.txt' }],
    ['write_file', { path: '../x', content: 'pwned' }],
    ['edit', { path: '../outside/secret.txt', find: 'top', replace: 'no' }],
  ])('%s with a ../ path', async (name, args) => {
    const error = await toolError(runTool(call(name, args), ctx));
    expect(error.tool).toBe(name);
    expect(error.message).toBe(`${name}: path "${args.path}" is outside the workspace`);
    expect(fs.existsSync(path.join(root, 'x'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('an absolute path, even one inside the workspace', async () => {
    for (const target of [path.join(outside, 'secret.txt'), path.join(workspace, 'a.txt')]) {
      const error = await toolError(runTool(call('read_file', { path: target }), ctx));
      expect(error.message).toBe(`read_file: path "${target}" must be relative to the workspace`);
    }
  });

  it('a symlinked file that points outside', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
    const read = await toolError(runTool(call('read_file', { path: 'link.txt' }), ctx));
    expect(read.message).toBe('read_file: path "link.txt" is outside the workspace');
    const write = await toolError(runTool(call('write_file', { path: 'link.txt', content: 'pwned' }), ctx));
    expect(write.message).toBe('write_file: path "link.txt" is outside the workspace');
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  it('a new file under a symlinked folder that points outside', async () => {
    fs.symlinkSync(outside, path.join(workspace, 'out'));
    const error = await toolError(runTool(call('write_file', { path: 'out/new.txt', content: 'pwned' }), ctx));
    expect(error.message).toBe('write_file: path "out/new.txt" is outside the workspace');
    expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });

  it('a workspace reached through a symlink still allows its own files', async () => {
    const alias = path.join(root, 'alias');
    fs.symlinkSync(workspace, alias);
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'A');
    const read = await runTool(call('read_file', { path: 'a.txt' }), { ...ctx, workspace: alias });
    expect(read.output).toBe('A');
  });
});

describe('edit failures', () => {
  beforeEach(() => {
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'one two one\n');
  });

  it('fails when the text does not occur, leaving the file unchanged', async () => {
    const error = await toolError(runTool(call('edit', { path: 'a.txt', find: 'three', replace: '3' }), ctx));
    expect(error.message).toBe('edit: the text to find does not occur in a.txt');
    expect(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('one two one\n');
  });

  it('fails when the text occurs twice, leaving the file unchanged', async () => {
    const error = await toolError(runTool(call('edit', { path: 'a.txt', find: 'one', replace: '1' }), ctx));
    expect(error.message).toBe('edit: the text to find occurs 2 times in a.txt; it must occur exactly once');
    expect(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8')).toBe('one two one\n');
  });

  it('fails on a missing file', async () => {
    const error = await toolError(runTool(call('edit', { path: 'b.txt', find: 'x', replace: 'y' }), ctx));
    expect(error.message).toBe('edit: cannot read "b.txt": no such file or folder (ENOENT)');
  });
});

describe('bad calls', () => {
  it('an unknown tool is named with the known ones', async () => {
    const error = await toolError(runTool(call('delete_everything', {}), ctx));
    expect(error.message).toBe('delete_everything: unknown tool (known: list_files, git_status, git_diff, shell, read_file, write_file, edit)');
  });

  it('bad arguments name the argument', async () => {
    const error = await toolError(runTool(call('write_file', { path: 'a.txt' }), ctx));
    expect(error.message).toMatch(/^write_file: bad arguments: content: /);
  });
});

describe('shell', () => {
  it('runs in the workspace and returns ok with its output', async () => {
    const result = await runTool(call('shell', { command: 'pwd; echo hi >&2' }), ctx);
    expect(result).toEqual({ status: 'ok', output: `${fs.realpathSync(workspace)}\nhi\n`, exit_code: 0 });
  });

  it('returns failed with the exit code for exit 3', async () => {
    const result = await runTool(call('shell', { command: 'echo broken; exit 3' }), ctx);
    expect(result).toEqual({ status: 'failed', output: 'broken\n', exit_code: 3 });
  });

  it('does not pass loopdeck secrets to the command', async () => {
    process.env.LOOPDECK_TEST_SECRET = 'sk-should-not-leak';
    try {
      const result = await runTool(call('shell', { command: 'echo "[$LOOPDECK_TEST_SECRET]"' }), ctx);
      expect(result.output).toBe('[]\n');
    } finally {
      delete process.env.LOOPDECK_TEST_SECRET;
    }
  });

  it('times out, killing the whole process group, well within 5 s', async () => {
    const started = Date.now();
    const result = await runTool(
      call('shell', { command: 'echo $$ > pgid.txt; sleep 60 & sleep 60; wait' }),
      { ...ctx, shellTimeoutSeconds: 0.3 },
    );
    const elapsed = Date.now() - started;
    expect(result.status).toBe('timed_out');
    expect(result.exit_code).toBeNull();
    expect(elapsed).toBeLessThan(5000);

    const pgid = Number(fs.readFileSync(path.join(workspace, 'pgid.txt'), 'utf8'));
    expect(pgid).toBeGreaterThan(1);
    // The killed sleeps may linger as zombies until init reaps them (kill(-pgid, 0) still
    // succeeds on zombies); wait for the group to vanish entirely, within a bound.
    const deadline = Date.now() + 10_000;
    let code: string | undefined;
    while (Date.now() < deadline) {
      try {
        process.kill(-pgid, 0);
      } catch (error) {
        code = (error as NodeJS.ErrnoException).code;
        break;
      }
      expect(liveMembers(pgid)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(code).toBe('ESRCH');
  });

  it('keeps the head and tail of long output and says how much was dropped', async () => {
    // 1000 characters of output, 100 kept: 900 dropped.
    const result = await runTool(call('shell', { command: "printf 'a%.0s' $(seq 1 500); printf 'b%.0s' $(seq 1 500)" }), {
      ...ctx,
      outputLimit: 100,
    });
    expect(result.status).toBe('ok');
    expect(result.output.startsWith('a'.repeat(50))).toBe(true);
    expect(result.output.endsWith('b'.repeat(50))).toBe(true);
    expect(result.output).toContain('[... 900 characters truncated ...]');
  });
});

/** Processes of group `pgid` that are not zombies (Linux /proc). */
function liveMembers(pgid: number): string[] {
  const live: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') live.push(`${entry} ${stat.slice(0, stat.lastIndexOf(')') + 1)}`);
  }
  return live;
}

describe('workspace inspection tools and bounded output', () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-tools2-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));
  const ctx = () => ({ workspace: ws, shellTimeoutSeconds: 30, outputLimit: 4096 });

  it('list_files lists files recursively in name order, skipping .git and node_modules, and refuses paths outside', async () => {
    mkdirSync(path.join(ws, 'src/deep'), { recursive: true });
    mkdirSync(path.join(ws, 'node_modules/x'), { recursive: true });
    writeFileSync(path.join(ws, 'b.txt'), '');
    writeFileSync(path.join(ws, 'a.txt'), '');
    writeFileSync(path.join(ws, 'src/deep/c.js'), '');
    writeFileSync(path.join(ws, 'node_modules/x/i.js'), '');
    const out = await runTool({ id: 'l', name: 'list_files', args: {} }, ctx());
    expect(out.output).toBe(['a.txt', 'b.txt', 'src/deep/c.js'].join('\n'));
    await expect(runTool({ id: 'l', name: 'list_files', args: { path: '..' } }, ctx())).rejects.toThrow(/outside the workspace/);
  });

  it('git_status and git_diff read a real repository; outside git they fail clearly', async () => {
    await expect(runTool({ id: 'g', name: 'git_status', args: {} }, ctx())).rejects.toThrow('not a git repository');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ws });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 't');
    git('config', 'user.email', 't@localhost');
    writeFileSync(path.join(ws, 'f.txt'), 'one\n');
    git('add', '.');
    git('commit', '-qm', 'one');
    writeFileSync(path.join(ws, 'f.txt'), 'two\n');
    writeFileSync(path.join(ws, 'new.txt'), 'new\n');
    const status = await runTool({ id: 'g', name: 'git_status', args: {} }, ctx());
    expect(status.output).toBe('branch: main\n M f.txt\n?? new.txt');
    const diff = await runTool({ id: 'd', name: 'git_diff', args: { path: 'f.txt' } }, ctx());
    expect(diff.output).toContain('-one\n+two');
  });

  it('a command printing 200 MB keeps memory bounded and returns head, tail and the truncation marker', async () => {
    const before = process.memoryUsage().rss;
    const out = await runTool(
      { id: 's', name: 'shell', args: { command: "echo START; head -c 209715200 /dev/zero | tr '\\0' x; echo; echo END" } },
      { ...ctx(), shellTimeoutSeconds: 120 },
    );
    const grown = process.memoryUsage().rss - before;
    expect(out.status).toBe('ok');
    expect(out.output.startsWith('START\nxxx')).toBe(true);
    expect(out.output.endsWith('xxx\nEND\n')).toBe(true);
    expect(out.output).toMatch(/\[\.\.\. \d+ characters truncated \.\.\.\]/);
    expect(out.output.length).toBeLessThan(5000);
    expect(grown).toBeLessThan(150 * 1024 * 1024);
  });

  it('binary output is summarised, not shown', async () => {
    const out = await runTool({ id: 's', name: 'shell', args: { command: 'head -c 3000 /dev/zero' } }, ctx());
    expect(out.output).toBe('[binary output: 3000 bytes, not shown]');
    expect(out).toMatchObject({ truncated: true, output_bytes: 3000 });
  });
});

describe('"finished" means the shell exited, not that its pipes closed', () => {
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-finished-'));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));
  const ctx = (): ToolContext => ({ workspace: ws, shellTimeoutSeconds: 30, outputLimit: 4096 });
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('a tool that starts a background server returns when the shell exits, and the server is killed', async () => {
    const started = Date.now();
    const out = await runTool({ id: 's', name: 'shell', args: { command: 'sleep 60 & echo $! > bg.pid; echo started server' } }, { ...ctx(), shellTimeoutSeconds: 20 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out).toEqual({ status: 'ok', output: 'started server\n', exit_code: 0 });
    const pid = Number(fs.readFileSync(path.join(ws, 'bg.pid'), 'utf8'));
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 3000 });
  });

  it('a process that escaped the group with setsid and holds the output is named in the result and killed', async () => {
    const started = Date.now();
    const out = await runTool({ id: 's', name: 'shell', args: { command: 'setsid sleep 31 & echo started' } }, { ...ctx(), shellTimeoutSeconds: 20 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.status).toBe('ok');
    expect(out.escaped).toEqual([{ pid: expect.any(Number), command: 'sleep 31' }]);
    expect(out.output).toMatch(/^started\n\[loopdeck: killed pid \d+ \(sleep 31\): it left the command's process group/);
    await vi.waitFor(() => expect(alive(out.escaped![0]!.pid!)).toBe(false), { timeout: 3000 });
  });

  it('a tool killed because the run was quit or aborted is recorded as killed, not failed', async () => {
    for (const reason of ['quit', 'abort'] as const) {
      const controller = new AbortController();
      const pending = runTool({ id: 's', name: 'shell', args: { command: 'echo working; sleep 30' } }, { ...ctx(), shellTimeoutSeconds: 20, signal: controller.signal });
      setTimeout(() => controller.abort(reason), 200);
      const out = await pending;
      expect(out.status).toBe('killed');
      expect(out.killed).toBe(reason);
      expect(out.output).toContain(`[loopdeck: killed the command (the run was ${reason === 'quit' ? 'quit' : 'aborted'})]`);
    }
  });

  it('a tool killed at its time limit says so: timed_out, killed by timeout', async () => {
    const out = await runTool({ id: 's', name: 'shell', args: { command: 'sleep 30' } }, { ...ctx(), shellTimeoutSeconds: 0.3 });
    expect(out).toMatchObject({ status: 'timed_out', killed: 'timeout', exit_code: null });
  });

  it('a truncated result says truncated: true with the byte count', async () => {
    const out = await runTool({ id: 's', name: 'shell', args: { command: 'head -c 100000 /dev/zero | tr "\\0" x' } }, { ...ctx(), outputLimit: 1000 });
    expect(out).toMatchObject({ status: 'ok', truncated: true, output_bytes: 100000 });
  });
});
