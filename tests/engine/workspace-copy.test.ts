// `workspace.copy: temp` copies symlinks as they are, so nothing the run writes through
// the copy reaches the source folder. A real source folder and the real file tools.
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ToolError } from '../../src/engine/errors.js';
import { runTool } from '../../src/engine/tools.js';
import { prepareWorkspace } from '../../src/engine/workspace.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('relative symlinks stay relative in the copy; writing through them changes the copy, never the source', async () => {
  const source = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-source-'));
  dirs.push(source);
  writeFileSync(path.join(source, 'target.txt'), 'original\n');
  mkdirSync(path.join(source, 'lib'));
  writeFileSync(path.join(source, 'lib', 'util.js'), 'original\n');
  symlinkSync('target.txt', path.join(source, 'link.txt'));
  symlinkSync('lib', path.join(source, 'libs'));
  symlinkSync(path.join(source, 'target.txt'), path.join(source, 'absolute.txt'));

  const copy = await prepareWorkspace({ path: source, copy: 'temp' }, 'loop.yaml');
  dirs.push(copy);

  expect(readlinkSync(path.join(copy, 'link.txt'))).toBe('target.txt');
  expect(readlinkSync(path.join(copy, 'libs'))).toBe('lib');
  const ctx = { workspace: copy, shellTimeoutSeconds: 10, outputLimit: 4096 };
  await runTool({ id: 'w1', name: 'write_file', args: { path: 'link.txt', content: 'changed\n' } }, ctx);
  await runTool({ id: 'w2', name: 'edit', args: { path: 'libs/util.js', find: 'original', replace: 'changed' } }, ctx);
  expect(readFileSync(path.join(copy, 'target.txt'), 'utf8')).toBe('changed\n');
  expect(readFileSync(path.join(copy, 'lib', 'util.js'), 'utf8')).toBe('changed\n');

  // An absolute link keeps pointing into the source: the tools refuse it as outside the copy.
  expect(readlinkSync(path.join(copy, 'absolute.txt'))).toBe(path.join(source, 'target.txt'));
  await expect(runTool({ id: 'w3', name: 'write_file', args: { path: 'absolute.txt', content: 'changed\n' } }, ctx)).rejects.toThrow(
    new ToolError('write_file', 'path "absolute.txt" is outside the workspace'),
  );

  expect(readFileSync(path.join(source, 'target.txt'), 'utf8')).toBe('original\n');
  expect(readFileSync(path.join(source, 'lib', 'util.js'), 'utf8')).toBe('original\n');
});
