/**
 * A command agent's program written as a relative path is found from loop.yaml's folder by
 * `validate` and by `run` alike, while the command runs in the workspace (a copy with
 * `copy: temp`): a program beside loop.yaml is accepted and runs; one inside the workspace,
 * named as if from the workspace, is refused by both. The real CLI (`npm run build`),
 * started from a third folder.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';
import { CLI } from '../support/cli-in-process.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-agent-program-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const config = path.join(root, 'config');
const elsewhere = path.join(root, 'elsewhere');
mkdirSync(path.join(config, 'proj'), { recursive: true });
mkdirSync(elsewhere);
const agent = '#!/bin/sh\ncat >/dev/null\necho "agent ran in $(pwd)"\n';
for (const file of [path.join(config, 'agent.sh'), path.join(config, 'proj', 'agent2.sh')]) {
  writeFileSync(file, agent);
  chmodSync(file, 0o755);
}
function loopYaml(command: string): string {
  const file = path.join(config, `${command.replace(/\W/g, '')}.yaml`);
  writeFileSync(file, `goal: { objective: x }\nagent: { kind: command, command: '${command}', output: text }\nworkspace: { path: proj, copy: temp }\nverify: [{ command: "true" }]\nbudget: { max_iterations: 2 }\n`);
  return file;
}
const loopdeck = (args: string[]) => execa(process.execPath, [CLI, ...args], { cwd: elsewhere, reject: false, stdin: 'ignore', env: { ...process.env, NO_COLOR: '1' } });

it('a program beside loop.yaml: validate accepts it, and run starts it in the workspace copy', async () => {
  const file = loopYaml('./agent.sh');
  expect((await loopdeck(['validate', '-c', file])).exitCode).toBe(0);
  const run = await loopdeck(['run', '--headless', '-c', file]);
  expect(run.stderr).not.toContain('not found');
  expect(run.exitCode).toBe(0);
  const workspace = /workspace (\/\S+)/.exec(run.stderr)?.[1];
  expect(workspace).toMatch(/loopdeck-proj-/);
  expect(run.stdout).toContain(`agent ran in ${workspace}`);
  rmSync(workspace!, { recursive: true, force: true });
});

it('a program inside the workspace named from the workspace: validate and run refuse it with the same error', async () => {
  const file = loopYaml('./agent2.sh');
  const error = `agent.command: expected an executable program or a shell built-in (the command runs through sh -c), found none for "./agent2.sh" (a relative program path resolves against ${config}, though the command runs in the workspace)`;
  for (const args of [['validate', '-c', file], ['run', '--headless', '-c', file]]) {
    const result = await loopdeck(args);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(error);
  }
  // Named from loop.yaml's folder, it runs.
  const named = loopYaml('proj/agent2.sh');
  expect((await loopdeck(['validate', '-c', named])).exitCode).toBe(0);
  const run = await loopdeck(['run', '--headless', '-c', named]);
  expect(run.exitCode).toBe(0);
  rmSync(/workspace (\/\S+)/.exec(run.stderr)![1]!, { recursive: true, force: true });
  expect(readFileSync(path.join(config, 'proj', 'agent2.sh'), 'utf8')).toBe(agent);
});
