#!/usr/bin/env node
// Every crash point of a real run (docs/design.md, "Resume points"): the built CLI is
// SIGKILLed right after each line of its log in turn, and at random times while each tool
// runs, then resumed to the end; prints the count of kills, of kills whose invariants
// held, and every violation and surviving process. Build first (`npm run crash-sweep`
// does). Usage: node scripts/crash-sweep.mjs [--random N] [--jobs N]
import { crashAndResume, uncrashedRun } from './crash-harness.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const randomKills = option('--random', 3);
const jobs = option('--jobs', 2);

const uncrashed = await uncrashedRun();
console.log(`uncrashed run: ${uncrashed.reason}, ${uncrashed.count} events`);
const kills = Array.from({ length: uncrashed.count - 1 }, (_, i) => ({ after: i + 1 }));
for (const tool of ['a1', 'a2', 'a3']) {
  for (let i = 0; i < randomKills; i++) kills.push({ tool, delayMs: Math.floor(Math.random() * 300) });
}

const results = new Array(kills.length);
let next = 0;
await Promise.all(
  Array.from({ length: jobs }, async () => {
    while (next < kills.length) {
      const index = next++;
      const kill = kills[index];
      const result = await crashAndResume(kill, uncrashed);
      results[index] = result;
      const what = kill.after ? `after line ${kill.after}` : `${kill.delayMs} ms into ${kill.tool}`;
      const bad = [...result.violations, ...result.survivors.map((s) => `survivor: ${s}`)];
      console.log(`${bad.length === 0 ? 'ok  ' : 'FAIL'} kill ${what} (${result.cut})${bad.length ? `: ${bad.join('; ')}` : ''}`);
    }
  }),
);
const held = results.filter((r) => r.violations.length === 0).length;
const clean = results.filter((r) => r.survivors.length === 0).length;
console.log(`kills: ${results.length} (${kills.filter((k) => k.after).length} at line boundaries, ${kills.filter((k) => k.tool).length} during tools)`);
console.log(`invariants held: ${held}/${results.length}; no surviving process: ${clean}/${results.length}`);
process.exitCode = held === results.length && clean === results.length ? 0 : 1;
