import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** The repository's root, where this file is (vitest may be started from any folder: `--root`, a subfolder). */
const ROOT = path.dirname(fileURLToPath(import.meta.url));

/** Every test file, as a path from the repository's root (`tests/engine/fold.test.ts`). */
const ALL = (readdirSync(path.join(ROOT, 'tests'), { recursive: true }) as string[])
  .map((file) => `tests/${file.split('\\').join('/')}`)
  .filter((file) => /\.test\.tsx?$/.test(file))
  .sort();

/**
 * Folders whose test files share one module graph per worker (`isolate: false`): the
 * engine, text and watch tests import plain modules and restore what they change (an
 * environment variable, the current folder), so a fresh graph for each file only costs
 * time (about 100 s of module loading and warm-up over a CI run). The console's tests
 * (tests/ui: Ink and its patched writers are loaded once per graph), the CLI's and the
 * end-to-end ones keep a graph of their own per file.
 */
const SHARED_FOLDERS = ['tests/engine/', 'tests/text/', 'tests/watch/', 'tests/hooks/'];

/** Whether a test file replaces a module (`vi.mock`, `vi.doMock`): the replacement needs a graph of its own. */
const replacesModule = (file: string) => /\bvi\s*\.\s*(?:do)?[mM]ock\s*\(/.test(readFileSync(path.join(ROOT, file), 'utf8'));

const SHARED = ALL.filter((file) => SHARED_FOLDERS.some((folder) => file.startsWith(folder)) && !replacesModule(file));
const ISOLATED = ALL.filter((file) => !SHARED.includes(file));

export default defineConfig({
  root: ROOT,
  test: {
    // Deletes CI before any test file imports Ink, which otherwise draws no live frames (docs/stack.md).
    setupFiles: ['tests/support/no-ci.ts'],
    testTimeout: 60_000,
    // Both CPUs of the 2-CPU machines CI runs on (the default leaves one idle).
    maxWorkers: 2,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'shared', include: SHARED, exclude: configDefaults.exclude, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, exclude: configDefaults.exclude } },
    ],
  },
});
