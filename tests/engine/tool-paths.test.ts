// The workspace is the boundary of every path the file tools are given: every bad path is
// one failed call (a ToolError naming the path and the reason), nothing outside the
// workspace is read or written, and git's own files are never written. A real temp
// workspace beside a real "outside" folder; real symlinks.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/engine/errors.js';
import { runTool, type ToolContext } from '../../src/engine/tools.js';

let root: string;
let workspace: string;
let outside: string;
let ctx: ToolContext;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-paths-'));
  workspace = path.join(root, 'ws');
  outside = path.join(root, 'outside');
  fs.mkdirSync(workspace);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
  fs.writeFileSync(path.join(workspace, 'file.txt'), 'inside\n');
  fs.mkdirSync(path.join(workspace, 'dir'));
  ctx = { workspace, shellTimeoutSeconds: 10, outputLimit: 16 * 1024 };
});
afterEach(() => {
  unprotect?.();
  unprotect = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

const ws = (...parts: string[]) => path.join(workspace, ...parts);
const link = (target: string, name: string) => fs.symlinkSync(target, ws(name));

/** Every entry under `dir`, recursively, symlinks not followed. */
function tree(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

async function failure(name: string, args: Record<string, unknown>): Promise<ToolError> {
  let thrown: unknown;
  try {
    await runTool({ id: 'c1', name, args }, ctx);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `${name} ${JSON.stringify(args)} should fail`).toBeInstanceOf(ToolError);
  return thrown as ToolError;
}

const argsFor = (tool: string, p: string): Record<string, unknown> =>
  tool === 'write_file' ? { path: p, content: 'pwned' } : tool === 'edit' ? { path: p, find: 'top', replace: 'pwned' } : { path: p };

const FILE_TOOLS = ['read_file', 'write_file', 'edit'] as const;

/** A bad path: how to set it up, the path, and what the message must say. */
interface BadPath {
  kind: string;
  setup?: () => void;
  path: string | (() => string);
  reason: RegExp;
  /** The tools this case applies to (default: all file tools). */
  tools?: readonly string[];
}

const BAD_PATHS: BadPath[] = [
  { kind: 'a NUL byte', path: 'file.txt\0.js', reason: /^path "file\.txt\\u0000\.js" contains a NUL byte$/ },
  { kind: 'a 5,000-character path', path: 'a/'.repeat(2500), reason: /^path "(a\/){60}… \(5000 characters\)" is too long \(5000 bytes; at most 4096\)$/ },
  { kind: 'a 5,000-character name', path: 'x'.repeat(5000), reason: /is too long \(5000 bytes; at most 4096\)$/ },
  { kind: 'a 300-byte name', path: `dir/${'n'.repeat(300)}`, reason: /has a name longer than 255 bytes/ },
  {
    // Under 4096 bytes as written, over it once joined to the workspace's own path.
    kind: 'a path the kernel finds too long (ENAMETOOLONG)',
    path: 'd/'.repeat(2040) + 'f',
    reason: /: the path or a name in it is too long \(ENAMETOOLONG\)$/,
  },
  { kind: 'a folder where a file is expected (EISDIR)', path: 'dir', reason: /^cannot (read|write) "dir": it is a folder, expected a file \(EISDIR\)$/ },
  {
    kind: 'a fifo where a file is expected (reading it would block)',
    setup: () => execFileSync('mkfifo', [ws('pipe')]),
    path: 'pipe',
    reason: /^cannot (read|write) "pipe": it is not a regular file \(a fifo, socket or device\)$/,
  },
  { kind: 'the workspace itself', path: '.', reason: /^cannot (read|write) "\.": it is a folder, expected a file \(EISDIR\)$/ },
  { kind: 'a file where a folder is expected (ENOTDIR)', path: 'file.txt/x', reason: /"file\.txt\/x": .*\((ENOTDIR|ENOENT|EEXIST)\)$/ },
  { kind: 'a symlink to itself (a loop)', setup: () => link('self', 'self'), path: 'self', reason: /^path "self" follows more than 40 symlinks \(a symlink loop\?\)$/ },
  {
    kind: 'a symlink loop of two, inside a path',
    setup: () => (link('b', 'a'), link('a', 'b')),
    path: 'a/x.txt',
    reason: /^path "a\/x\.txt" follows more than 40 symlinks/,
  },
  { kind: 'a .. escape', path: '../outside/secret.txt', reason: /^path "\.\.\/outside\/secret\.txt" is outside the workspace$/ },
  { kind: 'a .. escape after a folder', path: 'dir/../../outside/secret.txt', reason: /is outside the workspace$/ },
  { kind: 'the parent folder', path: '..', reason: /^path "\.\." is outside the workspace$/ },
  { kind: 'an absolute path outside', path: () => path.join(outside, 'secret.txt'), reason: /must be relative to the workspace$/ },
  { kind: 'an absolute path to /etc/passwd', path: '/etc/passwd', reason: /^path "\/etc\/passwd" must be relative to the workspace$/ },
  { kind: 'a symlink to a file outside', setup: () => link('../outside/secret.txt', 'rel'), path: 'rel', reason: /^path "rel" is outside the workspace$/ },
  { kind: 'an absolute symlink to a file outside', setup: () => link(path.join(outside, 'secret.txt'), 'abs'), path: 'abs', reason: /is outside the workspace$/ },
  {
    kind: 'a chain of symlinks that ends outside',
    setup: () => {
      fs.mkdirSync(ws('sub'));
      link('b', 'a');
      link('sub/c', 'b');
      fs.symlinkSync('../../outside/secret.txt', ws('sub', 'c'));
    },
    path: 'a',
    reason: /^path "a" is outside the workspace$/,
  },
  {
    kind: 'a folder symlink, then .. (resolved after the link, as the kernel does)',
    setup: () => {
      fs.mkdirSync(path.join(outside, 'deep'));
      link('../outside/deep', 'deep');
    },
    path: 'deep/../secret.txt',
    reason: /^path "deep\/\.\.\/secret\.txt" is outside the workspace$/,
  },
  { kind: 'a dangling symlink to outside', setup: () => link('../outside/new.txt', 'dangling'), path: 'dangling', reason: /^path "dangling" is outside the workspace$/ },
  {
    kind: 'a dangling absolute symlink to a new folder outside',
    setup: () => link(path.join(outside, 'newdir', 'new.txt'), 'dangling-abs'),
    path: 'dangling-abs',
    reason: /is outside the workspace$/,
  },
];

describe('every bad path is one failed call naming the path and the reason; nothing outside changes', () => {
  const cases = BAD_PATHS.flatMap((c) => (c.tools ?? FILE_TOOLS).map((tool) => [c.kind, tool, c] as const));
  it.each(cases)('%s: %s', async (_kind, tool, c) => {
    c.setup?.();
    const before = tree(outside);
    const wsBefore = tree(workspace);
    const p = typeof c.path === 'function' ? c.path() : c.path;
    const error = await failure(tool, argsFor(tool, p));
    expect(error.tool).toBe(tool);
    expect(error.message.startsWith(`${tool}: `)).toBe(true);
    expect(error.message.slice(tool.length + 2)).toMatch(c.reason);
    expect(tree(outside)).toEqual(before);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    expect(tree(workspace)).toEqual(wsBefore);
    expect(fs.readFileSync(ws('file.txt'), 'utf8')).toBe('inside\n');
  });

  it('list_files and git_diff take the same paths and fail the same way', async () => {
    link('self', 'self');
    expect((await failure('list_files', { path: 'a\0' })).message).toBe('list_files: path "a\\u0000" contains a NUL byte');
    expect((await failure('list_files', { path: 'self' })).message).toBe('list_files: path "self" follows more than 40 symlinks (a symlink loop?)');
    expect((await failure('list_files', { path: 'file.txt' })).message).toMatch(/^list_files: cannot list "file\.txt": a part of the path is a file, expected a folder \(ENOTDIR\)$/);
    expect((await failure('list_files', { path: '../outside' })).message).toBe('list_files: path "../outside" is outside the workspace');
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    expect((await failure('git_diff', { path: '../outside/secret.txt' })).message).toBe('git_diff: path "../outside/secret.txt" is outside the workspace');
  });
});

// Permission denied needs a file the test process cannot write: a read-only file for an
// ordinary user; for root (who ignores modes) an immutable one, where chattr works.
let unprotect: (() => void) | undefined;
function protect(file: string): boolean {
  if (process.getuid?.() !== 0) {
    fs.chmodSync(file, 0o444);
    unprotect = () => fs.chmodSync(file, 0o644);
    return true;
  }
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    unprotect = () => execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('permission denied', () => {
  it.for(['write_file', 'edit'])('%s on a file it may not write fails that call, naming the path', async (tool, { skip }) => {
    fs.writeFileSync(ws('locked.txt'), 'top\n');
    if (!protect(ws('locked.txt'))) skip('no way to make a file unwritable for this user here (chattr failed)');
    const error = await failure(tool, argsFor(tool, 'locked.txt'));
    expect(error.message).toMatch(new RegExp(`^${tool}: cannot write "locked\\.txt": permission denied \\((EACCES|EPERM)\\)$`));
    expect(fs.readFileSync(ws('locked.txt'), 'utf8')).toBe('top\n');
  });
});

describe('symlinks that stay inside still work', () => {
  it('a dangling symlink to a new file inside creates that file', async () => {
    link('made/by/link.txt', 'pointer');
    const result = await runTool({ id: 'c', name: 'write_file', args: { path: 'pointer', content: 'via link' } }, ctx);
    expect(result.status).toBe('ok');
    expect(fs.readFileSync(ws('made', 'by', 'link.txt'), 'utf8')).toBe('via link');
    expect(fs.readlinkSync(ws('pointer'))).toBe('made/by/link.txt');
  });

  it('a chain of relative and absolute links inside reads the file', async () => {
    link('dir', 'd1');
    link(ws('d1'), 'd2');
    fs.writeFileSync(ws('dir', 'x.txt'), 'x');
    const result = await runTool({ id: 'c', name: 'read_file', args: { path: 'd2/./x.txt' } }, ctx);
    expect(result.output).toBe('x');
  });

  it('a file hard-linked to one outside is replaced, never written through; its mode is kept', async () => {
    fs.linkSync(path.join(outside, 'secret.txt'), ws('hard.txt'));
    fs.chmodSync(ws('hard.txt'), 0o640);
    await runTool({ id: 'c', name: 'edit', args: { path: 'hard.txt', find: 'top', replace: 'no' } }, ctx);
    expect(fs.readFileSync(ws('hard.txt'), 'utf8')).toBe('no secret\n');
    expect(fs.statSync(ws('hard.txt')).mode & 0o777).toBe(0o640);
    await runTool({ id: 'c', name: 'write_file', args: { path: 'hard.txt', content: 'mine' } }, ctx);
    expect(fs.readFileSync(ws('hard.txt'), 'utf8')).toBe('mine');
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    expect(tree(workspace)).toEqual(['dir', 'file.txt', 'hard.txt']);
  });

  it('a long multibyte name within the 255-byte limit is written and rewritten', async () => {
    const name = 'é'.repeat(127); // 254 bytes
    await runTool({ id: 'c', name: 'write_file', args: { path: name, content: 'one' } }, ctx);
    await runTool({ id: 'c', name: 'edit', args: { path: name, find: 'one', replace: 'two' } }, ctx);
    expect(fs.readFileSync(ws(name), 'utf8')).toBe('two');
    expect(tree(workspace)).toEqual(['dir', 'file.txt', name].sort());
  });

  it('a name that only starts with two dots is inside', async () => {
    const result = await runTool({ id: 'c', name: 'write_file', args: { path: '..notes', content: 'n' } }, ctx);
    expect(result.status).toBe('ok');
    expect(fs.readFileSync(ws('..notes'), 'utf8')).toBe('n');
  });
});

describe("git's own files are never written", () => {
  beforeEach(() => {
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    fs.mkdirSync(ws('nested', '.git'), { recursive: true });
    fs.writeFileSync(ws('nested', '.git', 'config'), '[core]\n');
    fs.mkdirSync(ws('sub'));
    fs.writeFileSync(ws('sub', '.git'), 'gitdir: ../.git\n');
    link('.git', 'gitlink');
  });

  const config = () => fs.readFileSync(ws('.git', 'config'), 'utf8');

  it.each([
    ['write_file', '.git/config'],
    ['write_file', './.git/config'],
    ['write_file', 'a/../.git/config'],
    ['write_file', 'dir/../.git/hooks/pre-commit'],
    ['write_file', '.git/info/attributes'],
    ['write_file', '.git'],
    ['write_file', '.GIT/config'],
    ['write_file', '.Git./config'],
    ['write_file', 'gitlink/config'],
    ['write_file', 'sub/.git'],
    ['write_file', 'newdir/.git/config'],
    ['write_file', 'nested/.git/config'],
    ['edit', '.git/config'],
    ['edit', 'gitlink/config'],
    ['edit', 'nested/.git/config'],
  ])('%s %s is refused', async (tool, p) => {
    const before = config();
    const wsBefore = tree(workspace);
    const args = tool === 'write_file' ? { path: p, content: '[core]\n\tfsmonitor = "touch PWNED; false"\n' } : { path: p, find: '[core]', replace: '[core]\n\tfsmonitor = "touch PWNED; false"' };
    const error = await failure(tool, args);
    expect(error.message).toMatch(new RegExp(`^${tool}: will not write ${JSON.stringify(p).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is inside git's own files \\(".git.?"\\)`, 'i'));
    expect(config()).toBe(before);
    expect(tree(workspace)).toEqual(wsBefore);
  });

  it.each([
    [
      'a .git file (git init --separate-git-dir)',
      () => {
        fs.rmSync(ws('.git'), { recursive: true });
        execFileSync('git', ['init', '-q', '--separate-git-dir', ws('store')], { cwd: workspace });
        expect(fs.readFileSync(ws('.git'), 'utf8')).toMatch(/^gitdir: /);
      },
    ],
    [
      'a .git symlink',
      () => {
        fs.renameSync(ws('.git'), ws('store'));
        link('store', '.git');
      },
    ],
  ])('the folder that %s points to is refused too', async (_kind, setup) => {
    setup();
    execFileSync('git', ['status'], { cwd: workspace }); // git uses it as the repository
    const before = fs.readFileSync(ws('store', 'config'), 'utf8');
    const error = await failure('write_file', { path: 'store/config', content: '[core]\n\tfsmonitor = "touch PWNED; false"\n' });
    expect(error.message).toBe('write_file: will not write "store/config": it is inside the repository folder that .git points to ("store"): the file tools never write there, since git runs what its config names');
    expect(fs.readFileSync(ws('store', 'config'), 'utf8')).toBe(before);
  });

  it('reading git files is still allowed', async () => {
    const result = await runTool({ id: 'c', name: 'read_file', args: { path: '.git/HEAD' } }, ctx);
    expect(result.output).toMatch(/^ref: refs\/heads\//);
  });

  it('a git configuration file reached through a symlink of another name is refused', async () => {
    fs.writeFileSync(ws('.gitattributes'), '');
    link('.gitattributes', 'attrs.txt');
    link('sub', 'subdir');
    const error = await failure('write_file', { path: 'attrs.txt', content: '* filter=x\n' });
    expect(error.message).toBe('write_file: will not write "attrs.txt": it is a symlink to git\'s .gitattributes; write .gitattributes by its own name, which the operator is asked about');
    expect(fs.readFileSync(ws('.gitattributes'), 'utf8')).toBe('');
    // Through a folder link the name stays visible, and the write is the gate's to judge.
    const ok = await runTool({ id: 'c', name: 'write_file', args: { path: 'subdir/.gitmodules', content: '' } }, ctx);
    expect(ok.status).toBe('ok');
  });
});
