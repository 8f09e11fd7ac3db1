// Module loader hooks of tests/support/record-modules.mjs (they run on the loader's own
// thread): each ES module loaded is appended to the file as `esm <url>` once it has loaded.
import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  appendFileSync(file, `esm ${url}\n`);
  return result;
}
