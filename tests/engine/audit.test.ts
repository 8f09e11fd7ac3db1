import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/engine/agents/transcripts/index.js';
import { auditEntries, type AuditOptions } from '../../src/engine/audit/audit.js';
import { testSummary } from '../../src/engine/audit/test-summary.js';
import { DEFAULT_REPETITION_OPTIONS } from '../../src/engine/repetition.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'transcripts');
const entriesOf = (name: string) => parseTranscript(readFileSync(path.join(FIXTURES, name), 'utf8'), name).entries;
const DEFAULTS: AuditOptions = {
  limits: { turns: 50, tool_calls: 100, wall_clock_seconds: 1800, tokens: null, cost_usd: null },
  repetition: { ...DEFAULT_REPETITION_OPTIONS },
  stagnation_threshold: 3,
};

describe('audit of a finished session', () => {
  it('a retry loop in the middle: the guard fires at the third identical npm test, stagnation at the fourth failing run', () => {
    const report = auditEntries(entriesOf('claude-retry-loop.jsonl'), DEFAULTS);
    expect(report.total).toEqual({ turns: 13, tool_calls: 12, tokens: 14_300, cost_usd: 1.3 });
    expect(report.test_runs).toBe(6);
    expect(report.firings).toEqual([
      {
        detector: 'repetition',
        at: { turn: 6, tool_call: 5 },
        detail: 'the same Bash call 3× in the last 5 calls (at call 6, Bash)',
        // 7 of the 13 messages came after; the cost, reported only as a total, is shared by tokens
        after: { turns: 7, tool_calls: 7, tokens: 7700, cost_usd: 0.7, cost_estimated: true },
      },
      {
        detector: 'stagnation',
        at: { turn: 8, tool_call: 8 },
        detail: "3 test runs in a row without fewer failing or more passing tests (1 failing; test results found in the agent's own tool output)",
        after: { turns: 5, tool_calls: 4, tokens: 5500, cost_usd: 0.5, cost_estimated: true },
      },
    ]);
    expect(report.verdict).toBe('repetition would have stopped this session at turn 6, tool call 5, saving 7 turns, 7 tool calls, 7700 tokens and about $0.7000');
  });

  it('a budget from loop.yaml fires where usage reaches the limit', () => {
    const report = auditEntries(entriesOf('claude-retry-loop.jsonl'), { ...DEFAULTS, limits: { ...DEFAULTS.limits, tool_calls: 10 } });
    expect(report.firings.find((f) => f.detector === 'budget')).toEqual({
      detector: 'budget',
      at: { turn: 10, tool_call: 10 },
      detail: 'tool_calls reached its limit of 10',
      after: { turns: 3, tool_calls: 2, tokens: 3300, cost_usd: 0.3, cost_estimated: true },
    });
  });

  it('a session without loops: nothing fires; unreported cost stays unknown', () => {
    const report = auditEntries(entriesOf('codex-exec.jsonl'), DEFAULTS);
    expect(report.firings).toEqual([]);
    expect(report.total).toEqual({ turns: 2, tool_calls: 3, tokens: 1545, cost_usd: null });
    expect(report.verdict).toBe('no detector would have fired: loopdeck would have let this session run to its end');
  });
});

describe('test summaries in tool output', () => {
  it.each([
    ['============ 1 failed, 11 passed in 0.42s ============', { failing: 1, passing: 11 }],
    ['Tests: 2 failed, 10 passed, 12 total', { failing: 2, passing: 10 }],
    [' Tests  1 failed | 11 passed (12)', { failing: 1, passing: 11 }],
    ['test result: FAILED. 11 passed; 1 failed; 0 ignored', { failing: 1, passing: 11 }],
    ['  11 passing (20ms)\n  1 failing', { failing: 1, passing: null }],
    ['# tests 12\n# pass 11\n# fail 1', { failing: 1, passing: 11 }],
    ['Tests: 12 passed, 12 total', { failing: 0, passing: 12 }],
    ['ls: cannot access foo', null],
  ])('%s', (output, expected) => {
    expect(testSummary(output)).toEqual(expected);
  });
});
