import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TranscriptRecorder } from '../../src/engine/agents/transcripts/record.js';
import {
  LineSplitter, createParser, detectFormat, finishLines, parseLines, parseTranscript, parserFor,
  type TranscriptEntry, type TranscriptFormat,
} from '../../src/engine/agents/transcripts/index.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'transcripts');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

/** What a user sees of a transcript: turns, calls, results, spend, notices. */
function summary(entries: TranscriptEntry[]) {
  const sum = (key: 'input_tokens' | 'output_tokens' | 'cost_usd') => {
    const values = entries.flatMap((e) => (e.kind === 'usage' && e.usage[key] !== null ? [e.usage[key]] : []));
    return values.length === 0 ? null : Number(values.reduce((a, b) => a + b, 0).toFixed(6));
  };
  return {
    turns: entries.filter((e) => e.kind === 'message' && e.starts_turn).length,
    calls: entries.flatMap((e) => (e.kind === 'tool_call' ? [`${e.id} ${e.name} ${JSON.stringify(e.args)}`] : [])),
    results: entries.flatMap((e) => (e.kind === 'tool_result' ? [`${e.id} ${e.status} ${e.exit_code}`] : [])),
    input_tokens: sum('input_tokens'),
    output_tokens: sum('output_tokens'),
    cost_usd: sum('cost_usd'),
    result: entries.filter((e) => e.kind === 'result'),
    notices: entries.flatMap((e) => (e.kind === 'notice' ? [e.text.slice(0, 50)] : [])),
  };
}

describe('transcript parsers on fixtures made from the documented shapes', () => {
  it('Claude Code stream-json: one turn per message id, usage counted once, result totals as deltas', () => {
    const entries = parseLines(fixture('claude-stream.jsonl'), createParser('claude-stream-json'));
    expect(entries[0]).toEqual({ kind: 'session', id: 's-claude-1', model: 'claude-sonnet-4-5' });
    expect(summary(entries)).toEqual({
      turns: 2,
      calls: [
        'toolu_1 Bash {"command":"npm test","description":"Run the tests"}',
        'toolu_2 Edit {"file_path":"src/parser.ts","old_string":"lines.pop()","new_string":"lines"}',
      ],
      results: ['toolu_1 failed null', 'toolu_2 ok null'],
      // messages: 150 + 200 in, 10 + 40 out; the result's totals (350 in, 60 out) add 0 and 10
      input_tokens: 350,
      output_tokens: 60,
      cost_usd: 0.0123,
      result: [{ kind: 'result', ok: true, text: 'Fixed the parser: the last line is kept.' }],
      notices: [
        'claude-stream-json: unknown record type "rate_limi',
        'claude-stream-json: the last line is cut off, kept',
      ],
    });
    const reasoning = entries.find((e) => e.kind === 'message' && e.reasoning !== '');
    expect(reasoning).toEqual({ kind: 'message', starts_turn: true, text: '', reasoning: 'Run the tests first.' });
  });

  it('Codex exec --json: commands with exit codes, file changes, cumulative usage without cost', () => {
    const entries = parseLines(fixture('codex-exec.jsonl'), createParser('codex-json'));
    expect(summary(entries)).toEqual({
      turns: 2,
      calls: [
        `item_1 shell {"command":"bash -lc 'npm test'"}`,
        'item_2 file_change {"changes":[{"path":"src/parser.ts","kind":"update"}]}',
        `item_3 shell {"command":"bash -lc 'npm test'"}`,
      ],
      results: ['item_1 failed 1', 'item_2 ok null', 'item_3 ok 0'],
      input_tokens: 1200,
      output_tokens: 345,
      cost_usd: null,
      result: [{ kind: 'result', ok: true, text: 'Fixed the parser: the last line is kept.' }],
      notices: [
        'codex-json: unknown item type "collab_tool_call" k',
        'codex-json: unknown record type "session.configure',
        'codex-json: the last line is cut off, kept as text',
      ],
    });
  });

  it('Codex: a second turn.completed of the same thread adds only the difference', () => {
    const parser = createParser('codex-json');
    const lines = [
      '{"type":"turn.completed","usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":100}}',
      '{"type":"turn.completed","usage":{"input_tokens":2500,"cached_input_tokens":900,"output_tokens":180}}',
    ];
    const usage = lines.flatMap((l) => parser.line(l)).filter((e) => e.kind === 'usage');
    expect(usage).toEqual([
      { kind: 'usage', usage: { input_tokens: 1000, output_tokens: 100, cost_usd: null } },
      { kind: 'usage', usage: { input_tokens: 1500, output_tokens: 80, cost_usd: null } },
    ]);
  });

  it('Gemini CLI stream-json: deltas are one message, tool errors fail, stats become usage', () => {
    const entries = parseLines(fixture('gemini-stream.jsonl'), createParser('gemini-stream-json'));
    expect(summary(entries)).toEqual({
      turns: 3,
      calls: [
        'run_shell_command-1 run_shell_command {"command":"npm test"}',
        'replace-2 replace {"file_path":"src/parser.ts","old_string":"lines.pop()","new_string":"lines"}',
      ],
      results: ['run_shell_command-1 failed null', 'replace-2 ok null'],
      input_tokens: 1200,
      output_tokens: 300,
      cost_usd: null,
      result: [{ kind: 'result', ok: true, text: 'Fixed the parser: the last line is kept.' }],
      notices: [
        'gemini-stream-json: warning: Loop detection is dis',
        'gemini-stream-json: unknown record type "thought" ',
        'gemini-stream-json: the last line is cut off, kept',
      ],
    });
  });

  it('mini-SWE-agent trajectory: bash blocks and return codes, total cost, tokens unknown', () => {
    const { format, entries } = parseTranscript(fixture('mini-swe.traj.json'), 'mini-swe.traj.json');
    expect(format).toBe('mini-swe-agent');
    expect(summary(entries)).toMatchObject({
      turns: 3,
      results: ['call-1 failed 1', 'call-2 ok 0', 'call-3 ok null'],
      input_tokens: null,
      output_tokens: null,
      cost_usd: 0.05,
      notices: [],
    });
    expect(summary(entries).calls[1]).toBe(`call-2 bash {"command":"sed -i 's/lines.pop()/lines/' src/parser.ts && npm test"}`);
  });

  it('detects each format from its first records, and refuses an unknown file by name', () => {
    const formats: [string, TranscriptFormat | 'mini-swe-agent'][] = [
      ['claude-stream.jsonl', 'claude-stream-json'],
      ['codex-exec.jsonl', 'codex-json'],
      ['gemini-stream.jsonl', 'gemini-stream-json'],
      ['mini-swe.traj.json', 'mini-swe-agent'],
    ];
    for (const [file, format] of formats) expect(parseTranscript(fixture(file), file).format).toBe(format);
    expect(detectFormat('plain text')).toBeNull();
    expect(() => parseTranscript('hello\n{"a":1}\n', 'notes.txt')).toThrow(/notes\.txt: not a transcript/);
  });
});

describe('streaming', () => {
  it('any split of the stream into chunks gives the same entries as the whole text', () => {
    for (const file of ['claude-stream.jsonl', 'codex-exec.jsonl', 'gemini-stream.jsonl']) {
      const text = fixture(file);
      const whole = parseLines(text, parserFor('auto'));
      for (const size of [1, 7, 64, 333]) {
        const parser = parserFor('auto');
        const splitter = new LineSplitter();
        const got: TranscriptEntry[] = [];
        for (let i = 0; i < text.length; i += size) for (const line of splitter.push(text.slice(i, i + size))) got.push(...parser.line(line));
        got.push(...finishLines(splitter.rest(), parser));
        expect(got, `${file} in chunks of ${size}`).toEqual(whole);
      }
    }
  });

  it('auto ignores plain text before the first structured line and parses from there', () => {
    const parser = parserFor('auto');
    expect(parser.line('Starting up…')).toEqual([]);
    expect(parser.format).toBe('text');
    expect(parser.line('{"type":"thread.started","thread_id":"t"}')).toEqual([{ kind: 'session', id: 't', model: null }]);
    expect(parser.format).toBe('codex-json');
  });
});

describe('hostile lines never throw and are kept as notices', () => {
  const hostile = [
    'null', '[]', '"text"', '42', '{"type":5}', '{}', '{"type":"assistant","message":"x"}',
    '{"type":"assistant","message":{"content":[null,5,{"type":"tool_use"},{"type":"text","text":7}]}}',
    '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"nope","content":{"a":1}}]}}',
    '{"type":"result","usage":{"input_tokens":-5,"output_tokens":"9"},"total_cost_usd":"NaN"}',
    '{"type":"item.completed","item":null}', '{"type":"item.completed","item":{"type":"command_execution","exit_code":"x"}}',
    '{"type":"turn.completed","usage":[1,2]}', '{"type":"tool_result","tool_id":{"x":1}}', '{"type":"tool_use","parameters":"a b"}',
    '{"type":"result","stats":{"input_tokens":1e400}}', '{"type":"message","role":"assistant","content":null}',
    '\u0000\u0000\u0000', '{"type":"system","subtype":"init","session_id":["x"]}', `{"type":"assistant","message":{"content":"${'x'.repeat(100_000)}"}}`,
  ];
  for (const format of ['claude-stream-json', 'codex-json', 'gemini-stream-json'] as const) {
    it(format, () => {
      const parser = createParser(format);
      for (const line of hostile) {
        const entries = parser.line(line);
        for (const entry of entries) {
          if (entry.kind === 'usage') for (const v of Object.values(entry.usage)) expect(v === null || (Number.isFinite(v) && v >= 0)).toBe(true);
          if (entry.kind === 'message') expect(entry.text.length).toBeLessThan(40_000);
        }
      }
      expect(parser.line('not json {')).toEqual([{ kind: 'notice', text: `${format}: a line that is not JSON, kept as text: not json {` }]);
    });
  }
});

describe('line splitting', () => {
  it('a line longer than the limit is left out with a notice, and the next line still parses', () => {
    const splitter = new LineSplitter(100);
    const lines = [...splitter.push('x'.repeat(60)), ...splitter.push('y'.repeat(60)), ...splitter.push('z\n{"type":"turn.started"}\n'), ...splitter.push('a'.repeat(150))];
    expect(lines).toEqual(['[a line of 121 characters was left out: longer than 100]', '{"type":"turn.started"}']);
    expect(splitter.rest()).toBe('[a line of 150 characters was left out: longer than 100]');
    const parser = createParser('codex-json');
    expect(parser.line(lines[0]!)[0]).toMatchObject({ kind: 'notice' });
  });
});

describe('Claude Code session files', () => {
  it('are read like stream-json: summary lines skipped, tokens per message, cost unknown without a result', () => {
    const lines = [
      { type: 'summary', summary: 'Fix the parser', leafUuid: 'u9' },
      { parentUuid: null, sessionId: 's1', type: 'user', message: { role: 'user', content: 'fix the parser' }, uuid: 'u1', timestamp: '2025-10-10T12:00:00Z' },
      { parentUuid: 'u1', sessionId: 's1', type: 'assistant', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }], usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 } }, uuid: 'u2' },
      { parentUuid: 'u2', sessionId: 's1', type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] }, uuid: 'u3' },
    ].map((r) => JSON.stringify(r)).join('\n');
    const { format, entries } = parseTranscript(`${lines}\n`, 'session.jsonl');
    expect(format).toBe('claude-stream-json');
    expect(entries).toEqual([
      { kind: 'message', starts_turn: true, text: '', reasoning: '' },
      { kind: 'usage', usage: { input_tokens: 100, output_tokens: 5, cost_usd: null } },
      { kind: 'tool_call', id: 'toolu_1', name: 'Bash', args: { command: 'npm test' } },
      { kind: 'tool_result', id: 'toolu_1', name: 'Bash', status: 'ok', output: 'ok', exit_code: null },
    ]);
  });
});

describe('Codex calls its pre-tool hook asked about, in a recorded `exec --json` stream', () => {
  /** The hook's inputs for the stream's calls (Codex's PreToolUse: `apply_patch` with the patch, an MCP tool as `mcp__<server>__<tool>`). */
  const PATCH = '*** Begin Patch\n*** Update File: src/parser.ts\n@@\n-  return lines.slice(0, -1);\n+  return lines;\n*** Add File: test/parser.test.ts\n+test("keeps the last line", () => {});\n*** End Patch\n';
  const hook = {
    mcp: ['mcp__tracker__get_issue', { id: 42 }],
    patch: ['apply_patch', { command: ['apply_patch', PATCH] }],
    shell: ['Bash', { command: 'npm test' }],
  } as const;
  const lines = readFileSync(path.join(FIXTURES, '..', 'bridge', 'codex-bridged.jsonl'), 'utf8').split('\n').filter(Boolean);

  /** Feeds the stream, the hook asking about each call at `when` (before its item, or after the item started): every event recorded. */
  function replay(when: 'hook-first' | 'item-first') {
    const recorder = new TranscriptRecorder(1);
    const parser = createParser('codex-json');
    const events: Array<{ type: string; data: any }> = [];
    const ids: string[] = [];
    const ask = (name: string, args: Record<string, unknown>) => {
      const claimed = recorder.claim(null, name, args);
      ids.push(claimed.id);
      events.push(...claimed.events);
    };
    for (const line of lines) {
      const record = JSON.parse(line) as { type: string; item?: { type: string } };
      const which = record.item?.type === 'mcp_tool_call' ? hook.mcp : record.item?.type === 'file_change' ? hook.patch : record.item?.type === 'command_execution' ? hook.shell : null;
      if (which && record.type === 'item.started' && when === 'hook-first') ask(which[0], structuredClone(which[1]) as Record<string, unknown>);
      events.push(...parser.line(line).flatMap((entry) => recorder.record(entry)));
      if (which && record.type === 'item.started' && when === 'item-first') ask(which[0], structuredClone(which[1]) as Record<string, unknown>);
    }
    return { events, ids };
  }

  it.each(['hook-first', 'item-first'] as const)('%s: each real call is one tool.call, its result joins it, and the hook was given its id', (when) => {
    const { events, ids } = replay(when);
    const calls = events.filter((e) => e.type === 'tool.call').map((e) => e.data.call);
    expect(calls.map((c) => c.name)).toEqual(when === 'hook-first' ? ['mcp__tracker__get_issue', 'apply_patch', 'Bash'] : ['tracker.get_issue', 'file_change', 'shell']);
    const results = events.filter((e) => e.type === 'tool.result').map((e) => e.data.result);
    expect(results.map((r) => [r.call_id, r.status])).toEqual(calls.map((c) => [c.id, 'ok']));
    expect(ids).toEqual(calls.map((c) => c.id));
    expect(events.filter((e) => e.type === 'agent.notice' && /never made/.test(e.data.text))).toEqual([]);
  });
});

describe('calls a pre-tool hook asks about', () => {
  const use = (id: string, name = 'Bash', args: Record<string, unknown> = { command: 'ls' }) => ({ kind: 'tool_call' as const, id, name, args });

  it('the parsed use first: the hook gets its id and adds no event', () => {
    const recorder = new TranscriptRecorder(1);
    const [call] = recorder.record(use('toolu_1'));
    expect(recorder.claim('toolu_1', 'Bash', { command: 'ls' })).toEqual({ id: 't1.1:toolu_1', events: [] });
    expect(call).toMatchObject({ type: 'tool.call', data: { call: { id: 't1.1:toolu_1' }, by: 'agent' } });
  });

  it('the hook first: one tool.call, and the parsed use and its result join it', () => {
    const recorder = new TranscriptRecorder(1);
    const claimed = recorder.claim('toolu_1', 'Bash', { command: 'ls' });
    expect(claimed.events).toEqual([{ type: 'tool.call', data: { call: { id: 't1.1:toolu_1', name: 'Bash', args: { command: 'ls' } }, by: 'agent' } }]);
    expect(recorder.record(use('toolu_1'))).toEqual([]);
    expect(recorder.record({ kind: 'tool_result', id: 'toolu_1', name: 'Bash', status: 'ok', output: 'a', exit_code: 0 })).toMatchObject([{ type: 'tool.result', data: { result: { call_id: 't1.1:toolu_1' } } }]);
  });

  it('without an agent id (Gemini CLI): matched by name and arguments, either order', () => {
    const recorder = new TranscriptRecorder(2);
    recorder.record(use('g1', 'run_shell_command', { command: 'ls' }));
    expect(recorder.claim(null, 'run_shell_command', { command: 'ls' })).toEqual({ id: 't2.1:g1', events: [] });
    // Hook first: the later parsed use with its own id adds nothing; its result joins the call.
    const claimed = recorder.claim(null, 'read_file', { file_path: 'a' });
    expect(claimed.events).toHaveLength(1);
    expect(recorder.record(use('g2', 'read_file', { file_path: 'a' }))).toEqual([]);
    expect(recorder.record({ kind: 'tool_result', id: 'g2', name: 'read_file', status: 'ok', output: 'x', exit_code: null })).toMatchObject([{ data: { result: { call_id: claimed.id } } }]);
    // Another call with other arguments is its own.
    expect(recorder.record(use('g3', 'read_file', { file_path: 'b' }))).toHaveLength(1);
  });

  it("Codex: the hook's Bash call and the printed command_execution of `/bin/bash -lc '<script>'` are one call, either order", () => {
    const recorder = new TranscriptRecorder(1);
    const parser = createParser('codex-json');
    const item = (id: string, script: string, status: string) =>
      JSON.stringify({ type: status === 'in_progress' ? 'item.started' : 'item.completed', item: { id, type: 'command_execution', command: `/bin/bash -lc '${script.replace(/'/g, `'\\''`)}'`, aggregated_output: '', exit_code: status === 'completed' ? 0 : null, status } });
    const feed = (line: string) => parser.line(line).flatMap((entry) => recorder.record(entry));
    // The hook first (Codex asks before it prints the item): the item adds no second call.
    const first = recorder.claim(null, 'Bash', { command: "echo it's > a.txt" });
    expect(first.events).toHaveLength(1);
    expect(feed(item('item_1', "echo it's > a.txt", 'in_progress'))).toEqual([]);
    expect(feed(item('item_1', "echo it's > a.txt", 'completed'))).toMatchObject([{ type: 'tool.result', data: { result: { call_id: first.id, status: 'ok' } } }]);
    // The item first: the hook joins it.
    const [printed] = feed(item('item_2', 'npm test', 'in_progress'));
    expect(recorder.claim(null, 'Bash', { command: 'npm test' })).toEqual({ id: (printed!.data as { call: { id: string } }).call.id, events: [] });
    // A line that runs more than the shell's one word is another call.
    expect(recorder.claim(null, 'Bash', { command: 'ls' }).events).toHaveLength(1);
    expect(feed(JSON.stringify({ type: 'item.started', item: { id: 'item_3', type: 'command_execution', command: "/bin/bash -lc 'ls'; rm -rf x", status: 'in_progress' } }))).toHaveLength(1);
  });
});
