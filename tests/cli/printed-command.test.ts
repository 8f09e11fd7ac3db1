/**
 * A command loopdeck prints for the user to type next runs as printed, from the folder
 * the user is in, whichever way loopdeck was started: `npx loopdeck` in the checkout after
 * `npm install`, `node <checkout>/dist/cli.js`, the `node_modules/.bin/loopdeck` link by its
 * path, or a `loopdeck` on PATH (`npm link`). The printed command is run by a shell whose
 * PATH is the user's (npx's own `node_modules/.bin` is not on it). `init`'s "check the file
 * with" line is the sample; every such message is built by `selfCommand`. Needs the built CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { installedCheckout, npmEnv, ROOT } from '../support/npx-checkout.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const CLI = path.join(ROOT, 'dist', 'cli.js');
const userPath = path.dirname(process.execPath) + path.delimiter + '/usr/bin' + path.delimiter + '/bin';

/** Runs `init` in a new empty folder by `start`, then the command it printed, as printed, in that folder. */
async function initThenPrinted(start: { file: string; args: string[]; env?: Record<string, string> }): Promise<{ printed: string; exitCode: number | undefined; output: string; project: string }> {
  const project = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-printed-'));
  dirs.push(project);
  const init = await execa(start.file, [...start.args, 'init'], { cwd: project, env: { PATH: userPath, ...start.env }, extendEnv: false, reject: false });
  expect(init.exitCode, init.stderr).toBe(0);
  const printed = /check the file with: (.+)$/m.exec(init.stdout)?.[1];
  expect(printed, init.stdout).toBeDefined();
  const run = await execa('sh', ['-c', printed!], { cwd: project, env: { PATH: userPath }, extendEnv: false, reject: false });
  return { printed: printed!, exitCode: run.exitCode, output: `${run.stdout}\n${run.stderr}`, project };
}

describe('a printed command runs as printed', { timeout: 90_000 }, () => {
  it('started by node <checkout>/dist/cli.js: node and the path of cli.js', async () => {
    const { printed, exitCode, output, project } = await initThenPrinted({ file: process.execPath, args: [CLI] });
    const [, script] = /^node (\S+) validate loop\.yaml$/.exec(printed) ?? [];
    expect(path.resolve(project, script ?? ''), printed).toBe(CLI);
    expect(exitCode, output).toBe(0);
  });

  it('started by npx loopdeck inside the checkout: npx loopdeck, which the shell runs from the checkout', async () => {
    const checkout = await installedCheckout();
    dirs.push(checkout);
    const below = path.join(checkout, 'work');
    mkdirSync(below);
    const init = await execa('npx', ['--no-install', 'loopdeck', 'init'], { cwd: below, env: { PATH: userPath, ...npmEnv(checkout) }, extendEnv: false, reject: false });
    expect(init.exitCode, init.stderr).toBe(0);
    const printed = /check the file with: (.+)$/m.exec(init.stdout)?.[1];
    expect(printed).toBe('npx loopdeck validate loop.yaml');
    // Offline: npx must find the checkout's own link, never fetch a package of that name.
    const run = await execa('sh', ['-c', printed!], { cwd: below, env: { PATH: userPath, npm_config_offline: 'true', ...npmEnv(checkout) }, extendEnv: false, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
  });

  it('started by the path of a loopdeck link that is not on PATH: that path', async () => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bin-'));
    dirs.push(bin);
    symlinkSync(CLI, path.join(bin, 'loopdeck'));
    const { printed, exitCode, output, project } = await initThenPrinted({ file: path.join(bin, 'loopdeck'), args: [] });
    const [, link] = /^(\S+) validate loop\.yaml$/.exec(printed) ?? [];
    expect(path.resolve(project, link ?? ''), printed).toBe(path.join(bin, 'loopdeck'));
    expect(exitCode, output).toBe(0);
  });

  it('started by an npm script from a folder below its package (npm start in examples/…): paths from the folder the user is in', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-printed-'));
    dirs.push(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { loop: `node ${JSON.stringify(CLI)} init` } }));
    const below = path.join(project, 'examples', 'first');
    mkdirSync(below, { recursive: true });
    // npm runs the script in the package's folder; the user's shell stays in `below`.
    const init = await execa('npm', ['run', '--silent', 'loop'], { cwd: below, env: { PATH: userPath }, extendEnv: false, reject: false });
    expect(init.exitCode, init.stderr).toBe(0);
    const printed = /check the file with: (.+)$/m.exec(init.stdout)?.[1];
    expect(printed, init.stdout).toMatch(/ validate \.\.\/\.\.\/loop\.yaml$/);
    const run = await execa('sh', ['-c', printed!], { cwd: below, env: { PATH: userPath }, extendEnv: false, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
  });

  it('a headless run started by an npm script from a folder below its package: the log path it prints is one from that folder', async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-printed-'));
    dirs.push(project);
    mkdirSync(path.join(project, 'proj'));
    writeFileSync(path.join(project, 'proj', 'a.txt'), 'a\n');
    writeFileSync(path.join(project, 'agent.yaml'), 'turns:\n  - final: done\n');
    writeFileSync(path.join(project, 'loop.yaml'), 'goal: { objective: x }\nagent: { kind: scripted, script: agent.yaml }\nworkspace: { path: proj, copy: temp }\nverify: [{ command: "true" }]\n');
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { loop: `node ${JSON.stringify(CLI)} run --headless` } }));
    const below = path.join(project, 'examples', 'first');
    mkdirSync(below, { recursive: true });
    const run = await execa('npm', ['run', '--silent', 'loop'], { cwd: below, env: { PATH: userPath }, extendEnv: false, reject: false });
    const [, log, workspace] = /^loopdeck: log (.+); workspace (.+)$/m.exec(run.stderr) ?? [];
    if (workspace) dirs.push(workspace);
    expect(log, run.stderr).toMatch(/^\.\.\/\.\.\/\.loopdeck\/runs\/[^/]+\/events\.jsonl$/);
    const replay = await execa('node', [CLI, 'replay', log!, '--headless'], { cwd: below, reject: false });
    expect(replay.exitCode, replay.stderr).toBe(0);
  });

  it('started as loopdeck from PATH (npm link): loopdeck, which the same PATH finds', async () => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-bin-'));
    dirs.push(bin);
    symlinkSync(CLI, path.join(bin, 'loopdeck'));
    const project = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-printed-'));
    dirs.push(project);
    const PATH = bin + path.delimiter + userPath;
    const init = await execa('loopdeck', ['init'], { cwd: project, env: { PATH }, extendEnv: false, reject: false });
    expect(init.exitCode, init.stderr).toBe(0);
    const printed = /check the file with: (.+)$/m.exec(init.stdout)?.[1];
    expect(printed).toBe('loopdeck validate loop.yaml');
    const run = await execa('sh', ['-c', printed!], { cwd: project, env: { PATH }, extendEnv: false, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
  });
});

describe('where a run ended, as printed', { timeout: 90_000 }, () => {
  it.each(['in place', "it's \"q\" $HOME", 'tab\there'])('a workspace named %j: the log replays and the workspace is cd-able, each pasted as printed', async (name) => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-printed-'));
    dirs.push(project);
    const folder = path.join(project, name);
    mkdirSync(folder);
    writeFileSync(path.join(project, 'agent.yaml'), 'turns:\n  - final: done\n');
    writeFileSync(path.join(project, 'loop.yaml'), `goal: { objective: x }\nagent: { kind: scripted, script: agent.yaml }\nworkspace: { path: ${JSON.stringify(name)}, copy: none }\nverify: [{ command: "true" }]\n`);
    const run = await execa(process.execPath, [CLI, 'run', '--headless'], { cwd: project, env: { PATH: userPath }, extendEnv: false, reject: false, stdin: 'ignore' });
    const [, log, workspace] = /^loopdeck: log (.+); workspace (.+)$/m.exec(run.stderr) ?? [];
    expect(workspace, run.stderr).toBeDefined();
    // bash: a name with a tab is printed $'…', which POSIX sh may not read.
    const shell = await execa('bash', ['--norc', '-c', `node ${JSON.stringify(CLI)} replay ${log} --headless > /dev/null && cd ${workspace} && pwd`], { cwd: project, env: { PATH: userPath }, extendEnv: false, reject: false });
    expect(shell.stdout, shell.stderr).toBe(folder);
  });
});
