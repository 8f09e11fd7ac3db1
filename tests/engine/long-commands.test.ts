// A long shell command from the agent is decided in a fraction of a second, whatever its
// shape: a real Session with the approval gate and the destructive-command guard, a scripted
// agent whose one turn is a ~128 KiB command, answered through the yield protocol as the
// console answers it (the prompt's "always allow" choices are worked out too). Before, such a
// command froze the engine for 10-30 s (the gate read the parser's tree through slow
// wrappers, and some readings grew with the square of the length) or made a hook throw.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { alwaysAllowChoices } from '../../src/engine/approval/always-allow.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import { MAX_COMMAND_BYTES } from '../../src/engine/tools.js';
import { approvalGate } from '../../src/hooks/approval-gate.js';
import { destructiveDeny } from '../../src/hooks/destructive-deny.js';

/**
 * Generous: the decision takes well under a second of CPU time. Measured as this process's
 * CPU time, which other work on a shared machine does not stretch as it stretches wall time.
 */
const BOUND_MS = 3000;

/** CPU time of this process so far, in milliseconds. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
const TARGET = 128 * 1024 - 256;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `head` and the units made by `unit(i)` joined by `joiner`, as long as it stays under {@link TARGET}. */
function fill(unit: (i: number) => string, joiner: string, head = ''): string {
  const units: string[] = [];
  let length = head.length;
  for (let i = 0; ; i++) {
    const next = unit(i);
    if (length + next.length + joiner.length > TARGET) break;
    units.push(next);
    length += next.length + joiner.length;
  }
  return head + units.join(joiner);
}

const nestingDepth = Math.floor((TARGET - 10) / 8);

/** Each shape, and what the engine answers: asked about (with the reason) or denied (with the reason). */
const SHAPES: Array<{ name: string; command: string; outcome: 'ask' | 'deny'; reason: string }> = [
  { name: 'many words', command: fill((i) => `word${i}`, ' ', 'echo '), outcome: 'ask', reason: 'no allow rule matches' },
  { name: 'one huge word', command: `echo ${'a'.repeat(TARGET - 5)}`, outcome: 'ask', reason: 'no allow rule matches' },
  { name: 'many ;-joined commands', command: fill((i) => `echo w${i}`, '; '), outcome: 'ask', reason: 'compound command (;)' },
  { name: 'many &&-joined commands', command: fill((i) => `echo w${i}`, ' && '), outcome: 'ask', reason: 'compound command (&&)' },
  {
    name: 'deep $( $( ... ) ) nesting',
    command: `echo ${'$(echo '.repeat(nestingDepth)}x${')'.repeat(nestingDepth)}`,
    outcome: 'ask',
    reason: 'parse error: nested too deeply to read',
  },
  { name: 'many quotes', command: fill((i) => (i % 2 ? `'q${i}'` : `"d${i}"`), ' ', 'echo '), outcome: 'ask', reason: 'no allow rule matches' },
  { name: 'a long heredoc', command: `cat <<EOF\n${fill((i) => `line ${i} $x`, '\n')}\nEOF`, outcome: 'ask', reason: 'redirection (<<)' },
  { name: 'a long pipeline', command: fill(() => 'cat', ' | '), outcome: 'ask', reason: 'pipeline (|)' },
  { name: 'backticks and expansions', command: fill((i) => (i % 2 ? `\`echo ${i}\`` : `\${v${i}:-x}`), ' ', 'echo '), outcome: 'ask', reason: 'parameter expansion (${v0:-x})' },
  { name: 'many words after a wrapper', command: fill((i) => `w${i}`, ' ', 'sudo '), outcome: 'ask', reason: 'no allow rule matches' },
  {
    name: 'a program name of digits',
    command: `${'1'.repeat(TARGET - 1)}x`,
    outcome: 'ask',
    reason: 'no allow rule matches',
  },
  {
    name: 'many nested sh -c scripts',
    command: fill((i) => `sh -c 'sh -c "sh -c \\"echo ${i}\\""'`, '; '),
    outcome: 'deny',
    reason: 'cannot tell whether the command is destructive: the scripts inside the command are too long to read',
  },
  {
    name: 'eval after eval after a wrapper',
    command: fill(() => 'eval', ' ', 'sudo '),
    outcome: 'deny',
    reason: 'cannot tell whether the command is destructive: the scripts inside the command are too long to read',
  },
  {
    name: 'rm after rm after a wrapper',
    command: fill(() => 'rm', ' ', 'sudo '),
    outcome: 'deny',
    reason: 'cannot tell whether the command is destructive: it is too long to read in full',
  },
];

function setup(command: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-long-'));
  dirs.push(dir);
  const turns = [{ tool_calls: [{ id: 't1', name: 'shell', args: { command } }] }, { final: 'Done.' }];
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'x' },
      pattern: 'react',
      agent: { kind: 'scripted', script: 'x.yaml' },
      approval: { default: 'ask' },
      workspace: { path: '.', copy: 'none' },
      verify: [{ command: 'true' }],
      hooks: [],
      checkpoint: { every_iterations: 50 },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const registry = new HookRegistry();
  approvalGate(registry, policy);
  destructiveDeny(registry, dir);
  const events: Array<{ event: LoopEvent; ms: number }> = [];
  let now = 1_700_000_000_000;
  const session = new Session({
    id: 's1',
    agent: ScriptedAgent.fromYaml(stringify({ turns })),
    policy,
    workspace: dir,
    clock: () => (now += 1000),
    hooks: registry,
    sinks: [(event) => void events.push({ event, ms: cpuMs() })],
  });
  return { session, events };
}

describe('a ~128 KiB shell command is decided within a fraction of a second, whatever its shape', () => {
  it('the shapes are as long as the shell tool takes', () => {
    for (const shape of SHAPES) {
      expect(Buffer.byteLength(shape.command), shape.name).toBeGreaterThan(TARGET - 64);
      expect(Buffer.byteLength(shape.command), shape.name).toBeLessThanOrEqual(MAX_COMMAND_BYTES);
    }
  });

  for (const shape of SHAPES) {
    it(shape.name, { timeout: 120_000 }, async () => {
      const { session, events } = setup(shape.command);
      const run = session.run(newGoal('x', ['done']));
      const first = await run.next();
      const at = (type: string) => events.find(({ event }) => event.type === type);
      const asked = at('model.call')!.ms;

      if (shape.outcome === 'ask') {
        expect(first.done).toBe(false);
        const pending = first.value as { kind: string; call: { id: string }; reason?: string };
        expect(pending.kind).toBe('tool');
        expect(pending.reason).toContain(shape.reason);
        // What the console's prompt shows, and what a headless answer checks, then the answer.
        alwaysAllowChoices(pending.call as never);
        const end = await run.next({ decision: 'deny' });
        expect(end.done).toBe(true);
        const decided = at('tool.decision')!;
        expect(decided.event.data).toEqual({ call_id: 't1', decision: 'deny', by: 'operator' });
        expect(decided.ms - asked).toBeLessThan(BOUND_MS);
      } else {
        expect(first.done).toBe(true);
        const refused = at('tool.error')!;
        expect(JSON.stringify(refused.event.data)).toContain(shape.reason);
        expect(refused.ms - asked).toBeLessThan(BOUND_MS);
      }
    });
  }
});
