// A CLI agent's structured output parsed while it runs: a script prints a transcript made
// from the documented shapes, line by line, and blocks until the test has seen its first
// tool call as an event (so events must stream, not arrive at exit).
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentContext } from '../../src/engine/agents/agent.js';
import { CommandAgent } from '../../src/engine/agents/command.js';
import type { AgentEventDraft } from '../../src/engine/agents/transcripts/record.js';
import { AgentError } from '../../src/engine/errors.js';
import { newGoal } from '../../src/engine/goal.js';

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'transcripts');

/** Prints argv[2] line by line; after the first tool use waits for ./go; with argv[3] = hang, never exits. */
const FAKE_CLI = `
import { existsSync, readFileSync } from 'node:fs';
const text = readFileSync(process.argv[2], 'utf8');
const lines = text.split('\\n');
let waited = false;
for (let i = 0; i < lines.length; i++) {
  const last = i === lines.length - 1;
  process.stdout.write(last ? lines[i] : lines[i] + '\\n');
  if (!waited && /"type":"tool_use"|command_execution/.test(lines[i])) {
    waited = true;
    const deadline = Date.now() + 5000;
    while (!existsSync('go')) {
      if (Date.now() > deadline) { console.error('no tool.call event seen while running'); process.exit(3); }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
if (process.argv[3] === 'hang') setInterval(() => {}, 1000);
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'loopdeck-cli-output-'));
  await writeFile(path.join(dir, 'fake-cli.mjs'), FAKE_CLI);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function agentFor(fixture: string, extra = '', options: { graceMs?: number; output?: 'auto' | 'claude-stream-json' } = {}) {
  return new CommandAgent({
    command: `node fake-cli.mjs ${JSON.stringify(fixture)} ${extra}`,
    prompt: 'stdin',
    cwd: dir,
    timeoutSeconds: 30,
    outputLimit: 64 * 1024,
    graceMs: options.graceMs ?? 2000,
    output: options.output ?? 'auto',
  });
}

function context(events: AgentEventDraft[]): AgentContext {
  return {
    turn: 1,
    goal: newGoal('fix the parser'),
    history: [],
    onEvent: (draft) => {
      events.push(draft);
      if (draft.type === 'tool.call') writeFileSync(path.join(dir, 'go'), '');
    },
  };
}

/** The events a user would notice: turns, calls by the agent, results, usage, notices. */
function seen(events: AgentEventDraft[]) {
  const sum = (key: 'input_tokens' | 'output_tokens' | 'cost_usd') => {
    const known = events.flatMap((e) => (e.type === 'agent.usage' && e.data[key] !== null ? [e.data[key]] : []));
    return known.length === 0 ? 'unknown' : Number(known.reduce((a, b) => a + b, 0).toFixed(6));
  };
  return {
    turns: events.filter((e) => e.type === 'agent.message' && e.data.starts_turn).length,
    calls: events.flatMap((e) => (e.type === 'tool.call' ? [`${e.data.by} ${e.data.call.id} ${e.data.call.name}`] : [])),
    results: events.flatMap((e) => (e.type === 'tool.result' ? [`${e.data.by} ${e.data.result.call_id} ${e.data.result.status}`] : [])),
    tokens: [sum('input_tokens'), sum('output_tokens')],
    cost: sum('cost_usd'),
    notices: events.filter((e) => e.type === 'agent.notice').length,
  };
}

describe('CommandAgent with structured output', () => {
  it('Claude Code stream-json: events as they arrive, the result record is the answer', async () => {
    const events: AgentEventDraft[] = [];
    const turn = await agentFor(path.join(FIXTURES, 'claude-stream.jsonl')).nextTurn(context(events));
    expect(seen(events)).toEqual({
      turns: 2,
      calls: ['agent t1.1:toolu_1 Bash', 'agent t1.2:toolu_2 Edit'],
      results: ['agent t1.1:toolu_1 failed', 'agent t1.2:toolu_2 ok'],
      tokens: [350, 60],
      cost: 0.0123,
      notices: 3, // session, unknown record type, the cut-off last line
    });
    expect(turn).toMatchObject({
      tool_calls: [],
      final: 'Fixed the parser: the last line is kept.',
      agent_run: { format: 'claude-stream-json', messages: 2, reported: { tokens: true, cost_usd: true } },
    });
  });

  it('Codex exec --json: cost is not reported, so it stays unknown', async () => {
    const events: AgentEventDraft[] = [];
    const turn = await agentFor(path.join(FIXTURES, 'codex-exec.jsonl')).nextTurn(context(events));
    expect(seen(events)).toMatchObject({
      turns: 2,
      calls: ['agent t1.1:item_1 shell', 'agent t1.2:item_2 file_change', 'agent t1.3:item_3 shell'],
      results: ['agent t1.1:item_1 failed', 'agent t1.2:item_2 ok', 'agent t1.3:item_3 ok'],
      tokens: [1200, 345],
      cost: 'unknown',
    });
    expect(turn.agent_run).toEqual({ format: 'codex-json', messages: 2, reported: { tokens: true, cost_usd: false } });
    expect(turn.final).toBe('Fixed the parser: the last line is kept.');
  });

  it('Gemini CLI stream-json', async () => {
    const events: AgentEventDraft[] = [];
    const turn = await agentFor(path.join(FIXTURES, 'gemini-stream.jsonl')).nextTurn(context(events));
    expect(seen(events)).toMatchObject({
      turns: 3,
      calls: ['agent t1.1:run_shell_command-1 run_shell_command', 'agent t1.2:replace-2 replace'],
      results: ['agent t1.1:run_shell_command-1 failed', 'agent t1.2:replace-2 ok'],
      tokens: [1200, 300],
      cost: 'unknown',
    });
    expect(turn.final).toBe('Fixed the parser: the last line is kept.');
  });

  it('the final result record ends the run: a CLI that lingers after it is stopped', async () => {
    const events: AgentEventDraft[] = [];
    const started = Date.now();
    const turn = await agentFor(path.join(FIXTURES, 'claude-stream.jsonl'), 'hang', { graceMs: 200 }).nextTurn(context(events));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(turn.final).toBe('Fixed the parser: the last line is kept.');
    expect(turn.thought).toMatch(/stopped .*s after its final result$/);
  });

  it('a result record that reports an error fails the turn with its text', async () => {
    const file = path.join(dir, 'error.jsonl');
    writeFileSync(file, [
      '{"type":"system","subtype":"init","session_id":"s","model":"m"}',
      '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":5,"output_tokens":1}}}',
      '{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":1,"total_cost_usd":0.5,"usage":{"input_tokens":5,"output_tokens":1}}',
      '',
    ].join('\n'));
    const events: AgentEventDraft[] = [];
    const error = await agentFor(file).nextTurn(context(events)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentError);
    expect((error as Error).message).toMatch(/the agent reported an error: the run ended with error_max_turns/);
    // What it spent before failing is still recorded.
    expect(seen(events).cost).toBe(0.5);
  });

  it('garbage between records becomes notices, never a crash', async () => {
    const file = path.join(dir, 'noisy.jsonl');
    writeFileSync(file, [
      'Update available: 9.9.9',
      '{"type":"system","subtype":"init","session_id":"s","model":"m"}',
      '\u001b[31mnot json\u001b[0m',
      '[1,2,3]',
      '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a\\nb"},{"type":"tool_result","tool_use_id":"t1","content":"again"}]}}',
      '{"type":"result","subtype":"success","is_error":false,"result":"ok"}',
      '',
    ].join('\n'));
    const events: AgentEventDraft[] = [];
    const turn = await agentFor(file, '', { output: 'claude-stream-json' }).nextTurn(context(events));
    expect(turn.final).toBe('ok');
    expect(turn.agent_run).toEqual({ format: 'claude-stream-json', messages: 1, reported: { tokens: false, cost_usd: false } });
    const notices = events.flatMap((e) => (e.type === 'agent.notice' ? [e.data.text] : []));
    expect(notices).toEqual([
      'claude-stream-json: a line that is not JSON, kept as text: Update available: 9.9.9',
      'agent session s (m)',
      'claude-stream-json: a line that is not JSON, kept as text: \u001b[31mnot json\u001b[0m',
      'claude-stream-json: a line that is not a JSON object, kept as text: [1,2,3]',
      'the agent reported a result for a call it never made (t1)',
    ]);
  });
});
