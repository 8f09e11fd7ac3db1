import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentContext } from '../../src/engine/agents/agent.js';
import { CommandAgent, renderCommandPrompt, type CommandAgentOptions } from '../../src/engine/agents/command.js';
import { AgentError } from '../../src/engine/errors.js';
import { newGoal } from '../../src/engine/goal.js';
import type { Goal } from '../../src/engine/types.js';

/** Stands in for an external agent: reads the prompt from stdin, edits the workspace, streams lines. */
const STDIN_AGENT = `
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const prompt = readFileSync(0, 'utf8');
writeFileSync('prompt.txt', prompt);
writeFileSync('env.json', JSON.stringify(process.env));
writeFileSync('payload.js', 'export const fixed = true;\\n');
process.stdout.write('reading the goal\\n');
// Go on only once the test has seen the first line: output must stream, not arrive at exit.
const deadline = Date.now() + 5000;
while (!existsSync('go')) {
  if (Date.now() > deadline) process.exit(3);
  await new Promise((resolve) => setTimeout(resolve, 10));
}
process.stdout.write('editing payload.js\\n');
await new Promise((resolve) => setTimeout(resolve, 20));
process.stdout.write('done: accents survive the round trip\\n');
`;

/** Prints its arguments as JSON into args.json. */
const ARGV_AGENT = `
import { writeFileSync } from 'node:fs';
writeFileSync('args.json', JSON.stringify(process.argv.slice(2)));
console.log('ok');
`;

/** Leaves a grandchild behind and outlives any reasonable limit. */
const HANG_AGENT = `
sleep 60 &
echo $! > grandchild.pid
echo started
sleep 60
`;

let dir: string;
let workspace: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'loopdeck-command-agent-'));
  workspace = path.join(dir, 'ws');
  await mkdir(workspace);
  await writeFile(path.join(dir, 'stdin-agent.mjs'), STDIN_AGENT);
  await writeFile(path.join(dir, 'argv-agent.mjs'), ARGV_AGENT);
  await writeFile(path.join(dir, 'hang.sh'), HANG_AGENT);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const goal = newGoal('Names with accents must survive the payload round trip', ['every test passes']);

function agent(options: Partial<CommandAgentOptions>): CommandAgent {
  return new CommandAgent({ command: 'true', prompt: 'stdin', cwd: workspace, timeoutSeconds: 10, outputLimit: 4096, ...options });
}

function context(turn: number, extra: Partial<AgentContext> = {}, g: Goal = goal): AgentContext {
  return { turn, goal: g, history: [], ...extra };
}

/** True while `pid` is a live (not zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe('CommandAgent', () => {
  it('pipes the prompt to stdin, streams stdout to onText in order, and makes exit 0 final', async () => {
    process.env.LOOPDECK_TEST_SECRET = 'do-not-leak';
    process.env.LOOPDECK_TEST_PASSED = 'wanted';
    try {
      const streamed: string[] = [];
      const a = agent({
        command: `node ${JSON.stringify(path.join(dir, 'stdin-agent.mjs'))}`,
        env_passthrough: ['LOOPDECK_TEST_PASSED', 'LOOPDECK_TEST_ABSENT'],
      });
      const turn = await a.nextTurn(
        context(1, {
          onText: (chunk) => {
            streamed.push(chunk);
            if (!existsSync(path.join(workspace, 'go'))) void writeFile(path.join(workspace, 'go'), '');
          },
        }),
      );

      expect(streamed.join('')).toBe('reading the goal\nediting payload.js\ndone: accents survive the round trip\n');
      expect(streamed[0]).toBe('reading the goal\n');
      expect(turn).toEqual({
        thought: expect.stringMatching(/exited 0 after \d+\.\ds$/),
        tool_calls: [],
        usage: { input_tokens: 0, output_tokens: 0 },
        final: 'reading the goal\nediting payload.js\ndone: accents survive the round trip',
        // plain text output reports no tokens and no cost: unknown, not 0
        agent_run: { format: 'text', messages: 0, reported: { tokens: false, cost_usd: false } },
      });
      expect(readFileSync(path.join(workspace, 'prompt.txt'), 'utf8')).toBe(renderCommandPrompt(goal, []));
      expect(readFileSync(path.join(workspace, 'payload.js'), 'utf8')).toBe('export const fixed = true;\n');
      const env = JSON.parse(readFileSync(path.join(workspace, 'env.json'), 'utf8')) as Record<string, string>;
      expect(env.LOOPDECK_TEST_SECRET).toBeUndefined();
      expect(env.LOOPDECK_TEST_PASSED).toBe('wanted');
      expect(env.LOOPDECK_TURN).toBe('1');
      expect(env.LOOPDECK_PROMPT).toBeUndefined();
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.LOOPDECK_TEST_SECRET;
      delete process.env.LOOPDECK_TEST_PASSED;
    }
  });

  it('puts the goal and only the harness notes since the last turn into the prompt', async () => {
    const a = agent({ command: 'cat > prompt.txt; echo ok' });
    const read = () => readFileSync(path.join(workspace, 'prompt.txt'), 'utf8');
    await a.nextTurn(context(1));
    expect(read()).toContain('Objective: Names with accents must survive the payload round trip');
    expect(read()).not.toContain('Notes from the harness');

    const history = [{ role: 'harness' as const, content: 'Your claim that the goal is met was refuted: node --test (exit 1) failed.' }];
    await a.nextTurn(context(2, { history }));
    expect(read()).toContain('Notes from the harness since your last run:\n- Your claim that the goal is met was refuted');

    await a.nextTurn(context(3, { history }));
    expect(read()).not.toContain('Notes from the harness');
  });

  it('passes the prompt as one argument: quotes and $(...) in the goal execute nothing', async () => {
    const evil = newGoal(`fix it"; touch pwned1; echo " $(touch pwned2) \`touch pwned3\` '; touch pwned4; ' $HOME \\" done`);
    const script = JSON.stringify(path.join(dir, 'argv-agent.mjs'));
    const turn = await agent({ command: `node ${script}`, prompt: 'argument' }).nextTurn(context(1, {}, evil));
    expect(turn.final).toBe('ok');
    const args = JSON.parse(readFileSync(path.join(workspace, 'args.json'), 'utf8')) as string[];
    expect(args).toEqual([renderCommandPrompt(evil, [])]);
    expect(args[0]).toContain('$(touch pwned2) `touch pwned3`');

    // The command may place the prompt itself.
    await agent({ command: `node ${script} --message "$LOOPDECK_PROMPT" --yes`, prompt: 'argument' }).nextTurn(context(2, {}, evil));
    const placed = JSON.parse(readFileSync(path.join(workspace, 'args.json'), 'utf8')) as string[];
    expect(placed).toEqual(['--message', renderCommandPrompt(evil, []), '--yes']);

    const files = await readdir(workspace);
    expect(files.filter((f) => f.startsWith('pwned'))).toEqual([]);
    expect(existsSync(path.join(dir, 'pwned1'))).toBe(false);
  });

  it('kills the whole process group at the wall-clock limit and throws an AgentError', async () => {
    const started = performance.now();
    const a = agent({ command: `sh ${JSON.stringify(path.join(dir, 'hang.sh'))}`, timeoutSeconds: 0.5, graceMs: 500 });
    const error = await a.nextTurn(context(1)).catch((e: unknown) => e);
    const elapsed = performance.now() - started;

    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/turn 1: killed after the 0.5s limit/);
    // The grandchild holds the stdout pipe: had only the shell been killed, this would take 60 s.
    expect(elapsed).toBeLessThan(500 + 500 + 1500);
    const pid = Number(readFileSync(path.join(workspace, 'grandchild.pid'), 'utf8'));
    expect(await waitFor(() => !alive(pid), 2000)).toBe(true);
  });

  it('sends SIGKILL after the grace period when the group ignores SIGTERM', async () => {
    const script = path.join(dir, 'stubborn.sh');
    await writeFile(script, `trap '' TERM\n${HANG_AGENT}`);
    const started = performance.now();
    const error = await agent({ command: `sh ${JSON.stringify(script)}`, timeoutSeconds: 0.3, graceMs: 300 })
      .nextTurn(context(1))
      .catch((e: unknown) => e);
    const elapsed = performance.now() - started;

    expect(error).toBeInstanceOf(AgentError);
    expect(elapsed).toBeGreaterThanOrEqual(600);
    expect(elapsed).toBeLessThan(600 + 1500);
    const pid = Number(readFileSync(path.join(workspace, 'grandchild.pid'), 'utf8'));
    expect(await waitFor(() => !alive(pid), 2000)).toBe(true);
  });

  it('kills the group when the run is aborted', async () => {
    const controller = new AbortController();
    const pending = agent({ command: `sh ${JSON.stringify(path.join(dir, 'hang.sh'))}`, graceMs: 300 }).nextTurn(
      context(1, { signal: controller.signal, onText: () => controller.abort() }),
    );
    await expect(pending).rejects.toThrow(/turn 1: killed \(the run was aborted\)/);
    const pid = Number(readFileSync(path.join(workspace, 'grandchild.pid'), 'utf8'));
    expect(await waitFor(() => !alive(pid), 2000)).toBe(true);
  });

  it('turns a non-zero exit into an AgentError with the stderr tail', async () => {
    const a = agent({ command: 'echo partial work; echo "error: no API key configured" >&2; exit 3' });
    const error = await a.nextTurn(context(2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toBe(
      'command:echo partial work; echo "error: no API key configured" >&2; exit 3: turn 2: exited with code 3; stderr:\nerror: no API key configured',
    );
  });

  it('does not wait for processes left behind after a successful exit', async () => {
    const started = performance.now();
    const turn = await agent({ command: 'sleep 60 & echo $! > leftover.pid; echo finished', graceMs: 300 }).nextTurn(context(1));
    expect(turn.final).toBe('finished');
    expect(performance.now() - started).toBeLessThan(3000);
    const pid = Number(readFileSync(path.join(workspace, 'leftover.pid'), 'utf8'));
    expect(await waitFor(() => !alive(pid), 2000)).toBe(true);
  });

  it('tolerates a command that never reads its stdin', async () => {
    const turn = await agent({ command: 'echo ignoring stdin' }).nextTurn(context(1));
    expect(turn.final).toBe('ignoring stdin');
  });
});
