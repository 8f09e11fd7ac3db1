/**
 * `npx loopdeck` inside the checkout after `npm install`: the package depends on itself
 * (`"loopdeck": "file:."`), so npm links its own `bin` into `node_modules/.bin` and `npx`
 * finds it there, from the root and from any folder below it, without looking anywhere
 * else. Checked on a copy of the package's manifest installed offline (only the self link
 * is installed) whose `dist` is the built CLI. Needs the built CLI (`npm run build`).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { installedCheckout, MANIFEST as manifest, npmEnv, ROOT as root } from '../support/npx-checkout.js';

const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { link?: boolean }> };
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('npx loopdeck in the checkout', { timeout: 60_000 }, () => {
  it('the package links its own bin: package.json and the lock file both say so', () => {
    expect(manifest.bin).toEqual({ loopdeck: 'dist/cli.js' });
    expect(manifest.devDependencies.loopdeck).toBe('file:.');
    expect(lock.packages['node_modules/loopdeck']).toMatchObject({ link: true });
  });

  it('after npm install, npx loopdeck --help runs the checkout’s CLI from the root and from a folder inside it', async () => {
    const dir = await installedCheckout();
    dirs.push(dir);
    const env = npmEnv(dir);
    expect(existsSync(path.join(dir, 'node_modules/.bin/loopdeck'))).toBe(true);
    const below = path.join(dir, 'examples/first-loop');
    mkdirSync(below, { recursive: true });
    for (const cwd of [dir, below]) {
      const run = await execa('npx', ['--no-install', 'loopdeck', '--help'], { cwd, env, reject: false });
      expect(run.exitCode, `${cwd}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/^Usage: loopdeck \[options\] \[command\]/);
    }
  });
});
