// The context window of the openai agent, as pure functions: the size estimate, the
// default windows, and compaction of hostile conversations (one huge output, huge call
// arguments, multibyte text, many parallel calls, a goal that cannot fit).
import { describe, expect, it } from 'vitest';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  compactConversation,
  contextPolicyFor,
  DEFAULT_CONTEXT_TOKENS,
  defaultContextTokens,
  estimateRequestTokens,
  estimateTokens,
  memoryMessage,
  thresholdTokens,
  turnsOf,
  type ContextPolicy,
} from '../../src/engine/agents/context.js';
import { OPENAI_TOOLS } from '../../src/engine/agents/openai.js';
import { AgentError } from '../../src/engine/errors.js';
import { checkpointMemory, elideMiddle } from '../../src/engine/handover.js';

type Message = ChatCompletionMessageParam;
const head: Message[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'The goal:\nObjective: fix the parser' },
];
const policy: ContextPolicy = { window: 6000, compactAt: 0.75, keepTurns: 2 };
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i + 1} of the output`).join('\n');

function turn(i: number, output: string, calls = 1, args: Record<string, unknown> = { command: `cat log${i}` }): Message[] {
  const ids = Array.from({ length: calls }, (_, k) => `call_${i}_${k}`);
  return [
    { role: 'assistant', content: `Step ${i}.`, tool_calls: ids.map((id) => ({ id, type: 'function' as const, function: { name: 'shell', arguments: JSON.stringify(args) } })) },
    ...ids.map((id): Message => ({ role: 'tool', tool_call_id: id, content: output })),
  ];
}

function compact(conversation: Message[], p: ContextPolicy = policy) {
  return compactConversation(conversation, { head, memory: (d) => memoryMessage({}, d), tools: OPENAI_TOOLS, policy: p, droppedBefore: 0 });
}

function requestTokens(result: ReturnType<typeof compact>): number {
  return estimateRequestTokens({ messages: [...head, ...(result.memory ? [result.memory] : []), ...result.conversation], tools: OPENAI_TOOLS });
}

/** Every tool message answers a call of the assistant message before it, and every call is answered. */
function valid(messages: Message[]): boolean {
  let open: string[] = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      if (!open.includes(m.tool_call_id)) return false;
      open = open.filter((id) => id !== m.tool_call_id);
      continue;
    }
    if (open.length > 0) return false;
    open = m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : [];
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) if (c.type === 'function') JSON.parse(c.function.arguments);
  }
  return open.length === 0;
}

describe('the estimate', () => {
  it('counts bytes, so text outside ASCII is never cheaper than its characters', () => {
    expect(estimateTokens('abc'.repeat(100))).toBe(100);
    expect(estimateTokens('漢'.repeat(100))).toBe(100);
    expect(estimateTokens('🙂'.repeat(100))).toBe(134);
  });

  it('assumes the known window of a model family, else a conservative default', () => {
    expect(defaultContextTokens('gpt-4o-mini')).toBe(128_000);
    expect(defaultContextTokens('openai/gpt-4.1')).toBe(1_047_576);
    expect(defaultContextTokens('deepseek-chat')).toBe(64_000);
    expect(defaultContextTokens('gpt-4')).toBe(8_192);
    expect(defaultContextTokens('llama3.1:8b')).toBe(DEFAULT_CONTEXT_TOKENS);
    expect(contextPolicyFor('qwen2.5-coder', { context_tokens: 32768 })).toEqual({ window: 32768, compactAt: 0.75, keepTurns: 4 });
  });
});

describe('eliding', () => {
  it('keeps the first and last lines with a note, and cutting again changes nothing', () => {
    const once = elideMiddle(lines(100, 'x'), { headLines: 5, tailLines: 5, maxChars: 1200 });
    expect(once.text.split('\n')).toHaveLength(11);
    expect(once.text).toContain('x line 1 of the output');
    expect(once.text).toContain('[... 90 of 100 lines elided by loopdeck to fit the context window ...]');
    expect(once.text).toContain('x line 100 of the output');
    expect(elideMiddle(once.text, { headLines: 5, tailLines: 5, maxChars: 1200 }).text).toBe(once.text);
  });

  it('cuts one enormous line too', () => {
    const cut = elideMiddle('y'.repeat(1_000_000), { headLines: 5, tailLines: 5, maxChars: 1200 });
    expect(cut.text.length).toBeLessThan(1400);
    expect(cut.elidedChars).toBe(1_000_000 - 1200);
  });
});

describe('compaction', () => {
  it('keeps the newest turns whole and cuts older outputs, leaving a valid conversation under the threshold', () => {
    const conversation = [1, 2, 3, 4, 5].flatMap((i) => turn(i, lines(30, `t${i}`)));
    const result = compact(conversation);
    expect(requestTokens(result)).toBe(result.tokens);
    expect(result.tokens).toBeLessThanOrEqual(thresholdTokens(policy));
    expect(valid(result.conversation)).toBe(true);
    const turns = turnsOf(result.conversation);
    expect(turns.slice(-2)).toEqual(turnsOf(conversation).slice(-2));
    expect(result.keptWhole).toBe(2);
    expect(result.elided.length).toBeGreaterThan(0);
    expect(result.elided[0]).toMatchObject({ role: 'tool', name: 'shell', lines: 30 });
  });

  it.each([
    ['one huge output in the newest turn', [...turn(1, 'a'), ...turn(2, lines(5000, 'huge'))]],
    ['a huge output on one line', [...turn(1, 'a'), ...turn(2, 'z'.repeat(200_000))]],
    ['multibyte output', [1, 2, 3, 4].flatMap((i) => turn(i, '漢字のテキスト\n'.repeat(400)))],
    ['huge call arguments', [1, 2, 3].flatMap((i) => turn(i, 'ok', 1, { path: 'a.txt', content: lines(2000, 'arg') }))],
    ['many parallel calls', [1, 2, 3].flatMap((i) => turn(i, lines(40, 'p'), 12))],
    ['notes from the harness', [...turn(1, 'ok'), { role: 'user', content: lines(3000, 'note') } as Message, ...turn(2, 'ok')]],
  ])('fits %s under the threshold and stays valid', (_name, conversation) => {
    const result = compact(conversation as Message[]);
    expect(result.tokens).toBeLessThanOrEqual(thresholdTokens(policy));
    expect(requestTokens(result)).toBe(result.tokens);
    expect(valid(result.conversation)).toBe(true);
    expect(result.conversation.some((m) => m.role === 'assistant')).toBe(true);
  });

  it('refuses, naming the setting, when the system prompt and goal alone pass the threshold', () => {
    const big = [head[0]!, { role: 'user', content: 'The goal:\n' + lines(2000, 'goal') } as Message];
    const run = () => compactConversation(turn(1, 'ok'), { head: big, memory: () => null, tools: OPENAI_TOOLS, policy, droppedBefore: 0 });
    expect(run).toThrow(AgentError);
    expect(run).toThrow(/raise agent\.context_tokens/);
  });
});

describe('memory', () => {
  it('summarises the last checkpoint: observed signals and the reported evidence and hypotheses, bounded', () => {
    const text = checkpointMemory({
      iteration: 6,
      index: 1,
      status: 'PROGRESS_OBSERVED',
      observed: { 'tests.failing': 2 },
      reported: { new_evidence: [], eliminated_hypotheses: ['cache'], remaining_hypotheses: ['x'.repeat(5000)] },
      observed_progress: true,
      claimed_progress: true,
      counter: 0,
      threshold: 3,
      stagnation_detected: false,
      signals: [{ signal: 'observed.tests.failing', direction: 'decrease', before: 4, after: 2, move: 'wanted' }],
      evidence: [{ claim: 'the DTO is valid', evidence_ref: 'dto ok', status: 'found_passing' }],
    })!;
    expect(text).toContain('Memory of the last checkpoint (turn 6, PROGRESS_OBSERVED):');
    expect(text).toContain('- observed by the harness: observed.tests.failing 4 → 2 (wanted)');
    expect(text).toContain('- you reported: the DTO is valid [dto ok: found passing]');
    expect(text).toContain('- eliminated: cache');
    expect(text.length).toBeLessThan(800);
    expect(checkpointMemory(null)).toBeNull();
  });
});
