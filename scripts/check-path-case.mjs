#!/usr/bin/env node
// Fails when two tracked paths differ only in letter case: such a pair cannot be checked
// out on a case-insensitive file system (macOS, Windows), where the build then breaks.
import { execFileSync } from 'node:child_process';

const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter(Boolean);
const paths = new Set();
for (const file of files) {
  const parts = file.split('/');
  for (let i = 1; i <= parts.length; i++) paths.add(parts.slice(0, i).join('/'));
}
const seen = new Map();
const clashes = [];
for (const p of [...paths].sort()) {
  const key = p.toLowerCase();
  const other = seen.get(key);
  if (other !== undefined) clashes.push(`${other}  ~  ${p}`);
  else seen.set(key, p);
}
if (clashes.length > 0) {
  console.error(`paths that differ only in letter case (they break checkouts on macOS and Windows):\n${clashes.join('\n')}`);
  process.exit(1);
}
console.log(`path case: ${paths.size} paths, no two differ only in letter case`);
