// What the console loads before its first whole frame, in a real terminal: React, Ink and
// the console's own modules, not the run's setup. execa, zod, yaml, the XML parser, the
// OpenAI client, the shell parser and the engine's session, policy and launch modules
// load after the first frame (while the console shows "preparing…"), or never for a
// replay; each of them costs start-up time a user waits through (bench/console.ts cold).
// Recorded by a preloaded module loader hook (tests/support/record-modules.mjs); needs
// `npm run build`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/git-workspace.js';
import { startPty, type PtyTerminal } from '../support/pty-terminal.js';

const root = path.resolve(import.meta.dirname, '../..');
const PRELOAD = path.join(root, 'tests/support/record-modules.mjs');
/** Packages the first frame does not need: the run's setup and tools use them. */
const LATER_PACKAGES = ['execa', 'zod', 'yaml', 'fast-xml-parser', 'openai', 'mvdan-sh', 'picomatch'];
/** The engine's modules of a run (loop.yaml, the session, preparing the workspace). */
const LATER_MODULES = ['dist/engine/session.js', 'dist/engine/policy.js', 'dist/launch.js'];

const terminals: PtyTerminal[] = [];
afterEach(async () => {
  for (const t of terminals.splice(0)) await t.close();
});


/** The demo's loop.yaml with absolute paths. */
function config(dir: string): string {
  const text = readFileSync(path.join(root, 'loop.yaml'), 'utf8')
    .replace('script: fixtures/scripts/payload-bug.yaml', `script: ${JSON.stringify(path.join(root, 'fixtures/scripts/payload-bug.yaml'))}`)
    .replace('path: fixtures/workspaces/payload-bug', `path: ${JSON.stringify(path.join(root, 'fixtures/workspaces/payload-bug'))}`);
  const file = path.join(dir, 'loop.yaml');
  writeFileSync(file, text);
  return file;
}

/** The CLI in a terminal, recording the modules it loads into a file. */
function start(args: string[], dir: string): { t: PtyTerminal; record: string } {
  const record = path.join(dir, 'modules.txt');
  const t = startPty({ args, cwd: dir, cols: 100, rows: 30, env: { NODE_OPTIONS: `--import ${PRELOAD}`, LOOPDECK_MODULES_FILE: record } });
  terminals.push(t);
  return { t, record };
}

/** The modules loaded before and after the first whole frame (URLs of ES modules, paths of CommonJS ones). */
function recorded(file: string): { before: string[]; after: string[] } {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const frame = lines.indexOf('FIRST FRAME');
  expect(frame, 'the first frame was recorded').toBeGreaterThan(0);
  const strip = (line: string) => line.replace(/^(esm|cjs) /, '');
  return { before: lines.slice(0, frame).map(strip), after: lines.slice(frame + 1).map(strip) };
}

const ofPackage = (modules: string[], name: string) => modules.filter((m) => m.includes(`/node_modules/${name}/`));
const ofModule = (modules: string[], file: string) => modules.filter((m) => m.endsWith(path.join(root, file)));

describe('the modules loaded before the console\'s first frame', { timeout: 120_000 }, () => {
  it('run: React, Ink and the console first; execa, zod, yaml and the engine once the frame is on screen', async () => {
    const dir = tempDir('loopdeck-modules-');
    const { t, record } = start(['run', '--config', config(dir)], dir);
    await t.waitFor('Timeline', 60_000);
    // The run has started (its session.start is folded: the pattern shows).
    await t.waitFor(/react · /, 60_000);
    const { before, after } = recorded(record);

    expect(ofPackage(before, 'ink').length).toBeGreaterThan(0);
    expect(ofModule(before, 'dist/ui/App.js')).toHaveLength(1);
    for (const name of LATER_PACKAGES) expect(ofPackage(before, name), `${name} before the first frame`).toEqual([]);
    for (const file of LATER_MODULES) expect(ofModule(before, file), `${file} before the first frame`).toEqual([]);
    // The run prepared after the first frame loads them: the record saw them.
    for (const name of ['execa', 'zod', 'yaml']) expect(ofPackage(after, name).length, `${name} after the first frame`).toBeGreaterThan(0);
    for (const file of LATER_MODULES) expect(ofModule(after, file), `${file} after the first frame`).toHaveLength(1);
  });

  it('replay: nothing of a run\'s setup before the first frame', async () => {
    const dir = tempDir('loopdeck-modules-');
    const { t, record } = start(['replay', path.join(root, 'tests/fixtures/logs/budget-pause.jsonl')], dir);
    await t.waitFor('Timeline', 60_000);
    const { before } = recorded(record);
    expect(ofModule(before, 'dist/ui/App.js')).toHaveLength(1);
    for (const name of LATER_PACKAGES) expect(ofPackage(before, name), `${name} before the first frame`).toEqual([]);
    for (const file of LATER_MODULES) expect(ofModule(before, file), `${file} before the first frame`).toEqual([]);
  });
});
