// Redaction is for what is written and printed, never for what runs: a tool call whose
// arguments look like they hold secrets runs as the agent sent it, while the log, the
// state folded from it and the approval prompt's record carry it redacted.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SOURCE = [
  'const token = getToken(req);',
  'const password = readPassword(user);',
  "const url = 'https://user:placeholder@example.com';",
  "const key = 'sk-aaaaaaaaaaaaaaaaaaaaaaaa';",
  '',
].join('\n');

it.each([
  ['write_file', { path: 'auth.js', content: SOURCE }, SOURCE],
  ['shell', { command: "printf '%s' 'sk-bbbbbbbbbbbbbbbbbbbbbbbb token=abcdefgh12345' > out.txt" }, 'sk-bbbbbbbbbbbbbbbbbbbbbbbb token=abcdefgh12345'],
] as const)('%s runs with the arguments the agent sent; only the log is redacted', async (name, args, expected) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-rawargs-'));
  dirs.push(dir);
  const agent = ScriptedAgent.fromYaml(stringify({ turns: [{ tool_calls: [{ id: 'c1', name, args }] }, { final: 'done' }] }));
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'write the file' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      checkpoint: { every_iterations: 50 },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({ id: 's1', agent, policy, workspace: dir, runDir: path.join(dir, '.run'), clock: () => (now += 1000), sinks: [(e) => events.push(e)] });

  const outcome = await drive(session.run(newGoal('write the file')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));

  expect(outcome.reason).toBe('goal_met');
  const file = name === 'write_file' ? 'auth.js' : 'out.txt';
  expect(readFileSync(path.join(dir, file), 'utf8')).toBe(expected);
  const logged = JSON.stringify(events.filter((e) => e.type === 'tool.call' || e.type === 'model.call'));
  expect(logged).toContain('[REDACTED]');
  expect(logged).not.toContain('sk-aaaaaaaaaaaaaaaaaaaaaaaa');
  expect(logged).not.toContain('sk-bbbbbbbbbbbbbbbbbbbbbbbb');
});
