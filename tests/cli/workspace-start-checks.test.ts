/**
 * What `run` meets before its session starts (the workspace copy, its own folder under
 * `.loopdeck/runs/`) `validate` checks too, with the same error; a run that cannot start
 * leaves no workspace copy behind and never crashes. The real CLI (`npm run build`) in real
 * folders, with real named pipes and sockets; the permission cases run as `nobody` (root
 * reads and writes everything), each with a temp folder of its own to count copies in.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli-in-process.js';

const dirs: string[] = [];
const servers: net.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder with loop.yaml (a scripted agent that finishes at once, a copied workspace `proj`) and a temp folder of its own, all readable by others. */
function world(): { root: string; proj: string; tmp: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-start-'));
  dirs.push(root);
  chmodSync(root, 0o755);
  writeFileSync(path.join(root, 'ok-agent.yaml'), 'turns: [{final: ok}]\n');
  writeFileSync(
    path.join(root, 'loop.yaml'),
    'goal: { objective: x }\nagent: { kind: scripted, script: ok-agent.yaml }\nworkspace: { path: proj, copy: temp }\nverify: [{ command: "true" }]\n',
  );
  const proj = path.join(root, 'proj');
  mkdirSync(proj);
  writeFileSync(path.join(proj, 'a.txt'), 'a\n');
  const tmp = path.join(root, 'tmp');
  mkdirSync(tmp);
  chmodSync(tmp, 0o777);
  return { root, proj, tmp };
}

/** The CLI with `args`, in `cwd`, its copies made under `tmp`; as `nobody` when asked. */
async function loopdeck(args: string[], options: { cwd: string; tmp: string; nobody?: boolean }) {
  const env = { ...process.env, TMPDIR: options.tmp, HOME: options.tmp, NO_COLOR: '1' };
  const [file, argv] = options.nobody
    ? ['setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, CLI, ...args]]
    : [process.execPath, [CLI, ...args]];
  return execa(file, argv as string[], { cwd: options.cwd, env, reject: false, stdin: 'ignore' });
}

describe('named pipes and sockets in a copied workspace', () => {
  it('validate warns, naming each; run warns the same, copies the rest and meets its goal', async () => {
    const { root, proj, tmp } = world();
    execFileSync('mkfifo', [path.join(proj, 'pipe')]);
    mkdirSync(path.join(proj, 'run'));
    const server = net.createServer();
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(path.join(proj, 'run', 'sock'), resolve));
    const warning = `loop.yaml:3:20: workspace.path: the copy of ${proj} (workspace.copy: temp) leaves out 2 entries that are not a file, folder or link: `;

    const validate = await loopdeck(['validate', '-c', 'loop.yaml'], { cwd: root, tmp });
    expect(validate.exitCode).toBe(0);
    expect(validate.stderr).toContain(`loopdeck: warning: ${warning}`);
    expect(validate.stderr).toMatch(/pipe \(a named pipe\)/);
    expect(validate.stderr).toMatch(/run\/sock \(a socket\)/);

    const run = await loopdeck(['run', '--headless', '-c', 'loop.yaml'], { cwd: root, tmp });
    expect(run.stderr).not.toContain('crashed');
    expect(run.stderr).toContain(`loopdeck: ${warning}`);
    expect(run.exitCode).toBe(0);
    const [copy] = readdirSync(tmp);
    expect(copy).toMatch(/^loopdeck-proj-/);
    expect(readdirSync(path.join(tmp, copy!)).sort()).toEqual(['.git', 'a.txt', 'run']);
    expect(readdirSync(path.join(tmp, copy!, 'run'))).toEqual([]);
  });
});

/** Why the permission cases cannot run here, or `null` when they can. */
function asNobodyUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'not root: cannot act as another user';
  if (spawnSync('id', ['nobody']).status !== 0) return 'no user nobody';
  if (spawnSync('setpriv', ['--version']).status !== 0) return 'no setpriv';
  if (spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, CLI, '--version']).status !== 0) return 'nobody cannot run the built CLI (dist/ or node_modules not readable by others)';
  return null;
}
const unavailable = asNobodyUnavailable();

describe.skipIf(unavailable !== null)(`as a user who cannot read or write everything${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('an unreadable file and folder in the workspace: validate and run refuse with the same error naming both, no copy is left, nothing crashes', async () => {
    const { root, proj, tmp } = world();
    writeFileSync(path.join(proj, 'secret'), 'x\n');
    chmodSync(path.join(proj, 'secret'), 0o000);
    mkdirSync(path.join(proj, 'locked'));
    chmodSync(path.join(proj, 'locked'), 0o000);
    chmodSync(root, 0o777); // the run's own folder may be written
    const validate = await loopdeck(['validate', '-c', 'loop.yaml'], { cwd: root, tmp, nobody: true });
    const run = await loopdeck(['run', '--headless', '-c', 'loop.yaml'], { cwd: root, tmp, nobody: true });
    for (const result of [validate, run]) {
      expect(result.exitCode).toBe(1);
      expect(result.stderr).not.toContain('crashed');
      expect(result.stderr).toContain(`loopdeck: invalid config\nloop.yaml:3:20: workspace.path: expected every file and folder under ${proj} to be readable, to copy it (workspace.copy: temp), found 2 it cannot read: `);
      expect(result.stderr).toContain(`${path.join(proj, 'secret')} (EACCES)`);
      expect(result.stderr).toContain(`${path.join(proj, 'locked')} (EACCES)`);
    }
    expect(readdirSync(tmp)).toEqual([]);
    expect(existsSync(path.join(root, '.loopdeck'))).toBe(false);
  });

  it('a folder the user cannot write in: validate and run name it and say what to do, before any copy is made', async () => {
    const { root, tmp } = world();
    const readOnly = path.join(root, 'ro');
    mkdirSync(readOnly, { mode: 0o555 });
    chmodSync(readOnly, 0o555);
    const config = path.join(root, 'loop.yaml');
    const validate = await loopdeck(['validate', '-c', config], { cwd: readOnly, tmp, nobody: true });
    const run = await loopdeck(['run', '--headless', '-c', config], { cwd: readOnly, tmp, nobody: true });
    for (const result of [validate, run]) {
      expect(result.exitCode).toBe(1);
      expect(result.stderr).not.toContain('crashed');
      expect(result.stderr).toContain(
        `${readOnly}/.loopdeck/runs: expected a folder loopdeck can write runs in, found ${readOnly} is not writable by this user (EACCES); a run's log, policy and reports go under .loopdeck/runs of the folder loopdeck is started in; start it from a folder you can write to (name loop.yaml by its path with -c), or make ${readOnly} writable`,
      );
    }
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a temporary folder (TMPDIR) the user cannot write in: validate and run say so and what to do, nothing crashes', async () => {
    const { root, tmp } = world();
    chmodSync(root, 0o777);
    chmodSync(tmp, 0o755); // root's, read-only for nobody
    for (const args of [['validate', '-c', 'loop.yaml'], ['run', '--headless', '-c', 'loop.yaml']]) {
      const result = await loopdeck(args, { cwd: root, tmp, nobody: true });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).not.toContain('crashed');
      expect(result.stderr).toContain(`workspace.copy: expected a temporary folder to copy the workspace into, found ${tmp} is not writable by this user (EACCES); set TMPDIR to a folder you can write to, or set workspace.copy: none`);
    }
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a .loopdeck/runs folder the user cannot write in is named the same way', async () => {
    const { root, tmp } = world();
    chmodSync(root, 0o777);
    mkdirSync(path.join(root, '.loopdeck', 'runs'), { recursive: true });
    chmodSync(path.join(root, '.loopdeck'), 0o777);
    const run = await loopdeck(['run', '--headless', '-c', 'loop.yaml'], { cwd: root, tmp, nobody: true });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`found ${path.join(root, '.loopdeck', 'runs')} is not writable by this user (EACCES)`);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

it.each([
  ['missing', (tmp: string) => path.join(tmp, 'gone'), 'found no folder at'],
  ['a file', (tmp: string) => (writeFileSync(path.join(tmp, 'file'), 'x'), path.join(tmp, 'file')), 'is not a folder'],
])('a temporary folder (TMPDIR) that is %s: validate and run name it and say what to do, nothing crashes', async (_, make, found) => {
  const { root, tmp } = world();
  const temp = make(tmp);
  for (const args of [['validate', '-c', 'loop.yaml'], ['run', '--headless', '-c', 'loop.yaml']]) {
    const result = await loopdeck(args, { cwd: root, tmp: temp });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).not.toContain('crashed');
    expect(result.stderr).toContain('workspace.copy: expected a temporary folder to copy the workspace into, found ');
    expect(result.stderr).toContain(found);
    expect(result.stderr).toContain('set TMPDIR to a folder you can write to, or set workspace.copy: none');
  }
});

it('a file where .loopdeck should be: validate and run name it, and no copy is made', async () => {
  const { root, tmp } = world();
  writeFileSync(path.join(root, '.loopdeck'), 'not a folder\n');
  for (const args of [['validate', '-c', 'loop.yaml'], ['run', '--headless', '-c', 'loop.yaml']]) {
    const result = await loopdeck(args, { cwd: root, tmp });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).not.toContain('crashed');
    expect(result.stderr).toContain(`${root}/.loopdeck/runs: expected a folder loopdeck can write runs in, found ${root}/.loopdeck is not a folder;`);
  }
  expect(readdirSync(tmp)).toEqual([]);
});
