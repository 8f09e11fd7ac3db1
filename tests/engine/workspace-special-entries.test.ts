// What a `workspace.copy: temp` copy does with entries that are not data: named pipes and
// sockets are left out (and named beforehand by `surveyCopy`), a file or folder the copy
// cannot read stops it with an error naming the source path, and a copy that fails is
// removed. Real pipes, sockets and permissions in real folders; the unreadable cases run as
// `nobody` (root reads everything), in a child process, with a temp folder of their own.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { prepareWorkspace, surveyCopy } from '../../src/engine/workspace.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-special-'));
  dirs.push(dir);
  return dir;
}

const servers: net.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A listening Unix socket at `file`, closed when the test ends (Node removes its file on close). */
async function socketAt(file: string): Promise<void> {
  const server = net.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(file, resolve));
}

it('a copy leaves out named pipes and sockets, at any depth, and copies the rest', async () => {
  const source = tempDir();
  writeFileSync(path.join(source, 'a.txt'), 'a\n');
  mkdirSync(path.join(source, 'deep', 'er'), { recursive: true });
  execFileSync('mkfifo', [path.join(source, 'pipe'), path.join(source, 'deep', 'er', 'pipe2')]);
  await socketAt(path.join(source, 'deep', 'sock'));

  const survey = surveyCopy(source);
  expect(survey.unreadableCount).toBe(0);
  expect(survey.skippedCount).toBe(3);
  expect(survey.skipped.map((s) => [path.relative(source, s.path), s.kind]).sort()).toEqual([
    ['deep/er/pipe2', 'a named pipe'],
    ['deep/sock', 'a socket'],
    ['pipe', 'a named pipe'],
  ]);

  const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml', 'r1');
  dirs.push(copy);
  expect(existsSync(path.join(copy, 'a.txt'))).toBe(true);
  expect(existsSync(path.join(copy, 'pipe'))).toBe(false);
  expect(existsSync(path.join(copy, 'deep', 'sock'))).toBe(false);
  expect(existsSync(path.join(copy, 'deep', 'er', 'pipe2'))).toBe(false);
  expect(existsSync(path.join(copy, 'deep', 'er'))).toBe(true);
});

it('the survey leaves out .loopdeck folders, as the copy does', () => {
  const source = tempDir();
  mkdirSync(path.join(source, '.loopdeck'));
  execFileSync('mkfifo', [path.join(source, '.loopdeck', 'pipe')]);
  expect(surveyCopy(source).skippedCount).toBe(0);
});

/** Why the unreadable cases cannot run here, or `null` when they can: they need root, to act as `nobody`. */
function asNobodyUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'not root: cannot act as another user, and this user may read its own files anyway';
  if (spawnSync('id', ['nobody']).status !== 0) return 'no user nobody';
  if (spawnSync('setpriv', ['--version']).status !== 0) return 'no setpriv';
  const probe = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(path.resolve('dist/engine/workspace.js'))})`]);
  if (probe.status !== 0) return 'nobody cannot read the built engine (dist/): run npm run build in a folder others can read';
  return null;
}
const unavailable = asNobodyUnavailable();

describe.skipIf(unavailable !== null)(`as a user who cannot read everything${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  /** prepareWorkspace of `source` run as nobody with TMPDIR `tmp`: its error message, and what it returned. */
  function copyAsNobody(source: string, tmp: string): { error: string | null; copy: string | null } {
    const script = `import(${JSON.stringify(path.resolve('dist/engine/workspace.js'))}).then((m) => m.prepareWorkspace({ path: ${JSON.stringify(source)}, copy: 'temp' }, 'loop.yaml', 'r1')).then((copy) => console.log(JSON.stringify({ error: null, copy })), (error) => console.log(JSON.stringify({ error: error.constructor.name + ': ' + error.message, copy: null })))`;
    const run = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '-e', script], { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    return JSON.parse(run.stdout) as { error: string | null; copy: string | null };
  }

  function world(): { source: string; tmp: string } {
    const root = tempDir();
    chmodSync(root, 0o755);
    const source = path.join(root, 'proj');
    mkdirSync(source);
    writeFileSync(path.join(source, 'a.txt'), 'a\n');
    const tmp = path.join(root, 'tmp');
    mkdirSync(tmp);
    chmodSync(tmp, 0o777);
    return { source, tmp };
  }

  it('an unreadable file stops the copy with an error naming it in the source, and the partial copy is removed', () => {
    const { source, tmp } = world();
    writeFileSync(path.join(source, 'secret'), 'x\n');
    chmodSync(path.join(source, 'secret'), 0o000);
    const { error } = copyAsNobody(source, tmp);
    expect(error).toContain(`ConfigErrors: loop.yaml: workspace.path: expected every file and folder under ${source} to be readable`);
    expect(error).toContain(`${path.join(source, 'secret')} (EACCES)`);
    expect(error).not.toContain(tmp);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('an unreadable folder stops the copy the same way', () => {
    const { source, tmp } = world();
    mkdirSync(path.join(source, 'locked'));
    writeFileSync(path.join(source, 'locked', 'inside'), 'x\n');
    chmodSync(path.join(source, 'locked'), 0o000);
    const { error } = copyAsNobody(source, tmp);
    expect(error).toContain(`${path.join(source, 'locked')} (EACCES)`);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('what the survey finds unreadable is what stops the copy', () => {
    const { source, tmp } = world();
    writeFileSync(path.join(source, 'secret'), 'x\n');
    chmodSync(path.join(source, 'secret'), 0o000);
    const script = `import(${JSON.stringify(path.resolve('dist/engine/workspace.js'))}).then((m) => console.log(JSON.stringify(m.surveyCopy(${JSON.stringify(source)}))))`;
    const run = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '-e', script], { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8' });
    expect(JSON.parse(run.stdout)).toEqual({ skipped: [], skippedCount: 0, unreadable: [{ path: path.join(source, 'secret'), code: 'EACCES' }], unreadableCount: 1 });
  });
});
