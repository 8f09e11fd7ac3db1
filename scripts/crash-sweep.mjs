#!/usr/bin/env node
// Every crash point of a real run (docs/design.md, "Resume points"): the built CLI is
// SIGKILLed right after each line of its log in turn, and at random times while each tool
// runs, and while each model turn of an openai agent streams (scripts/crash-stream.mjs),
// then resumed to the end; prints the count of kills, of kills whose invariants held, and
// every violation and surviving process. Build first (`npm run crash-sweep`
// does). Usage: node scripts/crash-sweep.mjs [--random N] [--jobs N]
import { crashAndResume, uncrashedRun } from './crash-harness.mjs';
import { CHUNKS_PER_REPLY, crashDuringStream, modelServer, uncrashedStreamRun } from './crash-stream.mjs';

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

// Kills while an openai agent's model stream is in flight: every turn, after each chunk but the last.
const { server, state } = modelServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const model = { server, state, baseUrl: `http://127.0.0.1:${server.address().port}/v1` };
const streamKills = [];
try {
  const streamUncrashed = await uncrashedStreamRun(model);
  console.log(`uncrashed openai run: ${streamUncrashed.reason}, turns asked ${streamUncrashed.turns.join(' ')}`);
  // One at a time: the server's request log is shared.
  for (let turn = 0; turn < streamUncrashed.turns.length; turn++) {
    for (let chunks = 1; chunks < CHUNKS_PER_REPLY; chunks++) {
      const result = await crashDuringStream(model, { turn, chunks }, streamUncrashed);
      streamKills.push(result);
      console.log(`${result.violations.length === 0 ? 'ok  ' : 'FAIL'} kill during a stream (${result.cut})${result.violations.length ? `: ${result.violations.join('; ')}` : ''}`);
    }
  }
} finally {
  server.closeAllConnections();
  server.close();
}
const streamHeld = streamKills.filter((r) => r.violations.length === 0).length;
console.log(`kills during model streams: ${streamKills.length}; invariants held (survivors included): ${streamHeld}/${streamKills.length}`);
process.exitCode = held === results.length && clean === results.length && streamHeld === streamKills.length ? 0 : 1;
