// Preloaded into the CLI (`NODE_OPTIONS=--import <this file>`) by
// tests/e2e/first-frame-modules.test.ts: appends to the file named by
// LOOPDECK_MODULES_FILE every ES module the process loads (`esm <url>`, from a module
// loader hook), and at the first write that ends a synchronized update (Ink's first whole
// frame) a line `FIRST FRAME` followed by the CommonJS modules loaded so far
// (`cjs <path>`). Child processes inherit NODE_OPTIONS but not the variable, so they
// record nothing. Changes nothing the program under test does.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.LOOPDECK_MODULES_FILE;
if (file) {
  delete process.env.LOOPDECK_MODULES_FILE;
  register(new URL('./record-modules-hooks.mjs', import.meta.url), { data: { file } });
  const write = process.stdout.write;
  let framed = false;
  process.stdout.write = function (chunk, ...rest) {
    if (!framed && String(chunk).includes('\u001b[?2026l')) {
      framed = true;
      const cjs = Object.keys(createRequire(import.meta.url).cache).map((p) => `cjs ${p}\n`);
      appendFileSync(file, `FIRST FRAME\n${cjs.join('')}`);
    }
    return write.call(this, chunk, ...rest);
  };
}
