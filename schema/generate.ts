/**
 * `npm run docs`: writes schema/loop.schema.json and docs/loop-yaml.md from the zod schema
 * of loop.yaml, docs/reference.md (tools, transcripts, checkpoint files) from theirs, and the README's CLI and loop.yaml references (from the commander
 * definitions and the same schema). With `--check`, writes nothing and exits 1 when any
 * of them is out of date.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../src/program.js';
import { GENERATED, renderCliReference, renderJsonSchema, renderLoopYamlDocs, replaceBetween } from './render.js';
import { renderReferenceDocs } from './reference.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const docs = renderLoopYamlDocs();
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const withCli = replaceBetween(readme, 'cli-reference', renderCliReference(buildProgram()));
const withYaml = replaceBetween(withCli, 'loop-yaml-reference', docs.replace(/^# .*\n/, '').replace(/^## /gm, '### '));
const outputs: Array<[string, string]> = [
  [GENERATED.jsonSchema, renderJsonSchema()],
  [GENERATED.docs, docs],
  [GENERATED.reference, renderReferenceDocs()],
  ['README.md', withYaml],
];

let stale = 0;
for (const [relative, content] of outputs) {
  const file = path.join(root, relative);
  let current: string | null = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  if (current === content) continue;
  if (check) {
    process.stderr.write(`${relative} is out of date: run npm run docs\n`);
    stale += 1;
  } else {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    process.stdout.write(`wrote ${relative}\n`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
