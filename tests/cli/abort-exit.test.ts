/**
 * A run that ends aborted prints, where it ends, how to get the workspace's changes back:
 * the abort's restore command (`cd … && git stash apply <sha>`), not only in the console's
 * progress panel. Needs the built CLI (`npm run build`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';

const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

it('a budget abort: the exit message ends with the command that restores the stashed changes', { timeout: 60_000 }, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-abort-'));
  dirs.push(cwd);
  mkdirSync(path.join(cwd, 'project'));
  writeFileSync(path.join(cwd, 'project/a.txt'), 'one\n');
  writeFileSync(path.join(cwd, 'script.yaml'), 'turns:\n  - tool_calls: [{ id: c1, name: write_file, args: { path: a.txt, content: "two\\n" } }]\n  - final: done\n');
  writeFileSync(
    path.join(cwd, 'loop.yaml'),
    `goal: { objective: change a.txt }
agent: { kind: scripted, script: script.yaml }
workspace: { path: project, copy: temp }
budget: { max_iterations: 1, on_exhausted: abort }
observe: [{ name: tests, command: "printf '# pass 1\\\\n'", parser: tap }]
progress: { observed: [{ signal: observed.tests.passing, direction: increase }] }
verify: [{ command: "false" }]
approval: { default: ask, allow: [write_file] }
`,
  );
  const run = await execa('node', [cli, 'run', '--headless'], { cwd, reject: false, stdin: 'ignore' });
  const first = JSON.parse(run.stdout.split('\n')[0]!) as { data: { workspace: string } };
  dirs.push(first.data.workspace);
  expect(run.stdout).toContain('"type":"abort.recorded"');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines.at(-1), run.stderr).toMatch(/^The workspace changes were stashed, not deleted\. To restore them: cd \S+ && git stash apply [0-9a-f]{40}$/);
  // The command does what it says.
  const command = lines.at(-1)!.replace(/^.*To restore them: /, '');
  await execa('sh', ['-c', command], { env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
  expect(readFileSync(path.join(first.data.workspace, 'a.txt'), 'utf8')).toBe('two\n');
});
