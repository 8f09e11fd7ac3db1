// A stand-in for the checkout after `npm install`, for tests of what a newcomer types
// (`npx loopdeck …`): a folder with the package's manifest (name, bin and the dependency on
// itself, nothing else), its `dist` linked to the built CLI, and `npm install` run offline,
// which links the package's own bin into node_modules/.bin as it does in the checkout.
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** The package's manifest, as far as these tests read it. */
export const MANIFEST = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Environment for npm in such a folder: its own cache, no update check. */
export function npmEnv(dir: string): Record<string, string> {
  return { npm_config_cache: path.join(dir, '.npm-cache'), npm_config_update_notifier: 'false' };
}

/** Makes the stand-in checkout in a new temp folder and returns its path (the caller removes it). */
export async function installedCheckout(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-npx-'));
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: MANIFEST.name, version: MANIFEST.version, type: 'module', bin: MANIFEST.bin, devDependencies: { loopdeck: MANIFEST.devDependencies.loopdeck } }, null, 2),
  );
  symlinkSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'));
  await execa('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: dir, env: npmEnv(dir) });
  return dir;
}
